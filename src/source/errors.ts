/**
 * SourceError → contract error (contract §6), plus the deadline plumbing every network backend shares:
 * one timer for a whole read that turns into SourceError('timeout'), and the caller's abort passed on.
 */
import { ZonalError } from '../errors.ts';
import type { ErrorCode } from '../errors.ts';
import { SourceError } from './source.ts';
import type { SourceErrorReason } from './source.ts';

/**
 * A read that starts or ends past the end of the object. It is a SourceError (reason `too_large`, the
 * read exceeds the object) so readers need not check, and it maps to 422 `invalid_source`: a COG or
 * Parquet file whose offsets point past its end is not readable.
 */
export class SourceRangeError extends SourceError {
  /** `size` is the object's size in bytes when known. */
  constructor(offset: number, length: number, size?: number) {
    const long = size === undefined ? 'The source is shorter than needed' : `The source is ${size} bytes long`;
    super('too_large', `${long}: a read of ${length} bytes at offset ${offset} goes past its end; the file may be truncated or corrupt.`);
    this.name = 'SourceRangeError';
  }
}

const CODES: Record<SourceErrorReason, ErrorCode> = {
  not_found: 'source_not_found',
  forbidden: 'url_forbidden',
  upstream_failed: 'upstream_failed',
  timeout: 'upstream_timeout',
  too_large: 'source_too_large',
  changed: 'source_changed',
};

const DEFAULT_DETAIL: Record<SourceErrorReason, string> = {
  not_found: 'The source was not found.',
  forbidden: 'The source URL is refused by the server policy.',
  upstream_failed: "The source's server failed to answer properly.",
  timeout: 'The source did not answer in time.',
  too_large: 'The source needs more bytes than this service reads for one request.',
  changed: 'The source changed while it was being read; retry the request.',
};

/**
 * Maps a SourceError to the contract's ZonalError: not_found → 422 source_not_found, forbidden → 403
 * url_forbidden, upstream_failed → 502, timeout → 504 upstream_timeout, too_large → 422
 * source_too_large (a read past the end → 422 invalid_source), changed → 502 source_changed.
 * The detail is the SourceError's message: every message written in src/source is one human sentence
 * without server paths or library text.
 */
export function toZonalError(e: SourceError): ZonalError {
  if (e instanceof SourceRangeError) return new ZonalError('invalid_source', e.message);
  const detail = e.message.trim() === '' ? DEFAULT_DETAIL[e.reason] : e.message;
  return new ZonalError(CODES[e.reason], detail);
}

/** One timer for one whole read (connect, headers, body), merged with the caller's AbortSignal. */
export interface Deadline {
  /** Aborts when the timer fires or the caller aborts; pass it to every step of the read. */
  readonly signal: AbortSignal;
  /**
   * The error to throw for `e`: SourceError('timeout') when the timer fired, the caller's abort reason
   * when the caller aborted, `e` itself when it is a SourceError, else `classify(e)`.
   */
  failure(e: unknown, classify: (e: unknown) => SourceError): unknown;
  /** Stops the timer; call in `finally`. */
  clear(): void;
}

/** Starts a deadline of `timeoutMs` milliseconds for a read of `what` (a short name: "the source"). */
export function startDeadline(timeoutMs: number, outer: AbortSignal | undefined, what = 'The source'): Deadline {
  const ctl = new AbortController();
  let timedOut = false;
  const onOuter = (): void => ctl.abort(outer?.reason);
  if (outer?.aborted) ctl.abort(outer.reason);
  else outer?.addEventListener('abort', onOuter, { once: true });
  const timer = setTimeout(() => {
    timedOut = true;
    ctl.abort(new SourceError('timeout', `${what} did not answer within ${timeoutMs} ms.`));
  }, timeoutMs);
  return {
    signal: ctl.signal,
    failure(e, classify) {
      if (timedOut) return new SourceError('timeout', `${what} did not answer within ${timeoutMs} ms.`);
      if (outer?.aborted) return outer.reason ?? abortError();
      if (e instanceof SourceError) return e;
      return classify(e);
    },
    clear() {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onOuter);
    },
  };
}

/** The standard AbortError, for a caller's abort without a reason. */
function abortError(): DOMException {
  return new DOMException('This operation was aborted', 'AbortError');
}

/** Throws the caller's abort reason when `signal` is already aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason ?? abortError();
}

/**
 * Races `p` against `signal`: rejects with the signal's reason as soon as it aborts. `p` keeps running;
 * use for steps that cannot be cancelled (a DNS lookup).
 */
export function raceAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason ?? abortError());
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason ?? abortError());
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/** Node's system error code (`ECONNRESET` …) of an unknown error, if any. */
export function errorCode(e: unknown): string | undefined {
  if (typeof e === 'object' && e !== null && 'code' in e && typeof e.code === 'string') return e.code;
  return undefined;
}

/** A human sentence for a network failure, from Node's error code only (never the library's text). */
export function networkFailure(e: unknown, what = "The source's server"): SourceError {
  const code = errorCode(e);
  switch (code) {
    case 'ECONNREFUSED':
      return new SourceError('upstream_failed', `${what} refused the connection.`);
    case 'ECONNRESET':
    case 'EPIPE':
      return new SourceError('upstream_failed', `${what} closed the connection before the answer was complete.`);
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return new SourceError('upstream_failed', `${what} could not be reached.`);
    default:
      if (code !== undefined && (code.startsWith('ERR_TLS') || code.includes('CERT') || code === 'EPROTO')) {
        return new SourceError('upstream_failed', `The TLS connection to ${lowerFirst(what)} failed.`);
      }
      return new SourceError('upstream_failed', `${what} failed to answer.`);
  }
}

function lowerFirst(s: string): string {
  return s.charAt(0).toLowerCase() + s.slice(1);
}

/**
 * Checks `read` arguments: a programming error (not a SourceError) when offset or length is not a
 * non-negative safe integer.
 */
export function assertReadArgs(offset: number, length: number): void {
  if (!Number.isSafeInteger(offset) || offset < 0 || !Number.isSafeInteger(length) || length < 0) {
    throw new RangeError(`read(${offset}, ${length}): offset and length must be non-negative integers`);
  }
}
