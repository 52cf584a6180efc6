/**
 * Batch benchmark driver (many zones in one request, CONTRACT §8). Run through `bash bench/batch/run.sh`,
 * which makes the data and installs autocannon first. See bench/batch/README.md.
 *
 * In one run, each side in its own process, on the local file (file://, warm in the page cache):
 *   - the GDAL batch floor (gdal_batch.py): rasterstats' algorithm in python3-gdal + numpy, one core;
 *   - the service (bench/lib/service.ts: buildApp from src/app.ts, 2 workers, default caches),
 *     queried over HTTP on 127.0.0.1:
 *       a. one request per zone, sequential (1,000 zones);
 *       b. one request per zone, 8 in flight;
 *       c. the 1,000 zones in one request (FeatureCollection, Accept: application/x-ndjson), run first, while
 *          the decoded-tile cache is cold (a many-zone request adds nothing to it), plus once with the
 *          default Accept (a GeoJSON FeatureCollection), and once more after (a) and (b) have filled the
 *          decoded-tile cache ("warm"), for information;
 *       d. 10,000 zones in one request, in a fresh service process: time and the process's peak RSS;
 *     and with autocannon (16 connections, 10 s): a bare point (the same every request) and 1 km circles
 *     (Point + radius 500) at 1,000 random places.
 *   - checks: every zone of (c) equals (a) (count exact, min/max/mean 1e-9 relative); (a) equals the GDAL
 *     floor (count exact, mean 1e-6 relative; min/max reported too).
 * Writes bench/out/batch-results.md (the README's tables) and bench/out/batch-results.json.
 *
 * Environment: BENCH_PARTS (gdal,a,b,c,load,d: the parts to run), BENCH_RUNS_GDAL (3), BENCH_RUNS_BATCH
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
import { memOf, ROOT, runJson, startService as startLibService } from '../lib/child.ts';

const DATA_DIR = join(ROOT, 'bench', 'data');
const OUT_DIR = join(ROOT, 'bench', 'out');
const COG = join(DATA_DIR, 'batch_10k.cog.tif');
const ZONES_1K = join(DATA_DIR, 'batch_zones_1k.geojson');
const ZONES_10K = join(DATA_DIR, 'batch_zones_10k.geojson');
const POINTS = join(DATA_DIR, 'batch_points_1k.json');
const STATS = ['min', 'max', 'mean', 'count'];
const ENDPOINT = '/api/v1/zonal-stats/raster';

const num = (name: string, dflt: number): number => {
  const v = Number(process.env[name] ?? dflt);
  return Number.isFinite(v) ? v : dflt;
};
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
  return startLibService({ ZONAL_WORKERS: '2', ZONAL_DATA_ROOTS: realpathSync(DATA_DIR), LOG_LEVEL: 'warn', ...extraEnv });
}

/** Busy and total CPU jiffies of the whole machine (/proc/stat): how much else ran during the run. */
function cpuJiffies(): { busy: number; total: number } {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = f.reduce((x, y) => x + y, 0);
  return { busy: total - (f[3] ?? 0) - (f[4] ?? 0), total };
}

/** Percent of the machine's CPU busy over the next `ms` milliseconds, while this benchmark runs nothing. */
async function busyOver(ms: number): Promise<number> {
  const a = cpuJiffies();
  await new Promise((r) => setTimeout(r, ms));
  const b = cpuJiffies();
  return (100 * (b.busy - a.busy)) / Math.max(1, b.total - a.total);
}

/** CPU ticks (user + system) of a process, all its threads; with `children`, also its reaped children's. */
function cpuTicks(pid: number | 'self', children = false): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ').map(Number);
    // f[0] is field 3 (state): utime, stime, cutime, cstime are fields 14-17.
    return f[11]! + f[12]! + (children ? f[13]! + f[14]! : 0);
  } catch {
    return 0;
  }
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
const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '–');
const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : '–');
const f3 = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : '–');
const int = (x: number) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en') : '–');
const say = (s: string) => console.log(s);

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
      key = [o.level === 40 ? 'warn' : o.level === 50 ? 'error' : `level ${o.level}`, o.msg, o.code, o.err?.type, o.err?.message].filter((x) => x).join(': ').slice(0, 300);
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
    const decoder = new TextDecoder();
    let rest = '';
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
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.byteLength;
      rest += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = rest.indexOf('\n')) >= 0) {
        take(rest.slice(0, nl));
        rest = rest.slice(nl + 1);
      }
    }
    take(rest + decoder.decode());
  } else {
    const text = await res.text();
    bytes = Buffer.byteLength(text);
    firstLineMs = NaN;
    const fc = JSON.parse(text) as { features?: { properties?: { statistics?: Record<string, unknown>; error?: { status: number; code: string; detail: string } } }[] };
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
  if (c.countDiff.length) parts.push(`${c.countDiff.length} differ in count (${c.pixelDiff} pixels in all; e.g. ${c.countDiff.slice(0, 3).map((i) => `zone ${i}: ${xs[i]!.count} vs ${ys[i]!.count}`).join(', ')})`);
  if (c.meanDiff.length) parts.push(`${c.meanDiff.length} in mean beyond tolerance (e.g. zone ${c.meanDiff[0]}: ${xs[c.meanDiff[0]!]!.mean} vs ${ys[c.meanDiff[0]!]!.mean})`);
  if (c.minMaxDiff.length) parts.push(`${c.minMaxDiff.length} in min or max beyond tolerance (e.g. zone ${c.minMaxDiff[0]})`);
  if (c.errorDiff.length) {
    const i = c.errorDiff[0]!;
    const what = (a: ZoneAnswer | undefined) => (a === undefined ? 'no answer' : a.error ?? 'answered');
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
  let busyBefore = await busyOver(3000);
  const waitStart = performance.now();
  while (busyBefore > 15 && performance.now() - waitStart < WAIT_IDLE_S * 1000) {
    say(`the machine is ${busyBefore.toFixed(0)} % busy with other jobs: waiting for it to be idle (up to ${WAIT_IDLE_S} s) …`);
    busyBefore = await busyOver(3000);
  }
  const loadStart = loadavg()[0]!;
  const cogUrl = `file://${realpathSync(COG)}`;
  const zones1k = (JSON.parse(readFileSync(ZONES_1K, 'utf8')) as FC).features;
  const body1k = JSON.stringify({ url: cogUrl, aoi: JSON.parse(readFileSync(ZONES_1K, 'utf8')) as FC, stats: STATS });
  const body10k = JSON.stringify({ url: cogUrl, aoi: JSON.parse(readFileSync(ZONES_10K, 'utf8')) as FC, stats: STATS });
  const points = JSON.parse(readFileSync(POINTS, 'utf8')) as [number, number][];
  say(`batch benchmark: ${zones1k.length} zones (${(body1k.length / 1024).toFixed(0)} KiB request), 10,000 zones (${(body10k.length / 2 ** 20).toFixed(2)} MiB request)`);
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
  if (PARTS.has('gdal')) {
    const out = join(OUT_DIR, 'batch-gdal-1k.json');
    say(`GDAL batch floor, 1,000 zones, ${RUNS_GDAL} runs …`);
    let m = cpuMark([]);
    gdal = (await runJson(PY, ['bench/batch/gdal_batch.py', '--cog', COG, '--zones', ZONES_1K, '--runs', String(RUNS_GDAL), '--out', out])) as unknown as GdalRun;
    others['gdal'] = othersPct(m, cpuMark([]));
    gdalAnswers = JSON.parse(readFileSync(out, 'utf8')) as ZoneAnswer[];
    say(`  ${gdal.times_s.map(f2).join(', ')} s (GDAL ${gdal.gdal}, block cache ${(gdal.cachemax_bytes / 2 ** 20).toFixed(0)} MiB; other jobs ${others['gdal']!.toFixed(0)} %)`);
    if (GDAL_SMALL_CACHE) {
      m = cpuMark([]);
      gdalSmall = (await runJson(PY, ['bench/batch/gdal_batch.py', '--cog', COG, '--zones', ZONES_1K, '--runs', '1', '--cachemax', '64'])) as unknown as GdalRun;
      others['gdalSmall'] = othersPct(m, cpuMark([]));
      say(`  64 MiB block cache: ${gdalSmall.times_s.map(f2).join(', ')} s`);
    }
    if (GDAL_10K) {
      m = cpuMark([]);
      gdal10k = (await runJson(PY, ['bench/batch/gdal_batch.py', '--cog', COG, '--zones', ZONES_10K, '--runs', '1'])) as unknown as GdalRun;
      others['gdal10k'] = othersPct(m, cpuMark([]));
      say(`  10,000 zones: ${gdal10k.times_s.map(f2).join(', ')} s`);
    }
    results['gdal'] = { run: gdal, smallCache: gdalSmall, zones10k: gdal10k };
  }

  // --- the service: a, b, c, load ----------------------------------------------------------------
  let seqAnswers: ZoneAnswer[] | undefined;
  let seq: { totalMs: number; p50: number; p99: number; errors: number } | undefined;
  let par: { totalMs: number; p50: number; p99: number; errors: number } | undefined;
  let batchRuns: BatchRun[] = [];
  let batchUnavailable: string | undefined;
  let batchJson: BatchRun | undefined;
  let batchWarm: BatchRun | undefined;
  let batchVsSeq: { c: Compare; run: number } | undefined;
  let batchJsonVsSeq: Compare | undefined;
  let seqVsGdal: Compare | undefined;
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
      // Warm-up, not measured: JIT, both worker threads, the COG header (6 zones of the 10,000 set, not of the 1,000).
      await part('warm-up', async () => {
        for (const f of (JSON.parse(readFileSync(ZONES_10K, 'utf8')) as FC).features.slice(0, 6)) {
          const r = await single(svc.port, cogUrl, f.geometry);
          if (r.answer.error) throw new Error(`warm-up request failed: ${r.answer.error}`);
        }
      });
      if (PARTS.has('c')) {
        // First, while the decoded-tile cache holds only the warm-up's few tiles (a request over many zones
        // adds none): each run decodes every tile it needs, as the GDAL floor does.
        say(`c. ${zones1k.length} zones in one request (FeatureCollection, NDJSON), ${RUNS_BATCH} runs, cold decoded-tile cache …`);
        await part('c', async () => {
          for (let i = 0; i < RUNS_BATCH; i++) {
            const r = await batch(svc.port, body1k, zones1k.length, 'application/x-ndjson');
            if ('status' in r) {
              batchUnavailable = unavailable(r);
              break;
            }
            batchRuns.push(r);
            say(`  ${f2(r.ms / 1000)} s (first line after ${f1(r.firstLineMs)} ms, ${r.contentType}, ${int(r.bytes)} bytes)${r.problems.length ? `; problems: ${r.problems.slice(0, 3).join('; ')}` : ''}`);
          }
        });
        if (batchUnavailable !== undefined) {
          batchRuns = [];
          say(`  ${batchUnavailable}`);
        } else {
          say(`  other jobs ${others['c']!.toFixed(0)} %`);
          const r = await part('c-json', () => batch(svc.port, body1k, zones1k.length, 'application/json'));
          if (!('status' in r)) {
            batchJson = r;
            say(`  default Accept (GeoJSON FeatureCollection): ${f2(r.ms / 1000)} s, ${r.contentType}, ${int(r.bytes)} bytes; other jobs ${others['c-json']!.toFixed(0)} %`);
          } else say(`  default Accept: ${r.problem}`);
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
          for (const [name, bodies] of [['point', [pointBody]], ['circle', circleBodies]] as const) {
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
            say(`  ${f1(r.requests.average)} req/s, p50 ${f1(r.latency.p50)} ms, p99 ${f1(r.latency.p99)} ms (${r.requests.total} requests, ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts); other jobs ${others[`load-${name}`]!.toFixed(0)} %`);
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
      const w = await single(svc.port, cogUrl, zones1k[0]!.geometry); // one warm-up request (JIT, header)
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
        say(`  ${f2(r.ms / 1000)} s (first line after ${f1(r.firstLineMs)} ms), ${answered(r.answers)} zones answered, ${errors} zone errors, peak RSS so far ${f1(memOf(svc.pid).peakMiB)} MiB; other jobs ${others[label]!.toFixed(0)} %${r.problems.length ? `; problems: ${r.problems.slice(0, 3).join('; ')}` : ''}`);
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
  if (seqAnswers && batchRuns.length) {
    // The run with the most disagreements is the one reported.
    const bad = (c: Compare) => c.countDiff.length + c.meanDiff.length + c.minMaxDiff.length + c.errorDiff.length;
    for (const [run, r] of batchRuns.entries()) {
      const c = compare(r.answers, seqAnswers, 1e-9, 1e-9);
      if (batchVsSeq === undefined || bad(c) > bad(batchVsSeq.c)) batchVsSeq = { c, run };
    }
    say(`check (c) vs (a), worst of ${batchRuns.length} runs: ${compareLine(batchVsSeq!.c, batchRuns[batchVsSeq!.run]!.answers, seqAnswers, ['batch', 'single'])}`);
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
  const dirty = git('status', '--porcelain', '--', 'src').split('\n').filter((l) => l.trim() !== '').length;
  const gdalS = gdal ? median(gdal.times_s) : NaN;
  const batchS = batchRuns.length ? median(batchRuns.map((r) => r.ms)) / 1000 : NaN;
  const largeS = large?.runs.length ? median(large.runs.map((r) => r.ms)) / 1000 : NaN;
  const ratio = (s: number) => (Number.isFinite(s) && Number.isFinite(gdalS) ? `${(s / gdalS).toFixed(2)}×` : '–');
  const meta = {
    date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
    machine: `${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB`,
    versions: `Node ${process.version}, GDAL ${gdal?.gdal ?? '?'}, numpy ${gdal?.numpy ?? '?'}, autocannon 9.0.0`,
    code: `service at commit ${git('rev-parse', '--short', 'HEAD')}${dirty > 0 ? ` with ${dirty} uncommitted change(s) in src/` : ''}`,
    load: `1-min load average ${loadStart.toFixed(2)} at start, ${loadavg()[0]!.toFixed(2)} at end; machine CPU busy ${busyBefore.toFixed(0)} % in the 3 s before the run and ${(await busyOver(3000)).toFixed(0)} % in the 3 s after it (other jobs)`,
    data: `bench/data/batch_10k.cog.tif, ${(statSync(COG).size / 2 ** 20).toFixed(1)} MiB`,
    minutes: (performance.now() - started) / 60000,
  };
  const L: string[] = [];
  L.push(`Run ${meta.date} on ${meta.machine}; ${meta.versions}; ${meta.code}; ${meta.load}; ${f1(meta.minutes)} min.`);
  L.push('');
  L.push('### Time for the 1,000 zones (statistics min, max, mean, count; local file)');
  L.push('');
  const oth = (k: string) => (others[k] === undefined ? '' : `${others[k]!.toFixed(0)} %`);
  L.push('| side | how | runs | seconds (median) | latency p50 / p99 (ms) | ratio to the GDAL floor | other jobs\' CPU |');
  L.push('|---|---|---|---|---|---|---|');
  if (gdal) L.push(`| GDAL batch floor | python3-gdal + numpy, one core, block cache ${(gdal.cachemax_bytes / 2 ** 20).toFixed(0)} MiB (GDAL's default) | ${gdal.times_s.length} (${gdal.times_s.map(f2).join(', ')}) | ${f2(gdalS)} | | 1.00× | ${oth('gdal')} |`);
  if (gdalSmall) {
    const s = median(gdalSmall.times_s);
    L.push(`| GDAL batch floor, small cache | the same with GDAL_CACHEMAX 64 MiB | 1 | ${f2(s)} | | ${ratio(s)} | ${oth('gdalSmall')} |`);
  }
  if (seq) L.push(`| ours (a) | one request per zone, sequential | 1 | ${f2(seq.totalMs / 1000)} | ${f1(seq.p50)} / ${f1(seq.p99)} | ${ratio(seq.totalMs / 1000)} | ${oth('a')} |`);
  if (par) L.push(`| ours (b) | one request per zone, ${INFLIGHT} in flight | 1 | ${f2(par.totalMs / 1000)} | ${f1(par.p50)} / ${f1(par.p99)} | ${ratio(par.totalMs / 1000)} | ${oth('b')} |`);
  if (batchRuns.length) {
    L.push(`| ours (c) | one request, FeatureCollection, NDJSON | ${batchRuns.length} (${batchRuns.map((r) => f2(r.ms / 1000)).join(', ')}) | ${f2(batchS)} | first line after ${f1(median(batchRuns.map((r) => r.firstLineMs)))} ms | ${ratio(batchS)} | ${oth('c')} |`);
    if (batchJson) L.push(`| ours (c), GeoJSON | the same, default Accept (one FeatureCollection) | 1 | ${f2(batchJson.ms / 1000)} | | ${ratio(batchJson.ms / 1000)} | ${oth('c-json')} |`);
    if (batchWarm) L.push(`| ours (c), warm | the same NDJSON request after (a) and (b) filled the decoded-tile cache | 1 | ${f2(batchWarm.ms / 1000)} | | ${ratio(batchWarm.ms / 1000)} | ${oth('c-warm')} |`);
  } else if (PARTS.has('c')) L.push(`| ours (c) | one request, FeatureCollection, NDJSON | – | ${batchUnavailable ?? 'not run'} | | | |`);
  for (const [i, r] of batchRuns.entries()) for (const p of r.problems) L.push('', `(c) run ${i + 1} problem: ${p}`);
  L.push('');
  L.push('### 10,000 zones in one request (fresh service process)');
  L.push('');
  L.push('| side | seconds | first line (ms) | zones answered / with an error | peak RSS (MiB; idle after start) | ratio to the GDAL floor on the same 10,000 zones | other jobs\' CPU |');
  L.push('|---|---|---|---|---|---|---|');
  const g10 = gdal10k ? median(gdal10k.times_s) : NaN;
  if (gdal10k) L.push(`| GDAL batch floor | ${f2(g10)} | | | ${f1(gdal10k.peak_rss_kib / 1024)} (Python process) | 1.00× | ${oth('gdal10k')} |`);
  const largeRow = (name: string, l: Large, k: string) => {
    const s = median(l.runs.map((r) => r.ms)) / 1000;
    L.push(`| ${name} | ${l.runs.map((r) => f2(r.ms / 1000)).join(', ')} | ${l.runs.map((r) => f1(r.firstLineMs)).join(', ')} | ${l.runs.map((r) => `${int(r.answered)} / ${r.errors}`).join(', ')} | ${f1(l.peakMiB)} (${f1(l.idleMiB)}) | ${Number.isFinite(g10) ? `${(s / g10).toFixed(2)}×` : '–'} | ${oth(k)} |`);
  };
  if (large) largeRow('ours (d)', large, 'd');
  else if (PARTS.has('d')) L.push(`| ours (d) | ${largeUnavailable ?? batchUnavailable ?? 'not run'} | | | | | |`);
  if (largeLifted) largeRow(`ours (d), diagnostic: ZONAL_MAX_SOURCE_BYTES=${LIFTED_SOURCE_BYTES}`, largeLifted, 'd-lifted');
  for (const r of large?.runs ?? []) for (const p of r.problems) L.push('', `(d) problem: ${p}`);
  for (const r of largeLifted?.runs ?? []) for (const p of r.problems) L.push('', `(d, diagnostic) problem: ${p}`);
  L.push('');
  if (Object.keys(load).length) {
    L.push(`### Throughput (autocannon, ${LOAD_CONNECTIONS} connections, ${LOAD_S} s after ${LOAD_WARMUP_S} s of warm-up)`);
    L.push('');
    L.push('| requests | req/s | latency p50 / p99 (ms) | requests done | non-2xx / errors / timeouts | service peak RSS so far (MiB) | other jobs\' CPU |');
    L.push('|---|---|---|---|---|---|---|');
    for (const [name, label] of [['point', 'bare point, the same every request'], ['circle', '1 km circles (Point + radius 500) at 1,000 random places, cycled']] as const) {
      const r = load[name];
      if (r === undefined) continue;
      if (typeof r === 'string') L.push(`| ${label} | ${r} | | | | | |`);
      else L.push(`| ${label} | ${f1(r.rps)} | ${f1(r.p50)} / ${f1(r.p99)} | ${int(r.total)} | ${r.non2xx} / ${r.errors} / ${r.timeouts} | ${f1(r.peakMiB)} | ${oth(`load-${name}`)} |`);
    }
    if (typeof load['error'] === 'string') L.push(`\n${load['error']}`);
    L.push('');
  }
  if (svcMem) L.push(`Service process of (a)–(c): ${f1(svcMem.idleMiB)} MiB idle after start, ${f1(svcMem.peakMiB)} MiB peak after (c).`, '');
  L.push('### Agreement');
  L.push('');
  if (seqVsGdal) L.push(`- (a) vs the GDAL floor (count exact, mean 1e-6 relative): ${compareLine(seqVsGdal, seqAnswers!, gdalAnswers!, ['service', 'GDAL'])}.`);
  if (batchVsSeq) L.push(`- (c) vs (a) (count exact, min/max/mean 1e-9 relative), worst of ${batchRuns.length} runs: ${compareLine(batchVsSeq.c, batchRuns[batchVsSeq.run]!.answers, seqAnswers!, ['batch', 'single'])}.`);
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
  L.push(`| (c) 1,000 zones in one request ≤ ${T_BATCH_VS_GDAL} × GDAL floor | ${Number.isFinite(batchS) ? `${f2(batchS)} s vs ${f3(T_BATCH_VS_GDAL * gdalS)} s (${ratio(batchS)})${cComplete ? '' : '; incomplete answer (see the problems above)'}` : na(batchUnavailable)} | ${verdict(cOk)} |`);
  const dComplete = (large?.runs ?? []).every((r) => r.problems.length === 0);
  const dT = large?.runs.length ? dComplete && largeS <= T_LARGE_S : failed(largeUnavailable);
  // A peak over an incomplete run says nothing about the full one: no verdict then.
  const dM = large && dComplete ? large.peakMiB <= T_LARGE_MIB : undefined;
  L.push(`| (d) 10,000 zones ≤ ${T_LARGE_S} s | ${large ? `${f2(largeS)} s${dComplete ? '' : `; incomplete: ${large.runs.map((r) => int(r.answered)).join(', ')} of 10,000 zones answered (see the problems above)`}` : na(largeUnavailable ?? batchUnavailable)} | ${verdict(dT)} |`);
  L.push(`| (d) 10,000 zones ≤ ${T_LARGE_MIB} MiB peak RSS | ${large ? `${f1(large.peakMiB)} MiB${dComplete ? '' : ' over the incomplete run'}` : na(largeUnavailable ?? batchUnavailable)} | ${verdict(dM)} |`);
  const lp = load['point'];
  const lc = load['circle'];
  const lpOk = typeof lp === 'object' ? lp.rps >= T_POINT_RPS && lp.non2xx === 0 && lp.errors === 0 : undefined;
  const lcOk = typeof lc === 'object' ? lc.rps >= T_CIRCLE_RPS && lc.non2xx === 0 && lc.errors === 0 : undefined;
  L.push(`| bare point ≥ ${T_POINT_RPS} req/s | ${typeof lp === 'object' ? `${f1(lp.rps)} req/s${lp.non2xx || lp.errors ? ` (${lp.non2xx} non-2xx, ${lp.errors} errors)` : ''}` : 'not run'} | ${verdict(lpOk)} |`);
  L.push(`| 1 km circles ≥ ${T_CIRCLE_RPS} req/s | ${typeof lc === 'object' ? `${f1(lc.rps)} req/s${lc.non2xx || lc.errors ? ` (${lc.non2xx} non-2xx, ${lc.errors} errors)` : ''}` : 'not run'} | ${verdict(lcOk)} |`);
  if (logByPart.size) {
    L.push('', 'The service logged (warn and above, or other stderr lines), by part: count × message:', '');
    for (const [partName, m] of logByPart) for (const [k, v] of [...m].slice(0, 6)) L.push(`- ${partName}: ${v} × \`${k.replace(/`/g, "'")}\``);
  }
  L.push('', "Other jobs' CPU: the share of the machine's CPU used by processes other than this benchmark's during that part (0–3 % is noise); above ~10 % the timing of that part is inflated.");
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
    checks: { seqVsGdal, batchVsSeq: batchVsSeq?.c, batchJsonVsSeq },
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
