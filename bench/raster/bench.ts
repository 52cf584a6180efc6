/**
 * Raster zonal-statistics benchmark driver (issue 2). Run through `bash bench/raster/run.sh`, which makes
 * the data and installs the bench-only dependencies first. See bench/raster/README.md.
 *
 * Everything runs on this machine over loopback, each side in its own process:
 * - the range server (server.ts) serving bench/data with 0 or 20 ms added per request (`/d0/`, `/d20/`);
 * - the service (bench/lib/service.ts: buildApp from src/app.ts, 2 workers), one process per AOI and cache mode,
 *   queried over HTTP with fetch as a client would; its peak RSS is VmHWM of that process;
 * - the GDAL floor (gdal_floor.py) over /vsicurl/ of the same server and on the local file;
 * - geoblaze (geoblaze-run.mjs) over the same URLs.
 *
 * Writes bench/out/raster-results.json and bench/out/raster-results.md (the tables of the README).
 * Environment: BENCH_RUNS_SMALL (20), BENCH_RUNS_BIG (5), BENCH_RUNS_GEOBLAZE_SMALL (10),
 * BENCH_RUNS_GEOBLAZE_BIG (1), BENCH_ONLY (comma-separated AOI names: poly40, circle1k, poly6000),
 * BENCH_SIDES (default service,gdal,geoblaze).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, realpathSync, writeFileSync, mkdirSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { benchAois, type BenchAoi } from './aois.ts';
import { memOf, ROOT, runJson, startChild, type Child } from '../lib/child.ts';

const DATA_DIR = join(ROOT, 'bench', 'data');
const OUT_DIR = join(ROOT, 'bench', 'out');
const COG_NAME = 'dem_10k.cog.tif';
const COG_PATH = join(DATA_DIR, COG_NAME);
const STATS = ['count', 'min', 'max', 'mean', 'std'];
const LATENCIES = [0, 20] as const;
const CACHE_ON = 64 * 1024 * 1024;

const env = (name: string, dflt: number): number => Number(process.env[name] ?? dflt);
const RUNS_SMALL = env('BENCH_RUNS_SMALL', 20);
const RUNS_BIG = env('BENCH_RUNS_BIG', 5);
const RUNS_GB_SMALL = env('BENCH_RUNS_GEOBLAZE_SMALL', 10);
const RUNS_GB_BIG = env('BENCH_RUNS_GEOBLAZE_BIG', 1);
const ONLY = process.env['BENCH_ONLY']?.split(',').filter((s) => s !== '');
const PY = process.env['BENCH_PYTHON'] ?? 'python3';
const SIDES = (process.env['BENCH_SIDES'] ?? 'service,gdal,geoblaze').split(',');

// ------------------------------------------------------------------------------------------------
// processes


// ------------------------------------------------------------------------------------------------
// range server log

type Logged = [method: string, path: string, start: number, end: number, status: number, bytes: number];

let serverOrigin = '';
async function serverLog(): Promise<Logged[]> {
  const r = await fetch(`${serverOrigin}/__log?reset=1`);
  return (await r.json()) as Logged[];
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
  for (const [, , start, end, , bytes] of log) {
    t.bytes += bytes;
    if (bytes === 0) continue;
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

const httpUrl = (ms: number) => `${serverOrigin}/d${ms}/${COG_NAME}`;

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
}

async function benchService(name: string, aoi: BenchAoi, runs: number, prep: Prep, result: AoiResult): Promise<void> {
  // file:// reads the real path (the service refuses a symlink leading out of its data roots).
  const realCog = realpathSync(COG_PATH);
  const base = { ZONAL_WORKERS: '2', ZONAL_ALLOW_PRIVATE_NETWORKS: '127.0.0.1/32', ZONAL_DATA_ROOTS: dirname(realCog), LOG_LEVEL: 'warn' };
  // Cold: every cache off (bytes, decoded tiles, the trusted size and ETag), so every query reads the header
  // and the tiles from the range server and decodes them.
  {
    const svc = await startChild(['--import', 'tsx', 'bench/lib/service.ts'], { ...base, ZONAL_CACHE_BYTES: '0', ZONAL_TILE_CACHE_BYTES: '0', ZONAL_REVALIDATE_SECONDS: '0' });
    const { port, pid } = svc.info as { port: number; pid: number };
    const baselineMiB = memOf(pid).rssMiB;
    const t = performance.now();
    await query(port, httpUrl(0), aoi);
    const firstRequestMs = performance.now() - t;
    await query(port, httpUrl(0), aoi); // second warm-up: JIT, second worker thread
    for (const ms of LATENCIES) {
      result.service[`cold_d${ms}`] = await serviceSeries(port, httpUrl(ms), aoi, name, runs, prep);
      log(`  ours cold ${ms} ms`, result.service[`cold_d${ms}`]!);
    }
    result.service['file'] = await serviceSeries(port, `file://${realCog}`, aoi, name, runs, prep);
    log('  ours file://', result.service['file']!);
    result.serviceMem['cold'] = { baselineMiB, peakMiB: memOf(pid).peakMiB, firstRequestMs };
    await svc.stop();
    noteWarnings(svc, result);
  }
  // Warm: the default caches (64 MiB of bytes, the decoded-tile cache, sizes and ETags trusted for 30 s), one
  // priming query per URL, then N queries.
  {
    const svc = await startChild(['--import', 'tsx', 'bench/lib/service.ts'], { ...base, ZONAL_CACHE_BYTES: String(CACHE_ON) });
    const { port, pid } = svc.info as { port: number; pid: number };
    const baselineMiB = memOf(pid).rssMiB;
    const t = performance.now();
    await query(port, httpUrl(0), aoi);
    const firstRequestMs = performance.now() - t;
    for (const ms of LATENCIES) {
      await query(port, httpUrl(ms), aoi);
      result.service[`warm_d${ms}`] = await serviceSeries(port, httpUrl(ms), aoi, name, runs, prep);
      log(`  ours warm ${ms} ms`, result.service[`warm_d${ms}`]!);
    }
    result.serviceMem['warm'] = { baselineMiB, peakMiB: memOf(pid).peakMiB, firstRequestMs };
    await svc.stop();
    noteWarnings(svc, result);
  }
}

function noteWarnings(svc: Child, result: AoiResult): void {
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

async function benchGdal(name: string, runs: number, result: AoiResult): Promise<void> {
  const aoisFile = join(OUT_DIR, 'aois.json');
  const script = 'bench/raster/gdal_floor.py';
  const common = ['run', '--aois', aoisFile, '--name', name, '--runs', String(runs)];
  const local = await runJson(PY, [script, ...common, '--src', COG_PATH]);
  gdalVersion = String(local['gdal']);
  result.gdal['file'] = fromRunner(local);
  log('  GDAL local file', result.gdal['file']!);
  for (const ms of LATENCIES) {
    const r = await runJson(PY, [script, ...common, '--src', `/vsicurl/${httpUrl(ms)}`, '--log', `${serverOrigin}/__log`]);
    result.gdal[`cold_d${ms}`] = fromRunner(r);
    log(`  GDAL /vsicurl/ ${ms} ms`, result.gdal[`cold_d${ms}`]!);
    // Warm: /vsicurl/'s caches kept between runs (a long-running GDAL process that trusts its cached header).
    const w = await runJson(PY, [script, ...common, '--warm', '--src', `/vsicurl/${httpUrl(ms)}`, '--log', `${serverOrigin}/__log`]);
    result.gdal[`warm_d${ms}`] = fromRunner(w);
    log(`  GDAL /vsicurl/ warm ${ms} ms`, result.gdal[`warm_d${ms}`]!);
  }
}

async function benchGeoblaze(aoi: BenchAoi, runs: number, big: boolean, result: AoiResult): Promise<void> {
  const run = async (ms: number, cold: boolean) =>
    fromRunner(
      await runJson(process.execPath, [
        'bench/raster/geoblaze-run.mjs',
        JSON.stringify({ url: httpUrl(ms), geometry: aoi.polygon, runs, cold, warmup: !big, log: `${serverOrigin}/__log` }),
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
  console.log(`${what.padEnd(22)} p50 ${s.p50.toFixed(1).padStart(8)} ms  p95 ${s.p95.toFixed(1).padStart(8)} ms  count ${s.stats['count']} mean ${s.stats['mean']}${traffic}`);
}

// ------------------------------------------------------------------------------------------------
// report

const MiB = 1024 * 1024;
const f1 = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? '–' : x >= 100 ? x.toFixed(0) : x.toFixed(1));
const ms = (s: Series | undefined) => (s ? `${f1(s.p50)} / ${f1(s.p95)}` : '–');
const ratio = (a: Series | undefined, b: Series | undefined) => (a && b ? `${(a.p50 / b.p50).toFixed(2)}×` : '–');
const mib = (b: number) => (b / MiB).toFixed(2);

function report(results: Record<string, AoiResult>, prep: Prep, meta: Record<string, string>): string {
  const L: string[] = [];
  L.push(`Run ${meta['date']} on ${meta['machine']} (${meta['load']}); ${meta['versions']}; ${meta['code']}.`, '');
  L.push(`Data: ${meta['data']}.`, '');
  L.push('### Latency (ms, p50 / p95) and ratios of p50', '');
  L.push('| AOI | source | runs | ours cold | ours warm | GDAL floor | ours / GDAL | geoblaze cold | geoblaze / ours |');
  L.push('|---|---|---|---|---|---|---|---|---|');
  for (const [, r] of Object.entries(results)) {
    for (const ms_ of LATENCIES) {
      const k = `cold_d${ms_}`;
      L.push(`| ${r.label} | HTTP +${ms_} ms | ${r.runs} (geoblaze ${r.geoblaze[k]?.times.length ?? 0}) | ${ms(r.service[k])} | ${ms(r.service[`warm_d${ms_}`])} | ${ms(r.gdal[k])} | ${ratio(r.service[k], r.gdal[k])} | ${ms(r.geoblaze[k])} | ${ratio(r.geoblaze[k], r.service[k])} |`);
    }
    L.push(`| ${r.label} | local file | ${r.runs} | ${ms(r.service['file'])} | | ${ms(r.gdal['file'])} | ${ratio(r.service['file'], r.gdal['file'])} | | |`);
  }
  L.push('', 'Warm against warm: ours with its caches (decoded tiles, trusted header for ZONAL_REVALIDATE_SECONDS) against GDAL with /vsicurl/\'s caches kept between queries (a long-running GDAL process):', '');
  L.push('| AOI | source | ours warm | GDAL warm | ours / GDAL | requests per query: ours warm / GDAL warm |', '|---|---|---|---|---|---|');
  for (const [, r] of Object.entries(results)) {
    for (const ms_ of LATENCIES) {
      const o = r.service[`warm_d${ms_}`];
      const g = r.gdal[`warm_d${ms_}`];
      L.push(`| ${r.label} | HTTP +${ms_} ms | ${ms(o)} | ${ms(g)} | ${ratio(o, g)} | ${o?.traffic?.requests ?? '–'} / ${g?.requests ?? '–'} |`);
    }
  }
  L.push('', 'geoblaze warm (parsed raster and geotiff.js block cache kept, +0 ms) vs ours warm (+0 ms):', '');
  L.push('| AOI | geoblaze warm | ours warm | geoblaze / ours |', '|---|---|---|---|');
  for (const r of Object.values(results)) L.push(`| ${r.label} | ${ms(r.geoblaze['warm_d0'])} | ${ms(r.service['warm_d0'])} | ${ratio(r.geoblaze['warm_d0'], r.service['warm_d0'])} |`);

  L.push('', '### Bytes fetched per query (range server log, +0 ms)', '');
  L.push('| AOI | AOI pixels | tiles holding AOI pixels: n, MiB | ours cold: requests, MiB (in holding tiles / other tiles / header) | ours warm: requests, MiB | GDAL /vsicurl/: requests, MiB | geoblaze cold: requests, MiB |');
  L.push('|---|---|---|---|---|---|---|');
  for (const [name, r] of Object.entries(results)) {
    const a = prep.aois[name]!;
    const c = r.service['cold_d0']?.traffic;
    const w = r.service['warm_d0']?.traffic;
    const g = r.gdal['cold_d0'];
    const b = r.geoblaze['cold_d0'];
    L.push(
      `| ${r.label} | ${a.pixels.toLocaleString('en')} | ${a.tiles_holding.length}, ${mib(a.tile_bytes_holding)} | ` +
        (c ? `${c.requests}, ${mib(c.bytes)} (${mib(c.holdingBytes)} / ${mib(c.otherTileBytes)} in ${c.otherTiles} tiles / ${mib(c.headerBytes)})` : '–') +
        ` | ${w ? `${w.requests}, ${mib(w.bytes)}` : '–'} | ${g?.requests ?? '–'}, ${g?.bytes !== undefined ? mib(g.bytes) : '–'} | ${b?.requests ?? '–'}, ${b?.bytes !== undefined ? mib(b.bytes) : '–'} |`,
    );
  }

  L.push('', '### Memory (peak RSS of the process, MiB)', '');
  L.push('| AOI | ours, caches off (idle after start → peak) | ours, default caches (idle → peak) | GDAL (Python) /vsicurl/ | geoblaze cold |', '|---|---|---|---|---|');
  for (const r of Object.values(results)) {
    const c = r.serviceMem['cold'];
    const w = r.serviceMem['warm'];
    L.push(`| ${r.label} | ${c ? `${f1(c.baselineMiB)} → ${f1(c.peakMiB)}` : '–'} | ${w ? `${f1(w.baselineMiB)} → ${f1(w.peakMiB)}` : '–'} | ${f1(r.gdal['cold_d0']?.peakMiB)} | ${f1(r.geoblaze['cold_d0']?.peakMiB)} |`);
  }

  L.push('', '### Agreement (count and mean; std and min/max in the JSON)', '');
  L.push('| AOI | ours count | GDAL count | geoblaze count | ours mean | GDAL mean | geoblaze mean | verdict |', '|---|---|---|---|---|---|---|---|');
  for (const r of Object.values(results)) {
    const o = r.service['cold_d0']?.stats ?? {};
    const g = r.gdal['file']?.stats ?? {};
    const b = r.geoblaze['cold_d0']?.stats ?? {};
    const rel = (x: unknown, y: unknown) => Math.abs(Number(x) - Number(y)) / Math.abs(Number(y));
    const issues: string[] = [];
    if (o['count'] !== g['count']) issues.push(`count ours−GDAL ${Number(o['count']) - Number(g['count'])}`);
    if (b['count'] !== undefined && b['count'] !== g['count']) issues.push(`count geoblaze−GDAL ${Number(b['count']) - Number(g['count'])}`);
    if (rel(o['mean'], g['mean']) > 1e-9) issues.push(`mean ours vs GDAL rel ${rel(o['mean'], g['mean']).toExponential(1)}`);
    if (b['mean'] !== undefined && rel(b['mean'], g['mean']) > 1e-9) issues.push(`mean geoblaze vs GDAL rel ${rel(b['mean'], g['mean']).toExponential(1)}`);
    L.push(`| ${r.label} | ${o['count']} | ${g['count']} | ${b['count'] ?? '–'} | ${o['mean']} | ${g['mean']} | ${b['mean'] ?? '–'} | ${issues.length ? issues.join('; ') : 'same'} |`);
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
      L.push(`| tile bytes ≤ tiles holding AOI pixels | ${r.label} | ${mib(tiles)} ≤ ${mib(a.tile_bytes_holding)} MiB (+ ${mib(c.headerBytes)} MiB header) | ${tiles <= a.tile_bytes_holding ? 'pass' : 'FAIL'} |`);
    }
  }
  for (const [name, r] of Object.entries(results)) {
    if (name === 'poly6000') continue;
    for (const k of ['cold_d0', 'cold_d20', 'file']) {
      const o = r.service[k];
      const g = r.gdal[k];
      if (o && g) L.push(`| ≤ 1.5× GDAL floor (${k === 'file' ? 'local file' : `HTTP +${k.slice(6)} ms`}) | ${r.label} | ${(o.p50 / g.p50).toFixed(2)}× | ${o.p50 <= 1.5 * g.p50 ? 'pass' : 'FAIL'} |`);
    }
    // Issue 10: a warm query against the warm GDAL floor: ≤ 1.1× (40 km²) and ≤ 1.2× (1 km circle).
    for (const k of ['warm_d0', 'warm_d20']) {
      const o = r.service[k];
      const g = r.gdal[k];
      const limit = name === 'circle1k' ? 1.2 : 1.1;
      if (o && g) L.push(`| warm ≤ ${limit}× warm GDAL (HTTP +${k.slice(6)} ms) | ${r.label} | ${(o.p50 / g.p50).toFixed(2)}× | ${o.p50 <= limit * g.p50 ? 'pass' : 'FAIL'} |`);
    }
    for (const k of ['cold_d0', 'cold_d20']) {
      const o = r.service[k];
      const b = r.geoblaze[k];
      if (o && b) L.push(`| ≥ 5× faster than geoblaze (HTTP +${k.slice(6)} ms, cold) | ${r.label} | ${(b.p50 / o.p50).toFixed(2)}× | ${b.p50 >= 5 * o.p50 ? 'pass' : 'FAIL'} |`);
    }
  }
  const big = results['poly6000'];
  if (big?.serviceMem['cold']) {
    for (const mode of ['cold', 'warm'] as const) {
      const m = big.serviceMem[mode];
      if (m) L.push(`| ≤ 500 MiB peak RSS (${mode === 'cold' ? 'caches off' : 'default caches'}) | ${big.label} | ${f1(m.peakMiB)} MiB | ${m.peakMiB <= 500 ? 'pass' : 'FAIL'} |`);
    }
  }
  return L.join('\n') + '\n';
}

// ------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  mkdirSync(OUT_DIR, { recursive: true });
  const started = performance.now();
  const loadStart = loadavg()[0]!;
  const all = benchAois();
  const names = Object.keys(all).filter((n) => ONLY === undefined || ONLY.includes(n));
  writeFileSync(join(OUT_DIR, 'aois.json'), JSON.stringify(all));
  await runJson(PY, ['bench/raster/gdal_floor.py', 'prep', '--aois', join(OUT_DIR, 'aois.json'), '--cog', COG_PATH, '--out', join(OUT_DIR, 'prep.json')]);
  const prep = JSON.parse(readFileSync(join(OUT_DIR, 'prep.json'), 'utf8')) as Prep;

  const server = await startChild(['--import', 'tsx', 'bench/raster/server.ts', DATA_DIR]);
  serverOrigin = `http://127.0.0.1:${(server.info as { port: number }).port}`;
  const results: Record<string, AoiResult> = {};
  try {
    for (const name of names) {
      const aoi = all[name]!;
      const big = name === 'poly6000';
      const runs = big ? RUNS_BIG : RUNS_SMALL;
      console.log(`${aoi.label} (${prep.aois[name]!.pixels.toLocaleString('en')} px, ${runs} runs)`);
      const r: AoiResult = { label: aoi.label, runs, pixels: prep.aois[name]!.pixels, service: {}, serviceMem: {}, serviceWarnings: {}, gdal: {}, geoblaze: {} };
      results[name] = r;
      if (SIDES.includes('service')) await benchService(name, aoi, runs, prep, r);
      if (SIDES.includes('gdal')) await benchGdal(name, runs, r);
      if (SIDES.includes('geoblaze')) await benchGeoblaze(aoi, big ? RUNS_GB_BIG : RUNS_GB_SMALL, big, r);
    }
  } finally {
    await server.stop();
  }
  const overviews = prep.overviews.map((o) => o.join('×')).join(', ');
  const git = (...args: string[]) => {
    try {
      return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
    } catch {
      return '?';
    }
  };
  const dirty = git('status', '--porcelain', '--', 'src').split('\n').filter((l) => l.trim() !== '').length;
  const meta = {
    code: `service at commit ${git('rev-parse', '--short', 'HEAD')}${dirty > 0 ? ` with ${dirty} uncommitted change(s) in src/` : ''}`,
    load: `1-min load average ${loadStart.toFixed(2)} at start, ${loadavg()[0]!.toFixed(2)} at end`,
    date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
    machine: `${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB`,
    versions: `Node ${process.version}, GDAL ${gdalVersion}, geoblaze 2.8.0`,
    data: `bench/data/${COG_NAME}, ${(prep.file_bytes / MiB).toFixed(1)} MiB, 10000×10000 Float32, 512 px tiles, DEFLATE + predictor 3, overviews ${overviews}`,
  };
  const md = report(results, prep, meta);
  writeFileSync(join(OUT_DIR, 'raster-results.json'), JSON.stringify({ meta, results }, null, 1));
  writeFileSync(join(OUT_DIR, 'raster-results.md'), md);
  console.log(`\n${md}`);
  console.log(`(total ${((performance.now() - started) / 1000).toFixed(0)} s; bench/out/raster-results.{md,json})`);
}

await main();
