/**
 * Range server child of the vector benchmark: test/helpers/range-server.ts (a real loopback HTTP server
 * honouring single `bytes=` ranges with 206 / Content-Range) serving, from memory,
 *   /vector_1m.parquet          the generated file, byte for byte;
 *   /d20/vector_1m.parquet      the same bytes (no copy), every request answered 20 ms late (the
 *                               helper's `slow` fault), as from a server 20 ms away;
 *   /vector_1m_nocover.parquet  the same bytes with the `covering` member of the footer's `geo` JSON
 *                               blanked out by spaces (same length, so the Thrift footer stays valid):
 *                               the service then has no bbox statistics to prune with and reads every
 *                               row group ("the service with pruning disabled", src/ untouched).
 * ETags are off: the helper hashes the whole body (SHA-1 of 80 MB) on every request; Last-Modified is
 * the validator instead.
 *
 * Started by bench.ts with child_process.fork (IPC): sends {origin} when listening; answers {cmd:'log'}
 * with the requests logged since the last {cmd:'log'} (and clears them); exits on {cmd:'exit'}.
 */
import { readFileSync } from 'node:fs';
import { startRangeServer } from '../../test/helpers/range-server.ts';

const path = process.argv[2];
if (path === undefined || process.send === undefined) throw new Error('usage: fork serve.ts <file.parquet> (with IPC)');

const bytes = new Uint8Array(readFileSync(path));

/** The file with `,"covering":{…}` inside the footer's geo JSON replaced by as many spaces. */
function withoutCovering(src: Uint8Array): Uint8Array {
  const out = new Uint8Array(src);
  const footerLen = Buffer.from(src.buffer, src.byteOffset + src.byteLength - 8, 4).readUInt32LE(0);
  const footerStart = src.byteLength - 8 - footerLen;
  const footer = Buffer.from(out.buffer, out.byteOffset + footerStart, footerLen);
  const m = /,"covering":\{"bbox":\{[^{}]*\}\}/.exec(footer.toString('latin1'));
  if (m === null) throw new Error('no covering member in the footer');
  footer.fill(0x20, m.index, m.index + m[0].length);
  return out;
}

const server = await startRangeServer({
  files: { '/vector_1m.parquet': bytes, '/d20/vector_1m.parquet': bytes, '/vector_1m_nocover.parquet': withoutCovering(bytes) },
  faults: { '/d20/vector_1m.parquet': { kind: 'slow', delayMs: 20 } },
  etag: false,
});
process.on('message', (m: { cmd: string }) => {
  if (m.cmd === 'log') process.send!({ log: server.requests.splice(0) });
  else if (m.cmd === 'exit') void server.close().then(() => process.exit(0));
});
process.send({ origin: server.origin, bytes: bytes.byteLength });
