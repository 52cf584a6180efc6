/**
 * Blosc 1 chunks with LZ4 inside (zarr's default compressor, and ERA5's on the cloud): the frame read here and
 * its LZ4 streams given to a native block decoder (codecs/lz4.ts), then unshuffled. numcodecs' WebAssembly
 * Blosc decodes the same chunks ~3× slower (bench/cube); every other Blosc frame (other inner codecs,
 * bitshuffle, a format version from elsewhere) is left to it. The frame is read as c-blosc 1.21 reads it
 * (blosc.c `blosc_run_decompression_with_context`, `blosc_d`): the same checks, the same bytes out
 * (test/codecs/blosc.test.ts against numcodecs on frames numcodecs wrote).
 */
import type { Lz4Block } from './lz4.ts';
import { fresh, type Allocate } from './deflate.ts';
import { release } from './release.ts';

const HEADER = 16;
const DOSHUFFLE = 0x1;
const MEMCPYED = 0x2;
const DOBITSHUFFLE = 0x4;
const FUTURE = 0x8;
const DONT_SPLIT = 0x10;
const LZ4_FORMAT = 1;
// c-blosc's limits on splitting a block into one stream per byte of the type.
const MAX_SPLITS = 16;
const MIN_BUFFERSIZE = 128;

function corrupt(why: string): Error {
  return new Error(`corrupt Blosc chunk: ${why}`);
}

/**
 * Refuses a Blosc frame that c-blosc's own check (`blosc_cbuffer_validate`) refuses, and one that would decode
 * to more than `most` bytes. numcodecs' decoder reads the header's sizes without knowing how many bytes it was
 * given: a chunk cut short would be decoded from whatever follows it in WebAssembly memory.
 */
export function checkBloscFrame(src: Uint8Array, most: number): void {
  if (src.byteLength < HEADER) throw corrupt(`${src.byteLength} bytes are shorter than its header`);
  const view = new DataView(src.buffer, src.byteOffset, src.byteLength);
  if (view.getInt32(12, true) !== src.byteLength) throw corrupt('its compressed size is not the bytes read');
  const nbytes = view.getInt32(4, true);
  if (nbytes < 0 || nbytes > most) throw corrupt(`it would decode to ${nbytes} bytes`);
}

/** Whether `src` is a Blosc frame this decoder reads (else numcodecs' decoder takes it). */
export function bloscReadsHere(src: Uint8Array): boolean {
  if (src.byteLength < HEADER || src[0] !== 2) return false;
  const flags = src[2] as number;
  if ((flags & (FUTURE | DOBITSHUFFLE)) !== 0) return false;
  return (flags & MEMCPYED) !== 0 || (flags >> 5 === LZ4_FORMAT && src[1] === 1);
}

/**
 * The items a caller reads, as rows of planes: in every plane of `planeItems` items, rows [row0, row1) of
 * `rowItems` items, and in each the items [0, col1).
 */
export interface ItemRows {
  readonly planeItems: number;
  readonly rowItems: number;
  readonly row0: number;
  readonly row1: number;
  readonly col1: number;
}

/**
 * Decodes the Blosc frame `src` (bloscReadsHere) of `expected` decoded bytes into a buffer from `alloc` (offset
 * 0, so any typed array views it; the caller's spare one, or a new one). With `part`, a shuffled frame's items
 * outside it are zeros (every stream is still decoded: LZ4 cannot skip). Throws on a corrupt frame.
 */
export function decodeBlosc(src: Uint8Array, expected: number, lz4: Lz4Block, part?: ItemRows, alloc: Allocate = fresh): Uint8Array {
  const view = new DataView(src.buffer, src.byteOffset, src.byteLength);
  const flags = src[2] as number;
  const typesize = src[3] as number;
  const nbytes = view.getInt32(4, true);
  const blocksize = view.getInt32(8, true);
  const cbytes = view.getInt32(12, true);
  if (nbytes !== expected) throw corrupt(`it holds ${nbytes} bytes, the chunk ${expected}`);
  if (cbytes !== src.byteLength) throw corrupt('its compressed size is not the bytes read');
  // Every byte is written unless a part is asked for: then the rest is zeros, never an earlier buffer's bytes.
  const out = alloc(nbytes, nbytes);
  if (part !== undefined) out.fill(0);
  if (nbytes === 0) return out;
  if (blocksize <= 0 || blocksize > nbytes || typesize === 0) throw corrupt('its block size or type size is impossible');
  if ((flags & MEMCPYED) !== 0) {
    if (cbytes !== nbytes + HEADER) throw corrupt('a copied chunk of the wrong size');
    out.set(src.subarray(HEADER, HEADER + nbytes));
    return out;
  }
  const leftover = nbytes % blocksize;
  const nblocks = Math.ceil(nbytes / blocksize);
  if (nblocks > (cbytes - HEADER) / 4) throw corrupt('too short for its block offsets');
  const shuffled = (flags & DOSHUFFLE) !== 0 && typesize > 1;
  for (let b = 0; b < nblocks; b++) {
    const last = b === nblocks - 1 && leftover > 0;
    const bsize = last ? leftover : blocksize;
    const split = (flags & DONT_SPLIT) === 0 && typesize <= MAX_SPLITS && Math.floor(blocksize / typesize) >= MIN_BUFFERSIZE && !last;
    const nsplits = split ? typesize : 1;
    const neblock = Math.floor(bsize / nsplits);
    if (neblock * nsplits !== bsize) throw corrupt('a block does not split evenly');
    let at = view.getInt32(HEADER + 4 * b, true);
    const parts: Uint8Array[] = [];
    for (let j = 0; j < nsplits; j++) {
      if (at < 0 || at > cbytes - 4) throw corrupt('a stream starts outside it');
      const size = view.getInt32(at, true);
      at += 4;
      if (size < 0 || size > cbytes - at) throw corrupt('a stream ends outside it');
      const stream = src.subarray(at, at + size);
      parts.push(size === neblock ? stream : lz4(stream, neblock));
      at += size;
    }
    if (shuffled && part !== undefined && blocksize % typesize === 0 && bsize % typesize === 0) {
      unshuffleRows(parts, typesize, b * (blocksize / typesize), bsize / typesize, out, part);
    } else if (shuffled) unshuffle(parts, typesize, bsize, out, b * blocksize);
    else {
      let to = b * blocksize;
      for (const p of parts) {
        out.set(p, to);
        to += p.byteLength;
      }
    }
    // The LZ4 decoder's outputs are this call's alone: freed now (the stored streams are views of `src`).
    for (const p of parts) if (p.buffer !== src.buffer) release(p);
  }
  return out;
}

/**
 * Byte j of element i is byte `j * count + i` of the shuffled block (its streams one after the other);
 * the block's last `bsize % typesize` bytes are not shuffled (c-blosc's unshuffle_generic).
 */
function unshuffle(parts: Uint8Array[], typesize: number, bsize: number, out: Uint8Array, at: number): void {
  const count = Math.floor(bsize / typesize);
  const whole = parts.length === 1 ? (parts[0] as Uint8Array) : null;
  const streams = streamsOf(parts, typesize, count);
  if (typesize === 2) unshuffle2(streams[0] as Uint8Array, streams[1] as Uint8Array, count, out, at);
  else if (typesize === 4) unshuffle4(streams, count, out, at);
  else {
    for (let j = 0; j < typesize; j++) {
      const s = streams[j] as Uint8Array;
      for (let i = 0, o = at + j; i < count; i++, o += typesize) out[o] = s[i] as number;
    }
  }
  if (whole !== null && count * typesize < bsize) out.set(whole.subarray(count * typesize, bsize), at + count * typesize);
}

/** A stream as 32-bit words (a copy when it is not on a 4-byte boundary). */
function words(s: Uint8Array, n: number): Uint32Array {
  const aligned = (s.byteOffset & 3) === 0 ? s : s.slice(0, n * 4);
  return new Uint32Array(aligned.buffer, aligned.byteOffset, n);
}

// Four elements a step through 32-bit words (little-endian, as Node's platforms are): ~2× the byte loop.
function unshuffle2(s0: Uint8Array, s1: Uint8Array, count: number, out: Uint8Array, at: number): void {
  const q = (at & 3) === 0 && (out.byteOffset & 3) === 0 ? count >> 2 : 0;
  if (q > 0) {
    const lo = words(s0, q);
    const hi = words(s1, q);
    const o = new Uint32Array(out.buffer, out.byteOffset + at, q * 2);
    for (let k = 0, w = 0; k < q; k++, w += 2) {
      const a = lo[k] as number;
      const b = hi[k] as number;
      o[w] = (a & 0xff) | ((b & 0xff) << 8) | ((a & 0xff00) << 8) | ((b & 0xff00) << 16);
      o[w + 1] = ((a >>> 16) & 0xff) | ((b >>> 8) & 0xff00) | ((a >>> 8) & 0xff0000) | (b & 0xff000000);
    }
  }
  for (let i = q * 4; i < count; i++) {
    out[at + 2 * i] = s0[i] as number;
    out[at + 2 * i + 1] = s1[i] as number;
  }
}

function unshuffle4(streams: Uint8Array[], count: number, out: Uint8Array, at: number): void {
  const q = (at & 3) === 0 && (out.byteOffset & 3) === 0 ? count >> 2 : 0;
  if (q > 0) {
    const [w0, w1, w2, w3] = streams.map((s) => words(s, q)) as [Uint32Array, Uint32Array, Uint32Array, Uint32Array];
    const o = new Uint32Array(out.buffer, out.byteOffset + at, q * 4);
    for (let k = 0, w = 0; k < q; k++, w += 4) {
      const a = w0[k] as number;
      const b = w1[k] as number;
      const c = w2[k] as number;
      const d = w3[k] as number;
      // Element e of the four takes byte e of each stream's word.
      o[w] = (a & 0xff) | ((b & 0xff) << 8) | ((c & 0xff) << 16) | ((d & 0xff) << 24);
      o[w + 1] = ((a >>> 8) & 0xff) | (b & 0xff00) | ((c & 0xff00) << 8) | ((d & 0xff00) << 16);
      o[w + 2] = ((a >>> 16) & 0xff) | ((b >>> 8) & 0xff00) | (c & 0xff0000) | ((d & 0xff0000) << 8);
      o[w + 3] = (a >>> 24) | ((b >>> 16) & 0xff00) | ((c >>> 8) & 0xff0000) | (d & 0xff000000);
    }
  }
  for (let i = q * 4; i < count; i++) for (let j = 0; j < 4; j++) out[at + 4 * i + j] = (streams[j] as Uint8Array)[i] as number;
}

/** The shuffled streams of a block of `count` items (one part a stream, or one part holding them all). */
function streamsOf(parts: Uint8Array[], typesize: number, count: number): Uint8Array[] {
  const whole = parts.length === 1 ? (parts[0] as Uint8Array) : null;
  return whole === null ? parts : Array.from({ length: typesize }, (_, j) => whole.subarray(j * count, (j + 1) * count));
}

/**
 * Unshuffles, of the block whose items are [first, first + count) of the chunk, only those in `part`'s rows:
 * per plane and row, the run of items [0, col1) that falls in the block.
 */
function unshuffleRows(parts: Uint8Array[], typesize: number, first: number, count: number, out: Uint8Array, part: ItemRows): void {
  const streams = streamsOf(parts, typesize, count);
  const { planeItems, rowItems, row0, row1, col1 } = part;
  const end = first + count;
  // Whole rows (a need that reaches the block's last column) are one run a plane.
  const [rows, runs] = col1 >= rowItems ? [row1 - row0, 1] : [1, row1 - row0];
  const out16 = typesize === 2 && LITTLE_ENDIAN ? new Uint16Array(out.buffer, out.byteOffset, out.byteLength >> 1) : null;
  for (let plane = Math.floor(first / planeItems) * planeItems; plane < end; plane += planeItems) {
    for (let k = 0; k < runs; k++) {
      const r = row0 + k;
      const a = Math.max(first, plane + r * rowItems);
      const b = Math.min(end, plane + (r + rows - 1) * rowItems + col1);
      if (a >= b) continue;
      if (out16 !== null) unshuffleRun16(streams[0] as Uint8Array, streams[1] as Uint8Array, a - first, b - first, out16, first);
      else unshuffleRun(streams, typesize, a - first, b - first, out, first);
    }
  }
}

/** Whether this platform stores the low byte of a 16-bit word first (unshuffleRun16 writes items as words). */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** unshuffleRun for two-byte items, an item a 16-bit store (little-endian: the low byte is stream 0's). */
function unshuffleRun16(s0: Uint8Array, s1: Uint8Array, i0: number, i1: number, out16: Uint16Array, first: number): void {
  for (let i = i0, o = first + i0; i < i1; i++, o++) out16[o] = (s0[i] as number) | ((s1[i] as number) << 8);
}

/** Items [i0, i1) of a block (block-local) into `out`, whose item 0 of the block is item `first` of the chunk. */
function unshuffleRun(streams: Uint8Array[], typesize: number, i0: number, i1: number, out: Uint8Array, first: number): void {
  if (typesize === 2) {
    const s0 = streams[0] as Uint8Array;
    const s1 = streams[1] as Uint8Array;
    for (let i = i0, o = 2 * (first + i0); i < i1; i++, o += 2) {
      out[o] = s0[i] as number;
      out[o + 1] = s1[i] as number;
    }
    return;
  }
  for (let j = 0; j < typesize; j++) {
    const s = streams[j] as Uint8Array;
    for (let i = i0, o = typesize * (first + i0) + j; i < i1; i++, o += typesize) out[o] = s[i] as number;
  }
}
