/** HttpSource over a real loopback server: policy, DNS pinning, redirects, faults, timeouts, ETag pinning. */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { HttpSource } from '../../src/source/http.ts';
import type { HttpSourceOptions } from '../../src/source/http.ts';
import { startHangServer } from '../helpers/hang-server.ts';
import { startRangeServer } from '../helpers/range-server.ts';
import type { RangeServer } from '../helpers/range-server.ts';
import { bytes, sourceError } from './conformance.ts';

const data = bytes(10_000, 3);
const other = bytes(10_000, 4);
let a: RangeServer; // 127.0.0.1
let b: RangeServer; // 127.0.0.2

const open = (url: string, opts: Partial<HttpSourceOptions> = {}): HttpSource =>
  new HttpSource(new URL(url), { allowPrivateNetworks: true, timeoutMs: 5_000, maxBytes: 1 << 30, ...opts });

const expectBytes = (buf: ArrayBuffer, from: Uint8Array, offset: number): void => {
  expect(Buffer.from(buf).equals(Buffer.from(from.subarray(offset, offset + buf.byteLength)))).toBe(true);
};

beforeAll(async () => {
  a = await startRangeServer({ files: { '/data.bin': data } });
  b = await startRangeServer({ host: '127.0.0.2', files: { '/data.bin': data } });
});

afterAll(async () => {
  await a.close();
  await b.close();
});

afterEach(() => {
  // A timeout test that fails by its own timeout never reaches its finally: no fake clock for the next one.
  vi.useRealTimers();
  a.requests.length = 0;
  b.requests.length = 0;
  a.setServerFault(undefined);
});

describe('ranged reads', () => {
  it('sends one exact Range per read and learns the size from Content-Range', async () => {
    const src = open(a.url('/data.bin'));
    expectBytes(await src.read(100, 50), data, 100);
    expect(await src.size()).toBe(10_000);
    expect(a.requests).toEqual([{ method: 'GET', path: '/data.bin', range: 'bytes=100-149', status: 206, bytesSent: 50 }]);
  });

  it('asks for bytes=0-0 when size() comes first', async () => {
    const src = open(a.url('/data.bin'));
    expect(await src.size()).toBe(10_000);
    expect(a.requests.map((r) => r.range)).toEqual(['bytes=0-0']);
  });

  it('reports the size of an empty object from a 416', async () => {
    a.setFile('/empty.bin', new Uint8Array(0));
    const src = open(a.url('/empty.bin'));
    expect(await src.size()).toBe(0);
    expect((await src.read(0, 0)).byteLength).toBe(0);
  });

  it('serves a server that ignores Range from memory when the object is small', async () => {
    a.setFault('/small.bin', { kind: 'ignoreRange' });
    a.setFile('/small.bin', data);
    const src = open(a.url('/small.bin'));
    expectBytes(await src.read(10, 20), data, 10);
    expectBytes(await src.read(9_000, 1_000), data, 9_000);
    expect(await src.size()).toBe(10_000);
    expect(a.requests).toHaveLength(1);
    expect(a.requests[0]!.status).toBe(200);
    a.setFault('/small.bin', undefined);
  });

  it('refuses a server that ignores Range when the object is over the cap', async () => {
    a.setFault('/big.bin', { kind: 'ignoreRange' });
    a.setFile('/big.bin', data);
    const err = await sourceError(open(a.url('/big.bin'), { maxFullBodyBytes: 4_096 }).read(0, 10));
    expect(err.reason).toBe('too_large');
    expect(err.message).toMatch(/ignores byte ranges/);
    a.setFault('/big.bin', undefined);
  });

  it('stops at maxBytes per source without asking the server', async () => {
    const src = open(a.url('/data.bin'), { maxBytes: 1_000 });
    await src.read(0, 600);
    const err = await sourceError(src.read(600, 600));
    expect(err.reason).toBe('too_large');
    expect(a.requests).toHaveLength(1);
  });
});

describe('address policy and DNS pinning', () => {
  it('refuses a loopback server when private networks are not allowed, without connecting', async () => {
    const err = await sourceError(open(a.url('/data.bin'), { allowPrivateNetworks: false }).read(0, 10));
    expect(err.reason).toBe('forbidden');
    expect(a.requests).toHaveLength(0);
  });

  it('refuses a host name that resolves to a loopback address', async () => {
    const url = a.url('/data.bin').replace('127.0.0.1', 'localhost');
    const err = await sourceError(open(url, { allowPrivateNetworks: false }).read(0, 10));
    expect(err.reason).toBe('forbidden');
    expect(a.requests).toHaveLength(0);
  });

  it('allows only the listed range: 127.0.0.1/32 yes, 127.0.0.2 no', async () => {
    const allow = ['127.0.0.1/32'];
    expectBytes(await open(a.url('/data.bin'), { allowPrivateNetworks: allow }).read(0, 10), data, 0);
    const err = await sourceError(open(b.url('/data.bin'), { allowPrivateNetworks: allow }).read(0, 10));
    expect(err.reason).toBe('forbidden');
    expect(b.requests).toHaveLength(0);
  });

  it('refuses a host when any one of its addresses is refused', async () => {
    const resolveHost = (): Promise<{ address: string; family: number }[]> =>
      Promise.resolve([
        { address: '127.0.0.1', family: 4 },
        { address: '10.0.0.1', family: 4 },
      ]);
    const url = a.url('/data.bin').replace('127.0.0.1', 'mixed.test');
    const err = await sourceError(open(url, { allowPrivateNetworks: ['127.0.0.1/32'], resolveHost }).read(0, 10));
    expect(err.reason).toBe('forbidden');
    expect(a.requests).toHaveLength(0);
  });

  it('connects to the address that was checked, not to a second lookup', async () => {
    // "pinned.test" exists only in this resolver: reaching b proves the socket used the checked address.
    const seen: string[] = [];
    const resolveHost = (host: string): Promise<{ address: string; family: number }[]> => {
      seen.push(host);
      return Promise.resolve([{ address: '127.0.0.2', family: 4 }]);
    };
    const url = b.url('/data.bin').replace('127.0.0.2', 'pinned.test');
    expectBytes(await open(url, { resolveHost }).read(5, 5), data, 5);
    expect(seen).toEqual(['pinned.test']);
    expect(b.requests).toHaveLength(1);
  });

  it('reports an unknown host name as not_found', async () => {
    const resolveHost = (): Promise<never> => Promise.reject(Object.assign(new Error('x'), { code: 'ENOTFOUND' }));
    const err = await sourceError(open('http://nowhere.invalid/x.tif', { resolveHost }).read(0, 1));
    expect(err.reason).toBe('not_found');
  });
});

describe('redirects', () => {
  it('follows up to 3 redirects, relative or absolute', async () => {
    a.setFault('/r1', { kind: 'redirect', location: '/r2', status: 301 });
    a.setFault('/r2', { kind: 'redirect', location: a.url('/r3'), status: 307 });
    a.setFault('/r3', { kind: 'redirect', location: 'data.bin', status: 308 });
    expectBytes(await open(a.url('/r1')).read(0, 100), data, 0);
    expect(a.requests.map((r) => r.path)).toEqual(['/r1', '/r2', '/r3', '/data.bin']);
    expect(a.requests.every((r) => r.range === 'bytes=0-99')).toBe(true);
  });

  it('fails after more than 3 redirects', async () => {
    a.setFault('/r0', { kind: 'redirect', location: '/r1' });
    const err = await sourceError(open(a.url('/r0')).read(0, 100));
    expect(err.reason).toBe('upstream_failed');
    expect(err.message).toMatch(/more than 3/);
    expect(a.requests.map((r) => r.path)).toEqual(['/r0', '/r1', '/r2', '/r3']);
  });

  it('refuses a redirect to a refused address', async () => {
    a.setFault('/to-b', { kind: 'redirect', location: b.url('/data.bin') });
    const err = await sourceError(open(a.url('/to-b'), { allowPrivateNetworks: ['127.0.0.1/32'] }).read(0, 10));
    expect(err.reason).toBe('forbidden');
    expect(b.requests).toHaveLength(0);
  });

  it('refuses a redirect to a file:// URL', async () => {
    a.setFault('/to-file', { kind: 'redirect', location: 'file:///etc/passwd' });
    const err = await sourceError(open(a.url('/to-file')).read(0, 10));
    expect(err.reason).toBe('forbidden');
  });
});

describe('upstream failures', () => {
  it.each([
    [404, 'not_found'],
    [410, 'not_found'],
    [403, 'not_found'],
    [401, 'not_found'],
    [500, 'upstream_failed'],
    [503, 'upstream_failed'],
    [400, 'upstream_failed'],
  ] as const)('status %i → %s', async (status, reason) => {
    a.setServerFault({ kind: 'status', status });
    const err = await sourceError(open(a.url('/data.bin')).read(0, 10));
    expect(err.reason).toBe(reason);
    expect(err.upstreamStatus).toBe(status);
    expect(err.message).toContain(`answered ${status}`);
  });

  it('a connection reset mid-body → upstream_failed', async () => {
    a.setServerFault({ kind: 'reset' });
    const err = await sourceError(open(a.url('/data.bin')).read(0, 8_000));
    expect(err.reason).toBe('upstream_failed');
    expect(a.requests[0]!.bytesSent).toBe(4_000);
  });

  it('a body shorter than its Content-Length → upstream_failed', async () => {
    a.setServerFault({ kind: 'truncate' });
    const err = await sourceError(open(a.url('/data.bin')).read(0, 8_000));
    expect(err.reason).toBe('upstream_failed');
    expect(err.message).toMatch(/before sending all/);
  });

  it('a refused connection → upstream_failed', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const err = await sourceError(open(`http://127.0.0.1:${port}/x.bin`).read(0, 10));
    expect(err.reason).toBe('upstream_failed');
    expect(err.message).toMatch(/refused the connection/);
  });

  // Timeouts are asserted by their outcome, never by a measured time (issue 22). The deadline is a
  // setTimeout: with fake timers it fires exactly when the clock reaches the configured time.
  it('a server that never answers → timeout at the configured time, not before; the connection is closed', async () => {
    const hang = await startHangServer();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      let settled = false;
      const read = sourceError(open(hang.url('/data.bin'), { timeoutMs: 300 }).read(0, 10)).finally(() => (settled = true));
      await hang.received(1);
      await vi.advanceTimersByTimeAsync(299);
      expect(settled, 'no timeout before the configured 300 ms').toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      const err = await read;
      expect(err.reason).toBe('timeout');
      expect(err.message).toContain('within 300 ms');
      // The request was abandoned: the server saw its connection closed, not left open.
      await hang.closedByClient(1);
      expect(hang.paths).toEqual(['/data.bin']);
    } finally {
      vi.useRealTimers();
      await hang.close();
    }
  });

  it('the timeout covers the whole read, not each step', async () => {
    // Two redirects of 200 ms each: every step is under 300 ms, the read is not. The range server's delays
    // are setTimeouts of this process too, so the fake clock drives both sides.
    a.setFault('/s1', { kind: 'redirect', location: '/s2', delayMs: 200 });
    a.setFault('/s2', { kind: 'redirect', location: '/data.bin', delayMs: 200 });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const arrived = async (n: number): Promise<void> => {
        while (a.requests.length < n) await new Promise((r) => setImmediate(r));
      };
      let settled = false;
      const read = sourceError(open(a.url('/s1'), { timeoutMs: 300 }).read(0, 10)).finally(() => (settled = true));
      await arrived(1);
      await vi.advanceTimersByTimeAsync(200); // /s1 answers its redirect at 200 ms …
      await arrived(2); // … and the read follows it at once
      await vi.advanceTimersByTimeAsync(99);
      expect(settled, 'no timeout before the configured 300 ms').toBe(false);
      await vi.advanceTimersByTimeAsync(1); // 300 ms: /s2 would answer at 400 ms
      const err = await read;
      expect(err.reason).toBe('timeout');
      expect(a.requests.map((r) => r.path)).toEqual(['/s1', '/s2']);
      await vi.advanceTimersByTimeAsync(100); // let /s2's handler finish (into a closed socket)
    } finally {
      vi.useRealTimers();
      a.setFault('/s1', undefined);
      a.setFault('/s2', undefined);
    }
  });

  it('a slow server within the timeout is fine', async () => {
    a.setServerFault({ kind: 'slow', delayMs: 100 });
    expectBytes(await open(a.url('/data.bin'), { timeoutMs: 30_000 }).read(0, 10), data, 0);
  });

  it('the caller can abort a read that hangs, and the connection is closed', async () => {
    const hang = await startHangServer();
    try {
      const ctl = new AbortController();
      // A deadline far beyond the test's timeout: only the caller's abort can end this read.
      const read = open(hang.url('/data.bin'), { timeoutMs: 3_600_000 }).read(0, 10, ctl.signal);
      await hang.received(1);
      ctl.abort();
      await expect(read).rejects.toMatchObject({ name: 'AbortError' });
      await hang.closedByClient(1);
    } finally {
      await hang.close();
    }
  });
});

describe('ETag pinning', () => {
  it('a different ETag on a later read → changed', async () => {
    a.setFile('/moving.bin', data);
    const src = open(a.url('/moving.bin'));
    await src.read(0, 10);
    a.setFile('/moving.bin', other); // same size, other bytes, other ETag
    const err = await sourceError(src.read(10, 10));
    expect(err.reason).toBe('changed');
  });

  it('a different size on a later read → changed (no ETag)', async () => {
    const plain = await startRangeServer({ etag: false, files: { '/x.bin': data } });
    try {
      const src = open(plain.url('/x.bin'));
      await src.read(0, 10);
      plain.setFile('/x.bin', data.subarray(0, 5_000));
      expect((await sourceError(src.read(10, 10))).reason).toBe('changed');
    } finally {
      await plain.close();
    }
  });

  it('exposes the pinned validator for the cache', async () => {
    const src = open(a.url('/data.bin'));
    expect(src.validator()).toBeUndefined();
    await src.read(0, 1);
    expect(src.validator()).toMatch(/^etag:"[0-9a-f]+"$/);
  });
});

describe('HttpSource.head', () => {
  it('asks for the first n bytes and learns the size from the same answer', async () => {
    const before = a.requests.length;
    const src = open(a.url('/data.bin'));
    const head = await src.head(4096);
    expectBytes(head, data, 0);
    expect(head.byteLength).toBe(4096);
    expect(await src.size()).toBe(10_000);
    expect(a.requests.slice(before).map((r) => r.range)).toEqual(['bytes=0-4095']);
  });

  it('takes a range the server clips to a shorter object: the whole object, one request', async () => {
    const before = a.requests.length;
    const src = open(a.url('/data.bin'));
    const head = await src.head(65_536);
    expect(head.byteLength).toBe(10_000);
    expectBytes(head, data, 0);
    expect(await src.size()).toBe(10_000);
    expect(a.requests.slice(before).map((r) => r.range)).toEqual(['bytes=0-65535']);
  });
});
