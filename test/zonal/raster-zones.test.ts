/**
 * Zones given as a raster (issue 24): `zones: {url, band}` in place of `aoi`, one row per zone value.
 * Expected answers from exactextract's CLI over the zones raster made polygons (fixtures/exactextract/zones/,
 * tools/oracle/raster_zones_oracle.py; README "Zones as a raster"), compared by the rules of
 * test/zonal/exactextract.test.ts; the center and all_touched rules on a finer zones raster from numpy
 * (`*.rules.json`, the same script).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, fixtureUrl } from '../helpers/build-app.ts';
import { agrees, asked, batches, type Cast } from '../helpers/exactextract.ts';

const DIR = new URL('../../fixtures/exactextract/zones/', import.meta.url);
const read = (f: string): unknown => JSON.parse(readFileSync(new URL(f, DIR), 'utf8'));

interface ZonesOracle {
  value_raster: string;
  band: number;
  zones_raster: string;
  weights_raster: string | null;
  rows: { zone: number; stats: Record<string, unknown> }[];
}

interface RulesOracle {
  rules: Record<
    'center' | 'all_touched',
    { zone: number; count: number; sum: number; min: number | null; max: number | null; nodata: number; cell_id: number[] }[]
  >;
}

interface Row {
  index: number;
  id: number;
  properties: { zone: number };
  statistics?: Record<string, Record<string, unknown>>;
  error?: { code: string };
}

const ndjson = (body: string): Row[] =>
  body
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Row);

describe('zones given as a raster', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await buildTestApp();
  });
  afterAll(async () => app.close());

  const post = (payload: Record<string, unknown>, accept = 'application/x-ndjson') =>
    app.inject({ method: 'POST', url: '/api/v1/zonal-stats/raster', headers: { accept }, payload });

  const files: [string, Cast][] = [
    ['float32_zones_equal.json', 'float32'],
    ['float32_zones_coarse.json', 'float32'],
    ['float32_zones_fine.json', 'float32'],
    ['elev_zones_coarse.json', 'int'],
  ];
  it.each(files)("%s: every zone and operation as exactextract's CLI over the zones made polygons", async (file, cast) => {
    const o = read(file) as ZonesOracle;
    const ops = Object.keys((o.rows[0] as ZonesOracle['rows'][number]).stats).filter((op) => op !== 'majority');
    const items = ops.map((op) => ({ op, ...(asked(op) as NonNullable<ReturnType<typeof asked>>) }));
    let compared = 0;
    for (const batch of batches(items)) {
      const weighted = batch.some((b) => b.op.startsWith('weighted_'));
      const res = await post({
        url: fixtureUrl(o.value_raster),
        zones: { url: fixtureUrl(o.zones_raster), band: 1 },
        pixels: 'fractional',
        stats: batch.map((b) => b.stat),
        ...(weighted && o.weights_raster ? { weights: { url: fixtureUrl(o.weights_raster) } } : {}),
      });
      expect(res.statusCode, res.body).toBe(200);
      const rows = ndjson(res.body);
      // One row per zone value over the value raster, ascending: the same zones as exactextract's.
      expect(rows.map((r) => r.id)).toEqual(o.rows.map((r) => r.zone));
      rows.forEach((row, i) => {
        const want = o.rows[i] as ZonesOracle['rows'][number];
        expect(row.index).toBe(i);
        expect(row.properties).toEqual({ zone: want.zone });
        const band = row.statistics?.['band_1'] as Record<string, unknown>;
        for (const b of batch) {
          const empty = want.stats['count'] === 0;
          expect(
            agrees(b.op, band[b.key], want.stats[b.op], b.cast ? cast : null, empty),
            `${file} zone ${want.zone} ${b.op}: got ${JSON.stringify(band[b.key])}, exactextract ${JSON.stringify(want.stats[b.op])}`,
          ).toBe(true);
          compared++;
        }
      });
    }
    expect(compared).toBeGreaterThan(50);
  });

  it.each(['float32_zones_fine', 'float32_zones_equal', 'float32_zones_coarse', 'elev_zones_coarse'])(
    '%s: the center and all_touched rules, as numpy selects the cells',
    async (name) => {
      const o = read(`${name}.json`) as ZonesOracle;
      const rules = (read(`${name}.rules.json`) as RulesOracle).rules;
      for (const pixels of ['center', 'all_touched'] as const) {
        const res = await post({
          url: fixtureUrl(o.value_raster),
          zones: { url: fixtureUrl(o.zones_raster) },
          pixels,
          stats: ['count', 'sum', 'min', 'max', 'nodata', 'cell_id'],
        });
        expect(res.statusCode, res.body).toBe(200);
        const rows = ndjson(res.body);
        expect(
          rows.map((r) => r.id),
          pixels,
        ).toEqual(rules[pixels].map((r) => r.zone));
        rows.forEach((row, i) => {
          const want = rules[pixels][i] as RulesOracle['rules']['center'][number];
          const got = row.statistics?.['band_1'] as Record<string, unknown>;
          expect(
            { count: got['count'], min: got['min'], max: got['max'], nodata: got['nodata'], cell_id: got['cell_id'] },
            `${pixels} zone ${want.zone}`,
          ).toEqual({
            count: want.count,
            min: want.min,
            max: want.max,
            nodata: want.nodata,
            cell_id: want.cell_id,
          });
          if (want.count > 0) expect(Math.abs((got['sum'] as number) - want.sum)).toBeLessThanOrEqual(1e-9 * Math.abs(want.sum));
        });
      }
    },
  );

  it('a multi-block raster as its own zones (Landsat 7 band 1 over band 2, 9 blocks each): 177 zones as numpy counts them', async () => {
    interface L7 {
      value_raster: string;
      band: number;
      zones_band: number;
      rows: { zone: number; count: number; sum: number; min: number; max: number; first_cell: number; last_cell: number }[];
    }
    const o = read('l7_band1_zones.json') as L7;
    const url = fixtureUrl(o.value_raster);
    const res = await post({ url, bands: [o.band], zones: { url, band: o.zones_band }, stats: ['count', 'sum', 'min', 'max', 'cell_id'] });
    expect(res.statusCode, res.body.slice(0, 500)).toBe(200);
    const rows = ndjson(res.body);
    expect(rows.map((r) => r.id)).toEqual(o.rows.map((r) => r.zone));
    rows.forEach((row, i) => {
      const want = o.rows[i] as L7['rows'][number];
      const got = row.statistics?.[`band_${o.band}`] as { count: number; sum: number; min: number; max: number; cell_id: number[] };
      expect({ count: got.count, sum: got.sum, min: got.min, max: got.max }, `zone ${want.zone}`).toEqual({
        count: want.count,
        sum: want.sum,
        min: want.min,
        max: want.max,
      });
      expect([got.cell_id[0], got.cell_id[got.cell_id.length - 1]]).toEqual([want.first_cell, want.last_cell]);
    });
  });

  it("answers as a FeatureCollection, CSV and GeoParquet too; each zone's aoi_area is the ground area of its cells", async () => {
    const o = read('float32_zones_equal.json') as ZonesOracle;
    const body = { url: fixtureUrl(o.value_raster), zones: { url: fixtureUrl(o.zones_raster) }, stats: ['count'] };
    const fc = await post(body, 'application/json');
    expect(fc.statusCode, fc.body).toBe(200);
    const features = (fc.json() as { type: string; features: { id: number; properties: Record<string, unknown>; geometry: unknown }[] }).features;
    expect(features.map((f) => f.id)).toEqual(o.rows.map((r) => r.zone));
    expect(features[0]?.geometry).toBeNull();
    const csv = await post(body, 'text/csv');
    expect(csv.statusCode).toBe(200);
    expect(csv.body.split('\n')[0]).toContain('zone');
    const parquet = await post(body, 'application/vnd.apache.parquet');
    expect(parquet.statusCode).toBe(200);
    // The value raster as its own zones: a zone per distinct valid value, each all data: its aoi_area is its
    // data_area, and together they are the data_area of a polygon around the whole raster.
    const self = ndjson((await post({ url: fixtureUrl(o.value_raster), zones: { url: fixtureUrl(o.value_raster) }, stats: ['count'] })).body);
    const around = {
      type: 'Polygon',
      coordinates: [
        [
          [5.98, 49.75],
          [6.17, 49.75],
          [6.17, 49.9],
          [5.98, 49.9],
          [5.98, 49.75],
        ],
      ],
    };
    const all = await post({ url: fixtureUrl(o.value_raster), aoi: around, stats: ['count', 'variety'] }, 'application/json');
    const whole = (all.json() as { band_1: { count: number; variety: number; data_area: number } }).band_1;
    expect(self.length).toBe(whole.variety);
    let aoi = 0;
    for (const r of self) {
      const b = r.statistics?.['band_1'] as { aoi_area: number; data_area: number };
      expect(b.aoi_area).toBeCloseTo(b.data_area, 6);
      aoi += b.aoi_area;
    }
    expect(Math.abs(aoi - whole.data_area)).toBeLessThanOrEqual(1e-9 * whole.data_area);
  });

  it('refuses what it cannot answer exactly, in the user’s words', async () => {
    const value = fixtureUrl('exactextract/oracle/float32.tif');
    const zones = { url: fixtureUrl('exactextract/zones/float32_zones_equal.tif') };
    const problem = async (payload: Record<string, unknown>, status: number, code: string, text: RegExp) => {
      const res = await post(payload, 'application/json');
      expect(res.statusCode, res.body).toBe(status);
      const p = res.json() as { code: string; detail: string };
      expect(p.code).toBe(code);
      expect(p.detail).toMatch(text);
    };
    await problem({ url: value, stats: ['count'] }, 422, 'validation_failed', /Give the zones: "aoi" .* or "zones"/);
    await problem({ url: value, zones, aoi: { type: 'Point', coordinates: [6, 49.8] } }, 422, 'validation_failed', /either "aoi" or "zones"/);
    await problem({ url: value, zones: { asset: 'zones' } }, 422, 'validation_failed', /"asset" on raster\/stac only/);
    await problem({ url: value, zones: { ...zones, band: 2 } }, 422, 'unknown_band', /zones raster has no band 2/);
    // The tiny synthetic grid (UTM 33N, 10 m): zones 20 m cells shifted by 5 m, another CRS, 64-bit ids.
    const tiny = fixtureUrl('raster/synthetic/tiny_uint8.tif');
    const synthetic = (f: string) => ({ url: fixtureUrl(`raster/synthetic/${f}`) });
    await problem(
      { url: tiny, zones: synthetic('tiny_weights_shifted.tif') },
      422,
      'validation_failed',
      /cannot be laid on this raster: the cell edges .*grid is origin/,
    );
    await problem({ url: tiny, zones: synthetic('tiny_4326.tif') }, 422, 'validation_failed', /not in the CRS of the value raster/);
    await problem({ url: tiny, zones: synthetic('tiny_uint64.tif') }, 422, 'validation_failed', /uint64 values: zone ids must fit/);
    // Finer (5 m) and coarser (20 m) zones on the same grid are answered.
    for (const f of ['tiny_weights_5m.tif', 'tiny_weights_20m.tif']) {
      const ok = await post({ url: tiny, zones: synthetic(f), stats: ['count'] });
      expect(ok.statusCode, ok.body).toBe(200);
    }
    await problem({ url: value, zones, approx_stats: true }, 422, 'validation_failed', /approx_stats/);
    const few = await buildTestApp({ maxZones: 3 });
    try {
      const res = await few.inject({ method: 'POST', url: '/api/v1/zonal-stats/raster', payload: { url: value, zones } });
      expect(res.statusCode, res.body).toBe(413);
      expect((res.json() as { detail: string }).detail).toMatch(/more than 3 distinct values/);
    } finally {
      await few.close();
    }
    // Zones × time takes polygons; so do jobs.
    const search = await app.inject({
      method: 'POST',
      url: '/api/v1/zonal-stats/raster/stac/search',
      payload: { stac: { url: 'https://example.com/stac' }, zones, aoi: { type: 'Point', coordinates: [6, 49.8] } },
    });
    expect(search.statusCode).toBeGreaterThanOrEqual(400);
    expect(search.statusCode).toBeLessThan(500);
  });
});
