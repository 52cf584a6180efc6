/** openSource (URL → wrapped source) and the SourceError → contract error table. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import type { Config } from '../../src/config.ts';
import { ZonalError } from '../../src/errors.ts';
import { SourceRangeError, toZonalError } from '../../src/source/errors.ts';
import { openSource } from '../../src/source/resolve.ts';
import { SourceError } from '../../src/source/source.ts';
import type { ReadStats, SourceErrorReason } from '../../src/source/source.ts';
import { startRangeServer } from '../helpers/range-server.ts';
import type { RangeServer } from '../helpers/range-server.ts';
import { bytes } from './conformance.ts';

let dir: string;
let web: RangeServer;
let config: Config;
const data = bytes(8_192, 21);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'resolve-'));
  await writeFile(join(dir, 'a.bin'), data);
  web = await startRangeServer({ files: { '/a.bin': data } });
  config = { ...loadConfig({}), dataRoots: [dir], allowPrivateNetworks: ['127.0.0.1/32'], upstreamTimeoutMs: 2_000 };
});

afterAll(async () => {
  await web.close();
  await rm(dir, { recursive: true, force: true });
});

const stats = (): ReadStats => ({ requests: 0, bytes: 0 });

async function zonalError(p: Promise<unknown>): Promise<ZonalError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ZonalError);
    return e as ZonalError;
  }
  throw new Error('expected a ZonalError');
}

describe('openSource', () => {
  it('opens a file inside the data roots and counts upstream reads only', async () => {
    const s = stats();
    const src = await openSource(pathToFileURL(join(dir, 'a.bin')).href, { ...config, cacheBytes: 1 << 20 }, { stats: s });
    expect(await src.size()).toBe(8_192);
    expect([...new Uint8Array(await src.read(10, 5))]).toEqual([...data.subarray(10, 15)]);
    await src.read(10, 5); // a cache hit
    expect(s).toEqual({ requests: 1, bytes: 5 });
  });

  it('opens an http URL allowed by the CIDR list', async () => {
    const s = stats();
    const src = await openSource(web.url('/a.bin'), config, { stats: s });
    expect([...new Uint8Array(await src.read(100, 4))]).toEqual([...data.subarray(100, 104)]);
    expect(s.requests).toBe(1);
  });

  it('counts every read when the cache is disabled', async () => {
    const s = stats();
    const src = await openSource(web.url('/a.bin'), { ...config, cacheBytes: 0 }, { stats: s });
    await src.read(0, 4);
    await src.read(0, 4);
    expect(s).toEqual({ requests: 2, bytes: 8 });
  });

  it.each([
    ['not a url', 'validation_failed', 422],
    ['/relative/path.tif', 'validation_failed', 422],
    ['ftp://example.com/a.tif', 'unsupported_protocol', 422],
    ['gs://bucket/a.tif', 'unsupported_protocol', 422],
    ['data:,hello', 'unsupported_protocol', 422],
    ['s3://bucket-only', 'validation_failed', 422],
    ['http://10.0.0.1/a.tif', 'url_forbidden', 403],
    ['http://[::1]/a.tif', 'url_forbidden', 403],
    ['http://169.254.169.254/latest/meta-data/', 'url_forbidden', 403],
    ['http://[::ffff:169.254.169.254]/', 'url_forbidden', 403],
    ['http://0x7f000002/', 'url_forbidden', 403], // WHATWG URL turns this into 127.0.0.2
    ['file:///etc/passwd', 'url_forbidden', 403],
  ] as const)('%s → %s (%i)', async (url, code, status) => {
    const err = await zonalError(openSource(url, config, { stats: stats() }));
    expect(err.code).toBe(code);
    expect(err.status).toBe(status);
  });

  it('a missing file → source_not_found without the server path', async () => {
    const err = await zonalError(openSource(pathToFileURL(join(dir, 'gone.tif')).href, config, { stats: stats() }));
    expect(err.code).toBe('source_not_found');
    expect(err.detail).toContain('gone.tif');
    expect(err.detail).not.toContain(dir);
  });

  it('a host name refused by the policy fails on the first read as forbidden', async () => {
    const src = await openSource(web.url('/a.bin').replace('127.0.0.1', 'localhost'), { ...config, allowPrivateNetworks: false }, { stats: stats() });
    const e = await src.read(0, 1).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(SourceError);
    expect(toZonalError(e as SourceError).code).toBe('url_forbidden');
  });
});

describe('toZonalError', () => {
  it.each([
    ['not_found', 'source_not_found', 422],
    ['forbidden', 'url_forbidden', 403],
    ['upstream_failed', 'upstream_failed', 502],
    ['timeout', 'upstream_timeout', 504],
    ['too_large', 'source_too_large', 422],
    ['changed', 'source_changed', 502],
  ] as const)('%s → %s (%i)', (reason: SourceErrorReason, code, status) => {
    const z = toZonalError(new SourceError(reason, 'A sentence.', 500));
    expect(z.code).toBe(code);
    expect(z.status).toBe(status);
    expect(z.detail).toBe('A sentence.');
  });

  it('a read past the end is an invalid source (422)', () => {
    const z = toZonalError(new SourceRangeError(100, 50, 120));
    expect(z.code).toBe('invalid_source');
    expect(z.status).toBe(422);
    expect(z.detail).toMatch(/120 bytes long/);
  });

  it('gives a default sentence when the message is empty', () => {
    expect(toZonalError(new SourceError('timeout', '')).detail).toBe('The source did not answer in time.');
  });
});

describe('openSource byte budget', () => {
  it('bounds the bytes one opened source returns, cache hits included', async () => {
    const src = await openSource(pathToFileURL(join(dir, 'a.bin')).href, { ...config, maxSourceBytes: 1_024, cacheBytes: 1 << 20 }, { stats: stats() });
    await src.read(0, 1_000);
    const e = await src.read(0, 100).catch((x: unknown) => x);
    expect(toZonalError(e as SourceError).code).toBe('source_too_large');
  });
});
