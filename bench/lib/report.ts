/** What the benchmark drivers' reports share: knobs from the environment, numbers as the tables print them, the commit. */
import { execFileSync } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import { ROOT } from './child.ts';

/** A line on stdout (the drivers' progress). */
export const say = (s: string) => console.log(s);

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A number from the environment (`name`), `dflt` when unset or not a number. */
export const num = (name: string, dflt: number): number => {
  const v = Number(process.env[name] ?? dflt);
  return Number.isFinite(v) ? v : dflt;
};

// A number as the tables print it; '–' when it is not finite (not measured, or gone).
export const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '–');
export const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : '–');
export const f3 = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : '–');
export const int = (x: number) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en') : '–');
export const sci = (x: number) => (Number.isFinite(x) ? x.toExponential(1) : '–');

/** The median of the finite numbers of `xs` (the mean of the middle two for an even count); NaN when there is none. */
export const median = (xs: number[]): number => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = (s.length - 1) / 2;
  return (s[Math.floor(m)]! + s[Math.ceil(m)]!) / 2;
};

/** The checkout's short commit, with "+ uncommitted changes in src/" when src/ differs from it; 'unknown' without git. */
export function commitOf(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', 'src'], { cwd: ROOT, encoding: 'utf8' }).trim();
    return dirty ? `${head} + uncommitted changes in src/` : head;
  } catch {
    return 'unknown';
  }
}

/**
 * A report's `meta` at the start of a run: date (UTC, to the minute), commit, then `extra` (say, the anchor's
 * version), the CPUs and memory, the 1-min load average and the machine's busy percent in the 3 s before.
 */
export function runMeta(busyBefore: number, extra: Record<string, string> = {}): Record<string, string | number> {
  return {
    date: new Date().toISOString().replace(/:\d\d\.\d+Z$/, ' UTC'),
    commit: commitOf(),
    ...extra,
    cpus: `${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}`,
    memory: `${Math.round(totalmem() / 2 ** 30)} GiB`,
    loadStart: loadavg()[0]!.toFixed(2),
    busyBefore: busyBefore.toFixed(0),
  };
}
