/**
 * The raster endpoint on tiny synthetic COGs whose values are formulas (fixtures/README.md), with every
 * expected number derived by hand in the test. AOIs are drawn in UTM 33N and converted to lon/lat
 * (the input), with their edges between pixel centres so that the selection is unambiguous.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import proj4 from 'proj4';
import { parquetReadObjects } from 'hyparquet';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, fixtureUrl } from '../helpers/build-app.ts';

const UTM33 = '+proj=utm +zone=33 +datum=WGS84 +units=m +no_defs';
const toLonLat = (x: number, y: number): [number, number] => proj4(UTM33, 'EPSG:4326', [x, y]) as [number, number];

/** A lon/lat polygon for the UTM rectangle [x0,x1]×[y0,y1]. */
function utmRect(x0: number, y0: number, x1: number, y1: number) {
  return { type: 'Polygon', coordinates: [[toLonLat(x0, y0), toLonLat(x1, y0), toLonLat(x1, y1), toLonLat(x0, y1), toLonLat(x0, y0)]] };
}

/** The tiny grid: 6 × 4 px of 10 m from (500000, 5000000); centre of (col,row) = (500005+10col, 4999995−10row). */
const centre = (col: number, row: number): [number, number] => [500005 + 10 * col, 4999995 - 10 * row];
/** Cols 1–3, rows 1–2 of the tiny grid (edges 3 m from the nearest centres). */
const INNER = utmRect(500012, 4999972, 500038, 4999988);
/** Covers the whole tiny grid with margin (overhangs every edge). */
const ALL = utmRect(499990, 4999950, 500070, 5000010);
/** Each pixel of the tiny grid lies on UTM 33N's central meridian, where k = 0.9996: 100 m² / k². */
const TINY_PIXEL_M2 = 100 / (0.9996 * 0.9996);

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const popStd = (xs: number[]) => {
  const m = sum(xs) / xs.length;
  return Math.sqrt(sum(xs.map((x) => (x - m) ** 2)) / xs.length);
};
/** Values of the tiny grid by formula, optionally without some cells. */
function cells(f: (col: number, row: number) => number, cols: number[], rows: number[], skip: [number, number][] = []): number[] {
  const out: number[] = [];
  for (const r of rows) for (const c of cols) if (!skip.some(([sc, sr]) => sc === c && sr === r)) out.push(f(c, r));
  return out;
}

describe('raster endpoint on synthetic rasters (hand-derived values)', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await buildTestApp();
  });
  afterAll(async () => app.close());

  const post = async (body: Record<string, unknown>) => {
    const res = await app.inject({ method: 'POST', url: '/api/v1/zonal-stats/raster', payload: body });
    return { status: res.statusCode, body: res.json(), level: res.headers['x-zonal-level'] };
  };

  const dtypes = [
    { file: 'tiny_int8', base: -5, frac: 0 },
    { file: 'tiny_uint8', base: 1, frac: 0 },
    { file: 'tiny_int16', base: -5, frac: 0 },
    { file: 'tiny_uint16', base: 1, frac: 0 },
    { file: 'tiny_int32', base: -5, frac: 0 },
    { file: 'tiny_uint32', base: 1, frac: 0 },
    { file: 'tiny_float32', base: -5, frac: 0.25 },
    { file: 'tiny_float64', base: -5, frac: 0.25 },
  ];

  describe.each(dtypes)('$file', ({ file, base, frac }) => {
    const f = (c: number, r: number) => r * 6 + c + base + frac;

    it('inner polygon: pixel-centre rule selects cols 1–3 × rows 1–2', async () => {
      const { status, body } = await post({
        url: fixtureUrl(`raster/synthetic/${file}.tif`),
        aoi: INNER,
        stats: ['count', 'min', 'max', 'mean', 'sum', 'std', 'median', 'range', 'nodata', 'unique', 'majority', 'minority'],
      });
      expect(status).toBe(200);
      const xs = cells(f, [1, 2, 3], [1, 2]);
      const b = body.band_1;
      expect(b.count).toBe(6);
      expect(b.min).toBe(Math.min(...xs));
      expect(b.max).toBe(Math.max(...xs));
      expect(b.sum).toBeCloseTo(sum(xs), 12);
      expect(b.mean).toBeCloseTo(sum(xs) / 6, 12);
      expect(b.std).toBeCloseTo(popStd(xs), 12);
      // even count: the mean of the two middle values (row 1 col 3 and row 2 col 1)
      expect(b.median).toBeCloseTo((f(3, 1) + f(1, 2)) / 2, 12);
      expect(b.range).toBeCloseTo(f(3, 2) - f(1, 1), 12);
      expect(b.nodata).toBe(0);
      expect(b.unique).toEqual([...xs].sort((a, c) => a - c));
      // all values appear once: ties go to the smallest value
      expect(b.majority).toBe(f(1, 1));
      expect(b.minority).toBe(f(1, 1));
      expect(b.data_area).toBeCloseTo(6 * TINY_PIXEL_M2, 6);
      expect(b.aoi_area).toBeGreaterThan(26 * 16 * 0.999);
      expect(b.aoi_area).toBeLessThan(((26 * 16) / (0.9996 * 0.9996)) * 1.001);
    });

    it('whole raster: the nodata pixel at (5,3) is excluded and counted in nodata', async () => {
      const { status, body } = await post({ url: fixtureUrl(`raster/synthetic/${file}.tif`), aoi: ALL, stats: ['count', 'sum', 'min', 'max', 'nodata'] });
      expect(status).toBe(200);
      const xs = cells(f, [0, 1, 2, 3, 4, 5], [0, 1, 2, 3], [[5, 3]]);
      expect(body.band_1).toMatchObject({ count: 23, nodata: 1, min: f(0, 0), max: f(4, 3) });
      expect(body.band_1.sum).toBeCloseTo(sum(xs), 9);
      expect(body.band_1.data_area).toBeCloseTo(23 * TINY_PIXEL_M2, 5);
    });
  });

  it('a bare point selects the one pixel containing it', async () => {
    const [x, y] = centre(4, 2);
    const [lon, lat] = toLonLat(x + 3, y - 2);
    const { body } = await post({
      url: fixtureUrl('raster/synthetic/tiny_int16.tif'),
      aoi: { type: 'Point', coordinates: [lon, lat] },
      stats: ['count', 'mean', 'nodata'],
    });
    expect(body.band_1).toEqual({ count: 1, mean: 2 * 6 + 4 - 5, nodata: 0, aoi_area: 0, data_area: 0 });
  });

  it('a point outside the raster counts nothing (200 with the empty shape)', async () => {
    const [lon, lat] = toLonLat(499000, 4999000);
    const { status, body } = await post({
      url: fixtureUrl('raster/synthetic/tiny_int16.tif'),
      aoi: { type: 'Point', coordinates: [lon, lat] },
      stats: ['count', 'mean', 'unique', 'freq_hist', 'nodata'],
    });
    expect(status).toBe(200);
    expect(body.band_1).toEqual({ count: 0, mean: null, unique: [], freq_hist: {}, nodata: 0, aoi_area: 0, data_area: 0 });
  });

  // 2⁶⁴ − 2 (nodata) and 2⁶⁴ − 1 (a value, at (4,3)) are one float64, as are −2⁶³ + 1 and −2⁶³: the nodata is
  // compared exactly, so the one nodata cell is left out and its twin counted (fixtures/README.md, tiny_64()).
  it.each([
    { file: 'tiny_uint64', twin: 2 ** 64 },
    { file: 'tiny_int64', twin: -(2 ** 63) },
  ])('$file: a 64-bit nodata not representable as a float64 is compared exactly', async ({ file, twin }) => {
    const values = [
      ...cells(
        (c, r) => r * 6 + c + 1,
        [0, 1, 2, 3, 4, 5],
        [0, 1, 2, 3],
        [
          [4, 3],
          [5, 3],
        ],
      ),
      twin,
    ];
    const res = await post({ url: fixtureUrl(`raster/synthetic/${file}.tif`), aoi: ALL, stats: ['count', 'nodata', 'sum', 'max', 'min'] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const b = res.body.band_1;
    expect(b.count).toBe(23);
    expect(b.nodata).toBe(1);
    expect(b.sum).toBe(sum(values));
    expect(b.max).toBe(Math.max(...values));
    expect(b.min).toBe(Math.min(...values));
    // A bare point on the nodata cell and on its twin.
    const at = async (c: number, r: number) =>
      (await post({ url: fixtureUrl(`raster/synthetic/${file}.tif`), aoi: { type: 'Point', coordinates: toLonLat(...centre(c, r)) }, stats: ['count', 'max'] }))
        .body.band_1;
    expect(await at(5, 3)).toMatchObject({ count: 0, max: null });
    expect(await at(4, 3)).toMatchObject({ count: 1, max: twin });
  });

  it("exactextract's operations through the API, keyed as exactextract names its columns", async () => {
    // INNER selects cols 1–3 of rows 1–2 (centre rule): values 8, 9, 10, 14, 15, 16, each covering 1.
    const xs = [8, 9, 10, 14, 15, 16];
    const mean = sum(xs) / 6;
    const variance = sum(xs.map((x) => (x - mean) ** 2)) / 6;
    const res = await post({
      url: fixtureUrl('raster/synthetic/tiny_uint8.tif'),
      aoi: INNER,
      stats: ['stdev', 'variance', 'coefficient_of_variation', 'variety', 'mode', 'frac', 'quantile(q=0.5)', 'quantile(q=0.25)'],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const b = res.body.band_1;
    expect(b.variance).toBeCloseTo(variance, 12);
    expect(b.stdev).toBeCloseTo(Math.sqrt(variance), 12);
    expect(b.coefficient_of_variation).toBeCloseTo(Math.sqrt(variance) / mean, 12);
    expect(b.variety).toBe(6);
    expect(b.mode).toBe(16);
    expect(b.frac).toEqual(Object.fromEntries(xs.map((x) => [String(x), 1 / 6])));
    // Six distinct values of weight 1: numpy's linear rule, 12 and 9.25.
    expect(b.quantile_50).toBe(12);
    expect(b.quantile_25).toBe(9.25);
    expect(Object.keys(b)).toEqual(expect.arrayContaining(['quantile_50', 'quantile_25']));
  });

  it("exactextract's weighting arguments, per operation and for the request (hand-derived on the tiny grid)", async () => {
    const url = fixtureUrl('raster/synthetic/tiny_uint8.tif');
    const f = (c: number, r: number) => r * 6 + c + 1;
    const inner = cells(f, [1, 2, 3], [1, 2]);
    // Centre rule: each selected cell has cᵢ 1, × 10 m × 10 m with area_cartesian.
    const res = await post({
      url,
      aoi: INNER,
      stats: ['count', 'count(coverage_weight=area_cartesian)', 'sum(coverage_weight=area_cartesian)', 'mean(coverage_weight=area_cartesian)'],
    });
    // Two operations keyed alike (count, count(coverage_weight=…)) may not share a request.
    expect(res.status).toBe(422);
    expect(res.body.detail).toContain("'count' and 'count(coverage_weight=area_cartesian)' would both answer 'count'");
    const area = (await post({ url, aoi: INNER, stats: ['count(coverage_weight=area_cartesian)', 'sum(coverage_weight=area_cartesian)'] })).body.band_1;
    expect(area.count).toBeCloseTo(600, 9);
    expect(area.sum).toBeCloseTo(100 * sum(inner), 7);
    // default_value: the nodata cell (5,3) counts as that value; as the request's default, for every statistic.
    const all = cells(f, [0, 1, 2, 3, 4, 5], [0, 1, 2, 3], [[5, 3]]);
    const dv = (await post({ url, aoi: ALL, stats: ['count(default_value=7)', 'sum(default_value=7)', 'nodata'] })).body.band_1;
    expect(dv).toMatchObject({ count: 24, sum: sum(all) + 7, nodata: 1 });
    const req = (await post({ url, aoi: ALL, stats: ['count', 'sum', 'nodata', 'min'], default_value: 100 })).body.band_1;
    expect(req).toMatchObject({ count: 24, sum: sum(all) + 100, nodata: 0, min: 1 });
    // Fractional pixels: INNER covers 0.8, 1, 0.8 of cols 1–3 and 0.8, 0.8 of rows 1–2: Σcᵢ = 2.6 × 1.6; with
    // coverage_weight=none every touched cell counts 1.
    const frac = (await post({ url, aoi: INNER, pixels: 'fractional', stats: ['count'] })).body.band_1;
    expect(frac.count).toBeCloseTo(2.6 * 1.6, 6);
    const none = (await post({ url, aoi: INNER, pixels: 'fractional', stats: ['count'], coverage_weight: 'none' })).body.band_1;
    expect(none.count).toBe(6);
  });

  it('area_spherical_* on a raster not in longitude/latitude is a 422 that says why', async () => {
    const res = await post({ url: fixtureUrl('raster/synthetic/tiny_uint8.tif'), aoi: INNER, stats: ['mean(coverage_weight=area_spherical_m2)'] });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('stat_not_applicable');
    expect(res.body.detail).toContain('not in longitude/latitude; area_cartesian weighs by the cell');
    const body = await post({ url: fixtureUrl('raster/synthetic/tiny_uint8.tif'), aoi: INNER, coverage_weight: 'area_spherical_km2' });
    expect(body.status).toBe(422);
  });

  it("exactextract's per-cell output: lists in cell order, cell ids on the full grid, centres in the raster's CRS", async () => {
    const url = fixtureUrl('raster/synthetic/tiny_uint8.tif');
    const stats = ['values', 'coverage', 'cell_id', 'center_x', 'center_y', 'min_center_x', 'min_center_y', 'max_center_x', 'max_center_y'];
    const res = await post({ url, aoi: INNER, stats });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // INNER selects cols 1–3 of rows 1–2 (centre rule): ids row·6 + col, values row·6 + col + 1, centres by formula.
    const picked = [1, 2].flatMap((r) => [1, 2, 3].map((c) => [c, r] as const));
    expect(res.body.band_1).toMatchObject({
      cell_id: picked.map(([c, r]) => r * 6 + c),
      values: picked.map(([c, r]) => r * 6 + c + 1),
      coverage: picked.map(() => 1),
      center_x: picked.map(([c, r]) => centre(c, r)[0]),
      center_y: picked.map(([c, r]) => centre(c, r)[1]),
      min_center_x: centre(1, 1)[0],
      min_center_y: centre(1, 1)[1],
      max_center_x: centre(3, 2)[0],
      max_center_y: centre(3, 2)[1],
    });
    // Empty: lists empty, centres null.
    const outside = utmRect(600000, 4999972, 600010, 4999988);
    expect((await post({ url, aoi: outside, stats })).body.band_1).toMatchObject({ values: [], cell_id: [], min_center_x: null, max_center_y: null });
    // approx_stats reads an overview, whose cells are not the full grid's: refused.
    const approx = await post({ url, aoi: INNER, stats: ['values'], approx_stats: true });
    expect(approx.status).toBe(422);
    expect(approx.body.detail).toContain("names cells of the raster's full grid, which approx_stats does not read");
  });

  it('per-cell lists are lists in NDJSON and LIST columns in GeoParquet, zone by zone', async () => {
    const url = fixtureUrl('raster/synthetic/tiny_uint8.tif');
    const aoi = { type: 'FeatureCollection', features: [INNER, ALL].map((g, i) => ({ type: 'Feature', id: `z${i}`, properties: {}, geometry: g })) };
    const body = { url, aoi, stats: ['values', 'cell_id'] };
    const nd = await app.inject({ method: 'POST', url: '/api/v1/zonal-stats/raster', payload: body, headers: { accept: 'application/x-ndjson' } });
    const lines = nd.body
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0].statistics.band_1.cell_id).toEqual([7, 8, 9, 13, 14, 15]);
    expect(lines[1].statistics.band_1.values).toHaveLength(23);
    const pq = await app.inject({ method: 'POST', url: '/api/v1/zonal-stats/raster', payload: body, headers: { accept: 'application/vnd.apache.parquet' } });
    expect(pq.statusCode).toBe(200);
    const rows = (await parquetReadObjects({ file: new Uint8Array(pq.rawPayload).buffer })) as Record<string, unknown>[];
    expect(rows.map((r) => r['band_1_cell_id'])).toEqual([lines[0].statistics.band_1.cell_id, lines[1].statistics.band_1.cell_id]);
    expect(rows[1]?.['band_1_values']).toEqual(lines[1].statistics.band_1.values);
  });

  it('weights: a weighting raster of 20 m cells on the tiny grid (each over 2 × 2 of its pixels), by hand', async () => {
    const url = fixtureUrl('raster/synthetic/tiny_uint8.tif');
    const weights = { url: fixtureUrl('raster/synthetic/tiny_weights_20m.tif') };
    const v = (c: number, r: number) => r * 6 + c + 1;
    // w = 10·R + C + 1 of the 20 m cell (C, R) = (⌊c/2⌋, ⌊r/2⌋); nodata at (2, 1), i.e. pixels c 4–5, r 2–3.
    const w = (c: number, r: number) => (Math.floor(c / 2) === 2 && Math.floor(r / 2) === 1 ? Number.NaN : 10 * Math.floor(r / 2) + Math.floor(c / 2) + 1);
    const inner = [1, 2].flatMap((r) => [1, 2, 3].map((c) => [c, r] as const));
    const sumW = sum(inner.map(([c, r]) => w(c, r)));
    const sumXW = sum(inner.map(([c, r]) => v(c, r) * w(c, r)));
    const stats = ['weighted_mean', 'weighted_sum', 'weighted_frac', 'mean', 'count'];
    const res = await post({ url, aoi: INNER, stats, weights });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.band_1.weighted_sum).toBe(sumXW);
    expect(res.body.band_1.weighted_mean).toBeCloseTo(sumXW / sumW, 12);
    expect(res.body.band_1.weighted_frac).toEqual(Object.fromEntries(inner.map(([c, r]) => [String(v(c, r)), w(c, r) / sumW])));
    // The unweighted statistics are what they are without weights.
    expect(res.body.band_1).toMatchObject({ count: 6, mean: sum(inner.map(([c, r]) => v(c, r))) / 6 });
    // Each counted pixel's weight, in cell order, beside its value.
    const lists = await post({ url, aoi: INNER, stats: ['weights', 'values'], weights });
    expect(lists.body.band_1).toMatchObject({ weights: inner.map(([c, r]) => w(c, r)), values: inner.map(([c, r]) => v(c, r)) });
    // ALL reaches pixels whose weight is nodata: the weighted answers are null (exactextract: NaN) ...
    const all = await post({ url, aoi: ALL, stats: ['weighted_mean', 'weighted_sum', 'count'], weights });
    expect(all.body.band_1).toMatchObject({ weighted_mean: null, weighted_sum: null, count: 23 });
    // ... unless default_weight gives them one (pixel (5, 3) is nodata: not counted).
    const cells = [0, 1, 2, 3].flatMap((r) => [0, 1, 2, 3, 4, 5].map((c) => [c, r] as const)).filter(([c, r]) => !(c === 5 && r === 3));
    const wd = (c: number, r: number) => (Number.isNaN(w(c, r)) ? 0.5 : w(c, r));
    const dw = await post({ url, aoi: ALL, stats: ['weighted_sum', 'weighted_mean(default_weight=2)'], weights, default_weight: 0.5 });
    expect(dw.body.band_1.weighted_sum).toBe(sum(cells.map(([c, r]) => v(c, r) * wd(c, r))));
    const wd2 = (c: number, r: number) => (Number.isNaN(w(c, r)) ? 2 : w(c, r));
    expect(dw.body.band_1.weighted_mean).toBeCloseTo(sum(cells.map(([c, r]) => v(c, r) * wd2(c, r))) / sum(cells.map(([c, r]) => wd2(c, r))), 12);
  });

  it('weights of 5 m cells (2 × 2 in each pixel): each part counted with its own weight, as exactextract on the finer grid, by hand', async () => {
    const url = fixtureUrl('raster/synthetic/tiny_uint8.tif');
    const weights = { url: fixtureUrl('raster/synthetic/tiny_weights_5m.tif') };
    const v = (c: number, r: number) => r * 6 + c + 1;
    // w = 10·j + i + 1 of the 5 m cell (i, j); pixel (c, r) holds (2c .. 2c+1, 2r .. 2r+1).
    const parts = (c: number, r: number) => [0, 1].flatMap((j) => [0, 1].map((i) => 10 * (2 * r + j) + 2 * c + i + 1));
    const inner = [1, 2].flatMap((r) => [1, 2, 3].map((c) => [c, r] as const));
    const sumW = sum(inner.flatMap(([c, r]) => parts(c, r)));
    const sumXW = sum(inner.flatMap(([c, r]) => parts(c, r).map((w) => v(c, r) * w)));
    const res = await post({ url, aoi: INNER, stats: ['weighted_mean', 'weighted_sum', 'count', 'mean'], weights });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.band_1.weighted_sum).toBe(sumXW);
    expect(res.body.band_1.weighted_mean).toBeCloseTo(sumXW / sumW, 12);
    // The unweighted statistics keep the value cells (exactextract's count the finer cells: 24 here).
    expect(res.body.band_1).toMatchObject({ count: 6, mean: sum(inner.map(([c, r]) => v(c, r))) / 6 });
    // A per-cell list of a weighted channel would list the finer grid's cells: refused.
    const lists = await post({ url, aoi: INNER, stats: ['weights'], weights });
    expect(lists.status).toBe(422);
    expect(lists.body.detail).toContain("'weights' would list the cells of the weights' finer grid");
  });

  it.each([
    ['no weights', {}, 'weighs each pixel by a weighting raster: give "weights"'],
    [
      'weights whose cell edges are 5 m off',
      { weights: { url: fixtureUrl('raster/synthetic/tiny_weights_shifted.tif') } },
      "the cell edges of one do not fall on the other's",
    ],
    ['a band the weights raster lacks', { weights: { url: fixtureUrl('raster/synthetic/tiny_weights_20m.tif'), band: 2 } }, 'The weights raster has no band 2'],
    ['weights in another CRS', { weights: { url: fixtureUrl('raster/elev.cog.tif') } }, 'not in the CRS of the value raster'],
    [
      'UInt64 weights whose nodata (2⁶⁴ − 2) lies past 2⁵³',
      { weights: { url: fixtureUrl('raster/synthetic/tiny_uint64.tif') } },
      'nodata (18446744073709551614) lies beyond 2⁵³, where uint64 weights cannot be told from it exactly',
    ],
  ])('weighted statistics with %s: a 422 that says why', async (_what, extra, why) => {
    const res = await post({ url: fixtureUrl('raster/synthetic/tiny_uint8.tif'), aoi: INNER, stats: ['weighted_mean'], ...extra });
    expect(res.status).toBe(422);
    expect(res.body.detail).toContain(why);
  });

  it('an unknown argument is a 422 that says why', async () => {
    const res = await post({ url: fixtureUrl('raster/synthetic/tiny_uint8.tif'), aoi: INNER, stats: ['quantile(p=0.5)'] });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('unknown_stat');
    expect(res.body.detail).toContain(
      "'quantile(p=0.5)': quantile has no argument 'p' (its arguments: q, coverage_weight, min_coverage_frac, default_value, default_weight).",
    );
  });

  it('NaN pixels are invalid even without a declared nodata', async () => {
    const { body } = await post({ url: fixtureUrl('raster/synthetic/tiny_nan.tif'), aoi: ALL, stats: ['count', 'nodata', 'min', 'sum'] });
    const xs = cells(
      (c, r) => r * 6 + c,
      [0, 1, 2, 3, 4, 5],
      [0, 1, 2, 3],
      [
        [0, 0],
        [1, 0],
      ],
    );
    expect(body.band_1).toMatchObject({ count: 22, nodata: 2, min: 2, sum: sum(xs) });
  });

  it('an internal mask excludes column 0', async () => {
    const { body } = await post({ url: fixtureUrl('raster/synthetic/tiny_mask.tif'), aoi: ALL, stats: ['count', 'nodata', 'min', 'sum'] });
    const xs = cells((c, r) => r * 6 + c + 1, [1, 2, 3, 4, 5], [0, 1, 2, 3]);
    expect(body.band_1).toMatchObject({ count: 20, nodata: 4, min: 2, sum: sum(xs) });
  });

  it('scale and offset from GDAL_METADATA apply before statistics (value = raw × 0.5 + 100)', async () => {
    const { body } = await post({
      url: fixtureUrl('raster/synthetic/tiny_scaled.tif'),
      aoi: ALL,
      stats: ['count', 'nodata', 'min', 'max', 'sum', 'freq_hist'],
    });
    const xs = cells((c, r) => (r * 6 + c) * 0.5 + 100, [0, 1, 2, 3, 4, 5], [0, 1, 2, 3], [[0, 0]]);
    expect(body.band_1).toMatchObject({ count: 23, nodata: 1, min: 100.5, max: 111.5, sum: sum(xs) });
    expect(body.band_1.freq_hist['100.5']).toBe(1);
    expect(Object.keys(body.band_1.freq_hist)).toHaveLength(23);
  });

  describe.each(['tiny_multiband', 'tiny_multiband_band'])('%s', (file) => {
    it('answers bands in the order asked, duplicates once', async () => {
      const { body } = await post({ url: fixtureUrl(`raster/synthetic/${file}.tif`), aoi: INNER, bands: [3, 1, 3], stats: ['mean', 'min'] });
      expect(Object.keys(body)).toEqual(['band_3', 'band_1']);
      const inner = cells((c, r) => r * 6 + c, [1, 2, 3], [1, 2]);
      expect(body.band_3.mean).toBeCloseTo(300 + sum(inner) / 6, 12);
      expect(body.band_1.min).toBe(100 + 7);
    });

    it('a band the raster lacks is 422 naming the band count', async () => {
      const { status, body } = await post({ url: fixtureUrl(`raster/synthetic/${file}.tif`), aoi: INNER, bands: [4] });
      expect(status).toBe(422);
      expect(body.code).toBe('unknown_band');
      expect(body.detail).toMatch(/3 bands/);
    });
  });

  it('an AOI overhanging every edge of a raster with partial edge tiles reads every pixel once', async () => {
    // edges.tif: 100 × 70 px of 10 m from (600000, 5100000), value row·100 + col.
    const aoi = utmRect(599950, 5099250, 601100, 5100050);
    const { body } = await post({ url: fixtureUrl('raster/synthetic/edges.tif'), aoi, stats: ['count', 'sum', 'min', 'max', 'mean'] });
    // Σ over rows r<70, cols c<100 of 100r + c = 100·100·Σr + 70·Σc
    const expected = 100 * 100 * ((69 * 70) / 2) + 70 * ((99 * 100) / 2);
    expect(body.band_1).toMatchObject({ count: 7000, sum: expected, min: 0, max: 6999, mean: expected / 7000 });
  });

  it('a raster without a CRS is 422', async () => {
    const { status, body } = await post({ url: fixtureUrl('raster/synthetic/no_crs.tif'), aoi: INNER });
    expect(status).toBe(422);
    expect(body.code).toBe('missing_crs');
  });

  it('a window over the pixel limit is 422 naming the limit, before pixel data is read', async () => {
    // too_many_pixels.tif: 11000 × 10000 px of 10 m from (200000, 5500000)
    const aoi = utmRect(199000, 5399000, 311000, 5501000);
    const { status, body } = await post({ url: fixtureUrl('raster/synthetic/too_many_pixels.tif'), aoi });
    expect(status).toBe(422);
    expect(body.code).toBe('too_many_pixels');
    expect(body.detail).toContain('110,000,000');
    expect(body.detail).toContain('100,000,000');
  });

  it('approx_stats reads the coarsest overview that still gives ≥ 1,000,000 AOI pixels', async () => {
    // overviews.tif: 2048² px of 30 m from (400000, 5300000); overview ×2 is 1024² = 1,048,576 px, ×4 only 262,144.
    const aoi = utmRect(399000, 5237000, 463000, 5301000);
    const exact = await post({ url: fixtureUrl('raster/synthetic/overviews.tif'), aoi, stats: ['count', 'mean', 'max'] });
    expect(exact.body.band_1).toMatchObject({ count: 2048 * 2048, mean: 2047, max: 4094 });
    const approx = await post({ url: fixtureUrl('raster/synthetic/overviews.tif'), aoi, stats: ['count', 'mean', 'max'], approx_stats: true });
    // at factor 2 the overview pixel (c, r) is 2(c + r) + 1
    expect(approx.body.band_1).toMatchObject({ count: 1024 * 1024, mean: 2047, max: 2 * 2046 + 1 });
    // The answer says which level it read: x-zonal-level names the overview, its size and pixel size.
    expect(exact.level).toBe('0; size=2048x2048; pixel=30');
    expect(approx.level).toBe('1; size=1024x1024; pixel=60');
  });
});
