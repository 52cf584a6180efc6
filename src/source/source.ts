/**
 * The byte-source seam: everything that reads a COG, a Parquet file or a STAC Item sees only this.
 * Backends (http, s3, file, memory) live one per file beside it; wrappers (cache.ts, counting.ts) take a
 * ByteSource and return one.
 */

/** Why a source read failed; mapped to a contract status in `toZonalError` (src/source/errors.ts). */
export type SourceErrorReason =
  | 'not_found' // upstream 404 / no such key / no such file → 422 source_not_found
  | 'forbidden' // refused by our policy (private address, outside data roots) → 403 url_forbidden
  | 'upstream_failed' // 5xx, refused, reset, truncated, upstream 401/403 → 502 (401/403 upstream → 422 source_not_found)
  | 'timeout' // no answer within the configured timeout → 504
  | 'too_large' // a read or the object exceeds a byte cap → 422 source_too_large
  | 'changed'; // the object changed between reads (ETag/Last-Modified differ) → 502 source_changed

export class SourceError extends Error {
  readonly reason: SourceErrorReason;
  /** Upstream HTTP status when there was one (for logs only; never echoed to clients). */
  readonly upstreamStatus: number | undefined;

  constructor(reason: SourceErrorReason, message: string, upstreamStatus?: number) {
    super(message);
    this.name = 'SourceError';
    this.reason = reason;
    this.upstreamStatus = upstreamStatus;
  }
}

/**
 * Random access to the bytes of one object. `read` returns exactly `length` bytes or throws a
 * SourceError (a short read is an error inside the source, so readers never check it). Every member is
 * required: a backend without redirects or without a one-request head says so by its plain answer
 * (`location()` is `url`, `head` is `headBySize`), so that callers never test or cast.
 */
export interface ByteSource {
  /** Identity for cache keys and logs. For file:// never echoed to clients. */
  readonly url: URL;
  /** Total size in bytes, memoised; learnt from the first ranged read's Content-Range where possible. */
  size(signal?: AbortSignal): Promise<number>;
  /** Exactly `length` bytes from `offset` (offset ≥ 0, offset + length ≤ size). */
  read(offset: number, length: number, signal?: AbortSignal): Promise<ArrayBuffer>;
  /**
   * The first min(maxLength, size) bytes. HTTP learns the size from the same answer (it asks for a range the
   * server clips); backends that know their size at once read size() then the bytes (`headBySize`).
   */
  head(maxLength: number, signal?: AbortSignal): Promise<ArrayBuffer>;
  /**
   * The version of the object read so far (ETag or Last-Modified, else the size; file identity; memory
   * instance), the half of every cache key that makes a changed object miss. Undefined while the backend
   * cannot tell a change (before its first answer): then nothing read through it is cached.
   */
  validator(): string | undefined;
  /** The URL the bytes came from after redirects (the base of relative hrefs); `url` where there are none. */
  location(): URL;
}

/** `head` for a backend that knows its size without a read: size(), then one read. */
export async function headBySize(source: ByteSource, maxLength: number, signal?: AbortSignal): Promise<ArrayBuffer> {
  const size = await source.size(signal);
  return source.read(0, Math.min(size, maxLength), signal);
}

/**
 * The key of the object's current version in the caches above the source (URL + validator), or undefined
 * when the source cannot tell a change yet: then nothing may be cached for it.
 */
export function versionKey(source: ByteSource): string | undefined {
  const validator = source.validator();
  return validator === undefined ? undefined : `${source.url.href}\n${validator}`;
}

/** Counts what a request cost upstream, for the request log line and for tests. */
export interface ReadStats {
  requests: number;
  bytes: number;
}
