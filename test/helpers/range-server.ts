/**
 * A real loopback HTTP server for source tests: serves files from a folder and
 * in-memory buffers with correct Range / 206 / Content-Range / 416 / ETag / Last-Modified / HEAD, logs
 * every request, and injects faults per path or for the whole server.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, normalize } from 'node:path';

/** A misbehaviour of the server for matching requests. */
type Fault =
  /** Answer this status with a short text body (500, 404, 403 …). */
  | { kind: 'status'; status: number }
  /** Send headers and half the body, then reset the connection (TCP RST). */
  | { kind: 'reset' }
  /** Announce the full Content-Length, send half the body, then close normally. */
  | { kind: 'truncate' }
  /** Accept the request and never answer. */
  | { kind: 'hang' }
  /** Wait `delayMs` before answering normally. */
  | { kind: 'slow'; delayMs: number }
  /** Redirect (302 unless `status`) to `location`, absolute or relative, after `delayMs` if given. */
  | { kind: 'redirect'; location: string; status?: number; delayMs?: number }
  /** Ignore Range: always 200 with the full body. */
  | { kind: 'ignoreRange' };

export interface RangeServerOptions {
  /** Folder served for paths not in `files`. */
  root?: string;
  /** In-memory objects by path (`/a.bin`). */
  files?: Record<string, Uint8Array | string>;
  /** Faults by path. */
  faults?: Record<string, Fault>;
  /** Fault for every path that has none of its own. */
  fault?: Fault;
  /** Loopback address to bind, default 127.0.0.1 (127.0.0.2 works on Linux). */
  host?: string;
  /** Send ETag headers (default true). */
  etag?: boolean;
}

export interface LoggedRequest {
  method: string;
  path: string;
  range: string | undefined;
  status: number;
  /** Body bytes written (0 for HEAD and faults before the body). */
  bytesSent: number;
}

export interface RangeServer {
  /** Absolute URL of `path` on this server. */
  url(path: string): string;
  readonly origin: string;
  readonly requests: LoggedRequest[];
  /** Adds, replaces or (undefined) removes an in-memory object; its ETag changes with its content. */
  setFile(path: string, data: Uint8Array | string | undefined): void;
  /** Sets or clears the fault of one path. */
  setFault(path: string, fault: Fault | undefined): void;
  /** Sets or clears the fault of the whole server. */
  setServerFault(fault: Fault | undefined): void;
  close(): Promise<void>;
}

const toBytes = (d: Uint8Array | string): Uint8Array => (typeof d === 'string' ? new TextEncoder().encode(d) : d);

/** Parses a single `bytes=` range against `size`: [start, end] inclusive, 'unsatisfiable' or undefined (ignore). */
function parseRange(header: string | undefined, size: number): [number, number] | 'unsatisfiable' | undefined {
  if (header === undefined) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (m === null || (m[1] === '' && m[2] === '')) return undefined;
  if (m[1] === '') {
    const n = Number(m[2]);
    if (n === 0) return 'unsatisfiable';
    return [Math.max(0, size - n), size - 1];
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return [start, end];
}

/** Starts the server on `opts.host` (default 127.0.0.1), port 0. */
export async function startRangeServer(opts: RangeServerOptions = {}): Promise<RangeServer> {
  const files = new Map<string, Uint8Array>();
  const mtimes = new Map<string, Date>();
  for (const [p, d] of Object.entries(opts.files ?? {})) files.set(p, toBytes(d));
  const faults = new Map<string, Fault>(Object.entries(opts.faults ?? {}));
  let serverFault = opts.fault;
  const requests: LoggedRequest[] = [];
  const host = opts.host ?? '127.0.0.1';
  const sendEtag = opts.etag ?? true;

  async function load(path: string): Promise<Uint8Array | undefined> {
    const mem = files.get(path);
    if (mem !== undefined) return mem;
    if (opts.root === undefined) return undefined;
    const rel = normalize(decodeURIComponent(path)).replace(/^(\.\.(\/|$))+/, '');
    try {
      return new Uint8Array(await readFile(join(opts.root, rel)));
    } catch {
      return undefined;
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse, log: LoggedRequest): Promise<void> {
    const fault = faults.get(log.path) ?? serverFault;
    if (fault?.kind === 'hang') return;
    if (fault?.kind === 'slow' || (fault?.kind === 'redirect' && fault.delayMs !== undefined)) {
      await new Promise((r) => setTimeout(r, fault.delayMs));
    }
    if (fault?.kind === 'status') {
      log.status = fault.status;
      res.writeHead(fault.status, { 'content-type': 'text/plain' }).end(`status ${fault.status}`);
      return;
    }
    if (fault?.kind === 'redirect') {
      log.status = fault.status ?? 302;
      res.writeHead(log.status, { location: fault.location }).end();
      return;
    }
    const body = await load(log.path);
    if (body === undefined) {
      log.status = 404;
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const headers: Record<string, string> = {
      'accept-ranges': 'bytes',
      'content-type': 'application/octet-stream',
      'last-modified': (mtimes.get(log.path) ?? new Date(0)).toUTCString(),
    };
    if (sendEtag) headers['etag'] = `"${createHash('sha1').update(body).digest('hex').slice(0, 16)}"`;
    const range = fault?.kind === 'ignoreRange' ? undefined : parseRange(log.range, body.byteLength);
    if (range === 'unsatisfiable') {
      log.status = 416;
      res.writeHead(416, { ...headers, 'content-range': `bytes */${body.byteLength}` }).end();
      return;
    }
    const [start, end] = range ?? [0, body.byteLength - 1];
    const slice = body.subarray(start, end + 1);
    log.status = range === undefined ? 200 : 206;
    if (range !== undefined) headers['content-range'] = `bytes ${start}-${end}/${body.byteLength}`;
    headers['content-length'] = String(slice.byteLength);
    res.writeHead(log.status, headers);
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    if (fault?.kind === 'reset' || fault?.kind === 'truncate') {
      const half = slice.subarray(0, Math.floor(slice.byteLength / 2));
      res.write(half, () => {
        log.bytesSent = half.byteLength;
        // Let the half reach the client before cutting the connection.
        setTimeout(() => {
          if (fault.kind === 'reset') res.socket?.resetAndDestroy();
          else res.socket?.end();
        }, 20);
      });
      return;
    }
    log.bytesSent = slice.byteLength;
    res.end(slice);
  }

  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const log: LoggedRequest = { method: req.method ?? 'GET', path, range: req.headers.range, status: 0, bytesSent: 0 };
    requests.push(log);
    handle(req, res, log).catch(() => res.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  return {
    url: (path) => new URL(path, origin).href,
    origin,
    requests,
    setFile(path, data) {
      if (data === undefined) files.delete(path);
      else {
        files.set(path, toBytes(data));
        mtimes.set(path, new Date());
      }
    },
    setFault(path, fault) {
      if (fault === undefined) faults.delete(path);
      else faults.set(path, fault);
    },
    setServerFault(fault) {
      serverFault = fault;
    },
    close() {
      return new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}
