/**
 * The wire under HttpSource: the address check and DNS pinning of a host, one GET or POST on a pinned
 * socket, and reading a body with its length checked. HttpSource (http.ts) adds ranges, redirects,
 * validators and budgets on top.
 */
import http from 'node:http';
import type { IncomingMessage } from 'node:http';
import https from 'node:https';
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { LookupFunction } from 'node:net';
import { errorCode, networkFailure, raceAbort } from './errors.ts';
import { addressAllowed } from '../policy.ts';
import { SourceError } from './source.ts';

/** A host name resolved: every request connects to the one address that was checked. */
export type ResolveHost = (hostname: string) => Promise<readonly { address: string; family: number }[]>;

/** Default name resolution: all addresses, in the resolver's own order. */
export const systemResolve = (hostname: string): Promise<{ address: string; family: number }[]> => dnsLookup(hostname, { all: true, verbatim: true });

/** Keep-alive sockets shared by every source, so repeated reads of one host skip the handshake. */
const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 64 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 64 }),
};

/** The checked address a request connects to (undefined: the URL's host is an IP literal). */
export interface Pinned {
  address: string;
  family: 4 | 6;
}

/**
 * Resolves and checks the host of `url`: every address must be allowed (else 'forbidden'), so DNS cannot
 * answer differently between the check and the connection; connects to the first.
 */
export async function pinHost(
  url: URL,
  opts: { allowPrivateNetworks: boolean | readonly string[]; resolveHost: ResolveHost },
  signal: AbortSignal,
): Promise<Pinned | undefined> {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const literal = isIP(host);
  if (literal !== 0) {
    if (!addressAllowed(host, opts.allowPrivateNetworks)) throw refused();
    return undefined;
  }
  let addresses: readonly { address: string; family: number }[];
  try {
    addresses = await raceAbort(opts.resolveHost(host), signal);
  } catch (e) {
    if (signal.aborted) throw e;
    const code = errorCode(e);
    if (code === 'ENOTFOUND' || code === 'ENODATA') {
      throw new SourceError('not_found', `The host name "${host}" of the source does not exist.`);
    }
    throw new SourceError('upstream_failed', `The host name "${host}" of the source could not be resolved.`);
  }
  if (addresses.length === 0) throw new SourceError('not_found', `The host name "${host}" of the source has no address.`);
  if (addresses.some((a) => !addressAllowed(a.address, opts.allowPrivateNetworks))) throw refused();
  const first = addresses[0]!;
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}

/** A host that resolves to an address the policy does not allow. */
function refused(): SourceError {
  return new SourceError(
    'forbidden',
    'The source URL points to a private, loopback or link-local address, which this service may not fetch ' +
      '(an operator allows such addresses with ZONAL_ALLOW_PRIVATE_NETWORKS).',
  );
}

/**
 * One GET (with a Range header unless `range` is null), or a POST of a JSON `payload`; a stale keep-alive
 * socket (reset before any answer) is retried once on a fresh one.
 */
export function request(
  url: URL,
  pinned: Pinned | undefined,
  range: string | null,
  signal: AbortSignal,
  retried = false,
  payload?: Buffer,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const lookup: LookupFunction | undefined =
      pinned === undefined
        ? undefined
        : (_host, options, cb) => {
            if (options.all === true) cb(null, [pinned]);
            else cb(null, pinned.address, pinned.family);
          };
    const mod = url.protocol === 'https:' ? https : http;
    const headers: Record<string, string> = { 'accept-encoding': 'identity', 'user-agent': 'zonal-stats-service' };
    if (range !== null) headers['range'] = range;
    if (payload !== undefined) {
      headers['content-type'] = 'application/json';
      headers['accept'] = 'application/geo+json, application/json';
      headers['content-length'] = String(payload.byteLength);
    }
    const req = mod.request(url, {
      method: payload === undefined ? 'GET' : 'POST',
      agent: agents[url.protocol === 'https:' ? 'https:' : 'http:'],
      headers,
      signal,
      ...(lookup === undefined ? {} : { lookup }),
    });
    let answered = false;
    req.once('response', (res) => {
      answered = true;
      resolve(res);
    });
    req.on('error', (e) => {
      if (answered) return; // body errors are reported by the response stream
      if (!retried && req.reusedSocket && errorCode(e) === 'ECONNRESET' && !signal.aborted) {
        request(url, pinned, range, signal, true, payload).then(resolve, reject);
      } else {
        reject(e);
      }
    });
    req.end(payload);
  });
}

/**
 * Reads a body of `expected` bytes (undefined: until the end, at most `cap`). Fewer bytes than
 * promised, a reset or more than `cap` → SourceError.
 */
export function readBody(res: IncomingMessage, expected: number | undefined, cap: number, signal: AbortSignal): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    // A body of known length is copied into its one buffer as it comes (not zero-filled first: every byte
    // is written before it is handed out, or the read fails); the chunks are not kept.
    const into = expected !== undefined && expected > 0 ? new Uint8Array(Buffer.allocUnsafeSlow(expected).buffer, 0, expected) : null;
    let received = 0;
    let done = false;
    const finish = (err: unknown, value?: Uint8Array): void => {
      if (done) return;
      done = true;
      signal.removeEventListener('abort', onAbort);
      if (err !== undefined) {
        res.destroy();
        reject(err);
      } else {
        resolve(value!);
      }
    };
    const onAbort = (): void => finish(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    res.on('data', (chunk: Buffer) => {
      received += chunk.byteLength;
      if (received > cap || (expected !== undefined && received > expected)) {
        finish(
          expected !== undefined && received > expected
            ? new SourceError('upstream_failed', "The source's server sent more bytes than it announced.", res.statusCode)
            : new SourceError('too_large', 'The answer is larger than allowed.', res.statusCode),
        );
        return;
      }
      if (into !== null) into.set(chunk, received - chunk.byteLength);
      else chunks.push(chunk);
    });
    res.once('end', () => {
      if (expected !== undefined && received !== expected) {
        finish(truncated(res.statusCode));
        return;
      }
      if (into !== null) {
        finish(undefined, into);
        return;
      }
      const out = new Uint8Array(received);
      let at = 0;
      for (const c of chunks) {
        out.set(c, at);
        at += c.byteLength;
      }
      finish(undefined, out);
    });
    res.once('error', (e) => finish(errorCode(e) === 'ECONNRESET' ? truncated(res.statusCode) : networkFailure(e)));
    // After 'end' this changes nothing: the error is only made when the body is still short.
    res.once('close', () => {
      if (!done) finish(truncated(res.statusCode));
    });
  });
}

/** The body ended (or the socket closed) before its announced length. */
function truncated(status: number | undefined): SourceError {
  return new SourceError('upstream_failed', "The source's server closed the connection before sending all the promised bytes.", status);
}
