/**
 * Every error of POST /api/v1/zonal-stats/vector (contract §5 vector rules, §6; issue 3) through the real
 * app: status, `application/problem+json`, the RFC 9457 fields, the stable `code`, and a `detail` that is
 * one human sentence without server paths or library text. Sources are the fixtures over the loopback
 * Range server (whose request log shows what was read), plus Parquet files whose footer is patched here
 * byte for byte (a string of the `geo` JSON or a column name replaced by one of the same length, so the
 * Thrift footer stays valid) to reach the metadata errors.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, FIXTURES, fixtureUrl } from '../helpers/build-app.ts';
import { startHangServer } from '../helpers/hang-server.ts';
import { startRangeServer, type RangeServer } from '../helpers/range-server.ts';
import { expectNoLeaks, expectProblemEnvelope, LEAKS_COMMON, type Answer, type Leak, type Problem } from '../helpers/problem.ts';

const VECTOR = '/api/v1/zonal-stats/vector';
const read = (rel: string): Uint8Array => new Uint8Array(readFileSync(join(FIXTURES, rel)));
const NC = read('vector/nc.parquet');
const SQUARES = read('vector/squares.parquet');
const NO_GEO = read('vector/no_geo.parquet');

/** squares.parquet's A [0,2]² and B [3,4]×[0,1] are inside, the rest outside (see fixtures/README.md). */
const SQ_AOI = {
  type: 'Polygon',
  coordinates: [
    [
      [-0.5, -0.5],
      [4.5, -0.5],
      [4.5, 2.5],
      [-0.5, 2.5],
      [-0.5, -0.5],
    ],
  ],
};
/** Over Raleigh–Durham (nc.parquet). */
const NC_AOI = {
  type: 'Polygon',
  coordinates: [
    [
      [-79.2, 35.6],
      [-78.4, 35.6],
      [-78.4, 36.2],
      [-79.2, 36.2],
      [-79.2, 35.6],
    ],
  ],
};
/** Covers all of many_groups.parquet (10 … 14.99° E, 40 … 43.9° N). */
const ALL_GROUPS_AOI = {
  type: 'Polygon',
  coordinates: [
    [
      [9.5, 39.5],
      [15.5, 39.5],
      [15.5, 44.5],
      [9.5, 44.5],
      [9.5, 39.5],
    ],
  ],
};

/** Things a `detail` must never contain (contract §6). */
const LEAKS: readonly Leak[] = [
  ...LEAKS_COMMON,
  process.cwd(),
  /\b(Type|Syntax|Range|Reference)?Error:/,
  /FST_[A-Z_]+/,
  /hyparquet|thrift/i,
  'Cannot read properties',
];

function expectProblem(res: Answer, status: number, code: string): Problem {
  const body = expectProblemEnvelope(res, status);
  expect(body['type']).toBe(`urn:zonal-stats:problem:${code}`);
  expect(body['code']).toBe(code);
  expect(body['instance']).toBe(VECTOR);
  expectNoLeaks(body.detail, LEAKS);
  if (body.errors !== undefined) {
    for (const e of body.errors) {
      expect(e.path.startsWith('/')).toBe(true);
      expect(typeof e.message).toBe('string');
    }
  }
  return body;
}

function expectSchemaError(res: Answer, path: string): Problem {
  const body = expectProblem(res, 422, 'validation_failed');
  expect(body.errors?.map((e) => e.path)).toContain(path);
  return body;
}

/**
 * `bytes` with every occurrence of `from` inside the Parquet footer replaced by `to` (same length, so the
 * Thrift lengths stay right); fails when `from` is not there.
 */
function patchFooter(bytes: Uint8Array, from: string, to: string): Uint8Array {
  expect(to.length).toBe(from.length);
  const out = bytes.slice();
  const dv = new DataView(out.buffer);
  const footerLen = dv.getUint32(out.byteLength - 8, true);
  const start = out.byteLength - 8 - footerLen;
  const f = new TextEncoder().encode(from);
  const t = new TextEncoder().encode(to);
  let n = 0;
  for (let i = start; i + f.length <= out.byteLength - 8; i++) {
    if (f.every((b, k) => out[i + k] === b)) {
      out.set(t, i);
      n++;
    }
  }
  expect(n, `"${from}" in the footer`).toBeGreaterThan(0);
  return out;
}

/** Deterministic pseudo-random bytes (xorshift32). */
function noise(n: number, seed = 12345): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

describe('problem+json for every error of the vector endpoint', () => {
  let app: FastifyInstance;
  let web: RangeServer;
  beforeAll(async () => {
    app = await buildTestApp();
    const par1 = new TextEncoder().encode('PAR1');
    const framed = new Uint8Array(4096);
    framed.set(par1, 0);
    framed.set(noise(4088, 7), 4);
    framed.set(par1, 4092);
    web = await startRangeServer({
      root: FIXTURES,
      files: {
        '/noise.parquet': noise(20_000),
        // PAR1 … PAR1 around noise: the magic is right, the footer length and footer are not.
        '/framed-noise.parquet': framed,
        '/truncated.parquet': NC.subarray(0, 10_000),
        '/text.geoparquet': 'id,value\n1,2\n'.repeat(100),
        '/empty.parquet': new Uint8Array(0),
        '/magic-only.parquet': 'PAR1',
        '/X.PARQUET': SQUARES,
        '/y.GeoParquet': SQUARES,
        '/wkt.parquet': patchFooter(SQUARES, '"encoding":"WKB"', '"encoding":"WKT"'),
        '/no-geom-column.parquet': patchFooter(NO_GEO, 'the_geom', 'the_gexm'),
        '/bad-geo-json.parquet': patchFooter(SQUARES, '{"version"', '["version"'),
        '/projected-no-id.parquet': patchFooter(
          patchFooter(NC, '"type":"GeographicCRS",', '"type":"ProjectedCRS" ,'),
          '"id":{"authority"',
          '"xx":{"authority"',
        ),
      },
    });
  });
  afterAll(async () => {
    await app.close();
    await web.close();
  });

  const post = (payload: Record<string, unknown>, target: FastifyInstance = app): Promise<Answer> => target.inject({ method: 'POST', url: VECTOR, payload });
  const ok = (path: string, extra: Record<string, unknown> = {}) => ({ url: web.url(path), aoi: SQ_AOI, columns: ['pop'], stats: ['count'], ...extra });
  /** Requests the range server saw while `f` ran. */
  async function ioDuring(f: () => Promise<void>): Promise<number> {
    const before = web.requests.length;
    await f();
    return web.requests.length - before;
  }

  it('(control) a valid request is 200: squares A and B; approx_stats is accepted and changes nothing', async () => {
    const res = await post(ok('/vector/squares.parquet', { stats: ['count', 'sum'] }));
    expect(res.statusCode, res.body).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ pop: { count: 2, sum: 1200 } });
    const approx = await post(ok('/vector/squares.parquet', { stats: ['count', 'sum'], approx_stats: true }));
    expect(approx.statusCode, approx.body).toBe(200);
    expect(JSON.parse(approx.body)).toEqual(JSON.parse(res.body));
  });

  describe('415: not a GeoParquet URL, refused before any I/O', () => {
    it.each([
      '/vector/squares.csv',
      '/vector/squares.parquet.txt',
      '/vector/squares',
      '/vector/squares.parquet/',
      '/vector/squares.csv?format=.parquet',
      '/vector/squares.json?x=squares.parquet',
      '/vector/squaresparquet',
      '/raster/synthetic/tiny_int16.tif',
    ])('%s', async (path) => {
      const n = await ioDuring(async () => {
        const body = expectProblem(await post(ok(path)), 415, 'unsupported_media_type');
        expect(body.detail).toMatch(/\.parquet/);
        expect(body.detail).toMatch(/\.geoparquet/);
      });
      expect(n, 'requests sent upstream').toBe(0);
    });

    it('file:// and s3:// URLs are held to the same rule (no file opened, no bucket asked)', async () => {
      expectProblem(await post({ ...ok('/x'), url: fixtureUrl('raster/synthetic/tiny_int16.tif') }), 415, 'unsupported_media_type');
      expectProblem(await post({ ...ok('/x'), url: 's3://bucket/data/x.csv' }), 415, 'unsupported_media_type');
      // 415 comes before the policy check: even a forbidden path answers 415, and says nothing of the file.
      expectProblem(await post({ ...ok('/x'), url: 'file:///etc/passwd' }), 415, 'unsupported_media_type');
    });

    it('(control) the suffix is case-insensitive and the query string is ignored: X.PARQUET?x=1, y.GeoParquet?a=b#f', async () => {
      for (const url of [web.url('/X.PARQUET?x=1'), web.url('/y.GeoParquet?a=b.csv#frag'), web.url('/vector/squares.parquet?v=2')]) {
        const res = await post({ ...ok('/x'), url, stats: ['count', 'sum'] });
        expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
        expect(JSON.parse(res.body)).toMatchObject({ pop: { count: 2, sum: 1200 } });
      }
    });

    it('a request body that is not JSON is 415 too (and bad JSON 400)', async () => {
      const text = await app.inject({
        method: 'POST',
        url: VECTOR,
        payload: JSON.stringify(ok('/vector/squares.parquet')),
        headers: { 'content-type': 'text/plain' },
      });
      expectProblem(text, 415, 'unsupported_media_type');
      const bad = await app.inject({ method: 'POST', url: VECTOR, payload: '{"url": ', headers: { 'content-type': 'application/json' } });
      expectProblem(bad, 400, 'bad_json');
    });
  });

  describe('422: schema errors, before any I/O', () => {
    it.each<[string, Record<string, unknown>, string]>([
      ['an unknown field (`column` for `columns`)', { aoi: SQ_AOI, column: ['pop'], columns: ['pop'] }, '/column'],
      ['an unknown field (`weighting`)', { aoi: SQ_AOI, columns: ['pop'], weighting: 'area' }, '/weighting'],
      ['`bands` (a raster field)', { aoi: SQ_AOI, columns: ['pop'], bands: [1] }, '/bands'],
      ['an empty columns list', { aoi: SQ_AOI, columns: [] }, '/columns'],
      ['columns missing', { aoi: SQ_AOI }, '/columns'],
      ['columns a string', { aoi: SQ_AOI, columns: 'pop' }, '/columns'],
      ['an empty column name', { aoi: SQ_AOI, columns: [''] }, '/columns/0'],
      ['a bad weighting_method', { aoi: SQ_AOI, columns: ['pop'], weighting_method: 'weight' }, '/weighting_method'],
      ['weighting_method in capitals', { aoi: SQ_AOI, columns: ['pop'], weighting_method: 'AREA' }, '/weighting_method'],
      ['an empty geometry_column', { aoi: SQ_AOI, columns: ['pop'], geometry_column: '' }, '/geometry_column'],
      ['approx_stats a string', { aoi: SQ_AOI, columns: ['pop'], approx_stats: 'yes' }, '/approx_stats'],
      ['an empty stats list', { aoi: SQ_AOI, columns: ['pop'], stats: [] }, '/stats'],
      ['aoi missing', { columns: ['pop'] }, '/aoi'],
    ])('%s', async (_name, fields, path) => {
      const n = await ioDuring(async () => {
        const payload = { url: web.url('/vector/squares.parquet'), ...fields };
        const body = expectSchemaError(await post(payload), path);
        // A value outside a list names the allowed values; other schema errors say what is invalid.
        expect(body.detail).toMatch(
          path === '/weighting_method' ? /^\/weighting_method is "(weight|AREA)"; it must be one of area, ratio\.$/ : /request is invalid|invalid/i,
        );
      });
      expect(n).toBe(0);
    });

    it('an unknown statistic lists the valid vector names (density, not nodata)', async () => {
      const n = await ioDuring(async () => {
        const body = expectProblem(await post(ok('/vector/squares.parquet', { stats: ['mean', 'avg'] })), 422, 'unknown_stat');
        expect(body.detail).toContain('avg');
        for (const name of ['count', 'min', 'max', 'mean', 'sum', 'std', 'median', 'majority', 'unique', 'freq_hist', 'density'])
          expect(body.detail).toContain(name);
        expect(body.detail).not.toContain('nodata');
        expect(body.errors?.[0]?.path).toBe('/stats/1');
      });
      expect(n).toBe(0);
    });

    it('`nodata` asked of a vector is stat_not_applicable', async () => {
      const n = await ioDuring(async () => {
        const body = expectProblem(await post(ok('/vector/squares.parquet', { stats: ['count', 'nodata'] })), 422, 'stat_not_applicable');
        expect(body.detail).toContain('nodata');
        expect(body.errors?.[0]?.path).toBe('/stats/1');
      });
      expect(n).toBe(0);
    });

    it('an invalid AOI (bow tie) is invalid_geometry', async () => {
      const bowtie = {
        type: 'Polygon',
        coordinates: [
          [
            [0, 0],
            [2, 2],
            [2, 0],
            [0, 2],
            [0, 0],
          ],
        ],
      };
      const body = expectProblem(await post(ok('/vector/squares.parquet', { aoi: bowtie })), 422, 'invalid_geometry');
      expect(body.detail).toMatch(/intersect|cross/i);
    });

    it('an unsupported protocol', async () => {
      const body = expectProblem(await post({ ...ok('/x'), url: 'ftp://example.com/data/x.parquet' }), 422, 'unsupported_protocol');
      expect(body.detail).toContain('ftp');
    });
  });

  describe('422: the file', () => {
    it("a column the file lacks names it and lists the file's columns", async () => {
      const body = expectProblem(await post({ url: web.url('/vector/nc.parquet'), aoi: NC_AOI, columns: ['BIR74', 'nope'] }), 422, 'unknown_column');
      expect(body.detail).toContain('nope');
      for (const c of ['AREA', 'PERIMETER', 'CNTY_', 'NAME', 'FIPS', 'BIR74', 'SID74', 'NWBIR79']) expect(body.detail).toContain(c);
      expect(body['columns']).toEqual(expect.arrayContaining(['AREA', 'NAME', 'BIR74', 'NWBIR79']));
    });

    // The geometry column is a (binary) column of the file: asked for, it is skipped like any other.
    it('the geometry column asked beside a numeric one is skipped like any binary column (200)', async () => {
      const res = await post(ok('/vector/squares.parquet', { columns: ['pop', 'GEOMETRY'], stats: ['count'] }));
      expect(res.statusCode, res.body).toBe(200);
      expect(Object.keys(JSON.parse(res.body) as object)).toEqual(['pop']);
    });

    it('the geometry column alone is no_numeric_column, and an unknown_column list includes it', async () => {
      expectProblem(await post(ok('/vector/squares.parquet', { columns: ['geometry'] })), 422, 'no_numeric_column');
      const body = expectProblem(await post(ok('/vector/squares.parquet', { columns: ['nope'] })), 422, 'unknown_column');
      expect(body['columns']).toContain('geometry');
    });

    it('only non-numeric columns (text) is no_numeric_column', async () => {
      const body = expectProblem(await post({ url: web.url('/vector/nc.parquet'), aoi: NC_AOI, columns: ['NAME', 'fips'] }), 422, 'no_numeric_column');
      expect(body.detail).toContain('NAME');
    });

    it('only boolean and text columns (types.parquet flag, label) is no_numeric_column', async () => {
      const aoi = {
        type: 'Polygon',
        coordinates: [
          [
            [-0.5, -0.5],
            [11.5, -0.5],
            [11.5, 1.5],
            [-0.5, 1.5],
            [-0.5, -0.5],
          ],
        ],
      };
      expectProblem(await post({ url: web.url('/vector/types.parquet'), aoi, columns: ['flag', 'LABEL'] }), 422, 'no_numeric_column');
    });

    it('an unknown geometry_column names it and lists the columns', async () => {
      const body = expectProblem(await post(ok('/vector/squares.parquet', { geometry_column: 'geom' })), 422, 'validation_failed');
      expect(body.detail).toContain('"geom"');
      expect(body.detail).toContain('geometry');
      expect(body.errors?.[0]?.path).toBe('/geometry_column');
    });

    it('a geometry_column that is not a binary column (pop, int32) is invalid_source', async () => {
      const body = expectProblem(await post(ok('/vector/squares.parquet', { geometry_column: 'pop', columns: ['value'] })), 422, 'invalid_source');
      expect(body.detail).toContain('pop');
    });

    it('a geometry_column that is text, not WKB (name), is 422, not a 500', async () => {
      expectProblem(await post(ok('/vector/squares.parquet', { geometry_column: 'NAME' })), 422, 'invalid_source');
    });

    it.each([
      ['random bytes', '/noise.parquet'],
      ['PAR1 … PAR1 around random bytes', '/framed-noise.parquet'],
      ['a truncated Parquet file (first 10,000 bytes of nc.parquet)', '/truncated.parquet'],
      ['CSV text named .geoparquet', '/text.geoparquet'],
      ['an empty file', '/empty.parquet'],
      ['the 4-byte magic alone', '/magic-only.parquet'],
    ])('bytes that are not Parquet: %s', async (_name, path) => {
      const body = expectProblem(await post(ok(path)), 422, 'invalid_source');
      expect(body.detail).toMatch(/Parquet/);
    });

    it('a non-WKB geometry encoding in the geo metadata', async () => {
      const body = expectProblem(await post(ok('/wkt.parquet')), 422, 'invalid_source');
      expect(body.detail).toContain('WKT');
    });

    it('no geometry column (no geo metadata, no column of a known name)', async () => {
      const body = expectProblem(await post({ url: web.url('/no-geom-column.parquet'), aoi: SQ_AOI, columns: ['score'] }), 422, 'invalid_source');
      expect(body.detail).toContain('geometry_column');
      // (control) naming the column makes the same file work.
      const named = await post({
        url: web.url('/no-geom-column.parquet'),
        aoi: {
          type: 'Polygon',
          coordinates: [
            [
              [20, -1],
              [26, -1],
              [26, 1],
              [20, 1],
              [20, -1],
            ],
          ],
        },
        columns: ['score'],
        geometry_column: 'THE_GEXM',
        stats: ['count'],
      });
      expect(named.statusCode, named.body).toBe(200);
    });

    it('geo metadata that is not JSON', async () => {
      expectProblem(await post(ok('/bad-geo-json.parquet')), 422, 'invalid_source');
    });

    it('a projected CRS without an id (nc.parquet with its PROJJSON made a ProjectedCRS and its id removed)', async () => {
      const body = expectProblem(await post({ url: web.url('/projected-no-id.parquet'), aoi: NC_AOI, columns: ['BIR74'] }), 422, 'invalid_source');
      expect(body.detail).toContain('NAD27');
    });

    it('a source that is not found: HTTP 404, a missing file:// inside the roots', async () => {
      expectProblem(await post(ok('/vector/nope.parquet')), 422, 'source_not_found');
      const body = expectProblem(await post({ ...ok('/x'), url: fixtureUrl('vector/nope.parquet') }), 422, 'source_not_found');
      expect(body.detail).toContain('nope.parquet');
    });

    it('unique over more than 10,000 distinct values (many_groups id, 20,000 rows)', async () => {
      const body = expectProblem(
        await post({ url: web.url('/vector/many_groups.parquet'), aoi: ALL_GROUPS_AOI, columns: ['id'], stats: ['count', 'unique'] }),
        422,
        'too_many_unique_values',
      );
      expect(body.detail).toContain('10,000');
    });
  });

  describe('422: too many features', () => {
    let capped: FastifyInstance;
    beforeAll(async () => {
      capped = await buildTestApp({ maxFeatures: 10 });
    });
    afterAll(async () => capped.close());

    it('maxFeatures 10 on many_groups with an AOI over all of it: the limit and the figure, and no data read', async () => {
      const before = web.requests.length;
      const body = expectProblem(
        await post({ url: web.url('/vector/many_groups.parquet'), aoi: ALL_GROUPS_AOI, columns: ['value'] }, capped),
        422,
        'too_many_features',
      );
      expect(body.detail).toContain('20,000');
      expect(body.detail).toMatch(/\b10\b/);
      expect(body['limit_features']).toBe(10);
      // Refused after the footer: the data of no row group was asked for.
      const footerStart = 381_258 - 8 - 43_560;
      for (const r of web.requests.slice(before)) {
        const m = /^bytes=(\d+)-(\d+)$/.exec(r.range ?? '');
        if (m === null) continue;
        expect(Number(m[2]) >= footerStart || Number(m[2]) === 0, `range ${r.range}`).toBe(true);
      }
    });

    it('(control) the same service answers a request under the cap (nc: one AOI over 100 rows is over it, squares: 7 rows is not)', async () => {
      expectProblem(await post({ url: web.url('/vector/nc.parquet'), aoi: NC_AOI, columns: ['BIR74'] }, capped), 422, 'too_many_features');
      const res = await post(ok('/vector/squares.parquet'), capped);
      expect(res.statusCode, res.body).toBe(200);
    });
  });

  describe('403: the URL is refused by policy', () => {
    it('a file:// path outside the data roots', async () => {
      for (const url of ['file:///etc/passwd.parquet', `file://${FIXTURES}../package.parquet`, `file://${FIXTURES}%2e%2e/x.geoparquet`]) {
        const body = expectProblem(await post({ ...ok('/x'), url }), 403, 'url_forbidden');
        expect(body.detail).not.toContain('/etc');
      }
    });

    describe('private, loopback and link-local addresses with allowPrivateNetworks: false', () => {
      let strict: FastifyInstance;
      beforeAll(async () => {
        strict = await buildTestApp({ allowPrivateNetworks: false });
      });
      afterAll(async () => strict.close());

      it.each([
        ['loopback IPv4 (the range server itself)', () => web.url('/vector/squares.parquet')],
        ['localhost', () => `http://localhost:${new URL(web.origin).port}/vector/squares.parquet`],
        ['loopback IPv6', () => 'http://[::1]:9/x.parquet'],
        ['RFC 1918', () => 'http://10.1.2.3/x.parquet'],
        ['link-local metadata address', () => 'http://169.254.169.254/latest/x.parquet'],
      ])('%s', async (_name, url) => {
        const before = web.requests.length;
        expectProblem(await post({ ...ok('/x'), url: url() }, strict), 403, 'url_forbidden');
        expect(web.requests.length - before, 'nothing reached the range server').toBe(0);
      });
    });
  });

  describe('502 / 504: the upstream fails', () => {
    it.each([
      ['500', { kind: 'status', status: 500 }],
      ['503', { kind: 'status', status: 503 }],
      ['a connection reset mid-body', { kind: 'reset' }],
      ['a truncated body', { kind: 'truncate' }],
    ] as const)('upstream %s is 502 upstream_failed', async (name, fault) => {
      const path = `/fault-${name.replace(/\W+/g, '-')}.parquet`;
      web.setFile(path, SQUARES);
      web.setFault(path, fault);
      expectProblem(await post(ok(path)), 502, 'upstream_failed');
    });

    it('connection refused is 502', async () => {
      const port = await closedPort();
      expectProblem(await post({ ...ok('/x'), url: `http://127.0.0.1:${port}/x.parquet` }), 502, 'upstream_failed');
    });

    // Asserted by the outcome, not by a measured time (issue 22); test/source/http.test.ts pins the
    // deadline to the clock.
    it('an upstream that never answers is 504 upstream_timeout naming upstreamTimeoutMs (300 ms), the request abandoned', async () => {
      const quick = await buildTestApp({ upstreamTimeoutMs: 300 });
      const hang = await startHangServer();
      try {
        const body = expectProblem(await post({ ...ok('/x'), url: hang.url('/hang.parquet') }, quick), 504, 'upstream_timeout');
        expect(body.detail).toContain('300');
        // The service closed the connection it was waiting on rather than leave it open.
        await hang.closedByClient(1);
        expect(hang.abandoned).toBe(hang.paths.length);
      } finally {
        await hang.close();
        await quick.close();
      }
    });
  });

  it('the service still answers /health and a valid vector request after all of the above', async () => {
    const health = await app.inject({ method: 'GET', url: '/health' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toEqual({ status: 'ok' });
    const res = await post(ok('/vector/squares.parquet', { stats: ['count', 'sum'] }));
    expect(res.statusCode, res.body).toBe(200);
  });
});
