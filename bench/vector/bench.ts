/**
 * Vector zonal-statistics benchmark driver (issue 3). Run through `bash bench/vector/run.sh`, which
 * installs the writer and makes bench/data/vector_1m.parquet first. See bench/vector/README.md.
 *
 * Each side runs in its own process, over loopback HTTP:
 * - serve.ts: test/helpers/range-server.ts serving the file (and a copy without the bbox covering);
 *   its request log gives the requests and bytes of every query;
 * - service.ts: buildApp from src/app.ts on 127.0.0.1:0, queried with fetch; one process per mode
 *   (read cache off, read cache on, the copy without covering), each with its own peak RSS;
 * - fullscan.ts: the naive full scan (every row group, every geometry), the reference answers.
 * Every service answer (count, mean, sum, median of an int32 and a double column) is compared with the
 * full scan's.
 *
 * Writes bench/out/vector-results.json and bench/out/vector-results.md (the README's tables).
 * Environment: BENCH_RUNS (20 per latency series), BENCH_AOIS (20 more AOIs), BENCH_NOCOVER_RUNS (2),
 * BENCH_WARMUP (10 uncounted queries per service process after its first).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { aoiPolygon, benchAois, type Grid, type RectAoi } from './aois.ts';
import type { ColumnTruth, ScanResult } from './fullscan.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const HERE = join(ROOT, 'bench', 'vector');
const DATA = join(ROOT, 'bench', 'data');
const OUT = join(ROOT, 'bench', 'out');
const FILE = join(DATA, 'vector_1m.parquet');
const STATS = ['count', 'mean', 'sum', 'median'];
const COLUMNS = ['pop', 'value'];
const num = (name: string, dflt: number): number => Number(process.env[name] ?? dflt);
const RUNS = num('BENCH_RUNS', 20);
const N_AOIS = num('BENCH_AOIS', 20);
const NOCOVER_RUNS = num('BENCH_NOCOVER_RUNS', 2);
/** Queries after a service process's first one and before its measured series (JIT warm-up, not counted). */
const WARMUP = num('BENCH_WARMUP', 10);
const TARGET_MS = 50;
const TARGET_PCT = 2;

interface Sidecar {
  params: Grid & { rowGroupSize: number; codec: string; order: string };
  bytes: number;
  rows: number;
  rowGroups: number;
  footerBytes: number;
  groups: [number, number, number, number][];
}
const side = JSON.parse(readFileSync(join(DATA, 'vector_1m.json'), 'utf8')) as Sidecar;

// ------------------------------------------------------------------------------------------------
// children

interface Child {
  proc: ChildProcess;
  hello: Record<string, unknown>;
  ask<T>(msg: Record<string, unknown>): Promise<T>;
  stop(): Promise<void>;
}

async function startChild(script: string, args: string[] = [], env: Record<string, string> = {}): Promise<Child> {
  const proc = fork(join(HERE, script), args, {
    cwd: ROOT,
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, ...env },
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
        if (proc.exitCode !== null) return resolve();
        proc.once('exit', () => resolve());
        proc.send({ cmd: 'exit' });
      }),
  };
}

interface Logged {
  method: string;
  path: string;
  range: string | undefined;
  status: number;
  bytesSent: number;
}

// ------------------------------------------------------------------------------------------------
// queries

interface Query {
  aoi: string;
  ms: number;
  status: number;
  requests: number;
  bytes: number;
  ranges: string[];
  groups: number;
  mismatches: string[];
}

const groupsMet = (a: RectAoi): number => side.groups.filter((g) => g[0] <= a.box[2] && g[2] >= a.box[0] && g[1] <= a.box[3] && g[3] >= a.box[1]).length;

/** Largest relative difference of a mean or sum from the full scan's, over every answer. */
let maxRel = 0;

function compare(body: Record<string, Record<string, unknown>>, truth: Record<string, ColumnTruth> | undefined): string[] {
  const out: string[] = [];
  if (truth === undefined) return ['no full-scan answer'];
  for (const c of COLUMNS) {
    const got = body[c];
    const want = truth[c]!;
    if (got === undefined) {
      out.push(`${c}: missing`);
      continue;
    }
    if (got['count'] !== want.count) out.push(`${c}.count ${String(got['count'])} ≠ ${want.count}`);
    for (const k of ['mean', 'sum'] as const) {
      const g = got[k] as number | null;
      const w = want[k];
      if (w !== null && g !== null) maxRel = Math.max(maxRel, Math.abs(g - w) / Math.max(1e-300, Math.abs(w)));
      if (w === null ? g !== null : g === null || Math.abs(g - w) > 1e-9 * Math.max(1, Math.abs(w))) out.push(`${c}.${k} ${String(g)} ≠ ${String(w)}`);
    }
    if (got['median'] !== want.median) out.push(`${c}.median ${String(got['median'])} ≠ ${String(want.median)}`);
  }
  return out;
}

async function query(service: Child, server: Child, url: string, aoi: RectAoi, truth: ScanResult['truth']): Promise<Query> {
  await server.ask({ cmd: 'log' }); // clear
  const port = service.hello['port'] as number;
  const t0 = performance.now();
  const res = await fetch(`http://127.0.0.1:${port}/api/v1/zonal-stats/vector`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ url, aoi: aoiPolygon(aoi), stats: STATS, columns: COLUMNS }),
  });
  const body = (await res.json()) as Record<string, Record<string, unknown>>;
  const ms = performance.now() - t0;
  const { log } = await server.ask<{ log: Logged[] }>({ cmd: 'log' });
  const mismatches = res.status === 200 ? compare(body, truth[aoi.name]) : [`status ${res.status}: ${JSON.stringify(body)}`];
  return {
    aoi: aoi.name,
    ms,
    status: res.status,
    requests: log.length,
    bytes: log.reduce((s, r) => s + r.bytesSent, 0),
    ranges: log.map((r) => `${r.method} ${r.range ?? '-'} ${r.status} ${r.bytesSent}`),
    groups: url.includes('nocover') ? side.rowGroups : groupsMet(aoi),
    mismatches,
  };
}

// ------------------------------------------------------------------------------------------------
// figures

function pct(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const r = (p / 100) * (sorted.length - 1);
  const lo = Math.floor(r);
  const hi = Math.ceil(r);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (r - lo);
}

interface Row {
  name: string;
  runs: number;
  min: number;
  p50: number;
  p95: number;
  requests: string;
  bytes: string;
  pctFile: string;
  groups: string;
  /** Peak RSS of the process, and of the service process right after it started listening. */
  peakRss: { start: number | null; peak: number } | null;
  answers: string;
}

const fmtMs = (ms: number): string => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms >= 100 ? ms.toFixed(0) : ms.toFixed(1)} ms`);
const fmtBytes = (b: number): string =>
  b >= 2 ** 30 ? `${(b / 2 ** 30).toFixed(2)} GiB` : b >= 2 ** 20 ? `${(b / 2 ** 20).toFixed(2)} MiB` : b >= 1024 ? `${(b / 1024).toFixed(0)} KiB` : `${b} B`;
const fmtPct = (b: number): string => `${((100 * b) / side.bytes).toFixed(2)} %`;
const spread = (xs: number[], f: (x: number) => string): string => {
  const s = [...xs].sort((a, b) => a - b);
  return s[0] === s[s.length - 1] ? f(s[0]!) : `${f(pct(s, 50))} (${f(s[0]!)}–${f(s[s.length - 1]!)})`;
};

function rowOf(name: string, qs: Query[], peakRss: Row['peakRss']): Row {
  const ms = qs.map((q) => q.ms).sort((a, b) => a - b);
  const bad = qs.filter((q) => q.mismatches.length > 0).length;
  return {
    name,
    runs: qs.length,
    min: ms[0]!,
    p50: pct(ms, 50),
    p95: pct(ms, 95),
    requests: spread(
      qs.map((q) => q.requests),
      String,
    ),
    bytes: spread(
      qs.map((q) => q.bytes),
      fmtBytes,
    ),
    pctFile: spread(
      qs.map((q) => q.bytes),
      fmtPct,
    ),
    groups: spread(
      qs.map((q) => q.groups),
      String,
    ),
    peakRss,
    answers: bad === 0 ? `${qs.length}/${qs.length} equal` : `${qs.length - bad}/${qs.length} equal`,
  };
}

// ------------------------------------------------------------------------------------------------
// main

const loadStart = loadavg()[0]!;
/** Total and idle CPU jiffies of the machine (/proc/stat), to tell how busy it was during the run. */
function cpuTimes(): [number, number] {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  return [f.reduce((a, b) => a + b, 0), (f[3] ?? 0) + (f[4] ?? 0)];
}
const cpuStart = cpuTimes();
const grid: Grid = side.params;
const aois = benchAois(grid, N_AOIS);
const primary = aois[0]!;
const others = aois.slice(1);
mkdirSync(OUT, { recursive: true });
console.log(`file ${FILE}: ${side.rows} features, ${side.rowGroups} row groups, ${fmtBytes(side.bytes)}, footer ${fmtBytes(side.footerBytes)}`);
console.log(`primary AOI ${JSON.stringify(primary.box)} meets ${groupsMet(primary)} row group(s) by their bbox statistics`);

const server = await startChild('serve.ts', [FILE]);
const origin = server.hello['origin'] as string;
const url = `${origin}/vector_1m.parquet`;
const urlNoCover = `${origin}/vector_1m_nocover.parquet`;

// 1. Full scan: the reference answers for every AOI, and the cost of not pruning.
console.log('full scan (every row group, every geometry) …');
const scanner = await startChild('fullscan.ts');
const scanAnswer = await scanner.ask<{ result?: ScanResult; error?: string }>({ url, aois });
await scanner.stop();
if (!scanAnswer.result) throw new Error(`full scan failed: ${scanAnswer.error}`);
const scan = scanAnswer.result;
await server.ask({ cmd: 'log' });
const truth = scan.truth;
console.log(
  `  ${fmtMs(scan.ms)}, ${scan.requests} requests, ${fmtBytes(scan.bytes)}, peak RSS ${fmtBytes(scan.peakRss)}; primary: ${JSON.stringify(truth['primary'])}`,
);

const all: Record<string, Query[]> = {};
const peaks: Record<string, { start: number; peak: number }> = {};
const peakOf = async (svc: Child): Promise<number> => (await svc.ask<{ peakRss: number }>({ cmd: 'mem' })).peakRss;
const urlSlow = `${origin}/d20/vector_1m.parquet`;

/**
 * One service process: its first query (the "first query" row), WARMUP more (not counted: the JIT needs
 * about ten queries to settle), then `series` in order; its peak RSS under `name`.
 */
async function session(name: string, env: Record<string, string>, series: [string, string, RectAoi[]][]): Promise<void> {
  const svc = await startChild('service.ts', [], env);
  const start = await peakOf(svc);
  (all['first'] ??= []).push(await query(svc, server, url, primary, truth));
  for (let i = 0; i < WARMUP; i++) await query(svc, server, url, others[i % Math.max(1, others.length)] ?? primary, truth);
  for (const [key, u, list] of series) {
    const qs: Query[] = (all[key] = []);
    for (const a of list) qs.push(await query(svc, server, u, a, truth));
  }
  peaks[name] = { start, peak: await peakOf(svc) };
  await svc.stop();
}
const repeat = (n: number): RectAoi[] => Array.from({ length: n }, () => primary);

// 2. Read cache off: every query reads its bytes from the server.
console.log('service, read cache off …');
await session('off', { ZONAL_CACHE_BYTES: '0' }, [
  ['cold', url, repeat(RUNS)],
  ['others', url, others],
  ['cold20', urlSlow, repeat(RUNS)],
]);
// 3. Read cache on (the default 64 MiB): the same AOI repeated.
console.log('service, read cache on (default) …');
await session('on', {}, [
  ['warm', url, repeat(RUNS)],
  ['warm20', urlSlow, [primary, ...repeat(RUNS)]],
]);
all['warm20']!.shift(); // the first of that series filled the cache
// 4. The service without pruning: the same file whose footer declares no bbox covering.
console.log(`service, pruning disabled (no covering), ${NOCOVER_RUNS} runs …`);
await session('nocover', { ZONAL_CACHE_BYTES: '0' }, [['nocover', urlNoCover, repeat(NOCOVER_RUNS)]]);
await server.stop();

const rows: Row[] = [
  rowOf('first query of a new service process (JIT cold, nothing cached)', all['first']!, null),
  rowOf('read cache off: every query reads its bytes (JIT warm)', all['cold']!, null),
  rowOf(`${others.length} other AOIs of the same size, read cache off`, all['others']!, peaks['off']!),
  rowOf('warm: read cache on (default 64 MiB), the same AOI again', all['warm']!, peaks['on']!),
  rowOf('read cache off, server 20 ms away (each request +20 ms)', all['cold20']!, null),
  rowOf('warm, server 20 ms away', all['warm20']!, null),
  rowOf('service, pruning disabled (footer without `covering`), cache off', all['nocover']!, peaks['nocover']!),
];

const scanRow: Row = {
  name: 'naive full scan (bench script: hyparquet, every row group and geometry)',
  runs: 1,
  min: scan.ms,
  p50: scan.ms,
  p95: scan.ms,
  requests: String(scan.requests),
  bytes: fmtBytes(scan.bytes),
  pctFile: fmtPct(scan.bytes),
  groups: String(scan.rowGroups),
  peakRss: { start: null, peak: scan.peakRss },
  answers: 'reference',
};
rows.push(scanRow);

// ------------------------------------------------------------------------------------------------
// report

const cold = all['cold']!;
const warm = all['warm']!;
const warmP50 = pct(
  warm.map((q) => q.ms).sort((a, b) => a - b),
  50,
);
const coldP50 = pct(
  cold.map((q) => q.ms).sort((a, b) => a - b),
  50,
);
const coldBytes = cold[0]!.bytes;
const mismatches = Object.entries(all).flatMap(([k, qs]) => qs.flatMap((q) => q.mismatches.map((m) => `${k} / ${q.aoi}: ${m}`)));
const cpu = cpus()[0]?.model ?? 'unknown CPU';
const cpuEnd = cpuTimes();
const busy = 100 * (1 - (cpuEnd[1] - cpuStart[1]) / Math.max(1, cpuEnd[0] - cpuStart[0]));
const date = new Date().toISOString().slice(0, 10);

const md: string[] = [];
md.push(
  `Run ${date} on ${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, machine CPU busy ${busy.toFixed(0)} % over the run (the benchmark alone keeps about one of the two cores busy).`,
);
md.push(
  `File: ${side.rows.toLocaleString('en')} polygons, ${side.rowGroups} row groups of ${side.params.rowGroupSize.toLocaleString('en')}, ${side.params.codec}, ${side.params.order} order, ${fmtBytes(side.bytes)} (${side.bytes} B), footer ${fmtBytes(side.footerBytes)}.`,
);
md.push(
  `Primary AOI ${primary.box.map((v) => v.toFixed(4)).join(', ')} (W, S, E, N): ${truth['primary']!['pop']!.count} features, ${groupsMet(primary)} row groups by the bbox statistics. Stats ${JSON.stringify(STATS)}, columns pop (int32) and value (double).`,
);
md.push('');
md.push('| case | runs | min | p50 | p95 | requests | bytes read | % of file | row groups | peak RSS | answers vs full scan |');
md.push('|---|---|---|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  md.push(
    `| ${r.name} | ${r.runs} | ${fmtMs(r.min)} | ${fmtMs(r.p50)} | ${fmtMs(r.p95)} | ${r.requests} | ${r.bytes} | ${r.pctFile} | ${r.groups} | ${r.peakRss === null ? '' : r.peakRss.start === null ? fmtBytes(r.peakRss.peak) : `${fmtBytes(r.peakRss.peak)} (${fmtBytes(r.peakRss.start)} idle)`} | ${r.answers} |`,
  );
}
md.push('');
md.push(
  `Targets: warm p50 ${fmtMs(warmP50)} (≤ ${TARGET_MS} ms: ${warmP50 <= TARGET_MS ? 'met' : 'NOT met'}); cache-off p50 ${fmtMs(coldP50)} (${coldP50 <= TARGET_MS ? 'met' : 'NOT met'}); bytes read ${fmtPct(coldBytes)} of the file (≤ ${TARGET_PCT} %: ${(100 * coldBytes) / side.bytes <= TARGET_PCT ? 'met' : 'NOT met'}).`,
);
md.push(
  `Full scan / pruned: ${(scan.ms / warmP50).toFixed(0)}× the warm time, ${(scan.ms / coldP50).toFixed(0)}× the cache-off time, ${(scan.bytes / coldBytes).toFixed(0)}× the bytes.`,
);
md.push(`Requests of one cache-off query of the primary AOI (method, range, status, bytes): ${cold[0]!.ranges.map((r) => `\`${r}\``).join(', ')}.`);
md.push(`Requests of one warm query: ${warm[0]!.ranges.map((r) => `\`${r}\``).join(', ') || 'none'}.`);
md.push(
  mismatches.length === 0
    ? `Every answer equals the full scan's (count and median exact, mean and sum within 1e-9 relative; largest relative difference seen ${maxRel.toExponential(1)}).`
    : `MISMATCHES:\n${mismatches.map((m) => `- ${m}`).join('\n')}`,
);
const text = md.join('\n');
console.log(`\n${text}`);
writeFileSync(join(OUT, 'vector-results.md'), `${text}\n`);
writeFileSync(
  join(OUT, 'vector-results.json'),
  `${JSON.stringify({ date, cpu, cores: cpus().length, node: process.version, cpuBusyPct: busy, loadStart, loadEnd: loadavg()[0], file: side, aois, scan, rows, queries: all }, null, 1)}\n`,
);
if (mismatches.length > 0) process.exitCode = 1;
