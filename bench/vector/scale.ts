/**
 * Scale benchmark of the vector endpoint (issue 9). Run through `bash bench/vector/run.sh` (after
 * bench.ts and phases.ts), which also prepares the previous version's worktree. See README "Scale (issue 9)".
 *
 * Four cases on bench/data/vector_1m.parquet, served by serve.ts over loopback HTTP with Range:
 *   small   10 × 10 features (63.5 km², 1 row group);   medium 100 × 100 (8,020 km², 5 row groups);
 *   large   400 × 400 (134,064 km², 35 row groups);     nocover_small: small on the copy without covering.
 * Request: {url, aoi: <Polygon>, columns: ["value"], stats: ["count","mean","sum","min","max"]}.
 *
 * Measured for each case, warm (after uncounted warm-up queries of the same case; JIT warm, the service's
 * read cache, default 64 MiB, filled):
 *   - service: buildApp of this checkout's src/ (service.ts, its own process);
 *   - previous: the same of commit PREV_COMMIT, from the git worktree BENCH_PREV_DIR (/tmp/zonal-prev),
 *     started by that worktree's own bench/vector/service.ts (skipped when BENCH_PREV_SKIP says why);
 *   - naive: naive.ts (hyparquet + covering pruning + polyclip-ts on the border features; own process);
 *   - fullscan: fullscan.ts (every row group; own process), also the reference answers.
 * During the large case's timed series: the service process's peak RSS (VmHWM from /proc/<pid>/status,
 * reset through /proc/<pid>/clear_refs before the series when the kernel allows it) and GET /health polled
 * every BENCH_HEALTH_MS (10) ms on a fixed schedule, each latency counted from when its poll was due.
 *
 * Every answer (service, previous, naive) is checked against the full scan's: count exact; mean, sum,
 * min, max within 1e-9 relative. Mismatches are printed at once and in the summary; the run goes on.
 *
 * Environment: BENCH_RUNS_SMALL (20), BENCH_RUNS_MEDIUM (10), BENCH_RUNS_LARGE (3), BENCH_RUNS_NOCOVER (3);
 * BENCH_WARMUP_SMALL (10), BENCH_WARMUP_MEDIUM (3), BENCH_WARMUP_LARGE (1), BENCH_WARMUP_NOCOVER (1);
 * BENCH_FULLSCAN_RUNS (3); BENCH_TIMEOUT_S (120: a slower query cuts its case, marked "timeout");
 * BENCH_CASE_BUDGET_S (240: a timed series stops after the run that passes it, at least one run);
 * BENCH_HEALTH_MS (10); BENCH_PREV_DIR (/tmp/zonal-prev); BENCH_PREV_SKIP (set by run.sh: why there is
 * no previous version).
 * Writes bench/out/vector-scale.md and bench/out/vector-scale.json.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { aoiPolygon, rectAreaM2, scaleAois, type Grid, type RectAoi } from './aois.ts';
import type { ColumnTruth, ScanResult } from './fullscan.ts';
import type { NaiveAnswer } from './naive.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const HERE = join(ROOT, 'bench', 'vector');
const DATA = join(ROOT, 'bench', 'data');
const OUT = join(ROOT, 'bench', 'out');
const FILE = join(DATA, 'vector_1m.parquet');
const PREV_COMMIT = '2ac88c1';
const PREV_DIR = process.env['BENCH_PREV_DIR'] ?? '/tmp/zonal-prev';
const PREV_SKIP = process.env['BENCH_PREV_SKIP'] ?? '';
const STATS = ['count', 'mean', 'sum', 'min', 'max'];
const COLUMN = 'value';
const num = (name: string, dflt: number): number => {
  const v = Number(process.env[name] ?? dflt);
  return Number.isFinite(v) && v >= 0 ? v : dflt;
};
const TIMEOUT_MS = num('BENCH_TIMEOUT_S', 120) * 1000;
const BUDGET_MS = num('BENCH_CASE_BUDGET_S', 240) * 1000;
const HEALTH_MS = num('BENCH_HEALTH_MS', 10);
const FULLSCAN_RUNS = Math.max(1, num('BENCH_FULLSCAN_RUNS', 3));
const MiB = 2 ** 20;

interface Sidecar {
  params: Grid & { rowGroupSize: number; codec: string; order: string };
  bytes: number;
  rows: number;
  rowGroups: number;
  footerBytes: number;
  groups: [number, number, number, number][];
}
const side = JSON.parse(readFileSync(join(DATA, 'vector_1m.json'), 'utf8')) as Sidecar;
const A = scaleAois(side.params);

type CaseName = 'small' | 'medium' | 'large' | 'nocover_small';
interface Case {
  name: CaseName;
  aoi: RectAoi;
  file: 'vector_1m.parquet' | 'vector_1m_nocover.parquet';
  warmup: number;
  runs: number;
  /** Target on the service's warm p50. */
  target: { ms: number } | { ofFullscan: number };
  what: string;
}
const CASES: Case[] = [
  {
    name: 'small',
    aoi: A.small,
    file: 'vector_1m.parquet',
    warmup: num('BENCH_WARMUP_SMALL', 10),
    runs: num('BENCH_RUNS_SMALL', 20),
    target: { ms: 40 },
    what: '10 × 10 features',
  },
  {
    name: 'medium',
    aoi: A.medium,
    file: 'vector_1m.parquet',
    warmup: num('BENCH_WARMUP_MEDIUM', 3),
    runs: num('BENCH_RUNS_MEDIUM', 10),
    target: { ms: 300 },
    what: '100 × 100 features',
  },
  {
    name: 'large',
    aoi: A.large,
    file: 'vector_1m.parquet',
    warmup: num('BENCH_WARMUP_LARGE', 1),
    runs: num('BENCH_RUNS_LARGE', 3),
    target: { ms: 1500 },
    what: '400 × 400 features',
  },
  {
    name: 'nocover_small',
    aoi: A.small,
    file: 'vector_1m_nocover.parquet',
    warmup: num('BENCH_WARMUP_NOCOVER', 1),
    runs: num('BENCH_RUNS_NOCOVER', 3),
    target: { ofFullscan: 0.5 },
    what: 'small, file without covering',
  },
];
const RSS_TARGET = 500 * MiB;
const HEALTH_P99_TARGET = 50;

// ------------------------------------------------------------------------------------------------
// children (the same IPC pattern as bench.ts)

interface Child {
  proc: ChildProcess;
  hello: Record<string, unknown>;
  ask<T>(msg: Record<string, unknown>): Promise<T>;
  stop(): Promise<void>;
}

async function startChild(script: string, opts: { cwd?: string; args?: string[]; env?: Record<string, string> } = {}): Promise<Child> {
  const proc = fork(script, opts.args ?? [], {
    cwd: opts.cwd ?? ROOT,
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = (): Promise<Record<string, unknown>> =>
    new Promise((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`${script} exited (${code})`));
      proc.once('exit', onExit);
      proc.once('message', (m) => {
        proc.off('exit', onExit);
        resolve(m as Record<string, unknown>);
      });
    });
  const hello = await next();
  return {
    proc,
    hello,
    async ask<T>(msg: Record<string, unknown>): Promise<T> {
      const answer = next();
      proc.send(msg);
      return (await answer) as T;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
        const kill = setTimeout(() => proc.kill('SIGKILL'), 5000);
        proc.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        proc.send({ cmd: 'exit' });
      }),
  };
}

function vmHwm(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : Number.NaN;
}
/** Resets the peak RSS of `pid` (Linux: "5" > /proc/pid/clear_refs); false when not allowed. */
function resetHwm(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

interface Logged {
  method: string;
  range: string | undefined;
  status: number;
  bytesSent: number;
}

// ------------------------------------------------------------------------------------------------
// queries

interface Answer {
  count: number | null;
  mean: number | null;
  sum: number | null;
  min: number | null;
  max: number | null;
  data_area?: number | null;
  aoi_area?: number | null;
}
interface Query {
  ms: number;
  status: number | 'timeout' | 'error';
  requests: number;
  bytes: number;
  answer: Answer | null;
  mismatches: string[];
  maxRel: number;
  note?: string;
}

const truths = new Map<CaseName, ColumnTruth>();

function compare(got: Answer | null, want: ColumnTruth | undefined): { mismatches: string[]; maxRel: number } {
  if (want === undefined) return { mismatches: ['no full-scan answer'], maxRel: Number.NaN };
  if (got === null) return { mismatches: ['no answer'], maxRel: Number.NaN };
  const out: string[] = [];
  let maxRel = 0;
  if (got.count !== want.count) out.push(`count ${String(got.count)} ≠ ${want.count}`);
  for (const k of ['mean', 'sum', 'min', 'max'] as const) {
    const g = got[k];
    const w = want[k];
    if (w === null || g === null || g === undefined) {
      if (w !== g) out.push(`${k} ${String(g)} ≠ ${String(w)}`);
      continue;
    }
    const rel = Math.abs(g - w) / Math.max(Number.MIN_VALUE, Math.abs(w));
    maxRel = Math.max(maxRel, rel);
    if (!(rel <= 1e-9)) out.push(`${k} ${g} ≠ ${w} (relative ${rel.toExponential(1)})`);
  }
  return { mismatches: out, maxRel };
}

async function serverLog(): Promise<Logged[]> {
  return (await server.ask<{ log: Logged[] }>({ cmd: 'log' })).log;
}

async function serviceQuery(port: number, c: Case): Promise<Query> {
  await serverLog(); // clear
  const t0 = performance.now();
  try {
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/zonal-stats/vector`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${origin}/${c.file}`, aoi: aoiPolygon(c.aoi), columns: [COLUMN], stats: STATS }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const body = (await res.json()) as Record<string, Answer>;
    const ms = performance.now() - t0;
    const log = await serverLog();
    const answer = res.status === 200 ? (body[COLUMN] ?? null) : null;
    const cmp =
      res.status === 200
        ? compare(answer, truths.get(c.name))
        : { mismatches: [`status ${res.status}: ${JSON.stringify(body).slice(0, 300)}`], maxRel: Number.NaN };
    return { ms, status: res.status, requests: log.length, bytes: log.reduce((s, r) => s + r.bytesSent, 0), answer, ...cmp };
  } catch (e) {
    const ms = performance.now() - t0;
    const log = await serverLog();
    const timeout = (e as Error).name === 'TimeoutError';
    return {
      ms,
      status: timeout ? 'timeout' : 'error',
      requests: log.length,
      bytes: log.reduce((s, r) => s + r.bytesSent, 0),
      answer: null,
      mismatches: [timeout ? `timeout (> ${TIMEOUT_MS / 1000} s)` : String(e)],
      maxRel: Number.NaN,
    };
  }
}

async function naiveQuery(naive: Child, c: Case): Promise<Query> {
  await serverLog();
  const t0 = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), TIMEOUT_MS)));
  const r = await Promise.race([
    naive.ask<{ answer?: NaiveAnswer; error?: string }>({ cmd: 'query', url: `${origin}/${c.file}`, aoi: aoiPolygon(c.aoi), column: COLUMN }),
    timeout,
  ]);
  clearTimeout(timer);
  const ms = performance.now() - t0;
  if (r === 'timeout') {
    naive.proc.kill('SIGKILL');
    return { ms, status: 'timeout', requests: 0, bytes: 0, answer: null, mismatches: [`timeout (> ${TIMEOUT_MS / 1000} s)`], maxRel: Number.NaN };
  }
  const log = await serverLog();
  if (r.answer === undefined) return { ms, status: 'error', requests: log.length, bytes: 0, answer: null, mismatches: [String(r.error)], maxRel: Number.NaN };
  return {
    ms,
    status: 200,
    requests: log.length,
    bytes: log.reduce((s, x) => s + x.bytesSent, 0),
    answer: r.answer,
    note: `${r.answer.rowGroups} of ${r.answer.rowGroupsTotal} row groups read, ${r.answer.clipped} features clipped, ${r.answer.inside} whole`,
    ...compare(r.answer, truths.get(c.name)),
  };
}

// ------------------------------------------------------------------------------------------------
// series

interface Series {
  impl: string;
  caseName: CaseName;
  warmup: Query[];
  timed: Query[];
  runsAsked: number;
  /** Why the series stopped early, if it did. */
  cut: string | null;
  min: number;
  p50: number;
  p95: number;
  extra?: Record<string, unknown>;
}

function pct(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const r = (p / 100) * (sorted.length - 1);
  const lo = Math.floor(r);
  const hi = Math.ceil(r);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (r - lo);
}

const mismatchLog: string[] = [];

async function series(
  impl: string,
  c: Case,
  one: () => Promise<Query>,
  hooks: { before?: () => void | Promise<void>; after?: (s: Series) => void | Promise<void> } = {},
): Promise<Series> {
  const t0 = performance.now();
  const s: Series = { impl, caseName: c.name, warmup: [], timed: [], runsAsked: c.runs, cut: null, min: Number.NaN, p50: Number.NaN, p95: Number.NaN };
  const note = (q: Query, label: string): void => {
    for (const m of q.mismatches) {
      const line = `${impl} / ${c.name} / ${label}: ${m}`;
      mismatchLog.push(line);
      console.log(`  !!! ${q.status === 200 ? 'MISMATCH' : 'ERROR'} ${line}`);
    }
  };
  for (let i = 0; i < c.warmup; i++) {
    const q = await one();
    s.warmup.push(q);
    note(q, `warm-up ${i + 1}`);
    if (q.status === 'timeout') {
      s.cut = 'timeout';
      return s;
    }
  }
  await hooks.before?.();
  for (let i = 0; i < c.runs; i++) {
    const q = await one();
    s.timed.push(q);
    note(q, `run ${i + 1}`);
    if (q.status === 'timeout') {
      s.cut = 'timeout';
      break;
    }
    if (i + 1 < c.runs && performance.now() - t0 > BUDGET_MS) {
      s.cut = `time budget (BENCH_CASE_BUDGET_S): ${i + 1} of ${c.runs} runs`;
      break;
    }
  }
  // Timings of answered queries only (a 503 or a timeout is reported, not timed).
  const ms = s.timed
    .filter((q) => q.status === 200)
    .map((q) => q.ms)
    .sort((a, b) => a - b);
  s.min = ms[0] ?? Number.NaN;
  s.p50 = pct(ms, 50);
  s.p95 = pct(ms, 95);
  await hooks.after?.(s);
  const failed = s.timed.length - ms.length;
  const fmtQ =
    s.timed.length > 0
      ? `${ms.length} runs${failed ? ` (+ ${failed} failed)` : ''}: min ${fmtMs(s.min)}, p50 ${fmtMs(s.p50)}, p95 ${fmtMs(s.p95)}`
      : 'no timed run';
  const warm = s.warmup.length > 0 ? ` (warm-up: ${s.warmup.map((q) => fmtMs(q.ms)).join(', ')})` : '';
  console.log(`  ${c.name.padEnd(14)} ${fmtQ}${warm}${s.cut ? ` — cut: ${s.cut}` : ''}`);
  return s;
}

/**
 * GET /health every `everyMs` on a fixed schedule, open loop: each poll is sent when due, whether or not
 * the earlier ones have answered (as independent clients would), and its latency runs from then. A stall
 * of the service's event loop therefore shows in every poll it delays, not in one.
 */
function pollHealth(port: number, everyMs: number): { stop(): Promise<{ latencies: number[]; bad: number; skipped: number }> } {
  const MAX_IN_FLIGHT = 2000;
  let stopped = false;
  const latencies: number[] = [];
  const pending = new Set<Promise<void>>();
  let bad = 0;
  let skipped = 0;
  const t0 = performance.now();
  const one = (due: number): void => {
    const p = fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(TIMEOUT_MS) })
      .then(async (r) => {
        await r.arrayBuffer();
        if (r.status !== 200) bad++;
      })
      .catch(() => void bad++)
      .finally(() => {
        latencies.push(performance.now() - due);
        pending.delete(p);
      });
    pending.add(p);
  };
  const loop = (async () => {
    for (let k = 0; !stopped; k++) {
      const due = t0 + k * everyMs;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      if (stopped) break;
      if (pending.size >= MAX_IN_FLIGHT) skipped++;
      else one(due);
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      await Promise.all([...pending]);
      return { latencies, bad, skipped };
    },
  };
}

// ------------------------------------------------------------------------------------------------
// formatting

const fmtMs = (ms: number): string =>
  !Number.isFinite(ms) ? '–' : ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms >= 100 ? ms.toFixed(0) : ms.toFixed(1)} ms`;
const fmtBytes = (b: number): string =>
  !Number.isFinite(b)
    ? '–'
    : b >= 2 ** 30
      ? `${(b / 2 ** 30).toFixed(2)} GiB`
      : b >= MiB
        ? `${(b / MiB).toFixed(1)} MiB`
        : b >= 1024
          ? `${(b / 1024).toFixed(0)} KiB`
          : `${b} B`;
const fmtRatio = (a: number, b: number): string => {
  if (!(Number.isFinite(a) && Number.isFinite(b) && b > 0)) return '–';
  const r = a / b;
  return `${r >= 10 ? r.toFixed(0) : r >= 1 ? r.toFixed(1) : r.toPrecision(2)}×`;
};
const fmtKm2 = (m2: number): string => `${(m2 / 1e6).toLocaleString('en', { maximumFractionDigits: m2 < 1e9 ? 1 : 0 })} km²`;

/** A content hash of src/ (files and bytes), to tell which version a service process loaded. */
function srcHash(root: string): string {
  const h = createHash('sha1');
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else h.update(p.slice(root.length)).update(readFileSync(p));
    }
  };
  walk(join(root, 'src'));
  return h.digest('hex').slice(0, 12);
}
function git(args: string[], cwd = ROOT): string {
  try {
    return execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
}
function cpuTimes(): [number, number] {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  return [f.reduce((a, b) => a + b, 0), (f[3] ?? 0) + (f[4] ?? 0)];
}

// ------------------------------------------------------------------------------------------------
// main

const started = performance.now();
const cpuStart = cpuTimes();
mkdirSync(OUT, { recursive: true });
const groupsMet = (a: RectAoi): number => side.groups.filter((g) => g[0] <= a.box[2] && g[2] >= a.box[0] && g[1] <= a.box[3] && g[3] >= a.box[1]).length;
const srcDirty = git(['status', '--porcelain', '--', 'src'])
  .split('\n')
  .filter((l) => l !== '').length;
const head = git(['rev-parse', '--short', 'HEAD']);
const srcAtStart = srcHash(ROOT);
console.log(`scale benchmark (issue 9): ${side.rows.toLocaleString('en')} features, ${side.rowGroups} row groups, ${fmtBytes(side.bytes)}`);
console.log(`service: ${ROOT} at ${head}${srcDirty ? ` + ${srcDirty} uncommitted change(s) under src/` : ''} (src hash ${srcAtStart})`);
for (const c of CASES)
  console.log(
    `  ${c.name.padEnd(14)} ${c.aoi.box.map((v) => v.toFixed(3)).join(', ')}: ${fmtKm2(rectAreaM2(...c.aoi.box))}, ${c.file === 'vector_1m.parquet' ? groupsMet(c.aoi) : side.rowGroups} row groups; ${c.warmup} warm-up + ${c.runs} runs`,
  );

const server = await startChild(join(HERE, 'serve.ts'), { args: [FILE] });
const origin = server.hello['origin'] as string;

// 1. Full scan per case: the reference answers and the fullscan anchor.
console.log(`fullscan (every row group; ${FULLSCAN_RUNS} run(s) per case) …`);
const results: Series[] = [];
for (const c of CASES) {
  const qs: Query[] = [];
  let result: ScanResult | undefined;
  for (let i = 0; i < FULLSCAN_RUNS; i++) {
    await serverLog();
    const scanner = await startChild(join(HERE, 'fullscan.ts'));
    const t0 = performance.now();
    const a = await scanner.ask<{ result?: ScanResult; error?: string }>({ url: `${origin}/${c.file}`, aois: [c.aoi], columns: [COLUMN] });
    const ms = performance.now() - t0;
    await scanner.stop();
    const log = await serverLog();
    if (!a.result) throw new Error(`full scan failed: ${a.error}`);
    result = a.result;
    const t = result.truth[c.aoi.name]![COLUMN]!;
    truths.set(c.name, t);
    qs.push({ ms, status: 200, requests: log.length, bytes: log.reduce((s, r) => s + r.bytesSent, 0), answer: t, mismatches: [], maxRel: 0 });
  }
  const ms = qs.map((q) => q.ms).sort((a, b) => a - b);
  results.push({
    impl: 'fullscan',
    caseName: c.name,
    warmup: [],
    timed: qs,
    runsAsked: FULLSCAN_RUNS,
    cut: null,
    min: ms[0]!,
    p50: pct(ms, 50),
    p95: pct(ms, 95),
    extra: { peakRss: result!.peakRss, scanMs: result!.ms },
  });
  const t = truths.get(c.name)!;
  console.log(`  ${c.name.padEnd(14)} ${fmtMs(pct(ms, 50))}, count ${t.count}, mean ${t.mean}, sum ${t.sum}, min ${t.min}, max ${t.max}`);
}
{
  const a = truths.get('small')!;
  const b = truths.get('nocover_small')!;
  if (JSON.stringify(a) !== JSON.stringify(b))
    console.log(`  !!! the full scans of small and nocover_small differ: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
}

// 2. The naive reader, one process for every case.
console.log('naive reader (hyparquet + covering pruning + polyclip-ts on border features) …');
{
  let naive = await startChild(join(HERE, 'naive.ts'));
  for (const c of CASES) {
    const s = await series('naive', c, () => naiveQuery(naive, c));
    if (s.cut === 'timeout') naive = await startChild(join(HERE, 'naive.ts'));
    s.extra = { note: s.timed[0]?.note ?? s.warmup[0]?.note };
    results.push(s);
  }
  const peak = (await naive.ask<{ peakRss: number }>({ cmd: 'mem' })).peakRss;
  for (const s of results) if (s.impl === 'naive') s.extra = { ...s.extra, processPeakRss: peak };
  await naive.stop();
}

// 3. The service, this checkout's and the previous version's; one process each, the cases in order.
interface Version {
  impl: 'service' | 'previous';
  label: string;
  script: string;
  cwd: string;
  srcHash?: string;
  skipped?: string;
  processPeakRss?: number;
}
const versions: Version[] = [
  { impl: 'service', label: `service (this checkout, ${head}${srcDirty ? ' + uncommitted src/' : ''})`, script: join(HERE, 'service.ts'), cwd: ROOT },
];
const prevHead = existsSync(join(PREV_DIR, 'src', 'app.ts')) ? git(['rev-parse', 'HEAD'], PREV_DIR) : '';
const prevWanted = git(['rev-parse', `${PREV_COMMIT}^{commit}`]);
if (PREV_SKIP !== '') versions.push({ impl: 'previous', label: `previous (${PREV_COMMIT})`, script: '', cwd: PREV_DIR, skipped: PREV_SKIP });
else if (prevHead === '' || prevHead !== prevWanted) {
  versions.push({
    impl: 'previous',
    label: `previous (${PREV_COMMIT})`,
    script: '',
    cwd: PREV_DIR,
    skipped: `no worktree of ${PREV_COMMIT} at ${PREV_DIR} (found: ${prevHead || 'nothing'})`,
  });
} else
  versions.push({
    impl: 'previous',
    label: `previous (${PREV_COMMIT}, worktree ${PREV_DIR})`,
    script: join(PREV_DIR, 'bench', 'vector', 'service.ts'),
    cwd: PREV_DIR,
  });

for (const v of versions) {
  if (v.skipped) {
    console.log(`${v.label}: SKIPPED — ${v.skipped}`);
    continue;
  }
  console.log(`${v.label} …`);
  const start = async (): Promise<Child | null> => {
    try {
      v.srcHash = srcHash(v.cwd);
      return await startChild(v.script, { cwd: v.cwd });
    } catch (e) {
      v.skipped = `the service did not start: ${String(e)}`;
      console.log(`  !!! ${v.skipped}`);
      return null;
    }
  };
  let svc = await start();
  if (svc === null) continue;
  for (const c of CASES) {
    const port = (): number => svc!.hello['port'] as number;
    const pid = svc.proc.pid!;
    let poller: ReturnType<typeof pollHealth> | null = null;
    let hwmReset = false;
    const s = await series(
      v.impl,
      c,
      () => serviceQuery(port(), c),
      c.name !== 'large'
        ? {}
        : {
            before: () => {
              hwmReset = resetHwm(pid);
              poller = pollHealth(port(), HEALTH_MS);
            },
            after: async (ss) => {
              const h = await poller!.stop();
              const lat = [...h.latencies].sort((a, b) => a - b);
              ss.extra = {
                peakRss: vmHwm(pid),
                peakRssSince: hwmReset ? 'the start of the timed series (VmHWM reset)' : 'the start of the process (VmHWM could not be reset)',
                // bad: not 200, failed, or not sent (too many in flight)
                health: { polls: lat.length, bad: h.bad + h.skipped, p50: pct(lat, 50), p99: pct(lat, 99), max: lat[lat.length - 1] ?? Number.NaN },
              };
              const e = ss.extra as { peakRss: number; health: { polls: number; bad: number; p50: number; p99: number; max: number } };
              console.log(
                `  ${''.padEnd(14)} peak RSS ${fmtBytes(e.peakRss)} (since ${hwmReset ? 'the timed series' : 'process start'}); /health ${e.health.polls} polls: p50 ${fmtMs(e.health.p50)}, p99 ${fmtMs(e.health.p99)}, max ${fmtMs(e.health.max)}${e.health.bad ? `, ${e.health.bad} not 200` : ''}`,
              );
            },
          },
    );
    results.push(s);
    if (s.cut === 'timeout') {
      // The service may still be working on the abandoned query: the next case gets a fresh process.
      svc.proc.kill('SIGKILL');
      svc = await start();
      if (svc === null) break;
    }
  }
  if (svc !== null) {
    v.processPeakRss = vmHwm(svc.proc.pid!);
    await svc.stop();
  }
}
await server.stop();

// ------------------------------------------------------------------------------------------------
// report

const srcAtEnd = srcHash(ROOT);
const cpuEnd = cpuTimes();
const busy = 100 * (1 - (cpuEnd[1] - cpuStart[1]) / Math.max(1, cpuEnd[0] - cpuStart[0]));
const date = new Date().toISOString().slice(0, 10);
const cpu = cpus()[0]?.model ?? 'unknown CPU';
const get = (impl: string, c: CaseName): Series | undefined => results.find((s) => s.impl === impl && s.caseName === c);
const IMPLS: [string, string][] = [
  ['service', versions[0]!.label],
  ['previous', versions[1]!.label],
  ['naive', 'naive reader (naive.ts)'],
  ['fullscan', 'fullscan (fullscan.ts)'],
];
const answersOf = (s: Series): string => {
  if (s.impl === 'fullscan') return 'reference';
  const all = [...s.warmup, ...s.timed];
  const bad = all.filter((q) => q.mismatches.length > 0).length;
  const rel = Math.max(0, ...all.map((q) => q.maxRel).filter(Number.isFinite));
  const failed = all.filter((q) => q.status !== 200).map((q) => String(q.status));
  const why = failed.length > 0 ? ` (no answer: ${[...new Set(failed)].map((st) => `${failed.filter((f) => f === st).length} × ${st}`).join(', ')})` : '';
  return bad === 0 ? `${all.length}/${all.length} equal (max rel. ${rel.toExponential(0)})` : `**${all.length - bad}/${all.length} equal**${why}`;
};
const spread = (xs: number[], f: (x: number) => string): string => {
  if (xs.length === 0) return '–';
  const s = [...xs].sort((a, b) => a - b);
  return s[0] === s[s.length - 1] ? f(s[0]!) : `${f(pct(s, 50))} (${f(s[0]!)}–${f(s[s.length - 1]!)})`;
};

const md: string[] = [];
md.push(
  `Run ${date} on ${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}; machine CPU busy ${busy.toFixed(0)} % over the run (${((performance.now() - started) / 60000).toFixed(1)} min).`,
);
md.push(
  `Service: this checkout at ${head}${srcDirty ? ` with ${srcDirty} uncommitted change(s) under src/ (other work in progress)` : ''}; src/ content hash ${versions[0]!.srcHash ?? '–'} when its process started${srcAtEnd !== srcAtStart ? ` (**src/ changed during the run**: ${srcAtStart} at the start, ${srcAtEnd} at the end)` : ' (unchanged over the run)'}. Previous: ${versions[1]!.skipped ? `skipped (${versions[1]!.skipped})` : `commit ${PREV_COMMIT} from the worktree ${PREV_DIR}`}.`,
);
md.push(
  `File: ${side.rows.toLocaleString('en')} polygons, ${side.rowGroups} row groups of ${side.params.rowGroupSize.toLocaleString('en')}, ${side.params.codec}, ${side.params.order} order, ${fmtBytes(side.bytes)}. Request: columns ["value"], stats ${JSON.stringify(STATS)}. Service with its default configuration (read cache 64 MiB); "warm" = after the uncounted warm-up queries of the same case.`,
);
md.push('');
md.push('| case | AOI (W, S, E, N) | area | features (full scan) | row groups met | warm-up + runs |');
md.push('|---|---|---|---|---|---|');
for (const c of CASES) {
  md.push(
    `| ${c.name} | ${c.aoi.box.map((v) => v.toFixed(3)).join(', ')} | ${fmtKm2(rectAreaM2(...c.aoi.box))} | ${truths.get(c.name)?.count.toLocaleString('en')} | ${c.file === 'vector_1m.parquet' ? `${groupsMet(c.aoi)} of ${side.rowGroups}` : `all ${side.rowGroups} (no covering)`} | ${c.warmup} + ${c.runs} |`,
  );
}
md.push('');
md.push(
  '| case | implementation | runs | min | p50 | p95 | requests / query | bytes read / query | answers vs full scan | data_area (Σ A∩ of the full scan) |',
);
md.push('|---|---|---|---|---|---|---|---|---|---|');
for (const c of CASES) {
  for (const [impl, label] of IMPLS) {
    const s = get(impl, c.name);
    if (s === undefined) {
      md.push(`| ${c.name} | ${label} | skipped |  |  |  |  |  |  |  |`);
      continue;
    }
    const okQ = s.timed.filter((q) => q.status === 200);
    const da = impl === 'service' || impl === 'previous' ? s.timed.find((q) => q.answer?.data_area != null)?.answer?.data_area : undefined;
    const daCell = impl === 'fullscan' ? `(${fmtKm2(truths.get(c.name)!.interArea)})` : typeof da === 'number' ? fmtKm2(da) : '';
    const failed = s.timed.length - okQ.length;
    const runs = `${okQ.length}${failed ? ` (+ ${failed} failed)` : ''}${s.cut ? ` of ${s.runsAsked} (${s.cut === 'timeout' ? '**timeout**' : 'time budget'})` : ''}`;
    md.push(
      `| ${c.name} | ${label} | ${runs} | ${fmtMs(s.min)} | ${s.impl === 'service' ? `**${fmtMs(s.p50)}**` : fmtMs(s.p50)} | ${fmtMs(s.p95)} | ${spread(
        okQ.map((q) => q.requests),
        String,
      )} | ${spread(
        okQ.map((q) => q.bytes),
        fmtBytes,
      )} | ${answersOf(s)} | ${daCell} |`,
    );
  }
}
md.push('');
md.push('| case | service p50 | ÷ naive | ÷ fullscan | ÷ previous | target | result | previous vs target |');
md.push('|---|---|---|---|---|---|---|---|');
const targets: { what: string; value: string; limit: string; pass: boolean | null; prev: string }[] = [];
const passOf = (s: Series | undefined, c: Case): boolean | null => {
  if (s === undefined) return null;
  if (s.cut === 'timeout' || !Number.isFinite(s.p50)) return false;
  const full = get('fullscan', c.name)!.p50;
  return 'ms' in c.target ? s.p50 <= c.target.ms : s.p50 <= c.target.ofFullscan * full;
};
const word = (p: boolean | null): string => (p === null ? 'n/a' : p ? 'PASS' : 'FAIL');
for (const c of CASES) {
  const s = get('service', c.name);
  const p = get('previous', c.name);
  const full = get('fullscan', c.name)!.p50;
  const limit = 'ms' in c.target ? `≤ ${fmtMs(c.target.ms)}` : `≤ ${c.target.ofFullscan} × fullscan = ${fmtMs(c.target.ofFullscan * full)}`;
  const pass = passOf(s, c);
  const value = s?.cut === 'timeout' ? 'timeout' : fmtMs(s?.p50 ?? Number.NaN);
  targets.push({ what: `${c.name} p50`, value, limit, pass, prev: p ? `${p.cut === 'timeout' ? 'timeout' : fmtMs(p.p50)} ${word(passOf(p, c))}` : 'n/a' });
  md.push(
    `| ${c.name} | ${value} | ${fmtRatio(s?.p50 ?? Number.NaN, get('naive', c.name)?.p50 ?? Number.NaN)} | ${fmtRatio(s?.p50 ?? Number.NaN, full)} | ${fmtRatio(s?.p50 ?? Number.NaN, p?.p50 ?? Number.NaN)} | ${limit} | **${word(pass)}** | ${p ? `${p.cut === 'timeout' ? 'timeout' : fmtMs(p.p50)}: ${word(passOf(p, c))}` : 'n/a'} |`,
  );
}
type Large = { peakRss: number; peakRssSince: string; health: { polls: number; bad: number; p50: number; p99: number; max: number } };
const lg = get('service', 'large')?.extra as Large | undefined;
const lgPrev = get('previous', 'large')?.extra as Large | undefined;
const rssPass = lg ? lg.peakRss <= RSS_TARGET : null;
const hPass = lg ? lg.health.p99 < HEALTH_P99_TARGET && lg.health.bad === 0 : null;
const prevRss = lgPrev ? `${fmtBytes(lgPrev.peakRss)}: ${word(lgPrev.peakRss <= RSS_TARGET)}` : 'n/a';
const prevH = lgPrev ? `${fmtMs(lgPrev.health.p99)}: ${word(lgPrev.health.p99 < HEALTH_P99_TARGET && lgPrev.health.bad === 0)}` : 'n/a';
md.push(
  `| large: service peak RSS (VmHWM since ${lg?.peakRssSince ?? '–'}) | ${lg ? fmtBytes(lg.peakRss) : '–'} |  |  | ${fmtRatio(lg?.peakRss ?? Number.NaN, lgPrev?.peakRss ?? Number.NaN)} | ≤ 500 MiB | **${word(rssPass)}** | ${prevRss} |`,
);
md.push(
  `| large: GET /health every ${HEALTH_MS} ms, p99 (${lg ? `${lg.health.polls} polls, p50 ${fmtMs(lg.health.p50)}, max ${fmtMs(lg.health.max)}${lg.health.bad ? `, ${lg.health.bad} not 200` : ''}` : '–'}) | ${lg ? fmtMs(lg.health.p99) : '–'} |  |  | ${fmtRatio(lg?.health.p99 ?? Number.NaN, lgPrev?.health.p99 ?? Number.NaN)} | < ${HEALTH_P99_TARGET} ms | **${word(hPass)}** | ${prevH} |`,
);
targets.push({ what: 'large peak RSS', value: lg ? fmtBytes(lg.peakRss) : '–', limit: '≤ 500 MiB', pass: rssPass, prev: prevRss });
targets.push({ what: 'large /health p99', value: lg ? fmtMs(lg.health.p99) : '–', limit: `< ${HEALTH_P99_TARGET} ms`, pass: hPass, prev: prevH });
md.push('');
md.push(`Targets (this checkout's service): ${targets.map((t) => `${t.what} ${t.value} (${t.limit}): ${word(t.pass)}`).join('; ')}.`);
const naiveNotes = CASES.map((c) => `${c.name}: ${String(get('naive', c.name)?.extra?.['note'] ?? '–')}`).join('; ');
md.push(
  `Naive reader per query: ${naiveNotes}. Peak RSS of the naive process ${fmtBytes(Number(get('naive', 'small')?.extra?.['processPeakRss']))}; of a fullscan process ${fmtBytes(Number(get('fullscan', 'large')?.extra?.['peakRss']))}; of the service processes over all cases: ${versions.map((v) => `${v.impl} ${fmtBytes(v.processPeakRss ?? Number.NaN)}`).join(', ')}.`,
);
md.push(
  mismatchLog.length === 0
    ? "Every answer of the service, the previous version and the naive reader equals the full scan's (count exact; mean, sum, min, max within 1e-9 relative). data_area is not compared (the full scan computes no union); the full scan's Σ A∩ is shown next to it: the features are disjoint, so the two should agree."
    : `**MISMATCHES OR FAILED QUERIES** (${mismatchLog.length}; the other answers equal the full scan's):\n${mismatchLog
        .slice(0, 40)
        .map((m) => `- ${m}`)
        .join('\n')}${mismatchLog.length > 40 ? `\n- … ${mismatchLog.length - 40} more (bench/out/vector-scale.json)` : ''}`,
);
const text = md.join('\n');
console.log(`\n${text}`);
writeFileSync(join(OUT, 'vector-scale.md'), `${text}\n`);
writeFileSync(
  join(OUT, 'vector-scale.json'),
  `${JSON.stringify({ date, cpu, cores: cpus().length, node: process.version, cpuBusyPct: busy, head, srcDirty, srcAtStart, srcAtEnd, prevCommit: PREV_COMMIT, versions, cases: CASES.map((c) => ({ ...c, areaM2: rectAreaM2(...c.aoi.box), groupsMet: groupsMet(c.aoi), truth: truths.get(c.name) })), targets, mismatches: mismatchLog, results }, null, 1)}\n`,
);
if (mismatchLog.length > 0) {
  console.log(`\n!!! ${mismatchLog.length} MISMATCH(ES) OR FAILED QUERIES against the full scan: see above and bench/out/vector-scale.md`);
  process.exitCode = 1;
}
