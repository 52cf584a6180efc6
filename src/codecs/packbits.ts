/**
 * PackBits (TIFF compression 32773), decoded as libtiff 4.5's tif_packbits.c decodes it (what GDAL reads
 * with), in plain TypeScript: geotiff.js's decoder pushes every byte onto an array (~130× slower than GDAL).
 *
 * Each run starts with a signed header byte n: 0..127 copy the next n + 1 bytes, -1..-127 repeat the next
 * byte 1 - n times, -128 is a no-op. As in libtiff: decoding stops once the caller's buffer is full (a run
 * that overflows it is cut and the rest of the input ignored); a run whose bytes are missing from the
 * input is an error. Input that ends cleanly before the buffer is full ends the output short (libtiff
 * errors unless it asked for fewer bytes, as for the last strip of a file): callers check the length.
 */

/**
 * Literal runs of at least this many bytes are copied with copyWithin (a native memmove), which needs the
 * input in the same buffer as the output: a data-heavy stream is mostly 128-byte literals, which a byte
 * loop copies at a fraction of memcpy's speed and `set(input.subarray())` allocates a view for.
 */
const LONG = 24;
/**
 * The working buffer (decoded bytes, then a copy of the input), kept between calls up to this size: the
 * result is one copy of its decoded part, so a call allocates only what it returns (large fresh buffers
 * cost page faults and external-memory GCs, measured slower).
 */
const SCRATCH_MAX = 8 << 20;
let scratch = new Uint8Array(0);

/**
 * Decodes one PackBits tile or strip. With `expected`, the output is that size at most and decoding stops
 * once it is full; without it, the whole input is decoded. Throws on a run cut short by the end of input.
 * With `alloc` (a buffer of the caller's, from offset 0: the worker's spare tile buffers) the output is
 * decoded in it and returned as a view, without the copy and the fresh buffer of a tile (bench/codecs:
 * about half of a tile's time).
 */
export function decodePackBits(input: Uint8Array, expected?: number, alloc?: (n: number, most: number) => Uint8Array): Uint8Array {
  if (expected !== undefined && !(Number.isInteger(expected) && expected >= 0)) throw new RangeError(`PackBits: expected size ${expected}`);
  const limit = expected ?? decodedLength(input);
  const inLength = input.length;
  const size = limit + inLength;
  let buffer: Uint8Array = scratch;
  if (alloc) {
    buffer = alloc(size, size);
  } else if (buffer.length < size) {
    const fresh = new Uint8Array(size);
    if (size <= SCRATCH_MAX) scratch = fresh;
    buffer = fresh;
  }
  buffer.set(input, limit);
  let ip = limit;
  const end = limit + inLength;
  let op = 0;
  while (op < limit && ip < end) {
    const header = buffer[ip++] as number;
    if (header < 128) {
      let n = header + 1;
      if (n > limit - op) n = limit - op;
      if (n > end - ip) throw truncated(op, limit);
      if (n < LONG) {
        for (let i = 0; i < n; i++) buffer[op + i] = buffer[ip + i] as number;
      } else {
        buffer.copyWithin(op, ip, ip + n);
      }
      op += n;
      ip += n;
    } else if (header > 128) {
      let n = 257 - header;
      if (n > limit - op) n = limit - op;
      if (ip >= end) throw truncated(op, limit);
      const value = buffer[ip++] as number;
      if (n < LONG) {
        for (let i = 0; i < n; i++) buffer[op + i] = value;
      } else {
        buffer.fill(value, op, op + n);
      }
      op += n;
    }
    // 128 (-128): no operation.
  }
  // The caller's buffer as it is (the input copy behind the output is never read), or a buffer of its own
  // of the output's size: samples.ts reinterprets either without a further copy.
  return alloc ? buffer.subarray(0, op) : buffer.slice(0, op);
}

/** Bytes the whole input decodes to (header bytes only are read): sizes the output when no size is given. */
function decodedLength(input: Uint8Array): number {
  let total = 0;
  for (let ip = 0; ip < input.length;) {
    const header = input[ip] as number;
    if (header < 128) {
      total += header + 1;
      ip += header + 2;
    } else {
      if (header > 128) total += 257 - header;
      ip += header > 128 ? 2 : 1;
    }
  }
  return total;
}

function truncated(op: number, limit: number): Error {
  return new Error(`PackBits: input ends inside a run after ${op} of ${limit} bytes`);
}
