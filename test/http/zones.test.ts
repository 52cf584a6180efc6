/**
 * Many zones in one request (contract §8): a FeatureCollection `aoi` on the raster and vector endpoints.
 * Every zone's statistics must equal the single-zone endpoint's answer for that zone (the single-zone
 * answers are themselves checked by the oracle cases); errors stay on their zone; representations by
 * Accept; limits; streaming and disconnects over a real loopback server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { parquetReadObjects } from 'hyparquet';
import { buildTestApp, fixtureUrl } from '../helpers/build-app.ts';

const TINY = fixtureUrl('raster/synthetic/tiny_int16.tif');
const NC = fixtureUrl('demo/nc.parquet');
const RING: [number, number][] = [
  [14.9994, 45.1523],
  [15.0014, 45.1523],
  [15.0014, 45.1543],
  [14.9994, 45.1543],
  [14.9994, 45.1523],
];
const SQUARE = (x: number, y: number, d: number) => ({
  type: 'Polygon',
  coordinates: [
    [
      [x, y],
      [x + d, y],
      [x + d, y + d],
      [x, y + d],
      [x, y],
    ],
  ],
});

const ZONES = [
  { type: 'Feature', id: 'a', properties: { name: 'A, "one"', n: 1 }, geometry: { type: 'Polygon', coordinates: [RING] } },
  {
    type: 'Feature',
    id: 7,
    properties: null,
    geometry: {
      type: 'Polygon',
      coordinates: [
        [
          [0, 0],
          [1, 1],
          [0, 0],
        ],
      ],
    },
  },
  { type: 'Feature', properties: { name: 'pt' }, geometry: { type: 'Point', coordinates: [15.0004, 45.1533] } },
  { type: 'Feature', properties: { name: 'circle' }, geometry: { type: 'Point', coordinates: [15.0004, 45.1533] } },
  { type: 'Feature', properties: { name: 'bad lon' }, geometry: { type: 'Point', coordinates: [500, 45] } },
];

describe('FeatureCollection aoi (contract §8)', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await buildTestApp({ maxZones: 50 });
  });
  afterAll(async () => app.close());
  const post = (path: string, payload: unknown, accept?: string) =>
    app.inject({ method: 'POST', url: `/api/v1/zonal-stats/${path}`, payload: payload as Record<string, unknown>, headers: accept ? { accept } : {} });

  it('a Feature is answered exactly as its geometry', async () => {
    const plain = await post('raster', { url: TINY, aoi: ZONES[0]!.geometry, stats: ['count', 'mean'] });
    const feature = await post('raster', { url: TINY, aoi: ZONES[0], stats: ['count', 'mean'] });
    expect(feature.statusCode).toBe(200);
    expect(feature.json()).toEqual(plain.json());
    expect(plain.json().band_1.count).toBe(23);
  });

  it('JSON: a FeatureCollection in input order, ids and properties kept, each zone as the single-zone endpoint answers it, errors on their zone', async () => {
    const res = await post('raster', { url: TINY, aoi: { type: 'FeatureCollection', features: ZONES }, radius: 60, stats: ['count', 'mean', 'sum'] });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const fc = res.json();
    expect(fc.type).toBe('FeatureCollection');
    expect(fc.features.map((f: { id: unknown }) => f.id)).toEqual(['a', 7, null, null, null]);
    expect(fc.features[0].properties.name).toBe('A, "one"');
    expect(fc.features[0].geometry).toBeNull();
    // Zone by zone, the single-zone answer (the top-level radius applies to Points without their own).
    for (const k of [0, 2, 3]) {
      const geometry = { ...ZONES[k]!.geometry, ...(ZONES[k]!.geometry.type === 'Point' ? { radius: 60 } : {}) };
      const single = await post('raster', { url: TINY, aoi: geometry, stats: ['count', 'mean', 'sum'] });
      expect(fc.features[k].properties.statistics, `zone ${k}`).toEqual(single.json());
    }
    expect(fc.features[1].properties.error).toMatchObject({ status: 422, code: 'validation_failed' });
    expect(fc.features[1].properties.error.detail).toMatch(/Zone 1's Polygon has too few positions/);
    expect(fc.features[4].properties.error.detail).toMatch(/longitude −180\.\.180/);
  });

  it('include_geometry returns each input geometry', async () => {
    const res = await post('raster', { url: TINY, aoi: { type: 'FeatureCollection', features: ZONES.slice(0, 1) }, include_geometry: true });
    expect(res.json().features[0].geometry).toEqual(ZONES[0]!.geometry);
  });

  it('NDJSON: one line per zone in input order, with index, id, properties and statistics or error', async () => {
    const res = await post('raster', { url: TINY, aoi: { type: 'FeatureCollection', features: ZONES }, stats: ['count'] }, 'application/x-ndjson');
    expect(res.headers['content-type']).toMatch(/^application\/x-ndjson/);
    const lines = res.body
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.index)).toEqual([0, 1, 2, 3, 4]);
    expect(lines[0]).toEqual({
      index: 0,
      id: 'a',
      properties: { name: 'A, "one"', n: 1 },
      statistics: { band_1: { count: 23, aoi_area: expect.any(Number), data_area: expect.any(Number) } },
    });
    expect(lines[1].error.code).toBe('validation_failed');
    expect(lines[2].statistics.band_1.count).toBe(1);
  });

  it('CSV: one row per zone and band, property columns, JSON text for lists, the error columns', async () => {
    const res = await post(
      'raster',
      { url: TINY, aoi: { type: 'FeatureCollection', features: ZONES.slice(0, 3) }, stats: ['count', 'unique'], bands: [1] },
      'text/csv',
    );
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    const rows = res.body.trim().split('\r\n');
    expect(rows[0]).toBe('index,id,name,n,band,count,unique,aoi_area,data_area,error_code,error_detail');
    expect(rows[1]).toMatch(/^0,a,"A, ""one""",1,1,23,"\[[-\d,]+\]",[\d.]+,[\d.]+,,$/);
    expect(rows[2]).toMatch(/^1,7,,,,,,,,validation_failed,"?Zone 1's Polygon/);
    expect(rows[3]).toMatch(/^2,,pt,,1,1,\[-?\d+\],0,0,,$/);
  });

  it('GeoParquet: one row per zone, each statistic the JSON answer has, the geometry as WKB', async () => {
    const payload = { url: TINY, aoi: { type: 'FeatureCollection', features: ZONES.slice(0, 3) }, radius: 60, stats: ['count', 'mean'] };
    const res = await post('raster', payload, 'application/vnd.apache.parquet');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/vnd.apache.parquet');
    const rows = (await parquetReadObjects({ file: new Uint8Array(res.rawPayload).buffer })) as Record<string, unknown>[];
    const json = (await post('raster', payload)).json();
    expect(rows.map((r) => r['index'])).toEqual([0, 1, 2]);
    for (const k of [0, 2]) {
      const band = json.features[k].properties.statistics.band_1;
      expect([rows[k]?.['band_1_count'], rows[k]?.['band_1_mean']], `zone ${k}`).toEqual([band.count, band.mean]);
    }
    expect(rows[1]?.['error_code']).toBe('validation_failed');
    expect(rows[0]?.['geometry']).toEqual(ZONES[0]!.geometry);
  });

  it('vector: each zone as the single-zone endpoint answers it; CSV names the column', async () => {
    const features = [
      { type: 'Feature', id: 1, properties: { site: 'x' }, geometry: { type: 'Point', coordinates: [-78.64, 35.78], radius: 20000 } },
      { type: 'Feature', id: 2, properties: { site: 'y' }, geometry: SQUARE(-80, 35, 0.5) },
    ];
    const res = await post('vector', { url: NC, aoi: { type: 'FeatureCollection', features }, columns: ['BIR74'], stats: ['count', 'sum'] });
    expect(res.statusCode).toBe(200);
    for (const [k, f] of features.entries()) {
      const single = await post('vector', { url: NC, aoi: f.geometry, columns: ['BIR74'], stats: ['count', 'sum'] });
      expect(res.json().features[k].properties.statistics).toEqual(single.json());
    }
    const csv = await post('vector', { url: NC, aoi: { type: 'FeatureCollection', features }, columns: ['BIR74'], stats: ['count'] }, 'text/csv');
    expect(csv.body.split('\r\n')[0]).toBe('index,id,site,column,count,aoi_area,data_area,error_code,error_detail');
    expect(csv.body.split('\r\n')[1]).toMatch(/^0,1,x,BIR74,\d+,/);
  });

  it('a problem of the request fails the whole request (unknown statistic, missing band, unreadable source)', async () => {
    const fc = { type: 'FeatureCollection', features: ZONES.slice(0, 2) };
    expect((await post('raster', { url: TINY, aoi: fc, stats: ['bogus'] })).statusCode).toBe(422);
    const band = await post('raster', { url: TINY, aoi: fc, bands: [9] });
    expect(band.statusCode).toBe(422);
    expect(band.json().code).toBe('unknown_band');
    expect((await post('raster', { url: fixtureUrl('raster/nope.tif'), aoi: fc })).statusCode).toBe(422);
  });

  it('more zones than ZONAL_MAX_ZONES: 413 with the figure and the limit', async () => {
    const many = Array.from({ length: 51 }, () => ZONES[0]);
    const res = await post('raster', { url: TINY, aoi: { type: 'FeatureCollection', features: many } });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ code: 'too_many_zones', limit_zones: 50, zones: 51 });
    expect(res.json().detail).toMatch(/51 features, above the limit of 50 zones/);
  });

  it('an empty FeatureCollection is an empty answer', async () => {
    const res = await post('raster', { url: TINY, aoi: { type: 'FeatureCollection', features: [] } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ type: 'FeatureCollection', features: [] });
  });
});
