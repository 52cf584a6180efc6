/**
 * Zones × time benchmark (issue 11): 100 zones × 24 monthly Items of a 10980 × 10980 Sentinel-2-like
 * tile, NDVI from two 10 m assets with the 20 m scene classification as mask, over loopback with 20 ms
 * latency, in one run:
 *   A. one POST /raster/stac/search for all zones and Items (NDJSON);
 *   B. one single-zone request per zone and Item (the same endpoint, one zone, the search narrowed to
 *      that Item's datetime), sequential and 8 in flight;
 * and checks that every row of A equals B's answer. Reports the bytes A read against the bytes of the
 * tiles that hold zone pixels (bench/stac/make-data.py, from GDAL's tile index), per Item.
 *
 * The 24 Items point at the same three files under 24 different URLs (bench/data/stac_items/i<k> are
 * links to bench/data), so no cache can take one Item's bytes for another's. Run: bash bench/stac/run.sh.
 * Environment: BENCH_LATENCY_MS (20: each upstream request, files and STAC API alike), BENCH_INFLIGHT (1,8: the
 * runs of B, by requests in flight), BENCH_SINGLE (1: run B).
 */
import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpus, loadavg, totalmem } from 'node:os';
import { startStacApi, type Item } from '../../test/helpers/stac-api.ts';
import { startChild, startService } from '../lib/child.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const DATA = join(ROOT, 'bench', 'data');
const OUT = join(ROOT, 'bench', 'out');
const LATENCY = Number(process.env['BENCH_LATENCY_MS'] ?? 20);
const INFLIGHT = (process.env['BENCH_INFLIGHT'] ?? '1,8').split(',').map(Number);
const RUN_SINGLE = (process.env['BENCH_SINGLE'] ?? '1') !== '0';
const ITEMS = 24;
const COG = 'image/tiff; application=geotiff; profile=cloud-optimized';
const EXPRESSION = '(nir - red) / (nir + red)';
const EXCLUDE = [3, 8, 9, 10];
const STATS = ['count', 'nodata', 'mean', 'min', 'max'];

const f1 = (x: number) => x.toFixed(1);
const f2 = (x: number) => x.toFixed(2);
const mib = (b: number) => (b / 2 ** 20).toFixed(1);

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  mkdirSync(join(DATA, 'stac_items'), { recursive: true });
  for (let k = 0; k <= ITEMS; k++) if (!existsSync(join(DATA, 'stac_items', `i${k}`))) symlinkSync('..', join(DATA, 'stac_items', `i${k}`));
  const zones = JSON.parse(readFileSync(join(DATA, 'stac_zones_100.geojson'), 'utf8')) as { features: { geometry: unknown; id: string }[] };
  const tiles = JSON.parse(readFileSync(join(DATA, 'stac_tiles.json'), 'utf8')) as Record<string, { tiles: number; bytes: number }>;

  const files = await startChild(['--import', 'tsx', 'bench/raster/server.ts', DATA]);
  const fileOrigin = `http://127.0.0.1:${files.info['port']}`;
  const href = (k: number, name: string) => `${fileOrigin}/d${LATENCY}/stac_items/i${k}/${name}`;
  const items: Item[] = Array.from({ length: ITEMS }, (_, k) => {
    const month = String((k % 12) + 1).padStart(2, '0');
    const datetime = `${2023 + Math.floor(k / 12)}-${month}-15T10:00:00Z`;
    const band = (file: string, extra: Record<string, unknown>) => ({ href: href(k, file), type: COG, roles: ['data'], 'raster:bands': [extra] });
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
        red: band('stac_B04.tif', { nodata: 0, data_type: 'uint16', scale: 0.0001, offset: -0.1 }),
        nir: band('stac_B08.tif', { nodata: 0, data_type: 'uint16', scale: 0.0001, offset: -0.1 }),
        scl: band('stac_SCL.tif', { data_type: 'uint8' }),
      },
    };
  });
  const api = await startStacApi(items, { latencyMs: LATENCY });
  const service = await startService({ ZONAL_WORKERS: '2', ZONAL_DATA_ROOTS: realpathSync(DATA), ZONAL_ALLOW_PRIVATE_NETWORKS: '127.0.0.1/32', LOG_LEVEL: 'warn' });
  const base = `http://127.0.0.1:${service.info['port']}/api/v1/zonal-stats/raster/stac/search`;
  const post = async (body: unknown): Promise<{ ms: number; text: string; status: number }> => {
    const t = performance.now();
    const res = await fetch(base, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/x-ndjson' }, body: JSON.stringify(body) });
    const text = await res.text();
    return { ms: performance.now() - t, text, status: res.status };
  };
  const serverLog = async (reset: boolean): Promise<[string, string, number, number, number, number][]> => {
    const r = await fetch(`${fileOrigin}/__log${reset ? '?reset=1' : ''}`);
    return (await r.json()) as [string, string, number, number, number, number][];
  };
  const common = { expression: EXPRESSION, mask: { asset: 'scl', exclude: EXCLUDE }, stats: STATS };
  const report: string[] = [];
  const say = (s: string) => {
    console.log(s);
    report.push(s);
  };
  try {
    // Warm-up (JIT, both workers) on a URL no Item uses (stac_items/i24), so no run below finds its bytes cached.
    for (const f of zones.features.slice(0, 4)) {
      await fetch(base.replace('/stac/search', ''), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: href(ITEMS, 'stac_B04.tif'), aoi: f.geometry, expression: 'b1 * 2', stats: STATS }) });
    }
    await serverLog(true);

    say(`A. one request: ${zones.features.length} zones × ${ITEMS} Items …`);
    const a = await post({ ...common, stac: { url: api.url('/') }, aoi: { type: 'FeatureCollection', features: zones.features.map((f) => ({ type: 'Feature', id: f.id, properties: {}, geometry: f.geometry })) } });
    const aLog = await serverLog(true);
    const aRows = a.text.trim().split('\n').map((l) => JSON.parse(l) as { index: number; item_id: string; statistics?: Record<string, Record<string, number>>; error?: unknown });
    const reads = aLog.filter((e) => e[0] === 'GET');
    const headerBytes = reads.filter((e) => e[2] === 0).reduce((n, e) => n + e[5], 0);
    const tileBytes = reads.filter((e) => e[2] !== 0).reduce((n, e) => n + e[5], 0);
    const holding = ITEMS * ((tiles['B04']?.bytes ?? 0) + (tiles['B08']?.bytes ?? 0) + (tiles['SCL']?.bytes ?? 0));
    say(`  ${a.status}, ${f2(a.ms / 1000)} s, ${aRows.length} rows (${aRows.filter((r) => r.error).length} with an error), ${reads.length} requests, ${mib(tileBytes)} MiB of tiles + ${mib(headerBytes)} MiB of headers; the tiles holding zone pixels: ${mib(holding)} MiB (${ITEMS} × (${tiles['B04']?.tiles} + ${tiles['B08']?.tiles} + ${tiles['SCL']?.tiles} tiles))`);

    const bs: { inflight: number; ms: number; mismatches: number; errors: number }[] = [];
    for (const inflight of RUN_SINGLE ? INFLIGHT : []) {
      say(`B. one request per zone and Item (${zones.features.length * ITEMS}), ${inflight} in flight …`);
      const jobs = zones.features.flatMap((f, z) => items.map((it, k) => ({ z, k, body: { ...common, stac: { url: api.url('/search'), datetime: it.properties.datetime }, aoi: f.geometry } })));
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
            answers.set(`${j.z}:${items[j.k]!.id}`, row.statistics);
          }
        }),
      );
      const ms = performance.now() - t;
      let mismatches = 0;
      for (const r of aRows) if (JSON.stringify(r.statistics) !== JSON.stringify(answers.get(`${r.index}:${r.item_id}`))) mismatches++;
      bs.push({ inflight, ms, mismatches, errors });
      say(`  ${f2(ms / 1000)} s, ${errors} errors; rows of A that differ: ${mismatches} of ${aRows.length}`);
    }

    const lines = [
      `Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${cpus().length} × ${cpus()[0]?.model.split(' ').slice(0, 2).join(' ')}, ${Math.round(totalmem() / 2 ** 30)} GiB; Node ${process.version}; 1-min load average ${f2(loadavg()[0]!)} at the end; latency ${LATENCY} ms per request.`,
      '',
      '| how | requests | seconds | ratio |',
      '|---|---|---|---|',
      `| A. one request, ${zones.features.length} zones × ${ITEMS} Items | 1 | ${f2(a.ms / 1000)} | 1.00× |`,
      ...bs.map((b) => `| B. one request per zone and Item, ${b.inflight === 1 ? 'sequential' : `${b.inflight} in flight`} | ${zones.features.length * ITEMS} | ${f2(b.ms / 1000)} | ${f1(b.ms / a.ms)}× A |`),
      '',
      `Bytes read by A: ${mib(tileBytes)} MiB of tiles in ${reads.filter((e) => e[2] !== 0).length} requests, plus ${mib(headerBytes)} MiB of headers (${reads.filter((e) => e[2] === 0).length} header reads: 3 files × ${ITEMS} URLs); the tiles that hold zone pixels (GDAL's tile index, make-data.py): ${mib(holding)} MiB, so A read ${f2(tileBytes / holding)}× those bytes.`,
      '',
      '| target | measured | verdict |',
      '|---|---|---|',
      `| one request ≤ 20 s | ${f2(a.ms / 1000)} s | ${a.ms <= 20_000 && a.status === 200 ? 'PASS' : '**FAIL**'} |`,
      ...bs.map((b) => `| ≥ 5× faster than one request per zone and Item, ${b.inflight === 1 ? 'sequential' : `${b.inflight} in flight`} | ${f1(b.ms / a.ms)}× | ${b.ms >= 5 * a.ms ? 'PASS' : '**FAIL**'} |`),
      ...bs.map((b) => `| every row equal to its single request (${b.inflight} in flight) | ${b.mismatches} differ, ${b.errors} errors | ${b.mismatches === 0 && b.errors === 0 ? 'PASS' : '**FAIL**'} |`),
    ];
    writeFileSync(join(OUT, 'stac-results.md'), `${lines.join('\n')}\n`);
    console.log(`\n${lines.join('\n')}\n\n(bench/out/stac-results.md)`);
  } finally {
    await api.close();
    await service.stop();
    await files.stop();
    // The service's log (warn and above), kept out of the report while it ran.
    if (service.stderr.length > 0) console.error(`service log (last lines):\n${service.stderr.slice(-20).join('\n')}`);
  }
}

await main();
