/**
 * The results stores, one suite for both: a real folder, and a real S3-compatible server (s3rver). A part is
 * whole or absent, written twice it is one part, parts list in order, a job's parts go together, and no job id
 * can name anything outside its job.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileResults } from '../../src/jobs/results-file.ts';
import { S3Results } from '../../src/jobs/results-s3.ts';
import { PartMissingError, type ResultsStore } from '../../src/jobs/results.ts';
import { startS3Server, useS3Env, type S3Server } from '../helpers/s3-server.ts';

async function bytesOf(parts: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of parts) chunks.push(Buffer.from(c));
  return Buffer.concat(chunks);
}

describe.each(['file', 's3'] as const)('results store: %s', (kind) => {
  let store: ResultsStore;
  let folder: string;
  let s3: S3Server | undefined;
  let restore: (() => void) | undefined;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'zonal-results-'));
    if (kind === 's3') {
      s3 = await startS3Server({ bucket: 'results' });
      restore = useS3Env(s3);
      store = new S3Results('results', 'some/prefix', 10_000);
    } else store = new FileResults(folder);
  });

  afterAll(async () => {
    restore?.();
    await s3?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('reads back a 3 MiB part byte for byte; the same part written twice is one part, the later copy', async () => {
    const job = randomUUID();
    const first = randomBytes(3 * 1024 * 1024);
    await store.putPart(job, 0, first);
    expect((await bytesOf(store.readPart(job, 0))).equals(first)).toBe(true);
    const again = randomBytes(1000);
    await store.putPart(job, 0, again);
    expect(await store.listParts(job)).toEqual([0]);
    expect((await bytesOf(store.readPart(job, 0))).equals(again)).toBe(true);
  });

  it('lists parts in order (not a temporary file left by a task that died), and says which part is missing', async () => {
    const job = randomUUID();
    for (const p of [2, 0, 11]) await store.putPart(job, p, new TextEncoder().encode(`${p}\n`));
    if (kind === 'file') writeFileSync(join(folder, job, 'part-000005.ndjson.tmp-abc'), 'half');
    expect(await store.listParts(job)).toEqual([0, 2, 11]);
    await expect(bytesOf(store.readPart(job, 5))).rejects.toBeInstanceOf(PartMissingError);
  });

  it('two writers of one part at once leave one whole copy', async () => {
    const job = randomUUID();
    const a = Buffer.alloc(2 * 1024 * 1024, 1);
    const b = Buffer.alloc(2 * 1024 * 1024, 2);
    await Promise.all([store.putPart(job, 3, a), store.putPart(job, 3, b)]);
    const got = await bytesOf(store.readPart(job, 3));
    expect(got.equals(a) || got.equals(b)).toBe(true);
    if (kind === 'file') expect(readdirSync(join(folder, job))).toEqual(['part-000003.ndjson']);
  });

  it("deletes a job's parts, and deleting again or an unknown job is no error", async () => {
    const job = randomUUID();
    await store.putPart(job, 0, new Uint8Array([1]));
    await store.putPart(job, 1, new Uint8Array([2]));
    await store.deleteJob(job);
    expect(await store.listParts(job)).toEqual([]);
    await store.deleteJob(job);
    await store.deleteJob(randomUUID());
  });

  it('refuses a job id that is not a UUID (no name can leave its job)', async () => {
    await expect(store.putPart('../escape', 0, new Uint8Array([1]))).rejects.toThrow(/Not a job id/);
    await expect(store.deleteJob('..')).rejects.toThrow(/Not a job id/);
  });
});
