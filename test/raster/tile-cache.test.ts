/**
 * The decoded-tile cache: a bytes-bounded LRU (raster/tile-cache.ts), and its use by the raster fold: a
 * repeated request decodes its tile once, answers the same, and a changed object (another validator) is
 * decoded afresh. The fold runs inline here (workers: 0), so this thread's cache is the one observed.
 */
import { copyFileSync, mkdtempSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { TileCache } from '../../src/raster/tile-cache.ts';
import { decodedTiles } from '../../src/raster/decode.ts';
import { buildTestApp, FIXTURES } from '../helpers/build-app.ts';
import { startRangeServer, type RangeServer } from '../helpers/range-server.ts';

describe('TileCache', () => {
  it('keeps at most maxBytes, dropping the least recently used first', () => {
    const c = new TileCache<string>();
    c.put('a', 'A', 40, 100);
    c.put('b', 'B', 40, 100);
    expect(c.get('a')).toBe('A'); // a is now the most recent
    c.put('c', 'C', 40, 100);
    expect(c.get('b')).toBeUndefined();
    expect(c.get('a')).toBe('A');
    expect(c.get('c')).toBe('C');
    expect(c.bytes).toBe(80);
  });

  it('never keeps an entry larger than the whole cache', () => {
    const c = new TileCache<string>();
    c.put('big', 'X', 101, 100);
    expect(c.size).toBe(0);
  });
});

describe('decoded tiles in the raster fold', () => {
  let app: FastifyInstance;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tiles-'));
    copyFileSync(join(FIXTURES, 'raster/synthetic/tiny_int16.tif'), join(dir, 'tiny.tif'));
    app = await buildTestApp({ workers: 0, dataRoots: [dir], tileCacheBytes: 16 * 1024 * 1024 });
  });
  afterAll(async () => app.close());
  const ask = () =>
    app.inject({
      method: 'POST',
      url: '/api/v1/zonal-stats/raster',
      payload: { url: `file://${join(dir, 'tiny.tif')}`, aoi: { type: 'Point', coordinates: [15.0004, 45.1533] }, stats: ['count', 'mean'] },
    });

  it('a tile asked for a second time is kept: from the third request on it is not decoded, and the answer is the same', async () => {
    const first = await ask();
    const size = decodedTiles.size;
    // Asked for once: decoded for the request alone (the cache's doorkeeper), nothing kept.
    expect(decodedTiles.size).toBe(size);
    const second = await ask();
    expect(decodedTiles.size).toBe(size + 1);
    const misses = decodedTiles.misses;
    const hits = decodedTiles.hits;
    const third = await ask();
    expect(second.json()).toEqual(first.json());
    expect(third.json()).toEqual(first.json());
    expect(decodedTiles.misses).toBe(misses);
    expect(decodedTiles.hits).toBe(hits + 1);
  });

  it('a changed file (another size and mtime: another validator) is decoded afresh', async () => {
    const before = await ask();
    const bytes = readFileSync(join(dir, 'tiny.tif'));
    writeFileSync(join(dir, 'tiny.tif'), Buffer.concat([bytes, Buffer.alloc(16)]));
    const misses = decodedTiles.misses;
    const after = await ask();
    expect(decodedTiles.misses).toBe(misses + 1);
    expect(after.json()).toEqual(before.json());
    // Its new key is asked for again, kept, then served from the cache like the old one.
    await ask();
    const hits = decodedTiles.hits;
    expect((await ask()).json()).toEqual(before.json());
    expect(decodedTiles.hits).toBe(hits + 1);
  });
});

describe('the process-wide decoded-tile cache, with two worker threads, over HTTP', () => {
  let app: FastifyInstance;
  let web: RangeServer;
  beforeAll(async () => {
    web = await startRangeServer({ files: { '/l7.tif': readFileSync(join(FIXTURES, 'raster/L7_ETMs.cog.tif')) } });
    // No read cache and a 30 s revalidation: what is read is what the decoded-tile cache does not hold.
    app = await buildTestApp({ workers: 2, revalidateSeconds: 30, tileCacheBytes: 16 * 1024 * 1024 });
  });
  afterAll(async () => {
    await app.close();
    await web.close();
  });
  // L7_ETMs.cog.tif: 349 × 352 pixels, 6 bands, in 128 × 128 tiles (3 × 3), 751 KiB, most of it past the
  // 64 KiB header read; this polygon covers all nine tiles.
  const polygon = {
    type: 'Polygon',
    coordinates: [
      [
        [-34.91, -8.0336],
        [-34.8329, -8.0339],
        [-34.8326, -7.9571],
        [-34.9096, -7.9567],
        [-34.91, -8.0336],
      ],
    ],
  };
  const ask = (aoi: unknown) =>
    app.inject({
      method: 'POST',
      url: '/api/v1/zonal-stats/raster',
      payload: { url: web.url('/l7.tif'), aoi, bands: [1, 4], stats: ['count', 'mean', 'min', 'max'] },
    });
  const tileReads = (from: number) => web.requests.slice(from).filter((r) => r.method === 'GET' && !/^bytes=0-/.test(r.range ?? ''));

  it('a repeated request reads no tile bytes and decodes nothing, whichever worker it lands on (once asked for twice)', async () => {
    const first = await ask(polygon);
    expect(first.statusCode).toBe(200);
    expect(tileReads(0).length).toBeGreaterThan(0);
    // The second request reads and decodes the tiles again, and keeps them (the cache's doorkeeper).
    const beforeSecond = web.requests.length;
    expect((await ask(polygon)).json()).toEqual(first.json());
    expect(tileReads(beforeSecond).length).toBeGreaterThan(0);
    const afterFirst = web.requests.length;
    const hits = decodedTiles.hits;
    const misses = decodedTiles.misses;
    for (let i = 0; i < 4; i++) {
      const again = await ask(polygon);
      expect(again.json()).toEqual(first.json());
    }
    expect(tileReads(afterFirst)).toEqual([]);
    expect(decodedTiles.misses).toBe(misses);
    expect(decodedTiles.hits).toBe(hits + 4 * 9);
  });

  it('many zones in one request take cached tiles but add none (they would push out the hot ones)', async () => {
    const size = decodedTiles.size;
    const fc = {
      type: 'FeatureCollection',
      features: [
        { type: 'Feature', properties: {}, geometry: polygon },
        { type: 'Feature', properties: {}, geometry: { type: 'Point', coordinates: [-34.87, -7.995] } },
      ],
    };
    const before = web.requests.length;
    const res = await ask(fc);
    expect(res.statusCode).toBe(200);
    expect(tileReads(before)).toEqual([]);
    expect(decodedTiles.size).toBe(size);
    const single = await ask(polygon);
    expect((res.json() as { features: { properties: { statistics: unknown } }[] }).features[0]?.properties.statistics).toEqual(single.json());
  });
});
