/**
 * The `pixels` field (issue 5) through the raster endpoint: center, all_touched and exact fractional
 * coverage. Expected values come from the synthetic grids' formulas and from area invariants
 * (Σ fraction × true pixel area = the AOI's true area when the AOI lies inside the raster).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import proj4 from 'proj4';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, fixtureUrl } from '../helpers/build-app.ts';

const UTM33 = '+proj=utm +zone=33 +datum=WGS84 +units=m +no_defs';
const ll = (x: number, y: number) => proj4(UTM33, 'EPSG:4326', [x, y]) as [number, number];
const rect = (x0: number, y0: number, x1: number, y1: number) => ({
  type: 'Polygon',
  coordinates: [[ll(x0, y0), ll(x1, y0), ll(x1, y1), ll(x0, y1), ll(x0, y0)]],
});
interface Band {
  count: number;
  min: number;
  max: number;
  mean: number;
  std: number;
  sum: number;
  aoi_area: number;
  data_area: number;
}

/** edges.tif: 100 × 70 px of 10 m from (600000, 5100000), value row·100 + col. */
const EDGES = fixtureUrl('raster/synthetic/edges.tif');

describe('pixel selection modes', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await buildTestApp();
  });
  afterAll(async () => app.close());
  const post = async (body: Record<string, unknown>) => {
    const res = await app.inject({ method: 'POST', url: '/api/v1/zonal-stats/raster', payload: body });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().band_1 as Band;
  };

  it('fractional: Σ weights × true pixel area equals the AOI area (AOI inside the raster) to 0.01 %', async () => {
    // A box with edges mid-pixel (fractions 0.3 / 0.7 along its sides) inside edges.tif.
    const aoi = rect(600123, 5099567, 600777, 5099913);
    const b = await post({ url: EDGES, aoi, pixels: 'fractional', stats: ['count', 'mean'] });
    expect(Math.abs(b.data_area / b.aoi_area - 1)).toBeLessThan(1e-4);
    // the grid's own units: 654 m × 346 m = 2262.84 pixels of 100 m²
    expect(b.count).toBeGreaterThan(2262.84 * 0.999);
    expect(b.count).toBeLessThan(2262.84 * 1.001);
  });

  it('all_touched ⊇ center, and fractional counts the partial pixels by their share', async () => {
    const aoi = rect(600123, 5099567, 600777, 5099913);
    const center = await post({ url: EDGES, aoi, stats: ['count', 'min', 'max'] });
    const touched = await post({ url: EDGES, aoi, pixels: 'all_touched', stats: ['count', 'min', 'max'] });
    const frac = await post({ url: EDGES, aoi, pixels: 'fractional', stats: ['count', 'min', 'max'] });
    // centres (600005 + 10c, 5099995 − 10r) inside: columns 12–77 (x 600125 … 600775),
    // rows 9–42 (y 5099905 … 5099575): 66 × 34
    expect(center.count).toBe(66 * 34);
    // touched: columns ⌊123/10⌋ = 12 … ⌊777/10⌋ = 77, rows ⌊87/10⌋ = 8 … ⌊433/10⌋ = 43: 66 × 36
    expect(touched.count).toBe(66 * 36);
    expect(touched.min).toBe(8 * 100 + 12);
    expect(frac.min).toBe(touched.min);
    expect(frac.max).toBe(touched.max);
    expect(frac.count).toBeGreaterThan(center.count - 1);
    expect(frac.count).toBeLessThan(touched.count);
  });

  it('fractional on a constant raster: the weighted mean is the constant, percentiles too', async () => {
    const aoi = rect(200123.4, 5499000.6, 203456.7, 5499876.5);
    const b = await post({
      url: fixtureUrl('raster/synthetic/too_many_pixels.tif'),
      aoi,
      pixels: 'fractional',
      stats: ['mean', 'median', 'percentile_5', 'majority', 'std', 'unique', 'sum', 'count'],
    });
    expect(b).toMatchObject({ median: 7, percentile_5: 7, majority: 7, unique: [7] });
    expect(b.mean).toBeCloseTo(7, 12);
    expect(b.std).toBeCloseTo(0, 9);
    expect(b.sum).toBeCloseTo(7 * b.count, 6);
  });

  it('a circle smaller than a 3 km pixel: no centre inside, yet fractional gives the pixel value and its share', async () => {
    // lc.cog.tif: 3 km pixels. 300 m around a point: area π·300² ≈ 282,743 m², 3.1 % of one pixel.
    const aoi = { type: 'Point', coordinates: [-66.5, 18.2], radius: 300 };
    const url = fixtureUrl('raster/lc.cog.tif');
    const center = await post({ url, aoi, stats: ['count', 'mean'] });
    const frac = await post({ url, aoi, pixels: 'fractional', stats: ['count', 'mean', 'majority'] });
    const point = await post({ url, aoi: { type: 'Point', coordinates: [-66.5, 18.2] }, stats: ['mean'] });
    expect(center.count).toBe(0);
    expect(frac.count).toBeGreaterThan(0.02);
    expect(frac.count).toBeLessThan(0.04);
    expect(Math.abs(frac.data_area / frac.aoi_area - 1)).toBeLessThan(1e-3);
    // The circle lies within one pixel (300 m radius, far from its edges here, or the means differ).
    expect(frac.mean).toBe(point.mean);
  });

  it('a bare point ignores pixels', async () => {
    const aoi = { type: 'Point', coordinates: ll(600555, 5099555) };
    const plain = await post({ url: EDGES, aoi, stats: ['count', 'mean'] });
    const frac = await post({ url: EDGES, aoi, pixels: 'fractional', stats: ['count', 'mean'] });
    expect(frac).toEqual(plain);
    expect(plain).toMatchObject({ count: 1, mean: 44 * 100 + 55 });
  });

  it('an unknown pixels value is 422', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/zonal-stats/raster',
      payload: { url: EDGES, aoi: rect(600100, 5099600, 600200, 5099700), pixels: 'exact' },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0].path).toBe('/pixels');
  });
});
