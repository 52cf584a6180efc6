/** Results under an S3 prefix: `<prefix>/<job id>/part-000042.ndjson`, each one PUT (S3 never shows half an object). */
import { objectCalls, type ObjectCalls } from '../source/s3.ts';
import { checkJobId, PartMissingError, partName, partOf, type ResultsStore } from './results.ts';

export class S3Results implements ResultsStore {
  readonly #calls: ObjectCalls;

  constructor(
    private readonly bucket: string,
    private readonly prefix: string,
    timeoutMs: number,
  ) {
    this.#calls = objectCalls(timeoutMs);
  }

  get location(): string {
    return `s3://${this.bucket}/${this.prefix}`;
  }

  #key(jobId: string, name = ''): string {
    return `${this.prefix ? `${this.prefix}/` : ''}${checkJobId(jobId)}/${name}`;
  }

  async putPart(jobId: string, part: number, bytes: Uint8Array): Promise<void> {
    await this.#calls.put(this.bucket, this.#key(jobId, partName(part)), bytes);
  }

  async *readPart(jobId: string, part: number, signal?: AbortSignal): AsyncIterable<Uint8Array> {
    const body = await this.#calls.get(this.bucket, this.#key(jobId, partName(part)), signal);
    if (!body) throw new PartMissingError(`Part ${part} of job ${jobId} is missing.`);
    yield* body;
  }

  async listParts(jobId: string): Promise<number[]> {
    const keys = await this.#calls.list(this.bucket, this.#key(jobId));
    return keys
      .map((k) => partOf(k.slice(k.lastIndexOf('/') + 1)))
      .filter((p): p is number => p !== undefined)
      .sort((a, b) => a - b);
  }

  async deleteJob(jobId: string): Promise<void> {
    const keys = await this.#calls.list(this.bucket, this.#key(jobId));
    if (keys.length > 0) await this.#calls.remove(this.bucket, keys);
  }
}
