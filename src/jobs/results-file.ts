/** Results in a folder: `<root>/<job id>/part-000042.ndjson`, each written to a temporary name, synced, then renamed over. */
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { checkJobId, PartMissingError, partName, partOf, type ResultsStore } from './results.ts';

export class FileResults implements ResultsStore {
  constructor(private readonly root: string) {}

  get location(): string {
    return this.root;
  }

  async putPart(jobId: string, part: number, bytes: Uint8Array): Promise<void> {
    const folder = join(this.root, checkJobId(jobId));
    await mkdir(folder, { recursive: true });
    const final = join(folder, partName(part));
    const temp = `${final}.tmp-${randomBytes(6).toString('hex')}`;
    const handle = await open(temp, 'w');
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    // rename is atomic within a folder: a reader sees no part, or the whole of one.
    await rename(temp, final);
  }

  async *readPart(jobId: string, part: number, signal?: AbortSignal): AsyncIterable<Uint8Array> {
    const path = join(this.root, checkJobId(jobId), partName(part));
    const stream = createReadStream(path, signal ? { signal } : {});
    try {
      for await (const chunk of stream) yield chunk as Buffer;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new PartMissingError(`Part ${part} of job ${jobId} is missing.`);
      throw e;
    }
  }

  async listParts(jobId: string): Promise<number[]> {
    const names = await readdir(join(this.root, checkJobId(jobId))).catch(() => [] as string[]);
    return names
      .map(partOf)
      .filter((p): p is number => p !== undefined)
      .sort((a, b) => a - b);
  }

  async deleteJob(jobId: string): Promise<void> {
    await rm(join(this.root, checkJobId(jobId)), { recursive: true, force: true });
  }
}
