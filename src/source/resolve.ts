/**
 * openSource: one URL string → a ready ByteSource (the "resolve" step): parse, protocol and policy checks,
 * dispatch to the backend, then counting (for the request's stats) under the shared read cache, under the
 * request's byte budget (Config.maxSourceBytes). Errors found here are ZonalErrors; reads of the returned
 * source throw SourceErrors (map them with toZonalError).
 */
import { isIP } from 'node:net';
import type { Config } from '../config.ts';
import { ZonalError } from '../errors.ts';
import { withReadCache, sharedReadCache } from './cache.ts';
import { withByteBudget, withCounting } from './counting.ts';
import { toZonalError } from './errors.ts';
import { FileSource } from './file.ts';
import { HttpSource } from './http.ts';
import { addressAllowed, checkProtocol } from '../policy.ts';
import { parseS3Url, S3Source } from './s3.ts';
import { SourceError } from './source.ts';
import type { ByteSource, ReadStats } from './source.ts';

/** Protocols a source URL may use (contract §2). */
const SOURCE_PROTOCOLS = ['http', 'https', 's3', 'file'] as const;

export interface OpenSourceOptions {
  /** Receives the requests and bytes fetched upstream (cache hits are not counted). */
  stats: ReadStats;
  /** Aborts the opening (file stat); reads take their own signal. */
  signal?: AbortSignal;
}

/**
 * Opens `url`. Throws ZonalError: `validation_failed` (not an absolute URL, s3 without bucket or
 * key), `unsupported_protocol` (not http, https, s3 or file), `url_forbidden` (IP literal refused by
 * `allowPrivateNetworks`, file outside `dataRoots`), `source_not_found` (missing file). Host names are
 * checked when the first read connects (DNS pinning, see http.ts).
 */
export async function openSource(url: string, config: Config, opts: OpenSourceOptions): Promise<ByteSource> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ZonalError('validation_failed', 'The source URL is not a valid absolute URL.');
  }
  if (!checkProtocol(parsed, SOURCE_PROTOCOLS)) {
    const scheme = parsed.protocol.replace(/:$/, '');
    throw new ZonalError('unsupported_protocol', `The URL scheme "${scheme}" is not supported; use http, https, s3 or file.`);
  }
  try {
    const raw = await dispatch(parsed, config, opts.signal);
    const cached = withReadCache(withCounting(raw, opts.stats), sharedReadCache(config.cacheBytes));
    return withByteBudget(cached, config.maxSourceBytes);
  } catch (e) {
    throw e instanceof SourceError ? toZonalError(e) : e;
  }
}

/** JSON over http(s) for STAC API searches: GET a document, or POST a search body. */
export interface JsonClient {
  json(url: string, init: { method: 'GET' | 'POST'; body?: unknown }, signal?: AbortSignal): Promise<unknown>;
}

/**
 * A JsonClient under the same rules as every source: http(s) only, private addresses refused unless
 * configured (DNS pinned at connect), the upstream timeout, and answers of at most 8 MiB. Each call counts
 * one request into `stats` (its bytes are the answer's).
 */
export function jsonClient(config: Config, stats: ReadStats): JsonClient {
  return {
    async json(url, init, signal) {
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        throw new ZonalError('validation_failed', `The STAC URL "${url}" is not a valid absolute URL.`);
      }
      if (!checkProtocol(parsed, ['http', 'https'])) {
        throw new ZonalError('unsupported_protocol', 'A STAC API or ItemCollection is read over http or https only.');
      }
      let bytes: Uint8Array;
      try {
        // Not a ByteSource: a one-off document, so nothing is learnt or cached for its URL.
        const http = openHttp(parsed, config, { revalidate: false });
        stats.requests += 1;
        bytes = await http.json(init, signal);
        stats.bytes += bytes.byteLength;
      } catch (e) {
        throw e instanceof SourceError ? toZonalError(e) : e;
      }
      try {
        return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) as unknown;
      } catch {
        throw new ZonalError('invalid_source', `${parsed.href} does not answer JSON: it is neither a STAC API nor an ItemCollection.`);
      }
    },
  };
}

async function dispatch(url: URL, config: Config, signal: AbortSignal | undefined): Promise<ByteSource> {
  switch (url.protocol) {
    case 'file:':
      return FileSource.open(url, config.dataRoots, signal);
    case 's3:':
      if (parseS3Url(url) === undefined) {
        throw new ZonalError('validation_failed', 'An s3 URL must name a bucket and a key: s3://bucket/key.');
      }
      return new S3Source(url, { timeoutMs: config.upstreamTimeoutMs, maxBytes: config.maxSourceBytes });
    default:
      return openHttp(url, config, { revalidate: true });
  }
}

/**
 * An http(s) source under the configured policy (sources and JSON documents alike). `revalidate`: trust the
 * size and validator learnt for its URL for Config.revalidateSeconds.
 */
function openHttp(url: URL, config: Config, opts: { revalidate: boolean }): HttpSource {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  // IP literals fail fast; host names are checked at connect time against what DNS answers.
  if (isIP(host) !== 0 && !addressAllowed(host, config.allowPrivateNetworks)) {
    throw new SourceError(
      'forbidden',
      'The source URL points to a private, loopback or link-local address, which this service may not fetch ' +
        '(an operator allows such addresses with ZONAL_ALLOW_PRIVATE_NETWORKS).',
    );
  }
  return new HttpSource(url, {
    allowPrivateNetworks: config.allowPrivateNetworks,
    timeoutMs: config.upstreamTimeoutMs,
    maxBytes: config.maxSourceBytes,
    revalidateMs: opts.revalidate ? config.revalidateSeconds * 1000 : 0,
  });
}
