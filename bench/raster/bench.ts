/**
 * Raster zonal-statistics benchmark driver (issues 2, 10, 21). Run through `bash bench/raster/run.sh`, which
 * makes the data and installs the bench-only dependencies first. See bench/raster/README.md.
 *
 * Two rasters (aois.ts GRIDS): the Sentinel-2 layout (bench/data/s2_B04.tif from bench/lib/s2_data.py: 10980²
 * UInt16, 1024 px tiles, DEFLATE + predictor 2; the main rows since issue 21) and the old 10000² Float32 COG
 * (dem_10k.cog.tif, 512 px tiles, predictor 3; the second rows). Three modes:
 * - cold: the service with every cache off, the same AOI N times;
 * - warm: the service with its default caches, the same AOI N times after one priming query;
 * - newplace: the service with its default caches, every measured query at a new seeded random place of the
 *   same shape whose tiles no earlier query touched (aois.ts newPlaces): the COG header is cached, the tiles
 *   are not yet decoded; GDAL runs the same sequence of AOIs.
 *
 * Everything runs on this machine over loopback, each side in its own process:
 * - the range server (server.ts) serving bench/data with 0 or 20 ms added per request (`/d0/`, `/d20/`);
 * - the service (bench/lib/service.ts: buildApp from src/app.ts, 2 workers), one process per AOI and mode (in
 *   newplace, per source), queried over HTTP with fetch as a client would; its peak RSS is VmHWM of that process;
 * - the GDAL floor (gdal_floor.py) over /vsicurl/ of the same server and on the local file;
 * - geoblaze (geoblaze-run.mjs) over the same URLs (cold and warm modes).
 *
 * Writes bench/out/raster-results.json and bench/out/raster-results.md (the tables of the README).
 * Environment: BENCH_DATASETS (s2,dem), BENCH_MODES (cold,warm,newplace), BENCH_RUNS_NEW (20: measured places
 * per series), BENCH_RUNS_SMALL (20), BENCH_RUNS_BIG (5), BENCH_RUNS_GEOBLAZE_SMALL (10), BENCH_RUNS_GEOBLAZE_BIG
 * (1), BENCH_ONLY (comma-separated AOI names: poly40, circle1k, poly6000), BENCH_SIDES (default
 * service,gdal,geoblaze).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, realpathSync, writeFileSync, mkdirSync, statSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { benchAois, GRIDS, newPlaces, type BenchAoi, type Grid, type Place } from './aois.ts';
import { memOf, ROOT, runJson, startChild, type Child } from '../lib/child.ts';
import { PHASES, scrape } from '../lib/metrics.ts';

const DATA_DIR = join(ROOT, 'bench', 'data');
const OUT_DIR = join(ROOT, 'bench', 'out');
const STATS = ['count', 'min', 'max', 'mean', 'std'];
const LATENCIES = [0, 20] as const;
const CACHE_ON = 64 * 1024 * 1024;

const env = (name: string, dflt: number): number => Number(process.env[name] ?? dflt);
const RUNS_SMALL = env('BENCH_RUNS_SMALL', 20);
const RUNS_BIG = env('BENCH_RUNS_BIG', 5);
const RUNS_GB_SMALL = env('BENCH_RUNS_GEOBLAZE_SMALL', 10);
const RUNS_GB_BIG = env('BENCH_RUNS_GEOBLAZE_BIG', 1);
const RUNS_NEW = env('BENCH_RUNS_NEW', 20);
/** Unmeasured queries at their own places before a new-place series (JIT, both workers, the header cached). */
// Unmeasured queries at places of their own first: the header, and V8 compiling the request path (2 left the
// first measured queries in unoptimised code: 1.34× against 1.1× after 8, bench/raster/README.md).
const NEW_WARMUP = env('BENCH_NEW_WARMUP', 8);
const NEW_SEEDS: Record<string, number> = { poly40: 21, circle1k: 22 };
/** Scrape the service's /metrics before and after every new-place query (outside the timing). */
const NEW_METRICS = env('BENCH_NEW_METRICS', 1) !== 0;
const ONLY = process.env['BENCH_ONLY']?.split(',').filter((s) => s !== '');
const PY = process.env['BENCH_PYTHON'] ?? 'python3';
const SIDES = (process.env['BENCH_SIDES'] ?? 'service,gdal,geoblaze').split(',');
const MODES = (process.env['BENCH_MODES'] ?? 'cold,warm,newplace').split(',');
const DATASETS = (process.env['BENCH_DATASETS'] ?? 's2,dem').split(',').map((d) => {
  const g = GRIDS[d as keyof typeof GRIDS];
  if (g === undefined) throw new Error(`BENCH_DATASETS: unknown raster ${d} (s2, dem)`);
  return g;
});

// ------------------------------------------------------------------------------------------------
// range server log

type Logged = [method: string, path: string, start: number, end: number, status: number, bytes: number];

let serverOrigin = '';
async function serverLog(): Promise<Logged[]> {
  const r = await fetch(`${serverOrigin}/__log?reset=1`);
  return (await r.json()) as Logged[];
}

/** Busy and total CPU jiffies of the whole machine (/proc/stat). */
function cpuJiffies(): { busy: number; total: number } {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = f.reduce((x, y) => x + y, 0);
  return { busy: total - (f[3] ?? 0) - (f[4] ?? 0), total };
}

/** CPU ticks (user + system) of a process, all its threads; for this process, also its reaped children's (GDAL). */
function cpuTicks(pid: number | 'self'): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
    return f[11]! + f[12]! + (pid === 'self' ? f[13]! + f[14]! : 0);
  } catch {
    return 0;
  }
}

let serverPid = 0;
type CpuMark = { busy: number; total: number; ours: number };
/** A snapshot for `othersPct`: the machine's busy ticks and those of this benchmark's processes (driver, range server, `pids`). */
function cpuMark(pids: number[] = []): CpuMark {
  const m = cpuJiffies();
  return { ...m, ours: cpuTicks('self') + [serverPid, ...pids].reduce((k, p) => k + (p > 0 ? cpuTicks(p) : 0), 0) };
}
/** Percent of the machine's CPU used by other processes than this benchmark's between two marks (a few % is noise). */
function othersPct(a: CpuMark, b: CpuMark): number {
  return Math.max(0, (100 * (b.busy - a.busy - (b.ours - a.ours))) / Math.max(1, b.total - a.total));
}

interface Prep {
  file_bytes: number;
  tiles: [number, number, number, number][];
  overviews: number[][];
  aois: Record<string, { window: number[]; pixels: number; tiles_holding: [number, number][]; tile_bytes_holding: number; tiles_in_window: number }>;
}

interface Traffic {
  requests: number;
  bytes: number;
  /** Bytes inside full-resolution tiles that hold AOI pixels. */
  holdingBytes: number;
  /** Bytes inside other full-resolution tiles (no AOI pixel). */
  otherTileBytes: number;
  /** Everything else: header, IFDs, overviews, probes. */
  headerBytes: number;
  holdingTiles: number;
  otherTiles: number;
}

function classify(log: Logged[], prep: Prep, aoi: string): Traffic {
  const holding = new Set(prep.aois[aoi]!.tiles_holding.map(([x, y]) => `${x},${y}`));
  const t: Traffic = { requests: log.length, bytes: 0, holdingBytes: 0, otherTileBytes: 0, headerBytes: 0, holdingTiles: 0, otherTiles: 0 };
  const seenH = new Set<string>();
  const seenO = new Set<string>();
  // A read that starts before the first full-resolution tile is a header read, even when it runs on into the first
  // tiles (the S2 layout has no overviews, so its 64 KiB header read covers the start of tile (0, 0)).
  const firstTile = prep.tiles.reduce((m, [, , off, size]) => (size > 0 ? Math.min(m, off) : m), Infinity);
  for (const [, , start, end, , bytes] of log) {
    t.bytes += bytes;
    if (bytes === 0) continue;
    if (start < firstTile) {
      t.headerBytes += bytes;
      continue;
    }
    let inTiles = 0;
    for (const [x, y, off, size] of prep.tiles) {
      const lo = Math.max(start, off);
      const hi = Math.min(end + 1, off + size);
      if (hi <= lo) continue;
      inTiles += hi - lo;
      const key = `${x},${y}`;
      if (holding.has(key)) {
        t.holdingBytes += hi - lo;
        seenH.add(key);
      } else {
        t.otherTileBytes += hi - lo;
        seenO.add(key);
      }
    }
    t.headerBytes += bytes - inTiles;
  }
  t.holdingTiles = seenH.size;
  t.otherTiles = seenO.size;
  return t;
}

// ------------------------------------------------------------------------------------------------
// measurements

interface Series {
  times: number[];
  p50: number;
  p95: number;
  stats: Record<string, number | null>;
  traffic?: Traffic;
  requests?: number;
  bytes?: number;
  peakMiB?: number;
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return (s[lo] as number) + ((s[hi] as number) - (s[lo] as number)) * (pos - lo);
}

function series(times: number[], stats: Record<string, number | null>, extra: Partial<Series> = {}): Series {
  return { times, p50: quantile(times, 0.5), p95: quantile(times, 0.95), stats, ...extra };
}

async function query(port: number, url: string, aoi: BenchAoi): Promise<Record<string, number | null>> {
  const res = await fetch(`http://127.0.0.1:${port}/api/v1/zonal-stats/raster`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ url, aoi: aoi.aoi, stats: STATS }),
  });
  const body = (await res.json()) as Record<string, Record<string, number | null>>;
  if (res.status !== 200) throw new Error(`service answered ${res.status}: ${JSON.stringify(body)}`);
  return body['band_1']!;
}

/** N timed queries; the range server log is reset before and read after each (outside the timing). */
async function serviceSeries(port: number, url: string, aoi: BenchAoi, name: string, runs: number, prep: Prep): Promise<Series> {
  const times: number[] = [];
  const traffic: Traffic[] = [];
  let stats: Record<string, number | null> = {};
  for (let i = 0; i < runs; i++) {
    await serverLog();
    const t = performance.now();
    stats = await query(port, url, aoi);
    times.push(performance.now() - t);
    traffic.push(classify(await serverLog(), prep, name));
  }
  // Traffic is the same every run for a given mode; report the median run's (they are identical in practice).
  const mid = traffic.sort((a, b) => a.bytes - b.bytes)[Math.floor(traffic.length / 2)];
  return series(times, stats, mid ? { traffic: mid } : {});
}

const cogPath = (grid: Grid) => join(DATA_DIR, grid.file);
const httpUrl = (grid: Grid, ms: number) => `${serverOrigin}/d${ms}/${grid.file}`;
/** The service's environment: 2 workers, loopback allowed, the data folder readable (file:// reads the real path). */
const serviceEnv = (grid: Grid): Record<string, string> => ({
  ZONAL_WORKERS: '2',
  ZONAL_ALLOW_PRIVATE_NETWORKS: '127.0.0.1/32',
  ZONAL_DATA_ROOTS: dirname(realpathSync(cogPath(grid))),
  LOG_LEVEL: 'warn',
});

interface AoiResult {
  label: string;
  runs: number;
  pixels: number;
  service: Record<string, Series>;
  serviceMem: Record<string, { baselineMiB: number; peakMiB: number; firstRequestMs: number }>;
  /** Distinct warnings the service printed (stderr), with how often. */
  serviceWarnings: Record<string, number>;
  gdal: Record<string, Series>;
  geoblaze: Record<string, Series>;
  /** Sides that failed for this AOI, with the error. */
  errors: string[];
}

/** Runs `fn` against a fresh service process, which is stopped (and its warnings noted) whatever happens. */
async function withService<T>(
  env: Record<string, string>,
  result: { serviceWarnings: Record<string, number> },
  fn: (port: number, pid: number) => Promise<T>,
): Promise<T> {
  const svc = await startChild(['--import', 'tsx', 'bench/lib/service.ts'], env);
  const { port, pid } = svc.info as { port: number; pid: number };
  try {
    return await fn(port, pid);
  } finally {
    await svc.stop();
    noteWarnings(svc, result);
  }
}

async function benchService(grid: Grid, name: string, aoi: BenchAoi, runs: number, prep: Prep, result: AoiResult): Promise<void> {
  // file:// reads the real path (the service refuses a symlink leading out of its data roots).
  const realCog = realpathSync(cogPath(grid));
  const base = serviceEnv(grid);
  // Cold: every cache off (bytes, decoded tiles, the trusted size and ETag), so every query reads the header
  // and the tiles from the range server and decodes them.
  if (MODES.includes('cold')) {
    const off = { ZONAL_CACHE_BYTES: '0', ZONAL_TILE_CACHE_BYTES: '0', ZONAL_REVALIDATE_SECONDS: '0' };
    await withService({ ...base, ...off }, result, async (port, pid) => {
      const baselineMiB = memOf(pid).rssMiB;
      const t = performance.now();
      await query(port, httpUrl(grid, 0), aoi);
      const firstRequestMs = performance.now() - t;
      await query(port, httpUrl(grid, 0), aoi); // second warm-up: JIT, second worker thread
      for (const ms of LATENCIES) {
        result.service[`cold_d${ms}`] = await serviceSeries(port, httpUrl(grid, ms), aoi, name, runs, prep);
        log(`  ours cold ${ms} ms`, result.service[`cold_d${ms}`]!);
      }
      result.service['file'] = await serviceSeries(port, `file://${realCog}`, aoi, name, runs, prep);
      log('  ours file://', result.service['file']!);
      result.serviceMem['cold'] = { baselineMiB, peakMiB: memOf(pid).peakMiB, firstRequestMs };
    });
  }
  // Warm: the default caches (64 MiB of bytes, the decoded-tile cache, sizes and ETags trusted for 30 s), one
  // priming query per URL, then N queries.
  if (MODES.includes('warm')) {
    await withService({ ...base, ZONAL_CACHE_BYTES: String(CACHE_ON) }, result, async (port, pid) => {
      const baselineMiB = memOf(pid).rssMiB;
      const t = performance.now();
      await query(port, httpUrl(grid, 0), aoi);
      const firstRequestMs = performance.now() - t;
      for (const ms of LATENCIES) {
        await query(port, httpUrl(grid, ms), aoi);
        result.service[`warm_d${ms}`] = await serviceSeries(port, httpUrl(grid, ms), aoi, name, runs, prep);
        log(`  ours warm ${ms} ms`, result.service[`warm_d${ms}`]!);
      }
      result.serviceMem['warm'] = { baselineMiB, peakMiB: memOf(pid).peakMiB, firstRequestMs };
    });
  }
}

function noteWarnings(svc: Child, result: { serviceWarnings: Record<string, number> }): void {
  for (const line of svc.stderr) {
    const m = /\((?:node):\d+\) (\w+Warning: [^.]*)/.exec(line);
    if (m === null) continue;
    const key = m[1]!.replace(/\d+ abort listeners/, 'N abort listeners');
    result.serviceWarnings[key] = (result.serviceWarnings[key] ?? 0) + 1;
  }
}

function fromRunner(r: Record<string, unknown>): Series {
  const reqs = (r['requests'] as number[]) ?? [];
  const bytes = (r['bytes'] as number[]) ?? [];
  return series(r['times_ms'] as number[], r['stats'] as Record<string, number | null>, {
    ...(reqs.length ? { requests: quantile(reqs, 0.5), bytes: quantile(bytes, 0.5) } : {}),
    peakMiB: (r['peak_rss_kib'] as number) / 1024,
  });
}

let gdalVersion = '?';

async function benchGdal(grid: Grid, aoisFile: string, name: string, runs: number, result: AoiResult): Promise<void> {
  const script = 'bench/raster/gdal_floor.py';
  const common = ['run', '--aois', aoisFile, '--name', name, '--runs', String(runs)];
  const local = await runJson(PY, [script, ...common, '--src', cogPath(grid)]);
  gdalVersion = String(local['gdal']);
  result.gdal['file'] = fromRunner(local);
  log('  GDAL local file', result.gdal['file']!);
  for (const ms of LATENCIES) {
    const r = await runJson(PY, [script, ...common, '--src', `/vsicurl/${httpUrl(grid, ms)}`, '--log', `${serverOrigin}/__log`]);
    result.gdal[`cold_d${ms}`] = fromRunner(r);
    log(`  GDAL /vsicurl/ ${ms} ms`, result.gdal[`cold_d${ms}`]!);
    if (!MODES.includes('warm')) continue;
    // Warm: /vsicurl/'s caches kept between runs (a long-running GDAL process that trusts its cached header).
    const w = await runJson(PY, [script, ...common, '--warm', '--src', `/vsicurl/${httpUrl(grid, ms)}`, '--log', `${serverOrigin}/__log`]);
    result.gdal[`warm_d${ms}`] = fromRunner(w);
    log(`  GDAL /vsicurl/ warm ${ms} ms`, result.gdal[`warm_d${ms}`]!);
  }
}

async function benchGeoblaze(grid: Grid, aoi: BenchAoi, runs: number, big: boolean, result: AoiResult): Promise<void> {
  const run = async (ms: number, cold: boolean) =>
    fromRunner(
      await runJson(process.execPath, [
        'bench/raster/geoblaze-run.mjs',
        JSON.stringify({ url: httpUrl(grid, ms), geometry: aoi.polygon, runs, cold, warmup: !big, log: `${serverOrigin}/__log` }),
      ]),
    );
  if (big) {
    // ~30 s and ~1.7 GiB a run: one cold run at +0 ms (added latency is noise at that scale), no warm-up.
    result.geoblaze['cold_d0'] = await run(0, true);
    log('  geoblaze cold 0 ms', result.geoblaze['cold_d0']!);
    return;
  }
  for (const ms of LATENCIES) {
    result.geoblaze[`cold_d${ms}`] = await run(ms, true);
    log(`  geoblaze cold ${ms} ms`, result.geoblaze[`cold_d${ms}`]!);
  }
  result.geoblaze['warm_d0'] = await run(0, false);
  log('  geoblaze warm 0 ms', result.geoblaze['warm_d0']!);
}

function log(what: string, s: Series): void {
  const traffic = s.traffic ? ` ${s.traffic.requests} req ${s.traffic.bytes} B` : s.requests !== undefined ? ` ${s.requests} req ${s.bytes} B` : '';
  const t = `p50 ${s.p50.toFixed(1).padStart(8)} ms  p95 ${s.p95.toFixed(1).padStart(8)} ms`;
  console.log(`${what.padEnd(22)} ${t}  count ${s.stats['count']} mean ${s.stats['mean']}${traffic}`);
}

// ------------------------------------------------------------------------------------------------
// new place: one zone somewhere new each time (the header cached, the tiles never decoded before)

/** One measured query of a new-place series, with what /metrics counted during it. */
interface NewQuery {
  place: string;
  ms: number;
  stats: Record<string, number | null>;
  traffic: Traffic;
  tasks: number;
  planes: number;
  tileHits: number;
  tileMisses: number;
  decompressed: number;
  whole: number;
  /** ms per phase, summed over the query's tasks (zonal_fold_phase_seconds_total). */
  phases: Record<string, number>;
}

interface NewSeries {
  /** Other jobs' share of the machine's CPU during the series (othersPct). */
  othersPct: number;
  queries: NewQuery[];
  p50: number;
  p95: number;
  baselineMiB: number;
  peakMiB: number;
}

interface GdalSeq {
  names: string[];
  times_ms: number[];
  stats: Record<string, number | null>[];
  requests: number[];
  bytes: number[];
  peak_rss_kib: number;
  p50: number;
  p95: number;
  othersPct: number;
}

interface NewPlaceResult {
  label: string;
  /** Places found (warm-up ones included) and the names of the measured ones, in order. */
  found: number;
  measured: string[];
  /** Per measured place: the tiles holding its pixels (GDAL's rasterizer) and its pixels. */
  tilesHolding: number[];
  pixels: number[];
  service: Record<string, NewSeries>;
  serviceWarnings: Record<string, number>;
  gdal: Record<string, GdalSeq>;
  /** Per source: mismatches against the GDAL floor on the local file, as text. */
  mismatches: Record<string, string[]>;
}

const NEW_SOURCES = ['d0', 'd20', 'file'] as const;

async function newPlaceService(
  grid: Grid,
  names: string[],
  aois: Record<string, BenchAoi>,
  prep: Prep,
  source: string,
  result: NewPlaceResult,
): Promise<NewSeries> {
  // The service's defaults (byte cache, decoded-tile cache, trusted header for 30 s): only the placement changes.
  return withService(serviceEnv(grid), result, async (port, pid) => {
    const baselineMiB = memOf(pid).rssMiB;
    const mark = cpuMark([pid]);
    const url = source === 'file' ? `file://${realpathSync(cogPath(grid))}` : httpUrl(grid, Number(source.slice(1)));
    // Unmeasured, each at its own place: the first caches the header, the second warms the other worker.
    for (const n of names.slice(0, NEW_WARMUP)) await query(port, url, aois[n]!);
    const queries: NewQuery[] = [];
    const none = new Map<string, number>();
    for (const n of names.slice(NEW_WARMUP)) {
      const m0 = NEW_METRICS ? await scrape(port) : none;
      await serverLog();
      const t = performance.now();
      const stats = await query(port, url, aois[n]!);
      const ms = performance.now() - t;
      const traffic = classify(await serverLog(), prep, n);
      const m1 = NEW_METRICS ? await scrape(port) : none;
      const d = (k: string) => (m1.get(k) ?? 0) - (m0.get(k) ?? 0);
      const phases: Record<string, number> = {};
      for (const p of PHASES) phases[p] = 1000 * d(`zonal_fold_phase_seconds_total{phase="${p}"}`);
      queries.push({
        place: n,
        ms,
        stats,
        traffic,
        tasks: d('zonal_fold_tasks_total'),
        planes: d('zonal_fold_planes_total'),
        tileHits: d('zonal_cache_hits_total{cache="decoded_tiles"}'),
        tileMisses: d('zonal_cache_misses_total{cache="decoded_tiles"}'),
        decompressed: d('zonal_fold_decompressed_bytes_total'),
        whole: d('zonal_fold_whole_bytes_total'),
        phases,
      });
    }
    const times = queries.map((q) => q.ms);
    const othersPct_ = othersPct(mark, cpuMark([pid]));
    return { othersPct: othersPct_, queries, p50: quantile(times, 0.5), p95: quantile(times, 0.95), baselineMiB, peakMiB: memOf(pid).peakMiB };
  });
}

/** Ours against GDAL for one place: count exact, mean / min / max / std within 1e-6 relative. */
function disagreement(o: Record<string, number | null>, g: Record<string, number | null>): string[] {
  const issues: string[] = [];
  if (o['count'] !== g['count']) issues.push(`count ${o['count']} vs GDAL ${g['count']}`);
  for (const k of ['mean', 'min', 'max', 'std']) {
    const a = o[k] ?? null;
    const b = g[k] ?? null;
    if (a === null || b === null) {
      if (a !== b) issues.push(`${k} ${a} vs GDAL ${b}`);
      continue;
    }
    const rel = a === b ? 0 : Math.abs(a - b) / Math.max(Math.abs(a), Math.abs(b));
    if (rel > 1e-6) issues.push(`${k} ${a} vs GDAL ${b} (rel ${rel.toExponential(1)})`);
  }
  return issues;
}

async function benchNewPlace(
  grid: Grid,
  shape: string,
  places: Place[],
  aoisFile: string,
  aois: Record<string, BenchAoi>,
  prep: Prep,
): Promise<NewPlaceResult> {
  const names = places.map((_, k) => `${shape}@${k}`);
  const measured = names.slice(NEW_WARMUP);
  const result: NewPlaceResult = {
    label: aois[names[0]!]!.label.replace(/ at place \d+$/, ''),
    found: places.length,
    measured,
    tilesHolding: measured.map((n) => prep.aois[n]!.tiles_holding.length),
    pixels: measured.map((n) => prep.aois[n]!.pixels),
    service: {},
    serviceWarnings: {},
    gdal: {},
    mismatches: {},
  };
  // Per source, GDAL's sequence and then ours, back to back, so that both meet about the same load from other jobs.
  const script = 'bench/raster/gdal_floor.py';
  const common = ['seq', '--aois', aoisFile, '--names', names.join(','), '--warmup', String(NEW_WARMUP)];
  for (const src of NEW_SOURCES) {
    if (SIDES.includes('gdal')) {
      const args = src === 'file' ? ['--src', cogPath(grid)] : ['--src', `/vsicurl/${httpUrl(grid, Number(src.slice(1)))}`, '--log', `${serverOrigin}/__log`];
      const mark = cpuMark();
      const r = (await runJson(PY, [script, ...common, ...args])) as unknown as GdalSeq;
      r.othersPct = othersPct(mark, cpuMark());
      gdalVersion = String((r as unknown as Record<string, unknown>)['gdal'] ?? gdalVersion);
      r.p50 = quantile(r.times_ms, 0.5);
      r.p95 = quantile(r.times_ms, 0.95);
      result.gdal[src] = r;
      const t = `p50 ${r.p50.toFixed(1).padStart(8)} ms  p95 ${r.p95.toFixed(1).padStart(8)} ms`;
      console.log(`  GDAL ${src.padEnd(4)} new place  ${t}  requests ${quantile(r.requests, 0.5)}; other jobs ${r.othersPct.toFixed(0)} %`);
    }
    if (SIDES.includes('service')) {
      const s = await newPlaceService(grid, names, aois, prep, src, result);
      result.service[src] = s;
      const hits = s.queries.reduce((a, q) => a + q.tileHits, 0);
      console.log(
        `  ours ${src.padEnd(4)} new place  p50 ${s.p50.toFixed(1).padStart(8)} ms  p95 ${s.p95.toFixed(1).padStart(8)} ms  ` +
          `requests ${quantile(
            s.queries.map((q) => q.traffic.requests),
            0.5,
          )}, decoded-tile cache hits ${hits}; other jobs ${s.othersPct.toFixed(0)} %`,
      );
    }
  }
  const ref = result.gdal['file']?.stats;
  for (const src of NEW_SOURCES) {
    const s = result.service[src];
    if (!ref || !s) continue;
    const bad: string[] = [];
    s.queries.forEach((q, i) => {
      const issues = disagreement(q.stats, ref[i]!);
      if (issues.length) bad.push(`${q.place}: ${issues.join(', ')}`);
    });
    result.mismatches[src] = bad;
    for (const b of bad) console.log(`  MISMATCH ours ${src} vs GDAL: ${b}`);
  }
  return result;
}

// ------------------------------------------------------------------------------------------------
// report

const MiB = 1024 * 1024;
const f1 = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? '–' : x >= 100 ? x.toFixed(0) : x.toFixed(1));
const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : '–');
const ms = (s: { p50: number; p95: number } | undefined) => (s ? `${f1(s.p50)} / ${f1(s.p95)}` : '–');
const ratio = (a: { p50: number } | undefined, b: { p50: number } | undefined) => (a && b ? `${(a.p50 / b.p50).toFixed(2)}×` : '–');
const mib = (b: number) => (b / MiB).toFixed(2);
const sourceLabel = (src: string) => (src === 'file' ? 'local file' : `HTTP +${src.slice(1)} ms`);
/** Issue 21: one zone at a new place, p50 against the GDAL floor's. */
const NEW_LIMIT: Record<string, number> = { poly40: 1.1, circle1k: 1.2 };

function reportNewPlace(all: { grid: Grid; shapes: Record<string, NewPlaceResult> }[]): string {
  const L: string[] = [];
  L.push('### One zone at a new place each time (COG header cached, tiles not yet decoded): p50 / p95 (ms) and ratio of p50', '');
  L.push(
    `Each series: a service process with its default caches, ${NEW_WARMUP} unmeasured queries at their own places (the first caches the header), then one ` +
      'query per place, each place touching only tiles no other place touches; GDAL runs the same sequence (its first ' +
      `${NEW_WARMUP} unmeasured), /vsicurl/'s cache cleared and the dataset opened afresh before every run.`,
    '',
  );
  L.push(
    '| raster | AOI | source | places | tiles holding AOI pixels per place: median (min–max) | ours | GDAL floor | ours / GDAL | target | ' +
      "requests per query, median: ours / GDAL | MiB per query, median: ours / GDAL | decoded-tile cache hits in the series | other jobs' CPU: ours / GDAL |",
  );
  L.push('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const { grid, shapes } of all) {
    for (const [shape, r] of Object.entries(shapes)) {
      const th = r.tilesHolding;
      for (const src of NEW_SOURCES) {
        const o = r.service[src];
        const g = r.gdal[src];
        const limit = NEW_LIMIT[shape]!;
        const target = src === 'file' ? '' : `≤ ${limit}×: ${o && g ? (o.p50 <= limit * g.p50 ? 'pass' : '**FAIL**') : 'n/a'}`;
        const reqO = o
          ? quantile(
              o.queries.map((q) => q.traffic.requests),
              0.5,
            )
          : NaN;
        const reqG = g?.requests.length ? quantile(g.requests, 0.5) : NaN;
        const mibO = o
          ? quantile(
              o.queries.map((q) => q.traffic.bytes),
              0.5,
            ) / MiB
          : NaN;
        const mibG = g?.bytes.length ? quantile(g.bytes, 0.5) / MiB : NaN;
        const hits = o && NEW_METRICS ? o.queries.reduce((a, q) => a + q.tileHits, 0) : NaN;
        L.push(
          `| ${grid.label} | ${r.label} | ${sourceLabel(src)} | ${r.measured.length} | ${quantile(th, 0.5)} (${Math.min(...th)}–${Math.max(...th)}) | ` +
            `${ms(o)} | ${ms(g)} | ${ratio(o, g)} | ${target} | ${src === 'file' ? '' : `${reqO} / ${reqG}`} | ` +
            `${src === 'file' ? '' : `${f2(mibO)} / ${f2(mibG)}`} | ${Number.isFinite(hits) ? hits : '–'} | ` +
            `${o ? o.othersPct.toFixed(0) : '–'} / ${g ? g.othersPct.toFixed(0) : '–'} % |`,
        );
      }
    }
  }
  L.push(
    '',
    "Other jobs' CPU: the share of the machine's CPU used by processes other than this benchmark's (the driver, the range server, the " +
      'service, GDAL) during each series; 0–3 % is noise, above ~10 % the series was slowed by other work on the 2 cores.',
  );
  if (NEW_METRICS) {
    L.push('', "### Inside the new-place queries (the service's /metrics before and after each query, summed over the series)", '');
    L.push('ms per plane of each phase over tasks (inflate, samples, coverage, fold, worker: worker threads; fetch, run: main thread; overlapping).', '');
    L.push(
      '| raster | AOI | source | tasks / planes | inflate | samples | coverage | fold | worker | fetch | run | decompressed / whole bytes | ' +
        'peak RSS (idle → peak, MiB) |',
    );
    L.push('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
    for (const { grid, shapes } of all) {
      for (const r of Object.values(shapes)) {
        for (const src of NEW_SOURCES) {
          const o = r.service[src];
          if (!o) continue;
          const sum = (f: (q: NewQuery) => number) => o.queries.reduce((a, q) => a + f(q), 0);
          const planes = sum((q) => q.planes);
          const per = PHASES.map((p) => f2(sum((q) => q.phases[p]!) / Math.max(1, planes)));
          L.push(
            `| ${grid.label} | ${r.label} | ${sourceLabel(src)} | ${sum((q) => q.tasks)} / ${planes} | ${per.join(' | ')} | ` +
              `${(sum((q) => q.decompressed) / sum((q) => q.whole)).toFixed(3)} | ${f1(o.baselineMiB)} → ${f1(o.peakMiB)} |`,
          );
        }
      }
    }
  }
  L.push('', '### Agreement of the new places (every measured place: ours from each source against the GDAL floor on the local file)', '');
  for (const { grid, shapes } of all) {
    for (const r of Object.values(shapes)) {
      if (r.found < NEW_WARMUP + RUNS_NEW) {
        L.push(`- ${grid.label}, ${r.label}: only ${r.found - NEW_WARMUP} places with tiles of their own were found (${RUNS_NEW} asked).`);
      }
      for (const src of NEW_SOURCES) {
        const bad = r.mismatches[src];
        if (bad === undefined) continue;
        L.push(
          `- ${grid.label}, ${r.label}, ${sourceLabel(src)}: ${r.measured.length - bad.length} of ${r.measured.length} places agree ` +
            '(count exact; mean, min, max, std within 1e-6 relative)' +
            (bad.length ? `; differ: ${bad.join('; ')}` : '.'),
        );
      }
      const px = r.pixels;
      L.push(`- ${grid.label}, ${r.label}: AOI pixels per place ${Math.min(...px).toLocaleString('en')}–${Math.max(...px).toLocaleString('en')}.`);
    }
  }
  return L.join('\n') + '\n';
}

function report(results: Record<string, AoiResult>, prep: Prep): string {
  const L: string[] = [];
  const row = (...cells: (string | number | undefined)[]) => L.push(`| ${cells.map((c) => c ?? '–').join(' | ')} |`);
  const verdict = (ok: boolean) => (ok ? 'pass' : 'FAIL');
  L.push('### Latency (ms, p50 / p95) and ratios of p50', '');
  L.push('| AOI | source | runs | ours cold | ours warm | GDAL floor | ours / GDAL | geoblaze cold | geoblaze / ours |');
  L.push('|---|---|---|---|---|---|---|---|---|');
  for (const [, r] of Object.entries(results)) {
    for (const ms_ of LATENCIES) {
      const k = `cold_d${ms_}`;
      const [o, g, b] = [r.service[k], r.gdal[k], r.geoblaze[k]];
      const runs = `${r.runs} (geoblaze ${b?.times.length ?? 0})`;
      row(r.label, `HTTP +${ms_} ms`, runs, ms(o), ms(r.service[`warm_d${ms_}`]), ms(g), ratio(o, g), ms(b), ratio(b, o));
    }
    row(r.label, 'local file', r.runs, ms(r.service['file']), '', ms(r.gdal['file']), ratio(r.service['file'], r.gdal['file']), '', '');
  }
  L.push(
    '',
    'Warm against warm: ours with its caches (decoded tiles, trusted header for ZONAL_REVALIDATE_SECONDS) against GDAL with ' +
      "/vsicurl/'s caches kept between queries (a long-running GDAL process):",
    '',
  );
  L.push('| AOI | source | ours warm | GDAL warm | ours / GDAL | requests per query: ours warm / GDAL warm |', '|---|---|---|---|---|---|');
  for (const [, r] of Object.entries(results)) {
    for (const ms_ of LATENCIES) {
      const o = r.service[`warm_d${ms_}`];
      const g = r.gdal[`warm_d${ms_}`];
      row(r.label, `HTTP +${ms_} ms`, ms(o), ms(g), ratio(o, g), `${o?.traffic?.requests ?? '–'} / ${g?.requests ?? '–'}`);
    }
  }
  L.push('', 'geoblaze warm (parsed raster and geotiff.js block cache kept, +0 ms) vs ours warm (+0 ms):', '');
  L.push('| AOI | geoblaze warm | ours warm | geoblaze / ours |', '|---|---|---|---|');
  for (const r of Object.values(results)) row(r.label, ms(r.geoblaze['warm_d0']), ms(r.service['warm_d0']), ratio(r.geoblaze['warm_d0'], r.service['warm_d0']));

  L.push('', '### Bytes fetched per query (range server log, +0 ms)', '');
  L.push(
    '| AOI | AOI pixels | tiles holding AOI pixels: n, MiB | ours cold: requests, MiB (in holding tiles / other tiles / header) | ' +
      'ours warm: requests, MiB | GDAL /vsicurl/: requests, MiB | geoblaze cold: requests, MiB |',
  );
  L.push('|---|---|---|---|---|---|---|');
  for (const [name, r] of Object.entries(results)) {
    const a = prep.aois[name]!;
    const c = r.service['cold_d0']?.traffic;
    const w = r.service['warm_d0']?.traffic;
    const g = r.gdal['cold_d0'];
    const b = r.geoblaze['cold_d0'];
    row(
      r.label,
      a.pixels.toLocaleString('en'),
      `${a.tiles_holding.length}, ${mib(a.tile_bytes_holding)}`,
      c ? `${c.requests}, ${mib(c.bytes)} (${mib(c.holdingBytes)} / ${mib(c.otherTileBytes)} in ${c.otherTiles} tiles / ${mib(c.headerBytes)})` : '–',
      w ? `${w.requests}, ${mib(w.bytes)}` : '–',
      `${g?.requests ?? '–'}, ${g?.bytes !== undefined ? mib(g.bytes) : '–'}`,
      `${b?.requests ?? '–'}, ${b?.bytes !== undefined ? mib(b.bytes) : '–'}`,
    );
  }

  L.push('', '### Memory (peak RSS of the process, MiB)', '');
  L.push('| AOI | ours, caches off (idle after start → peak) | ours, default caches (idle → peak) | GDAL (Python) /vsicurl/ | geoblaze cold |');
  L.push('|---|---|---|---|---|');
  for (const r of Object.values(results)) {
    const c = r.serviceMem['cold'];
    const w = r.serviceMem['warm'];
    const range = (m: typeof c) => (m ? `${f1(m.baselineMiB)} → ${f1(m.peakMiB)}` : '–');
    row(r.label, range(c), range(w), f1(r.gdal['cold_d0']?.peakMiB), f1(r.geoblaze['cold_d0']?.peakMiB));
  }

  L.push('', '### Agreement (count and mean; std and min/max in the JSON)', '');
  L.push('| AOI | ours count | GDAL count | geoblaze count | ours mean | GDAL mean | geoblaze mean | verdict |', '|---|---|---|---|---|---|---|---|');
  for (const r of Object.values(results)) {
    const o = r.service['cold_d0']?.stats ?? r.service['warm_d0']?.stats ?? {};
    const g = r.gdal['file']?.stats ?? {};
    const b = r.geoblaze['cold_d0']?.stats ?? {};
    const rel = (x: unknown, y: unknown) => Math.abs(Number(x) - Number(y)) / Math.abs(Number(y));
    const issues: string[] = [];
    if (o['count'] !== g['count']) issues.push(`count ours−GDAL ${Number(o['count']) - Number(g['count'])}`);
    if (b['count'] !== undefined && b['count'] !== g['count']) issues.push(`count geoblaze−GDAL ${Number(b['count']) - Number(g['count'])}`);
    if (rel(o['mean'], g['mean']) > 1e-9) issues.push(`mean ours vs GDAL rel ${rel(o['mean'], g['mean']).toExponential(1)}`);
    if (b['mean'] !== undefined && rel(b['mean'], g['mean']) > 1e-9) issues.push(`mean geoblaze vs GDAL rel ${rel(b['mean'], g['mean']).toExponential(1)}`);
    const v = (x: Record<string, number | null>, k: string) => x[k] ?? undefined;
    row(r.label, v(o, 'count'), v(g, 'count'), v(b, 'count'), v(o, 'mean'), v(g, 'mean'), v(b, 'mean'), issues.length ? issues.join('; ') : 'same');
  }

  const failed = Object.values(results).filter((r) => r.errors.length > 0);
  if (failed.length > 0) {
    L.push('', '### Failures', '');
    for (const r of failed) for (const e of r.errors) L.push(`- ${r.label}: ${e}`);
  }
  const warned = Object.entries(results).filter(([, r]) => Object.keys(r.serviceWarnings).length > 0);
  if (warned.length > 0) {
    L.push('', '### Warnings printed by the service (stderr)', '');
    for (const [, r] of warned) for (const [w, n] of Object.entries(r.serviceWarnings)) L.push(`- ${r.label}: ${n}× \`${w}\``);
  }

  L.push('', '### Targets', '');
  L.push('| target | AOI | measured | verdict |', '|---|---|---|---|');
  for (const [name, r] of Object.entries(results)) {
    const a = prep.aois[name]!;
    const c = r.service['cold_d0']?.traffic;
    if (c) {
      const tiles = c.holdingBytes + c.otherTileBytes;
      const measured = `${mib(tiles)} ≤ ${mib(a.tile_bytes_holding)} MiB (+ ${mib(c.headerBytes)} MiB header)`;
      row('tile bytes ≤ tiles holding AOI pixels', r.label, measured, verdict(tiles <= a.tile_bytes_holding));
    }
  }
  for (const [name, r] of Object.entries(results)) {
    if (name === 'poly6000') continue;
    for (const k of ['cold_d0', 'cold_d20', 'file']) {
      const o = r.service[k];
      const g = r.gdal[k];
      const src = k === 'file' ? 'local file' : `HTTP +${k.slice(6)} ms`;
      if (o && g) row(`≤ 1.5× GDAL floor (${src})`, r.label, `${(o.p50 / g.p50).toFixed(2)}×`, verdict(o.p50 <= 1.5 * g.p50));
    }
    // Issue 10: a warm query against the warm GDAL floor: ≤ 1.1× (40 km²) and ≤ 1.2× (1 km circle).
    for (const k of ['warm_d0', 'warm_d20']) {
      const o = r.service[k];
      const g = r.gdal[k];
      const limit = name === 'circle1k' ? 1.2 : 1.1;
      if (o && g) row(`warm ≤ ${limit}× warm GDAL (HTTP +${k.slice(6)} ms)`, r.label, `${(o.p50 / g.p50).toFixed(2)}×`, verdict(o.p50 <= limit * g.p50));
    }
    for (const k of ['cold_d0', 'cold_d20']) {
      const o = r.service[k];
      const b = r.geoblaze[k];
      if (o && b) row(`≥ 5× faster than geoblaze (HTTP +${k.slice(6)} ms, cold)`, r.label, `${(b.p50 / o.p50).toFixed(2)}×`, verdict(b.p50 >= 5 * o.p50));
    }
  }
  const big = results['poly6000'];
  for (const mode of ['cold', 'warm'] as const) {
    const m = big?.serviceMem[mode];
    if (m) row(`≤ 500 MiB peak RSS (${mode === 'cold' ? 'caches off' : 'default caches'})`, big!.label, `${f1(m.peakMiB)} MiB`, verdict(m.peakMiB <= 500));
  }
  return L.join('\n') + '\n';
}

// ------------------------------------------------------------------------------------------------

interface GridResult {
  grid: Grid;
  prep: Prep;
  aois: Record<string, AoiResult>;
  newplace: Record<string, NewPlaceResult>;
}

async function main(): Promise<void> {
  mkdirSync(OUT_DIR, { recursive: true });
  const started = performance.now();
  const loadStart = loadavg()[0]!;
  const server = await startChild(['--import', 'tsx', 'bench/raster/server.ts', DATA_DIR]);
  serverOrigin = `http://127.0.0.1:${(server.info as { port: number }).port}`;
  serverPid = server.proc.pid ?? 0;
  const grids: GridResult[] = [];
  try {
    for (const grid of DATASETS) {
      const base = benchAois(grid);
      const names = Object.keys(base).filter((n) => ONLY === undefined || ONLY.includes(n));
      // The new places of the small shapes, named `<shape>@<k>` (the first NEW_WARMUP unmeasured).
      const places: Record<string, Place[]> = {};
      if (MODES.includes('newplace')) {
        for (const shape of ['poly40', 'circle1k'] as const) {
          if (names.includes(shape)) places[shape] = newPlaces(grid, shape, NEW_WARMUP + RUNS_NEW, NEW_SEEDS[shape]!);
        }
      }
      const all: Record<string, BenchAoi> = { ...base };
      for (const [shape, ps] of Object.entries(places)) ps.forEach((p, k) => (all[`${shape}@${k}`] = { label: p.label, aoi: p.aoi, polygon: p.polygon }));
      const aoisFile = join(OUT_DIR, `raster-aois-${grid.name}.json`);
      const prepFile = join(OUT_DIR, `raster-prep-${grid.name}.json`);
      writeFileSync(aoisFile, JSON.stringify(all));
      await runJson(PY, ['bench/raster/gdal_floor.py', 'prep', '--aois', aoisFile, '--cog', cogPath(grid), '--out', prepFile]);
      const prep = JSON.parse(readFileSync(prepFile, 'utf8')) as Prep;
      const g: GridResult = { grid, prep, aois: {}, newplace: {} };
      grids.push(g);
      console.log(`== ${grid.label}: ${grid.describe}`);
      for (const [shape, ps] of Object.entries(places)) {
        console.log(`${base[shape]!.label}, new place each query (${ps.length - NEW_WARMUP} places measured + ${NEW_WARMUP} unmeasured)`);
        g.newplace[shape] = await benchNewPlace(grid, shape, ps, aoisFile, all, prep);
      }
      if (!MODES.includes('cold') && !MODES.includes('warm')) continue;
      for (const name of names) {
        const aoi = base[name]!;
        const big = name === 'poly6000';
        const runs = big ? RUNS_BIG : RUNS_SMALL;
        console.log(`${aoi.label} (${prep.aois[name]!.pixels.toLocaleString('en')} px, ${runs} runs)`);
        const pixels = prep.aois[name]!.pixels;
        const r: AoiResult = { label: aoi.label, runs, pixels, service: {}, serviceMem: {}, serviceWarnings: {}, gdal: {}, geoblaze: {}, errors: [] };
        g.aois[name] = r;
        // A side that fails is reported (the error under the tables), not fatal to the rest of the run.
        const side = async (what: string, fn: () => Promise<void>) => {
          try {
            await fn();
          } catch (e) {
            const msg = `${what}: ${(e as Error).message.slice(0, 400)}`;
            r.errors.push(msg);
            console.log(`  FAILED ${msg}`);
          }
        };
        if (SIDES.includes('service')) await side('service', () => benchService(grid, name, aoi, runs, prep, r));
        if (SIDES.includes('gdal')) await side('GDAL', () => benchGdal(grid, aoisFile, name, runs, r));
        if (SIDES.includes('geoblaze')) await side('geoblaze', () => benchGeoblaze(grid, aoi, big ? RUNS_GB_BIG : RUNS_GB_SMALL, big, r));
      }
    }
  } finally {
    await server.stop();
  }
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
  const meta = {
    code: `service at commit ${git('rev-parse', '--short', 'HEAD')}${dirty > 0 ? ` with ${dirty} uncommitted change(s) in src/` : ''}`,
    load: `1-min load average ${loadStart.toFixed(2)} at start, ${loadavg()[0]!.toFixed(2)} at end`,
    date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
    machine: `${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB`,
    versions: `Node ${process.version}, GDAL ${gdalVersion}, geoblaze 2.8.0`,
    modes: `modes ${MODES.join(', ')}; sides ${SIDES.join(', ')}`,
    minutes: ((performance.now() - started) / 60000).toFixed(1),
  };
  const L: string[] = [];
  L.push(`Run ${meta.date} on ${meta.machine} (${meta.load}); ${meta.versions}; ${meta.code}; ${meta.modes}; ${meta.minutes} min.`, '');
  for (const { grid, prep } of grids) {
    const ovr = prep.overviews.length ? `overviews ${prep.overviews.map((o) => o.join('×')).join(', ')}` : 'no overviews';
    L.push(`- ${grid.label}: ${grid.describe}; ${(statSync(cogPath(grid)).size / MiB).toFixed(1)} MiB, ${ovr}.`);
  }
  L.push('');
  if (grids.some((g) => Object.keys(g.newplace).length > 0)) L.push(reportNewPlace(grids.map((g) => ({ grid: g.grid, shapes: g.newplace }))));
  for (const g of grids) {
    if (Object.keys(g.aois).length === 0) continue;
    L.push(`## ${g.grid.label}: cold (caches off) and warm (the same AOI again)`, '', report(g.aois, g.prep));
  }
  const md = L.join('\n');
  const json = grids.map((g) => ({ grid: g.grid, aois: g.aois, newplace: g.newplace }));
  writeFileSync(join(OUT_DIR, 'raster-results.json'), JSON.stringify({ meta, results: json }, null, 1));
  writeFileSync(join(OUT_DIR, 'raster-results.md'), md);
  console.log(`\n${md}`);
  console.log(`(total ${((performance.now() - started) / 1000).toFixed(0)} s; bench/out/raster-results.{md,json})`);
}

await main();
