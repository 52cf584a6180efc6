/**
 * withCounting: counts what reads cost upstream into a ReadStats (request log line, tests). Put it
 * below the cache (`withReadCache(withCounting(raw, stats), cache)`) so cache hits are not counted.
 */
import { SourceError } from './source.ts';
import { countUpstream, countUpstreamError } from '../observe.ts';
import type { ByteSource, ReadStats } from './source.ts';

/**
 * Wraps `source` so that every `read` adds one to `stats.requests` when it starts and its length to
 * `stats.bytes` when it succeeds (a failed read fetched nothing usable). `size()` is not counted.
 */
export function withCounting(source: ByteSource, stats: ReadStats): ByteSource {
  const scheme = source.url.protocol.replace(/:$/, '');
  // Every upstream read also counts process-wide, by scheme, for /metrics (observe.ts).
  const counted = async (read: () => Promise<ArrayBuffer>): Promise<ArrayBuffer> => {
    stats.requests += 1;
    try {
      const buf = await read();
      stats.bytes += buf.byteLength;
      countUpstream(scheme, buf.byteLength);
      return buf;
    } catch (e) {
      countUpstream(scheme, 0);
      countUpstreamError(scheme, e instanceof SourceError ? e.reason : 'aborted');
      throw e;
    }
  };
  return {
    url: source.url,
    size: (signal) => source.size(signal),
    read: (offset, length, signal) => counted(() => source.read(offset, length, signal)),
    head: (maxLength, signal) => counted(() => source.head(maxLength, signal)),
    validator: () => source.validator(),
    location: () => source.location(),
  };
}

/**
 * Wraps `source` so that reads together may return at most `maxBytes` bytes (Config.maxSourceBytes,
 * a per-request memory guard that also covers file and memory sources and cache hits). A read that
 * would pass the bound is refused before it starts with SourceError('too_large'); bytes of failed reads
 * are given back.
 */
export function withByteBudget(source: ByteSource, maxBytes: number): ByteSource {
  let used = 0;
  return {
    url: source.url,
    location: () => source.location(),
    validator: () => source.validator(),
    size: (signal) => source.size(signal),
    async read(offset, length, signal) {
      if (used + length > maxBytes) {
        throw new SourceError('too_large', `This request would read more than ${maxBytes} bytes from the source, the configured limit.`);
      }
      used += length;
      try {
        return await source.read(offset, length, signal);
      } catch (e) {
        used -= length;
        throw e;
      }
    },
    async head(maxLength, signal) {
      if (used + maxLength > maxBytes) {
        throw new SourceError('too_large', `This request would read more than ${maxBytes} bytes from the source, the configured limit.`);
      }
      used += maxLength;
      let got = 0;
      try {
        const buf = await source.head(maxLength, signal);
        got = buf.byteLength;
        return buf;
      } finally {
        used -= maxLength - got;
      }
    },
  };
}
