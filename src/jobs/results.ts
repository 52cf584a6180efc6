/**
 * Where the parts of a job's results go (ZONAL_RESULTS_URL): a folder (results-file.ts) or an S3 prefix
 * (results-s3.ts); openResultsStore opens the one the URL names. A part is written whole or not at all, so a
 * task run twice leaves one complete part; parts are read back one by one, in order. Every call checks the
 * job id (a UUID, results-names.ts), so no id can name anything outside its job.
 */
import { fileURLToPath } from 'node:url';
import { FileResults } from './results-file.ts';
import { S3Results } from './results-s3.ts';

export { PartMissingError } from './results-names.ts';

export interface ResultsStore {
  /** Where results go, for logs (never credentials). */
  readonly location: string;
  /** Writes part `part` of job `jobId` atomically; writing the same part twice leaves one complete copy. */
  putPart(jobId: string, part: number, bytes: Uint8Array): Promise<void>;
  /** The part's bytes, streamed; throws PartMissingError when there is none. */
  readPart(jobId: string, part: number, signal?: AbortSignal): AsyncIterable<Uint8Array>;
  /** Which parts exist (sorted). */
  listParts(jobId: string): Promise<number[]>;
  /** Removes every part of the job (and its folder/prefix); no error when there is nothing. */
  deleteJob(jobId: string): Promise<void>;
}

export interface ResultsStoreOptions {
  /** Deadline of each call to S3 (for a read: until the answer, then between two chunks), ms: the config's upstreamTimeoutMs. */
  timeoutMs: number;
}

const FORMS = 'ZONAL_RESULTS_URL must be file:///absolute/folder or s3://bucket/prefix';

/** The store `url` names: `file:///absolute/folder` or `s3://bucket/prefix` (the prefix may be empty). */
export function openResultsStore(url: string, options: ResultsStoreOptions): ResultsStore {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  if (scheme === 'file') return new FileResults(folderOf(url));
  if (scheme === 's3') {
    const { bucket, prefix } = bucketOf(url);
    return new S3Results(bucket, prefix, options.timeoutMs);
  }
  throw new Error(`${FORMS}${scheme ? ` (not a ${scheme}: URL)` : ''}.`);
}

function folderOf(url: string): string {
  // file:results or file://host/… would be a relative or remote folder, whatever the URL parser makes of them.
  if (!/^file:\/\/(localhost)?\//i.test(url)) throw new Error(`${FORMS}: a file: URL names an absolute folder, as file:///srv/results.`);
  try {
    return fileURLToPath(url);
  } catch {
    throw new Error(`${FORMS}: its file: URL is not a folder of this machine.`);
  }
}

function bucketOf(url: string): { bucket: string; prefix: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`${FORMS}: its s3: URL cannot be read.`);
  }
  // Credentials never go in the URL (the AWS_* variables give them), nor a query: both are refused, and not echoed.
  if (parsed.username || parsed.password || parsed.search || parsed.hash) {
    throw new Error(`${FORMS}: an s3: URL has no user, password, query or fragment (credentials come from the AWS_* variables).`);
  }
  if (parsed.hostname === '') throw new Error(`${FORMS}: an s3: URL names its bucket, as s3://bucket/prefix.`);
  let prefix: string;
  try {
    prefix = decodeURIComponent(parsed.pathname);
  } catch {
    throw new Error(`${FORMS}: its s3: prefix is not valid percent-encoding.`);
  }
  return { bucket: parsed.hostname, prefix: prefix.replace(/^\/+|\/+$/g, '') };
}
