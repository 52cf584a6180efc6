/**
 * The byte-source seam (ARCHITECTURE §2): everything that reads a COG or a Parquet file sees only this.
 * Backends (http, s3, file, memory) live one per file beside it.
 */

/** Why a source read failed; mapped to a contract status in `sourceErrorToZonal` (src/source/errors.ts). */
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
 * SourceError (a short read is an error inside the source, so readers never check it).
 */
export interface ByteSource {
  /** Identity for cache keys and logs. For file:// never echoed to clients. */
  readonly url: URL;
  /** Total size in bytes, memoised; learnt from the first ranged read's Content-Range where possible. */
  size(signal?: AbortSignal): Promise<number>;
  /** Exactly `length` bytes from `offset` (offset ≥ 0, offset + length ≤ size). */
  read(offset: number, length: number, signal?: AbortSignal): Promise<ArrayBuffer>;
  /**
   * Optional: the first min(maxLength, size) bytes, learning the size in the same request (HTTP asks
   * for a range the server clips). Use `readHead`, which falls back to size() + read().
   */
  head?(maxLength: number, signal?: AbortSignal): Promise<ArrayBuffer>;
  /** Optional: the URL the bytes came from after redirects (base for relative hrefs); default `url`. */
  location?(): URL;
}

/** The first min(maxLength, size) bytes of a source: one request where the source can do it in one. */
export async function readHead(source: ByteSource, maxLength: number, signal?: AbortSignal): Promise<ArrayBuffer> {
  if (source.head) return source.head(maxLength, signal);
  const size = await source.size(signal);
  return source.read(0, Math.min(size, maxLength), signal);
}

/** Counts what a request cost upstream, for the request log line and for tests. */
export interface ReadStats {
  requests: number;
  bytes: number;
}
