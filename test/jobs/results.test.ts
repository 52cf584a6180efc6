/**
 * The results stores, one suite for both, opened by their ZONAL_RESULTS_URL: a real folder, and a real
 * S3-compatible server (s3rver). A part is whole or absent, written twice it is one part, parts list in order
 * (what is not a part left out), a job's parts go together, a slow reader is not cut off, and no job id can
 * name anything outside its job. Then the deadlines of S3 calls, and the URLs refused.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openResultsStore, PartMissingError, type ResultsStore } from '../../src/jobs/results.ts';
import { objectCalls } from '../../src/source/s3.ts';
import { startHangServer } from '../helpers/hang-server.ts';
import { startS3Server, useS3Env, type S3Server } from '../helpers/s3-server.ts';

async function bytesOf(parts: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of parts) chunks.push(Buffer.from(c));
  return Buffer.concat(chunks);
}

const text = (s: string): Uint8Array => new TextEncoder().encode(s);

describe.each(['file', 's3'] as const)('results store: %s', (kind) => {
  let store: ResultsStore;
  let folder: string;
  let root: string;
  let s3: S3Server | undefined;
  let restore: (() => void) | undefined;

  /** The names under the job's folder or prefix, as the backend has them (a missing folder: none). */
  async function namesOf(job: string): Promise<string[]> {
    if (kind === 'file') return existsSync(join(root, job)) ? readdirSync(join(root, job)).sort() : [];
    const prefix = `some/prefix/${job}/`;
    return (await objectCalls(10_000).list('results', prefix)).map((k) => k.slice(prefix.length)).sort();
  }

  /** Leaves a name that is not a part next to the parts (a task that died mid-write, something else). */
  async function plant(job: string, name: string): Promise<void> {
    if (kind === 'file') writeFileSync(join(root, job, name), 'half');
    else await s3?.put(`some/prefix/${job}/${name}`, 'half');
  }

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'zonal-results-'));
    // A root that does not exist yet: the store makes it.
    root = join(folder, 'not', 'yet');
    if (kind === 's3') {
      s3 = await startS3Server({ bucket: 'results' });
      restore = useS3Env(s3);
      store = openResultsStore('s3://results/some/prefix/', { timeoutMs: 10_000 });
    } else store = openResultsStore(pathToFileURL(root).href, { timeoutMs: 10_000 });
  });

  afterAll(async () => {
    restore?.();
    await s3?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('says where it is, and names a part <job>/part-000042.ndjson', async () => {
    expect(store.location).toBe(kind === 'file' ? root : 's3://results/some/prefix');
    const job = randomUUID();
    await store.putPart(job, 42, text('{"a":1}\n'));
    expect(await namesOf(job)).toEqual(['part-000042.ndjson']);
    expect((await bytesOf(store.readPart(job, 42))).toString()).toBe('{"a":1}\n');
  });

  it('reads back a 3 MiB part byte for byte; the same part written twice is one part; a rewrite is the later copy', async () => {
    const job = randomUUID();
    const first = randomBytes(3 * 1024 * 1024);
    await store.putPart(job, 0, first);
    expect((await bytesOf(store.readPart(job, 0))).equals(first)).toBe(true);
    await store.putPart(job, 0, first);
    expect(await store.listParts(job)).toEqual([0]);
    expect(await namesOf(job)).toEqual(['part-000000.ndjson']);
    expect((await bytesOf(store.readPart(job, 0))).equals(first)).toBe(true);
    const again = randomBytes(1000);
    await store.putPart(job, 0, again);
    expect(await namesOf(job)).toEqual(['part-000000.ndjson']);
    expect((await bytesOf(store.readPart(job, 0))).equals(again)).toBe(true);
  });

  it('lists parts in order, not what is not a part, and says which part is missing', async () => {
    const job = randomUUID();
    for (const p of [2, 0, 11, 1_000_000]) await store.putPart(job, p, text(`${p}\n`));
    await plant(job, 'part-000005.ndjson.tmp-abc');
    await plant(job, 'notes.txt');
    expect(await store.listParts(job)).toEqual([0, 2, 11, 1_000_000]);
    expect((await bytesOf(store.readPart(job, 1_000_000))).toString()).toBe('1000000\n');
    const missing = await bytesOf(store.readPart(job, 5)).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(PartMissingError);
    expect((missing as Error).message).toBe(`Part 5 of job ${job} is missing.`);
    const unknown = randomUUID();
    expect(await store.listParts(unknown)).toEqual([]);
    await expect(bytesOf(store.readPart(unknown, 0))).rejects.toBeInstanceOf(PartMissingError);
  });

  // The folder store's own atomicity (temporary name, then rename). On S3 a PUT is atomic by the service and
  // the store sends each part in one PUT; s3rver, the test's S3, writes a PUT's body straight into its file,
  // so two PUTs at once interleave there (a failure of the test server seen in CI, not of the store).
  it.runIf(kind === 'file')('two writers of one part at once leave one whole copy, one of theirs', async () => {
    const job = randomUUID();
    const a = Buffer.alloc(2 * 1024 * 1024, 1);
    const b = Buffer.alloc(2 * 1024 * 1024, 2);
    await Promise.all([store.putPart(job, 3, a), store.putPart(job, 3, b)]);
    const got = await bytesOf(store.readPart(job, 3));
    expect(got.equals(a) || got.equals(b)).toBe(true);
    expect(await namesOf(job)).toEqual(['part-000003.ndjson']);
  });

  it("deletes a job's parts and whatever else is under it; deleting again or an unknown job is no error", async () => {
    const job = randomUUID();
    const other = randomUUID();
    await store.putPart(job, 0, new Uint8Array([1]));
    await store.putPart(job, 1, new Uint8Array([2]));
    await plant(job, 'part-000002.ndjson.tmp-abc');
    await store.putPart(other, 0, new Uint8Array([3]));
    await store.deleteJob(job);
    expect(await store.listParts(job)).toEqual([]);
    expect(await namesOf(job)).toEqual([]);
    if (kind === 'file') expect(existsSync(join(root, job))).toBe(false);
    await store.deleteJob(job);
    await store.deleteJob(randomUUID());
    expect(await store.listParts(other)).toEqual([0]);
  });

  it('a reader that takes its time is not cut off by the deadline (it runs only while the store is awaited)', async () => {
    const slow = openResultsStore(kind === 'file' ? pathToFileURL(root).href : 's3://results/some/prefix', { timeoutMs: 150 });
    const job = randomUUID();
    const data = randomBytes(4 * 1024 * 1024);
    await store.putPart(job, 0, data);
    const chunks: Buffer[] = [];
    for await (const c of slow.readPart(job, 0)) {
      if (chunks.length === 0) await new Promise((resolve) => setTimeout(resolve, 600));
      chunks.push(Buffer.from(c));
    }
    expect(Buffer.concat(chunks).equals(data)).toBe(true);
  });

  it("a read given up by its caller ends with the caller's reason", async () => {
    const job = randomUUID();
    await store.putPart(job, 0, randomBytes(1024 * 1024));
    const stop = new AbortController();
    stop.abort(new Error('gone'));
    await expect(bytesOf(store.readPart(job, 0, stop.signal))).rejects.toThrow('gone');
    const reading = new AbortController();
    const parts = store.readPart(job, 0, reading.signal)[Symbol.asyncIterator]();
    await parts.next();
    reading.abort(new Error('gone'));
    await expect(
      (async () => {
        for (let r = await parts.next(); !r.done; r = await parts.next());
      })(),
    ).rejects.toThrow('gone');
  });

  it('refuses a job id that is not a UUID, and a part number that is not one (no name can leave its job)', async () => {
    const ids = ['../x', '..', '', '.', randomUUID().toUpperCase(), `${randomUUID()}/..`, `../${randomUUID().slice(3)}`, '-'.repeat(36)];
    for (const id of ids) {
      await expect(store.putPart(id, 0, new Uint8Array([1])), id).rejects.toThrow(/Not a job id/);
      await expect(bytesOf(store.readPart(id, 0)), id).rejects.toThrow(/Not a job id/);
      await expect(store.listParts(id), id).rejects.toThrow(/Not a job id/);
      await expect(store.deleteJob(id), id).rejects.toThrow(/Not a job id/);
    }
    for (const part of [-1, 1.5, Number.NaN]) await expect(store.putPart(randomUUID(), part, new Uint8Array([1]))).rejects.toThrow(/Not a part number/);
    if (kind === 'file') expect(readdirSync(folder)).toEqual(['not']);
  });
});

describe('results store on S3: deadlines', () => {
  it('gives up each call on a server that never answers, with a sentence naming the call', async () => {
    const hang = await startHangServer();
    const saved = { endpoint: process.env['AWS_ENDPOINT_URL'], key: process.env['AWS_ACCESS_KEY_ID'], secret: process.env['AWS_SECRET_ACCESS_KEY'] };
    Object.assign(process.env, { AWS_ENDPOINT_URL: hang.origin, AWS_ACCESS_KEY_ID: 'k', AWS_SECRET_ACCESS_KEY: 's' });
    try {
      const store = openResultsStore('s3://results/p', { timeoutMs: 200 });
      const job = randomUUID();
      await expect(store.putPart(job, 7, new Uint8Array([1]))).rejects.toThrow(
        `Could not write s3://results/p/${job}/part-000007.ndjson: the S3 server did not answer within 200 ms.`,
      );
      await expect(bytesOf(store.readPart(job, 7))).rejects.toThrow(/^Could not read .* within 200 ms\.$/);
      await expect(store.listParts(job)).rejects.toThrow(/^Could not list .* within 200 ms\.$/);
      await expect(store.deleteJob(job)).rejects.toThrow(/^Could not list .* within 200 ms\.$/);
      await hang.closedByClient(4);
    } finally {
      for (const [name, value] of [
        ['AWS_ENDPOINT_URL', saved.endpoint],
        ['AWS_ACCESS_KEY_ID', saved.key],
        ['AWS_SECRET_ACCESS_KEY', saved.secret],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      await hang.close();
    }
  });
});

describe('openResultsStore', () => {
  it('opens a folder or a bucket and prefix', () => {
    expect(openResultsStore('file:///srv/zonal%20results/', { timeoutMs: 1 }).location).toBe('/srv/zonal results/');
    expect(openResultsStore('file://localhost/srv/r', { timeoutMs: 1 }).location).toBe('/srv/r');
    expect(openResultsStore('s3://bucket', { timeoutMs: 1 }).location).toBe('s3://bucket/');
    expect(openResultsStore('s3://bucket/', { timeoutMs: 1 }).location).toBe('s3://bucket/');
    expect(openResultsStore('s3://bucket//a%20b/c//', { timeoutMs: 1 }).location).toBe('s3://bucket/a b/c');
  });

  it.each([
    ['/srv/results', /^ZONAL_RESULTS_URL must be file:\/\/\/absolute\/folder or s3:\/\/bucket\/prefix\.$/],
    ['results', /ZONAL_RESULTS_URL must be/],
    ['', /ZONAL_RESULTS_URL must be/],
    ['http://host/results', /\(not a http: URL\)/],
    ['file:results', /absolute folder/],
    ['file://host/results', /absolute folder/],
    ['file:///srv/a%2Fb', /not a folder of this machine/],
    ['s3:///prefix', /names its bucket/],
    ['s3:bucket/prefix', /names its bucket/],
    ['s3://bucket/prefix?versionId=1', /no user, password, query/],
  ])('refuses %j, naming ZONAL_RESULTS_URL and the forms it takes', (url, message) => {
    expect(() => openResultsStore(url, { timeoutMs: 1 })).toThrow(message);
  });

  it('refuses credentials in an s3: URL without repeating them', () => {
    let error: unknown;
    try {
      openResultsStore('s3://AKIAEXAMPLE:s3cr3t@bucket/prefix', { timeoutMs: 1 });
    } catch (e) {
      error = e;
    }
    expect((error as Error).message).toMatch(/AWS_\* variables/);
    expect((error as Error).message).not.toMatch(/s3cr3t|AKIAEXAMPLE/);
  });
});
