/**
 * POST /api/v1/zonal-stats/raster/stac and /vector/stac through the real app (issue 4, contract §2, §6):
 * Items served by the loopback range server (the shared-data Items copied into fixtures/, and Items
 * written here into its in-memory files). A STAC answer must equal the direct endpoint's answer for the
 * resolved asset; every failure is problem+json; the Item is fetched once per 30 s.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import proj4 from 'proj4';
import type { FastifyInstance } from 'fastify';
import { clearItemCache } from '../../src/stac/item.ts';
import { buildTestApp, FIXTURES, fixtureUrl } from '../helpers/build-app.ts';
import { startRangeServer, type RangeServer } from '../helpers/range-server.ts';
import { startS3Server, useS3Env, type S3Server } from '../helpers/s3-server.ts';
import { expectProblemWithout, LEAKS_COMMON, type Answer as ProblemAnswer, type Leak, type Problem } from '../helpers/problem.ts';

const RASTER = '/api/v1/zonal-stats/raster';
const RASTER_STAC = '/api/v1/zonal-stats/raster/stac';
const VECTOR = '/api/v1/zonal-stats/vector';
const VECTOR_STAC = '/api/v1/zonal-stats/vector/stac';

const GEOTIFF = 'image/tiff; application=geotiff; profile=cloud-optimized';
const PARQUET = 'application/vnd.apache.parquet';

interface Answer extends ProblemAnswer {
  json(): unknown;
}

/** Server paths, stack frames and library text a `detail` must never show (contract §6). */
const LEAKS: readonly Leak[] = [...LEAKS_COMMON, /\b(Type|Syntax|Range)?Error:/];

/** Asserts an RFC 9457 problem+json answer with `status` (and `code`); returns its body. */
function expectProblem(res: Answer, status: number, code?: string): Problem {
  return expectProblemWithout(LEAKS, res, status, code);
}

/** A STAC Item with these assets (JSON order kept). */
function itemJson(id: string, assets: Record<string, Record<string, unknown>>): string {
  return JSON.stringify({
    type: 'Feature',
    stac_version: '1.0.0',
    stac_extensions: ['https://stac-extensions.github.io/raster/v1.1.0/schema.json'],
    id,
    geometry: null,
    properties: { datetime: '2020-01-01T00:00:00Z' },
    links: [],
    assets,
  });
}

const caseBody = (name: string): Record<string, unknown> =>
  (JSON.parse(readFileSync(join(FIXTURES, 'cases', `${name}.request.json`), 'utf8')) as { body: Record<string, unknown> }).body;
const vectorCaseBody = (name: string): Record<string, unknown> =>
  (JSON.parse(readFileSync(join(FIXTURES, 'cases-vector', `${name}.request.json`), 'utf8')) as { body: Record<string, unknown> }).body;

/** A small triangle over Olinda (fixtures/cases/l7_polygon_small), all statistics. */
const OLINDA = caseBody('l7_polygon_small');
/** A 500 m circle over Olinda. */
const OLINDA_CIRCLE = caseBody('l7_circle_500m');
/** A pentagon over Raleigh–Durham on nc.parquet, area weighting, all statistics. */
const NC = vectorCaseBody('nc_polygon_area');
const NC_BYTES = readFileSync(join(FIXTURES, 'vector/nc.parquet'));

/** The tiny synthetic grid (fixtures/README.md): 6 × 4 px of 10 m from (500000, 5000000), UTM 33N. */
const UTM33 = '+proj=utm +zone=33 +datum=WGS84 +units=m +no_defs';
const toLonLat = (x: number, y: number): [number, number] => proj4(UTM33, 'EPSG:4326', [x, y]) as [number, number];
/** Covers the whole tiny grid with margin. */
const TINY_ALL = {
  type: 'Polygon',
  coordinates: [[toLonLat(499990, 4999950), toLonLat(500070, 4999950), toLonLat(500070, 5000010), toLonLat(499990, 5000010), toLonLat(499990, 4999950)]],
};
const sumOf = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
const range = (a: number, b: number): number[] => Array.from({ length: b - a + 1 }, (_, i) => a + i);

/** A transparent HTTP proxy in front of `upstream` that records every request line (path + query). */
async function startRecorder(upstream: RangeServer): Promise<{ url(path: string): string; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.url ?? '');
    const up = http.request(upstream.url(req.url ?? '/'), { method: req.method, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (path) => new URL(path, origin).href,
    seen,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

describe('STAC endpoints', () => {
  let app: FastifyInstance;
  let web: RangeServer;
  beforeAll(async () => {
    app = await buildTestApp();
    web = await startRangeServer({ root: FIXTURES });
  });
  afterAll(async () => {
    await app.close();
    await web.close();
  });
  beforeEach(() => clearItemCache());

  const post = (url: string, payload: Record<string, unknown>, target: FastifyInstance = app): Promise<Answer> =>
    target.inject({ method: 'POST', url, payload });
  /** Serves an Item at `path` on the range server; returns its URL. */
  const putItem = (path: string, assets: Record<string, Record<string, unknown>>): string => {
    web.setFile(path, itemJson(path, assets));
    return web.url(path);
  };
  const pathsRequested = (): string[] => web.requests.map((r) => r.path);

  /** 200 from both; the STAC answer equals the direct one. */
  async function expectSame(stac: Answer, direct: Answer): Promise<Record<string, unknown>> {
    expect(direct.statusCode, direct.body).toBe(200);
    expect(stac.statusCode, stac.body).toBe(200);
    expect(stac.json()).toEqual(direct.json());
    return stac.json() as Record<string, unknown>;
  }

  describe('weights by asset (fixtures/raster/stac/tiny-weighted.json)', () => {
    const ITEM = '/raster/stac/tiny-weighted.json';
    // The tiny grid's cols 1–3 × rows 1–2 (UTM 33N, as test/zonal/raster-synthetic.test.ts draws them).
    const UTM33 = '+proj=utm +zone=33 +datum=WGS84 +units=m +no_defs';
    const ll = (x: number, y: number) => proj4(UTM33, 'EPSG:4326', [x, y]) as [number, number];
    const aoi = { type: 'Polygon', coordinates: [[ll(500012, 4999972), ll(500038, 4999972), ll(500038, 4999988), ll(500012, 4999988), ll(500012, 4999972)]] };
    const stats = ['weighted_mean', 'weighted_sum', 'mean'];

    it("`weights: {asset}` reads the Item's asset as the raster endpoint reads its url", async () => {
      const stac = await post(RASTER_STAC, { url: web.url(ITEM), asset: 'values', aoi, stats, weights: { asset: 'weights' } });
      const direct = await post(RASTER, {
        url: web.url('/raster/synthetic/tiny_uint8.tif'),
        aoi,
        stats,
        weights: { url: web.url('/raster/synthetic/tiny_weights_20m.tif') },
      });
      const body = await expectSame(stac, direct);
      // Σ value × weight over the six pixels (see the raster-synthetic test): 572.
      expect((body['band_1'] as { weighted_sum: number }).weighted_sum).toBe(572);
    });

    it('a weights asset that is not a GeoTIFF, or an asset on the raster endpoint: 422 saying so', async () => {
      const notTiff = expectProblem(
        await post(RASTER_STAC, { url: web.url(ITEM), asset: 'values', aoi, stats, weights: { asset: 'notes' } }),
        422,
        'unsupported_asset',
      );
      expect(notTiff.detail).toContain('The weights asset "notes" is text/plain, not a GeoTIFF.');
      const onRaster = expectProblem(
        await post(RASTER, { url: web.url('/raster/synthetic/tiny_uint8.tif'), aoi, stats, weights: { asset: 'weights' } }),
        422,
        'validation_failed',
      );
      expect(onRaster.detail).toContain('names an "asset" on the STAC endpoints only');
    });

    it("`zones: {asset}` takes the Item's asset as the zones raster, as the raster endpoint takes its url", async () => {
      // The 20 m weights as zones: each of their values a zone of 2 × 2 value cells.
      const stac = await post(RASTER_STAC, { url: web.url(ITEM), asset: 'values', zones: { asset: 'weights' }, stats: ['count', 'sum', 'cell_id'] });
      const direct = await post(RASTER, {
        url: web.url('/raster/synthetic/tiny_uint8.tif'),
        zones: { url: web.url('/raster/synthetic/tiny_weights_20m.tif') },
        stats: ['count', 'sum', 'cell_id'],
      });
      expect(stac.statusCode, stac.body).toBe(200);
      expect(stac.body).toBe(direct.body);
      const features = (stac.json() as { features: { id: number; properties: { zone: number } }[] }).features;
      expect(features.length).toBeGreaterThan(1);
      expect(features.map((f) => f.id)).toEqual([...features.map((f) => f.properties.zone)].sort((a, b) => a - b));
      const notTiff = expectProblem(await post(RASTER_STAC, { url: web.url(ITEM), asset: 'values', zones: { asset: 'notes' } }), 422, 'unsupported_asset');
      expect(notTiff.detail).toContain('The zones asset "notes" is text/plain, not a GeoTIFF.');
    });
  });

  describe('raster/stac on the shared Olinda Item (fixtures/raster/stac/olinda-l7.json)', () => {
    const ITEM = '/raster/stac/olinda-l7.json';
    const COG = '/raster/L7_ETMs.cog.tif';

    it('default asset (the first, `etm`, ../L7_ETMs.cog.tif) answers exactly as the raster endpoint', async () => {
      const direct = await post(RASTER, { ...OLINDA, url: web.url(COG) });
      const stac = await post(RASTER_STAC, { ...OLINDA, url: web.url(ITEM) });
      const body = await expectSame(stac, direct);
      expect((body['band_1'] as { count: number }).count).toBeGreaterThan(0);
      // …and as the raster endpoint for the same file read from disk.
      expect(stac.json()).toEqual((await post(RASTER, { ...OLINDA, url: fixtureUrl('raster/L7_ETMs.cog.tif') })).json());
    });

    it('`asset: "etm"` with several bands, and a circle AOI', async () => {
      for (const body of [{ ...OLINDA, bands: [6, 1, 3, 1] }, { ...OLINDA_CIRCLE }]) {
        await expectSame(await post(RASTER_STAC, { ...body, url: web.url(ITEM), asset: 'etm' }), await post(RASTER, { ...body, url: web.url(COG) }));
      }
    });

    it('the relative href is resolved against the Item URL: the COG is read from /raster/L7_ETMs.cog.tif', async () => {
      const before = web.requests.length;
      const res = await post(RASTER_STAC, { ...OLINDA, url: web.url(ITEM), stats: ['count'] });
      expect(res.statusCode, res.body).toBe(200);
      const paths = new Set(web.requests.slice(before).map((r) => r.path));
      expect(paths).toEqual(new Set([ITEM, COG]));
    });

    it('`asset: "metadata"` (text/plain) → 422 unsupported_asset naming the asset and its type and listing `etm`', async () => {
      const before = web.requests.length;
      const body = expectProblem(await post(RASTER_STAC, { ...OLINDA, url: web.url(ITEM), asset: 'metadata' }), 422, 'unsupported_asset');
      expect(body.detail).toContain('metadata');
      expect(body.detail).toContain('text/plain');
      expect(body.detail).toContain('etm');
      expect(body['geotiff_assets']).toEqual(['etm']);
      // The text file is never fetched: only the Item was asked for.
      expect(new Set(web.requests.slice(before).map((r) => r.path))).toEqual(new Set([ITEM]));
    });

    it("an unknown asset → 422 unknown_asset listing the Item's keys", async () => {
      const body = expectProblem(await post(RASTER_STAC, { ...OLINDA, url: web.url(ITEM), asset: 'B4' }), 422, 'unknown_asset');
      expect(body.detail).toContain('B4');
      expect(body.detail).toContain('etm');
      expect(body.detail).toContain('metadata');
      expect(body['assets']).toEqual(['etm', 'metadata']);
    });

    it('a band the COG lacks → 422 unknown_band, as for the raster endpoint', async () => {
      const body = expectProblem(await post(RASTER_STAC, { ...OLINDA, url: web.url(ITEM), bands: [7] }), 422, 'unknown_band');
      expect(body.detail).toContain('6');
    });

    it('the nc Item (first asset a PNG thumbnail) on raster/stac → 422 unsupported_asset, no GeoTIFF assets', async () => {
      const body = expectProblem(await post(RASTER_STAC, { ...OLINDA, url: web.url('/vector/stac/nc-counties.json') }), 422, 'unsupported_asset');
      expect(body.detail).toContain('thumbnail');
      expect(body.detail).toContain('image/png');
      expect(body['geotiff_assets']).toEqual([]);
    });
  });

  describe('vector/stac on the shared nc Item (fixtures/vector/stac/nc-counties.json)', () => {
    const ITEM = '/vector/stac/nc-counties.json';

    it('default asset (a PNG thumbnail) → 415, and the thumbnail is not fetched', async () => {
      const body = expectProblem(await post(VECTOR_STAC, { ...NC, url: web.url(ITEM) }), 415, 'unsupported_media_type');
      expect(body.detail).toMatch(/parquet/i);
    });

    it('`asset: "counties"` (../nc.parquet) answers exactly as the vector endpoint', async () => {
      const direct = await post(VECTOR, { ...NC, url: web.url('/vector/nc.parquet') });
      const stac = await post(VECTOR_STAC, { ...NC, url: web.url(ITEM), asset: 'counties' });
      await expectSame(stac, direct);
      expect(stac.json()).toEqual((await post(VECTOR, { ...NC, url: fixtureUrl('vector/nc.parquet') })).json());
    });

    it('`ratio` weighting and a point AOI pass through too', async () => {
      for (const name of ['nc_polygon_ratio', 'nc_point_inside']) {
        const body = vectorCaseBody(name);
        await expectSame(
          await post(VECTOR_STAC, { ...body, url: web.url(ITEM), asset: 'counties' }),
          await post(VECTOR, { ...body, url: web.url('/vector/nc.parquet') }),
        );
      }
    });

    it('an unknown asset → 422 listing the keys; an unknown column → 422 as for the vector endpoint', async () => {
      const body = expectProblem(await post(VECTOR_STAC, { ...NC, url: web.url(ITEM), asset: 'sids' }), 422, 'unknown_asset');
      expect(body.detail).toContain('thumbnail');
      expect(body.detail).toContain('counties');
      expectProblem(await post(VECTOR_STAC, { ...NC, columns: ['NOPE'], url: web.url(ITEM), asset: 'counties' }), 422, 'unknown_column');
    });
  });

  describe('vector/stac: a Parquet href extension OR a Parquet media type (contract §5)', () => {
    let direct: unknown;
    beforeAll(async () => {
      web.setFile('/data/counties', NC_BYTES);
      web.setFile('/data/nc.geoparquet', NC_BYTES);
      web.setFile('/data/NC.PARQUET', NC_BYTES);
      web.setFile('/data/counties.bin', NC_BYTES);
      web.setFile('/data/not-parquet', 'name,value\nWake,1\n');
      const res = await post(VECTOR, { ...NC, url: web.url('/vector/nc.parquet') });
      expect(res.statusCode, res.body).toBe(200);
      direct = res.json();
    });

    it.each([
      ['application/vnd.apache.parquet', PARQUET],
      ['application/x-parquet with a parameter', 'application/x-parquet; charset=binary'],
      ['application/geoparquet in upper case', 'Application/GeoParquet'],
    ])('href without extension, media type %s → works', async (_name, type) => {
      const url = putItem(`/data/item-${type.length}.json`, { counties: { href: 'counties', type, roles: ['data'] } });
      const res = await post(VECTOR_STAC, { ...NC, url });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual(direct);
      expect(pathsRequested()).toContain('/data/counties');
    });

    it.each([
      ['.geoparquet, no media type', { href: 'nc.geoparquet' }],
      ['.PARQUET in upper case with a query, no media type', { href: 'NC.PARQUET?v=2' }],
      ['.parquet with a non-Parquet media type', { href: '../vector/nc.parquet', type: 'application/octet-stream' }],
    ])('%s → works', async (name, asset) => {
      const url = putItem(`/data/item-ext-${name.length}.json`, { data: asset });
      const res = await post(VECTOR_STAC, { ...NC, url });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual(direct);
    });

    it.each([
      ['octet-stream', { href: 'counties', type: 'application/octet-stream' }],
      ['no media type', { href: 'counties' }],
      ['GeoJSON', { href: 'counties.geojson', type: 'application/geo+json' }],
      ['a .parquet directory-looking href', { href: 'counties.parquet/' }],
    ])('neither a Parquet href nor a Parquet media type (%s) → 415', async (name, asset) => {
      const before = web.requests.length;
      const url = putItem(`/data/item-neither-${name.length}.json`, { data: asset });
      expectProblem(await post(VECTOR_STAC, { ...NC, url }), 415, 'unsupported_media_type');
      // Refused from the Item alone: the asset is not fetched.
      expect(new Set(web.requests.slice(before).map((r) => r.path))).toEqual(new Set([new URL(url).pathname]));
    });

    it('a Parquet media type on a file that is not Parquet → 422', async () => {
      const url = putItem('/data/item-lying.json', { data: { href: 'not-parquet', type: PARQUET } });
      expectProblem(await post(VECTOR_STAC, { ...NC, url }), 422);
    });
  });

  describe('href resolution', () => {
    it('nested relative paths (`..`, `.`, a/b/../c) resolve against the Item URL', async () => {
      const url = putItem('/stac/deep/er/still/item.json', {
        etm: { href: '../../../../raster/./synthetic/../L7_ETMs.cog.tif', type: GEOTIFF },
      });
      const before = web.requests.length;
      await expectSame(await post(RASTER_STAC, { ...OLINDA, url }), await post(RASTER, { ...OLINDA, url: web.url('/raster/L7_ETMs.cog.tif') }));
      const paths = web.requests.slice(before, before + 3).map((r) => r.path);
      expect(paths).toContain('/raster/L7_ETMs.cog.tif');
      expect(web.requests.some((r) => r.path.includes('..') || r.path.includes('/./'))).toBe(false);
    });

    it('a sibling-folder href for vector (`../vector/nc.parquet` from /stac-v/item.json)', async () => {
      const url = putItem('/stac-v/item.json', { gpq: { href: './sub/../../vector/nc.parquet', type: PARQUET } });
      await expectSame(await post(VECTOR_STAC, { ...NC, url }), await post(VECTOR, { ...NC, url: web.url('/vector/nc.parquet') }));
    });

    it("an absolute-path href (`/raster/…`) resolves against the Item's origin", async () => {
      const url = putItem('/elsewhere/item.json', { etm: { href: '/raster/L7_ETMs.cog.tif', type: GEOTIFF } });
      await expectSame(await post(RASTER_STAC, { ...OLINDA, url }), await post(RASTER, { ...OLINDA, url: web.url('/raster/L7_ETMs.cog.tif') }));
    });

    it('an absolute http href to another server', async () => {
      const other = await startRangeServer({ root: FIXTURES });
      try {
        const url = putItem('/abs/item.json', { etm: { href: other.url('/raster/L7_ETMs.cog.tif'), type: GEOTIFF } });
        await expectSame(await post(RASTER_STAC, { ...OLINDA, url }), await post(RASTER, { ...OLINDA, url: web.url('/raster/L7_ETMs.cog.tif') }));
        expect(other.requests.map((r) => r.path)).toContain('/raster/L7_ETMs.cog.tif');
      } finally {
        await other.close();
      }
    });

    describe('query strings', () => {
      let rec: Awaited<ReturnType<typeof startRecorder>>;
      beforeAll(async () => {
        rec = await startRecorder(web);
        web.setFile('/q/item.json', itemJson('q', { etm: { href: '../raster/L7_ETMs.cog.tif?token=abc&sig=x%2Fy', type: GEOTIFF } }));
        web.setFile('/q/vitem.json', itemJson('qv', { counties: { href: '../vector/nc.parquet?X-Amz-Expires=60', type: PARQUET } }));
      });
      afterAll(async () => rec.close());

      it('on the href: kept when the asset is fetched (the server ignores it), answer unchanged', async () => {
        await expectSame(
          await post(RASTER_STAC, { ...OLINDA, url: rec.url('/q/item.json') }),
          await post(RASTER, { ...OLINDA, url: web.url('/raster/L7_ETMs.cog.tif') }),
        );
        const cog = rec.seen.filter((s) => s.startsWith('/raster/L7_ETMs.cog.tif'));
        expect(cog.length).toBeGreaterThan(0);
        expect(new Set(cog)).toEqual(new Set(['/raster/L7_ETMs.cog.tif?token=abc&sig=x%2Fy']));
      });

      it("on the Item URL: the Item is read; a relative href does not inherit the Item's query", async () => {
        rec.seen.length = 0;
        const res = await post(RASTER_STAC, { ...OLINDA, url: `${rec.url('/q/item.json')}?version=3&sig=s`, stats: ['count'] });
        expect(res.statusCode, res.body).toBe(200);
        expect(rec.seen).toContain('/q/item.json?version=3&sig=s');
        expect(rec.seen.filter((s) => s.startsWith('/raster/')).every((s) => s === '/raster/L7_ETMs.cog.tif?token=abc&sig=x%2Fy')).toBe(true);
      });

      it('vector: a query on a .parquet href does not hide the extension', async () => {
        await expectSame(await post(VECTOR_STAC, { ...NC, url: rec.url('/q/vitem.json') }), await post(VECTOR, { ...NC, url: web.url('/vector/nc.parquet') }));
        expect(rec.seen).toContain('/vector/nc.parquet?X-Amz-Expires=60');
      });
    });

    it('an href to file:///etc/passwd → 403 url_forbidden, without echoing the path', async () => {
      const url = putItem('/evil/item.json', { data: { href: 'file:///etc/passwd', type: GEOTIFF } });
      const body = expectProblem(await post(RASTER_STAC, { ...OLINDA, url }), 403, 'url_forbidden');
      expect(body.detail).not.toContain('/etc');
      const vurl = putItem('/evil/vitem.json', { data: { href: 'file:///etc/passwd.parquet', type: PARQUET } });
      expectProblem(await post(VECTOR_STAC, { ...NC, url: vurl }), 403, 'url_forbidden');
    });

    it('an href escaping the data roots with `..` → 403', async () => {
      const url = putItem('/evil/item2.json', { data: { href: `file://${FIXTURES}raster/../../package.json`, type: GEOTIFF } });
      expectProblem(await post(RASTER_STAC, { ...OLINDA, url }), 403, 'url_forbidden');
    });

    it('an href to a file:// path inside the data roots → 200, as the raster endpoint for that file', async () => {
      const file = fixtureUrl('raster/synthetic/tiny_uint8.tif');
      const url = putItem('/local/item.json', { data: { href: file, type: GEOTIFF } });
      const body = { aoi: TINY_ALL, stats: ['count', 'sum', 'min', 'max', 'nodata'] };
      const stac = await expectSame(await post(RASTER_STAC, { ...body, url }), await post(RASTER, { ...body, url: file }));
      expect(stac['band_1']).toMatchObject({ count: 23, nodata: 1, min: 1, max: 23, sum: 276 });
      const vurl = putItem('/local/vitem.json', { data: { href: fixtureUrl('vector/nc.parquet') } });
      await expectSame(await post(VECTOR_STAC, { ...NC, url: vurl }), await post(VECTOR, { ...NC, url: fixtureUrl('vector/nc.parquet') }));
    });

    it('a missing file:// inside the data roots → 422 source_not_found', async () => {
      const url = putItem('/local/missing.json', { data: { href: fixtureUrl('raster/nope.tif') } });
      expectProblem(await post(RASTER_STAC, { ...OLINDA, url }), 422, 'source_not_found');
    });

    it('an href with an unsupported protocol → 422 unsupported_protocol', async () => {
      const url = putItem('/proto/item.json', { data: { href: 'ftp://example.com/x.tif', type: GEOTIFF } });
      expectProblem(await post(RASTER_STAC, { ...OLINDA, url }), 422, 'unsupported_protocol');
    });

    it('an href to a missing asset (404) → 422 source_not_found', async () => {
      const url = putItem('/missing/item.json', { data: { href: './nope.tif', type: GEOTIFF } });
      expectProblem(await post(RASTER_STAC, { ...OLINDA, url }), 422, 'source_not_found');
    });

    it('an asset whose server fails (500) → 502', async () => {
      web.setFile('/broken/x.tif', readFileSync(join(FIXTURES, 'raster/synthetic/tiny_uint8.tif')));
      web.setFault('/broken/x.tif', { kind: 'status', status: 500 });
      const url = putItem('/broken/item.json', { data: { href: 'x.tif', type: GEOTIFF } });
      expectProblem(await post(RASTER_STAC, { aoi: TINY_ALL, url }), 502, 'upstream_failed');
    });

    describe('an s3 href', () => {
      let s3: S3Server;
      let restoreEnv: () => void;
      beforeAll(async () => {
        s3 = await startS3Server({ bucket: 'stac', files: { 'tiles/tiny.tif': readFileSync(join(FIXTURES, 'raster/synthetic/tiny_uint8.tif')) } });
        restoreEnv = useS3Env(s3);
      });
      afterAll(async () => {
        restoreEnv();
        await s3.close();
      });

      it('is read from S3 and answers as the raster endpoint for the s3 URL', async () => {
        const url = putItem('/s3/item.json', { data: { href: s3.url('tiles/tiny.tif'), type: GEOTIFF } });
        const body = { aoi: TINY_ALL, stats: ['count', 'sum'] };
        const stac = await expectSame(await post(RASTER_STAC, { ...body, url }), await post(RASTER, { ...body, url: s3.url('tiles/tiny.tif') }));
        expect(stac['band_1']).toMatchObject({ count: 23, sum: 276 });
      });
    });
  });

  describe('the Item URL and the Item', () => {
    it.each(['ftp://127.0.0.1/item.json', 'file:///etc/passwd', `file://${FIXTURES}raster/stac/olinda-l7.json`, 's3://bucket/item.json'])(
      'an Item URL %s → 422 unsupported_protocol',
      async (url) => {
        const body = expectProblem(await post(RASTER_STAC, { ...OLINDA, url }), 422, 'unsupported_protocol');
        expect(body.detail).toContain(url.split(':')[0]);
        expectProblem(await post(VECTOR_STAC, { ...NC, url }), 422, 'unsupported_protocol');
      },
    );

    it('an Item URL that is not a URL → 422 validation_failed', async () => {
      expectProblem(await post(RASTER_STAC, { ...OLINDA, url: 'olinda-l7.json' }), 422, 'validation_failed');
    });

    it('a 404 Item → 422 source_not_found', async () => {
      expectProblem(await post(RASTER_STAC, { ...OLINDA, url: web.url('/stac/no-such-item.json') }), 422, 'source_not_found');
      expectProblem(await post(VECTOR_STAC, { ...NC, url: web.url('/stac/no-such-item.json') }), 422, 'source_not_found');
    });

    it('an Item whose server fails (500) → 502; one that never answers → 504', async () => {
      web.setFile('/flaky/item.json', itemJson('f', { etm: { href: '../raster/L7_ETMs.cog.tif' } }));
      web.setFault('/flaky/item.json', { kind: 'status', status: 503 });
      expectProblem(await post(RASTER_STAC, { ...OLINDA, url: web.url('/flaky/item.json') }), 502, 'upstream_failed');
      const quick = await buildTestApp({ upstreamTimeoutMs: 300 });
      try {
        web.setFault('/flaky/item.json', { kind: 'hang' });
        expectProblem(await post(RASTER_STAC, { ...OLINDA, url: web.url('/flaky/item.json') }, quick), 504, 'upstream_timeout');
      } finally {
        web.setFault('/flaky/item.json', undefined);
        await quick.close();
      }
    });

    it('an Item that is a FeatureCollection → 422 invalid_source saying so', async () => {
      web.setFile(
        '/fc/items.json',
        JSON.stringify({ type: 'FeatureCollection', features: [JSON.parse(itemJson('a', { etm: { href: '../raster/L7_ETMs.cog.tif' } }))] }),
      );
      const body = expectProblem(await post(RASTER_STAC, { ...OLINDA, url: web.url('/fc/items.json') }), 422, 'invalid_source');
      expect(body.detail).toContain('FeatureCollection');
      expectProblem(await post(VECTOR_STAC, { ...NC, url: web.url('/fc/items.json') }), 422, 'invalid_source');
    });

    it('an Item that is not JSON (a COG, a text file) → 422 invalid_source', async () => {
      const body = expectProblem(await post(RASTER_STAC, { ...OLINDA, url: web.url('/raster/L7_ETMs.cog.tif') }), 422, 'invalid_source');
      expect(body.detail).toMatch(/JSON/);
      web.setFile('/txt/item.json', 'type: Feature\nassets: {}\n');
      expectProblem(await post(VECTOR_STAC, { ...NC, url: web.url('/txt/item.json') }), 422, 'invalid_source');
    });

    it('an Item without assets, or with assets as an array → 422 invalid_source', async () => {
      web.setFile('/na/item.json', JSON.stringify({ type: 'Feature', geometry: null, properties: {} }));
      web.setFile('/na/array.json', JSON.stringify({ type: 'Feature', geometry: null, properties: {}, assets: [{ href: '../raster/L7_ETMs.cog.tif' }] }));
      expectProblem(await post(RASTER_STAC, { ...OLINDA, url: web.url('/na/item.json') }), 422, 'invalid_source');
      expectProblem(await post(RASTER_STAC, { ...OLINDA, url: web.url('/na/array.json') }), 422, 'invalid_source');
    });

    it('an empty Item (0 bytes) → 422 invalid_source', async () => {
      web.setFile('/empty/item.json', '');
      expectProblem(await post(RASTER_STAC, { ...OLINDA, url: web.url('/empty/item.json') }), 422, 'invalid_source');
    });

    it('an Item over 10 MB → 422 source_too_large, without downloading it', async () => {
      const big = new Uint8Array(10 * 1024 * 1024 + 1).fill(0x20);
      big.set(new TextEncoder().encode(itemJson('big', { etm: { href: '../raster/L7_ETMs.cog.tif' } })));
      web.setFile('/big/item.json', big);
      const before = web.requests.length;
      const body = expectProblem(await post(RASTER_STAC, { ...OLINDA, url: web.url('/big/item.json') }), 422, 'source_too_large');
      expect(body.detail).toMatch(/STAC Item/);
      const sent = web.requests.slice(before).reduce((a, r) => a + r.bytesSent, 0);
      expect(sent).toBeLessThan(1024 * 1024);
    });

    it('an Item of exactly 10 MB (padded with spaces) is still read', async () => {
      const json = new TextEncoder().encode(itemJson('padded', { etm: { href: '../raster/L7_ETMs.cog.tif', type: GEOTIFF } }));
      const padded = new Uint8Array(10 * 1024 * 1024).fill(0x20);
      padded.set(json);
      web.setFile('/padded/item.json', padded);
      const res = await post(RASTER_STAC, { ...OLINDA, url: web.url('/padded/item.json'), stats: ['count'] });
      expect(res.statusCode, res.body).toBe(200);
    });

    it('an Item served by a server that ignores Range (200, whole body) is read', async () => {
      web.setFile('/norange/item.json', itemJson('nr', { etm: { href: '../raster/L7_ETMs.cog.tif', type: GEOTIFF } }));
      web.setFault('/norange/item.json', { kind: 'ignoreRange' });
      try {
        await expectSame(
          await post(RASTER_STAC, { ...OLINDA, url: web.url('/norange/item.json') }),
          await post(RASTER, { ...OLINDA, url: web.url('/raster/L7_ETMs.cog.tif') }),
        );
      } finally {
        web.setFault('/norange/item.json', undefined);
      }
    });

    it('an asset without href → 422 invalid_source naming the asset', async () => {
      const url = putItem('/nohref/item.json', { etm: { type: GEOTIFF, roles: ['data'] }, other: { href: '../raster/L7_ETMs.cog.tif' } });
      const body = expectProblem(await post(RASTER_STAC, { ...OLINDA, url }), 422, 'invalid_source');
      expect(body.detail).toContain('etm');
      expect(body.detail).toMatch(/href/);
      expectProblem(await post(VECTOR_STAC, { ...NC, url, asset: 'etm' }), 422, 'invalid_source');
    });

    it('a redirected Item is followed (same Source policy as a data URL)', async () => {
      const target = putItem('/moved/item.json', { etm: { href: web.url('/raster/L7_ETMs.cog.tif'), type: GEOTIFF } });
      web.setFault('/old/abs.json', { kind: 'redirect', location: new URL(target).pathname, status: 301 });
      try {
        await expectSame(
          await post(RASTER_STAC, { ...OLINDA, url: web.url('/old/abs.json') }),
          await post(RASTER, { ...OLINDA, url: web.url('/raster/L7_ETMs.cog.tif') }),
        );
        expect(pathsRequested()).toContain('/moved/item.json');
      } finally {
        web.setFault('/old/abs.json', undefined);
      }
    });

    // RFC 3986 §5.1.3: the base of a relative href is the URL the Item was read from after redirects.
    it('relative hrefs of a redirected Item resolve against the URL it was read from', async () => {
      web.setFault('/old/olinda.json', { kind: 'redirect', location: '/raster/stac/olinda-l7.json', status: 301 });
      try {
        await expectSame(
          await post(RASTER_STAC, { ...OLINDA, url: web.url('/old/olinda.json') }),
          await post(RASTER, { ...OLINDA, url: web.url('/raster/L7_ETMs.cog.tif') }),
        );
      } finally {
        web.setFault('/old/olinda.json', undefined);
      }
    });

    it('an Item redirecting to a file:// URL → 403', async () => {
      web.setFault('/old/evil.json', { kind: 'redirect', location: 'file:///etc/passwd' });
      try {
        expectProblem(await post(RASTER_STAC, { ...OLINDA, url: web.url('/old/evil.json') }), 403, 'url_forbidden');
      } finally {
        web.setFault('/old/evil.json', undefined);
      }
    });
  });

  describe('private addresses (allowPrivateNetworks)', () => {
    let strict: FastifyInstance;
    let onlyDotOne: FastifyInstance;
    let second: RangeServer;
    beforeAll(async () => {
      strict = await buildTestApp({ allowPrivateNetworks: false });
      onlyDotOne = await buildTestApp({ allowPrivateNetworks: ['127.0.0.1/32'] });
      second = await startRangeServer({ root: FIXTURES, host: '127.0.0.2' });
    });
    afterAll(async () => {
      await strict.close();
      await onlyDotOne.close();
      await second.close();
    });

    it('an Item on a loopback address with allowPrivateNetworks: false → 403, the Item is not fetched', async () => {
      const before = web.requests.length;
      for (const url of [web.url('/raster/stac/olinda-l7.json'), `http://localhost:${new URL(web.origin).port}/raster/stac/olinda-l7.json`]) {
        expectProblem(await post(RASTER_STAC, { ...OLINDA, url }, strict), 403, 'url_forbidden');
        expectProblem(await post(VECTOR_STAC, { ...NC, url, asset: 'counties' }, strict), 403, 'url_forbidden');
      }
      expect(web.requests.length).toBe(before);
    });

    it.each([
      ['link-local metadata address', 'http://169.254.169.254/latest/meta-data/item.json'],
      ['RFC 1918', 'http://10.0.0.1/item.json'],
      ['IPv6 loopback', 'http://[::1]:9/item.json'],
    ])('an Item on a %s → 403', async (_name, url) => {
      expectProblem(await post(RASTER_STAC, { ...OLINDA, url }, strict), 403, 'url_forbidden');
    });

    it('an allowed Item whose asset points at a refused address → 403 (the asset goes through the policy too)', async () => {
      const url = putItem('/policy/item.json', { etm: { href: second.url('/raster/L7_ETMs.cog.tif'), type: GEOTIFF } });
      expectProblem(await post(RASTER_STAC, { ...OLINDA, url }, onlyDotOne), 403, 'url_forbidden');
      expect(second.requests).toEqual([]);
      // (control) the same Item and COG on the allowed address
      const ok = putItem('/policy/ok.json', { etm: { href: web.url('/raster/L7_ETMs.cog.tif'), type: GEOTIFF } });
      const res = await post(RASTER_STAC, { ...OLINDA, url: ok, stats: ['count'] }, onlyDotOne);
      expect(res.statusCode, res.body).toBe(200);
    });

    it('an allowed Item URL redirecting to the refused address → 403', async () => {
      web.setFault('/policy/hop.json', { kind: 'redirect', location: second.url('/raster/stac/olinda-l7.json') });
      try {
        expectProblem(await post(RASTER_STAC, { ...OLINDA, url: web.url('/policy/hop.json') }, onlyDotOne), 403, 'url_forbidden');
        expect(second.requests).toEqual([]);
      } finally {
        web.setFault('/policy/hop.json', undefined);
      }
    });

    it('an Item on the refused address → 403', async () => {
      expectProblem(await post(RASTER_STAC, { ...OLINDA, url: second.url('/raster/stac/olinda-l7.json') }, onlyDotOne), 403, 'url_forbidden');
      expect(second.requests).toEqual([]);
    });
  });

  describe('raster:bands (STAC raster extension) fill in what the file lacks', () => {
    const STATS = ['count', 'nodata', 'min', 'max', 'sum'];

    it('tiny_multiband (uint16, no nodata, no scale): per-band nodata, scale and offset from the asset', async () => {
      // band b value = b·100 + row·6 + col; band 1: nodata 105 (col 5, row 0), value ×2 + 1; band 2: ×0.5; band 3: as is.
      const url = putItem('/bands/multi.json', {
        data: {
          href: '../raster/synthetic/tiny_multiband.tif',
          type: 'image/tiff; application=geotiff',
          'raster:bands': [{ nodata: 105, scale: 2, offset: 1, data_type: 'uint16' }, { scale: 0.5 }],
        },
      });
      const res = await post(RASTER_STAC, { url, aoi: TINY_ALL, bands: [1, 2, 3], stats: STATS });
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json() as Record<string, Record<string, number>>;
      const band1 = range(100, 123)
        .filter((v) => v !== 105)
        .map((v) => 2 * v + 1);
      expect(body['band_1']).toMatchObject({ count: 23, nodata: 1, min: 201, max: 247, sum: sumOf(band1) });
      expect(sumOf(band1)).toBe(5165);
      expect(body['band_2']).toMatchObject({ count: 24, nodata: 0, min: 100, max: 111.5, sum: 2538 });
      expect(body['band_3']).toMatchObject({ count: 24, nodata: 0, min: 300, max: 323, sum: sumOf(range(300, 323)) });
      // The raster endpoint on the same file ignores nothing and applies nothing.
      const plain = (await post(RASTER, { url: web.url('/raster/synthetic/tiny_multiband.tif'), aoi: TINY_ALL, bands: [1], stats: STATS })).json() as Record<
        string,
        Record<string, number>
      >;
      expect(plain['band_1']).toMatchObject({ count: 24, nodata: 0, min: 100, max: 123 });
    });

    it("tiny_nan (float32, NaN at (0,0) and (1,0), no nodata): the asset's nodata 7 and scale 2 offset 1", async () => {
      const url = putItem('/bands/nan.json', { data: { href: '../raster/synthetic/tiny_nan.tif', 'raster:bands': [{ nodata: 7, scale: 2, offset: 1 }] } });
      const res = await post(RASTER_STAC, { url, aoi: TINY_ALL, stats: STATS });
      expect(res.statusCode, res.body).toBe(200);
      // raw row·6 + col, 0 … 23, without 0 and 1 (NaN) and 7 (nodata): 21 values, raw sum 276 − 0 − 1 − 7 = 268
      expect((res.json() as Record<string, unknown>)['band_1']).toMatchObject({ count: 21, nodata: 3, min: 5, max: 47, sum: 2 * 268 + 21 });
    });

    it('edges.tif (uint16, no nodata): nodata 0 from the asset excludes the corner pixel', async () => {
      // 100 × 70 px of 10 m from (600000, 5100000); value row·100 + col. Cols 0–2 × rows 0–1 (centres 5 m in).
      const aoi = {
        type: 'Polygon',
        coordinates: [[toLonLat(599997, 5099982), toLonLat(600027, 5099982), toLonLat(600027, 5100003), toLonLat(599997, 5100003), toLonLat(599997, 5099982)]],
      };
      const url = putItem('/bands/edges.json', {
        data: { href: '../raster/synthetic/edges.tif', type: GEOTIFF, 'raster:bands': [{ nodata: 0, offset: -1000 }] },
      });
      const res = await post(RASTER_STAC, { url, aoi, stats: STATS });
      expect(res.statusCode, res.body).toBe(200);
      // values 0, 1, 2, 100, 101, 102; 0 is nodata; the rest − 1000
      expect((res.json() as Record<string, unknown>)['band_1']).toMatchObject({ count: 5, nodata: 1, min: -999, max: -898, sum: 306 - 5000 });
      const plain = await post(RASTER, { url: fixtureUrl('raster/synthetic/edges.tif'), aoi, stats: STATS });
      expect((plain.json() as Record<string, unknown>)['band_1']).toMatchObject({ count: 6, nodata: 0, min: 0, max: 102, sum: 306 });
    });

    it("tiny_scaled (file: scale 0.5, offset 100, nodata −1): the file's values win over the asset's", async () => {
      const url = putItem('/bands/scaled.json', {
        data: { href: '../raster/synthetic/tiny_scaled.tif', type: GEOTIFF, 'raster:bands': [{ nodata: 3, scale: 3, offset: 7 }] },
      });
      const stac = await post(RASTER_STAC, { url, aoi: TINY_ALL, stats: STATS });
      const direct = await post(RASTER, { url: web.url('/raster/synthetic/tiny_scaled.tif'), aoi: TINY_ALL, stats: STATS });
      await expectSame(stac, direct);
      // raw 1 … 23 (raw −1 at (0,0) is the file's nodata; raw 3 is a value): × 0.5 + 100
      expect((stac.json() as Record<string, unknown>)['band_1']).toMatchObject({ count: 23, nodata: 1, min: 100.5, max: 111.5, sum: 0.5 * 276 + 2300 });
    });

    it("tiny_uint8 (file: nodata 250, no scale): the file's nodata wins, the asset's scale/offset apply", async () => {
      const url = putItem('/bands/uint8.json', {
        data: { href: '../raster/synthetic/tiny_uint8.tif', type: GEOTIFF, 'raster:bands': [{ nodata: 5, scale: 2, offset: 1 }] },
      });
      const res = await post(RASTER_STAC, { url, aoi: TINY_ALL, stats: STATS });
      expect(res.statusCode, res.body).toBe(200);
      // values 1 … 23 (250 at (5,3) is nodata; 5 is a value): × 2 + 1
      expect((res.json() as Record<string, unknown>)['band_1']).toMatchObject({ count: 23, nodata: 1, min: 3, max: 47, sum: 2 * 276 + 23 });
    });

    it('malformed raster:bands are ignored (answer as the raster endpoint)', async () => {
      const url = putItem('/bands/bad.json', { data: { href: '../raster/synthetic/tiny_multiband.tif', 'raster:bands': { nodata: 105 } } });
      const body = { aoi: TINY_ALL, bands: [1, 2], stats: STATS };
      await expectSame(await post(RASTER_STAC, { ...body, url }), await post(RASTER, { ...body, url: web.url('/raster/synthetic/tiny_multiband.tif') }));
    });
  });

  describe('request schema', () => {
    it.each([
      ['missing url', { aoi: OLINDA['aoi'] }, '/url'],
      ['an empty asset', { aoi: OLINDA['aoi'], url: 'http://127.0.0.1:9/i.json', asset: '' }, '/asset'],
      ['asset a number', { aoi: OLINDA['aoi'], url: 'http://127.0.0.1:9/i.json', asset: 1 }, '/asset'],
      ['an unknown field', { aoi: OLINDA['aoi'], url: 'http://127.0.0.1:9/i.json', assets: 'etm' }, '/assets'],
      ['vector fields on raster', { aoi: OLINDA['aoi'], url: 'http://127.0.0.1:9/i.json', columns: ['x'] }, '/columns'],
    ])('raster/stac: %s → 422 validation_failed', async (_name, payload, path) => {
      const body = expectProblem(await post(RASTER_STAC, payload), 422, 'validation_failed');
      expect(body.errors?.[0]?.path).toBe(path);
    });

    it.each([
      ['missing columns', { aoi: NC['aoi'], url: 'http://127.0.0.1:9/i.json' }, '/columns'],
      ['raster fields on vector', { ...NC, url: 'http://127.0.0.1:9/i.json', bands: [1] }, '/bands'],
    ])('vector/stac: %s → 422 validation_failed', async (_name, payload, path) => {
      const body = expectProblem(await post(VECTOR_STAC, payload), 422, 'validation_failed');
      expect(body.errors?.[0]?.path).toBe(path);
    });

    it('a body that is not JSON → 400 problem+json', async () => {
      const res = await app.inject({ method: 'POST', url: RASTER_STAC, payload: '{"url": ', headers: { 'content-type': 'application/json' } });
      expectProblem(res, 400, 'bad_json');
    });
  });

  describe('the Item cache', () => {
    let realNow: () => number;
    beforeAll(() => {
      realNow = Date.now.bind(Date);
    });
    afterEach(() => {
      vi.restoreAllMocks();
    });

    const itemRequests = (path: string): number => web.requests.filter((r) => r.path === path).length;

    it('the same Item URL twice within 30 s: the second request does not fetch the Item again', async () => {
      const path = '/cache/item.json';
      const url = putItem(path, { etm: { href: '../raster/L7_ETMs.cog.tif', type: GEOTIFF } });
      const a = await post(RASTER_STAC, { ...OLINDA, url });
      const first = itemRequests(path);
      expect(first).toBeGreaterThanOrEqual(1);
      const b = await post(RASTER_STAC, { ...OLINDA, url, bands: [2] });
      expect(a.statusCode, a.body).toBe(200);
      expect(b.statusCode, b.body).toBe(200);
      expect(itemRequests(path)).toBe(first);
    });

    // The brief: "the same Item URL asked twice within 30 s costs one Item request". The cache does its
    // part, but a first fetch already costs two requests to the Item.
    // One request reads a typical Item and learns its size (ByteSource.head).
    it('an Item costs exactly one request to its server, however often it is asked within 30 s', async () => {
      const path = '/cache/one.json';
      const url = putItem(path, { etm: { href: '../raster/L7_ETMs.cog.tif', type: GEOTIFF } });
      for (let i = 0; i < 3; i++) expect((await post(RASTER_STAC, { ...OLINDA, url, stats: ['count'] })).statusCode).toBe(200);
      expect(itemRequests(path)).toBe(1);
    });

    it('shared between the raster and vector endpoints (keyed by URL)', async () => {
      const path = '/cache/both.json';
      const url = putItem(path, { counties: { href: '../vector/nc.parquet', type: PARQUET }, etm: { href: '../raster/L7_ETMs.cog.tif', type: GEOTIFF } });
      expect((await post(VECTOR_STAC, { ...NC, url })).statusCode).toBe(200);
      const first = itemRequests(path);
      expect((await post(RASTER_STAC, { ...OLINDA, url, asset: 'etm', stats: ['count'] })).statusCode).toBe(200);
      expect(itemRequests(path)).toBe(first);
    });

    it('after 30 s the Item is fetched again (and a changed Item is then seen)', async () => {
      const path = '/cache/expire.json';
      const url = putItem(path, { etm: { href: '../raster/L7_ETMs.cog.tif', type: GEOTIFF } });
      expect((await post(RASTER_STAC, { ...OLINDA, url, stats: ['count'] })).statusCode).toBe(200);
      const first = itemRequests(path);
      // The Item changes: within 30 s the cached one is still used…
      putItem(path, { thumb: { href: 'x.png', type: 'image/png' } });
      vi.spyOn(Date, 'now').mockImplementation(() => realNow() + 29_000);
      expect((await post(RASTER_STAC, { ...OLINDA, url, stats: ['count'] })).statusCode).toBe(200);
      expect(itemRequests(path)).toBe(first);
      // …after 30 s it is read again.
      vi.spyOn(Date, 'now').mockImplementation(() => realNow() + 31_000);
      expectProblem(await post(RASTER_STAC, { ...OLINDA, url, stats: ['count'] }), 422, 'unsupported_asset');
      expect(itemRequests(path)).toBeGreaterThan(first);
    });

    it('a failed Item fetch is not cached: a 404 then a served Item → 200', async () => {
      const path = '/cache/later.json';
      expectProblem(await post(RASTER_STAC, { ...OLINDA, url: web.url(path) }), 422, 'source_not_found');
      const url = putItem(path, { etm: { href: '../raster/L7_ETMs.cog.tif', type: GEOTIFF } });
      expect((await post(RASTER_STAC, { ...OLINDA, url, stats: ['count'] })).statusCode).toBe(200);
    });

    it('an invalid Item is not cached: a FeatureCollection then a fixed Item → 200', async () => {
      const path = '/cache/fixed.json';
      web.setFile(path, JSON.stringify({ type: 'FeatureCollection', features: [] }));
      expectProblem(await post(RASTER_STAC, { ...OLINDA, url: web.url(path) }), 422, 'invalid_source');
      const url = putItem(path, { etm: { href: '../raster/L7_ETMs.cog.tif', type: GEOTIFF } });
      expect((await post(RASTER_STAC, { ...OLINDA, url, stats: ['count'] })).statusCode).toBe(200);
    });
  });
});
