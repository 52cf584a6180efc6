/**
 * Benchmark range server: a real loopback HTTP/1.1 server (keep-alive) for the files of one folder,
 * answering single `bytes=` ranges with 206 + Content-Range (and HEAD, 200 without Range, 416), with
 * an ETag from the file's size and mtime.
 *
 * Reads are positional reads of an open file (not readFile per request, as test/helpers/range-server.ts
 * does: that would read the whole 300 MB file for every 16 kB range).
 *
 * Latency: a path `/d<ms>/<file>` serves `<file>` after waiting <ms> milliseconds before answering
 * (time to first byte of every request, HEAD and 404 included), so one server gives several latencies:
 * `/d0/dem.tif`, `/d20/dem.tif`. The query string is ignored.
 *
 * Control (not logged): `GET /__log` returns the requests logged since the last `GET /__log?reset=1`
 * (which also clears the log) as JSON lines [method, path, rangeStart, rangeEnd, status, bytes].
 *
 * Run: node --import tsx bench/raster/server.ts <folder>   → prints {"port": N} on stdout, then serves
 * until SIGTERM / stdin closes.
 */
import { open, stat, type FileHandle } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, normalize, resolve } from 'node:path';

type Logged = [method: string, path: string, start: number, end: number, status: number, bytes: number];

const root = resolve(process.argv[2] ?? '.');
const handles = new Map<string, Promise<{ fh: FileHandle; size: number; etag: string }>>();
let log: Logged[] = [];

function fileOf(rel: string): Promise<{ fh: FileHandle; size: number; etag: string }> {
  let h = handles.get(rel);
  if (h === undefined) {
    h = (async () => {
      const path = join(root, normalize(rel).replace(/^(\.\.(\/|$))+/, ''));
      const st = await stat(path);
      if (!st.isFile()) throw new Error('not a file');
      return { fh: await open(path, 'r'), size: st.size, etag: `"${st.size.toString(16)}-${Math.round(st.mtimeMs).toString(16)}"` };
    })();
    h.catch(() => handles.delete(rel));
    handles.set(rel, h);
  }
  return h;
}

function parseRange(header: string | undefined, size: number): [number, number] | 'bad' | undefined {
  if (header === undefined) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (m === null || (m[1] === '' && m[2] === '')) return 'bad';
  if (m[1] === '') return [Math.max(0, size - Number(m[2])), size - 1];
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  return start >= size || end < start ? 'bad' : [start, end];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://x');
  if (url.pathname === '/__log') {
    const body = JSON.stringify(log);
    if (url.searchParams.get('reset') === '1') log = [];
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    return;
  }
  const entry: Logged = [req.method ?? 'GET', url.pathname, -1, -1, 0, 0];
  log.push(entry);
  let rel = decodeURIComponent(url.pathname);
  const d = /^\/d(\d+)(\/.*)$/.exec(rel);
  if (d !== null) {
    rel = d[2] as string;
    const ms = Number(d[1]);
    if (ms > 0) await sleep(ms);
  }
  let file;
  try {
    file = await fileOf(rel);
  } catch {
    entry[4] = 404;
    res.writeHead(404, { 'content-type': 'text/plain', 'content-length': '9' }).end('not found');
    return;
  }
  const headers: Record<string, string> = {
    'accept-ranges': 'bytes',
    'content-type': 'image/tiff',
    etag: file.etag,
    'last-modified': new Date(0).toUTCString(),
  };
  const range = parseRange(req.headers.range, file.size);
  if (range === 'bad') {
    entry[4] = 416;
    res.writeHead(416, { ...headers, 'content-range': `bytes */${file.size}`, 'content-length': '0' }).end();
    return;
  }
  const [start, end] = range ?? [0, file.size - 1];
  const length = end - start + 1;
  entry[2] = start;
  entry[3] = end;
  entry[4] = range === undefined ? 200 : 206;
  if (range !== undefined) headers['content-range'] = `bytes ${start}-${end}/${file.size}`;
  headers['content-length'] = String(length);
  if (req.method === 'HEAD') {
    res.writeHead(entry[4], headers).end();
    return;
  }
  if (length > 64 * 1024 * 1024) {
    // Never stream a whole 300 MB file into a benchmark client by accident.
    entry[4] = 413;
    res.writeHead(413, { 'content-type': 'text/plain', 'content-length': '9' }).end('too large');
    return;
  }
  const buf = Buffer.allocUnsafe(length);
  const { bytesRead } = await file.fh.read(buf, 0, length, start);
  entry[5] = bytesRead;
  res.writeHead(entry[4], headers).end(buf.subarray(0, bytesRead));
}

const server = http.createServer((req, res) => {
  handle(req, res).catch(() => res.destroy());
});
// Longer than any client's idle gap (geoblaze computes for ~30 s between reads on the big AOI), so no
// client ever reuses a socket the server is closing.
server.keepAliveTimeout = 600_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
const stop = () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
process.stdin.on('end', stop);
process.stdin.resume();
