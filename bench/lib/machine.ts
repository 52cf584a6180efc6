/**
 * The machine and its processes as the benchmark drivers read them from /proc: how busy the CPUs are, a process's
 * (or one thread's) CPU ticks, its VmRSS and VmHWM, and waiting for the machine to be idle before measuring.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { say, sleep } from './report.ts';

/** Clock ticks per second of /proc's CPU times (getconf CLK_TCK; 100 when it does not answer). */
export const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** Busy and total CPU jiffies of the whole machine (/proc/stat). */
export function cpuJiffies(): { busy: number; total: number } {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = f.reduce((x, y) => x + y, 0);
  return { busy: total - (f[3] ?? 0) - (f[4] ?? 0), total };
}

/** Percent of the machine's CPU busy over the next `ms` milliseconds. */
export async function busyOver(ms: number): Promise<number> {
  const a = cpuJiffies();
  await sleep(ms);
  const b = cpuJiffies();
  return (100 * (b.busy - a.busy)) / Math.max(1, b.total - a.total);
}

/**
 * utime + stime ticks of a /proc stat file (a process, `/proc/<pid>/stat`, or one of its threads,
 * `/proc/<pid>/task/<tid>/stat`), with its reaped children's when asked; NaN when gone.
 */
export function ticksOf(path: string, children = false): number {
  try {
    const stat = readFileSync(path, 'utf8');
    const f = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
    // f[0] is field 3 (state): utime, stime, cutime, cstime are fields 14-17.
    return f[11]! + f[12]! + (children ? f[13]! + f[14]! : 0);
  } catch {
    return NaN;
  }
}

/** VmRSS and VmHWM of a process in MiB (its threads included); NaN when gone. */
export function rssOf(pid: number): { rss: number; hwm: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
  } catch {
    return { rss: NaN, hwm: NaN };
  }
}

/**
 * On a shared machine, waits up to `maxS` seconds for it to be idle (< 15 % busy over 3 s) before `what` (a
 * part, a round), saying so while it waits. Returns the last busy percent measured.
 */
export async function waitIdle(maxS: number, what?: string): Promise<number> {
  let busy = await busyOver(3000);
  const t = performance.now();
  while (busy > 15 && performance.now() - t < maxS * 1000) {
    say(
      `the machine is ${busy.toFixed(0)} % busy with other jobs: waiting for it to be idle${what === undefined ? '' : ` before ${what}`} (up to ${maxS} s) …`,
    );
    busy = await busyOver(3000);
  }
  return busy;
}

/**
 * Other jobs' CPU over a measurement: the machine's busy ticks less the service's, this driver's (its reaped
 * children included: an anchor run as a child) and the upstream's (a range server standing in for the
 * object store, on the same cores), as a share of the machine; the service's CPU seconds, all threads and its
 * main thread; the upstream's and this driver's (the client reading the answer) CPU seconds.
 */
export class Watch {
  readonly #machine0 = cpuJiffies();
  readonly #self0 = ticksOf('/proc/self/stat', true);
  readonly #svc0: number;
  readonly #main0: number;
  readonly #up0: number;
  constructor(
    readonly pid: number | undefined,
    readonly upstream?: number,
  ) {
    this.#svc0 = pid === undefined ? 0 : ticksOf(`/proc/${pid}/stat`);
    this.#main0 = pid === undefined ? 0 : ticksOf(`/proc/${pid}/task/${pid}/stat`);
    this.#up0 = upstream === undefined ? 0 : ticksOf(`/proc/${upstream}/stat`);
  }
  stop(): { othersPct: number; serviceCpuS: number; serviceMainS: number; upstreamCpuS: number; driverCpuS: number } {
    const m = cpuJiffies();
    const svc = this.pid === undefined ? 0 : ticksOf(`/proc/${this.pid}/stat`) - this.#svc0;
    const main = this.pid === undefined ? 0 : ticksOf(`/proc/${this.pid}/task/${this.pid}/stat`) - this.#main0;
    const up = this.upstream === undefined ? 0 : ticksOf(`/proc/${this.upstream}/stat`) - this.#up0;
    const driver = ticksOf('/proc/self/stat', true) - this.#self0;
    const ours = svc + driver + up;
    return {
      othersPct: Math.max(0, (100 * (m.busy - this.#machine0.busy - ours)) / Math.max(1, m.total - this.#machine0.total)),
      serviceCpuS: svc / CLK_TCK,
      serviceMainS: main / CLK_TCK,
      upstreamCpuS: up / CLK_TCK,
      driverCpuS: driver / CLK_TCK,
    };
  }
}
