/**
 * Event-loop latency (issue 2 §9, issue 3 §7; a benchmark since issue 22, formerly the tests
 * test/http/event-loop.test.ts and test/http/vector-event-loop.test.ts). The app is built in this process
 * exactly as those tests built it (test/helpers/build-app.ts: fixtures as data root, no caches, log off)
 * and listens on a loopback port; while one heavy request runs, GET /health is polled over a real socket,
 * one poll 20 ms after the previous answer. Each poll's latency counts from when it was due (previous
 * answer + 20 ms), not from when it was sent: the client shares the server's event loop, so a stall also
 * delays the client's own timer, and this is what a separate client polling every 20 ms would have waited.
 *
 * Scenarios (each run RUNS times, default 3, every run printed; nothing is asserted):
 *   raster  11000 × 10000 px (too_many_pixels.tif, constant 7) on 2 workers, maxPixels 200,000,000
 *   vector  all 20,000 features of many_groups.parquet (two columns, median, std, percentile_90, density),
 *           after one unpolled warm-up of the same request (its time printed as the cold figure)
 *   vector  4,000 features (data_area by union in the worker pool)
 *
 * Run: npx tsx bench/latency/event-loop.ts [raster|vector]   (RUNS=5 for more runs). Exit status 1 only
 * when a request is answered wrongly (then its figures mean nothing); slow polls are reported, not failed.
 */
import type { FastifyInstance } from 'fastify';
import proj4 from 'proj4';
import { buildTestApp, fixtureUrl } from '../../test/helpers/build-app.ts';

const RUNS = Number(process.env['RUNS'] ?? 3);
const only = process.argv[2];
if (only !== undefined && only !== 'raster' && only !== 'vector') {
  console.error('usage: npx tsx bench/latency/event-loop.ts [raster|vector]');
  process.exit(2);
}

type Body = Record<string, Record<string, unknown>>;
interface Scenario {
  name: string;
  path: string;
  body: Record<string, unknown>;
  /** What is wrong with the answer, or undefined when it is right. */
  check(status: number, body: Body): string | undefined;
  /** The bound the deleted test asserted, as text, and whether these latencies meet it. */
  target: { text: string; met(sorted: number[]): boolean };
}

interface Run {
  requestMs: number;
  latencies: number[];
  error: string | undefined;
}

/** Sends `s` to `base` and polls /health every 20 ms until it is answered. */
async function whilePolling(base: string, s: Scenario): Promise<Run> {
  let done = false;
  const t0 = performance.now();
  const big = fetch(`${base}${s.path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(s.body) }).then(async (r) => {
    const body = (await r.json()) as Body;
    done = true;
    return { status: r.status, body, ms: performance.now() - t0 };
  });
  const latencies: number[] = [];
  let due = performance.now();
  while (!done) {
    const r = await fetch(`${base}/health`);
    await r.arrayBuffer();
    const now = performance.now();
    if (r.status !== 200) throw new Error(`/health answered ${r.status}`);
    latencies.push(now - due);
    due = now + 20;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const res = await big;
  return { requestMs: res.ms, latencies, error: s.check(res.status, res.body) };
}

const sortedOf = (l: number[]) => [...l].sort((a, b) => a - b);
/** Nearest-rank quantile of sorted values. */
const quantile = (sorted: number[], q: number) => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? NaN;
const ms = (x: number) => `${x.toFixed(1)} ms`;

function report(s: Scenario, i: number, run: Run): void {
  const sorted = sortedOf(run.latencies);
  const over100 = sorted.filter((x) => x >= 100).length;
  const figures = `n ${sorted.length}, median ${ms(quantile(sorted, 0.5))}, p95 ${ms(quantile(sorted, 0.95))}, max ${ms(sorted.at(-1) ?? NaN)}, polls ≥ 100 ms: ${over100}`;
  const verdict = run.error !== undefined ? `WRONG ANSWER: ${run.error}` : s.target.met(sorted) ? 'within target' : 'OVER target';
  console.log(`  run ${i + 1}/${RUNS}: request ${run.requestMs.toFixed(0)} ms; /health ${figures} (${verdict})`);
}

async function runScenarios(app: FastifyInstance, scenarios: Scenario[]): Promise<boolean> {
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  let ok = true;
  try {
    for (const s of scenarios) {
      console.log(`${s.name} (target: ${s.target.text})`);
      for (let i = 0; i < RUNS; i++) {
        const run = await whilePolling(base, s);
        report(s, i, run);
        if (run.error !== undefined) ok = false;
      }
    }
  } finally {
    await app.close();
  }
  return ok;
}

// --- raster: the former test/http/event-loop.test.ts ------------------------------------------------------

const UTM33 = '+proj=utm +zone=33 +datum=WGS84 +units=m +no_defs';
const ll = (x: number, y: number) => proj4(UTM33, 'EPSG:4326', [x, y]) as [number, number];

function rasterScenario(): Scenario {
  // too_many_pixels.tif: 11000 × 10000 px of 10 m from (200000, 5500000), constant 7. The AOI overhangs
  // every edge by 1 km (more than its long lon/lat edges bend in UTM), so all pixels count.
  const [x0, x1, y0, y1] = [199000, 311000, 5399000, 5501000];
  const aoi = { type: 'Polygon', coordinates: [[ll(x0, y0), ll(x1, y0), ll(x1, y1), ll(x0, y1), ll(x0, y0)]] };
  return {
    name: 'raster, 11000 × 10000 px, 2 workers',
    path: '/api/v1/zonal-stats/raster',
    body: { url: fixtureUrl('raster/synthetic/too_many_pixels.tif'), aoi, stats: ['count', 'mean', 'min', 'max'] },
    check(status, body) {
      if (status !== 200) return `status ${status}: ${JSON.stringify(body)}`;
      const b = body['band_1'] ?? {};
      const want = { count: 11000 * 10000, mean: 7, min: 7, max: 7 };
      for (const [k, v] of Object.entries(want)) if (b[k] !== v) return `${k} ${String(b[k])}, expected ${v}`;
      return undefined;
    },
    target: {
      text: 'at most one poll ≥ 100 ms, none ≥ 250 ms, median < 50 ms',
      met: (s) => s.filter((x) => x >= 100).length <= 1 && (s.at(-1) ?? 0) < 250 && quantile(s, 0.5) < 50,
    },
  };
}

// --- vector: the former test/http/vector-event-loop.test.ts -----------------------------------------------

const box = (w: number, s: number, e: number, n: number) => ({
  type: 'Polygon',
  coordinates: [
    [
      [w, s],
      [e, s],
      [e, n],
      [w, n],
      [w, s],
    ],
  ],
});
const vectorTarget = { text: 'every poll < 100 ms', met: (s: number[]) => (s.at(-1) ?? 0) < 100 };
const countIs = (column: string, n: number) => (status: number, body: Body) =>
  status !== 200
    ? `status ${status}: ${JSON.stringify(body)}`
    : body[column]?.['count'] !== n
      ? `count ${String(body[column]?.['count'])}, expected ${n}`
      : undefined;

/** Every feature of many_groups.parquet (10 … 14.99° E, 40 … 43.9° N), two columns, quantiles included. */
const FULL = {
  url: fixtureUrl('vector/many_groups.parquet'),
  aoi: box(9.5, 39.5, 15.5, 44.5),
  columns: ['value', 'pop'],
  stats: ['count', 'min', 'max', 'mean', 'sum', 'std', 'median', 'percentile_90', 'density'],
};

function vectorScenarios(): Scenario[] {
  return [
    {
      name: 'vector, 20,000 features with median and std',
      path: '/api/v1/zonal-stats/vector',
      body: FULL,
      check: countIs('value', 20_000),
      target: vectorTarget,
    },
    {
      // Rows 0 … 24 end at 40.7734375; row 25 starts at 40.78125.
      name: 'vector, 4,000 features (data_area by union)',
      path: '/api/v1/zonal-stats/vector',
      body: { url: fixtureUrl('vector/many_groups.parquet'), aoi: box(9.5, 39.5, 15.5, 40.777), columns: ['value'], stats: ['count', 'mean', 'median'] },
      check: countIs('value', 4_000),
      target: vectorTarget,
    },
  ];
}

// ------------------------------------------------------------------------------------------------------------

console.log(`event-loop latency: /health polled every 20 ms during one heavy request; ${RUNS} runs each; node ${process.version}`);
let ok = true;
if (only === undefined || only === 'raster') {
  ok = (await runScenarios(await buildTestApp({ workers: 2, maxPixels: 200_000_000 }), [rasterScenario()])) && ok;
}
if (only === undefined || only === 'vector') {
  const app = await buildTestApp();
  // Warm-up (module JIT, hyparquet's decoders, the file's first open), not polled: the runs then measure
  // the steady state.
  const t0 = performance.now();
  const warm = await app.inject({ method: 'POST', url: '/api/v1/zonal-stats/vector', payload: FULL });
  console.log(`vector, 20,000 features, cold (warm-up, not polled): ${(performance.now() - t0).toFixed(0)} ms, status ${warm.statusCode}`);
  ok = (await runScenarios(app, vectorScenarios())) && ok;
}
if (!ok) process.exitCode = 1;
