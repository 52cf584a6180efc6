/**
 * Batch benchmark driver (many zones in one request, contract §8). Run through `bash bench/batch/run.sh`,
 * which makes the data and installs autocannon first. See bench/batch/README.md.
 *
 * In one run, each side in its own process, on local files (file://, warm in the page cache). The main data
 * (issue 21) is laid out as the public Sentinel-2 L2A COGs are: bench/data/s2_B04.tif (bench/lib/s2_data.py,
 * 10980² UInt16, 1024 px tiles, DEFLATE + predictor 2), with 1,000 and 10,000 random 1 km squares inside it;
 * the old 10000² Float32 COG (512 px tiles, predictor 3) is the second row of the 1,000-zone table.
 *   - the GDAL batch floor (gdal_batch.py): rasterstats' algorithm in python3-gdal + numpy, one core;
 *   - the service (bench/lib/service.ts: buildApp from src/app.ts, 2 workers, default caches),
 *     queried over HTTP on 127.0.0.1, warmed up on s2_B08.tif (the same layout, another file: no tile of
 *     s2_B04.tif is decoded before (c)):
 *       c. the 1,000 zones in one request (FeatureCollection, Accept: application/x-ndjson), run first, while
 *          the decoded-tile cache holds no tile of the file (a many-zone request adds nothing to it), with
 *          /metrics and /proc scraped before and after each run (phases per plane, the workers' busy share,
 *          CPU seconds of the process and of its main thread); plus once with the default Accept (a
 *          GeoJSON FeatureCollection); then the same on the old file; and once more after (a) and (b) have
 *          filled the decoded-tile cache ("warm"), for information;
 *       a. one request per zone, sequential (1,000 zones);
 *       b. one request per zone, 8 in flight;
 *       d. 10,000 zones in one request, in a fresh service process: time and the process's peak RSS;
 *     and with autocannon (16 connections, 10 s): a bare point (the same every request) and 1 km circles
 *     (Point + radius 500) at 1,000 random places.
 *   - checks: every zone of (c) equals (a) (count exact, min/max/mean 1e-9 relative); (a) and (c) equal the
 *     GDAL floor (count exact, mean/min/max 1e-6 relative), on each file.
 * Writes bench/out/batch-results.md (the README's tables) and bench/out/batch-results.json.
 *
 * Environment: BENCH_OLD (1: also the old Float32 file, floor and (c)), BENCH_BATCH_WARMUP (3: unmeasured
 * requests over the 1,000 zones on s2_B08.tif before (c)), BENCH_PARTS (gdal,a,b,c,load,d: the parts to run),
 * BENCH_RUNS_GDAL (3), BENCH_RUNS_BATCH
 * (3: timed runs of c), BENCH_RUNS_LARGE (1: timed runs of d), BENCH_GDAL_SMALL_CACHE (1: also one floor
 * run with a 64 MiB GDAL block cache), BENCH_GDAL_10K (1: also one floor run over the 10,000 zones),
 * BENCH_LARGE_RETRY (1: when d ends incomplete, one diagnostic run of d with ZONAL_MAX_SOURCE_BYTES lifted),
 * BENCH_LOAD_S (10), BENCH_LOAD_CONNECTIONS (16), BENCH_LOAD_WARMUP_S (2), BENCH_INFLIGHT (8),
 * BENCH_TIMEOUT_S (300: per request), BENCH_WAIT_IDLE_S (120: at most this long, wait for the machine to be
 * idle, < 15 % busy, before starting), BENCH_PYTHON (/usr/bin/python3).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { DATA_DIR, memOf, OUT_DIR, ROOT, runJson, startService as startLibService } from '../lib/child.ts';
import { busyOver, CLK_TCK, cpuJiffies, ticksOf, waitIdle } from '../lib/machine.ts';
import { PHASES, scrape } from '../lib/metrics.ts';
import { eachLine } from '../lib/ndjson.ts';
import { f1, f2, f3, int, num, say } from '../lib/report.ts';

/** The Sentinel-2-layout raster (bench/lib/s2_data.py), measured. */
const COG = join(DATA_DIR, 's2_B04.tif');
/** The same layout, another file: the warm-up decodes its tiles, never COG's. */
const WARM_COG = join(DATA_DIR, 's2_B08.tif');
const ZONES_1K = join(DATA_DIR, 'batch_s2_zones_1k.geojson');
const ZONES_10K = join(DATA_DIR, 'batch_s2_zones_10k.geojson');
const POINTS = join(DATA_DIR, 'batch_s2_points_1k.json');
/** The old Float32 COG and its zones: the second row of the 1,000-zone table. */
const OLD_COG = join(DATA_DIR, 'batch_10k.cog.tif');
const OLD_ZONES_1K = join(DATA_DIR, 'batch_zones_1k.geojson');
const S2_LABEL = 'S2 layout: s2_B04.tif, 10980² UInt16, 1024 px tiles, DEFLATE + predictor 2';
const OLD_LABEL = 'old: batch_10k.cog.tif, 10000² Float32, 512 px tiles, DEFLATE + predictor 3';
const STATS = ['min', 'max', 'mean', 'count'];
const ENDPOINT = '/api/v1/zonal-stats/raster';

const OLD = num('BENCH_OLD', 1) !== 0;
// Unmeasured requests over the 1,000 zones on another file before (c): the tiles of the measured file stay
// undecoded, but V8 has compiled the request path (after one, the first measured run was ~20 % slower than
// the next ones; a running service has long compiled it).
const BATCH_WARMUP = num('BENCH_BATCH_WARMUP', 3);
const WORKERS = 2;
const PARTS = new Set((process.env['BENCH_PARTS'] ?? 'gdal,a,b,c,load,d').split(',').map((s) => s.trim()));
const RUNS_GDAL = num('BENCH_RUNS_GDAL', 3);
const RUNS_BATCH = num('BENCH_RUNS_BATCH', 3);
const RUNS_LARGE = num('BENCH_RUNS_LARGE', 1);
const GDAL_SMALL_CACHE = num('BENCH_GDAL_SMALL_CACHE', 1) !== 0;
const GDAL_10K = num('BENCH_GDAL_10K', 1) !== 0;
const LARGE_RETRY = num('BENCH_LARGE_RETRY', 1) !== 0;
const LIFTED_SOURCE_BYTES = 2 ** 40;
const WAIT_IDLE_S = num('BENCH_WAIT_IDLE_S', 120);
const LOAD_S = num('BENCH_LOAD_S', 10);
const LOAD_CONNECTIONS = num('BENCH_LOAD_CONNECTIONS', 16);
const LOAD_WARMUP_S = num('BENCH_LOAD_WARMUP_S', 2);
const INFLIGHT = num('BENCH_INFLIGHT', 8);
const TIMEOUT_MS = num('BENCH_TIMEOUT_S', 300) * 1000;
const PY = process.env['BENCH_PYTHON'] ?? '/usr/bin/python3';

// Targets (the batch issue).
const T_BATCH_VS_GDAL = 0.75;
const T_LARGE_S = 20;
const T_LARGE_MIB = 600;
const T_POINT_RPS = 1000;
const T_CIRCLE_RPS = 400;

// ------------------------------------------------------------------------------------------------
// types

type Geometry = { type: string; coordinates: unknown };
interface Feature {
  type: 'Feature';
  id: string;
  properties: Record<string, unknown>;
  geometry: Geometry;
}
interface FC {
  type: 'FeatureCollection';
  features: Feature[];
}
/** One zone's answer, as compared: count, min, max, mean (null when nothing is counted), or an error. */
interface ZoneAnswer {
  count: number | null;
  min: number | null;
  max: number | null;
  mean: number | null;
  error?: string;
}

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  duration: number;
}
type AutocannonFn = (opts: Record<string, unknown>, cb: (err: Error | null, res: AutocannonResult) => void) => unknown;

// ------------------------------------------------------------------------------------------------
// processes

/** The service in its own process (bench/lib/service.ts prints {"port","pid"} once listening). */
function startService(extraEnv: Record<string, string> = {}): ReturnType<typeof startLibService> {
  return startLibService({ ZONAL_WORKERS: String(WORKERS), ZONAL_DATA_ROOTS: realpathSync(DATA_DIR), LOG_LEVEL: 'warn', ...extraEnv });
}

/** CPU ticks (user + system) of a process, all its threads; with `children`, also its reaped children's; 0 when gone. */
function cpuTicks(pid: number | 'self', children = false): number {
  const t = ticksOf(`/proc/${pid}/stat`, children);
  return Number.isNaN(t) ? 0 : t;
}

interface CpuMark {
  busy: number;
  total: number;
  ours: number;
}

/** A snapshot for `othersPct`: the machine's busy ticks and those of this benchmark's processes. */
function cpuMark(pids: number[]): CpuMark {
  const m = cpuJiffies();
  return { busy: m.busy, total: m.total, ours: cpuTicks('self', true) + pids.reduce((k, p) => k + cpuTicks(p), 0) };
}

/**
 * Percent of the machine's CPU that processes other than this benchmark's used between two marks (the
 * driver with autocannon, its reaped children such as the GDAL floor, and the live service process): how
 * much other jobs competed with a part. A few % of noise is normal.
 */
function othersPct(a: CpuMark, b: CpuMark): number {
  return Math.max(0, (100 * (b.busy - a.busy - (b.ours - a.ours))) / Math.max(1, b.total - a.total));
}

/** CPU seconds (user + system) of the service process (all its threads) and of its main thread alone; throws when it is gone. */
function cpuSeconds(pid: number): { process: number; main: number } {
  const ticks = (path: string) => {
    const t = ticksOf(path);
    if (Number.isNaN(t)) throw new Error(`cannot read ${path}: the service has exited`);
    return t;
  };
  return { process: ticks(`/proc/${pid}/stat`) / CLK_TCK, main: ticks(`/proc/${pid}/task/${pid}/stat`) / CLK_TCK };
}

/** What the service did during one request over many zones: /metrics and /proc before and after it. */
interface Inside {
  wallS: number;
  /** CPU seconds of the service process (all threads) and of its main thread. */
  cpuS: number;
  mainS: number;
  tasks: number;
  planes: number;
  decompressed: number;
  whole: number;
  /** Seconds per phase, summed over tasks (see zonal_fold_phase_seconds_total). */
  phases: Record<string, number>;
  /** zonal_worker_utilization (piscina, cumulative since start) before and after. */
  utilBefore: number;
  utilAfter: number;
  tileHits: number;
  tileMisses: number;
}

interface Probe {
  m: Map<string, number>;
  cpu: { process: number; main: number };
}

async function probe(port: number, pid: number): Promise<Probe> {
  const m = await scrape(port);
  return { m, cpu: cpuSeconds(pid) };
}

function inside(a: Probe, b: Probe, wallS: number): Inside {
  const d = (k: string) => (b.m.get(k) ?? 0) - (a.m.get(k) ?? 0);
  const phases: Record<string, number> = {};
  for (const p of PHASES) phases[p] = d(`zonal_fold_phase_seconds_total{phase="${p}"}`);
  return {
    wallS,
    cpuS: b.cpu.process - a.cpu.process,
    mainS: b.cpu.main - a.cpu.main,
    tasks: d('zonal_fold_tasks_total'),
    planes: d('zonal_fold_planes_total'),
    decompressed: d('zonal_fold_decompressed_bytes_total'),
    whole: d('zonal_fold_whole_bytes_total'),
    phases,
    utilBefore: a.m.get('zonal_worker_utilization') ?? NaN,
    utilAfter: b.m.get('zonal_worker_utilization') ?? NaN,
    tileHits: d('zonal_cache_hits_total{cache="decoded_tiles"}'),
    tileMisses: d('zonal_cache_misses_total{cache="decoded_tiles"}'),
  };
}

// ------------------------------------------------------------------------------------------------
// helpers

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo]! + (s[hi]! - s[lo]!) * (pos - lo);
}
const median = (xs: number[]) => quantile(xs, 0.5);

function answerOf(stats: Record<string, unknown> | undefined): ZoneAnswer {
  const b = (stats?.['band_1'] ?? {}) as Record<string, number | null | undefined>;
  return { count: b['count'] ?? null, min: b['min'] ?? null, max: b['max'] ?? null, mean: b['mean'] ?? null };
}

function errorAnswer(e: string): ZoneAnswer {
  return { count: null, min: null, max: null, mean: null, error: e };
}

/** Zones with an answer (the arrays are filled by index and may have holes, which reduce/filter skip). */
function answered(xs: (ZoneAnswer | undefined)[]): number {
  let k = 0;
  for (let i = 0; i < xs.length; i++) if (xs[i] !== undefined) k++;
  return k;
}

function zoneErrors(xs: (ZoneAnswer | undefined)[]): number {
  let k = 0;
  for (let i = 0; i < xs.length; i++) if (xs[i]?.error !== undefined) k++;
  return k;
}

/**
 * The service's log lines at warn level and above (pino JSON on stderr), grouped by message: what a 500 or a
 * failed zone was. Other stderr lines (Node warnings) are kept as they are.
 */
function logSummary(lines: string[], into: Map<string, number>): void {
  for (const l of lines) {
    let key = l.slice(0, 300);
    try {
      const o = JSON.parse(l) as { level?: number; msg?: string; err?: { message?: string; type?: string }; code?: string };
      if ((o.level ?? 0) < 40) continue;
      const level = o.level === 40 ? 'warn' : o.level === 50 ? 'error' : `level ${o.level}`;
      key = [level, o.msg, o.code, o.err?.type, o.err?.message]
        .filter((x) => x)
        .join(': ')
        .slice(0, 300);
    } catch {
      if (l.trim() === '') continue;
    }
    into.set(key, (into.get(key) ?? 0) + 1);
  }
}

function problemText(status: number, body: string): string {
  try {
    const p = JSON.parse(body) as { detail?: string; code?: string };
    return `${status} ${p.code ?? ''}: ${p.detail ?? body.slice(0, 200)}`;
  } catch {
    return `${status}: ${body.slice(0, 200)}`;
  }
}

/**
 * Why a FeatureCollection request has no answer: a 4xx means the service does not take FeatureCollections
 * (yet); a 5xx is a failure.
 */
function unavailable(r: { status: number; problem: string }): string {
  return `${r.status < 500 ? 'not available yet' : 'failed'}: the service answered ${r.problem}`;
}

async function post(port: number, body: unknown, accept?: string): Promise<Response> {
  return fetch(`http://127.0.0.1:${port}${ENDPOINT}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(accept ? { accept } : {}) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
}

/** One zone, one request: its answer and the time from send to parsed JSON (ms). */
async function single(port: number, url: string, geometry: Geometry): Promise<{ ms: number; answer: ZoneAnswer }> {
  const t = performance.now();
  const res = await post(port, { url, aoi: geometry, stats: STATS });
  const text = await res.text();
  const ms = performance.now() - t;
  if (res.status !== 200) return { ms, answer: errorAnswer(problemText(res.status, text)) };
  return { ms, answer: answerOf(JSON.parse(text) as Record<string, unknown>) };
}

interface BatchRun {
  ms: number;
  /** Time to the first NDJSON line (ms): shows whether lines stream as zones finish. */
  firstLineMs: number;
  answers: ZoneAnswer[];
  /** A line without `index` (a request-level failure after streaming began), or a protocol problem. */
  problems: string[];
  contentType: string;
  bytes: number;
}

/** Many zones in one request. Returns the 4xx/5xx problem instead when the request as a whole fails. */
async function batch(port: number, body: string, n: number, accept: string): Promise<BatchRun | { status: number; problem: string }> {
  const t = performance.now();
  const res = await post(port, body, accept);
  const contentType = res.headers.get('content-type') ?? '';
  if (res.status !== 200) return { status: res.status, problem: problemText(res.status, await res.text()) };
  const answers: ZoneAnswer[] = new Array(n);
  const problems: string[] = [];
  let firstLineMs = NaN;
  let bytes = 0;
  if (contentType.includes('ndjson')) {
    let expected = 0;
    const take = (line: string) => {
      if (line.trim() === '') return;
      if (Number.isNaN(firstLineMs)) firstLineMs = performance.now() - t;
      const o = JSON.parse(line) as { index?: number; statistics?: Record<string, unknown>; error?: { status: number; code: string; detail: string } };
      if (typeof o.index !== 'number') {
        problems.push(`line without index: ${line.slice(0, 300)}`);
        return;
      }
      if (o.index !== expected) problems.push(`line ${expected} has index ${o.index}`);
      expected++;
      answers[o.index] = o.error ? errorAnswer(`${o.error.status} ${o.error.code}: ${o.error.detail}`) : answerOf(o.statistics);
    };
    bytes = await eachLine(res, take);
  } else {
    const text = await res.text();
    bytes = Buffer.byteLength(text);
    firstLineMs = NaN;
    type Props = { statistics?: Record<string, unknown>; error?: { status: number; code: string; detail: string } };
    const fc = JSON.parse(text) as { features?: { properties?: Props }[] };
    (fc.features ?? []).forEach((f, i) => {
      const p = f.properties ?? {};
      answers[i] = p.error ? errorAnswer(`${p.error.status} ${p.error.code}: ${p.error.detail}`) : answerOf(p.statistics);
    });
  }
  const ms = performance.now() - t;
  const missing = n - answered(answers);
  if (missing > 0) problems.push(`${missing} of ${n} zones without an answer`);
  return { ms, firstLineMs, answers, problems, contentType, bytes };
}

interface Compare {
  zones: number;
  countDiff: number[];
  /** Zones with equal counts whose mean differs beyond the tolerance. */
  meanDiff: number[];
  minMaxDiff: number[];
  /** One side answered an error, the other not (or both, different). */
  errorDiff: number[];
  /** Σ |Δcount| over the zones whose counts differ. */
  pixelDiff: number;
  maxMeanRel: number;
}

const rel = (a: number | null, b: number | null): number => {
  if (a === null || b === null) return a === b ? 0 : Infinity;
  if (a === b) return 0;
  return Math.abs(a - b) / Math.max(Math.abs(a), Math.abs(b));
};

function compare(xs: ZoneAnswer[], ys: ZoneAnswer[], meanTol: number, minMaxTol: number): Compare {
  const n = Math.max(xs.length, ys.length);
  const c: Compare = { zones: n, countDiff: [], meanDiff: [], minMaxDiff: [], errorDiff: [], pixelDiff: 0, maxMeanRel: 0 };
  for (let i = 0; i < n; i++) {
    const x = xs[i];
    const y = ys[i];
    if (x === undefined || y === undefined || x.error !== undefined || y.error !== undefined) {
      if (x === undefined || y === undefined || x.error !== y.error) c.errorDiff.push(i);
      continue;
    }
    if (x.count !== y.count) {
      c.countDiff.push(i);
      c.pixelDiff += Math.abs((x.count ?? 0) - (y.count ?? 0));
      continue;
    }
    const m = rel(x.mean, y.mean);
    c.maxMeanRel = Math.max(c.maxMeanRel, m);
    if (m > meanTol) c.meanDiff.push(i);
    else if (rel(x.min, y.min) > minMaxTol || rel(x.max, y.max) > minMaxTol) c.minMaxDiff.push(i);
  }
  return c;
}

function compareLine(c: Compare, xs: ZoneAnswer[], ys: ZoneAnswer[], names: [string, string]): string {
  const same = c.zones - c.countDiff.length - c.meanDiff.length - c.minMaxDiff.length - c.errorDiff.length;
  const parts = [`${same} of ${c.zones} zones agree`];
  if (c.countDiff.length) {
    const eg = c.countDiff.slice(0, 3).map((i) => `zone ${i}: ${xs[i]!.count} vs ${ys[i]!.count}`);
    parts.push(`${c.countDiff.length} differ in count (${c.pixelDiff} pixels in all; e.g. ${eg.join(', ')})`);
  }
  if (c.meanDiff.length) {
    const i = c.meanDiff[0]!;
    parts.push(`${c.meanDiff.length} in mean beyond tolerance (e.g. zone ${i}: ${xs[i]!.mean} vs ${ys[i]!.mean})`);
  }
  if (c.minMaxDiff.length) parts.push(`${c.minMaxDiff.length} in min or max beyond tolerance (e.g. zone ${c.minMaxDiff[0]})`);
  if (c.errorDiff.length) {
    const i = c.errorDiff[0]!;
    const what = (a: ZoneAnswer | undefined) => (a === undefined ? 'no answer' : (a.error ?? 'answered'));
    parts.push(`${c.errorDiff.length} with an error or no answer on one side (e.g. zone ${i}: ${names[0]} ${what(xs[i])}, ${names[1]} ${what(ys[i])})`);
  }
  parts.push(`largest relative mean difference at equal count ${c.maxMeanRel.toExponential(1)}`);
  return parts.join('; ');
}

async function loadAutocannon(): Promise<AutocannonFn> {
  // A bench-only dependency (bench/batch/package.json), loaded by name so that the root type check does not
  // need it installed.
  const NAME = 'autocannon';
  const mod = (await import(NAME)) as { default: AutocannonFn };
  return mod.default;
}

async function cannon(ac: AutocannonFn, port: number, seconds: number, bodies: string[]): Promise<AutocannonResult> {
  let k = 0;
  return new Promise((resolve, reject) => {
    ac(
      {
        url: `http://127.0.0.1:${port}`,
        connections: LOAD_CONNECTIONS,
        duration: seconds,
        timeout: 30,
        requests: [
          {
            method: 'POST',
            path: ENDPOINT,
            headers: { 'content-type': 'application/json' },
            // Called for every request: cycles through the bodies (a single body: the same request every time).
            setupRequest: (req: Record<string, unknown>) => ({ ...req, body: bodies[k++ % bodies.length] }),
          },
        ],
      },
      (err, res) => (err ? reject(err) : resolve(res)),
    );
  });
}

// ------------------------------------------------------------------------------------------------

interface GdalRun {
  times_s: number[];
  zones: number;
  cachemax_bytes: number;
  gdal: string;
  numpy: string;
  peak_rss_kib: number;
}

interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  total: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  peakMiB: number;
}

const results: Record<string, unknown> = {};

async function main(): Promise<void> {
  mkdirSync(OUT_DIR, { recursive: true });
  const started = performance.now();
  // On a shared machine, wait (up to BENCH_WAIT_IDLE_S) for other jobs to finish before measuring.
  const busyBefore = await waitIdle(WAIT_IDLE_S);
  const loadStart = loadavg()[0]!;
  const cogUrl = `file://${realpathSync(COG)}`;
  const warmUrl = `file://${realpathSync(WARM_COG)}`;
  const zones1k = (JSON.parse(readFileSync(ZONES_1K, 'utf8')) as FC).features;
  const body1k = JSON.stringify({ url: cogUrl, aoi: JSON.parse(readFileSync(ZONES_1K, 'utf8')) as FC, stats: STATS });
  const oldUrl = OLD ? `file://${realpathSync(OLD_COG)}` : '';
  const oldZones1k = OLD ? (JSON.parse(readFileSync(OLD_ZONES_1K, 'utf8')) as FC).features : [];
  const oldBody1k = OLD ? JSON.stringify({ url: oldUrl, aoi: JSON.parse(readFileSync(OLD_ZONES_1K, 'utf8')) as FC, stats: STATS }) : '';
  const body10k = JSON.stringify({ url: cogUrl, aoi: JSON.parse(readFileSync(ZONES_10K, 'utf8')) as FC, stats: STATS });
  const points = JSON.parse(readFileSync(POINTS, 'utf8')) as [number, number][];
  const sizes = `${(body1k.length / 1024).toFixed(0)} KiB and ${(body10k.length / 2 ** 20).toFixed(2)} MiB requests`;
  say(`batch benchmark on ${S2_LABEL}: ${zones1k.length} and 10,000 zones (${sizes})`);
  say(`1-min load average at start: ${loadStart.toFixed(2)}; machine CPU busy in the 3 s before: ${busyBefore.toFixed(0)} %`);

  // Other jobs' share of the machine's CPU during each part (see othersPct), by part name.
  const others: Record<string, number> = {};
  const logByPart = new Map<string, Map<string, number>>();
  const noteLog = (part: string, lines: string[]) => {
    const m = logByPart.get(part) ?? new Map<string, number>();
    logSummary(lines, m);
    if (m.size) logByPart.set(part, m);
  };

  // --- GDAL batch floor -----------------------------------------------------------------------
  let gdal: GdalRun | undefined;
  let gdalAnswers: ZoneAnswer[] | undefined;
  let gdalSmall: GdalRun | undefined;
  let gdal10k: GdalRun | undefined;
  let gdalOld: GdalRun | undefined;
  let gdalOldAnswers: ZoneAnswer[] | undefined;
  if (PARTS.has('gdal')) {
    const out = join(OUT_DIR, 'batch-gdal-1k.json');
    say(`GDAL batch floor, 1,000 zones, ${RUNS_GDAL} runs, on ${S2_LABEL} …`);
    let m = cpuMark([]);
    const floor = async (args: string[]) => (await runJson(PY, ['bench/batch/gdal_batch.py', ...args])) as unknown as GdalRun;
    gdal = await floor(['--cog', COG, '--zones', ZONES_1K, '--runs', String(RUNS_GDAL), '--out', out]);
    others['gdal'] = othersPct(m, cpuMark([]));
    gdalAnswers = JSON.parse(readFileSync(out, 'utf8')) as ZoneAnswer[];
    const cache = `block cache ${(gdal.cachemax_bytes / 2 ** 20).toFixed(0)} MiB`;
    say(`  ${gdal.times_s.map(f2).join(', ')} s (GDAL ${gdal.gdal}, ${cache}; other jobs ${others['gdal']!.toFixed(0)} %)`);
    if (GDAL_SMALL_CACHE) {
      m = cpuMark([]);
      gdalSmall = await floor(['--cog', COG, '--zones', ZONES_1K, '--runs', '1', '--cachemax', '64']);
      others['gdalSmall'] = othersPct(m, cpuMark([]));
      say(`  64 MiB block cache: ${gdalSmall.times_s.map(f2).join(', ')} s`);
    }
    if (GDAL_10K) {
      m = cpuMark([]);
      gdal10k = await floor(['--cog', COG, '--zones', ZONES_10K, '--runs', '1']);
      others['gdal10k'] = othersPct(m, cpuMark([]));
      say(`  10,000 zones: ${gdal10k.times_s.map(f2).join(', ')} s`);
    }
    if (OLD) {
      const outOld = join(OUT_DIR, 'batch-gdal-old-1k.json');
      say(`GDAL batch floor, 1,000 zones, ${RUNS_GDAL} runs, on ${OLD_LABEL} …`);
      m = cpuMark([]);
      gdalOld = await floor(['--cog', OLD_COG, '--zones', OLD_ZONES_1K, '--runs', String(RUNS_GDAL), '--out', outOld]);
      others['gdalOld'] = othersPct(m, cpuMark([]));
      gdalOldAnswers = JSON.parse(readFileSync(outOld, 'utf8')) as ZoneAnswer[];
      say(`  ${gdalOld.times_s.map(f2).join(', ')} s; other jobs ${others['gdalOld']!.toFixed(0)} %`);
    }
    results['gdal'] = { run: gdal, smallCache: gdalSmall, zones10k: gdal10k, old: gdalOld };
  }

  // --- the service: a, b, c, load ----------------------------------------------------------------
  let seqAnswers: ZoneAnswer[] | undefined;
  let seq: { totalMs: number; p50: number; p99: number; errors: number } | undefined;
  let par: { totalMs: number; p50: number; p99: number; errors: number } | undefined;
  let batchRuns: BatchRun[] = [];
  const batchInside: Inside[] = [];
  let oldRuns: BatchRun[] = [];
  const oldInside: Inside[] = [];
  let oldUnavailable: string | undefined;
  let batchUnavailable: string | undefined;
  let batchJson: BatchRun | undefined;
  let batchWarm: BatchRun | undefined;
  let batchVsSeq: { c: Compare; run: number } | undefined;
  let batchJsonVsSeq: Compare | undefined;
  let seqVsGdal: Compare | undefined;
  let batchVsGdal: { c: Compare; run: number } | undefined;
  let oldVsGdal: { c: Compare; run: number } | undefined;
  let svcMem: { idleMiB: number; peakMiB: number } | undefined;
  const load: Record<string, LoadResult | string> = {};
  const needService = ['a', 'b', 'c', 'load'].some((p) => PARTS.has(p));
  if (needService) {
    const svc = await startService();
    let logMark = 0;
    /** Runs one part, noting other jobs' CPU share during it and what the service logged. */
    const part = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
      const m = cpuMark([svc.pid]);
      try {
        return await fn();
      } finally {
        others[name] = othersPct(m, cpuMark([svc.pid]));
        noteLog(name, svc.stderr.slice(logMark));
        logMark = svc.stderr.length;
      }
    };
    try {
      const idleMiB = memOf(svc.pid).rssMiB;
      // Warm-up, not measured: JIT, both worker threads, the inflater, on s2_B08.tif (the same layout, another
      // file), so that no tile of the measured file is in the decoded-tile cache: 6 zones of the 10,000 set
      // one by one, then (BENCH_BATCH_WARMUP times) the 1,000 zones in one request.
      await part('warm-up', async () => {
        for (const f of (JSON.parse(readFileSync(ZONES_10K, 'utf8')) as FC).features.slice(0, 6)) {
          const r = await single(svc.port, warmUrl, f.geometry);
          if (r.answer.error) throw new Error(`warm-up request failed: ${r.answer.error}`);
        }
        for (let k = 0; k < (PARTS.has('c') ? BATCH_WARMUP : 0); k++) {
          const r = await batch(svc.port, body1k.replace(cogUrl, warmUrl), zones1k.length, 'application/x-ndjson');
          say(`warm-up: the ${zones1k.length} zones in one request on s2_B08.tif: ${'status' in r ? r.problem : `${f2(r.ms / 1000)} s`}`);
        }
      });
      /** Timed runs of one request over many zones, each with /metrics and /proc read before and after it. */
      const cRuns = async (body: string, n: number, into: Inside[]): Promise<BatchRun[] | string> => {
        const runs: BatchRun[] = [];
        for (let i = 0; i < RUNS_BATCH; i++) {
          const p0 = await probe(svc.port, svc.pid);
          const r = await batch(svc.port, body, n, 'application/x-ndjson');
          const p1 = await probe(svc.port, svc.pid);
          if ('status' in r) return unavailable(r);
          runs.push(r);
          const x = inside(p0, p1, r.ms / 1000);
          into.push(x);
          say(
            `  ${f2(r.ms / 1000)} s (first line after ${f1(r.firstLineMs)} ms, ${r.contentType}, ${int(r.bytes)} bytes); ` +
              `${x.planes} planes in ${x.tasks} tasks, ` +
              `workers busy ${f2(x.phases['worker']! / (WORKERS * x.wallS))}, process CPU ${f2(x.cpuS)} s (main thread ${f2(x.mainS)} s), ` +
              `decoded-tile cache ${x.tileHits} hits${r.problems.length ? `; problems: ${r.problems.slice(0, 3).join('; ')}` : ''}`,
          );
        }
        return runs;
      };
      if (PARTS.has('c')) {
        // First, while the decoded-tile cache holds no tile of the file (a request over many zones adds none):
        // each run decodes every tile it needs, as the GDAL floor does.
        say(`c. ${zones1k.length} zones in one request (FeatureCollection, NDJSON), ${RUNS_BATCH} runs, no tile of the file decoded before …`);
        const rs = await part('c', () => cRuns(body1k, zones1k.length, batchInside));
        if (typeof rs === 'string') batchUnavailable = rs;
        else batchRuns = rs;
        if (batchUnavailable !== undefined) {
          batchRuns = [];
          say(`  ${batchUnavailable}`);
        } else {
          say(`  other jobs ${others['c']!.toFixed(0)} %`);
          const r = await part('c-json', () => batch(svc.port, body1k, zones1k.length, 'application/json'));
          if (!('status' in r)) {
            batchJson = r;
            const what = `${f2(r.ms / 1000)} s, ${r.contentType}, ${int(r.bytes)} bytes`;
            say(`  default Accept (GeoJSON FeatureCollection): ${what}; other jobs ${others['c-json']!.toFixed(0)} %`);
          } else say(`  default Accept: ${r.problem}`);
        }
        if (OLD) {
          say(`c, old file (${OLD_LABEL}), ${RUNS_BATCH} runs …`);
          const ro = await part('c-old', () => cRuns(oldBody1k, oldZones1k.length, oldInside));
          if (typeof ro === 'string') {
            oldUnavailable = ro;
            say(`  ${ro}`);
          } else oldRuns = ro;
        }
      }
      if (PARTS.has('a')) {
        say('a. one request per zone, sequential …');
        await part('a', async () => {
          const times: number[] = [];
          const answers: ZoneAnswer[] = [];
          const t = performance.now();
          for (const f of zones1k) {
            const r = await single(svc.port, cogUrl, f.geometry);
            times.push(r.ms);
            answers.push(r.answer);
          }
          seqAnswers = answers;
          seq = { totalMs: performance.now() - t, p50: median(times), p99: quantile(times, 0.99), errors: zoneErrors(answers) };
        });
        say(`  ${f2(seq!.totalMs / 1000)} s, p50 ${f1(seq!.p50)} ms, p99 ${f1(seq!.p99)} ms, ${seq!.errors} errors; other jobs ${others['a']!.toFixed(0)} %`);
      }
      if (PARTS.has('b')) {
        say(`b. one request per zone, ${INFLIGHT} in flight …`);
        await part('b', async () => {
          const times: number[] = [];
          const answers: ZoneAnswer[] = new Array(zones1k.length);
          let next = 0;
          const t = performance.now();
          await Promise.all(
            Array.from({ length: INFLIGHT }, async () => {
              while (next < zones1k.length) {
                const i = next++;
                const r = await single(svc.port, cogUrl, zones1k[i]!.geometry);
                times.push(r.ms);
                answers[i] = r.answer;
              }
            }),
          );
          par = { totalMs: performance.now() - t, p50: median(times), p99: quantile(times, 0.99), errors: zoneErrors(answers) };
        });
        say(`  ${f2(par!.totalMs / 1000)} s, p50 ${f1(par!.p50)} ms, p99 ${f1(par!.p99)} ms, ${par!.errors} errors; other jobs ${others['b']!.toFixed(0)} %`);
      }
      if (PARTS.has('c') && (PARTS.has('a') || PARTS.has('b'))) {
        // After (a) and (b) the decoded-tile cache holds every tile they decoded: the same request, warm.
        const r = await part('c-warm', () => batch(svc.port, body1k, zones1k.length, 'application/x-ndjson'));
        if (!('status' in r)) {
          batchWarm = r;
          say(`c, warm: after (a) and (b) filled the decoded-tile cache: ${f2(r.ms / 1000)} s; other jobs ${others['c-warm']!.toFixed(0)} %`);
        } else say(`c, warm: ${r.problem}`);
      }
      svcMem = { idleMiB, peakMiB: memOf(svc.pid).peakMiB };
      if (PARTS.has('load')) {
        let ac: AutocannonFn | undefined;
        try {
          ac = await loadAutocannon();
        } catch (e) {
          load['error'] = `autocannon not installed (cd bench/batch && npm ci): ${(e as Error).message}`;
          say(`load: ${load['error']}`);
        }
        if (ac) {
          const pointBody = JSON.stringify({ url: cogUrl, aoi: { type: 'Point', coordinates: points[0] }, stats: STATS });
          const circleBodies = points.map((p) => JSON.stringify({ url: cogUrl, aoi: { type: 'Point', coordinates: p, radius: 500 }, stats: STATS }));
          for (const [name, bodies] of [
            ['point', [pointBody]],
            ['circle', circleBodies],
          ] as const) {
            say(`load: ${name}, ${LOAD_CONNECTIONS} connections, ${LOAD_WARMUP_S} s warm-up + ${LOAD_S} s …`);
            if (LOAD_WARMUP_S > 0) await part(`load-${name}-warm-up`, () => cannon(ac, svc.port, LOAD_WARMUP_S, [...bodies]));
            const r = await part(`load-${name}`, () => cannon(ac, svc.port, LOAD_S, [...bodies]));
            load[name] = {
              rps: r.requests.average,
              p50: r.latency.p50,
              p99: r.latency.p99,
              total: r.requests.total,
              non2xx: r.non2xx,
              errors: r.errors,
              timeouts: r.timeouts,
              peakMiB: memOf(svc.pid).peakMiB,
            };
            const counts = `${r.requests.total} requests, ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`;
            say(
              `  ${f1(r.requests.average)} req/s, p50 ${f1(r.latency.p50)} ms, p99 ${f1(r.latency.p99)} ms (${counts}); ` +
                `other jobs ${others[`load-${name}`]!.toFixed(0)} %`,
            );
          }
        }
      }
    } finally {
      await svc.stop();
      noteLog('stop', svc.stderr.slice(logMark));
    }
  }

  // --- d: 10,000 zones, fresh process -----------------------------------------------------------
  type LargeRun = { ms: number; firstLineMs: number; errors: number; answered: number; problems: string[] };
  type Large = { runs: LargeRun[]; idleMiB: number; peakMiB: number; env: Record<string, string> };
  /** (d) in a fresh service process: its runs, or the problem of a 4xx/5xx answer. */
  const runLarge = async (label: string, runsWanted: number, env: Record<string, string>): Promise<Large | string> => {
    const svc = await startService(env);
    let logMark = 0;
    try {
      const idleMiB = memOf(svc.pid).rssMiB;
      const w = await single(svc.port, warmUrl, zones1k[0]!.geometry); // one warm-up request (JIT), on s2_B08.tif
      if (w.answer.error) throw new Error(`warm-up request failed: ${w.answer.error}`);
      noteLog(`${label} warm-up`, svc.stderr.slice(logMark));
      logMark = svc.stderr.length;
      const runs: LargeRun[] = [];
      for (let i = 0; i < runsWanted; i++) {
        const m = cpuMark([svc.pid]);
        const r = await batch(svc.port, body10k, 10_000, 'application/x-ndjson');
        others[label] = othersPct(m, cpuMark([svc.pid]));
        if ('status' in r) return unavailable(r);
        const errors = zoneErrors(r.answers);
        runs.push({ ms: r.ms, firstLineMs: r.firstLineMs, errors, answered: answered(r.answers), problems: r.problems });
        say(
          `  ${f2(r.ms / 1000)} s (first line after ${f1(r.firstLineMs)} ms), ${answered(r.answers)} zones answered, ${errors} zone errors, ` +
            `peak RSS so far ${f1(memOf(svc.pid).peakMiB)} MiB; other jobs ${others[label]!.toFixed(0)} %` +
            `${r.problems.length ? `; problems: ${r.problems.slice(0, 3).join('; ')}` : ''}`,
        );
      }
      return { runs, idleMiB, peakMiB: memOf(svc.pid).peakMiB, env };
    } finally {
      await svc.stop();
      noteLog(label, svc.stderr.slice(logMark));
    }
  };
  let large: Large | undefined;
  let largeUnavailable: string | undefined;
  let largeLifted: Large | undefined;
  if (PARTS.has('d')) {
    say(`d. 10,000 zones in one request (NDJSON), fresh service process, ${RUNS_LARGE} run(s) …`);
    const r = await runLarge('d', RUNS_LARGE, {});
    if (typeof r === 'string') {
      largeUnavailable = r;
      say(`  ${r}`);
    } else large = r;
    if (large && large.runs.some((x) => x.problems.length > 0) && LARGE_RETRY) {
      // Diagnostic, no verdict: with the default 1 GiB per-request source budget the stream stops part-way
      // on this file; this shows what the complete request costs.
      say(`d (diagnostic). the same with ZONAL_MAX_SOURCE_BYTES=${LIFTED_SOURCE_BYTES} (the per-request byte budget lifted) …`);
      const l = await runLarge('d-lifted', 1, { ZONAL_MAX_SOURCE_BYTES: String(LIFTED_SOURCE_BYTES) });
      if (typeof l !== 'string') largeLifted = l;
      else say(`  the service answered ${l}`);
    }
  }

  // --- checks -----------------------------------------------------------------------------------
  if (seqAnswers && gdalAnswers) {
    seqVsGdal = compare(seqAnswers, gdalAnswers, 1e-6, 1e-6);
    say(`check (a) vs GDAL floor: ${compareLine(seqVsGdal, seqAnswers, gdalAnswers, ['service', 'GDAL'])}`);
  }
  // The run with the most disagreements is the one reported.
  const bad = (c: Compare) => c.countDiff.length + c.meanDiff.length + c.minMaxDiff.length + c.errorDiff.length;
  const worst = (runs: BatchRun[], ref: ZoneAnswer[], tol: number): { c: Compare; run: number } | undefined => {
    let w: { c: Compare; run: number } | undefined;
    for (const [run, r] of runs.entries()) {
      const c = compare(r.answers, ref, tol, tol);
      if (w === undefined || bad(c) > bad(w.c)) w = { c, run };
    }
    return w;
  };
  if (seqAnswers && batchRuns.length) {
    batchVsSeq = worst(batchRuns, seqAnswers, 1e-9);
    const line = compareLine(batchVsSeq!.c, batchRuns[batchVsSeq!.run]!.answers, seqAnswers, ['batch', 'single']);
    say(`check (c) vs (a), worst of ${batchRuns.length} runs: ${line}`);
  }
  if (gdalAnswers && batchRuns.length) {
    batchVsGdal = worst(batchRuns, gdalAnswers, 1e-6);
    const line = compareLine(batchVsGdal!.c, batchRuns[batchVsGdal!.run]!.answers, gdalAnswers, ['service', 'GDAL']);
    say(`check (c) vs GDAL floor, worst of ${batchRuns.length} runs: ${line}`);
  }
  if (gdalOldAnswers && oldRuns.length) {
    oldVsGdal = worst(oldRuns, gdalOldAnswers, 1e-6);
    const line = compareLine(oldVsGdal!.c, oldRuns[oldVsGdal!.run]!.answers, gdalOldAnswers, ['service', 'GDAL']);
    say(`check (c) vs GDAL floor, old file, worst of ${oldRuns.length} runs: ${line}`);
  }
  if (seqAnswers && batchJson) {
    batchJsonVsSeq = compare(batchJson.answers, seqAnswers, 1e-9, 1e-9);
    say(`check (c, GeoJSON) vs (a): ${compareLine(batchJsonVsSeq, batchJson.answers, seqAnswers, ['batch', 'single'])}`);
  }

  // --- report -----------------------------------------------------------------------------------
  const git = (...args: string[]) => {
    try {
      return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
    } catch {
      return '?';
    }
  };
  const dirty = git('status', '--porcelain', '--', 'src')
    .split('\n')
    .filter((l) => l.trim() !== '').length;
  const gdalS = gdal ? median(gdal.times_s) : NaN;
  const batchS = batchRuns.length ? median(batchRuns.map((r) => r.ms)) / 1000 : NaN;
  const largeS = large?.runs.length ? median(large.runs.map((r) => r.ms)) / 1000 : NaN;
  const ratio = (s: number) => (Number.isFinite(s) && Number.isFinite(gdalS) ? `${(s / gdalS).toFixed(2)}×` : '–');
  const meta = {
    date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
    machine: `${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB`,
    versions: `Node ${process.version}, GDAL ${gdal?.gdal ?? '?'}, numpy ${gdal?.numpy ?? '?'}, autocannon 9.0.0`,
    code: `service at commit ${git('rev-parse', '--short', 'HEAD')}${dirty > 0 ? ` with ${dirty} uncommitted change(s) in src/` : ''}`,
    load:
      `1-min load average ${loadStart.toFixed(2)} at start, ${loadavg()[0]!.toFixed(2)} at end; machine CPU busy ${busyBefore.toFixed(0)} % ` +
      `in the 3 s before the run and ${(await busyOver(3000)).toFixed(0)} % in the 3 s after it (other jobs)`,
    data: `${S2_LABEL}, ${(statSync(COG).size / 2 ** 20).toFixed(1)} MiB${OLD ? `; ${OLD_LABEL}, ${(statSync(OLD_COG).size / 2 ** 20).toFixed(1)} MiB` : ''}`,
    minutes: (performance.now() - started) / 60000,
  };
  const L: string[] = [];
  L.push(`Run ${meta.date} on ${meta.machine}; ${meta.versions}; ${meta.code}; ${meta.load}; ${f1(meta.minutes)} min.`);
  L.push('', `Data: ${meta.data}.`);
  L.push('');
  L.push('### Time for the 1,000 zones (statistics min, max, mean, count; local file)');
  L.push('');
  const oth = (k: string) => (others[k] === undefined ? '' : `${others[k]!.toFixed(0)} %`);
  const row = (...cells: (string | number)[]) => L.push(`| ${cells.join(' | ')} |`);
  L.push("| file | side | how | runs | seconds (median) | latency p50 / p99 (ms) | ratio to the GDAL floor on that file | other jobs' CPU |");
  L.push('|---|---|---|---|---|---|---|---|');
  const S2 = 'S2 layout';
  const runsOf = (xs: number[]) => `${xs.length} (${xs.map(f2).join(', ')})`;
  if (gdal) {
    const how = `python3-gdal + numpy, one core, block cache ${(gdal.cachemax_bytes / 2 ** 20).toFixed(0)} MiB (GDAL's default)`;
    row(S2, 'GDAL batch floor', how, runsOf(gdal.times_s), f2(gdalS), '', '1.00×', oth('gdal'));
  }
  if (gdalSmall) {
    const s = median(gdalSmall.times_s);
    L.push(`| ${S2} | GDAL batch floor, small cache | the same with GDAL_CACHEMAX 64 MiB | 1 | ${f2(s)} | | ${ratio(s)} | ${oth('gdalSmall')} |`);
  }
  const perZone = (x: { totalMs: number; p50: number; p99: number }) => [1, f2(x.totalMs / 1000), `${f1(x.p50)} / ${f1(x.p99)}`, ratio(x.totalMs / 1000)];
  if (seq) row(S2, 'ours (a)', 'one request per zone, sequential', ...perZone(seq), oth('a'));
  if (par) row(S2, 'ours (b)', `one request per zone, ${INFLIGHT} in flight`, ...perZone(par), oth('b'));
  const cRow = (file: string, runs: BatchRun[], s: number, r: (s: number) => string, k: string) =>
    `| ${file} | ours (c) | one request, FeatureCollection, NDJSON, no tile of the file decoded before | ${runsOf(runs.map((x) => x.ms / 1000))} | ` +
    `${f2(s)} | first line after ${f1(median(runs.map((x) => x.firstLineMs)))} ms | ${r(s)} | ${oth(k)} |`;
  if (batchRuns.length) {
    L.push(cRow(S2, batchRuns, batchS, ratio, 'c'));
    if (batchJson) {
      const how = 'the same, default Accept (one FeatureCollection)';
      row(S2, 'ours (c), GeoJSON', how, 1, f2(batchJson.ms / 1000), '', ratio(batchJson.ms / 1000), oth('c-json'));
    }
    if (batchWarm) {
      const how = 'the same NDJSON request after (a) and (b) filled the decoded-tile cache';
      row(S2, 'ours (c), warm', how, 1, f2(batchWarm.ms / 1000), '', ratio(batchWarm.ms / 1000), oth('c-warm'));
    }
  } else if (PARTS.has('c')) L.push(`| ${S2} | ours (c) | one request, FeatureCollection, NDJSON | – | ${batchUnavailable ?? 'not run'} | | | |`);
  const gdalOldS = gdalOld ? median(gdalOld.times_s) : NaN;
  const oldS = oldRuns.length ? median(oldRuns.map((r) => r.ms)) / 1000 : NaN;
  const ratioOld = (s: number) => (Number.isFinite(s) && Number.isFinite(gdalOldS) ? `${(s / gdalOldS).toFixed(2)}×` : '–');
  const OLDF = 'old Float32';
  if (gdalOld) row(OLDF, 'GDAL batch floor', 'the same floor', runsOf(gdalOld.times_s), f2(gdalOldS), '', '1.00×', oth('gdalOld'));
  if (oldRuns.length) L.push(cRow(OLDF, oldRuns, oldS, ratioOld, 'c-old'));
  else if (OLD && PARTS.has('c')) row(OLDF, 'ours (c)', 'FeatureCollection, NDJSON', '–', oldUnavailable ?? batchUnavailable ?? 'not run', '', '', '');
  for (const [i, r] of batchRuns.entries()) for (const p of r.problems) L.push('', `(c) run ${i + 1} problem: ${p}`);
  for (const [i, r] of oldRuns.entries()) for (const p of r.problems) L.push('', `(c), old file, run ${i + 1} problem: ${p}`);
  if (batchInside.length || oldInside.length) {
    L.push('');
    L.push(`### Inside (c): the service's /metrics and /proc before and after each run (${WORKERS} workers)`);
    L.push('');
    L.push(
      'ms per plane (a 1024² UInt16 plane is 2 MiB, a 512² Float32 plane 1 MiB) of each phase, summed over tasks: inflate, samples (byte order and ' +
        "predictor), coverage, fold and the whole task (worker) on the worker threads' clocks; the task's reads (fetch) and its round trip to a " +
        'worker (run) on the main thread (these overlap). Workers busy: phase worker seconds / (2 × wall). CPU: utime + stime of the process ' +
        "(all threads) and of its main thread, from /proc, over the run. Utilisation: piscina's gauge (cumulative since start) before → after.",
    );
    L.push('');
    L.push(
      '| file | run | wall s | tasks / planes | inflate | samples | coverage | fold | worker | fetch | run | workers busy | decompressed / whole bytes | ' +
        'process CPU s (of 2 cores × wall) | main thread CPU s | decoded-tile cache hits / misses | utilisation gauge |',
    );
    L.push('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
    const insideRow = (file: string, run: string, x: Inside) => {
      const per = (p: string) => f2((1000 * x.phases[p]!) / Math.max(1, x.planes));
      L.push(
        `| ${file} | ${run} | ${f2(x.wallS)} | ${int(x.tasks)} / ${int(x.planes)} | ${PHASES.map(per).join(' | ')} | ` +
          `${((100 * x.phases['worker']!) / (WORKERS * x.wallS)).toFixed(0)} % | ` +
          `${f3(x.decompressed / x.whole)} (${f1(x.decompressed / 2 ** 20)} / ${f1(x.whole / 2 ** 20)} MiB) | ` +
          `${f2(x.cpuS)} (${((100 * x.cpuS) / (2 * x.wallS)).toFixed(0)} %) | ` +
          `${f2(x.mainS)} | ${x.tileHits} / ${x.tileMisses} | ${f3(x.utilBefore)} → ${f3(x.utilAfter)} |`,
      );
    };
    for (const [file, xs] of [
      [S2, batchInside],
      [OLDF, oldInside],
    ] as const) {
      xs.forEach((x, i) => insideRow(file, String(i + 1), x));
      if (xs.length > 1) {
        const sum = (f: (x: Inside) => number) => xs.reduce((a, x) => a + f(x), 0);
        const phases: Record<string, number> = {};
        for (const p of PHASES) phases[p] = sum((x) => x.phases[p]!);
        insideRow(file, 'all', {
          wallS: sum((x) => x.wallS),
          cpuS: sum((x) => x.cpuS),
          mainS: sum((x) => x.mainS),
          tasks: sum((x) => x.tasks),
          planes: sum((x) => x.planes),
          decompressed: sum((x) => x.decompressed),
          whole: sum((x) => x.whole),
          phases,
          utilBefore: xs[0]!.utilBefore,
          utilAfter: xs[xs.length - 1]!.utilAfter,
          tileHits: sum((x) => x.tileHits),
          tileMisses: sum((x) => x.tileMisses),
        });
      }
    }
  }
  L.push('');
  if (PARTS.has('d') || gdal10k) {
    L.push('### 10,000 zones in one request (fresh service process; S2 layout)');
    L.push('');
    L.push(
      '| side | seconds | first line (ms) | zones answered / with an error | peak RSS (MiB; idle after start) | ' +
        "ratio to the GDAL floor on the same 10,000 zones | other jobs' CPU |",
    );
    L.push('|---|---|---|---|---|---|---|');
  }
  const g10 = gdal10k ? median(gdal10k.times_s) : NaN;
  if (gdal10k) L.push(`| GDAL batch floor | ${f2(g10)} | | | ${f1(gdal10k.peak_rss_kib / 1024)} (Python process) | 1.00× | ${oth('gdal10k')} |`);
  const largeRow = (name: string, l: Large, k: string) => {
    const s = median(l.runs.map((r) => r.ms)) / 1000;
    row(
      name,
      l.runs.map((r) => f2(r.ms / 1000)).join(', '),
      l.runs.map((r) => f1(r.firstLineMs)).join(', '),
      l.runs.map((r) => `${int(r.answered)} / ${r.errors}`).join(', '),
      `${f1(l.peakMiB)} (${f1(l.idleMiB)})`,
      Number.isFinite(g10) ? `${(s / g10).toFixed(2)}×` : '–',
      oth(k),
    );
  };
  if (large) largeRow('ours (d)', large, 'd');
  else if (PARTS.has('d')) L.push(`| ours (d) | ${largeUnavailable ?? batchUnavailable ?? 'not run'} | | | | | |`);
  if (largeLifted) largeRow(`ours (d), diagnostic: ZONAL_MAX_SOURCE_BYTES=${LIFTED_SOURCE_BYTES}`, largeLifted, 'd-lifted');
  for (const r of large?.runs ?? []) for (const p of r.problems) L.push('', `(d) problem: ${p}`);
  for (const r of largeLifted?.runs ?? []) for (const p of r.problems) L.push('', `(d, diagnostic) problem: ${p}`);
  L.push('');
  if (Object.keys(load).length) {
    L.push(`### Throughput (autocannon, ${LOAD_CONNECTIONS} connections, ${LOAD_S} s after ${LOAD_WARMUP_S} s of warm-up; S2 layout)`);
    L.push('');
    L.push("| requests | req/s | latency p50 / p99 (ms) | requests done | non-2xx / errors / timeouts | service peak RSS so far (MiB) | other jobs' CPU |");
    L.push('|---|---|---|---|---|---|---|');
    const kinds = [
      ['point', 'bare point, the same every request'],
      ['circle', '1 km circles (Point + radius 500) at 1,000 random places, cycled'],
    ] as const;
    for (const [name, label] of kinds) {
      const r = load[name];
      if (r === undefined) continue;
      if (typeof r === 'string') L.push(`| ${label} | ${r} | | | | | |`);
      else row(label, f1(r.rps), `${f1(r.p50)} / ${f1(r.p99)}`, int(r.total), `${r.non2xx} / ${r.errors} / ${r.timeouts}`, f1(r.peakMiB), oth(`load-${name}`));
    }
    if (typeof load['error'] === 'string') L.push(`\n${load['error']}`);
    L.push('');
  }
  if (svcMem) L.push(`Service process of (a)–(c): ${f1(svcMem.idleMiB)} MiB idle after start, ${f1(svcMem.peakMiB)} MiB peak after (c).`, '');
  L.push('### Agreement');
  L.push('');
  const SG: [string, string] = ['service', 'GDAL'];
  if (seqVsGdal) L.push(`- (a) vs the GDAL floor (count exact, mean/min/max 1e-6 relative): ${compareLine(seqVsGdal, seqAnswers!, gdalAnswers!, SG)}.`);
  if (batchVsGdal) {
    const line = compareLine(batchVsGdal.c, batchRuns[batchVsGdal.run]!.answers, gdalAnswers!, SG);
    L.push(`- (c) vs the GDAL floor (count exact, mean/min/max 1e-6 relative), worst of ${batchRuns.length} runs: ${line}.`);
  }
  if (oldVsGdal) {
    const line = compareLine(oldVsGdal.c, oldRuns[oldVsGdal.run]!.answers, gdalOldAnswers!, SG);
    L.push(`- Old Float32 file, (c) vs its GDAL floor (the same tolerances), worst of ${oldRuns.length} runs: ${line}.`);
  }
  if (batchVsSeq) {
    const line = compareLine(batchVsSeq.c, batchRuns[batchVsSeq.run]!.answers, seqAnswers!, ['batch', 'single']);
    L.push(`- (c) vs (a) (count exact, min/max/mean 1e-9 relative), worst of ${batchRuns.length} runs: ${line}.`);
  }
  if (batchJsonVsSeq) L.push(`- (c) with the default Accept vs (a): ${compareLine(batchJsonVsSeq, batchJson!.answers, seqAnswers!, ['batch', 'single'])}.`);
  if (!batchVsSeq && PARTS.has('c') && batchRuns.length === 0) L.push(`- (c) vs (a): ${batchUnavailable ?? 'not run'}.`);
  const zeroZones = seqAnswers?.filter((a) => a.count === 0).length;
  if (zeroZones !== undefined) L.push(`- ${zeroZones} of the 1,000 zones lie wholly in nodata (count 0, the other statistics null on both sides).`);
  L.push('');
  L.push('### Targets');
  L.push('');
  L.push('| target | measured | verdict |');
  L.push('|---|---|---|');
  const verdict = (ok: boolean | undefined) => (ok === undefined ? 'n/a' : ok ? 'PASS' : '**FAIL**');
  const na = (why: string | undefined) => why ?? 'not run';
  // A run counts only when every zone was answered and the stream did not end on a request-level error.
  const cComplete = batchRuns.every((r) => r.problems.length === 0);
  const failed = (why: string | undefined) => (why?.startsWith('failed') ? false : undefined);
  const cOk = Number.isFinite(batchS) && Number.isFinite(gdalS) ? cComplete && batchS <= T_BATCH_VS_GDAL * gdalS : failed(batchUnavailable);
  const cMeasured = Number.isFinite(batchS)
    ? `${f2(batchS)} s vs ${f3(T_BATCH_VS_GDAL * gdalS)} s (${ratio(batchS)})${cComplete ? '' : '; incomplete answer (see the problems above)'}`
    : na(batchUnavailable);
  row(`(c) 1,000 zones in one request, cold, ≤ ${T_BATCH_VS_GDAL} × GDAL floor (S2 layout)`, cMeasured, verdict(cOk));
  if (OLD && Number.isFinite(oldS) && Number.isFinite(gdalOldS)) {
    const oldComplete = oldRuns.every((r) => r.problems.length === 0);
    const measured = `${f2(oldS)} s vs ${f3(T_BATCH_VS_GDAL * gdalOldS)} s (${ratioOld(oldS)})${oldComplete ? '' : '; incomplete'}`;
    row('(c) the same on the old Float32 file (for information)', measured, oldComplete && oldS <= T_BATCH_VS_GDAL * gdalOldS ? '(pass)' : '(fail)');
  }
  const dComplete = (large?.runs ?? []).every((r) => r.problems.length === 0);
  const dT = large?.runs.length ? dComplete && largeS <= T_LARGE_S : failed(largeUnavailable);
  // A peak over an incomplete run says nothing about the full one: no verdict then.
  const dM = large && dComplete ? large.peakMiB <= T_LARGE_MIB : undefined;
  const incomplete = large ? `; incomplete: ${large.runs.map((r) => int(r.answered)).join(', ')} of 10,000 zones answered (see the problems above)` : '';
  row(`(d) 10,000 zones ≤ ${T_LARGE_S} s`, large ? `${f2(largeS)} s${dComplete ? '' : incomplete}` : na(largeUnavailable ?? batchUnavailable), verdict(dT));
  const dMem = large ? `${f1(large.peakMiB)} MiB${dComplete ? '' : ' over the incomplete run'}` : na(largeUnavailable ?? batchUnavailable);
  row(`(d) 10,000 zones ≤ ${T_LARGE_MIB} MiB peak RSS`, dMem, verdict(dM));
  const lp = load['point'];
  const lc = load['circle'];
  const lpOk = typeof lp === 'object' ? lp.rps >= T_POINT_RPS && lp.non2xx === 0 && lp.errors === 0 : undefined;
  const lcOk = typeof lc === 'object' ? lc.rps >= T_CIRCLE_RPS && lc.non2xx === 0 && lc.errors === 0 : undefined;
  const rps = (x: LoadResult | string | undefined) =>
    typeof x === 'object' ? `${f1(x.rps)} req/s${x.non2xx || x.errors ? ` (${x.non2xx} non-2xx, ${x.errors} errors)` : ''}` : 'not run';
  row(`bare point ≥ ${T_POINT_RPS} req/s`, rps(lp), verdict(lpOk));
  row(`1 km circles ≥ ${T_CIRCLE_RPS} req/s`, rps(lc), verdict(lcOk));
  if (logByPart.size) {
    L.push('', 'The service logged (warn and above, or other stderr lines), by part: count × message:', '');
    for (const [partName, m] of logByPart) for (const [k, v] of [...m].slice(0, 6)) L.push(`- ${partName}: ${v} × \`${k.replace(/`/g, "'")}\``);
  }
  L.push(
    '',
    "Other jobs' CPU: the share of the machine's CPU used by processes other than this benchmark's during that part (0–3 % is noise); " +
      'above ~10 % the timing of that part is inflated.',
  );
  const md = L.join('\n') + '\n';
  Object.assign(results, {
    meta,
    seq,
    par,
    batch: batchRuns.map((r) => ({ ms: r.ms, firstLineMs: r.firstLineMs, problems: r.problems, contentType: r.contentType, bytes: r.bytes })),
    batchUnavailable,
    batchJson: batchJson && { ms: batchJson.ms, bytes: batchJson.bytes },
    batchWarm: batchWarm && { ms: batchWarm.ms },
    large,
    largeUnavailable,
    load,
    svcMem,
    batchInside,
    old: { runs: oldRuns.map((r) => ({ ms: r.ms, firstLineMs: r.firstLineMs, problems: r.problems })), inside: oldInside, unavailable: oldUnavailable },
    checks: { seqVsGdal, batchVsSeq: batchVsSeq?.c, batchVsGdal: batchVsGdal?.c, oldVsGdal: oldVsGdal?.c, batchJsonVsSeq },
    largeLifted,
    others,
    serviceLog: Object.fromEntries([...logByPart].map(([k, m]) => [k, Object.fromEntries(m)])),
  });
  writeFileSync(join(OUT_DIR, 'batch-results.json'), JSON.stringify(results, null, 1));
  writeFileSync(join(OUT_DIR, 'batch-results.md'), md);
  say(`\n${md}`);
  say(`(bench/out/batch-results.md and .json)`);
}

await main();
