/**
 * Results under an S3 prefix: `<prefix>/<job id>/part-000042.ndjson`, each part one PutObject (S3 never
 * shows half an object: a reader sees the old part or the whole new one, and of two writers one whole copy
 * stays). The object calls are source/s3.ts's (the one file importing the AWS SDK), a deadline on each.
 */
import { objectCalls, type ObjectCalls } from '../source/s3.ts';
import { checkJobId, PartMissingError, partName, partsOf } from './results-names.ts';

/** A ResultsStore (results.ts) in `bucket` under `prefix` (no leading or trailing slash; may be empty). */
export class S3Results {
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

  /** The job's key prefix (ending in `/`, so no other job's keys share it), or one part's key. */
  #key(jobId: string, name = ''): string {
    return `${this.prefix ? `${this.prefix}/` : ''}${checkJobId(jobId)}/${name}`;
  }

  async putPart(jobId: string, part: number, bytes: Uint8Array): Promise<void> {
    await this.#calls.put(this.bucket, this.#key(jobId, partName(part)), bytes);
  }

  async *readPart(jobId: string, part: number, signal?: AbortSignal): AsyncIterable<Uint8Array> {
    const body = await this.#calls.get(this.bucket, this.#key(jobId, partName(part)), signal);
    if (!body) throw new PartMissingError(jobId, part);
    yield* body;
  }

  async listParts(jobId: string): Promise<number[]> {
    const prefix = this.#key(jobId);
    const keys = await this.#calls.list(this.bucket, prefix);
    return partsOf(keys.map((k) => k.slice(prefix.length)));
  }

  async deleteJob(jobId: string): Promise<void> {
    const keys = await this.#calls.list(this.bucket, this.#key(jobId));
    if (keys.length > 0) await this.#calls.remove(this.bucket, keys);
  }
}
