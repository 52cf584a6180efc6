/**
 * The cube endpoint's refusals and representations: each problem is a 4xx naming why (never a number that
 * may be wrong), and the rows carry their coordinates in every many-zones format. Stores are the fixtures
 * of fixtures/cube served by a real HTTP server honouring Range, plus small in-memory stores on it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { parquetReadObjects } from 'hyparquet';
import { buildTestApp } from '../helpers/build-app.ts';
import { startRangeServer, type RangeServer } from '../helpers/range-server.ts';

const ROOT = new URL('../../fixtures/cube/', import.meta.url).pathname;

const box = (x0: number, y0: number, x1: number, y1: number): unknown => ({
  type: 'Polygon',
  coordinates: [
    [
      [x0, y0],
      [x1, y0],
      [x1, y1],
      [x0, y1],
      [x0, y0],
    ],
  ],
});
const zones = {
  type: 'FeatureCollection',
  features: [
    { type: 'Feature', id: 'west', properties: { name: 'w' }, geometry: box(-7, 40, 8, 50) },
    { type: 'Feature', id: 'east', properties: { name: 'e' }, geometry: box(20, -10, 30, 5) },
  ],
};

let app: FastifyInstance;
let files: RangeServer;

beforeAll(async () => {
  files = await startRangeServer({ root: ROOT });
  app = await buildTestApp();
});
afterAll(async () => {
  await app.close();
  await files.close();
});

const post = (payload: Record<string, unknown>, accept = 'application/json') =>
  app.inject({ method: 'POST', url: '/api/v1/zonal-stats/cube', headers: { accept }, payload: { aoi: zones, ...payload } });

describe("cube: refusals in the user's words", () => {
  it('an unknown variable lists the variables of a consolidated store', async () => {
    const res = await post({ url: files.url('/era5.zarr'), variable: 't3m' });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: 'unknown_variable' });
    expect(res.json().detail).toContain('"t2m"');
  });

  it('a time not on the axis names the nearest steps; with sel_method nearest it is answered', async () => {
    const sel = { time: '2020-01-01T05:30:00Z' };
    const res = await post({ url: files.url('/era5.zarr'), variable: 't2m', sel });
    expect(res.statusCode).toBe(422);
    expect(res.json().code).toBe('selection_not_found');
    expect(res.json().detail).toContain('"2020-01-01T05:00:00Z" and "2020-01-01T06:00:00Z"');
    const near = await post({ url: files.url('/era5.zarr'), variable: 't2m', sel: { time: '2020-01-01T05:40:00Z' }, sel_method: 'nearest' });
    const exact = await post({ url: files.url('/era5.zarr'), variable: 't2m', sel: { time: '2020-01-01T06:00:00Z' } });
    expect(near.statusCode).toBe(200);
    expect(near.json()).toEqual(exact.json());
  });

  it('a dimension the variable lacks, or a spatial one, is named', async () => {
    const res = await post({ url: files.url('/era5.zarr'), variable: 't2m', sel: { level: 850 } });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toContain('its dimensions are time, latitude, longitude');
    const spatial = await post({ url: files.url('/era5.zarr'), variable: 't2m', sel: { latitude: 10 } });
    expect(spatial.statusCode).toBe(422);
    expect(spatial.json().detail).toContain('spatial axis');
  });

  it('a codec without a decoder is named', async () => {
    files.setFile(
      '/zfp.zarr/v/.zarray',
      JSON.stringify({
        zarr_format: 2,
        shape: [2, 3],
        chunks: [2, 3],
        dtype: '<f4',
        compressor: { id: 'zfpy', mode: 4 },
        fill_value: null,
        filters: null,
        order: 'C',
      }),
    );
    files.setFile('/zfp.zarr/v/.zattrs', JSON.stringify({ _ARRAY_DIMENSIONS: ['lat', 'lon'] }));
    const res = await post({ url: files.url('/zfp.zarr'), variable: 'v' });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: 'unsupported_codec', codec: 'numcodecs.zfpy' });
    expect(res.json().detail).toContain('"zfpy"');
  });

  it('a corrupt Blosc chunk is a 4xx naming the source, and the service answers the next request', async () => {
    // era5.zarr served again under /bad.zarr, one chunk the zones read cut short or with a wrong size inside.
    const copy = (dir: string): void => {
      for (const name of readdirSync(`${ROOT}era5.zarr/${dir}`)) {
        const rel = dir === '' ? name : `${dir}/${name}`;
        if (statSync(`${ROOT}era5.zarr/${rel}`).isDirectory()) copy(rel);
        else files.setFile(`/bad.zarr/${rel}`, new Uint8Array(readFileSync(`${ROOT}era5.zarr/${rel}`)));
      }
    };
    copy('');
    const chunk = new Uint8Array(readFileSync(`${ROOT}era5.zarr/t2m/0.0.0`));
    const wrongSize = chunk.slice();
    new DataView(wrongSize.buffer).setInt32(4, 12345, true);
    for (const bad of [chunk.subarray(0, chunk.byteLength - 100), wrongSize, chunk.subarray(0, 10)]) {
      files.setFile('/bad.zarr/t2m/0.0.0', bad);
      const res = await post({ url: files.url('/bad.zarr'), variable: 't2m' });
      expect(res.statusCode).toBe(422);
      expect(res.json()).toMatchObject({ code: 'invalid_source' });
      expect(res.json().detail).toContain('could not be decoded');
    }
    const good = await post({ url: files.url('/era5.zarr'), variable: 't2m', sel: { time: '2020-01-01T06:00:00Z' } });
    expect(good.statusCode).toBe(200);
  });

  it('a corrupt Zarr v3 Blosc chunk (bytes → blosc, the frame reader) is a 4xx too, and the service answers the next request', async () => {
    const dir = `${ROOT}era5_v3.zarr/`;
    const copy = (rel: string): void => {
      for (const name of readdirSync(`${dir}${rel}`)) {
        const sub = rel === '' ? name : `${rel}/${name}`;
        if (statSync(`${dir}${sub}`).isDirectory()) copy(sub);
        else files.setFile(`/bad_v3.zarr/${sub}`, new Uint8Array(readFileSync(`${dir}${sub}`)));
      }
    };
    copy('');
    const chunk = new Uint8Array(readFileSync(`${dir}t2m_blosc/c/0/0/0`));
    const wrongSize = chunk.slice();
    new DataView(wrongSize.buffer).setInt32(4, 12345, true);
    for (const bad of [chunk.subarray(0, chunk.byteLength - 100), wrongSize, chunk.subarray(0, 10)]) {
      files.setFile('/bad_v3.zarr/t2m_blosc/c/0/0/0', bad);
      const res = await post({ url: files.url('/bad_v3.zarr'), variable: 't2m_blosc' });
      expect(res.statusCode).toBe(422);
      expect(res.json()).toMatchObject({ code: 'invalid_source' });
      expect(res.json().detail).toContain('could not be decoded');
    }
    const good = await post({ url: files.url('/era5_v3.zarr'), variable: 't2m_blosc', sel: { time: '2020-01-01T06:00:00Z' } });
    expect(good.statusCode).toBe(200);
  });

  it('an irregular axis without bounds is refused', async () => {
    const enc = (a: number[]): Uint8Array => new Uint8Array(new Float64Array(a).buffer);
    const array = (n: number): string =>
      JSON.stringify({ zarr_format: 2, shape: [n], chunks: [n], dtype: '<f8', compressor: null, fill_value: null, filters: null, order: 'C' });
    files.setFile(
      '/irr.zarr/v/.zarray',
      JSON.stringify({ zarr_format: 2, shape: [3, 3], chunks: [3, 3], dtype: '<f4', compressor: null, fill_value: null, filters: null, order: 'C' }),
    );
    files.setFile('/irr.zarr/v/.zattrs', JSON.stringify({ _ARRAY_DIMENSIONS: ['lat', 'lon'] }));
    files.setFile('/irr.zarr/v/0.0', new Uint8Array(36));
    files.setFile('/irr.zarr/lat/.zarray', array(3));
    files.setFile('/irr.zarr/lat/.zattrs', JSON.stringify({ _ARRAY_DIMENSIONS: ['lat'], units: 'degrees_north' }));
    files.setFile('/irr.zarr/lat/0', enc([0, 1, 3]));
    files.setFile('/irr.zarr/lon/.zarray', array(3));
    files.setFile('/irr.zarr/lon/.zattrs', JSON.stringify({ _ARRAY_DIMENSIONS: ['lon'], units: 'degrees_east' }));
    files.setFile('/irr.zarr/lon/0', enc([0, 1, 2]));
    const res = await post({ url: files.url('/irr.zarr'), variable: 'v' });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: 'unsupported_grid' });
    expect(res.json().detail).toContain('"lat" is not regular');
  });

  it('bounds that leave a gap between cells are refused; unequal contiguous bounds are a rectilinear axis', async () => {
    const enc = (a: number[]): Uint8Array => new Uint8Array(new Float64Array(a).buffer);
    const array = (shape: number[]): string =>
      JSON.stringify({ zarr_format: 2, shape, chunks: shape, dtype: '<f8', compressor: null, fill_value: null, filters: null, order: 'C' });
    const store = (name: string, latBounds: number[]): string => {
      files.setFile(`/${name}/v/.zarray`, array([3, 2]));
      files.setFile(`/${name}/v/.zattrs`, JSON.stringify({ _ARRAY_DIMENSIONS: ['lat', 'lon'] }));
      // Rows 1, 2, 3 (north-up: the first row is the southern one here, latitude ascending); columns 10, 20.
      files.setFile(`/${name}/v/0.0`, enc([1, 1, 2, 2, 3, 3].map((v, i) => v * 10 + (i % 2) * 10)));
      files.setFile(`/${name}/lat/.zarray`, array([3]));
      files.setFile(`/${name}/lat/.zattrs`, JSON.stringify({ _ARRAY_DIMENSIONS: ['lat'], units: 'degrees_north', bounds: 'lat_bnds' }));
      files.setFile(`/${name}/lat/0`, enc([0.5, 2, 4.5]));
      files.setFile(`/${name}/lat_bnds/.zarray`, array([3, 2]));
      files.setFile(`/${name}/lat_bnds/.zattrs`, JSON.stringify({ _ARRAY_DIMENSIONS: ['lat', 'bnds'] }));
      files.setFile(`/${name}/lat_bnds/0.0`, enc(latBounds));
      files.setFile(`/${name}/lon/.zarray`, array([2]));
      files.setFile(`/${name}/lon/.zattrs`, JSON.stringify({ _ARRAY_DIMENSIONS: ['lon'], units: 'degrees_east' }));
      files.setFile(`/${name}/lon/0`, enc([0.5, 1.5]));
      return files.url(`/${name}`);
    };
    const gap = await post({ url: store('gap.zarr', [0, 1, 1.5, 3, 3, 7]), variable: 'v', aoi: box(0, 0, 2, 7) });
    expect(gap.statusCode).toBe(422);
    expect(gap.json()).toMatchObject({ code: 'unsupported_grid' });
    expect(gap.json().detail).toContain('gap or an overlap');
    // Rows of heights 1, 2 and 4 (values 10/20, 20/30, 30/40 by column); the zone covers the west column
    // from latitude 0.5 to 5: half of row 0 (0.5 of a cell), all of row 1, half of row 2 (2 of 4 degrees).
    const url = store('rect.zarr', [0, 1, 1, 3, 3, 7]);
    const res = await post({ url, variable: 'v', aoi: box(0, 0.5, 1, 5), stats: ['count', 'sum', 'mean'], pixels: 'fractional' });
    expect(res.statusCode, res.body).toBe(200);
    const stats = res.json().features[0].properties.statistics.v;
    expect(stats.count).toBeCloseTo(0.5 + 1 + 0.5, 12);
    expect(stats.sum).toBeCloseTo(0.5 * 10 + 20 + 0.5 * 30, 12);
    // The centre rule takes a cell's centre half-way between its bounds: row 2's is at latitude 5 (its
    // coordinate, 4.5, is not): a zone up to 4.9 leaves it out, one up to 5.1 takes it.
    const out = await post({ url, variable: 'v', aoi: box(0, 0.4, 1, 4.9), stats: ['count', 'sum'], pixels: 'center' });
    expect(out.json().features[0].properties.statistics.v).toMatchObject({ count: 2, sum: 30 });
    const inside = await post({ url, variable: 'v', aoi: box(0, 0.4, 1, 5.1), stats: ['count', 'sum'], pixels: 'center' });
    expect(inside.json().features[0].properties.statistics.v).toMatchObject({ count: 3, sum: 60 });
  });

  it('area coverage weights on cells of unequal widths are refused', async () => {
    const res = await post({ url: files.url('/stretched.zarr'), variable: 'pr', coverage_weight: 'area_spherical_m2' });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: 'unsupported_grid' });
    expect(res.json().detail).toContain('"lon" has cells of unequal widths');
    const perStat = await post({ url: files.url('/stretched.zarr'), variable: 'pr', stats: ['mean(coverage_weight=area_cartesian)'] });
    expect(perStat.statusCode).toBe(422);
    expect(perStat.json().detail).toContain('(mean(coverage_weight=area_cartesian))');
  });

  it('fields that do not apply to a cube are refused', async () => {
    const res = await post({ url: files.url('/era5.zarr'), variable: 't2m', bands: [1] });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors).toEqual([expect.objectContaining({ path: '/bands' })]);
  });

  it('an expression names the variables it may use, and must use `variable`', async () => {
    const res = await post({ url: files.url('/era5.zarr'), expression: 't2m - t3m' });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toContain('"t3m"');
    expect(res.json().detail).toContain('t2m, t2m_f');
    const unused = await post({ url: files.url('/era5.zarr'), variable: 't2m', expression: 't2m_f * 2' });
    expect(unused.statusCode).toBe(422);
    expect(unused.json().detail).toContain('does not use "t2m"');
  });

  it('a file:// store outside the data roots is forbidden', async () => {
    const res = await post({ url: 'file:///etc/era5.zarr', variable: 't2m' });
    expect(res.statusCode).toBe(403);
  });

  it('more rows than the limit is a 422 with the figures', async () => {
    const small = await buildTestApp({ maxCubeRows: 50 });
    try {
      const res = await small.inject({
        method: 'POST',
        url: '/api/v1/zonal-stats/cube',
        payload: { aoi: zones, url: files.url('/era5.zarr'), variable: 't2m' },
      });
      expect(res.statusCode).toBe(422);
      expect(res.json()).toMatchObject({ code: 'too_many_rows', rows: 96, limit_rows: 50 });
    } finally {
      await small.close();
    }
  });
});

describe('cube: rows in every many-zones format', () => {
  const body = { variable: 't2m', sel: { time: { start: '2020-01-01T00:00:00Z', end: '2020-01-01T01:00:00Z' } }, stats: ['mean'] };

  it('JSON features carry the step beside the statistics, zones in input order then steps', async () => {
    const res = await post({ ...body, url: files.url('/era5.zarr') });
    expect(res.statusCode).toBe(200);
    const props = (res.json() as { features: { id: string; properties: Record<string, unknown> }[] }).features.map((f) => [f.id, f.properties['time']]);
    expect(props).toEqual([
      ['west', '2020-01-01T00:00:00Z'],
      ['west', '2020-01-01T01:00:00Z'],
      ['east', '2020-01-01T00:00:00Z'],
      ['east', '2020-01-01T01:00:00Z'],
    ]);
  });

  it('a histogram (an object among the numbers) of each step equals the same step asked alone', async () => {
    const extra = { stats: ['mean', 'median'], histogram: { bins: 3, range: [250, 310] } };
    const all = await post({ ...body, ...extra, url: files.url('/era5.zarr') });
    const one = await post({ ...body, ...extra, url: files.url('/era5.zarr'), sel: { time: '2020-01-01T01:00:00Z' } });
    const rows = (all.json() as { features: { properties: { time: string; statistics: unknown } }[] }).features;
    const alone = (one.json() as { features: { properties: { statistics: unknown } }[] }).features;
    expect(rows[1]?.properties.time).toBe('2020-01-01T01:00:00Z');
    expect(rows[1]?.properties.statistics).toEqual(alone[0]?.properties.statistics);
    expect(rows[3]?.properties.statistics).toEqual(alone[1]?.properties.statistics);
    expect(rows[1]?.properties.statistics).toMatchObject({ t2m: { histogram: { counts: expect.any(Array) } } });
  });

  it('CSV has a time column and a variable column', async () => {
    const res = await post({ ...body, url: files.url('/era5.zarr') }, 'text/csv');
    expect(res.statusCode).toBe(200);
    const [header, first] = res.body.split('\r\n');
    expect(header).toBe('index,id,name,time,variable,mean,aoi_area,data_area,error_code,error_detail');
    expect(first).toMatch(/^0,west,w,2020-01-01T00:00:00Z,t2m,/);
  });

  it('GeoParquet has a time column', async () => {
    const res = await post({ ...body, url: files.url('/era5.zarr') }, 'application/vnd.apache.parquet');
    expect(res.statusCode).toBe(200);
    const bytes = res.rawPayload;
    const rows = await parquetReadObjects({ file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer });
    expect(rows.map((r) => r['time'])).toEqual(['2020-01-01T00:00:00Z', '2020-01-01T01:00:00Z', '2020-01-01T00:00:00Z', '2020-01-01T01:00:00Z']);
    expect(typeof rows[0]?.['t2m_mean']).toBe('number');
  });
});

describe('cube: sources/info learns Zarr stores and reference files', () => {
  it('lists the variables and the dimensions with their extents (time in its calendar)', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/v1/sources/info', payload: { url: files.url('/cmip6_360day.json') } });
    expect(res.statusCode).toBe(200);
    const info = res.json();
    expect(info).toMatchObject({ kind: 'cube', store: 'references' });
    expect(info.variables).toEqual([expect.objectContaining({ name: 'tas', dimensions: ['time', 'lat', 'lon'], data_type: 'float32', units: 'K' })]);
    expect(info.dimensions[0]).toEqual({ name: 'time', size: 7, first: '2001-02-27T00:00:00', last: '2001-03-02T00:00:00' });
    expect(info.bounds[0]).toBeCloseTo(0, 9);
    expect(info.bounds[2]).toBeCloseTo(60, 9);
  });

  it("a rectilinear axis's cells are centred half-way between their bounds", async () => {
    // gaussian.zarr: the first Gaussian latitude is 85.7606, its cell's bounds 90 and 83.2077 (the oracle's
    // middle: 86.60384479217007); the map reaches the poles.
    const res = await app.inject({ method: 'POST', url: '/api/v1/sources/info', payload: { url: files.url('/gaussian.zarr') } });
    expect(res.statusCode).toBe(200);
    const lat = res.json().dimensions.find((d: { name: string }) => d.name === 'lat');
    expect(lat.size).toBe(32);
    expect(lat.first).toBeCloseTo(86.60384479217007, 10);
    expect(lat.last).toBeCloseTo(-86.60384479217012, 10);
    expect(res.json().bounds[1]).toBeCloseTo(-90, 9);
    expect(res.json().bounds[3]).toBeCloseTo(90, 9);
  });

  it('a Zarr store without consolidated metadata says it cannot list its arrays', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/v1/sources/info', payload: { url: files.url('/polar.zarr') } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ kind: 'cube', variables: [], note: expect.stringContaining('consolidated metadata') });
  });
});

describe('cube: each chunk read once, only the chunks the zones need', () => {
  it('two zones over all 48 steps read each of their chunks once, and no other chunk', async () => {
    // era5.zarr: chunks of 24 steps × 36 × 36 cells of 2.5°; both zones lie in the chunk row 0..35 of
    // latitude (90 → 2.5) and column 0..35 of longitude (0 → 87.5°), the second also in column 1.
    const two = {
      type: 'FeatureCollection',
      features: [
        { type: 'Feature', id: 'a', properties: {}, geometry: box(10, 40, 20, 50) },
        { type: 'Feature', id: 'b', properties: {}, geometry: box(80, 30, 95, 45) },
      ],
    };
    const before = files.requests.length;
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/zonal-stats/cube',
      headers: { accept: 'application/x-ndjson' },
      payload: { url: files.url('/era5.zarr'), variable: 't2m', aoi: two, stats: ['mean'] },
    });
    expect(res.statusCode).toBe(200);
    expect(res.body.trim().split('\n')).toHaveLength(2 * 48);
    const chunks = files.requests
      .slice(before)
      .map((r) => r.path)
      .filter((p) => /^\/era5\.zarr\/t2m\/\d+\.\d+\.\d+$/.test(p))
      .sort();
    expect(chunks).toEqual(['/era5.zarr/t2m/0.0.0', '/era5.zarr/t2m/0.0.1', '/era5.zarr/t2m/1.0.0', '/era5.zarr/t2m/1.0.1']);
  });
});
