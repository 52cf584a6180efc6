/** Request details outside the contract's tables: request ids, GeoJSON members, degenerate polygons. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, fixtureUrl } from '../helpers/build-app.ts';

const TINY = fixtureUrl('raster/synthetic/tiny_int16.tif');
const RING: [number, number][] = [
  [14.9994, 45.1523],
  [15.0014, 45.1523],
  [15.0014, 45.1543],
  [14.9994, 45.1543],
  [14.9994, 45.1523],
];

describe('request details', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await buildTestApp();
  });
  afterAll(async () => app.close());
  const post = (payload: unknown, headers: Record<string, string> = {}) =>
    app.inject({ method: 'POST', url: '/api/v1/zonal-stats/raster', payload: payload as Record<string, unknown>, headers });

  it('keeps a plain client x-request-id and echoes it', async () => {
    const res = await post({ url: TINY, aoi: { type: 'Polygon', coordinates: [RING] } }, { 'x-request-id': 'job-42.a_b:c' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-request-id']).toBe('job-42.a_b:c');
  });

  it.each([
    ['too long', 'x'.repeat(129)],
    ['spaces and quotes', 'a b"c'],
    ['empty', ''],
  ])('replaces an x-request-id that is %s', async (_n, id) => {
    const res = await post({ url: TINY, aoi: { type: 'Polygon', coordinates: [RING] } }, { 'x-request-id': id });
    expect(res.headers['x-request-id']).not.toBe(id);
    expect(String(res.headers['x-request-id'])).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('accepts a GeoJSON bbox member (RFC 7946 §5) and answers as without it', async () => {
    const plain = await post({ url: TINY, aoi: { type: 'Polygon', coordinates: [RING] }, stats: ['count', 'sum'] });
    const withBBox = await post({
      url: TINY,
      aoi: { type: 'Polygon', coordinates: [RING], bbox: [14.9994, 45.1523, 15.0014, 45.1543] },
      stats: ['count', 'sum'],
    });
    expect(withBBox.statusCode).toBe(200);
    expect(withBBox.json()).toEqual(plain.json());
    expect(plain.json().band_1.count).toBe(23);
  });

  it('a polygon whose hole is its whole shell has no area: 422 invalid_geometry', async () => {
    const res = await post({ url: TINY, aoi: { type: 'Polygon', coordinates: [RING, [...RING].reverse()] } });
    expect(res.statusCode).toBe(422);
    expect(res.json().code).toBe('invalid_geometry');
  });
});
