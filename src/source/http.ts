/**
 * HttpSource: ranged GETs over node:http / node:https (not fetch: we choose the socket's address).
 *
 * - Every hop resolves its host with dns.lookup (all addresses), checks each with the address policy
 *   and connects to the checked address through a custom `lookup`, so DNS cannot answer differently
 *   between the check and the connection (contract §6, 403). IP literals are checked directly.
 * - Redirects are followed by hand (at most 3), each hop re-checked (http/https only).
 * - A read expects 206 with the exact range and body length. A 200 full body is accepted only up to
 *   `maxFullBodyBytes` and then serves every read from memory.
 * - The size comes from the first read's Content-Range (or a `bytes=0-0` probe when size() comes first);
 *   head(n) asks for the first n bytes and takes what the server clips the range to, so a reader learns
 *   the size and gets the header in one round trip.
 * - The first ETag (else Last-Modified) is pinned; a different one later is SourceError('changed').
 * - One deadline covers a whole read (DNS, connect, headers, body, redirects) → SourceError('timeout').
 */
import type { IncomingMessage } from 'node:http';
import { assertReadArgs, networkFailure, SourceRangeError, startDeadline, throwIfAborted } from './errors.ts';
import { pinHost, readBody, request, systemResolve } from './http-transport.ts';
import type { Pinned, ResolveHost } from './http-transport.ts';
import { memo } from '../memo.ts';
import { checkProtocol } from '../policy.ts';
import { SourceError } from './source.ts';
import type { ByteSource } from './source.ts';

export interface HttpSourceOptions {
  /** Config.allowPrivateNetworks: `true` all, `false` public only, or public plus these CIDR ranges. */
  allowPrivateNetworks: boolean | readonly string[];
  /** Deadline of one whole read, in milliseconds (Config.upstreamTimeoutMs). */
  timeoutMs: number;
  /** Total bytes this source may fetch over all its reads (Config.maxSourceBytes). */
  maxBytes: number;
  /** Largest object accepted from a server that ignores Range (answers 200); default 8 MiB. */
  maxFullBodyBytes?: number;
  /** Redirect hops followed per read; default 3. */
  maxRedirects?: number;
  /** Name resolution, default dns.lookup with all addresses (tests inject names here). */
  resolveHost?: ResolveHost;
  /**
   * How long (ms) the size and validator an earlier source learnt for this URL are trusted without asking
   * the server again (Config.revalidateSeconds); 0: every source asks. A read that meets another ETag or
   * size still fails as `changed`, and forgets them.
   */
  revalidateMs?: number;
}

/**
 * Sizes and validators learnt per URL, each trusted for the revalidateMs of the source that learnt it: what
 * lets a warm request skip its size probe.
 */
const learnt = memo<{ size: number; validator: string | undefined }>({ name: 'http_sizes', maxEntries: 4096 });

/** Default cap of a 200 full body from a server that ignores Range. */
const DEFAULT_MAX_FULL_BODY_BYTES = 8 * 1024 * 1024;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** `clip`: the range may end early at the object's end (head reads). */
type Want = { offset: number; length: number; clip?: boolean } | 'probe';

export class HttpSource implements ByteSource {
  readonly url: URL;
  readonly #opts: Required<HttpSourceOptions>;
  #size: number | undefined;
  /** `etag:<value>` or `lm:<date>` of the first response that had one. */
  #validator: string | undefined;
  /** The whole object, when the server ignored Range and the object was small enough. */
  #full: Uint8Array | undefined;
  #fetched = 0;
  /** The URL the object was last read from, after redirects. */
  #location: URL | undefined;
  /** Bytes of reads in flight, counted against maxBytes before they arrive. */
  #reserved = 0;
  /** Size and validator taken from `learnt` rather than from this source's own answers. */
  #trusted = false;

  /** Does no I/O; the first read or size() connects. */
  constructor(url: URL, opts: HttpSourceOptions) {
    this.url = url;
    this.#opts = {
      allowPrivateNetworks: opts.allowPrivateNetworks,
      timeoutMs: opts.timeoutMs,
      maxBytes: opts.maxBytes,
      maxFullBodyBytes: opts.maxFullBodyBytes ?? DEFAULT_MAX_FULL_BODY_BYTES,
      maxRedirects: opts.maxRedirects ?? 3,
      resolveHost: opts.resolveHost ?? systemResolve,
      revalidateMs: opts.revalidateMs ?? 0,
    };
    const known = this.#opts.revalidateMs > 0 ? learnt.get(url.href) : undefined;
    if (known !== undefined) {
      this.#size = known.size;
      this.#validator = known.validator;
      this.#trusted = true;
    }
  }

  /** Remembers what this source learnt from the server, for the sources of the next revalidateMs. */
  #remember(): void {
    if (this.#trusted || this.#opts.revalidateMs <= 0 || this.#size === undefined) return;
    learnt.set(this.url.href, { size: this.#size, validator: this.#validator }, this.#opts.revalidateMs);
    this.#trusted = true;
  }

  /** Runs a fetch; a changed object forgets what was learnt about it. */
  async #fetchKnown(want: Want, signal: AbortSignal | undefined): Promise<Uint8Array> {
    try {
      const bytes = await this.#fetch(want, signal);
      this.#remember();
      return bytes;
    } catch (e) {
      if (e instanceof SourceError && e.reason === 'changed') learnt.delete(this.url.href);
      throw e;
    }
  }

  /** Size in bytes; memoised, learnt from the first read, else from a `bytes=0-0` request. */
  async size(signal?: AbortSignal): Promise<number> {
    throwIfAborted(signal);
    if (this.#size !== undefined) return this.#size;
    await this.#fetchKnown('probe', signal);
    if (this.#size === undefined) {
      throw new SourceError('upstream_failed', "The source's server does not tell the size of the object.");
    }
    return this.#size;
  }

  /** Exactly `length` bytes from `offset`, with one ranged GET (or from memory after a 200). */
  async read(offset: number, length: number, signal?: AbortSignal): Promise<ArrayBuffer> {
    assertReadArgs(offset, length);
    throwIfAborted(signal);
    if (this.#size !== undefined && offset + length > this.#size) throw new SourceRangeError(offset, length, this.#size);
    if (this.#full !== undefined) return this.#full.slice(offset, offset + length).buffer;
    if (length === 0) {
      const size = await this.size(signal);
      if (offset > size) throw new SourceRangeError(offset, length, size);
      return new ArrayBuffer(0);
    }
    if (this.#fetched + this.#reserved + length > this.#opts.maxBytes) throw this.#tooMuch();
    this.#reserved += length;
    try {
      const bytes = await this.#fetchKnown({ offset, length }, signal);
      return bytes.buffer as ArrayBuffer;
    } finally {
      this.#reserved -= length;
    }
  }

  /** The first min(maxLength, size) bytes, learning the size from the same answer. */
  async head(maxLength: number, signal?: AbortSignal): Promise<ArrayBuffer> {
    assertReadArgs(0, maxLength);
    throwIfAborted(signal);
    if (this.#size !== undefined || this.#full !== undefined || maxLength === 0) {
      return this.read(0, Math.min(maxLength, await this.size(signal)), signal);
    }
    if (this.#fetched + this.#reserved + maxLength > this.#opts.maxBytes) throw this.#tooMuch();
    this.#reserved += maxLength;
    try {
      const bytes = await this.#fetchKnown({ offset: 0, length: maxLength, clip: true }, signal);
      return bytes.buffer as ArrayBuffer;
    } finally {
      this.#reserved -= maxLength;
    }
  }

  /** Where the object was actually read from (after redirects): the base for relative references. */
  location(): URL {
    return this.#location ?? this.url;
  }

  /** Cache validator: the pinned ETag / Last-Modified, else the size once known. */
  validator(): string | undefined {
    return this.#validator ?? (this.#size === undefined ? undefined : `size:${this.#size}`);
  }

  async #fetch(want: Want, signal: AbortSignal | undefined): Promise<Uint8Array> {
    const deadline = startDeadline(this.#opts.timeoutMs, signal);
    try {
      const range = want === 'probe' ? 'bytes=0-0' : `bytes=${want.offset}-${want.offset + want.length - 1}`;
      const res = await this.#follow(range, deadline.signal);
      try {
        return await this.#answer(res, want, deadline.signal);
      } catch (e) {
        res.destroy();
        throw e;
      }
    } catch (e) {
      throw deadline.failure(e, (x) => networkFailure(x));
    } finally {
      deadline.clear();
    }
  }

  /**
   * The bytes of a JSON document: GET (redirects followed) or POST of `body` (no redirect followed: a search's body
   * must not be re-sent elsewhere), with the same address checks and deadline as every read, at most
   * maxFullBodyBytes. A non-2xx answer is a SourceError as a read's would be. STAC API searches use it.
   */
  async json(init: { method: 'GET' | 'POST'; body?: unknown }, signal?: AbortSignal): Promise<Uint8Array> {
    const deadline = startDeadline(this.#opts.timeoutMs, signal);
    try {
      const payload = init.method === 'POST' ? Buffer.from(JSON.stringify(init.body ?? {})) : undefined;
      const res =
        payload === undefined
          ? await this.#follow(null, deadline.signal)
          : await request(this.url, await this.#pin(this.url, deadline.signal), null, deadline.signal, false, payload);
      const status = res.statusCode ?? 0;
      if (status < 200 || status > 299) {
        res.destroy();
        if (status === 404 || status === 410) throw new SourceError('not_found', `The server answered ${status} for ${this.url.href}.`, status);
        throw new SourceError('upstream_failed', `The server answered ${status}.`, status);
      }
      const bytes = await readBody(res, undefined, this.#opts.maxFullBodyBytes, deadline.signal);
      this.#fetched += bytes.byteLength;
      return bytes;
    } catch (e) {
      throw deadline.failure(e, (x) => networkFailure(x));
    } finally {
      deadline.clear();
    }
  }

  /** GET with redirects followed (a ranged GET unless `range` is null); returns the first non-redirect response. */
  async #follow(range: string | null, signal: AbortSignal): Promise<IncomingMessage> {
    let url = this.url;
    for (let hop = 0; ; hop++) {
      if (!checkProtocol(url, ['http', 'https'])) {
        throw new SourceError('forbidden', 'The source redirected to a URL that is not http or https.');
      }
      const pinned = await this.#pin(url, signal);
      const res = await request(url, pinned, range, signal);
      const location = res.headers.location;
      if (!REDIRECTS.has(res.statusCode ?? 0) || location === undefined) {
        this.#location = url;
        return res;
      }
      res.destroy();
      if (hop >= this.#opts.maxRedirects) {
        throw new SourceError('upstream_failed', `The source redirected more than ${this.#opts.maxRedirects} times.`, res.statusCode);
      }
      try {
        url = new URL(location, url);
      } catch {
        throw new SourceError('upstream_failed', 'The source redirected to an invalid URL.', res.statusCode);
      }
    }
  }

  /** Resolves and checks the host of `url` under this source's address policy. */
  #pin(url: URL, signal: AbortSignal): Promise<Pinned | undefined> {
    return pinHost(url, this.#opts, signal);
  }

  /** Checks the final response and reads its body. */
  async #answer(res: IncomingMessage, want: Want, signal: AbortSignal): Promise<Uint8Array> {
    const status = res.statusCode ?? 0;
    if (status !== 200 && status !== 206) res.destroy();
    if (status === 404 || status === 410) throw new SourceError('not_found', `The source was not found (the source answered ${status}).`, status);
    if (status === 401 || status === 403) throw new SourceError('not_found', `The source could not be read (the source answered ${status}).`, status);
    if (status === 412) throw changed(status);
    if (status === 416) {
      const total = /^bytes \*\/(\d+)$/.exec(res.headers['content-range'] ?? '');
      if (total !== null) this.#learnSize(Number(total[1]), status);
      if (want === 'probe') {
        if (this.#size === 0) return new Uint8Array(0);
        throw new SourceError('upstream_failed', "The source's server refused the first byte of the object.", status);
      }
      throw new SourceRangeError(want.offset, want.length, this.#size);
    }
    if (status !== 200 && status !== 206) throw new SourceError('upstream_failed', `The source's server answered ${status}.`, status);
    const encoding = res.headers['content-encoding'];
    if (encoding !== undefined && encoding !== 'identity') {
      res.destroy();
      throw new SourceError('upstream_failed', "The source's server sent a compressed answer to a byte-range request.", status);
    }
    this.#pinValidator(res, status);
    return status === 206 ? this.#partial(res, want, signal) : this.#whole(res, want, signal);
  }

  async #partial(res: IncomingMessage, want: Want, signal: AbortSignal): Promise<Uint8Array> {
    const m = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(res.headers['content-range'] ?? '');
    if (m === null) {
      res.destroy();
      throw new SourceError('upstream_failed', "The source's server sent a partial answer without a valid Content-Range.", 206);
    }
    const start = Number(m[1]);
    const end = Number(m[2]);
    if (m[3] !== '*') this.#learnSize(Number(m[3]), 206);
    const offset = want === 'probe' ? 0 : want.offset;
    const length = want === 'probe' ? 1 : want.length;
    if (start !== offset || end > offset + length - 1 || end < start) {
      res.destroy();
      throw new SourceError('upstream_failed', "The source's server sent another byte range than the one asked for.", 206);
    }
    // A head read of an object shorter than asked is clipped to the object's end: that is all of it.
    const clipped = want !== 'probe' && want.clip === true && end + 1 === this.#size;
    if (end < offset + length - 1 && !clipped) {
      res.destroy();
      throw new SourceRangeError(offset, length, this.#size);
    }
    const body = await readBody(res, end - start + 1, end - start + 1, signal);
    this.#fetched += body.byteLength;
    return body;
  }

  /** A 200: the server ignored Range. Keep the object in memory if it is small enough. */
  async #whole(res: IncomingMessage, want: Want, signal: AbortSignal): Promise<Uint8Array> {
    // What this source may still fetch, this read's own reservation included.
    const budget = this.#opts.maxBytes - this.#fetched - this.#reserved + (want === 'probe' ? 0 : want.length);
    const cap = Math.min(this.#opts.maxFullBodyBytes, budget);
    const tooBig = (): SourceError => (cap < this.#opts.maxFullBodyBytes ? this.#tooMuch() : this.#ignoresRange());
    const announced = res.headers['content-length'] === undefined ? undefined : Number(res.headers['content-length']);
    if (announced !== undefined && announced > cap) throw tooBig();
    let body: Uint8Array;
    try {
      body = await readBody(res, announced, cap, signal);
    } catch (e) {
      if (e instanceof SourceError && e.reason === 'too_large') throw tooBig();
      throw e;
    }
    this.#fetched += body.byteLength;
    this.#learnSize(body.byteLength, 200);
    this.#full = body;
    if (want === 'probe') return body.slice(0, 1);
    if (want.clip === true) return body.slice(want.offset, Math.min(want.offset + want.length, body.byteLength));
    if (want.offset + want.length > body.byteLength) throw new SourceRangeError(want.offset, want.length, body.byteLength);
    return body.slice(want.offset, want.offset + want.length);
  }

  #pinValidator(res: IncomingMessage, status: number): void {
    const etag = res.headers.etag;
    const lm = res.headers['last-modified'];
    const v = etag !== undefined ? `etag:${etag.replace(/^W\//, '')}` : lm !== undefined ? `lm:${lm}` : undefined;
    if (v === undefined) return;
    if (this.#validator === undefined) this.#validator = v;
    else if (this.#validator.split(':')[0] === v.split(':')[0] && this.#validator !== v) {
      res.destroy();
      throw changed(status);
    }
  }

  #learnSize(size: number, status: number): void {
    if (this.#size !== undefined && this.#size !== size) throw changed(status);
    this.#size = size;
  }

  #tooMuch(): SourceError {
    return new SourceError('too_large', `This request would read more than ${this.#opts.maxBytes} bytes from the source, the configured limit.`);
  }

  #ignoresRange(): SourceError {
    return new SourceError(
      'too_large',
      `The source's server ignores byte ranges and the object is larger than ${this.#opts.maxFullBodyBytes} bytes, the most read whole.`,
      200,
    );
  }
}

/** The object's ETag or size differs from the one pinned earlier in this read sequence. */
function changed(status: number): SourceError {
  return new SourceError('changed', 'The source changed while it was being read (its ETag or size differs); retry the request.', status);
}
