/** S3Source against a real S3-compatible server (s3rver), plus faults from the loopback range server. */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseS3Url, S3Source, s3SettingsFromEnv } from '../../src/source/s3.ts';
import type { S3SourceOptions } from '../../src/source/s3.ts';
import { startHangServer } from '../helpers/hang-server.ts';
import { startRangeServer } from '../helpers/range-server.ts';
import type { RangeServer } from '../helpers/range-server.ts';
import { startS3Server } from '../helpers/s3-server.ts';
import type { S3Server } from '../helpers/s3-server.ts';
import { bytes, sourceError } from './conformance.ts';

const data = bytes(20_000, 5);
let s3: S3Server;
let web: RangeServer;

const options = (extra: Partial<S3SourceOptions> = {}): S3SourceOptions => ({
  endpoint: s3.endpoint,
  region: s3.region,
  credentials: s3.credentials,
  timeoutMs: 5_000,
  maxBytes: 1 << 30,
  ...extra,
});

beforeAll(async () => {
  s3 = await startS3Server({ bucket: 'rasters', files: { 'cogs/elev data.tif': data, 'small.bin': 'hello' } });
  web = await startRangeServer();
});

// A timeout test that fails by its own timeout never reaches its finally: no fake clock for the next one.
afterEach(() => {
  vi.useRealTimers();
});

afterAll(async () => {
  await s3.close();
  await web.close();
});

describe('S3Source', () => {
  it('reads ranges of a key with a space in it, and learns the size from Content-Range', async () => {
    const src = new S3Source(new URL(s3.url('cogs/elev data.tif')), options());
    expect([...new Uint8Array(await src.read(1_000, 16))]).toEqual([...data.subarray(1_000, 1_016)]);
    expect(src.validator()).toMatch(/^"[0-9a-f]+"$/);
    expect(await src.size()).toBe(20_000);
  });

  it('gets the size with HeadObject when size() comes first', async () => {
    const src = new S3Source(new URL(s3.url('small.bin')), options());
    expect(await src.size()).toBe(5);
    expect(new TextDecoder().decode(await src.read(1, 3))).toBe('ell');
  });

  it('a missing key → not_found', async () => {
    const src = new S3Source(new URL(s3.url('nope.tif')), options());
    expect((await sourceError(src.read(0, 10))).reason).toBe('not_found');
    expect((await sourceError(src.size())).reason).toBe('not_found');
  });

  it('a missing bucket → not_found', async () => {
    const src = new S3Source(new URL('s3://no-such-bucket/x.tif'), options());
    expect((await sourceError(src.read(0, 10))).reason).toBe('not_found');
  });

  it('an object replaced between reads → changed', async () => {
    await s3.put('moving.bin', data);
    const src = new S3Source(new URL(s3.url('moving.bin')), options());
    await src.read(0, 10);
    await s3.put('moving.bin', bytes(20_000, 6));
    expect((await sourceError(src.read(10, 10))).reason).toBe('changed');
  });

  it('stops at maxBytes per source', async () => {
    const src = new S3Source(new URL(s3.url('cogs/elev data.tif')), options({ maxBytes: 1_000 }));
    await src.read(0, 800);
    expect((await sourceError(src.read(800, 800))).reason).toBe('too_large');
  });
});

describe('S3Source against a misbehaving endpoint', () => {
  // The range server stands in for an S3 endpoint: path-style GET /bucket/key with a Range header.
  // Asserted by its outcome, not a measured time (issue 22): the deadline is a setTimeout, so with fake
  // timers it fires exactly when the clock reaches the configured 300 ms.
  it('an endpoint that never answers → timeout at the configured time, not before; the connection is closed', async () => {
    const hang = await startHangServer();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const src = new S3Source(new URL('s3://b/k.tif'), options({ endpoint: hang.origin, timeoutMs: 300 }));
      let settled = false;
      const read = sourceError(src.read(0, 10)).finally(() => (settled = true));
      await hang.received(1);
      await vi.advanceTimersByTimeAsync(299);
      expect(settled, 'no timeout before the configured 300 ms').toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      const err = await read;
      expect(err.reason).toBe('timeout');
      expect(err.message).toContain('within 300 ms');
      // One request, abandoned: no retry behind the deadline's back, and the socket closed.
      await hang.closedByClient(1);
      expect(hang.paths).toEqual(['/b/k.tif']);
    } finally {
      vi.useRealTimers();
      await hang.close();
    }
  });

  it('403 → not_found (like http), 500 → upstream_failed', async () => {
    web.setServerFault({ kind: 'status', status: 403 });
    const forbidden = await sourceError(new S3Source(new URL('s3://b/k.tif'), options({ endpoint: web.origin })).read(0, 10));
    expect(forbidden.reason).toBe('not_found');
    expect(forbidden.message).toContain('403');
    web.setServerFault({ kind: 'status', status: 500 });
    const failed = await sourceError(new S3Source(new URL('s3://b/k.tif'), options({ endpoint: web.origin })).read(0, 10));
    expect(failed.reason).toBe('upstream_failed');
    web.setServerFault(undefined);
  });
});

describe('S3 settings', () => {
  it('reads the standard AWS variables', () => {
    expect(s3SettingsFromEnv({})).toEqual({ endpoint: undefined, region: 'us-east-1' });
    expect(s3SettingsFromEnv({ AWS_ENDPOINT_URL: 'http://minio:9000', AWS_REGION: 'eu-west-1' })).toEqual({
      endpoint: 'http://minio:9000',
      region: 'eu-west-1',
    });
    expect(s3SettingsFromEnv({ AWS_ENDPOINT_URL: 'http://a', AWS_ENDPOINT_URL_S3: 'http://b' }).endpoint).toBe('http://b');
  });

  it('parses s3://bucket/key and refuses incomplete URLs', () => {
    expect(parseS3Url(new URL('s3://bucket/a/b%20c.tif'))).toEqual({ bucket: 'bucket', key: 'a/b c.tif' });
    expect(parseS3Url(new URL('s3://bucket/'))).toBeUndefined();
    expect(parseS3Url(new URL('s3://bucket'))).toBeUndefined();
    expect(parseS3Url(new URL('http://bucket/key'))).toBeUndefined();
  });
});
