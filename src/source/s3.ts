/**
 * S3Source: s3://bucket/key through @aws-sdk/client-s3 (the only file loading the SDK); also the few object
 * calls of the jobs' results store (objectCalls, at the end: put, streamed get, list, delete). Endpoint, region
 * and credentials come from the standard AWS environment (contract §7): AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL
 * (path-style addressing when set), AWS_REGION (default us-east-1) and the SDK's default credential chain. The
 * operator's endpoint is trusted: it is not checked against the private-address policy.
 */
import type * as Sdk from '@aws-sdk/client-s3';
import type { Readable } from 'node:stream';
import { assertReadArgs, raceAbort, SourceRangeError, startDeadline, throwIfAborted } from './errors.ts';
import { headBySize, SourceError, type ByteSource } from './source.ts';

export interface S3Settings {
  /** Custom endpoint (MinIO, s3rver …); undefined for AWS itself. */
  endpoint?: string | undefined;
  region: string;
  /** Explicit credentials; undefined: the SDK's default chain (env, profile, IMDS …). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } | undefined;
}

export interface S3SourceOptions extends Partial<S3Settings> {
  /** Deadline of one whole read and the SDK's connection/request timeouts, in ms. */
  timeoutMs: number;
  /** Total bytes this source may fetch over all its reads (Config.maxSourceBytes). */
  maxBytes: number;
}

/** Endpoint and region from the standard AWS variables. */
export function s3SettingsFromEnv(env: Record<string, string | undefined> = process.env): S3Settings {
  const endpoint = env['AWS_ENDPOINT_URL_S3'] ?? env['AWS_ENDPOINT_URL'];
  return {
    endpoint: endpoint === undefined || endpoint.trim() === '' ? undefined : endpoint.trim(),
    region: env['AWS_REGION'] ?? env['AWS_DEFAULT_REGION'] ?? 'us-east-1',
  };
}

/** Bucket and key of `s3://bucket/key` (the key percent-decoded); undefined when either is missing. */
export function parseS3Url(url: URL): { bucket: string; key: string } | undefined {
  if (url.protocol !== 's3:') return undefined;
  const bucket = url.hostname;
  let key: string;
  try {
    key = decodeURIComponent(url.pathname.replace(/^\//, ''));
  } catch {
    return undefined;
  }
  return bucket === '' || key === '' ? undefined : { bucket, key };
}

type S3 = { client: Sdk.S3Client; sdk: typeof Sdk };
const clients = new Map<string, Promise<S3>>();

/**
 * A client (and the SDK, for its commands) per endpoint + region + timeout (+ explicit access key) for the whole
 * process; the SDK loaded on the first S3 call (~6 MB of heap a process reading no s3:// source never holds).
 */
function clientFor(s: S3Settings, timeoutMs: number): Promise<S3> {
  const id = JSON.stringify([s.endpoint ?? '', s.region, timeoutMs, s.credentials?.accessKeyId ?? '']);
  let client = clients.get(id);
  if (client === undefined) {
    client = import('@aws-sdk/client-s3').then((sdk) => ({
      sdk,
      client: new sdk.S3Client({
        region: s.region,
        ...(s.endpoint === undefined ? {} : { endpoint: s.endpoint, forcePathStyle: true }),
        ...(s.credentials === undefined ? {} : { credentials: s.credentials }),
        followRegionRedirects: true,
        // This SDK only logs a warning on requestTimeout unless told to throw.
        requestHandler: { connectionTimeout: timeoutMs, requestTimeout: timeoutMs, throwOnRequestTimeout: true },
      }),
    }));
    clients.set(id, client);
  }
  return client;
}

interface SdkError {
  name?: unknown;
  Code?: unknown;
  $metadata?: { httpStatusCode?: number };
}

/** Maps an SDK error by its name and HTTP status only (never its text). */
function classify(e: unknown, offset?: number, length?: number, size?: number): SourceError {
  const err = (typeof e === 'object' && e !== null ? e : {}) as SdkError;
  const name = typeof err.name === 'string' ? err.name : typeof err.Code === 'string' ? err.Code : '';
  const status = err.$metadata?.httpStatusCode;
  if (['NoSuchKey', 'NotFound', 'NoSuchBucket'].includes(name) || status === 404) {
    return new SourceError('not_found', `The source was not found (the source answered ${status ?? 404}).`, status);
  }
  if (name === 'AccessDenied' || name === 'Forbidden' || status === 403 || status === 401) {
    return new SourceError('not_found', `The source could not be read (the source answered ${status ?? 403}).`, status);
  }
  if (name === 'InvalidRange' || status === 416) {
    return offset === undefined
      ? new SourceError('upstream_failed', 'The S3 server refused the byte range.', status)
      : new SourceRangeError(offset, length ?? 0, size);
  }
  if (name === 'PreconditionFailed' || status === 412) return changed(status);
  if (name === 'TimeoutError' || name === 'RequestTimeout') {
    return new SourceError('timeout', 'The S3 server did not answer in time.', status);
  }
  if (name === 'CredentialsProviderError') {
    return new SourceError('upstream_failed', 'No S3 credentials are configured for this service.');
  }
  if (status !== undefined) return new SourceError('upstream_failed', `The S3 server answered ${status}.`, status);
  return new SourceError('upstream_failed', 'The S3 server could not be reached or failed to answer.');
}

function changed(status?: number): SourceError {
  return new SourceError('changed', 'The source changed while it was being read (its ETag or size differs); retry the request.', status);
}

export class S3Source implements ByteSource {
  readonly url: URL;
  readonly #bucket: string;
  readonly #key: string;
  readonly #s3: Promise<S3>;
  readonly #timeoutMs: number;
  readonly #maxBytes: number;
  #size: number | undefined;
  #etag: string | undefined;
  #fetched = 0;
  /** Bytes of reads in flight, counted against maxBytes before they arrive. */
  #reserved = 0;

  /** `url` must be s3://bucket/key (see parseS3Url). Does no I/O. */
  constructor(url: URL, opts: S3SourceOptions) {
    const parsed = parseS3Url(url);
    if (parsed === undefined) throw new RangeError('S3Source needs an s3://bucket/key URL');
    this.url = url;
    this.#bucket = parsed.bucket;
    this.#key = parsed.key;
    const env = s3SettingsFromEnv();
    this.#s3 = clientFor({ endpoint: opts.endpoint ?? env.endpoint, region: opts.region ?? env.region, credentials: opts.credentials }, opts.timeoutMs);
    this.#timeoutMs = opts.timeoutMs;
    this.#maxBytes = opts.maxBytes;
  }

  /** Size in bytes; memoised, from the first GetObject's Content-Range, else one HeadObject. */
  async size(signal?: AbortSignal): Promise<number> {
    throwIfAborted(signal);
    if (this.#size !== undefined) return this.#size;
    const deadline = startDeadline(this.#timeoutMs, signal);
    try {
      const { client, sdk } = await this.#s3;
      const head = await client.send(new sdk.HeadObjectCommand({ Bucket: this.#bucket, Key: this.#key }), {
        abortSignal: deadline.signal,
      });
      this.#pin(head.ETag, head.ContentLength);
      if (this.#size === undefined) throw new SourceError('upstream_failed', 'The S3 server did not tell the size of the object.');
      return this.#size;
    } catch (e) {
      throw deadline.failure(e, (x) => classify(x));
    } finally {
      deadline.clear();
    }
  }

  /** Exactly `length` bytes from `offset`, with one ranged GetObject. */
  async read(offset: number, length: number, signal?: AbortSignal): Promise<ArrayBuffer> {
    assertReadArgs(offset, length);
    throwIfAborted(signal);
    if (this.#size !== undefined && offset + length > this.#size) throw new SourceRangeError(offset, length, this.#size);
    if (length === 0) {
      const size = await this.size(signal);
      if (offset > size) throw new SourceRangeError(offset, length, size);
      return new ArrayBuffer(0);
    }
    if (this.#fetched + this.#reserved + length > this.#maxBytes) {
      throw new SourceError('too_large', `This request would read more than ${this.#maxBytes} bytes from the source, the configured limit.`);
    }
    this.#reserved += length;
    const deadline = startDeadline(this.#timeoutMs, signal);
    let body: Readable | undefined;
    try {
      const { client, sdk } = await this.#s3;
      const out = await client.send(new sdk.GetObjectCommand({ Bucket: this.#bucket, Key: this.#key, Range: `bytes=${offset}-${offset + length - 1}` }), {
        abortSignal: deadline.signal,
      });
      body = out.Body as Readable | undefined;
      const m = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(out.ContentRange ?? '');
      const total = m === null ? undefined : m[3] === '*' ? undefined : Number(m[3]);
      this.#pin(out.ETag, total);
      if (m === null || Number(m[1]) !== offset) {
        throw new SourceError('upstream_failed', 'The S3 server sent another byte range than the one asked for.');
      }
      if (Number(m[2]) < offset + length - 1) throw new SourceRangeError(offset, length, this.#size);
      if (body === undefined) throw new SourceError('upstream_failed', 'The S3 server sent no body.');
      // Some S3-compatible servers send more than asked (s3rver answers bytes=0-0 with the whole
      // object): take the bytes asked for and drop the connection rather than download the rest.
      const bytes = await raceAbort(readExactly(body, length), deadline.signal);
      this.#fetched += bytes.byteLength;
      return bytes.buffer as ArrayBuffer;
    } catch (e) {
      body?.destroy();
      throw deadline.failure(e, (x) => classify(x, offset, length, this.#size));
    } finally {
      this.#reserved -= length;
      deadline.clear();
    }
  }

  /** size() (a HeadObject unless a read told it), then one ranged GetObject. */
  head(maxLength: number, signal?: AbortSignal): Promise<ArrayBuffer> {
    return headBySize(this, maxLength, signal);
  }

  /** The pinned ETag, else the size once known. */
  validator(): string | undefined {
    return this.#etag ?? (this.#size === undefined ? undefined : `size:${this.#size}`);
  }

  /** S3 has no redirects to follow here: the bytes come from `url`. */
  location(): URL {
    return this.url;
  }

  #pin(etag: string | undefined, size: number | undefined): void {
    if (etag !== undefined) {
      if (this.#etag === undefined) this.#etag = etag;
      else if (this.#etag !== etag) throw changed();
    }
    if (size !== undefined) {
      if (this.#size !== undefined && this.#size !== size) throw changed();
      this.#size = size;
    }
  }
}

/** The first `length` bytes of `body`; the stream is destroyed once they are in. */
async function readExactly(body: Readable, length: number): Promise<Uint8Array> {
  const out = new Uint8Array(length);
  let at = 0;
  for await (const chunk of body as AsyncIterable<Uint8Array>) {
    const take = Math.min(chunk.byteLength, length - at);
    out.set(chunk.subarray(0, take), at);
    at += take;
    if (at === length) break;
  }
  body.destroy();
  if (at < length) {
    throw new SourceError('upstream_failed', 'The S3 server closed the connection before sending all the promised bytes.');
  }
  return out;
}

/**
 * The results store's object calls (jobs/results-s3.ts): one PutObject (atomic: a reader sees the old object or
 * the whole new one), a streamed GetObject, a paginated ListObjectsV2 and DeleteObjects in batches of 1,000, with
 * the sources' client settings. Each call has a deadline of `timeoutMs`; a GET's body, `timeoutMs` between two
 * chunks (never while its reader holds one). Not a source: the operator's bucket, trusted like its endpoint; a
 * failure is a plain Error naming the call and key (the SDK's error name and status, never its text), so a task
 * that meets one is tried again.
 */
export interface ObjectCalls {
  put(bucket: string, key: string, body: Uint8Array): Promise<void>;
  /** The object's body, or undefined when there is no such key. */
  get(bucket: string, key: string, signal?: AbortSignal): Promise<AsyncIterable<Uint8Array> | undefined>;
  /** Every key under `prefix`, all pages. */
  list(bucket: string, prefix: string): Promise<string[]>;
  remove(bucket: string, keys: readonly string[]): Promise<void>;
}

export function objectCalls(timeoutMs: number, env: Record<string, string | undefined> = process.env): ObjectCalls {
  const s3 = clientFor(s3SettingsFromEnv(env), timeoutMs);
  /** One call, its deadline armed until it settles. */
  const call = async <T>(doing: string, run: (signal: AbortSignal) => Promise<T>): Promise<T> => {
    const watch = new CallWatch(timeoutMs, doing, undefined);
    try {
      watch.arm();
      return await run(watch.signal);
    } catch (e) {
      throw watch.failure(e);
    } finally {
      watch.close();
    }
  };
  return {
    async put(bucket, key, body) {
      const { client, sdk } = await s3;
      await call(`write s3://${bucket}/${key}`, (abortSignal) =>
        client.send(new sdk.PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentLength: body.byteLength }), { abortSignal }),
      );
    },
    async get(bucket, key, signal) {
      const watch = new CallWatch(timeoutMs, `read s3://${bucket}/${key}`, signal);
      let body: Readable | undefined;
      try {
        watch.arm();
        const { client, sdk } = await s3;
        const out = await client.send(new sdk.GetObjectCommand({ Bucket: bucket, Key: key }), { abortSignal: watch.signal });
        watch.disarm();
        body = out.Body as Readable | undefined;
        if (body === undefined) throw new Error('no body');
      } catch (e) {
        watch.close();
        const status = (e as SdkError | undefined)?.$metadata?.httpStatusCode;
        if ((e as SdkError | undefined)?.name === 'NoSuchKey' || status === 404) return undefined;
        throw watch.failure(e);
      }
      // Iterated at once by its one caller (results-s3.ts readPart), which leaves it only through its end or return().
      return watchedBody(body, watch);
    },
    async list(bucket, prefix) {
      const { client, sdk } = await s3;
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const out = await call(`list s3://${bucket}/${prefix}`, (abortSignal) =>
          client.send(new sdk.ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }), { abortSignal }),
        );
        for (const o of out.Contents ?? []) if (o.Key) keys.push(o.Key);
        token = out.IsTruncated ? out.NextContinuationToken : undefined;
      } while (token);
      return keys;
    },
    async remove(bucket, keys) {
      const { client, sdk } = await s3;
      for (let i = 0; i < keys.length; i += 1000) {
        const batch = keys.slice(i, i + 1000).map((Key) => ({ Key }));
        const doing = `delete ${batch.length} keys of s3://${bucket}/`;
        const out = await call(doing, (abortSignal) =>
          client.send(new sdk.DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: batch, Quiet: true } }), { abortSignal }),
        );
        // A DeleteObjects that succeeds may still fail some keys (access, a lock): quietly listed in Errors.
        const failed = (out.Errors ?? []).filter((e) => e.Code !== 'NoSuchKey');
        if (failed.length > 0) throw new Error(`Could not ${doing}: ${failed.length} failed (${failed[0]?.Code ?? 'no code'} for ${failed[0]?.Key ?? '?'}).`);
      }
    },
  };
}

/** The abort of one object call: the caller's signal, and a timer armed while the server is awaited. */
class CallWatch {
  readonly #ctl = new AbortController();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timedOut = false;
  readonly #onOuter = (): void => this.#ctl.abort(this.outer?.reason);

  constructor(
    private readonly timeoutMs: number,
    private readonly doing: string,
    private readonly outer: AbortSignal | undefined,
  ) {
    if (outer?.aborted) this.#ctl.abort(outer.reason);
    else outer?.addEventListener('abort', this.#onOuter, { once: true });
  }

  readonly signal: AbortSignal = this.#ctl.signal;

  arm(): void {
    this.disarm();
    this.#timer = setTimeout(() => {
      this.#timedOut = true;
      this.#ctl.abort(new Error('timeout'));
    }, this.timeoutMs);
  }

  disarm(): void {
    clearTimeout(this.#timer);
  }

  /** What to throw for `e`: the caller's abort reason, the deadline, else the SDK's error name and status. */
  failure(e: unknown): unknown {
    if (this.outer?.aborted) return this.outer.reason ?? new DOMException('This operation was aborted', 'AbortError');
    if (this.#timedOut) return new Error(`Could not ${this.doing}: the S3 server did not answer within ${this.timeoutMs} ms.`, { cause: e });
    const err = (typeof e === 'object' && e !== null ? e : {}) as SdkError;
    const name = typeof err.name === 'string' ? err.name : typeof err.Code === 'string' ? err.Code : 'an error';
    const status = err.$metadata?.httpStatusCode;
    return new Error(`Could not ${this.doing}: ${name}${status === undefined ? '' : ` (the S3 server answered ${status})`}.`, { cause: e });
  }

  close(): void {
    this.disarm();
    this.outer?.removeEventListener('abort', this.#onOuter);
  }
}

/** A GET's body, chunk by chunk, the deadline armed only while the next chunk is awaited; destroyed when left. */
async function* watchedBody(body: Readable, watch: CallWatch): AsyncGenerator<Uint8Array> {
  const chunks = (body as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
  try {
    for (;;) {
      watch.arm();
      let next: IteratorResult<Uint8Array>;
      try {
        next = await chunks.next();
      } catch (e) {
        throw watch.failure(e);
      }
      watch.disarm();
      if (next.done) return;
      yield next.value;
    }
  } finally {
    watch.close();
    body.destroy();
  }
}
