/**
 * Band math, class masks, histograms and classes (issue 11) through the endpoint: the numbers are checked
 * against the GDAL/numpy oracle in fixtures/cases (l7_ndvi, l7_mask_*, l7_expression_*, elev_histogram_*,
 * lc_categorical); here, the refusals in the user's words, and many zones answering as each alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, fixtureUrl } from '../helpers/build-app.ts';

const L7 = fixtureUrl('raster/L7_ETMs.cog.tif');
const CIRCLE = { type: 'Point', coordinates: [-34.8619603, -7.9940087], radius: 500 };

describe('expression, mask, histogram, categorical', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await buildTestApp({ workers: 2 });
  });
  afterAll(async () => app.close());
  const post = (body: Record<string, unknown>) => app.inject({ method: 'POST', url: '/api/v1/zonal-stats/raster', payload: { url: L7, aoi: CIRCLE, ...body } });

  it.each([
    [{ expression: 'b9 - b1' }, /"b9", which is not an input here: the inputs are b1, b2, b3, b4, b5, b6/],
    [{ expression: 'b1 &&& b2' }, /cannot be read/],
    [{ expression: 'process.exit(1)' }, /member|not a function/],
    [{ expression: 'foo(b1)' }, /"foo", which is not a function here/],
    [{ expression: 'b1 + 1', bands: [1] }, /either "bands" or an "expression"/],
    [{ mask: { band: 1 } }, /"include" or .* "exclude"|include.*exclude/],
    [{ mask: { band: 1, include: [1], exclude: [2] } }, /exactly one/],
    [{ histogram: { bins: [1, 1, 2] } }, /increase strictly/],
    [{ histogram: { bins: [1, 2], range: [0, 3] } }, /not both/],
    [{ histogram: { bins: 4, range: [3, 3] } }, /low below high/],
  ])('%j → 422 naming what to change', async (body, message) => {
    const res = await post(body);
    expect(res.statusCode, res.body).toBe(422);
    expect(res.headers['content-type']).toMatch(/problem\+json/);
    expect((res.json() as { detail: string }).detail).toMatch(message);
  });

  it('a mask band the file does not have is unknown_band', async () => {
    const res = await post({ mask: { band: 7, exclude: [0] } });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: 'unknown_band' });
  });

  it('many zones: each zone’s expression, mask, histogram and classes equal its own request’s', async () => {
    const extra = {
      expression: '(b4 - b3) / (b4 + b3)',
      mask: { band: 6, exclude: [120, 121, 122] },
      histogram: { bins: 6 },
      categorical: true,
      stats: ['count', 'mean', 'nodata'],
    };
    const zones = [CIRCLE, { type: 'Point', coordinates: [-34.88, -8.0], radius: 300 }, { type: 'Point', coordinates: [-34.87, -8.01] }];
    const fc = { type: 'FeatureCollection', features: zones.map((geometry, i) => ({ type: 'Feature', id: i, properties: {}, geometry })) };
    const many = await post({ ...extra, aoi: fc });
    expect(many.statusCode, many.body).toBe(200);
    const features = (many.json() as { features: { properties: { statistics: Record<string, unknown> } }[] }).features;
    for (const [i, aoi] of zones.entries()) {
      const one = await post({ ...extra, aoi });
      expect(one.statusCode, one.body).toBe(200);
      expect(features[i]?.properties.statistics).toEqual(one.json());
      expect(Object.keys(one.json() as object)).toEqual(['expression']);
    }
  });

  it('CSV of many zones carries the expression row and its masked count', async () => {
    const fc = { type: 'FeatureCollection', features: [{ type: 'Feature', properties: { site: 'a' }, geometry: CIRCLE }] };
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/zonal-stats/raster',
      headers: { accept: 'text/csv' },
      payload: { url: L7, aoi: fc, expression: 'b4 - b3', mask: { band: 1, exclude: [60] }, stats: ['count'] },
    });
    expect(res.statusCode, res.body).toBe(200);
    const [header, row] = res.body.trim().split('\r\n');
    expect(header).toContain('masked');
    expect(row).toMatch(/^0,,a,expression,/);
  });
});
