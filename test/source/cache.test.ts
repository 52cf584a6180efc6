/** withReadCache + withCounting over real HTTP reads: hits, no rounding, failures, sharing, eviction. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ReadCache, withReadCache } from '../../src/source/cache.ts';
import { withByteBudget, withCounting } from '../../src/source/counting.ts';
import { HttpSource } from '../../src/source/http.ts';
import { MemorySource } from '../../src/source/memory.ts';
import { versionKey, type ByteSource, type ReadStats } from '../../src/source/source.ts';
import { startRangeServer } from '../helpers/range-server.ts';
import type { RangeServer } from '../helpers/range-server.ts';
import { bytes, sourceError } from './conformance.ts';

const data = bytes(50_000, 11);
let web: RangeServer;

beforeAll(async () => {
  web = await startRangeServer({ files: { '/data.bin': data } });
});
afterAll(() => web.close());
afterEach(() => {
  web.requests.length = 0;
  web.setServerFault(undefined);
});

function open(cache: ReadCache, path = '/data.bin'): { src: ByteSource; stats: ReadStats } {
  const stats: ReadStats = { requests: 0, bytes: 0 };
  const raw = new HttpSource(new URL(web.url(path)), { allowPrivateNetworks: true, timeoutMs: 5_000, maxBytes: 1 << 30 });
  return { src: withReadCache(withCounting(raw, stats), cache), stats };
}

/** The cache group of a source's object (URL + validator); a memory source always has its validator. */
function groupOf(src: ByteSource): string {
  const key = versionKey(src);
  if (key === undefined) throw new Error('the source has no validator');
  return key;
}

const same = (buf: ArrayBuffer, offset: number): boolean => Buffer.from(buf).equals(Buffer.from(data.subarray(offset, offset + buf.byteLength)));

describe('withReadCache', () => {
  it('serves a repeated read and any read inside a cached range without a request', async () => {
    const { src, stats } = open(new ReadCache(1 << 20));
    expect(same(await src.read(1_000, 2_000), 1_000)).toBe(true);
    expect(same(await src.read(1_000, 2_000), 1_000)).toBe(true);
    expect(same(await src.read(1_500, 100), 1_500)).toBe(true);
    expect(same(await src.read(2_999, 1), 2_999)).toBe(true);
    expect(web.requests).toHaveLength(1);
    expect(stats).toEqual({ requests: 1, bytes: 2_000 });
  });

  it('never reads more than asked (no block rounding)', async () => {
    const { src, stats } = open(new ReadCache(1 << 20));
    await src.read(123, 7);
    await src.read(2_990, 20); // straddles nothing cached: its own exact request
    expect(web.requests.map((r) => r.range)).toEqual(['bytes=123-129', 'bytes=2990-3009']);
    expect(stats.bytes).toBe(27);
  });

  it('shares the cache across sources of the same object once the validator is pinned', async () => {
    const cache = new ReadCache(1 << 20);
    const first = open(cache);
    await first.src.read(0, 100);
    await first.src.read(5_000, 500);
    const second = open(cache);
    await second.src.read(0, 100); // its first read goes upstream: it pins the validator
    expect(same(await second.src.read(5_100, 100), 5_100)).toBe(true); // served from first's read
    expect(second.stats).toEqual({ requests: 1, bytes: 100 });
  });

  it('does not serve stale bytes after the object changed', async () => {
    const cache = new ReadCache(1 << 20);
    web.setFile('/moving.bin', data);
    const first = open(cache, '/moving.bin');
    await first.src.read(0, 10);
    await first.src.read(1_000, 100);
    const fresh = bytes(50_000, 12);
    web.setFile('/moving.bin', fresh);
    const second = open(cache, '/moving.bin');
    await second.src.read(0, 10);
    const got = new Uint8Array(await second.src.read(1_000, 100));
    expect([...got]).toEqual([...fresh.subarray(1_000, 1_100)]);
  });

  it('does not cache a failed read', async () => {
    const { src, stats } = open(new ReadCache(1 << 20));
    web.setServerFault({ kind: 'status', status: 500 });
    expect((await sourceError(src.read(0, 100))).reason).toBe('upstream_failed');
    web.setServerFault(undefined);
    expect(same(await src.read(0, 100), 0)).toBe(true);
    expect(web.requests).toHaveLength(2);
    expect(stats).toEqual({ requests: 2, bytes: 100 });
  });

  it('shares one upstream read between identical concurrent reads', async () => {
    const { src } = open(new ReadCache(1 << 20));
    await src.read(0, 1); // pin the validator
    web.setServerFault({ kind: 'slow', delayMs: 50 });
    const got = await Promise.all([src.read(10_000, 1_000), src.read(10_000, 1_000), src.read(10_000, 1_000)]);
    expect(got.every((b) => same(b, 10_000))).toBe(true);
    expect(web.requests).toHaveLength(2);
    new Uint8Array(got[0]!).fill(0); // each caller has its own copy
    expect(same(got[1]!, 10_000)).toBe(true);
  });

  it('one caller aborting does not fail the others sharing the read', async () => {
    const { src } = open(new ReadCache(1 << 20));
    await src.read(0, 1);
    web.setServerFault({ kind: 'slow', delayMs: 100 });
    const ctl = new AbortController();
    const aborted = src.read(20_000, 100, ctl.signal);
    const kept = src.read(20_000, 100);
    ctl.abort();
    await expect(aborted).rejects.toMatchObject({ name: 'AbortError' });
    expect(same(await kept, 20_000)).toBe(true);
    expect(web.requests).toHaveLength(2);
  });

  it('aborting the only caller stops the upstream read', async () => {
    const { src } = open(new ReadCache(1 << 20));
    await src.read(0, 1);
    web.setServerFault({ kind: 'hang' });
    const ctl = new AbortController();
    const p = src.read(30_000, 100, ctl.signal);
    setTimeout(() => ctl.abort(), 30);
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
    web.setServerFault(undefined);
    expect(same(await src.read(30_000, 100), 30_000)).toBe(true); // a fresh read, not the abandoned one
  });

  it('keeps no range larger than 1/256 of its size, so that one big scan does not push out every header', async () => {
    const cache = new ReadCache(256_000);
    const src = withReadCache(new MemorySource(data), cache);
    await src.read(0, 1_000);
    await src.read(1_000, 1_001);
    expect(cache.bytes).toBe(1_000);
    const group = groupOf(src);
    expect(cache.get(group, 0, 1_000)).toBeDefined();
    expect(cache.get(group, 1_000, 1_001)).toBeUndefined();
  });

  it('stays within its byte bound, evicting the least recently used ranges', async () => {
    const cache = new ReadCache(3_000, { admitFraction: 1 });
    const src = withReadCache(new MemorySource(data), cache);
    await src.read(0, 1_000);
    await src.read(1_000, 1_000);
    await src.read(2_000, 1_000);
    expect(cache.bytes).toBe(3_000);
    await src.read(0, 10); // touch the first range: now the second is the oldest
    await src.read(3_000, 1_000);
    expect(cache.bytes).toBe(3_000);
    const group = groupOf(src);
    expect(cache.get(group, 0, 1_000)).toBeDefined();
    expect(cache.get(group, 1_000, 1_000)).toBeUndefined();
    await src.read(0, 5_000); // larger than the whole cache: not stored
    expect(cache.bytes).toBe(3_000);
  });

  it('a range stored again replaces the old one: its bytes are counted once and the new ones served', () => {
    const cache = new ReadCache(1_000, { admitFraction: 1 });
    expect(cache.put('g', 10, new Uint8Array(100).fill(1).buffer)).toBe(true);
    expect(cache.put('g', 10, new Uint8Array(100).fill(2).buffer)).toBe(true);
    expect(cache.bytes).toBe(100);
    expect([...new Uint8Array(cache.get('g', 50, 2)!)]).toEqual([2, 2]);
    cache.clear();
    expect(cache.bytes).toBe(0);
    expect(cache.get('g', 50, 2)).toBeUndefined();
  });

  it('passes reads through when caching is disabled', async () => {
    const raw = new MemorySource(data);
    expect(withReadCache(raw, undefined)).toBe(raw);
  });
});

describe('withCounting', () => {
  it('counts requests and bytes fetched, including failed requests but not their bytes', async () => {
    const stats: ReadStats = { requests: 0, bytes: 0 };
    const src = withCounting(new MemorySource(data), stats);
    await src.read(0, 10);
    await src.read(10, 90);
    await sourceError(src.read(49_999, 2));
    expect(stats).toEqual({ requests: 3, bytes: 100 });
  });
});

describe('withByteBudget', () => {
  it('refuses the read that would pass the bound, before it starts, and gives back failed reads', async () => {
    const stats: ReadStats = { requests: 0, bytes: 0 };
    const src = withByteBudget(withCounting(new MemorySource(data), stats), 1_000);
    await src.read(0, 600);
    await sourceError(src.read(49_990, 300)); // past the end: fails, its 300 bytes are given back
    await src.read(600, 400);
    const err = await sourceError(src.read(1_000, 1));
    expect(err.reason).toBe('too_large');
    expect(stats.requests).toBe(3); // the refused read never reached the source
  });
});
