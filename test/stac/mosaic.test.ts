/**
 * Zones × time merged by day (issue 25, `"mosaic": "day"`): POST /api/v1/zonal-stats/raster/stac/search over
 * three overlapping Items of one day, one of them in another UTM zone, and one Item five days later
 * (fixtures/mosaic/, tools/fixtures/mosaic_fixtures.py), served by a real HTTP server honouring Range, as a
 * static ItemCollection and through a STAC API that sends the day the other way round. The numbers are those
 * of tools/oracle/mosaic_oracle.py: a GDAL VRT of the Items in reverse search order (first valid wins), other
 * CRSs warped by nearest neighbour onto the answering grid, the zone rasterized by GDAL, statistics by numpy.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildTestApp } from '../helpers/build-app.ts';
import { startRangeServer, type RangeServer } from '../helpers/range-server.ts';
import { startStacApi, type Item, type StacApi } from '../helpers/stac-api.ts';
import { dayGroups, zoneDays } from '../../src/zonal/stac-mosaic.ts';
import type { FoundItem } from '../../src/stac/search.ts';

type Stats = Record<string, unknown>;
interface Row {
  zone: string;
  item_id: string;
  datetime: string;
  item_ids: string[];
  statistics?: Record<string, Stats>;
  error?: string;
}
interface Line {
  index: number;
  id: string;
  item_id: string;
  datetime: string;
  item_ids?: string[];
  statistics?: Record<string, Stats>;
  error?: { code: string; detail: string };
}

const fixture = (name: string): unknown => JSON.parse(readFileSync(new URL(`../../fixtures/mosaic/${name}`, import.meta.url), 'utf8'));
const ORACLE = fixture('expected.json') as {
  cases: Record<string, Record<string, unknown>>;
  orders: Record<string, string[]>;
  expected: Record<string, Record<string, Row[]>>;
};
const ZONES = fixture('zones.json') as { features: { id: string }[] };
const ITEMS = (fixture('items.json') as { features: Item[] }).features;

/** Numbers within 1e-11 of the oracle's (relative above 1); counts, lists and maps exactly. */
function expectStats(got: Stats | undefined, want: Stats, where: string): void {
  expect(got, where).toBeDefined();
  for (const [k, w] of Object.entries(want)) {
    const g = (got as Stats)[k];
    if (typeof w === 'number' && !Number.isInteger(w)) {
      expect(typeof g, `${where} ${k}`).toBe('number');
      expect(Math.abs((g as number) - w), `${where} ${k}: ${String(g)} vs ${w}`).toBeLessThanOrEqual(1e-11 * Math.max(1, Math.abs(w)));
    } else if (k === 'histogram') {
      const h = w as { edges: number[]; counts: number[] };
      expect((g as { counts: number[] }).counts, `${where} ${k}`).toEqual(h.counts);
      (g as { edges: number[] }).edges.forEach((e, i) => expect(e, `${where} edge ${i}`).toBeCloseTo(h.edges[i] as number, 12));
    } else expect(g, `${where} ${k}`).toEqual(w);
  }
}

/** The answer's lines against the oracle's rows, in order: zone, Items, datetime, then each statistic or the error. */
function expectRows(lines: Line[], rows: Row[]): void {
  expect(lines.map((l) => [l.id, l.item_id, l.datetime, l.item_ids])).toEqual(rows.map((r) => [r.zone, r.item_id, r.datetime, r.item_ids]));
  rows.forEach((row, i) => {
    const line = lines[i] as Line;
    const where = `${row.zone} ${row.datetime}`;
    if (row.error !== undefined) {
      expect(line.error?.code, where).toBe(row.error);
      return;
    }
    expect(line.error, where).toBeUndefined();
    for (const [key, want] of Object.entries(row.statistics ?? {})) expectStats(line.statistics?.[key], want, `${where} ${key}`);
  });
}

describe('POST /api/v1/zonal-stats/raster/stac/search with "mosaic": "day"', () => {
  let app: FastifyInstance;
  let files: RangeServer;
  let api: StacApi;
  const aoi = { type: 'FeatureCollection', features: ZONES.features };
  const search = (body: Record<string, unknown>, accept = 'application/x-ndjson') =>
    app.inject({ method: 'POST', url: '/api/v1/zonal-stats/raster/stac/search', headers: { accept }, payload: { aoi, ...body } });
  const lines = (text: string): Line[] =>
    text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Line);

  beforeAll(async () => {
    files = await startRangeServer({ root: new URL('../../fixtures/mosaic/', import.meta.url).pathname });
    // The API sends the Items in the oracle's "reversed" order, their hrefs made absolute (the API is elsewhere).
    const absolute = (item: Item): Item => ({
      ...item,
      assets: Object.fromEntries(
        Object.entries(item['assets'] as Record<string, { href: string }>).map(([k, a]) => [k, { ...a, href: files.url(`/${a.href}`) }]),
      ),
    });
    api = await startStacApi((ORACLE.orders['reversed'] as string[]).map((id) => absolute(ITEMS.find((i) => i.id === id) as Item)));
    app = await buildTestApp({ workers: 2 });
  });
  afterAll(async () => {
    await app.close();
    await api.close();
    await files.close();
  });

  it.each(Object.keys(ORACLE.cases))('%s: one row per zone and day, each pixel from the first valid Item, as GDAL’s VRT mosaic', async (name) => {
    const res = await search({ stac: { url: files.url('/items.json') }, mosaic: 'day', ...ORACLE.cases[name] });
    expect(res.statusCode, res.body).toBe(200);
    expectRows(lines(res.body), ORACLE.expected['file']?.[name] as Row[]);
  });

  it.each(['red', 'ndvi'])('%s: the search order decides which Item comes first (a STAC API sending day 1 the other way round)', async (name) => {
    const res = await search({ stac: { url: api.url('/') }, mosaic: 'day', ...ORACLE.cases[name] });
    expect(res.statusCode, res.body).toBe(200);
    expectRows(lines(res.body), ORACLE.expected['reversed']?.[name] as Row[]);
  });

  it('the zone reaching beyond the answering grid says why, in its row', async () => {
    const res = await search({ stac: { url: files.url('/items.json') }, mosaic: 'day', asset: 'red', stats: ['count'] });
    const refused = lines(res.body).find((l) => l.id === 'refused' && l.error !== undefined);
    expect(refused?.error?.detail).toMatch(/lies partly in each of the Items "S2A_32UPU_20240601_0_L2A", "S2A_32UQU_20240601_0_L2A" and wholly in none/);
  });

  it('without mosaic, or "none": one row per zone and Item, as before', async () => {
    const body = { stac: { url: files.url('/items.json') }, asset: 'red', stats: ['count', 'mean'] };
    const [plain, none] = await Promise.all([search(body), search({ ...body, mosaic: 'none' })]);
    expect(plain.statusCode, plain.body).toBe(200);
    expect(none.body).toBe(plain.body);
    const rows = lines(plain.body);
    expect(rows.every((r) => r.item_ids === undefined)).toBe(true);
    // Zone "ab": its three Items (A and B of day 1, D of day 6), by time, each on its own grid.
    expect(rows.filter((r) => r.id === 'ab').map((r) => r.item_id)).toEqual([
      'S2A_32UPU_20240601_0_L2A',
      'S2A_32UQU_20240601_0_L2A',
      'S2A_32UPU_20240606_0_L2A',
    ]);
    // A single Item's day is the Item's own row.
    const day6 = (ORACLE.expected['file']?.['red'] as Row[]).find((r) => r.zone === 'ab' && r.datetime.startsWith('2024-06-06')) as Row;
    const own = rows.find((r) => r.id === 'ab' && r.item_id === day6.item_id);
    expect(own?.statistics?.['band_1']?.['count']).toBe(day6.statistics?.['band_1']?.['count']);
  });

  it('asof and nearest take the whole day of the Item they pick', async () => {
    const res = await search({
      stac: { url: files.url('/items.json') },
      mosaic: 'day',
      ...ORACLE.cases['red'],
      time: { rule: 'nearest', date: '2024-06-01T10:20:30Z' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expectRows(
      lines(res.body),
      (ORACLE.expected['file']?.['red'] as Row[]).filter((r) => r.datetime.startsWith('2024-06-01')),
    );
  });

  it('CSV and GeoJSON carry item_ids', async () => {
    const body = { stac: { url: files.url('/items.json') }, mosaic: 'day', asset: 'red', stats: ['count'], aoi: ZONES.features[0] };
    const csv = await search(body, 'text/csv');
    expect(csv.statusCode, csv.body).toBe(200);
    const [header, first] = csv.body.trim().split('\r\n');
    expect(header).toMatch(/,item_id,datetime,item_ids,band,count,/);
    expect(first).toContain('"[""S2A_32UPU_20240601_0_L2A"",""S2A_32UQU_20240601_0_L2A""]"');
    const geojson = await search(body, 'application/geo+json');
    const props = (geojson.json() as { features: { properties: Record<string, unknown> }[] }).features.map((f) => f.properties['item_ids']);
    expect(props).toEqual([['S2A_32UPU_20240601_0_L2A', 'S2A_32UQU_20240601_0_L2A'], ['S2A_32UPU_20240606_0_L2A']]);
  });

  it('what a mosaic cannot merge exactly is refused by name', async () => {
    const approx = await search({ stac: { url: files.url('/items.json') }, mosaic: 'day', asset: 'red', approx_stats: true });
    expect(approx.statusCode).toBe(422);
    expect(approx.json()).toMatchObject({ code: 'mosaic_unsupported', detail: expect.stringMatching(/approx_stats/) });
    const weights = await search({ stac: { url: files.url('/items.json') }, mosaic: 'day', asset: 'red', stats: ['weighted_mean'], weights: { asset: 'nir' } });
    expect(weights.statusCode).toBe(422);
    expect(weights.json()).toMatchObject({ code: 'mosaic_unsupported', detail: expect.stringMatching(/weights raster is not mosaicked/) });
    const bad = await search({ stac: { url: files.url('/items.json') }, mosaic: 'week', asset: 'red' });
    expect(bad.statusCode).toBe(422);
  });
});

describe('days of a search (zonal/stac-mosaic.ts)', () => {
  // Sorted by time as the search hands them over; `rank` is the order the API sent them in.
  const found = (id: string, datetime: string, collection: string, rank: number): FoundItem => ({
    item: { type: 'Feature', id, collection, assets: {} } as unknown as FoundItem['item'],
    id,
    datetime,
    time: Date.parse(datetime),
    bbox: null,
    base: new URL('http://example.invalid/'),
    rank,
  });
  const items = [
    found('s2-a', '2024-06-01T10:20:27Z', 's2', 2),
    found('s2-b', '2024-06-01T10:20:31Z', 's2', 0),
    found('ls-a', '2024-06-01T10:40:00Z', 'landsat', 4),
    found('s2-c', '2024-06-01T23:59:59Z', 's2', 1),
    found('s2-d', '2024-06-02T00:00:01Z', 's2', 3),
  ];

  it('groups by collection and UTC date, each day in search order, days by time', () => {
    const { days, dayOf } = dayGroups(items);
    expect(days.map((d) => d.map((i) => items[i]?.id))).toEqual([['s2-b', 's2-c', 's2-a'], ['ls-a'], ['s2-d']]);
    expect(dayOf).toEqual([0, 0, 1, 0, 2]);
  });

  it('a rule that picks an Item takes its whole day, of the Items meeting the zone', () => {
    const groups = dayGroups(items);
    const meets = (i: number): boolean => i !== 3;
    expect([...zoneDays([1], true, meets, groups)]).toEqual([[0, [1, 0]]]);
    expect([...zoneDays([1], false, meets, groups)]).toEqual([[0, [1]]]);
    expect([...zoneDays([4, 0, 2], false, meets, groups)]).toEqual([
      [0, [0]],
      [1, [2]],
      [2, [4]],
    ]);
  });
});
