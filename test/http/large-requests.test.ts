/**
 * Large requests are answered whole and right. What the event-loop latency tests (now
 * bench/latency/event-loop.ts, issue 22) proved besides a time: an 11000 × 10000-pixel raster request on
 * two workers, once maxPixels allows it, counts every pixel; a vector request over all 20,000 features of
 * fixtures/vector/many_groups.parquet matches a closed form; and 4,000 of them get data_area by union.
 * No time is asserted here: a hang fails through the test's timeout.
 *
 * many_groups.parquet: 20,000 squares of 3/128° on a 1/32° pitch, 160 columns × 125 rows from (10° E,
 * 40° N), 40 row groups (fixtures/README.md). Expected numbers by hand: every square lies wholly inside the
 * AOI, so each one's weight is its own area (closed form of a lon/lat rectangle on WGS84, written out
 * below), its share is 1 and `sum` is the plain Σ value = Σ_c Σ_r (c + r/1000) = 125 · 12,720 + 160 · 7.75
 * = 1,591,240; the squares do not overlap, so data_area is the sum of their areas.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import proj4 from 'proj4';
import { buildTestApp, fixtureUrl } from '../helpers/build-app.ts';

const UTM33 = '+proj=utm +zone=33 +datum=WGS84 +units=m +no_defs';
const ll = (x: number, y: number) => proj4(UTM33, 'EPSG:4326', [x, y]) as [number, number];

describe('an 11000 × 10000-pixel raster request', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await buildTestApp({ workers: 2, maxPixels: 200_000_000 });
  });
  afterAll(async () => app.close());

  it('with maxPixels 200,000,000 on two workers: every pixel counted, the constant as mean, min and max', async () => {
    // too_many_pixels.tif: 11000 × 10000 px of 10 m from (200000, 5500000), constant 7. The AOI overhangs
    // every edge by 1 km (more than its long lon/lat edges bend in UTM), so all pixels count.
    const [x0, x1, y0, y1] = [199000, 311000, 5399000, 5501000];
    const aoi = { type: 'Polygon', coordinates: [[ll(x0, y0), ll(x1, y0), ll(x1, y1), ll(x0, y1), ll(x0, y0)]] };
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/zonal-stats/raster',
      payload: { url: fixtureUrl('raster/synthetic/too_many_pixels.tif'), aoi, stats: ['count', 'mean', 'min', 'max'] },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()['band_1']).toMatchObject({ count: 11000 * 10000, mean: 7, min: 7, max: 7 });
  }, 120_000);
});

const A = 6378137;
const F = 1 / 298.257223563;
const B = A * (1 - F);
const E = Math.sqrt(F * (2 - F));
const q = (latDeg: number): number => {
  const s = Math.sin((latDeg * Math.PI) / 180);
  return s / (1 - E * E * s * s) + (1 / (2 * E)) * Math.log((1 + E * s) / (1 - E * s));
};
/** Area in m² of a lon/lat rectangle `dLon` degrees wide between `lat1` and `lat2`, WGS84, closed form. */
const rectArea = (dLon: number, lat1: number, lat2: number): number => Math.abs(((dLon * Math.PI) / 180) * ((B * B) / 2) * (q(lat2) - q(lat1)));

const COLS = 160;
const ROWS = 125;
const W = 3 / 128;
const rowLat = (r: number) => 40 + r / 32;
/** Area of one square of grid row r. */
const squareArea = (r: number) => rectArea(W, rowLat(r), rowLat(r) + W);

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

describe('a large vector request', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await buildTestApp();
  });
  afterAll(async () => app.close());

  const post = async (payload: Record<string, unknown>) => {
    const res = await app.inject({ method: 'POST', url: '/api/v1/zonal-stats/vector', payload });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as Record<string, Record<string, unknown>>;
  };

  it('all 20,000 features with median and std: the answer by hand', async () => {
    const body = await post({
      url: fixtureUrl('vector/many_groups.parquet'),
      aoi: box(9.5, 39.5, 15.5, 44.5),
      columns: ['value', 'pop'],
      stats: ['count', 'min', 'max', 'mean', 'sum', 'std', 'median', 'percentile_90', 'density'],
    });
    let totalArea = 0;
    let weightedRow = 0; // Σ A · r/1000
    for (let r = 0; r < ROWS; r++) {
      totalArea += COLS * squareArea(r);
      weightedRow += COLS * squareArea(r) * (r / 1000);
    }
    const aoiArea = rectArea(6, 39.5, 44.5);
    const v = body['value']!;
    expect(v['count']).toBe(20_000);
    expect(v['min']).toBe(0);
    expect(v['max']).toBe(159.124);
    // Weighted mean of c + r/1000 with weights that depend on r only: 79.5 + Σ_r (r/1000)·A_r / Σ_r A_r.
    expect(Math.abs((v['mean'] as number) - (79.5 + weightedRow / totalArea))).toBeLessThan(1e-9);
    expect(Math.abs((v['sum'] as number) - 1_591_240)).toBeLessThan(1e-6);
    expect(Math.abs((v['data_area'] as number) / totalArea - 1)).toBeLessThan(1e-9);
    expect(Math.abs((v['aoi_area'] as number) / aoiArea - 1)).toBeLessThan(1e-9);
    expect(Math.abs((v['density'] as number) - 20_000 / (aoiArea / 1e6))).toBeLessThan(1e-9 * (v['density'] as number));
    // Weighted median: half the weight is reached at the end of column 79 (79.124) or, by rounding, at
    // the start of column 80 (80): the decision margin is 0, so either is right.
    expect([79.124, 80]).toContain(v['median']);
    // Population std with weights that depend on r only: the column part (uniform on 0 … 159,
    // variance (160² − 1)/12) and the weighted row part are independent, so their variances add.
    const meanRow = weightedRow / totalArea;
    let varRow = 0;
    for (let r = 0; r < ROWS; r++) varRow += (COLS * squareArea(r) * (r / 1000 - meanRow) ** 2) / totalArea;
    const std = Math.sqrt((COLS * COLS - 1) / 12 + varRow);
    expect(Math.abs((v['std'] as number) / std - 1)).toBeLessThan(1e-9);
    expect(body['pop']!['count']).toBe(20_000);
  }, 120_000);

  it('4,000 features: data_area by union is the sum of their areas', async () => {
    // Rows 0 … 24 end at 40 + 24/32 + 3/128 = 40.7734375; row 25 starts at 40.78125.
    const body = await post({
      url: fixtureUrl('vector/many_groups.parquet'),
      aoi: box(9.5, 39.5, 15.5, 40.777),
      columns: ['value'],
      stats: ['count', 'mean', 'median'],
    });
    expect(body['value']!['count']).toBe(4_000);
    let area = 0;
    for (let r = 0; r < 25; r++) area += COLS * squareArea(r);
    expect(Math.abs((body['value']!['data_area'] as number) / area - 1)).toBeLessThan(1e-9);
  }, 120_000);
});
