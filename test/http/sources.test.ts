/**
 * The raster endpoint over every source kind (file://, http:// via the loopback range server, s3:// via
 * s3rver), redirects and their policy, and what a request costs upstream: on a COG with 256 px tiles
 * a one-tile AOI must fetch the header and that tile only. Expected tile byte ranges are computed here
 * from the TIFF's TileOffsets / TileByteCounts with a few lines of DataView code, not with our reader.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MERGE_GAP } from '../../src/raster/reader.ts';
import proj4 from 'proj4';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, FIXTURES, fixtureUrl } from '../helpers/build-app.ts';
import { blockIndex } from '../helpers/tiff-index.ts';
import { startRangeServer, type LoggedRequest, type RangeServer } from '../helpers/range-server.ts';
import { startS3Server, useS3Env, type S3Server } from '../helpers/s3-server.ts';

const RASTER = '/api/v1/zonal-stats/raster';
const TINY_PATH = '/raster/synthetic/tiny_int16.tif';
const BIG_PATH = '/raster/synthetic/big_tiles.tif';
const TINY_BYTES = readFileSync(join(FIXTURES, TINY_PATH));
const BIG_BYTES = readFileSync(join(FIXTURES, BIG_PATH));
/** Covers the whole tiny grid (6 × 4 px of 10 m from UTM 33N x=500000, y=5000000). */
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
const STATS = ['count', 'min', 'max', 'mean', 'sum', 'std', 'median', 'percentile_25', 'range', 'majority', 'minority', 'unique', 'freq_hist', 'nodata'];

const UTM33 = '+proj=utm +zone=33 +datum=WGS84 +units=m +no_defs';
const toLonLat = (x: number, y: number): [number, number] => proj4(UTM33, 'EPSG:4326', [x, y]) as [number, number];
function utmRect(x0: number, y0: number, x1: number, y1: number) {
  return { type: 'Polygon', coordinates: [[toLonLat(x0, y0), toLonLat(x1, y0), toLonLat(x1, y1), toLonLat(x0, y1), toLonLat(x0, y0)]] };
}

const tileIndex = (bytes: Uint8Array) => blockIndex(bytes, 324, 325);

const HEADER_CAP = 64 * 1024;

describe('the raster endpoint over each source kind', () => {
  let app: FastifyInstance;
  let web: RangeServer;
  let s3: S3Server;
  let restoreEnv: () => void;

  beforeAll(async () => {
    app = await buildTestApp();
    web = await startRangeServer({ root: FIXTURES });
    s3 = await startS3Server({ bucket: 'rasters', files: { 'cogs/tiny int16.tif': TINY_BYTES } });
    restoreEnv = useS3Env(s3);
  });
  afterAll(async () => {
    restoreEnv();
    await app.close();
    await web.close();
    await s3.close();
  });

  const post = async (payload: Record<string, unknown>, target: FastifyInstance = app) => {
    const res = await target.inject({ method: 'POST', url: RASTER, payload });
    return { status: res.statusCode, body: res.json() as Record<string, unknown>, text: res.body, headers: res.headers };
  };

  describe('same answer from file://, http:// and s3://', () => {
    let reference: Record<string, unknown>;
    beforeAll(async () => {
      const res = await post({ url: fixtureUrl(TINY_PATH.slice(1)), aoi: AOI, stats: STATS });
      expect(res.status, res.text).toBe(200);
      reference = res.body;
    });

    it('file:// (reference) is the hand-derived answer', () => {
      expect(reference).toMatchObject({ band_1: { count: 23, nodata: 1, min: -5, max: 17 } });
    });

    it('http:// through the range server', async () => {
      const res = await post({ url: web.url(TINY_PATH), aoi: AOI, stats: STATS });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual(reference);
    });

    it('s3:// through s3rver (a key with a space, percent-encoded)', async () => {
      const url = s3.url('cogs/tiny int16.tif');
      expect(url).toContain('%20');
      const res = await post({ url, aoi: AOI, stats: STATS });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual(reference);
    });

    it('a bare point and a circle give the same answer over every kind', async () => {
      for (const aoi of [
        { type: 'Point', coordinates: [15.0002, 45.1532] },
        { type: 'Point', coordinates: [15.0003, 45.1532], radius: 15 },
      ]) {
        const answers = await Promise.all(
          [fixtureUrl(TINY_PATH.slice(1)), web.url(TINY_PATH), s3.url('cogs/tiny int16.tif')].map((url) => post({ url, aoi, stats: STATS })),
        );
        for (const a of answers) expect(a.status, a.text).toBe(200);
        expect(answers[1]!.body).toEqual(answers[0]!.body);
        expect(answers[2]!.body).toEqual(answers[0]!.body);
      }
    });
  });

  describe('redirects', () => {
    it('a chain of 3 redirects (302, 301, 307, relative and absolute) is followed', async () => {
      web.setFault('/r3/a.tif', { kind: 'redirect', location: '/r3/b.tif' });
      web.setFault('/r3/b.tif', { kind: 'redirect', location: 'c.tif', status: 301 });
      web.setFault('/r3/c.tif', { kind: 'redirect', location: web.url(TINY_PATH), status: 307 });
      const res = await post({ url: web.url('/r3/a.tif'), aoi: AOI, stats: ['count', 'sum'] });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ band_1: { count: 23 } });
    });

    it('more than 3 redirects is 502', async () => {
      web.setFault('/r4/a.tif', { kind: 'redirect', location: '/r4/b.tif' });
      web.setFault('/r4/b.tif', { kind: 'redirect', location: '/r4/c.tif' });
      web.setFault('/r4/c.tif', { kind: 'redirect', location: '/r4/d.tif' });
      web.setFault('/r4/d.tif', { kind: 'redirect', location: TINY_PATH });
      const res = await post({ url: web.url('/r4/a.tif'), aoi: AOI });
      expect(res.status, res.text).toBe(502);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body['code']).toBe('upstream_failed');
      expect(String(res.body['detail'])).toMatch(/redirect/);
    });

    it('a redirect loop is 502', async () => {
      web.setFault('/loop.tif', { kind: 'redirect', location: '/loop.tif' });
      const res = await post({ url: web.url('/loop.tif'), aoi: AOI });
      expect(res.status, res.text).toBe(502);
    });

    it('a redirect to a non-http scheme is refused (403)', async () => {
      web.setFault('/to-file.tif', { kind: 'redirect', location: `file://${FIXTURES}raster/synthetic/tiny_int16.tif` });
      const res = await post({ url: web.url('/to-file.tif'), aoi: AOI });
      expect(res.status, res.text).toBe(403);
      expect(res.body['code']).toBe('url_forbidden');
    });

    describe('a redirect to a refused address (allowPrivateNetworks: 127.0.0.1/32, target on 127.0.0.2)', () => {
      let strict: FastifyInstance;
      let other: RangeServer;
      beforeAll(async () => {
        strict = await buildTestApp({ allowPrivateNetworks: ['127.0.0.1/32'] });
        other = await startRangeServer({ root: FIXTURES, host: '127.0.0.2' });
      });
      afterAll(async () => {
        await strict.close();
        await other.close();
      });

      it('(control) 127.0.0.1 is allowed, 127.0.0.2 directly is 403', async () => {
        expect((await post({ url: web.url(TINY_PATH), aoi: AOI }, strict)).status).toBe(200);
        const direct = await post({ url: other.url(TINY_PATH), aoi: AOI }, strict);
        expect(direct.status, direct.text).toBe(403);
      });

      it('a redirect from the allowed server to 127.0.0.2 is 403 and 127.0.0.2 is never contacted', async () => {
        web.setFault('/to-other.tif', { kind: 'redirect', location: other.url(TINY_PATH) });
        const before = other.requests.length;
        const res = await post({ url: web.url('/to-other.tif'), aoi: AOI }, strict);
        expect(res.status, res.text).toBe(403);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(res.body['code']).toBe('url_forbidden');
        expect(other.requests.length).toBe(before);
      });
    });
  });

  describe('bytes fetched: big_tiles.tif (1536² px, 256 px tiles, 6 × 6 tiles) over the range server', () => {
    const index = tileIndex(BIG_BYTES);
    const header = Math.min(HEADER_CAP, BIG_BYTES.byteLength);
    /** The Range header of tile (tx, ty). */
    const tileRange = (tx: number, ty: number): string => {
      const i = ty * 6 + tx;
      return `bytes=${index.offsets[i]!}-${index.offsets[i]! + index.counts[i]! - 1}`;
    };
    const tileBytes = (tx: number, ty: number): number => index.counts[ty * 6 + tx]!;
    /** Tile (tx, ty) covers UTM x 300000 + 2560·tx … +2560, y 5200000 − 2560·ty … −2560. */
    const tileX = (tx: number) => 300000 + 2560 * tx;
    const tileY = (ty: number) => 5200000 - 2560 * ty;

    let server: RangeServer;
    beforeAll(async () => {
      server = await startRangeServer({ root: FIXTURES });
    });
    afterAll(async () => server.close());

    const run = async (aoi: Record<string, unknown>): Promise<{ body: Record<string, unknown>; log: LoggedRequest[] }> => {
      const before = server.requests.length;
      const res = await post({ url: server.url(BIG_PATH), aoi, stats: ['count', 'min', 'max'] });
      expect(res.status, res.text).toBe(200);
      return { body: res.body, log: server.requests.slice(before) };
    };
    const isTile = (r: LoggedRequest) => index.offsets.some((o, i) => r.range === `bytes=${o}-${o + index.counts[i]! - 1}`);

    it('the tile index parsed here is sane (36 tiles of ~3.25 kB, after the 64 KiB header)', () => {
      expect(index.offsets).toHaveLength(36);
      expect(index.counts).toHaveLength(36);
      for (const c of index.counts) expect(c).toBeGreaterThan(3000);
      for (const c of index.counts) expect(c).toBeLessThan(3500);
      expect(BIG_BYTES.byteLength).toBeGreaterThan(HEADER_CAP);
    });

    /** Tile (tx, ty) with a 500 m margin inside its edges. */
    const insideTile = (tx: number, ty: number) => utmRect(tileX(tx) + 500, tileY(ty + 1) + 500, tileX(tx + 1) - 500, tileY(ty) - 500);

    it('the tiles used below lie past the 64 KiB header window (so no cache could serve them)', () => {
      for (const [tx, ty] of [
        [2, 4],
        [3, 4],
        [2, 5],
        [3, 5],
      ] as const)
        expect(index.offsets[ty * 6 + tx]!).toBeGreaterThanOrEqual(header);
    });

    it('a one-tile AOI fetches exactly that tile, and no more bytes than header + tile', async () => {
      const { body, log } = await run(insideTile(2, 4));
      expect((body['band_1'] as { count: number }).count).toBeGreaterThan(10_000);
      expect(log.filter(isTile).map((r) => r.range)).toEqual([tileRange(2, 4)]);
      expect(log.every((r) => r.method === 'GET' && r.path === BIG_PATH && r.status === 206)).toBe(true);
      const sent = log.reduce((n, r) => n + r.bytesSent, 0);
      expect(sent).toBeLessThanOrEqual(header + tileBytes(2, 4));
    });

    it('a one-tile AOI on a tile inside the header window still fetches no more than header + tile', async () => {
      const { log } = await run(insideTile(2, 2));
      const sent = log.reduce((n, r) => n + r.bytesSent, 0);
      expect(sent).toBeLessThanOrEqual(header + tileBytes(2, 2));
    });

    // The header read learns the size from the same answer (ByteSource.head: a range the server clips).
    it('a one-tile AOI costs exactly 2 upstream requests: 1 header + 1 tile', async () => {
      const { log } = await run(insideTile(2, 4));
      expect(log.map((r) => r.range)).toEqual([`bytes=0-${header - 1}`, tileRange(2, 4)]);
      expect(log.reduce((n, r) => n + r.bytesSent, 0)).toBeLessThanOrEqual(header + tileBytes(2, 4));
    });

    it('an AOI spanning 2 × 2 tiles fetches those 4 tile ranges, once each, neighbours in the file merged', async () => {
      // Around the corner shared by tiles (2,4), (3,4), (2,5), (3,5).
      const aoi = utmRect(tileX(3) - 1000, tileY(5) - 1000, tileX(3) + 1000, tileY(5) + 1000);
      const { body, log } = await run(aoi);
      expect((body['band_1'] as { count: number }).count).toBeGreaterThan(30_000);
      const span = (r: string): [number, number] => r.slice(6).split('-').map(Number) as [number, number];
      const wanted = [tileRange(2, 4), tileRange(3, 4), tileRange(2, 5), tileRange(3, 5)].map(span).sort((a, b) => a[0] - b[0]);
      const fetched = log
        .filter((r) => r.range !== `bytes=0-${header - 1}`)
        .map((r) => span(r.range as string))
        .sort((a, b) => a[0] - b[0]);
      // Every tile lies inside one fetched range, and no byte is fetched twice.
      for (const [a, b] of wanted)
        expect(
          fetched.some(([s, e]) => s <= a && b <= e),
          `tile ${a}-${b}`,
        ).toBe(true);
      for (let i = 1; i < fetched.length; i++) expect((fetched[i] as [number, number])[0]).toBeGreaterThan((fetched[i - 1] as [number, number])[1]);
      // Fetched bytes beyond the 4 tiles are only the gaps inside merged reads, each at most MERGE_GAP.
      const tileBytesSum = wanted.reduce((n, [a, b]) => n + b - a + 1, 0);
      const fetchedSum = fetched.reduce((n, [a, b]) => n + b - a + 1, 0);
      const gaps = fetchedSum - tileBytesSum;
      expect(gaps).toBeGreaterThanOrEqual(0);
      expect(gaps).toBeLessThanOrEqual(MERGE_GAP * (wanted.length - fetched.length));
      // Tiles (2,4) and (3,4) follow each other in the file: fewer than 4 requests.
      expect(fetched.length).toBeLessThan(4);
      expect(log.reduce((n, r) => n + r.bytesSent, 0)).toBe(header + fetchedSum);
    });

    it('a bare point fetches one tile', async () => {
      const [lon, lat] = toLonLat(tileX(4) + 1234, tileY(4) - 777);
      const { log } = await run({ type: 'Point', coordinates: [lon, lat] });
      expect(log.map((r) => r.range)).toEqual([`bytes=0-${header - 1}`, tileRange(4, 4)]);
    });

    it('a tile inside the header bytes already read costs no further request', async () => {
      expect(index.offsets[1 * 6 + 4]! + index.counts[1 * 6 + 4]!).toBeLessThanOrEqual(header);
      const [lon, lat] = toLonLat(tileX(4) + 1234, tileY(1) - 777);
      const { body, log } = await run({ type: 'Point', coordinates: [lon, lat] });
      expect((body['band_1'] as { count: number }).count).toBe(1);
      expect(log.map((r) => r.range)).toEqual([`bytes=0-${header - 1}`]);
    });

    it('an AOI outside the raster fetches no tile', async () => {
      const { body, log } = await run(utmRect(250000, 5250000, 251000, 5251000));
      expect(body['band_1']).toMatchObject({ count: 0 });
      expect(log.filter(isTile)).toEqual([]);
    });
  });
});
