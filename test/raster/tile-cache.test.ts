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
    app = await buildTestApp({ workers: 0, dataRoots: [dir] });
  });
  afterAll(async () => app.close());
  const ask = () =>
    app.inject({ method: 'POST', url: '/api/v1/zonal-stats/raster', payload: { url: `file://${join(dir, 'tiny.tif')}`, aoi: { type: 'Point', coordinates: [15.0004, 45.1533] }, stats: ['count', 'mean'] } });

  it('a repeated request decodes its tile once and answers the same', async () => {
    const first = await ask();
    const misses = decodedTiles.misses;
    const hits = decodedTiles.hits;
    const second = await ask();
    expect(second.json()).toEqual(first.json());
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
  });
});
