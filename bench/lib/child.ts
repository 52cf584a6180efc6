/** Child processes for the benchmark drivers: long-lived helpers, one-shot JSON tools, memory from /proc. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface Child {
  proc: ChildProcess;
  /** The JSON line the child printed when ready. */
  info: Record<string, unknown>;
  /** Lines the child wrote to stderr (reported by the driver, not echoed). */
  stderr: string[];
  /** Closes its stdin (the helpers stop on that), SIGKILL after 5 s. */
  stop(): Promise<void>;
}

/** Starts a long-lived child (`node <args>`, in `cwd`) that prints one JSON line when ready; stdin stays open until stop(). */
export async function startChild(args: string[], extraEnv: Record<string, string> = {}, cwd = ROOT): Promise<Child> {
  const proc = spawn(process.execPath, args, { cwd, env: { ...process.env, ...extraEnv }, stdio: ['pipe', 'pipe', 'pipe'] });
  const stderr: string[] = [];
  createInterface({ input: proc.stderr! }).on('line', (l) => stderr.push(l));
  const lines = createInterface({ input: proc.stdout! });
  const info = await new Promise<Record<string, unknown>>((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code} before it was ready:\n${stderr.slice(-20).join('\n')}`)));
    lines.once('line', (line) => resolve(JSON.parse(line) as Record<string, unknown>));
  });
  proc.removeAllListeners('exit');
  return {
    proc,
    info,
    stderr,
    stop: () =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null) return resolve();
        const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
        proc.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        proc.stdin!.end();
      }),
  };
}

/**
 * The service (bench/lib/service.ts) in its own process; `port` and `pid` from its ready line. `root`: the
 * checkout to run (another commit's worktree, for a before/after), `nodeArgs`: e.g. --cpu-prof.
 */
export async function startService(
  env: Record<string, string>,
  opts: { root?: string; nodeArgs?: string[] } = {},
): Promise<Child & { port: number; pid: number }> {
  const child = await startChild([...(opts.nodeArgs ?? []), '--import', 'tsx', 'bench/lib/service.ts'], env, opts.root ?? ROOT);
  return { ...child, port: Number(child.info['port']), pid: Number(child.info['pid']) };
}

/** Runs a command to completion and parses the last line of its stdout as JSON. */
export function runJson(cmd: string, args: string[]): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const proc = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
    proc.once('exit', (code) => {
      const last = out.trim().split('\n').pop() ?? '';
      if (code !== 0) return reject(new Error(`${cmd} ${args[0]} failed (${code}): ${err.slice(-2000)}`));
      try {
        resolve(JSON.parse(last) as Record<string, unknown>);
      } catch {
        reject(new Error(`${cmd}: no JSON result: ${out.slice(-500)} ${err.slice(-500)}`));
      }
    });
  });
}

/** Peak and current resident set of a process (MiB), from /proc: threads (the workers) included. */
export function memOf(pid: number): { peakMiB: number; rssMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { peakMiB: kb('VmHWM') / 1024, rssMiB: kb('VmRSS') / 1024 };
}
