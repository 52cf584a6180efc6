/**
 * geoblaze side of the raster benchmark, in its own process (bench/package.json: geoblaze 2.8.0).
 *
 *   node bench/raster/geoblaze-run.mjs '{"url": …, "geometry": <lon/lat Polygon>, "runs": N,
 *                                        "cold": true, "log": "<range server>/__log"}'
 *
 * Each run is `geoblaze.stats(url, {srs: 4326, geometry}, {stats: [...]})`, geoblaze reprojecting the
 * lon/lat polygon to the raster's CRS itself. Cold: geoblaze's parse cache (geoblaze.cache, keyed by
 * URL) is emptied before each run, so the header is read again, like the service with its cache off.
 * Warm: the parsed raster (and geotiff.js's block cache) is kept between runs. One unmeasured warm-up
 * run first (module loading, JIT) unless "warmup": false. Prints one JSON object.
 */
import process from 'node:process';
import { performance } from 'node:perf_hooks';
import geoblaze from 'geoblaze';

const opts = JSON.parse(process.argv[2]);
const STATS = ['count', 'valid', 'min', 'max', 'mean', 'std'];

async function log(reset) {
  if (!opts.log) return [];
  const r = await fetch(opts.log + (reset ? '?reset=1' : ''));
  return r.json();
}

function clearCache() {
  for (const k of Object.keys(geoblaze.cache)) delete geoblaze.cache[k];
}

const query = () => geoblaze.stats(opts.url, { srs: 4326, geometry: opts.geometry }, { stats: STATS });

if (opts.warmup !== false) await query();
const times = [];
const requests = [];
const bytes = [];
let result;
for (let i = 0; i < opts.runs; i++) {
  if (opts.cold) clearCache();
  await log(true);
  const t = performance.now();
  result = await query();
  times.push(performance.now() - t);
  const l = await log(true);
  requests.push(l.length);
  bytes.push(l.reduce((s, e) => s + e[5], 0));
}
const band = result?.[0] ?? {};
process.stdout.write(
  JSON.stringify({
    times_ms: times,
    stats: { count: band.valid, count_all: band.count, min: band.min, max: band.max, mean: band.mean, std: band.std },
    requests,
    bytes,
    peak_rss_kib: process.resourceUsage().maxRSS,
  }) + '\n',
);
