/**
 * ZONAL_REVALIDATE_SECONDS: an http(s) object's size and validator, once learnt, are trusted for that long,
 * so a warm request makes no size probe (one round trip); a changed object is never answered from what
 * was learnt once the time has passed, and a read that meets the change fails as `changed` and forgets it.
 * Real loopback server; its request log counts the round trips. Time is Date.now, moved by the test.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { tally } from '../../src/observe.ts';
import { HttpSource } from '../../src/source/http.ts';
import { startRangeServer, type RangeServer } from '../helpers/range-server.ts';
import { sourceError } from './conformance.ts';

const data = Uint8Array.from({ length: 4096 }, (_, i) => i % 251);
let server: RangeServer;
beforeAll(async () => {
  server = await startRangeServer({ files: { '/a.bin': data, '/b.bin': data, '/c.bin': data, '/d.bin': data } });
});
afterAll(async () => server.close());
afterEach(() => {
  vi.restoreAllMocks();
});

const open = (path: string, revalidateMs: number) =>
  new HttpSource(new URL(server.url(path)), { allowPrivateNetworks: true, timeoutMs: 5_000, maxBytes: 1 << 30, revalidateMs });
const count = (path: string) => server.requests.filter((r) => r.path === path).length;

describe('revalidation interval', () => {
  it('a second source of the same URL within the interval knows size and validator without asking', async () => {
    const first = open('/a.bin', 60_000);
    expect(await first.size()).toBe(4096);
    expect(count('/a.bin')).toBe(1);
    const [hits] = tally.cache.get('http_sizes') ?? [0, 0];
    const second = open('/a.bin', 60_000);
    expect(tally.cache.get('http_sizes')?.[0]).toBe(hits + 1); // counted for /metrics
    expect(await second.size()).toBe(4096);
    expect(second.validator()).toBe(first.validator());
    expect(count('/a.bin')).toBe(1);
    // Its read is the only round trip.
    expect(new Uint8Array(await second.read(10, 5))).toEqual(data.slice(10, 15));
    expect(count('/a.bin')).toBe(2);
  });

  it('with 0 every source asks again', async () => {
    await open('/b.bin', 0).size();
    await open('/b.bin', 0).size();
    expect(count('/b.bin')).toBe(2);
  });

  it('past the interval the server is asked again, and a change is seen', async () => {
    const at = Date.now();
    vi.spyOn(Date, 'now').mockReturnValue(at);
    await open('/c.bin', 100).size();
    server.setFile('/c.bin', data.slice(0, 1000));
    vi.spyOn(Date, 'now').mockReturnValue(at + 100);
    expect(await open('/c.bin', 100).size()).toBe(4096); // still trusted: the server is not asked
    expect(count('/c.bin')).toBe(1);
    vi.spyOn(Date, 'now').mockReturnValue(at + 101);
    expect(await open('/c.bin', 100).size()).toBe(1000);
    expect(count('/c.bin')).toBe(2);
  });

  it('within the interval a read that meets a changed object fails as changed, and the next source re-learns', async () => {
    const learner = open('/d.bin', 60_000);
    await learner.read(0, 4);
    server.setFile('/d.bin', data.slice(0, 2048));
    const stale = open('/d.bin', 60_000);
    expect(await stale.size()).toBe(4096);
    expect((await sourceError(stale.read(0, 4))).reason).toBe('changed');
    expect(await open('/d.bin', 60_000).size()).toBe(2048);
  });
});
