/**
 * Zones × time benchmark (issues 11 and 21): 100 field-sized zones × 24 monthly Items of a 10980 × 10980
 * tile laid out like the public Sentinel-2 L2A COGs (bench/lib/s2_data.py: 1024 px tiles, DEFLATE +
 * predictor 2, ~2.2:1), NDVI from two 10 m assets with the 20 m scene classification as mask, over loopback
 * with 20 ms latency, with its anchors in the same run:
 *   A. the service: one POST /raster/stac/search for all zones and Items (NDJSON), its worker utilisation
 *      (the /metrics gauge and /proc CPU times) and the bytes it read;
 *      and, as a second row, the same request on the old, easy data (bench/stac/make-data.py);
 *   G. the GDAL anchor (bench/stac/gdal_stac.py): the same work on local files, one core;
 *   V. the same GDAL anchor through /vsicurl/ from the range server (20 ms per request);
 *   B. one single-zone request per zone and Item (2,400), 4 in flight;
 * checks that every row of A equals G's (count, nodata, masked exactly; mean, min, max within 1e-9
 * relative), V's, and B's answer (JSON equality), and reports the ratios A / G, B / A, A / V.
 *
 * The 24 Items point at the same three files under 24 different URLs (bench/data/stac_items/i<k> are links
 * to bench/data), so no cache can take one Item's bytes for another's; B's Items use other links
 * (stac_items/b<k>), so B finds nothing A left in the service's caches. Run: bash bench/stac/run.sh.
 * Environment: BENCH_LATENCY_MS (20: each upstream request, files and STAC API alike), BENCH_INFLIGHT (4:
 * B's requests in flight; a list such as 1,4 runs B once per entry), BENCH_SINGLE (1: run B), BENCH_OLD (1:
 * A on the old data too), BENCH_GDAL (1: run G), BENCH_VSICURL (1: run V). BENCH_PROFILE=<dir>: only A,
 * with V8's CPU profiler in every thread of the service (node --cpu-prof into <dir>), then each thread's
 * time by phase (bench/lib/cpuprofile.ts) per decoded plane; BENCH_SERVICE_ROOT: the checkout whose service
 * runs (a worktree of an earlier commit, for the before/after profile), BENCH_PLANES: the planes A decodes
 * when that service does not count them.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpus, loadavg, totalmem } from 'node:os';
import { startStacApi, type Item, type StacApi } from '../../test/helpers/stac-api.ts';
import { runJson, startChild, startService } from '../lib/child.ts';
import { summarise } from '../lib/cpuprofile.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const DATA = join(ROOT, 'bench', 'data');
const OUT = join(ROOT, 'bench', 'out');
const env = process.env;
const LATENCY = Number(env['BENCH_LATENCY_MS'] ?? 20);
const INFLIGHT = (env['BENCH_INFLIGHT'] ?? '4').split(',').map(Number);
const RUN_SINGLE = (env['BENCH_SINGLE'] ?? '1') !== '0';
const RUN_OLD = (env['BENCH_OLD'] ?? '1') !== '0';
const RUN_GDAL = (env['BENCH_GDAL'] ?? '1') !== '0';
const RUN_VSICURL = (env['BENCH_VSICURL'] ?? '1') !== '0';
const PROFILE = env['BENCH_PROFILE'];
const ITEMS = 24;
const CORES = 2; // the service's workers (ZONAL_WORKERS) and the machine's cores
const COG = 'image/tiff; application=geotiff; profile=cloud-optimized';
const EXPRESSION = '(nir - red) / (nir + red)';
const EXCLUDE = [3, 8, 9, 10];
const STATS = ['count', 'nodata', 'mean', 'min', 'max'];
const PY = '/usr/bin/python3';
/** The worker pool's library version (its utilisation gauge has a units bug in 5.x, see A). */

const f1 = (x: number) => x.toFixed(1);
const f2 = (x: number) => x.toFixed(2);
const pct = (x: number) => `${(100 * x).toFixed(0)} %`;
const mib = (b: number) => (b / 2 ** 20).toFixed(1);

interface Zones {
  features: { geometry: unknown; id: string }[];
}
interface TileTable {
  tiles: number;
  bytes: number;
  tile_grid: [number, number];
  all_tiles_bytes: number;
}
type Tiles = Record<'B04' | 'B08' | 'SCL', TileTable> & { zones_pixels: number };
/** A row of the service's NDJSON answer. */
interface Row {
  index: number;
  item_id: string;
  statistics?: { expression?: Record<string, number | null> };
  error?: unknown;
}
/** A row of gdal_stac.py: zone, Item index, count, nodata, masked, mean, min, max. */
type GdalRow = [number, number, number, number, number, number | null, number | null, number | null];
interface GdalResult {
  seconds: number;
  phases: Record<string, number>;
  rows: GdalRow[];
}
type Logged = [string, string, number, number, number, number];

/** The range server's log as reads: tile bytes, header bytes (reads from offset 0) and their counts. */
function readsOf(log: Logged[], skip?: RegExp) {
  const reads = log.filter((e) => e[0] === 'GET' && !(skip && skip.test(e[1])));
  const headers = reads.filter((e) => e[2] === 0);
  const tiles = reads.filter((e) => e[2] !== 0);
  return {
    requests: log.filter((e) => !(skip && skip.test(e[1]))).length,
    headerReads: headers.length,
    headerBytes: headers.reduce((n, e) => n + e[5], 0),
    tileReads: tiles.length,
    tileBytes: tiles.reduce((n, e) => n + e[5], 0),
  };
}

/** CPU seconds (user + system) of a process and of its main thread, from /proc. */
const TICK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();
function cpuOf(pid: number): { process: number; main: number; threads: number } {
  const secs = (path: string) => {
    const rest = readFileSync(path, 'utf8').split(') ').pop()?.split(' ') ?? [];
    return (Number(rest[11]) + Number(rest[12])) / TICK; // fields 14 (utime) and 15 (stime)
  };
  return { process: secs(`/proc/${pid}/stat`), main: secs(`/proc/${pid}/task/${pid}/stat`), threads: readdirSync(`/proc/${pid}/task`).length };
}

/** Relative equality for the GDAL comparison (both null, or within `tol` of the larger magnitude). */
function close(a: number | null | undefined, b: number | null | undefined, tol = 1e-9): boolean {
  if (a === null || a === undefined || b === null || b === undefined) return (a ?? null) === (b ?? null);
  return a === b || Math.abs(a - b) <= tol * Math.max(Math.abs(a), Math.abs(b));
}

/** The rows of A that differ from GDAL's (count, nodata, masked exactly; mean, min, max within 1e-9). */
function compareWithGdal(rows: Row[], gdal: GdalResult, items: Item[]): string[] {
  const byKey = new Map(rows.map((r) => [`${r.index}:${r.item_id}`, r]));
  const out: string[] = [];
  for (const g of gdal.rows) {
    const [zone, k, count, nodata, masked, mean, min, max] = g;
    const key = `${zone}:${items[k]?.id}`;
    const s = byKey.get(key)?.statistics?.expression;
    byKey.delete(key);
    const ok =
      s !== undefined &&
      s['count'] === count &&
      s['nodata'] === nodata &&
      s['masked'] === masked &&
      close(s['mean'], mean) &&
      close(s['min'], min) &&
      close(s['max'], max);
    if (!ok) out.push(`zone ${zone} Item ${k}: service ${JSON.stringify(s ?? null)} vs GDAL ${JSON.stringify({ count, nodata, masked, mean, min, max })}`);
  }
  for (const key of byKey.keys()) out.push(`${key}: a row of the service that GDAL has not`);
  return out;
}

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  mkdirSync(join(DATA, 'stac_items'), { recursive: true });
  for (let k = 0; k <= ITEMS; k++) {
    for (const dir of [`i${k}`, `b${k}`]) if (!existsSync(join(DATA, 'stac_items', dir))) symlinkSync('..', join(DATA, 'stac_items', dir));
  }
  const json = <T>(name: string) => JSON.parse(readFileSync(join(DATA, name), 'utf8')) as T;
  const zones = json<Zones>('s2_zones_100.geojson');
  const tiles = json<Tiles>('s2_tiles.json');
  const oldZones = RUN_OLD ? json<Zones>('stac_zones_100.geojson') : null;
  const oldTiles = RUN_OLD ? json<Tiles>('stac_tiles.json') : null;
  const loadStart = loadavg()[0]!;
  const started = Date.now();
  const t0 = performance.now();

  const files = await startChild(['--import', 'tsx', 'bench/raster/server.ts', DATA]);
  const fileOrigin = `http://127.0.0.1:${files.info['port']}`;
  /** The 24 monthly Items whose assets are the files `<prefix>B04.tif` … under stac_items/<dir><k>. */
  const itemsOf = (prefix: string, dir: string): Item[] =>
    Array.from({ length: ITEMS }, (_, k) => {
      const month = String((k % 12) + 1).padStart(2, '0');
      const datetime = `${2023 + Math.floor(k / 12)}-${month}-15T10:00:00Z`;
      const band = (file: string, extra: Record<string, unknown>) => ({
        href: `${fileOrigin}/d${LATENCY}/stac_items/${dir}${k}/${prefix}${file}`,
        type: COG,
        roles: ['data'],
        'raster:bands': [extra],
      });
      return {
        type: 'Feature',
        stac_version: '1.0.0',
        id: `S2B_33TWN_${datetime.slice(0, 10).replace(/-/g, '')}_0_L2A`,
        collection: 'sentinel-2-l2a',
        // The tile's footprint in lon/lat (its UTM corners through pyproj).
        bbox: [13.685439, 45.958258, 15.128267, 46.953638],
        geometry: null,
        properties: { datetime, 'proj:epsg': 32633 },
        links: [],
        assets: {
          red: band('B04.tif', { nodata: 0, data_type: 'uint16', scale: 0.0001, offset: -0.1 }),
          nir: band('B08.tif', { nodata: 0, data_type: 'uint16', scale: 0.0001, offset: -0.1 }),
          scl: band('SCL.tif', { data_type: 'uint8' }),
        },
      };
    });
  const items = itemsOf('s2_', 'i');
  const apis: StacApi[] = [];
  const apiOf = async (its: Item[]) => {
    const api = await startStacApi(its, { latencyMs: LATENCY });
    apis.push(api);
    return api;
  };
  const api = await apiOf(items);
  const apiB = await apiOf(itemsOf('s2_', 'b'));
  const apiOld = RUN_OLD ? await apiOf(itemsOf('stac_', 'i')) : null;
  const service = await startService(
    { ZONAL_WORKERS: String(CORES), ZONAL_DATA_ROOTS: realpathSync(DATA), ZONAL_ALLOW_PRIVATE_NETWORKS: '127.0.0.1/32', LOG_LEVEL: 'warn' },
    {
      ...(env['BENCH_SERVICE_ROOT'] ? { root: env['BENCH_SERVICE_ROOT'] } : {}),
      ...(PROFILE ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${PROFILE}`] } : {}),
    },
  );
  const origin = `http://127.0.0.1:${service.port}`;
  const base = `${origin}/api/v1/zonal-stats/raster/stac/search`;
  const post = async (body: unknown): Promise<{ ms: number; text: string; status: number }> => {
    const t = performance.now();
    const res = await fetch(base, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/x-ndjson' },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    return { ms: performance.now() - t, text, status: res.status };
  };
  const serverLog = async (reset: boolean): Promise<Logged[]> => {
    const r = await fetch(`${fileOrigin}/__log${reset ? '?reset=1' : ''}`);
    return (await r.json()) as Logged[];
  };
  /** One gauge or counter of the service's /metrics (the sum of its series), with the time it was read. */
  const metrics = async (): Promise<{ t: number; get: (name: string) => number }> => {
    const t0 = performance.now();
    const text = await (await fetch(`${origin}/metrics`)).text();
    const t = (t0 + performance.now()) / 2;
    return {
      t,
      get: (name) =>
        text
          .split('\n')
          .filter((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`))
          .reduce((n, l) => n + Number(l.slice(l.lastIndexOf(' ') + 1)), 0),
    };
  };
  const common = { expression: EXPRESSION, mask: { asset: 'scl', exclude: EXCLUDE }, stats: STATS };
  const fc = (z: Zones) => ({
    type: 'FeatureCollection',
    features: z.features.map((f) => ({ type: 'Feature', id: f.id, properties: {}, geometry: f.geometry })),
  });
  const holdingOf = (t: Tiles) => ITEMS * (t.B04.bytes + t.B08.bytes + t.SCL.bytes);
  const report: string[] = [];
  const say = (s: string) => {
    console.log(s);
    report.push(s);
  };
  /** Wall time and 1-min load average at the start of each part (the report says how long each took). */
  const parts: { label: string; t: number; load: number }[] = [];
  const part = (label: string, line: string) => {
    parts.push({ label, t: performance.now(), load: loadavg()[0]! });
    say(`${line} (1-min load average ${f2(loadavg()[0]!)})`);
  };
  const rowsOf = (text: string) =>
    text
      .trim()
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Row);
  try {
    say(`1-min load average at the start: ${f2(loadStart)}`);
    // Warm-up (JIT, both workers) on a URL no Item uses (stac_items/i24), so no run below finds its bytes cached.
    for (const f of zones.features.slice(0, 4)) {
      await fetch(base.replace('/stac/search', ''), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${fileOrigin}/d${LATENCY}/stac_items/i${ITEMS}/s2_B04.tif`, aoi: f.geometry, expression: 'b1 * 2', stats: STATS }),
      });
    }
    await serverLog(true);

    // ---- A: one request, with the workers' utilisation around it.
    part('A', `A. one request: ${zones.features.length} zones × ${ITEMS} Items (Sentinel-2 layout) …`);
    // Piscina's utilisation is cumulative since the pool started: busy(t) = U(t) × workers × (t − start).
    // Two scrapes while the pool is idle (busy constant) give its start; one after A gives A's busy time.
    const m0 = await metrics();
    await new Promise((r) => setTimeout(r, 1000));
    const m1 = await metrics();
    const cpu1 = cpuOf(service.pid);
    const a = await post({ ...common, stac: { url: api.url('/') }, aoi: fc(zones) });
    const cpu2 = cpuOf(service.pid);
    const m2 = await metrics();
    const aLog = readsOf(await serverLog(true));
    const aRows = rowsOf(a.text);
    const U = 'zonal_worker_utilization';
    const u0 = m0.get(U);
    const u1 = m1.get(U);
    const u2 = m2.get(U);
    const poolStart = u0 !== u1 ? (u0 * m0.t - u1 * m1.t) / (u0 - u1) : Number.NaN;
    const busyMs = (u2 * (m2.t - poolStart) - u1 * (m1.t - poolStart)) * CORES;
    const util = {
      gauge: [u1, u2],
      busyS: busyMs / 1000,
      share: busyMs / (CORES * a.ms),
      processS: cpu2.process - cpu1.process,
      mainS: cpu2.main - cpu1.main,
      threads: cpu2.threads,
      planes: m2.get('zonal_fold_planes_total') - m1.get('zonal_fold_planes_total'),
    };
    const holding = holdingOf(tiles);
    const aErrors = aRows.filter((r) => r.error).length;
    say(
      `  ${a.status}, ${f2(a.ms / 1000)} s, ${aRows.length} rows (${aErrors} with an error), ${aLog.requests} requests, ${mib(aLog.tileBytes)} MiB of tiles + ${mib(aLog.headerBytes)} MiB of headers; the tiles holding zone pixels: ${mib(holding)} MiB (${ITEMS} × (${tiles.B04.tiles} + ${tiles.B08.tiles} + ${tiles.SCL.tiles} tiles))`,
    );
    say(
      `  workers busy ${f1(util.busyS)} s = ${pct(util.share)} of ${CORES} × A's wall time (gauge ${util.gauge.map((u) => u.toFixed(4)).join(' → ')}, cumulative since start); process CPU ${f1(util.processS)} s = ${pct(util.processS / (CORES * (a.ms / 1000)))} of ${CORES} cores × wall; main thread ${f1(util.mainS)} s = ${pct(util.mainS / (a.ms / 1000))} of wall${util.planes ? `; ${util.planes} planes decoded` : ''}`,
    );

    if (PROFILE) {
      // The profiles are written when the service exits: each thread's time by phase, per decoded plane.
      await service.stop();
      const planes = util.planes || Number(env['BENCH_PLANES'] ?? Number.NaN);
      const threads = summarise(PROFILE);
      const phases = [...new Set(threads.flatMap((t) => [...t.phases.keys()]))].sort(
        (x, y) => threads.reduce((n, t) => n + (t.phases.get(y) ?? 0), 0) - threads.reduce((n, t) => n + (t.phases.get(x) ?? 0), 0),
      );
      say(`\nCPU profile of the service (${PROFILE}; whole process life: start-up, warm-up, A), ms per decoded plane (${planes} planes):`);
      say(`| phase | ${threads.map((_, i) => (i === 0 ? 'main thread' : `thread ${i}`)).join(' | ')} | all threads |`);
      say(`|---|${threads.map(() => '---:|').join('')}---:|`);
      for (const ph of phases) {
        const ms = threads.map((t) => t.phases.get(ph) ?? 0);
        say(`| ${ph} | ${ms.map((m) => f2(m / planes)).join(' | ')} | ${f2(ms.reduce((x, y) => x + y, 0) / planes)} |`);
      }
      say(`| sampled (s) | ${threads.map((t) => f1(t.totalMs / 1000)).join(' | ')} | |`);
      return;
    }

    // ---- A on the old data (smooth values, 512 px tiles, 1 km squares).
    let old: { ms: number; status: number; rows: number; errors: number; reads: ReturnType<typeof readsOf> } | null = null;
    if (apiOld && oldZones && oldTiles) {
      part('A old', `A (old data). one request: ${oldZones.features.length} zones × ${ITEMS} Items (512 px tiles, smooth values) …`);
      const o = await post({ ...common, stac: { url: apiOld.url('/') }, aoi: fc(oldZones) });
      const oRows = rowsOf(o.text);
      old = { ms: o.ms, status: o.status, rows: oRows.length, errors: oRows.filter((r) => r.error).length, reads: readsOf(await serverLog(true)) };
      say(
        `  ${o.status}, ${f2(o.ms / 1000)} s, ${old.rows} rows (${old.errors} with an error), ${mib(old.reads.tileBytes)} MiB of tiles; holding zone pixels ${mib(holdingOf(oldTiles))} MiB`,
      );
    }

    // ---- G: GDAL on local files, one core.
    let g: GdalResult | null = null;
    let gDiff: string[] = [];
    if (RUN_GDAL) {
      part('G', 'G. GDAL anchor, local files, one core …');
      g = (await runJson(PY, ['bench/stac/gdal_stac.py', '--items', String(ITEMS)])) as unknown as GdalResult;
      gDiff = compareWithGdal(aRows, g, items);
      say(
        `  ${f2(g.seconds)} s (${Object.entries(g.phases)
          .map(([k, v]) => `${k} ${f2(v)}`)
          .join(', ')}); rows of A that differ: ${gDiff.length} of ${aRows.length}`,
      );
      for (const d of gDiff.slice(0, 10)) say(`    ${d}`);
    }

    // ---- V: GDAL through /vsicurl/, 20 ms per request.
    let v: GdalResult | null = null;
    let vDiff: string[] = [];
    let vLog: ReturnType<typeof readsOf> | null = null;
    if (RUN_VSICURL) {
      part('V', `V. GDAL anchor through /vsicurl/, ${LATENCY} ms per request, one core …`);
      await serverLog(true);
      v = (await runJson(PY, ['bench/stac/gdal_stac.py', '--items', String(ITEMS), '--vsicurl', `${fileOrigin}/d${LATENCY}`])) as unknown as GdalResult;
      vLog = readsOf(await serverLog(true), new RegExp(`/stac_items/i${ITEMS}/`)); // without its warm-up
      vDiff = compareWithGdal(aRows, v, items);
      say(
        `  ${f2(v.seconds)} s, ${vLog.requests} requests, ${mib(vLog.tileBytes)} MiB of tiles + ${mib(vLog.headerBytes)} MiB of headers; rows of A that differ: ${vDiff.length}`,
      );
      for (const d of vDiff.slice(0, 10)) say(`    ${d}`);
    }

    // ---- B: one request per zone and Item.
    const bs: { inflight: number; ms: number; mismatches: number; errors: number }[] = [];
    for (const inflight of RUN_SINGLE ? INFLIGHT : []) {
      part(`B ${inflight}`, `B. one request per zone and Item (${zones.features.length * ITEMS}), ${inflight} in flight …`);
      const itemsB = itemsOf('s2_', 'b');
      const jobs = zones.features.flatMap((f, z) =>
        itemsB.map((it) => ({ z, id: it.id, body: { ...common, stac: { url: apiB.url('/search'), datetime: it.properties.datetime }, aoi: f.geometry } })),
      );
      const answers = new Map<string, unknown>();
      let next = 0;
      let errors = 0;
      const t = performance.now();
      await Promise.all(
        Array.from({ length: inflight }, async () => {
          while (next < jobs.length) {
            const j = jobs[next++]!;
            const r = await post(j.body);
            const row = JSON.parse(r.text.trim().split('\n')[0] ?? '{}') as { statistics?: unknown; error?: unknown };
            if (r.status !== 200 || row.error) errors++;
            answers.set(`${j.z}:${j.id}`, row.statistics);
          }
        }),
      );
      const ms = performance.now() - t;
      await serverLog(true);
      const differ = aRows.filter((r) => JSON.stringify(r.statistics) !== JSON.stringify(answers.get(`${r.index}:${r.item_id}`)));
      bs.push({ inflight, ms, mismatches: differ.length, errors });
      say(`  ${f2(ms / 1000)} s, ${errors} errors; rows of A that differ: ${differ.length} of ${aRows.length}`);
      for (const r of differ.slice(0, 5))
        say(`    zone ${r.index} ${r.item_id}: A ${JSON.stringify(r.statistics)} vs B ${JSON.stringify(answers.get(`${r.index}:${r.item_id}`))}`);
    }

    // ---- The report.
    part('end', 'done');
    const took = parts.slice(0, -1).map((p, i) => `${p.label} ${f1(((parts[i + 1] as (typeof parts)[number]).t - p.t) / 1000)} s (load ${f2(p.load)})`);
    const loadEnd = loadavg()[0]!;
    const aS = a.ms / 1000;
    const raw = 10980 * 10980 * 2;
    const rowsLine = (label: string, requests: string, s: number, ratio: string) => `| ${label} | ${requests} | ${f2(s)} | ${ratio} |`;
    const lines = [
      `Run ${new Date(started).toISOString().slice(0, 16).replace('T', ' ')} UTC (${f1((Date.now() - started) / 60_000)} min) on ${cpus().length} × ${cpus()[0]?.model.split(' ').slice(0, 2).join(' ')}, ${Math.round(totalmem() / 2 ** 30)} GiB; Node ${process.version}; 1-min load average ${f2(loadStart)} at the start, ${f2(loadEnd)} at the end; latency ${LATENCY} ms per request.`,
      '',
      `Data (bench/lib/s2_data.py): B04 ${f2(raw / tiles.B04.all_tiles_bytes)}:1, B08 ${f2(raw / tiles.B08.all_tiles_bytes)}:1 (DEFLATE + predictor 2, 1024 px tiles); the tiles holding zone pixels: ${tiles.B04.tiles} of ${tiles.B04.tile_grid[0] * tiles.B04.tile_grid[1]} per 10 m band, ${tiles.SCL.tiles} of ${tiles.SCL.tile_grid[0] * tiles.SCL.tile_grid[1]} SCL, ${mib(holding)} MiB over ${ITEMS} Items; ${tiles.zones_pixels.toLocaleString('en')} zone pixels.`,
      '',
      '| how | requests | seconds | ratio |',
      '|---|---|---|---|',
      rowsLine(`A. the service, one request, ${zones.features.length} zones × ${ITEMS} Items`, '1', aS, '1.00×'),
      ...(g ? [rowsLine('G. GDAL, local files, one core', '—', g.seconds, `A / G = ${f2(aS / g.seconds)}×`)] : []),
      ...(v && vLog
        ? [rowsLine(`V. GDAL through /vsicurl/, ${LATENCY} ms, one core`, String(vLog.requests), v.seconds, `A / V = ${f2(aS / v.seconds)}×`)]
        : []),
      ...bs.map((b) =>
        rowsLine(
          `B. one request per zone and Item, ${b.inflight === 1 ? 'sequential' : `${b.inflight} in flight`}`,
          String(zones.features.length * ITEMS),
          b.ms / 1000,
          `B / A = ${f1(b.ms / a.ms)}×`,
        ),
      ),
      ...(old && oldZones ? [rowsLine(`A on the old data (512 px tiles, smooth, ${oldZones.features.length} 1 km squares)`, '1', old.ms / 1000, '—')] : []),
      '',
      `Bytes read by A: ${mib(aLog.tileBytes)} MiB of tiles in ${aLog.tileReads} requests, plus ${mib(aLog.headerBytes)} MiB of headers (${aLog.headerReads} header reads: 3 files × ${ITEMS} URLs); the tiles that hold zone pixels (GDAL's tile index, s2_tiles.json): ${mib(holding)} MiB, so A read ${f2(aLog.tileBytes / holding)}× those bytes.` +
        (vLog
          ? ` V (GDAL /vsicurl/): ${mib(vLog.tileBytes)} MiB of tiles in ${vLog.tileReads} requests + ${mib(vLog.headerBytes)} MiB in ${vLog.headerReads} header reads (${f2(vLog.tileBytes / holding)}×).`
          : '') +
        (old && oldTiles
          ? ` A on the old data: ${mib(old.reads.tileBytes)} MiB of tiles (${f2(old.reads.tileBytes / holdingOf(oldTiles))}× its ${mib(holdingOf(oldTiles))} MiB).`
          : ''),
      '',
      `Worker utilisation during A (${f2(aS)} s): the workers were busy ${f1(util.busyS)} s, ${pct(util.share)} of ${CORES} workers × A's wall time (from \`zonal_worker_utilization\`, ${util.gauge.map((u) => u.toFixed(4)).join(' before, ')} after: the pool's share since it started). CPU time from /proc: the process ${f1(util.processS)} s (${pct(util.processS / (CORES * aS))} of ${CORES} cores × wall), its main thread ${f1(util.mainS)} s (${pct(util.mainS / aS)} of wall), the other ${util.threads - 1} threads (workers, libuv, V8) ${f1(util.processS - util.mainS)} s.`,
      '',
      `How long each part took, with the 1-min load average at its start (G and V include Python's start-up and a warm-up zone; A includes 1 s between two idle /metrics scrapes): start-up and warm-up ${f1((parts[0]!.t - t0) / 1000)} s, ${took.join(', ')}.`,
      '',
      '| target | measured | verdict |',
      '|---|---|---|',
      ...(g ? [`| A ≤ 0.75 × G (GDAL, local, one core) | ${f2(aS / g.seconds)}× | ${aS <= 0.75 * g.seconds ? 'PASS' : '**FAIL**'} |`] : []),
      ...bs.map((b) => `| B (${b.inflight} in flight) ≥ 2 × A | ${f1(b.ms / a.ms)}× | ${b.ms >= 2 * a.ms ? 'PASS' : '**FAIL**'} |`),
      `| A answered every row | ${aRows.length} rows, ${aErrors} errors, status ${a.status} | ${a.status === 200 && aErrors === 0 && aRows.length === zones.features.length * ITEMS ? 'PASS' : '**FAIL**'} |`,
      ...(g ? [`| every row of A equal to GDAL's | ${gDiff.length} differ | ${gDiff.length === 0 ? 'PASS' : '**FAIL**'} |`] : []),
      ...(v ? [`| every row of A equal to GDAL /vsicurl/'s | ${vDiff.length} differ | ${vDiff.length === 0 ? 'PASS' : '**FAIL**'} |`] : []),
      ...bs.map(
        (b) =>
          `| every row of A equal to its single request (${b.inflight} in flight) | ${b.mismatches} differ, ${b.errors} errors | ${b.mismatches === 0 && b.errors === 0 ? 'PASS' : '**FAIL**'} |`,
      ),
    ];
    writeFileSync(join(OUT, 'stac-results.md'), `${lines.join('\n')}\n`);
    console.log(`\n${lines.join('\n')}\n\n(bench/out/stac-results.md)`);
  } finally {
    for (const x of apis) await x.close();
    await service.stop();
    await files.stop();
    // The service's log (warn and above), kept out of the report while it ran.
    if (service.stderr.length > 0) console.error(`service log (last lines):\n${service.stderr.slice(-20).join('\n')}`);
  }
}

await main();
