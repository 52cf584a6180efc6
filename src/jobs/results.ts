/**
 * Where the parts of a job's results go (ZONAL_RESULTS_URL): a folder (results-file.ts) or an S3 prefix
 * (results-s3.ts); engine.ts opens the one configured. A part is written whole or not at all, so a task run twice leaves one complete part;
 * parts are read back one by one, in order.
 */
export interface ResultsStore {
  /** Where results go, for logs (never credentials). */
  readonly location: string;
  /** Writes part `part` of job `jobId` atomically; writing the same part twice leaves one complete copy. */
  putPart(jobId: string, part: number, bytes: Uint8Array): Promise<void>;
  /** The part's bytes, streamed; PartMissingError when there is none. */
  readPart(jobId: string, part: number, signal?: AbortSignal): AsyncIterable<Uint8Array>;
  /** Which parts exist, sorted. */
  listParts(jobId: string): Promise<number[]>;
  /** Removes every part of the job; nothing to remove is no error. */
  deleteJob(jobId: string): Promise<void>;
}

export class PartMissingError extends Error {}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A job id as a path segment: a UUID and nothing else, so no name leaves the job's folder. */
export function checkJobId(jobId: string): string {
  if (!UUID.test(jobId)) throw new Error(`Not a job id: ${JSON.stringify(jobId.slice(0, 64))}.`);
  return jobId;
}

export function partName(part: number): string {
  if (!Number.isInteger(part) || part < 0) throw new Error(`Not a part number: ${part}.`);
  return `part-${String(part).padStart(6, '0')}.ndjson`;
}

/** The part number of a name partName gave, else undefined (a temporary file, anything else). */
export function partOf(name: string): number | undefined {
  const m = /^part-(\d{6,})\.ndjson$/.exec(name);
  return m ? Number(m[1]) : undefined;
}
