/**
 * `zonal` end to end, in process: the real CLI run as a child process on fixtures, for each zones input
 * (GeoJSON, CSV with WKT, CSV with GeoJSON text, GeoParquet) and each output (CSV, NDJSON, GeoJSON,
 * GeoParquet). Every zone's answer must equal what the service's HTTP endpoint answers for the same zone
 * (the same FeatureCollection posted to app.inject); exit codes and messages.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { parquetReadObjects } from 'hyparquet';
import { geojsonToWkb, parquetWriteFile } from 'hyparquet-writer';
import wkx from 'wkx';
import { buildTestApp } from '../helpers/build-app.ts';
import { FileSource } from '../../src/source/file.ts';
import { openGeoParquet } from '../../src/vector/reader.ts';
import { ask, ELEV, ELEV_URL, NC, NC_URL, ndjson, readJson, ROOT, STACK, zonal } from './helpers.ts';

interface Feature {
  type: 'Feature';
  id?: string | number;
  properties: Record<string, unknown> | null;
  geometry: { type: string; coordinates: unknown; radius?: number } | null;
}
interface Collection {
  type: 'FeatureCollection';
  features: Feature[];
}

const ZONES = 'fixtures/cli/elev-zones.geojson';
const FC = readJson<Collection>(ZONES);
const STATS = ['count', 'mean', 'min', 'max', 'median', 'unique'];

async function readParquet(path: string): Promise<Record<string, unknown>[]> {
  const buf = readFileSync(path);
  const file = { byteLength: buf.byteLength, slice: (s: number, e?: number) => buf.buffer.slice(buf.byteOffset + s, buf.byteOffset + (e ?? buf.byteLength)) };
  return (await parquetReadObjects({ file })) as Record<string, unknown>[];
}

describe('zonal raster, in process', () => {
  let app: FastifyInstance;
  let tmp: string;
  beforeAll(async () => {
    app = await buildTestApp();
    tmp = mkdtempSync(join(tmpdir(), 'zonal-cli-'));
  });
  afterAll(async () => {
    await app.close();
    rmSync(tmp, { recursive: true, force: true });
  });
  const body = (features: Feature[], extra: Record<string, unknown> = {}) => ({
    url: ELEV_URL,
    aoi: { type: 'FeatureCollection', features },
    radius: 1500,
    stats: STATS,
    ...extra,
  });

  it('GeoJSON zones → NDJSON: each zone as the service answers it; a bad zone is its error, exit 1, all zones written', async () => {
    const r = await zonal(['raster', ELEV, '--zones', ZONES, '--radius', '1500', '--stats', STATS.join(','), '--format', 'ndjson']);
    expect(r.code).toBe(1);
    const lines = ndjson(r.stdout);
    expect(lines).toEqual(ndjson(await ask(app, 'raster', body(FC.features), 'application/x-ndjson')));
    expect(lines.map((l) => l['index'])).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(lines[4]).toMatchObject({ id: 'bad', error: { status: 422, code: 'validation_failed' } });
    expect((lines[0]!['statistics'] as { band_1: { count: number } }).band_1.count).toBeGreaterThan(100);
    // Zone 2 has no radius of its own: --radius applies (the single-zone answer of the circle).
    const circle = await app.inject({
      method: 'POST',
      url: '/api/v1/zonal-stats/raster',
      payload: { url: ELEV_URL, aoi: { ...FC.features[2]!.geometry, radius: 1500 }, stats: STATS },
    });
    expect(lines[2]!['statistics']).toEqual(circle.json());
    expect(r.stderr).toBe('zonal: 1 of 7 zones could not be answered; each has its error in the output (error_code, error_detail).\n');
  });

  it("GeoJSON zones → CSV (the default format): byte for byte the service's text/csv", async () => {
    const r = await zonal(['raster', ELEV, '--zones', ZONES, '--radius', '1500', '--stats', STATS.join(',')]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(await ask(app, 'raster', body(FC.features), 'text/csv'));
    expect(r.stdout.split('\r\n')[0]).toBe('index,id,name,n,band,count,mean,min,max,median,unique,aoi_area,data_area,error_code,error_detail');
  });

  it("GeoJSON zones → GeoJSON file: the service's FeatureCollection with the zones' geometries", async () => {
    const out = join(tmp, 'zones.geojson');
    const r = await zonal([
      'raster',
      ELEV,
      '--zones',
      ZONES,
      '--radius',
      '1500',
      '--stats',
      STATS.join(','),
      '--bands',
      '1',
      '--pixels',
      'fractional',
      '--output',
      out,
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const written = JSON.parse(readFileSync(out, 'utf8'));
    const http = JSON.parse(await ask(app, 'raster', body(FC.features, { include_geometry: true, bands: [1], pixels: 'fractional' }), 'application/geo+json'));
    expect(written).toEqual(http);
    expect(written.features[0].geometry).toEqual(FC.features[0]!.geometry);
  });

  it("GeoJSON zones → GeoParquet: one row per zone, the statistics as columns, WKB geometry, GeoParquet metadata the project's reader accepts", async () => {
    const out = join(tmp, 'zones.parquet');
    const r = await zonal(['raster', ELEV, '--zones', ZONES, '--radius', '1500', '--stats', STATS.join(','), '--format', 'geoparquet', '-o', out]);
    expect(r.code).toBe(1);
    const rows = await readParquet(out);
    const lines = ndjson(await ask(app, 'raster', body(FC.features), 'application/x-ndjson'));
    expect(rows).toHaveLength(7);
    rows.forEach((row, k) => {
      const line = lines[k] as { id: unknown; statistics?: { band_1: Record<string, unknown> }; error?: { code: string; detail: string } };
      expect(row['index']).toBe(k);
      expect(row['id']).toBe(line.id === null ? null : String(line.id));
      expect(row['name']).toBe(FC.features[k]!.properties?.['name'] ?? null);
      if (line.error) {
        expect(row).toMatchObject({ error_code: line.error.code, error_detail: line.error.detail, band_1_count: null });
        return;
      }
      for (const [stat, v] of Object.entries(line.statistics!.band_1)) {
        // Lists of numbers (unique) are LIST columns; other objects JSON text.
        expect(row[`band_1_${stat}`], `zone ${k} ${stat}`).toEqual(typeof v === 'object' && v !== null && !Array.isArray(v) ? JSON.stringify(v) : v);
      }
      expect(row['error_code']).toBeNull();
      // hyparquet reads the WKB column back as GeoJSON (the geo metadata names it).
      const { radius: _radius, ...geometry } = FC.features[k]!.geometry!;
      expect(row['geometry']).toEqual(geometry);
    });
    const reader = await openGeoParquet(await FileSource.open(new URL(`file://${out}`), [tmp]), undefined);
    expect(reader.info.geo.name).toBe('geometry');
    expect(reader.info.numRows).toBe(7);
  });

  it('CSV zones with a WKT column: id and the other columns kept, WKT read as GeoJSON, exit 0 and nothing on stderr (no progress bar off a terminal)', async () => {
    const r = await zonal(['raster', ELEV, '--zones', 'fixtures/cli/elev-zones.csv', '--stats', STATS.join(','), '--format', 'ndjson']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const ring = (x0: number, y0: number, x1: number, y1: number) => [
      [x0, y0],
      [x1, y0],
      [x1, y1],
      [x0, y1],
      [x0, y0],
    ];
    const features: Feature[] = [
      {
        type: 'Feature',
        id: 'a',
        properties: { name: 'south, west', kind: 'polygon' },
        geometry: { type: 'Polygon', coordinates: [ring(5.9, 49.5, 6.1, 49.7)] },
      },
      { type: 'Feature', id: 'b', properties: { name: 'centre', kind: 'point' }, geometry: { type: 'Point', coordinates: [6.1, 49.75] } },
      {
        type: 'Feature',
        id: 'c',
        properties: { name: 'two squares', kind: 'multipolygon' },
        geometry: { type: 'MultiPolygon', coordinates: [[ring(5.8, 49.5, 5.9, 49.6)], [ring(6.4, 50.0, 6.5, 50.1)]] },
      },
      {
        type: 'Feature',
        id: 'd',
        properties: { name: 'with hole', kind: 'polygon' },
        geometry: { type: 'Polygon', coordinates: [ring(6.0, 49.8, 6.3, 50.0), ring(6.1, 49.85, 6.2, 49.95)] },
      },
    ];
    expect(ndjson(r.stdout)).toEqual(
      ndjson(await ask(app, 'raster', { url: ELEV_URL, aoi: { type: 'FeatureCollection', features }, stats: STATS }, 'application/x-ndjson')),
    );
  });

  it("CSV zones with GeoJSON text (--id-column, no id column): unreadable geometries are their zone's error, in the user's words", async () => {
    const out = join(tmp, 'geojson-csv.geojson');
    const r = await zonal(['raster', ELEV, '--zones', 'fixtures/cli/elev-zones-geojson.csv', '--id-column', 'site', '--stats', 'count,mean', '-o', out]);
    expect(r.code).toBe(1);
    const written = JSON.parse(readFileSync(out, 'utf8')) as Collection;
    const features: Feature[] = [
      {
        type: 'Feature',
        id: '1',
        properties: { elevation_class: 'low' },
        geometry: {
          type: 'Polygon',
          coordinates: [
            [
              [5.9, 49.5],
              [6.1, 49.5],
              [6.1, 49.7],
              [5.9, 49.7],
              [5.9, 49.5],
            ],
          ],
        },
      },
      { type: 'Feature', id: '2', properties: { elevation_class: 'mid' }, geometry: { type: 'Point', coordinates: [6.1, 49.75], radius: 1500 } },
    ];
    const http = JSON.parse(
      await ask(
        app,
        'raster',
        { url: ELEV_URL, aoi: { type: 'FeatureCollection', features }, stats: ['count', 'mean'], include_geometry: true },
        'application/geo+json',
      ),
    ) as Collection;
    expect(written.features.slice(0, 2)).toEqual(http.features);
    expect(written.features[2]).toMatchObject({
      id: '3',
      geometry: null,
      properties: { elevation_class: 'none', error: { status: 422, code: 'validation_failed' } },
    });
    expect((written.features[2]!.properties!['error'] as { detail: string }).detail).toBe(
      'Zone 2 (line 4 of fixtures/cli/elev-zones-geojson.csv): its WKT could not be read (Expected geometry type).',
    );
    expect((written.features[3]!.properties!['error'] as { detail: string }).detail).toBe(
      'Zone 3 (line 5 of fixtures/cli/elev-zones-geojson.csv) has an empty geometry.',
    );
  });

  it("GeoParquet zones: WKB geometries (read by the project's reader) and numeric columns as properties", async () => {
    const good = FC.features.filter((f) => f.id !== 'bad');
    const zonesPath = join(tmp, 'zones-in.parquet');
    parquetWriteFile({
      filename: zonesPath,
      columnData: [
        { name: 'zone_no', data: good.map((_, k) => 10 + k), type: 'INT32' },
        { name: 'label', data: good.map((f) => String(f.properties?.['name'] ?? '')), type: 'STRING' },
        {
          name: 'geom',
          data: good.map((f) => geojsonToWkb({ type: f.geometry!.type, coordinates: f.geometry!.coordinates } as Parameters<typeof geojsonToWkb>[0])),
          type: 'BYTE_ARRAY',
        },
      ],
      kvMetadata: [
        { key: 'geo', value: JSON.stringify({ version: '1.1.0', primary_column: 'geom', columns: { geom: { encoding: 'WKB', geometry_types: [] } } }) },
      ],
      rowGroupSize: 4,
    });
    const r = await zonal(['raster', ELEV, '--zones', zonesPath, '--radius', '1000', '--stats', STATS.join(','), '-f', 'ndjson']);
    expect(r.code).toBe(0);
    const features: Feature[] = good.map((f, k) => ({
      type: 'Feature',
      properties: { zone_no: 10 + k },
      geometry: { type: f.geometry!.type, coordinates: f.geometry!.coordinates },
    }));
    const lines = ndjson(r.stdout);
    expect(lines).toHaveLength(6);
    expect(lines).toEqual(
      ndjson(await ask(app, 'raster', { url: ELEV_URL, aoi: { type: 'FeatureCollection', features }, radius: 1000, stats: STATS }, 'application/x-ndjson')),
    );
  });

  it("exit 2 for usage and request errors, in the user's words, without stack traces", async () => {
    const cases: [string[], RegExp][] = [
      [['raster', ELEV], /required option '-z, --zones <file>' not specified/],
      [
        ['raster', ELEV, '--zones', ZONES, '--pixels', 'most'],
        /option '--pixels <rule>' argument 'most' is invalid. Allowed choices are center, all_touched, fractional/,
      ],
      [['raster', ELEV, '--zones', ZONES, '--bands', '0'], /^zonal: --bands: expected integer to be greater or equal to 1 \(got 0\)\.$/m],
      [['raster', ELEV, '--zones', ZONES, '--bands', '3'], /^zonal: Band 3 does not exist: the raster has 1 band\.$/m],
      [['raster', ELEV, '--zones', ZONES, '--stats', 'mean,avg'], /^zonal: .*avg/m],
      [
        ['raster', ELEV, '--zones', 'fixtures/cli/missing.geojson'],
        /^zonal: The zones file fixtures\/cli\/missing.geojson does not exist or is not a file\.$/m,
      ],
      [['raster', 'fixtures/demo/missing.tif', '--zones', ZONES], /^zonal: .*missing\.tif/m],
      [['raster', ELEV, '--zones', ZONES, '--format', 'geoparquet'], /^zonal: --format geoparquet writes a file: name it with --output/m],
      [['vector', ELEV, '--zones', ZONES, '--columns', 'BIR74'], /^zonal: The vector source must be a GeoParquet file/m],
      [['vector', NC, '--zones', ZONES, '--columns', 'NOPE'], /^zonal: The file has no column "NOPE"/m],
      [['raster', ELEV, '--zones', ZONES, '--concurrency', '0'], /option '--concurrency <n>' argument '0' is invalid/],
      [['nonsense'], /unknown command 'nonsense'/],
    ];
    for (const [args, message] of cases) {
      const r = await zonal(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(message);
      expect(r.stderr, args.join(' ')).not.toMatch(STACK);
      expect(r.stdout === '' || !r.stdout.includes('"statistics"'), args.join(' ')).toBe(true);
    }
    const help = await zonal(['raster', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--server <url>/);
  });

  it('the bin launcher runs from any folder, with paths relative to it', async () => {
    const out = join(tmp, 'bin.ndjson');
    const r = await zonal(
      [
        'raster',
        relative(tmp, join(ROOT, ELEV)),
        '--zones',
        relative(tmp, join(ROOT, 'fixtures/cli/elev-zones.csv')),
        '--stats',
        STATS.join(','),
        '-o',
        'bin.ndjson',
      ],
      { bin: true, cwd: tmp },
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const direct = await zonal(['raster', ELEV, '--zones', 'fixtures/cli/elev-zones.csv', '--stats', STATS.join(','), '-f', 'ndjson']);
    expect(ndjson(readFileSync(out, 'utf8'))).toEqual(ndjson(direct.stdout));
  });
});

describe('zonal vector, in process', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await buildTestApp();
  });
  afterAll(async () => app.close());

  it("GeoParquet zones (nc.parquet's 100 counties, ids from CNTY_ID) against nc.parquet: each zone as the service answers it", async () => {
    const r = await zonal(['vector', NC, '--zones', NC, '--id-column', 'CNTY_ID', '--columns', 'BIR74,SID74', '--stats', 'count,sum,mean,max', '-f', 'ndjson']);
    expect(r.code).toBe(0);
    const lines = ndjson(r.stdout);
    expect(lines).toHaveLength(100);
    // The same zones read independently: the project's reader for the WKB, wkx for WKB → GeoJSON.
    const reader = await openGeoParquet(await FileSource.open(new URL(NC_URL), [join(ROOT, 'fixtures')]), undefined);
    const batch = await reader.readGroup(0, ['CNTY_ID']);
    const features = batch.wkb.map((w) => ({ type: 'Feature', properties: null, geometry: wkx.Geometry.parse(Buffer.from(w!)).toGeoJSON() }));
    const http = ndjson(
      await ask(
        app,
        'vector',
        { url: NC_URL, aoi: { type: 'FeatureCollection', features }, columns: ['BIR74', 'SID74'], stats: ['count', 'sum', 'mean', 'max'] },
        'application/x-ndjson',
      ),
    );
    lines.forEach((line, k) => {
      expect(line['statistics'], `zone ${k}`).toEqual(http[k]!['statistics']);
      expect(line['id']).toBe(batch.values.get('CNTY_ID')![k]);
      expect(line['properties']).toMatchObject({ BIR74: expect.any(Number), FIPSNO: expect.any(Number) });
      expect(line['properties']).not.toHaveProperty('CNTY_ID');
    });
    // A county answers its own BIR74 (its neighbours only touch it).
    expect((lines[0]!['statistics'] as { BIR74: { sum: number } }).BIR74.sum).toBe((lines[0]!['properties'] as { BIR74: number }).BIR74);
  });

  it('CSV output with one row per zone and column, as the service writes it', async () => {
    const r = await zonal(['vector', NC, '--zones', ZONES, '--radius', '20000', '--columns', 'BIR74,SID74', '--stats', 'count,sum']);
    // The elevation zones lie in Luxembourg: no county, but every zone answered (the bad one as its error).
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(await ask(app, 'vector', { url: NC_URL, aoi: FC, radius: 20000, columns: ['BIR74', 'SID74'], stats: ['count', 'sum'] }, 'text/csv'));
    expect(r.stdout.split('\r\n')[0]).toBe('index,id,name,n,column,count,sum,aoi_area,data_area,error_code,error_detail');
  });
});
