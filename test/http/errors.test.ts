/**
 * Every status of contract §6 through the real app (POST /api/v1/zonal-stats/raster): status,
 * `application/problem+json`, the RFC 9457 fields, `errors` for schema errors, and a `detail` that is
 * one human sentence without stack traces, server paths or library text.
 */
import { mkdtemp, rm, symlink, copyFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { openSource } from '../../src/source/resolve.ts';
import { buildTestApp, FIXTURES, fixtureUrl, testConfig } from '../helpers/build-app.ts';
import { startHangServer } from '../helpers/hang-server.ts';
import { startRangeServer, type RangeServer } from '../helpers/range-server.ts';
import { startS3Server, useS3Env, type S3Server } from '../helpers/s3-server.ts';
import { expectNoLeaks, expectProblemWithout, LEAKS_COMMON, type Answer, type Leak, type Problem } from '../helpers/problem.ts';

const RASTER = '/api/v1/zonal-stats/raster';
const TINY = fixtureUrl('raster/synthetic/tiny_int16.tif');
/** ±0.001° around the tiny grid (UTM 33N, 6 × 4 px of 10 m from x=500000, y=5000000): covers all of it. */
const AOI = {
  type: 'Polygon',
  coordinates: [
    [
      [14.9994, 45.1523],
      [15.0014, 45.1523],
      [15.0014, 45.1543],
      [14.9994, 45.1543],
      [14.9994, 45.1523],
    ],
  ],
};

/** Things a `detail` must never contain (contract §6): server paths, stack frames, library/system text. */
const LEAKS: readonly Leak[] = [
  ...LEAKS_COMMON,
  process.cwd(),
  /\b(Type|Syntax|Range|Reference)?Error:/,
  /FST_[A-Z_]+/,
  'Cannot read properties',
  'secure-json-parse',
];

function expectCleanDetail(detail: string, extra: Leak[] = []): void {
  expectNoLeaks(detail, [...LEAKS, ...extra]);
}

/** Asserts a problem+json answer; returns its body. */
function expectProblem(res: Answer, status: number, code?: string): Problem {
  const body = expectProblemWithout(LEAKS, res, status, code);
  if (body.errors !== undefined) {
    expect(Array.isArray(body.errors)).toBe(true);
    for (const e of body.errors) {
      expect(typeof e.path).toBe('string');
      expect(e.path.startsWith('/')).toBe(true);
      expect(typeof e.message).toBe('string');
      expectCleanDetail(e.message);
    }
  }
  return body;
}

/** A schema error: 422 validation_failed with `errors[0].path` = `path`. */
function expectSchemaError(res: Answer, path?: string) {
  const body = expectProblem(res, 422, 'validation_failed');
  expect(Array.isArray(body.errors), 'validation errors carry an `errors` array').toBe(true);
  expect(body.errors!.length).toBeGreaterThan(0);
  if (path !== undefined) expect(body.errors![0]!.path).toBe(path);
  return body;
}

/** A port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/**
 * A minimal uncompressed tiled GeoTIFF (little-endian, classic TIFF), uint16, one band, EPSG:32633,
 * `size` × `size` px of 10 m from (500000, 5000000), value row·size + col: every pixel distinct.
 */
function distinctGeoTiff(size: number): Uint8Array {
  const tile = size; // one tile
  const dataOffset = 512;
  const dataBytes = tile * tile * 2;
  const buf = new ArrayBuffer(dataOffset + dataBytes);
  const dv = new DataView(buf);
  dv.setUint8(0, 0x49);
  dv.setUint8(1, 0x49);
  dv.setUint16(2, 42, true);
  dv.setUint32(4, 8, true);
  const SHORT = 3;
  const LONG = 4;
  const DOUBLE = 12;
  const scaleAt = 200;
  const tieAt = 224;
  const keysAt = 272;
  const entries: [number, number, number, number][] = [
    [256, SHORT, 1, size],
    [257, SHORT, 1, size],
    [258, SHORT, 1, 16],
    [259, SHORT, 1, 1],
    [262, SHORT, 1, 1],
    [277, SHORT, 1, 1],
    [284, SHORT, 1, 1],
    [322, SHORT, 1, tile],
    [323, SHORT, 1, tile],
    [324, LONG, 1, dataOffset],
    [325, LONG, 1, dataBytes],
    [339, SHORT, 1, 1],
    [33550, DOUBLE, 3, scaleAt],
    [33922, DOUBLE, 6, tieAt],
    [34735, SHORT, 16, keysAt],
  ];
  dv.setUint16(8, entries.length, true);
  entries.forEach(([tag, type, count, value], i) => {
    const at = 10 + i * 12;
    dv.setUint16(at, tag, true);
    dv.setUint16(at + 2, type, true);
    dv.setUint32(at + 4, count, true);
    if (type === SHORT && count === 1) dv.setUint16(at + 8, value, true);
    else dv.setUint32(at + 8, value, true);
  });
  dv.setUint32(10 + entries.length * 12, 0, true);
  [10, 10, 0].forEach((v, i) => dv.setFloat64(scaleAt + 8 * i, v, true));
  [0, 0, 0, 500000, 5000000, 0].forEach((v, i) => dv.setFloat64(tieAt + 8 * i, v, true));
  // GeoKeyDirectory: version 1.1.0, 3 keys: model type projected, raster type PixelIsArea, EPSG:32633.
  [1, 1, 0, 3, 1024, 0, 1, 1, 1025, 0, 1, 1, 3072, 0, 1, 32633].forEach((v, i) => dv.setUint16(keysAt + 2 * i, v, true));
  for (let r = 0; r < size; r++) for (let c = 0; c < size; c++) dv.setUint16(dataOffset + 2 * (r * tile + c), r * size + c, true);
  return new Uint8Array(buf);
}

describe('problem+json for every status of contract §6', () => {
  let app: FastifyInstance;
  let web: RangeServer;
  beforeAll(async () => {
    app = await buildTestApp();
    web = await startRangeServer({ root: FIXTURES, files: { '/not-a-tiff.tif': 'hello, this is plain text and not a TIFF at all\n'.repeat(20) } });
  });
  afterAll(async () => {
    await app.close();
    await web.close();
  });

  const post = (payload: unknown, target: FastifyInstance = app): Promise<Answer> =>
    target.inject({ method: 'POST', url: RASTER, payload: payload as Record<string, unknown> });
  const raw = (payload: string, contentType?: string, target: FastifyInstance = app): Promise<Answer> =>
    target.inject({ method: 'POST', url: RASTER, payload, headers: contentType === undefined ? {} : { 'content-type': contentType } });

  it('a valid request is 200 (sanity check of the fixtures and AOI used below)', async () => {
    const res = await post({ url: TINY, aoi: AOI, stats: ['count'] });
    expect(res.statusCode, res.body).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ band_1: { count: 23 } });
  });

  describe('400: the body is not JSON', () => {
    it('malformed JSON', async () => {
      expectProblem(await raw('{"url": "file:///x.tif", "aoi": ', 'application/json'), 400, 'bad_json');
    });

    it('an empty body declared as JSON', async () => {
      expectProblem(await raw('', 'application/json'), 400, 'bad_json');
    });

    it('JSON with a trailing garbage byte', async () => {
      expectProblem(await raw(`${JSON.stringify({ url: TINY, aoi: AOI })}x`, 'application/json'), 400, 'bad_json');
    });
  });

  describe('403: the URL is refused by policy', () => {
    it('a file:// path outside the data roots', async () => {
      const body = expectProblem(await post({ url: 'file:///etc/passwd', aoi: AOI }), 403, 'url_forbidden');
      expect(body.detail).not.toContain('/etc');
      // The refusal names the setting that would allow it.
      expect(body.detail).toContain('ZONAL_DATA_ROOTS');
    });

    it('a private address names ZONAL_ALLOW_PRIVATE_NETWORKS', async () => {
      const strict = await buildTestApp({ allowPrivateNetworks: false });
      try {
        const res = await strict.inject({ method: 'POST', url: RASTER, payload: { url: 'http://127.0.0.1:9/x.tif', aoi: AOI } });
        const body = expectProblem(res, 403, 'url_forbidden');
        expect(body.detail).toContain('ZONAL_ALLOW_PRIVATE_NETWORKS');
      } finally {
        await strict.close();
      }
    });

    it('a missing file outside the roots is 403 too (does not reveal what exists there)', async () => {
      expectProblem(await post({ url: 'file:///no/such/dir/x.tif', aoi: AOI }), 403, 'url_forbidden');
    });

    it('a `..` escape from a data root (plain and percent-encoded)', async () => {
      for (const url of [`file://${FIXTURES}raster/../../package.json`, `file://${FIXTURES}%2e%2e/package.json`, `file://${FIXTURES}..%2Fpackage.json`]) {
        expectProblem(await post({ url, aoi: AOI }), 403, 'url_forbidden');
      }
    });

    it('a file URL with a host', async () => {
      expectProblem(await post({ url: 'file://evil.example/etc/passwd', aoi: AOI }), 403, 'url_forbidden');
    });

    describe('a symlink inside a data root that points outside it', () => {
      let root: string;
      let rooted: FastifyInstance;
      beforeAll(async () => {
        root = await mkdtemp(join(tmpdir(), 'zonal-root-'));
        await symlink(join(FIXTURES, 'raster/synthetic/tiny_int16.tif'), join(root, 'escape.tif'));
        await symlink(FIXTURES, join(root, 'escape-dir'));
        await copyFile(join(FIXTURES, 'raster/synthetic/tiny_int16.tif'), join(root, 'inside.tif'));
        await symlink(join(root, 'inside.tif'), join(root, 'inside-link.tif'));
        rooted = await buildTestApp({ dataRoots: [root] });
      });
      afterAll(async () => {
        await rooted.close();
        await rm(root, { recursive: true, force: true });
      });

      it('a file symlink escaping the root is 403', async () => {
        const body = expectProblem(await post({ url: pathToFileURL(join(root, 'escape.tif')).href, aoi: AOI }, rooted), 403, 'url_forbidden');
        expectCleanDetail(body.detail, [root]);
      });

      it('a directory symlink escaping the root is 403', async () => {
        const url = pathToFileURL(join(root, 'escape-dir/raster/synthetic/tiny_int16.tif')).href;
        expectProblem(await post({ url, aoi: AOI }, rooted), 403, 'url_forbidden');
      });

      it('(control) a regular file and a symlink that stays inside the root are read', async () => {
        for (const name of ['inside.tif', 'inside-link.tif']) {
          const res = await post({ url: pathToFileURL(join(root, name)).href, aoi: AOI, stats: ['count'] }, rooted);
          expect(res.statusCode, res.body).toBe(200);
        }
      });
    });

    describe('private, loopback and link-local addresses with allowPrivateNetworks: false', () => {
      let strict: FastifyInstance;
      beforeAll(async () => {
        strict = await buildTestApp({ allowPrivateNetworks: false });
      });
      afterAll(async () => strict.close());

      it.each([
        ['loopback IPv4 literal', () => web.url('/raster/synthetic/tiny_int16.tif')],
        ['loopback IPv6 literal', () => 'http://[::1]:9/x.tif'],
        ['IPv4-mapped loopback', () => 'http://[::ffff:127.0.0.1]:9/x.tif'],
        ['RFC 1918', () => 'http://10.1.2.3/x.tif'],
        ['link-local metadata address', () => 'http://169.254.169.254/latest/meta-data'],
        ['unspecified address', () => 'http://0.0.0.0:9/x.tif'],
      ])('%s', async (_name, url) => {
        expectProblem(await post({ url: url(), aoi: AOI }, strict), 403, 'url_forbidden');
      });

      it('a host name that resolves to loopback (checked at connect time)', async () => {
        const port = new URL(web.origin).port;
        expectProblem(await post({ url: `http://localhost:${port}/raster/synthetic/tiny_int16.tif`, aoi: AOI }, strict), 403, 'url_forbidden');
      });
    });
  });

  describe('404: unknown route', () => {
    it('GET of an unknown path is problem+json', async () => {
      expectProblem(await app.inject({ method: 'GET', url: '/no/such/route' }), 404, 'not_found');
    });

    it('POST to a near-miss of the endpoint', async () => {
      expectProblem(await app.inject({ method: 'POST', url: `${RASTER}x`, payload: { url: TINY, aoi: AOI } }), 404, 'not_found');
    });

    it('GET on a POST endpoint is a problem+json 405 with Allow: POST, saying what to use', async () => {
      for (const url of [RASTER, '/api/v1/zonal-stats/vector', '/api/v1/zonal-stats/raster/stac/search', `${RASTER}?x=1`]) {
        const res = await app.inject({ method: 'GET', url });
        expectProblem(res, 405, 'method_not_allowed');
        expect(res.headers['allow']).toBe('POST');
        expect((res.json() as { detail: string }).detail).toMatch(/^GET is not allowed on \/api\/v1\/zonal-stats\/[a-z/]+: use POST\.$/);
      }
    });

    it('DELETE on /health is 405 with Allow: GET, HEAD', async () => {
      const res = await app.inject({ method: 'DELETE', url: '/health' });
      expectProblem(res, 405, 'method_not_allowed');
      expect(res.headers['allow']).toBe('GET, HEAD');
    });
  });

  describe('415: request not JSON', () => {
    // Fastify's built-in text/plain parser is removed in buildApp, so this is 415, not a schema 422.
    it('a text/plain body', async () => {
      expectProblem(await raw(JSON.stringify({ url: TINY, aoi: AOI }), 'text/plain'), 415, 'unsupported_media_type');
    });

    it('a body without a content type', async () => {
      expectProblem(await raw(JSON.stringify({ url: TINY, aoi: AOI })), 415, 'unsupported_media_type');
    });

    it('form-encoded and XML bodies', async () => {
      expectProblem(await raw('url=x&aoi=y', 'application/x-www-form-urlencoded'), 415, 'unsupported_media_type');
      expectProblem(await raw('<aoi/>', 'application/xml'), 415, 'unsupported_media_type');
    });

    it('(control) application/json with a charset is accepted', async () => {
      const res = await raw(JSON.stringify({ url: TINY, aoi: AOI, stats: ['count'] }), 'application/json; charset=utf-8');
      expect(res.statusCode, res.body).toBe(200);
    });
  });

  describe('422: well-formed JSON but wrong', () => {
    it('an unknown field (`stat` typo) names the field', async () => {
      const body = expectSchemaError(await post({ url: TINY, aoi: AOI, stat: ['mean'] }), '/stat');
      expect(body.detail).toContain('stat');
    });

    it.each([
      ['url a number', { url: 42, aoi: AOI }, '/url'],
      ['stats a string', { url: TINY, aoi: AOI, stats: 'mean' }, '/stats'],
      ['bands a string', { url: TINY, aoi: AOI, bands: '1' }, '/bands'],
      ['approx_stats a string', { url: TINY, aoi: AOI, approx_stats: 'true' }, '/approx_stats'],
      ['aoi an array', { url: TINY, aoi: [1, 2] }, '/aoi'],
      ['a coordinate a string', { url: TINY, aoi: { type: 'Point', coordinates: ['15', 45] } }, undefined],
      ['missing url', { aoi: AOI }, '/url'],
      ['missing aoi', { url: TINY }, '/aoi'],
    ])('wrong type / missing field: %s', async (_name, payload, path) => {
      expectSchemaError(await post(payload), path);
    });

    it('an empty stats list', async () => {
      expectSchemaError(await post({ url: TINY, aoi: AOI, stats: [] }), '/stats');
    });

    it('an unknown statistic: the detail lists the valid names', async () => {
      const body = expectProblem(await post({ url: TINY, aoi: AOI, stats: ['mean', 'avg'] }), 422, 'unknown_stat');
      expect(body.detail).toContain('avg');
      for (const name of ['count', 'min', 'max', 'mean', 'sum', 'std', 'median', 'majority', 'unique', 'freq_hist', 'nodata']) {
        expect(body.detail).toContain(name);
      }
      expect(body.detail).not.toContain('density');
      expect(body.errors?.[0]?.path).toBe('/stats/1');
    });

    it('`density` asked of a raster', async () => {
      const body = expectProblem(await post({ url: TINY, aoi: AOI, stats: ['density'] }), 422, 'stat_not_applicable');
      expect(body.detail).toContain('density');
    });

    it.each(['percentile_101', 'percentile_-1', 'percentile_abc', 'percentile_', 'percentile_NaN', 'percentile_Infinity'])(
      'a bad percentile: %s',
      async (stat) => {
        const body = expectProblem(await post({ url: TINY, aoi: AOI, stats: [stat] }), 422);
        expect(['unknown_stat', 'validation_failed']).toContain(body['code']);
      },
    );

    it('band 0', async () => {
      expectSchemaError(await post({ url: TINY, aoi: AOI, bands: [0] }), '/bands/0');
    });

    it('a band beyond the band count names the count', async () => {
      const body = expectProblem(await post({ url: TINY, aoi: AOI, bands: [1, 2] }), 422, 'unknown_band');
      expect(body.detail).toMatch(/\b1 band\b/);
      expect(body.detail).toContain('2');
    });

    it('an unclosed ring', async () => {
      const ring = AOI.coordinates[0]!.slice(0, 4).concat([[14.9995, 45.1524]]);
      const body = expectProblem(await post({ url: TINY, aoi: { type: 'Polygon', coordinates: [ring] } }), 422, 'invalid_geometry');
      expect(body.detail).toMatch(/clos/i);
      expect(body.errors?.[0]?.path).toMatch(/^\/aoi\/coordinates/);
    });

    it('a self-intersecting polygon (bow tie)', async () => {
      const bowtie = [
        [14.9994, 45.1523],
        [15.0014, 45.1543],
        [15.0014, 45.1523],
        [14.9994, 45.1543],
        [14.9994, 45.1523],
      ];
      const body = expectProblem(await post({ url: TINY, aoi: { type: 'Polygon', coordinates: [bowtie] } }), 422, 'invalid_geometry');
      expect(body.detail).toMatch(/intersect|cross/i);
    });

    it('latitude out of range (point, by the schema)', async () => {
      expectSchemaError(await post({ url: TINY, aoi: { type: 'Point', coordinates: [15, 91] } }));
    });

    it('latitude out of range (polygon ring)', async () => {
      const ring = [
        [15, 45],
        [15.1, 45],
        [15.1, 95],
        [15, 95],
        [15, 45],
      ];
      const body = expectProblem(await post({ url: TINY, aoi: { type: 'Polygon', coordinates: [ring] } }), 422);
      expect(['invalid_geometry', 'validation_failed']).toContain(body['code']);
      expect(body.detail).toMatch(/latitude|90|95/i);
    });

    it('a negative radius', async () => {
      expectSchemaError(await post({ url: TINY, aoi: { type: 'Point', coordinates: [15.0003, 45.1532], radius: -5 } }), '/aoi/radius');
    });

    it('an unsupported protocol (ftp://)', async () => {
      const body = expectProblem(await post({ url: 'ftp://example.com/x.tif', aoi: AOI }), 422, 'unsupported_protocol');
      expect(body.detail).toContain('ftp');
    });

    it.each(['not a url', 'x.tif', '/abs/path.tif', '//host/x.tif'])('a string that is not an absolute URL: %s', async (url) => {
      const body = expectProblem(await post({ url, aoi: AOI }), 422);
      expect(['validation_failed', 'unsupported_protocol']).toContain(body['code']);
    });

    describe('a source that is not found', () => {
      it('HTTP 404 from the server', async () => {
        expectProblem(await post({ url: web.url('/raster/synthetic/nope.tif'), aoi: AOI }), 422, 'source_not_found');
      });

      it('a missing file:// inside the data roots', async () => {
        const body = expectProblem(await post({ url: fixtureUrl('raster/synthetic/nope.tif'), aoi: AOI }), 422, 'source_not_found');
        expect(body.detail).toContain('nope.tif');
      });

      it('a directory inside the data roots', async () => {
        expectProblem(await post({ url: fixtureUrl('raster/synthetic/'), aoi: AOI }), 422, 'source_not_found');
      });

      describe('a missing s3 key', () => {
        let s3: S3Server;
        let restoreEnv: () => void;
        beforeAll(async () => {
          s3 = await startS3Server({ bucket: 'rasters', files: { 'tiny.tif': readFileSync(join(FIXTURES, 'raster/synthetic/tiny_int16.tif')) } });
          restoreEnv = useS3Env(s3);
        });
        afterAll(async () => {
          restoreEnv();
          await s3.close();
        });

        it('a missing key is 422 source_not_found; (control) the existing key is 200', async () => {
          expectProblem(await post({ url: s3.url('nope.tif'), aoi: AOI }), 422, 'source_not_found');
          expectProblem(await post({ url: 's3://no-such-bucket/tiny.tif', aoi: AOI }), 422, 'source_not_found');
          const ok = await post({ url: s3.url('tiny.tif'), aoi: AOI, stats: ['count'] });
          expect(ok.statusCode, ok.body).toBe(200);
        });

        it('an s3 URL without a key', async () => {
          expectProblem(await post({ url: 's3://rasters/', aoi: AOI }), 422, 'validation_failed');
        });
      });
    });

    it('a file that is not a TIFF', async () => {
      expectProblem(await post({ url: web.url('/not-a-tiff.tif'), aoi: AOI }), 422, 'invalid_source');
    });

    it('a truncated TIFF (only the first 300 bytes of a COG)', async () => {
      web.setFile('/truncated.tif', readFileSync(join(FIXTURES, 'raster/synthetic/big_tiles.tif')).subarray(0, 300));
      expectProblem(await post({ url: web.url('/truncated.tif'), aoi: AOI }), 422, 'invalid_source');
    });

    it('a raster with no CRS', async () => {
      expectProblem(await post({ url: fixtureUrl('raster/synthetic/no_crs.tif'), aoi: AOI }), 422, 'missing_crs');
    });

    it('an AOI above the area limit names the limit and the figure', async () => {
      const small = await buildTestApp({ maxAreaKm2: 0.001 });
      try {
        const body = expectProblem(await post({ url: TINY, aoi: AOI }, small), 422, 'aoi_too_large');
        expect(body.detail).toContain('0.001');
        expect(body.detail).toMatch(/km²/);
      } finally {
        await small.close();
      }
    });

    it('too many pixels names the limit and the figure', async () => {
      // too_many_pixels.tif: 11000 × 10000 px of 10 m from (200000, 5500000) in UTM 33N; this AOI covers it all.
      const aoi = {
        type: 'Polygon',
        coordinates: [
          [
            [10.9, 48.6],
            [13.1, 48.6],
            [13.1, 49.75],
            [10.9, 49.75],
            [10.9, 48.6],
          ],
        ],
      };
      const body = expectProblem(await post({ url: fixtureUrl('raster/synthetic/too_many_pixels.tif'), aoi }), 422, 'too_many_pixels');
      expect(body.detail).toContain('100,000,000');
    });

    it('unique / freq_hist over more than 10,000 distinct values', async () => {
      // 128 × 128 px, every value distinct (16,384), served from memory by the range server.
      web.setFile('/distinct.tif', distinctGeoTiff(128));
      const aoi = {
        type: 'Polygon',
        coordinates: [
          [
            [14.998, 45.14],
            [15.02, 45.14],
            [15.02, 45.155],
            [14.998, 45.155],
            [14.998, 45.14],
          ],
        ],
      };
      const control = await post({ url: web.url('/distinct.tif'), aoi, stats: ['count', 'min', 'max'] });
      expect(control.statusCode, control.body).toBe(200);
      expect(JSON.parse(control.body)).toMatchObject({ band_1: { count: 128 * 128, min: 0, max: 128 * 128 - 1 } });
      for (const stat of ['unique', 'freq_hist']) {
        const body = expectProblem(await post({ url: web.url('/distinct.tif'), aoi, stats: ['count', stat] }), 422, 'too_many_unique_values');
        expect(body.detail).toContain('10,000');
      }
    });
  });

  describe('413 (not in the contract table; README documents it): a body above maxBodyBytes', () => {
    it('is a problem+json 413', async () => {
      const small = await buildTestApp({ maxBodyBytes: 2048 });
      try {
        const ring = Array.from({ length: 200 }, (_, i) => [15 + i * 1e-6, 45.15]);
        expectProblem(await post({ url: TINY, aoi: { type: 'Polygon', coordinates: [ring] } }, small), 413, 'payload_too_large');
      } finally {
        await small.close();
      }
    });
  });

  describe('502: the source server failed', () => {
    it('upstream answers 500', async () => {
      web.setFault('/fail500.tif', { kind: 'status', status: 500 });
      const body = expectProblem(await post({ url: web.url('/fail500.tif'), aoi: AOI }), 502, 'upstream_failed');
      expect(body.detail).toContain('500');
    });

    it('upstream answers 503', async () => {
      web.setFault('/fail503.tif', { kind: 'status', status: 503 });
      expectProblem(await post({ url: web.url('/fail503.tif'), aoi: AOI }), 502, 'upstream_failed');
    });

    it('the connection is reset mid-body', async () => {
      web.setFault('/reset.tif', { kind: 'reset' });
      web.setFile('/reset.tif', readFileSync(join(FIXTURES, 'raster/synthetic/big_tiles.tif')));
      expectProblem(await post({ url: web.url('/reset.tif'), aoi: AOI }), 502, 'upstream_failed');
    });

    it('a truncated body (Content-Length promised, connection closed early)', async () => {
      web.setFault('/truncated-body.tif', { kind: 'truncate' });
      web.setFile('/truncated-body.tif', readFileSync(join(FIXTURES, 'raster/synthetic/big_tiles.tif')));
      expectProblem(await post({ url: web.url('/truncated-body.tif'), aoi: AOI }), 502, 'upstream_failed');
    });

    it('connection refused (a closed port)', async () => {
      const port = await closedPort();
      const body = expectProblem(await post({ url: `http://127.0.0.1:${port}/x.tif`, aoi: AOI }), 502, 'upstream_failed');
      expect(body.detail).toMatch(/refused/);
    });
  });

  // Asserted by the outcome (status, code, the configured timeout named, the upstream connection given up),
  // not by a measured time (issue 22); test/source/http.test.ts pins the deadline to the clock.
  describe('504: the source did not answer in time', () => {
    it('a server that never answers, with upstreamTimeoutMs 300: 504 naming 300 ms, the upstream request abandoned', async () => {
      const quick = await buildTestApp({ upstreamTimeoutMs: 300 });
      const hang = await startHangServer();
      try {
        const res = await post({ url: hang.url('/hang.tif'), aoi: AOI }, quick);
        const body = expectProblem(res, 504, 'upstream_timeout');
        expect(body.detail).toContain('300');
        // The service gave up on the request it sent (its connection closed) rather than leave it open.
        await hang.closedByClient(1);
        expect(hang.abandoned).toBe(hang.paths.length);
      } finally {
        await hang.close();
        await quick.close();
      }
    });

    it('a server that answers headers and then stalls the body: 504, the stalled response abandoned', async () => {
      const quick = await buildTestApp({ upstreamTimeoutMs: 300 });
      let stalled = 0;
      let abandoned = 0;
      const stall = http.createServer((_req, res) => {
        // a well-formed answer to the first range asked (the header read: the whole 1000-byte object)
        res.writeHead(206, { 'content-range': 'bytes 0-999/1000', 'content-length': '1000' });
        res.flushHeaders();
        stalled += 1;
        res.once('close', () => (abandoned += res.writableEnded ? 0 : 1));
      });
      await new Promise<void>((r) => stall.listen(0, '127.0.0.1', () => r()));
      try {
        const { port } = stall.address() as AddressInfo;
        const res = await post({ url: `http://127.0.0.1:${port}/x.tif`, aoi: AOI }, quick);
        const body = expectProblem(res, 504, 'upstream_timeout');
        expect(body.detail).toContain('300');
        expect(stalled).toBeGreaterThanOrEqual(1);
        // The body never came: the service closed the connection it was waiting on.
        await vi.waitFor(() => expect(abandoned).toBe(stalled), { timeout: 20_000 });
      } finally {
        stall.closeAllConnections();
        await new Promise<void>((r) => stall.close(() => r()));
        await quick.close();
      }
    });
  });

  describe('503: overloaded, with Retry-After', () => {
    it('a failing under-pressure health check sheds requests with 503 problem+json, then recovers', async () => {
      // The health check is `runner.pending < Math.max(8, config.workers * 16)`, read from the live
      // config object on every tick (500 ms). Without a mock, the only deterministic way to make it fail
      // is to make that bound NaN after start-up (white-box: real overload needs ≥ 16 queued fold tasks).
      const config = testConfig();
      let opened = 0;
      const loaded = await buildApp(config, {
        logger: false,
        openSource: (...args) => {
          opened += 1;
          return openSource(...args);
        },
      });
      await loaded.ready();
      try {
        expect((await loaded.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
        config.workers = Number.NaN;
        await new Promise((r) => setTimeout(r, 700));
        const before = opened;
        const res = await post({ url: TINY, aoi: AOI }, loaded);
        const body = expectProblem(res, 503, 'overloaded');
        expect(res.headers['retry-after']).toBe('5');
        expect(body.detail).toMatch(/overloaded/);
        // Shed means shed: the handler did not run (no source was opened for the refused request).
        expect(opened).toBe(before);
        config.workers = 1;
        await new Promise((r) => setTimeout(r, 700));
        const ok = await post({ url: TINY, aoi: AOI, stats: ['count'] }, loaded);
        expect(ok.statusCode, ok.body).toBe(200);
      } finally {
        await loaded.close();
      }
    });
  });

  describe('503 under real load', () => {
    it('16 concurrent full-raster requests on one worker trip the health check; new requests get 503, then it recovers', async () => {
      // overviews.tif: 2048² px of 30 m from (400000, 5300000), 64 tiles of 256²; this AOI covers all of it.
      // 16 requests × 4 fold tasks in flight ≫ the bound of 16 pending tasks, for seconds on one worker.
      // No decoded-tile cache: the 16 identical requests must each decode their tiles to keep the queue full.
      const busy = await buildTestApp({ workers: 1, tileCacheBytes: 0 });
      try {
        const aoi = {
          type: 'Polygon',
          coordinates: [
            [
              [13.68, 47.27],
              [14.55, 47.27],
              [14.55, 47.85],
              [13.68, 47.85],
              [13.68, 47.27],
            ],
          ],
        };
        let done = false;
        const load = Promise.all(
          Array.from({ length: 16 }, () => post({ url: fixtureUrl('raster/synthetic/overviews.tif'), aoi, stats: ['count'] }, busy)),
        ).finally(() => {
          done = true;
        });
        let shed: Answer | undefined;
        while (!done && shed === undefined) {
          const res = await post({ url: TINY, aoi: AOI, stats: ['count'] }, busy);
          if (res.statusCode === 503) shed = res;
          else await new Promise((r) => setTimeout(r, 50));
        }
        const statuses = (await load).map((r) => r.statusCode);
        expect(
          statuses.every((s) => s === 200),
          `load answered ${statuses.join(',')}`,
        ).toBe(true);
        expect(shed, 'no request was shed while the worker queue was full').toBeDefined();
        expectProblem(shed!, 503, 'overloaded');
        expect(shed!.headers['retry-after']).toBe('5');
        await new Promise((r) => setTimeout(r, 700));
        expect((await post({ url: TINY, aoi: AOI, stats: ['count'] }, busy)).statusCode).toBe(200);
      } finally {
        await busy.close();
      }
    }, 60_000);
  });

  describe('over a real socket (app.listen + fetch)', () => {
    let live: FastifyInstance;
    let origin: string;
    beforeAll(async () => {
      live = await buildTestApp();
      origin = await live.listen({ port: 0, host: '127.0.0.1' });
    });
    afterAll(async () => live.close());

    const viaFetch = async (init: RequestInit, path = RASTER): Promise<Answer> => {
      const res = await fetch(`${origin}${path}`, init);
      return { statusCode: res.status, headers: Object.fromEntries(res.headers), body: await res.text() };
    };

    it('400, 403, 404, 415 and 422 arrive as problem+json with an x-request-id', async () => {
      const cases: [RequestInit, number, string][] = [
        [{ method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"url":' }, 400, 'bad_json'],
        [
          { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: 'file:///etc/passwd', aoi: AOI }) },
          403,
          'url_forbidden',
        ],
        [{ method: 'POST', body: new Blob([JSON.stringify({ url: TINY, aoi: AOI })]) }, 415, 'unsupported_media_type'],
        [
          { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: TINY, aoi: AOI, stat: [] }) },
          422,
          'validation_failed',
        ],
      ];
      for (const [init, status, code] of cases) {
        const res = await viaFetch(init);
        expectProblem(res, status, code);
        expect(res.headers['x-request-id']).toMatch(/\S/);
      }
      expectProblem(await viaFetch({ method: 'GET' }, '/nowhere'), 404, 'not_found');
    });

    it('a valid request answers 200 JSON over the socket', async () => {
      const res = await viaFetch({
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url: TINY, aoi: AOI, stats: ['count'] }),
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
    });
  });

  describe('500: a bug', () => {
    let broken: FastifyInstance;
    beforeAll(async () => {
      broken = await buildTestApp(
        {},
        {
          openSource: async () => {
            throw new Error('boom /secret/path');
          },
        },
      );
    });
    afterAll(async () => broken.close());

    it('generic detail with the request id of the x-request-id header; nothing of the error', async () => {
      const res = await post({ url: TINY, aoi: AOI }, broken);
      const body = expectProblem(res, 500, 'internal_error');
      const id = res.headers['x-request-id'];
      expect(typeof id).toBe('string');
      expect(String(id).length).toBeGreaterThan(8);
      expect(body.detail).toContain(String(id));
      expect(res.body).not.toContain('boom');
      expect(res.body).not.toContain('/secret/path');
      expect(res.body).not.toMatch(/\bat .*:\d+:\d+/);
    });

    it('two failures get two different request ids', async () => {
      const a = await post({ url: TINY, aoi: AOI }, broken);
      const b = await post({ url: TINY, aoi: AOI }, broken);
      expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
    });

    it('a non-Error thrown value is a 500 problem too', async () => {
      const odd = await buildTestApp(
        {},
        {
          openSource: async () => {
            throw { message: 'raw object /secret/path', statusCode: 'x' };
          },
        },
      );
      try {
        const res = await post({ url: TINY, aoi: AOI }, odd);
        expectProblem(res, 500, 'internal_error');
        expect(res.body).not.toContain('/secret/path');
      } finally {
        await odd.close();
      }
    });
  });
});

describe('first contact: validation in the user’s words (issue 12)', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await buildTestApp();
  });
  afterAll(async () => app.close());
  const ELEV = `file://${FIXTURES}raster/elev.cog.tif`;
  const ask = (body: Record<string, unknown>) => app.inject({ method: 'POST', url: RASTER, payload: { url: ELEV, ...body } });

  it('a lowercase or unknown GeoJSON type lists the accepted ones (and the right case)', async () => {
    const lower = expectProblem(
      await ask({
        aoi: {
          type: 'polygon',
          coordinates: [
            [
              [6, 49.6],
              [6.2, 49.6],
              [6.2, 49.8],
              [6, 49.6],
            ],
          ],
        },
      }),
      422,
      'validation_failed',
    );
    expect(lower.detail).toBe(
      '/aoi has "type": "polygon"; it must be one of Point, Polygon, MultiPolygon, Feature, FeatureCollection (GeoJSON type names are case-sensitive: "Polygon").',
    );
    const circle = expectProblem(await ask({ aoi: { type: 'Circle', coordinates: [6, 49.6] } }), 422, 'validation_failed');
    expect(circle.detail).toMatch(/"Circle"; it must be one of Point, Polygon/);
  });

  it('coordinates in metres say WGS84 longitude/latitude in degrees', async () => {
    const body = expectProblem(
      await ask({
        aoi: {
          type: 'Polygon',
          coordinates: [
            [
              [650000, 5500000],
              [660000, 5500000],
              [660000, 5510000],
              [650000, 5500000],
            ],
          ],
        },
      }),
      422,
      'validation_failed',
    );
    expect(body.detail).toMatch(
      /^Coordinates are WGS84 longitude\/latitude in degrees.*650000 looks like projected metres; transform the geometry to EPSG:4326 first\.$/,
    );
  });

  it('a value outside a list names the allowed values', async () => {
    const body = expectProblem(await ask({ aoi: { type: 'Point', coordinates: [6.1, 49.6] }, pixels: 'all-touched' }), 422, 'validation_failed');
    expect(body.detail).toBe('/pixels is "all-touched"; it must be one of center, all_touched, fractional.');
  });

  it('[latitude, longitude] that misses the raster: count 0 with a note that swapping would meet it', async () => {
    const res = await ask({ aoi: { type: 'Point', coordinates: [49.61, 6.13], radius: 1000 } });
    expect(res.statusCode).toBe(200);
    expect((res.json() as { band_1: { count: number } }).band_1.count).toBe(0);
    expect(res.headers['x-zonal-note']).toMatch(/swapped it would meet it: GeoJSON positions are \[longitude, latitude\]/);
    const right = await ask({ aoi: { type: 'Point', coordinates: [6.13, 49.61], radius: 1000 } });
    expect(right.headers['x-zonal-note']).toBeUndefined();
  });
});
