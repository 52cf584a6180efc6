/**
 * Zones × time (issue 11): POST /api/v1/zonal-stats/raster/stac/search against a STAC API on loopback
 * (test/helpers/stac-api.ts: POST /search with pages through next links, a static ItemCollection) whose
 * Items have the structure the public catalogues publish (Sentinel-2 L2A and Landsat C2 L2: raster:bands
 * with scale/offset, classification:classes, proj:epsg) and small local COGs as assets, in two CRSs. The
 * numbers are the GDAL/numpy oracle's (fixtures/cases l7_circle_500m, elev_polygon_nodata), with the
 * Items' scale and offset applied by hand.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildTestApp } from '../helpers/build-app.ts';
import { startRangeServer, type RangeServer } from '../helpers/range-server.ts';
import { startStacApi, type Item, type StacApi } from '../helpers/stac-api.ts';

const oracle = (name: string) => ({
  request: JSON.parse(readFileSync(new URL(`../../fixtures/cases/${name}.request.json`, import.meta.url), 'utf8')) as { body: Record<string, unknown> },
  expected: JSON.parse(readFileSync(new URL(`../../fixtures/cases/${name}.expected.json`, import.meta.url), 'utf8')) as {
    response: Record<string, Record<string, number>>;
  },
});
const L7 = oracle('l7_circle_500m');
const ELEV = oracle('elev_polygon_nodata');
const COG = 'image/tiff; application=geotiff; profile=cloud-optimized';
// Landsat Collection 2 Level-2 surface reflectance scale and offset.
const LS_SCALE = 0.0000275;
const LS_OFFSET = -0.2;

function sentinel2(id: string, datetime: string, cog: string): Item {
  const bbox = [-34.916589, -8.040927, -34.8259656, -7.9498221];
  return {
    type: 'Feature',
    stac_version: '1.0.0',
    stac_extensions: [
      'https://stac-extensions.github.io/raster/v1.1.0/schema.json',
      'https://stac-extensions.github.io/classification/v1.0.0/schema.json',
      'https://stac-extensions.github.io/projection/v1.1.0/schema.json',
    ],
    id,
    collection: 'sentinel-2-l2a',
    bbox,
    geometry: {
      type: 'Polygon',
      coordinates: [
        [
          [bbox[0], bbox[1]],
          [bbox[2], bbox[1]],
          [bbox[2], bbox[3]],
          [bbox[0], bbox[3]],
          [bbox[0], bbox[1]],
        ],
      ],
    },
    properties: { datetime, platform: 'sentinel-2b', 'eo:cloud_cover': 12.5, 'proj:epsg': 31985, 's2:mgrs_tile': '25MBM' },
    links: [{ rel: 'self', href: `https://example.invalid/collections/sentinel-2-l2a/items/${id}` }],
    assets: {
      red: { href: cog, type: COG, roles: ['data', 'reflectance'], 'raster:bands': [{ data_type: 'uint8', nodata: 255, spatial_resolution: 30 }] },
      scl: {
        href: cog,
        type: COG,
        roles: ['data'],
        'raster:bands': [
          {
            data_type: 'uint8',
            spatial_resolution: 30,
            'classification:classes': [
              { value: 4, name: 'vegetation' },
              { value: 5, name: 'not_vegetated' },
              { value: 6, name: 'water' },
            ],
          },
        ],
      },
    },
  };
}

function landsat(id: string, datetime: string, cog: string): Item {
  const bbox = [5.7416667, 49.4416667, 6.5333333, 50.1916667];
  return {
    type: 'Feature',
    stac_version: '1.0.0',
    id,
    collection: 'landsat-c2-l2',
    bbox,
    geometry: {
      type: 'Polygon',
      coordinates: [
        [
          [bbox[0], bbox[1]],
          [bbox[2], bbox[1]],
          [bbox[2], bbox[3]],
          [bbox[0], bbox[3]],
          [bbox[0], bbox[1]],
        ],
      ],
    },
    properties: { datetime, platform: 'landsat-9', 'proj:epsg': 4326, 'landsat:wrs_path': '197' },
    links: [],
    assets: { red: { href: cog, type: COG, roles: ['data'], 'raster:bands': [{ data_type: 'int16', scale: LS_SCALE, offset: LS_OFFSET }] } },
  };
}

describe('POST /api/v1/zonal-stats/raster/stac/search', () => {
  let app: FastifyInstance;
  let files: RangeServer;
  let api: StacApi;
  const zoneOlinda = { type: 'Feature', id: 'olinda', properties: { site: 'olinda', sampled: '2024-02-20' }, geometry: L7.request.body['aoi'] };
  const zoneLux = { type: 'Feature', id: 'lux', properties: { site: 'lux', sampled: '2024-03-02' }, geometry: ELEV.request.body['aoi'] };
  beforeAll(async () => {
    files = await startRangeServer({ root: new URL('../../fixtures/raster/', import.meta.url).pathname });
    const l7 = files.url('/L7_ETMs.cog.tif');
    const elev = files.url('/elev.cog.tif');
    // Out of time order on purpose; two CRSs (UTM 25S and lon/lat).
    api = await startStacApi([
      sentinel2('S2B_25MBM_20240305_0_L2A', '2024-03-05T12:50:10Z', l7),
      sentinel2('S2B_25MBM_20240105_0_L2A', '2024-01-05T12:50:10Z', l7),
      landsat('LC09_L2SP_197025_20240301_02_T1', '2024-03-01T10:30:00Z', elev),
      sentinel2('S2A_25MBM_20240215_0_L2A', '2024-02-15T12:50:10Z', l7),
      landsat('LC09_L2SP_197025_20240115_02_T1', '2024-01-15T10:30:00Z', elev),
    ]);
    app = await buildTestApp({ workers: 2 });
  });
  afterAll(async () => {
    await app.close();
    await api.close();
    await files.close();
  });

  const search = (body: Record<string, unknown>, accept = 'application/x-ndjson') =>
    app.inject({ method: 'POST', url: '/api/v1/zonal-stats/raster/stac/search', headers: { accept }, payload: { asset: 'red', ...body } });
  const lines = (text: string) =>
    text
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as {
            index: number;
            id: string;
            item_id: string | null;
            datetime: string | null;
            statistics?: Record<string, Record<string, number>>;
            error?: { code: string; detail: string };
          },
      );

  it('time rule all: every Item a zone meets, rows by time per zone, pages followed, numbers as GDAL’s', async () => {
    const before = api.log.length;
    const res = await search({
      stac: { url: api.url('/') },
      aoi: { type: 'FeatureCollection', features: [zoneOlinda, zoneLux] },
      stats: L7.request.body['stats'],
      bands: [1],
    });
    expect(res.statusCode, res.body).toBe(200);
    const rows = lines(res.body);
    expect(rows.map((r) => [r.id, r.item_id])).toEqual([
      ['olinda', 'S2B_25MBM_20240105_0_L2A'],
      ['olinda', 'S2A_25MBM_20240215_0_L2A'],
      ['olinda', 'S2B_25MBM_20240305_0_L2A'],
      ['lux', 'LC09_L2SP_197025_20240115_02_T1'],
      ['lux', 'LC09_L2SP_197025_20240301_02_T1'],
    ]);
    // Paged 2 Items at a time: the landing page, then 3 POSTs, the later ones with the next link's token.
    const calls = api.log.slice(before);
    expect(calls.filter((c) => c.method === 'POST' && c.path === '/search').map((c) => c.body?.['token'] ?? null)).toEqual([null, 2, 4]);
    // Olinda: the oracle's band 1 (the S2 asset declares no scale); Luxembourg: the oracle's values × scale + offset.
    for (const r of rows.filter((x) => x.id === 'olinda')) {
      const want = L7.expected.response['band_1'] as Record<string, number>;
      for (const k of ['count', 'min', 'max', 'sum', 'median', 'nodata']) expect(r.statistics?.['band_1']?.[k], k).toBe(want[k]);
      expect(r.statistics?.['band_1']?.['mean']).toBeCloseTo(want['mean'] as number, 9);
    }
    const lux = rows.filter((x) => x.id === 'lux');
    for (const r of lux) {
      const want = ELEV.expected.response['band_1'] as Record<string, number>;
      expect(r.statistics?.['band_1']?.['count']).toBe(want['count']);
      for (const k of ['min', 'max', 'mean', 'median']) expect(r.statistics?.['band_1']?.[k], k).toBeCloseTo((want[k] as number) * LS_SCALE + LS_OFFSET, 12);
    }
  });

  it('asof, nearest and window pick by each zone’s date (its "sampled" property)', async () => {
    const body = (time: Record<string, unknown>) => ({
      stac: { url: api.url('/search') },
      aoi: { type: 'FeatureCollection', features: [zoneOlinda, zoneLux] },
      stats: ['count'],
      time,
    });
    const ids = async (time: Record<string, unknown>) => lines((await search(body(time))).body).map((r) => `${r.id}:${r.item_id}`);
    // Olinda sampled 2024-02-20: as of → 02-15, nearest → 02-15 (5 days) over 03-05 (14); Lux 2024-03-02: as of → 03-01.
    expect(await ids({ rule: 'asof', property: 'sampled' })).toEqual(['olinda:S2A_25MBM_20240215_0_L2A', 'lux:LC09_L2SP_197025_20240301_02_T1']);
    expect(await ids({ rule: 'nearest', property: 'sampled' })).toEqual(['olinda:S2A_25MBM_20240215_0_L2A', 'lux:LC09_L2SP_197025_20240301_02_T1']);
    expect(await ids({ rule: 'window', property: 'sampled', days: 16 })).toEqual([
      'olinda:S2A_25MBM_20240215_0_L2A',
      'olinda:S2B_25MBM_20240305_0_L2A',
      'lux:LC09_L2SP_197025_20240301_02_T1',
    ]);
    // A request date for every zone.
    expect(await ids({ rule: 'asof', date: '2024-01-31' })).toEqual(['olinda:S2B_25MBM_20240105_0_L2A', 'lux:LC09_L2SP_197025_20240115_02_T1']);
  });

  it('a zone with no date, or no Item, is that zone’s error row; the others are answered', async () => {
    const nowhere = { type: 'Feature', id: 'sea', properties: { sampled: '2024-02-01' }, geometry: { type: 'Point', coordinates: [-30, 0] } };
    const undated = { type: 'Feature', id: 'undated', properties: {}, geometry: L7.request.body['aoi'] };
    const res = await search({
      stac: { url: api.url('/') },
      aoi: { type: 'FeatureCollection', features: [nowhere, undated, zoneOlinda] },
      stats: ['count'],
      time: { rule: 'asof', property: 'sampled' },
    });
    const rows = lines(res.body);
    expect(rows.map((r) => [r.id, r.error?.code ?? r.item_id])).toEqual([
      ['sea', 'no_items'],
      ['undated', 'no_date'],
      ['olinda', 'S2A_25MBM_20240215_0_L2A'],
    ]);
    expect(rows[1]?.error?.detail).toMatch(/"sampled" property/);
  });

  it('a static ItemCollection, filtered here by datetime and collections; CSV with item columns', async () => {
    const res = await search(
      {
        stac: { url: api.url('/items.json'), datetime: '2024-02-01/2024-12-31', collections: ['sentinel-2-l2a'] },
        aoi: zoneOlinda,
        stats: ['count', 'mean'],
        categorical: true,
        asset: 'scl',
      },
      'text/csv',
    );
    expect(res.statusCode, res.body).toBe(200);
    const [header, ...rows] = res.body.trim().split('\r\n');
    expect(header).toBe('index,id,site,sampled,item_id,datetime,band,count,mean,classes,aoi_area,data_area,error_code,error_detail');
    expect(rows.map((r) => r.split(',').slice(4, 6).join(' '))).toEqual([
      'S2A_25MBM_20240215_0_L2A 2024-02-15T12:50:10Z',
      'S2B_25MBM_20240305_0_L2A 2024-03-05T12:50:10Z',
    ]);
  });

  it('classification:classes name the classes of a categorical answer', async () => {
    const res = await search({ stac: { url: api.url('/') }, aoi: zoneOlinda, stats: ['count'], categorical: true, asset: 'scl' }, 'application/json');
    expect(res.statusCode, res.body).toBe(200);
    const f = (res.json() as { features: { properties: { statistics: { band_1: { classes: Record<string, { name?: string; count: number }> } } } }[] })
      .features[0];
    const classes = f?.properties.statistics.band_1.classes ?? {};
    expect(Object.keys(classes).length).toBeGreaterThan(0);
    for (const [v, c] of Object.entries(classes)) expect(c.name).toBe({ '4': 'vegetation', '5': 'not_vegetated', '6': 'water' }[v]);
  });

  it('refusals name what to change', async () => {
    const bad = await search({ stac: { url: api.url('/') }, aoi: zoneOlinda, time: { rule: 'window', property: 'sampled' } });
    expect(bad.statusCode).toBe(422);
    expect(bad.json()).toMatchObject({ detail: expect.stringMatching(/needs "days"/) });
    const filterOnStatic = await search({ stac: { url: api.url('/items.json'), filter: { op: '=', args: [{ property: 'platform' }, 'x'] } }, aoi: zoneOlinda });
    expect(filterOnStatic.statusCode).toBe(422);
    expect(filterOnStatic.json()).toMatchObject({ detail: expect.stringMatching(/static ItemCollection cannot be filtered/) });
    const notApi = await search({ stac: { url: files.url('/elev.cog.tif') }, aoi: zoneOlinda });
    expect(notApi.statusCode).toBe(422);
    expect(notApi.json()).toMatchObject({ code: 'invalid_source', detail: expect.stringMatching(/neither a STAC API nor an ItemCollection/) });
  });

  it('more Items than ZONAL_MAX_STAC_ITEMS: 422 saying how to narrow; max_items takes the first ones', async () => {
    const small = await buildTestApp({ workers: 1, maxStacItems: 2 });
    try {
      const ask = (stac: Record<string, unknown>) =>
        small.inject({
          method: 'POST',
          url: '/api/v1/zonal-stats/raster/stac/search',
          headers: { accept: 'application/x-ndjson' },
          payload: { asset: 'red', stac, aoi: zoneOlinda, stats: ['count'] },
        });
      const over = await ask({ url: api.url('/') });
      expect(over.statusCode).toBe(422);
      expect(over.json()).toMatchObject({ code: 'too_many_items', detail: expect.stringMatching(/more than 2 Items.*narrow it .* or set max_items/) });
      const first = await ask({ url: api.url('/'), max_items: 2 });
      expect(first.statusCode, first.body).toBe(200);
      // The API's first two Items (in its order), sorted by time.
      expect(lines(first.body).map((r) => r.item_id)).toEqual(['S2B_25MBM_20240105_0_L2A', 'S2B_25MBM_20240305_0_L2A']);
    } finally {
      await small.close();
    }
  });

  it('NDVI from two 10 m assets with the 20 m scene classification as mask, per zone and Item: GDAL’s numbers', async () => {
    // fixtures/cases-stac/s2_ndvi_scl.json (tools/fixtures/make_s2.py): numpy over GDAL's nearest resampling of SCL.
    const oracle = JSON.parse(readFileSync(new URL('../../fixtures/cases-stac/s2_ndvi_scl.json', import.meta.url), 'utf8')) as {
      zones: unknown[];
      expression: string;
      exclude: number[];
      expected: Record<string, number>[];
    };
    const s2files = await startRangeServer({ root: new URL('../../fixtures/raster/s2/', import.meta.url).pathname });
    const asset = (file: string, bands: Record<string, unknown>) => ({ href: s2files.url(`/${file}`), type: COG, roles: ['data'], 'raster:bands': [bands] });
    const item = (id: string, datetime: string): Item => ({
      type: 'Feature',
      stac_version: '1.0.0',
      id,
      collection: 'sentinel-2-l2a',
      bbox: [-34.92, -8.0, -34.88, -7.96],
      geometry: null,
      properties: { datetime, 'proj:epsg': 32725, 'eo:cloud_cover': 30 },
      links: [],
      assets: {
        red: asset('B04.tif', { nodata: 0, data_type: 'uint16', scale: 0.0001, offset: -0.1, spatial_resolution: 10 }),
        nir: asset('B08.tif', { nodata: 0, data_type: 'uint16', scale: 0.0001, offset: -0.1, spatial_resolution: 10 }),
        scl: asset('SCL.tif', {
          data_type: 'uint8',
          spatial_resolution: 20,
          'classification:classes': [
            { value: 3, name: 'cloud_shadow' },
            { value: 8, name: 'cloud_medium_probability' },
            { value: 9, name: 'cloud_high_probability' },
          ],
        }),
        thumbnail: { href: 'thumb.jpg', type: 'image/jpeg', roles: ['thumbnail'] },
      },
    });
    const s2api = await startStacApi([item('S2A_25MBM_20240110_0_L2A', '2024-01-10T12:50:00Z'), item('S2B_25MBM_20240115_0_L2A', '2024-01-15T12:50:00Z')]);
    try {
      const fc = { type: 'FeatureCollection', features: oracle.zones.map((geometry, i) => ({ type: 'Feature', id: i, properties: {}, geometry })) };
      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/zonal-stats/raster/stac/search',
        headers: { accept: 'application/x-ndjson' },
        payload: {
          stac: { url: s2api.url('/') },
          aoi: fc,
          expression: oracle.expression.replace(/\s+/g, ' '),
          mask: { asset: 'scl', exclude: oracle.exclude },
          stats: ['count', 'nodata', 'mean', 'min', 'max', 'sum'],
        },
      });
      expect(res.statusCode, res.body).toBe(200);
      const rows = lines(res.body);
      expect(rows.map((r) => `${r.id}:${r.item_id}`)).toEqual(
        oracle.zones.flatMap((_, i) => [`${i}:S2A_25MBM_20240110_0_L2A`, `${i}:S2B_25MBM_20240115_0_L2A`]),
      );
      for (const r of rows) {
        const want = oracle.expected[r.index] as Record<string, number>;
        const got = r.statistics?.['expression'] as Record<string, number>;
        for (const k of ['count', 'nodata', 'masked']) expect(got[k], `zone ${r.index} ${k}`).toBe(want[k]);
        for (const k of ['mean', 'min', 'max', 'sum'])
          expect(Math.abs((got[k] as number) - (want[k] as number)), `zone ${r.index} ${k}`).toBeLessThanOrEqual(
            1e-12 * Math.max(1, Math.abs(want[k] as number)),
          );
      }
      // A mask asset named but the data on another CRS or a missing asset: that Item's rows carry the error.
      const missing = await app.inject({
        method: 'POST',
        url: '/api/v1/zonal-stats/raster/stac/search',
        headers: { accept: 'application/x-ndjson' },
        payload: { stac: { url: s2api.url('/') }, aoi: fc.features[0], expression: 'swir - red', stats: ['count'] },
      });
      expect(missing.statusCode).toBe(200);
      expect(lines(missing.body).map((r) => r.error?.code)).toEqual(['validation_failed', 'validation_failed']);
      expect(lines(missing.body)[0]?.error?.detail).toMatch(/"swir", which is not an input here: the inputs are red, nir, scl/);
    } finally {
      await s2api.close();
      await s2files.close();
    }
  });
});
