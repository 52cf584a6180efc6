/**
 * POST /api/v1/sources/info: footprint, bands, levels and the preview grid equal what GDAL + pyproj give
 * (fixtures/cases-info/*.json by tools/oracle/info_oracle.py); a GeoParquet file's rows and columns.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { geojsonToWkb, parquetWriteFile } from 'hyparquet-writer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, fixtureUrl, FIXTURES } from '../helpers/build-app.ts';
import { expectProblemWithout, LEAKS_COMMON } from '../helpers/problem.ts';
import { blockIndex } from '../helpers/tiff-index.ts';
import { startRangeServer } from '../helpers/range-server.ts';

const expectProblem = (res: Parameters<typeof expectProblemWithout>[1], status: number, code: string) =>
  expectProblemWithout([...LEAKS_COMMON, FIXTURES], res, status, code);

interface Oracle {
  width: number;
  height: number;
  band_count: number;
  nodata: number | null;
  scale: number;
  offset: number;
  levels: [number, number][];
  footprint: [number, number][];
  bounds: [number, number, number, number];
  preview: { level: number; width: number; height: number; corners: [number, number][]; values: (number | null)[] };
}

/** Longitudes equal modulo 360 (the service's ring runs continuously across the antimeridian). */
function expectLonLat(got: [number, number], want: [number, number]): void {
  expect(Math.abs(((((got[0] - want[0] + 540) % 360) + 360) % 360) - 180)).toBeLessThan(1e-7);
  expect(got[1]).toBeCloseTo(want[1], 7);
}

const oracle = (name: string): Oracle => JSON.parse(readFileSync(`${FIXTURES}cases-info/${name}.json`, 'utf8'));

describe('POST /api/v1/sources/info', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await buildTestApp();
  });
  afterAll(async () => app.close());

  const info = (url: string) => app.inject({ method: 'POST', url: '/api/v1/sources/info', payload: { url } });
  const info2 = (payload: Record<string, unknown>) => app.inject({ method: 'POST', url: '/api/v1/sources/info', payload });

  it.each([
    ['elev', 'raster/elev.cog.tif', 'EPSG:4326'],
    ['elev_scaled', 'raster/elev_scaled.cog.tif', 'EPSG:4326'],
    ['l7', 'raster/L7_ETMs.cog.tif', 'EPSG:31985'],
    ['antimeridian', 'raster/antimeridian_utm60.tif', 'EPSG:32660'],
  ])('%s: as GDAL and pyproj see it', async (name, file, crs) => {
    const o = oracle(name);
    const res = await info(fixtureUrl(file));
    expect(res.statusCode, res.body).toBe(200);
    const got = res.json();
    expect(got).toMatchObject({ kind: 'raster', width: o.width, height: o.height, crs });
    expect(got.bands).toHaveLength(o.band_count);
    expect(got.bands[0]).toMatchObject({ band: 1, nodata: o.nodata, scale: o.scale, offset: o.offset });
    expect(got.levels.map((l: { width: number; height: number }) => [l.width, l.height])).toEqual(o.levels);
    const ring = got.footprint.coordinates[0] as [number, number][];
    expect(ring).toHaveLength(o.footprint.length + 1);
    o.footprint.forEach((p, i) => expectLonLat(ring[i]!, p));
    // No 360° jump along the ring (a map draws it as one shape), and RFC 7946 bounds (west > east across 180°).
    for (let i = 1; i < ring.length; i++) expect(Math.abs(ring[i]![0] - ring[i - 1]![0])).toBeLessThan(180);
    got.bounds.forEach((b: number, i: number) => expect(b).toBeCloseTo(o.bounds[i]!, 7));
    const p = got.preview;
    expect({ level: p.level, width: p.width, height: p.height }).toEqual({ level: o.preview.level, width: o.preview.width, height: o.preview.height });
    p.corners.forEach((c: [number, number], i: number) => expectLonLat(c, o.preview.corners[i]!));
    // Every cell: null exactly where GDAL says invalid, else the value to 7 significant digits.
    expect(p.values.map((v: number | null) => v === null)).toEqual(o.preview.values.map((v) => v === null));
    o.preview.values.forEach((v, i) => {
      if (v !== null) expect(Math.abs(p.values[i] - v)).toBeLessThanOrEqual(Math.abs(v) * 1e-6);
    });
    const valid = o.preview.values.filter((v): v is number => v !== null);
    expect(p.min).toBe(Math.min(...valid));
    expect(p.max).toBe(Math.max(...valid));
  });

  it('a 64-bit nodata beyond 2⁵³ is given as its digits, exactly; one within it as a number', async () => {
    const big = (await info(fixtureUrl('raster/synthetic/tiny_uint64.tif'))).json() as { bands: { data_type: string; nodata: unknown }[] };
    expect(big.bands[0]).toMatchObject({ data_type: 'uint64', nodata: '18446744073709551614' });
    const signed = (await info(fixtureUrl('raster/synthetic/tiny_int64.tif'))).json() as { bands: { nodata: unknown }[] };
    expect(signed.bands[0]?.nodata).toBe('-9223372036854775807');
    const small = (await info(fixtureUrl('raster/synthetic/tiny_uint32.tif'))).json() as { bands: { nodata: unknown }[] };
    expect(small.bands[0]?.nodata).toBe(4000000000);
  });

  it('a raster with no level of at most 1024 pixels a side has no preview, and says why', async () => {
    const res = await info(fixtureUrl('raster/strips/rows_5000.tif'));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().preview).toBeNull();
    expect(res.json().preview_note).toMatch(/overview/);
  });

  it('a level whose tiles would cost more than 64 MiB to decode gives no preview (a 95 × 90 image in one 4096² tile of 4 Float64 samples)', async () => {
    const res = await info(fixtureUrl('raster/huge_tile.tif'));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ width: 95, height: 90, preview: null });
    expect(res.json().preview_note).toMatch(/64 MiB/);
  });

  it('a GeoParquet file: rows, columns (numeric or not), and the extent of North Carolina', async () => {
    const res = await info(fixtureUrl('demo/nc.parquet'));
    expect(res.statusCode, res.body).toBe(200);
    const got = res.json();
    expect(got).toMatchObject({ kind: 'vector', rows: 100, geometry_column: 'geom' });
    const cols = Object.fromEntries(got.columns.map((c: { name: string; numeric: boolean }) => [c.name, c.numeric]));
    expect(cols).toMatchObject({ BIR74: true, SID74: true, NAME: false });
    // sf's nc.shp (NAD27): x -84.32385..-75.45698, y 33.88199..36.58965; NAD27 → WGS84 moves it < 0.001°.
    [-84.32385, 33.88199, -75.45698, 36.58965].forEach((b, i) => expect(Math.abs(got.bounds[i] - b)).toBeLessThan(0.001));
  });

  it('a GeoParquet bbox across the antimeridian (west > east) stays 20° wide; a malformed one is not guessed at', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'zonal-info-'));
    const write = (name: string, bbox: unknown[]): string => {
      const filename = join(dir, name);
      parquetWriteFile({
        filename,
        columnData: [
          { name: 'v', data: [1, 2], type: 'INT32' },
          {
            name: 'geometry',
            data: [geojsonToWkb({ type: 'Point', coordinates: [175, 0] }), geojsonToWkb({ type: 'Point', coordinates: [-175, 5] })],
            type: 'BYTE_ARRAY',
          },
        ],
        kvMetadata: [
          {
            key: 'geo',
            value: JSON.stringify({
              version: '1.1.0',
              primary_column: 'geometry',
              columns: { geometry: { encoding: 'WKB', geometry_types: ['Point'], bbox } },
            }),
          },
        ],
      });
      return pathToFileURL(filename).href;
    };
    const own = await buildTestApp({ dataRoots: [dir] });
    try {
      const across = await own.inject({ method: 'POST', url: '/api/v1/sources/info', payload: { url: write('across.parquet', [170, -10, -170, 10]) } });
      expect(across.statusCode, across.body).toBe(200);
      expect(across.json().bounds).toEqual([170, -10, -170, 10]);
      const lons = (across.json().footprint.coordinates[0] as [number, number][]).map((p) => p[0]);
      expect(Math.min(...lons)).toBeCloseTo(170, 9);
      expect(Math.max(...lons)).toBeCloseTo(190, 9);
      const bad = await own.inject({ method: 'POST', url: '/api/v1/sources/info', payload: { url: write('bad.parquet', [null, 40, 12, 42]) } });
      expect(bad.statusCode, bad.body).toBe(200);
      expect(bad.json()).toMatchObject({ rows: 2, bounds: null, footprint: null });
    } finally {
      await own.close();
    }
  });

  it('a tile that does not decode is 422 invalid_source, as for statistics, not a 500', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'zonal-info-'));
    const bytes = new Uint8Array(readFileSync(`${FIXTURES}raster/elev.cog.tif`));
    // elev.cog.tif's first IFD is full resolution (95 × 90, four LZW tiles): scramble every tile's codes.
    const { offsets, counts } = blockIndex(bytes, 324, 325);
    offsets.forEach((o, i) => bytes.fill(0xff, o, o + counts[i]!));
    writeFileSync(join(dir, 'broken.tif'), bytes);
    const own = await buildTestApp({ dataRoots: [dir] });
    try {
      expectProblem(
        await own.inject({ method: 'POST', url: '/api/v1/sources/info', payload: { url: pathToFileURL(join(dir, 'broken.tif')).href } }),
        422,
        'invalid_source',
      );
    } finally {
      await own.close();
    }
  });

  it('a STAC Item (stac: true): its assets and what each would be read as; an asset: its own info, as the direct URL gives it', async () => {
    const server = await startRangeServer({ root: `${FIXTURES}demo` });
    try {
      const item = await info2({ url: server.url('/stac/elev-item.json'), stac: true });
      expect(item.statusCode, item.body).toBe(200);
      const raw = JSON.parse(readFileSync(`${FIXTURES}demo/stac/elev-item.json`, 'utf8'));
      expect(item.json()).toMatchObject({
        kind: 'stac_item',
        id: raw.id,
        datetime: raw.properties.datetime,
        bounds: raw.bbox,
        assets: [{ key: 'elevation', type: raw.assets.elevation.type, kind: 'raster' }],
      });
      const asset = await info2({ url: server.url('/stac/elev-item.json'), stac: true, asset: 'elevation' });
      expect(asset.statusCode, asset.body).toBe(200);
      const direct = (await info(fixtureUrl('demo/elev.cog.tif'))).json();
      expect({ ...asset.json(), url: null }).toEqual({ ...direct, url: null });
      expect(asset.json().url).toBe(server.url('/elev.cog.tif'));

      const nc = await info2({ url: server.url('/stac/nc-item.json'), stac: true });
      expect(nc.json().assets).toEqual([{ key: 'counties', title: expect.any(String), type: 'application/vnd.apache.parquet', kind: 'vector' }]);
      expect((await info2({ url: server.url('/stac/nc-item.json'), stac: true, asset: 'counties' })).json()).toMatchObject({ kind: 'vector', rows: 100 });

      expectProblem(await info2({ url: server.url('/stac/elev-item.json'), stac: true, asset: 'nope' }), 422, 'unknown_asset');
      expectProblem(await info2({ url: fixtureUrl('demo/elev.cog.tif'), asset: 'elevation' }), 422, 'validation_failed');
      expectProblem(await info2({ url: fixtureUrl('demo/stac/elev-item.json'), stac: true }), 422, 'unsupported_protocol');
    } finally {
      await server.close();
    }
  });

  it('refuses what the statistics endpoints refuse, in the same words', async () => {
    expectProblem(await info('file:///etc/passwd'), 403, 'url_forbidden');
    expectProblem(await info(fixtureUrl('raster/nope.tif')), 422, 'source_not_found');
    expectProblem(await info('ftp://example.org/x.tif'), 422, 'unsupported_protocol');
    const bad = await app.inject({ method: 'POST', url: '/api/v1/sources/info', payload: { url: fixtureUrl('demo/elev.cog.tif'), extra: 1 } });
    expectProblem(bad, 422, 'validation_failed');
  });
});
