/**
 * Child processes for the benchmark drivers: long-lived helpers, the service as `npm start` runs it, one-shot JSON
 * tools, memory from /proc.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Generated data (git-ignored), and the drivers' reports. */
export const DATA_DIR = join(ROOT, 'bench', 'data');
export const OUT_DIR = join(ROOT, 'bench', 'out');

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

/** A free port on 127.0.0.1 (the kernel's choice, released at once for the service to take). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

/** Sends `sig` to a child unless it has exited, SIGKILL after `graceMs`; resolves once it has exited. */
type Signal = (sig: NodeJS.Signals, graceMs: number) => Promise<void>;

/** The Signal of `proc` (call it at once after spawn, so that its exit is seen however early). */
export function signaller(proc: ChildProcess): Signal {
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  return async (sig, graceMs) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    proc.kill(sig);
    const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };
}

export interface Server {
  pid: number;
  port: number;
  /** Its stdout and stderr lines (pino JSON at LOG_LEVEL=warn, Node's warnings), for the driver to summarise. */
  log: string[];
  signal: Signal;
}

/** The node options `npm start` gives the service (package.json), so that a benchmark measures what it runs. */
const START_FLAGS: string[] = (() => {
  const start = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts['start'] ?? '';
  return /exec node (.*?)\s*dist\/server\.js/.exec(start)?.[1]?.split(/\s+/).filter(Boolean) ?? [];
})();

/**
 * The service as `npm start` runs it (node with its options, dist/server.js; the drivers' run.sh build dist/ when stale), configured by
 * the environment with LOG_LEVEL=warn, ZONAL_DATA_ROOTS=bench/data and ZONAL_DRAIN_DELAY_MS=0, then `env`, on
 * 127.0.0.1 at a free port: ready once GET /health answers (60 s at most). `role` names it in errors.
 */
export async function startServer(role: string, env: Record<string, string> = {}): Promise<Server> {
  const port = await freePort();
  const proc = spawn(process.execPath, [...START_FLAGS, 'dist/server.js'], {
    cwd: ROOT,
    env: {
      ...process.env,
      LOG_LEVEL: 'warn',
      ZONAL_DATA_ROOTS: realpathSync(DATA_DIR),
      ZONAL_DRAIN_DELAY_MS: '0',
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log: string[] = [];
  createInterface({ input: proc.stdout }).on('line', (l) => log.push(l));
  createInterface({ input: proc.stderr }).on('line', (l) => log.push(l));
  const signal = signaller(proc);
  const t = performance.now();
  for (;;) {
    if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`${role} exited before it was ready:\n${log.slice(-20).join('\n')}`);
    const ok = await fetch(`http://127.0.0.1:${port}/health`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    if (performance.now() - t > 60_000) throw new Error(`${role} not ready after 60 s:\n${log.slice(-20).join('\n')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { pid: proc.pid!, port, log, signal };
}

/**
 * One line of a service's log as a message to count: pino JSON at warn and above as "warn: msg: err.message" ("error"
 * above warn), cut to `max` characters; another line (a Node warning) as `plain`, by default itself cut to `max`.
 * Undefined for pino lines below warn and for blank lines.
 */
export function logKey(line: string, max: number, plain = line.slice(0, max)): string | undefined {
  try {
    const o = JSON.parse(line) as { level?: number; msg?: string; err?: { message?: string } };
    if ((o.level ?? 0) < 40) return undefined;
    return [o.level === 40 ? 'warn' : 'error', o.msg, o.err?.message]
      .filter((x) => x)
      .join(': ')
      .slice(0, max);
  } catch {
    return line.trim() === '' ? undefined : plain;
  }
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
