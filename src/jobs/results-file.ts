/**
 * Results in a folder: `<root>/<job id>/part-000042.ndjson`. A part is written to a temporary name in the
 * same folder (`….tmp-<random>`), synced, then renamed over the final name, so a reader sees no part or a
 * whole one, and two writers of one part leave one whole copy. The root is made when missing.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { checkJobId, PartMissingError, partName, partsOf } from './results-names.ts';

const isMissing = (e: unknown): boolean => (e as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';

/** A ResultsStore (results.ts) in the folder `root` (absolute). */
export class FileResults {
  constructor(private readonly root: string) {}

  get location(): string {
    return this.root;
  }

  async putPart(jobId: string, part: number, bytes: Uint8Array): Promise<void> {
    const folder = join(this.root, checkJobId(jobId));
    const final = join(folder, partName(part));
    const temp = `${final}.tmp-${randomBytes(6).toString('hex')}`;
    await mkdir(folder, { recursive: true });
    try {
      const handle = await open(temp, 'wx');
      try {
        await handle.writeFile(bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
      // rename is atomic within a folder: a reader sees the old part, or the whole new one.
      await rename(temp, final);
    } catch (e) {
      await rm(temp, { force: true }).catch(() => undefined);
      throw e;
    }
  }

  async *readPart(jobId: string, part: number, signal?: AbortSignal): AsyncIterable<Uint8Array> {
    const path = join(this.root, checkJobId(jobId), partName(part));
    const stream = createReadStream(path, signal ? { signal } : {});
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) yield chunk;
    } catch (e) {
      if (signal?.aborted) throw signal.reason ?? e;
      if (isMissing(e)) throw new PartMissingError(jobId, part);
      throw e;
    } finally {
      stream.destroy();
    }
  }

  async listParts(jobId: string): Promise<number[]> {
    try {
      // Temporary files (a task that died mid-write) are not parts.
      return partsOf(await readdir(join(this.root, checkJobId(jobId))));
    } catch (e) {
      if (isMissing(e)) return [];
      throw e;
    }
  }

  async deleteJob(jobId: string): Promise<void> {
    await rm(join(this.root, checkJobId(jobId)), { recursive: true, force: true });
  }
}
