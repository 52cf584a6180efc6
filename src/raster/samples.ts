/**
 * Decompressed tile bytes → samples as numbers (pure): byte order, predictors, packed bit depths and
 * half floats, following libtiff's order of operations (swap, then undo predictor 2; predictor 3
 * re-interleaves byte planes into machine order; bit depths that are not whole bytes are MSB-first bit
 * strings with each row padded to a byte).
 *
 * The output is always a typed array of the tile's samples, `tileWidth` per row, pixel-interleaved for
 * PlanarConfiguration 1 and one band for 2.
 */
import { getFloat16 } from '@petamoriken/float16';
import type { TileCodec } from './geotiff-adapter.ts';
import type { Decompressed } from './codecs/index.ts';
import { undoFloatingPoint, undoHorizontal, wholeSpan, type BlockSpan } from './predictor.ts';

export type SampleArray =
  Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array | Uint32Array | Float32Array | Float64Array | BigInt64Array | BigUint64Array;

/** Samples of one decoded tile. */
export interface SampleView {
  readonly array: SampleArray;
  readonly isBig: boolean;
}

/** The data type a band is read as ("uint8" … "float64"), or the reason it cannot be read. */
export type SampleType = { dtype: string } | { refuse: string };

/**
 * How samples of `bits` bits in TIFF SampleFormat `format` are read (GDAL's mapping): depths 1–7 as
 * uint8, 9–15 as uint16, 17–31 as uint32 (signed ones too, as GDAL reads them); 16-bit floats as float32.
 */
export function sampleType(format: number, bits: number): SampleType {
  // SampleFormat 4 ("undefined") is read as unsigned, as GDAL does.
  if (format === 1 || format === 4) {
    if (bits >= 1 && bits <= 8) return { dtype: 'uint8' };
    if (bits <= 16) return { dtype: 'uint16' };
    if (bits <= 32) return { dtype: 'uint32' };
    if (bits === 64) return { dtype: 'uint64' };
  } else if (format === 2) {
    const signed: Record<number, string> = { 8: 'int8', 16: 'int16', 32: 'int32', 64: 'int64' };
    if (signed[bits]) return { dtype: signed[bits] };
    // Signed depths that are not whole words are values of the unsigned n-bit domain to GDAL: its writer
    // stores them so (PIXELTYPE=SIGNEDBYTE NBITS=4 keeps 15 as 15) and its reader does not sign-extend.
    if (bits >= 1 && bits <= 8) return { dtype: 'uint8' };
    if (bits <= 16) return { dtype: 'uint16' };
    if (bits <= 32) return { dtype: 'uint32' };
  } else if (format === 3) {
    if (bits === 16 || bits === 32) return { dtype: 'float32' };
    if (bits === 64) return { dtype: 'float64' };
    return { refuse: `${bits}-bit floating-point samples` };
  } else if (format === 5 || format === 6) {
    return { refuse: 'complex-valued samples' };
  }
  return { refuse: `${bits}-bit samples of TIFF SampleFormat ${format}` };
}

/**
 * The bytes as an ArrayBuffer of their own (they are changed in place next; the samples are views from its
 * start), copied only when they do not start it (a view into a shared pool).
 */
function aligned(bytes: Uint8Array): ArrayBufferLike {
  // A SharedArrayBuffer (a plane decoded straight into the decoded-tile cache's memory) is used as it is.
  if (bytes.byteOffset === 0) return bytes.buffer;
  return new Uint8Array(bytes).buffer;
}

function typed(dtype: string, buf: ArrayBufferLike, n: number): SampleView {
  switch (dtype) {
    case 'uint8':
      return { array: new Uint8Array(buf, 0, n), isBig: false };
    case 'int8':
      return { array: new Int8Array(buf, 0, n), isBig: false };
    case 'uint16':
      return { array: new Uint16Array(buf, 0, n), isBig: false };
    case 'int16':
      return { array: new Int16Array(buf, 0, n), isBig: false };
    case 'uint32':
      return { array: new Uint32Array(buf, 0, n), isBig: false };
    case 'int32':
      return { array: new Int32Array(buf, 0, n), isBig: false };
    case 'float32':
      return { array: new Float32Array(buf, 0, n), isBig: false };
    case 'float64':
      return { array: new Float64Array(buf, 0, n), isBig: false };
    case 'uint64':
      return { array: new BigUint64Array(buf, 0, n), isBig: true };
    case 'int64':
      return { array: new BigInt64Array(buf, 0, n), isBig: true };
    default:
      throw new Error(`unsupported sample type ${dtype}`);
  }
}

/** Byte order swapped for the samples of bytes [from, to). */
function swapInPlace(u8: Uint8Array, size: number, from: number, to: number): void {
  for (let i = from; i + size <= Math.min(to, u8.length); i += size) {
    for (let a = i, b = i + size - 1; a < b; a++, b--) {
      const t = u8[a] as number;
      u8[a] = u8[b] as number;
      u8[b] = t;
    }
  }
}

/** MSB-first bit strings, each row padded to a whole byte → one element per sample. */
function unpackBits(src: Uint8Array, bits: number, perRow: number, rows: number): Uint8Array | Uint16Array | Uint32Array {
  const n = perRow * rows;
  const out = bits <= 8 ? new Uint8Array(n) : bits <= 16 ? new Uint16Array(n) : new Uint32Array(n);
  const rowBytes = Math.ceil((perRow * bits) / 8);
  const usable = Math.min(rows, Math.floor(src.length / rowBytes));
  for (let r = 0; r < usable; r++) {
    let bit = r * rowBytes * 8;
    for (let i = 0; i < perRow; i++) {
      let v = 0;
      for (let k = 0; k < bits; k++, bit++) v = v * 2 + (((src[bit >> 3] as number) >> (7 - (bit & 7))) & 1);
      out[r * perRow + i] = v;
    }
  }
  return usable === rows ? out : out.subarray(0, usable * perRow);
}

/**
 * The samples of one decompressed tile (or strip) of `rows` rows; byte order and predictors are undone on
 * `span` only (the rows and columns some zone needs), the rest of the array left as it is. Throws for
 * combinations the reader refuses before any tile is read (reader.ts checks them with the same rules).
 */
export function toSamples(codec: TileCodec, d: Decompressed, rows: number, span: BlockSpan = wholeSpan(codec.tileWidth, rows)): SampleView {
  const format = codec.sampleFormat[0] ?? 1;
  const bits = codec.bitsPerSample[0] ?? 8;
  const type = sampleType(format, bits);
  if ('refuse' in type) throw new Error(type.refuse);
  const spp = codec.planarConfiguration === 2 ? 1 : codec.samplesPerPixel;
  const perRow = codec.tileWidth * spp;
  if (d.native) {
    const size = bits <= 8 ? 1 : bits / 8;
    return typed(type.dtype, aligned(d.bytes), Math.floor(d.bytes.byteLength / size));
  }
  if (bits % 8 !== 0) {
    const unpacked = unpackBits(d.bytes, bits, perRow, rows);
    return { array: unpacked, isBig: false };
  }
  const size = bits / 8;
  if (size === 3) {
    // 24-bit (NBITS=24), widened to 32 bits as GDAL reads it: GDAL packs a sample most significant byte
    // first and libtiff reverses each triple in files of the other byte order, so a little-endian file
    // holds big-endian triples and a big-endian file little-endian ones (checked against GDAL 3.6).
    const n = Math.floor(d.bytes.length / 3);
    const out = new Uint32Array(n);
    const b = d.bytes;
    for (let i = 0, o = 0; i < n; i++, o += 3) {
      out[i] = codec.littleEndian
        ? ((b[o] as number) << 16) | ((b[o + 1] as number) << 8) | (b[o + 2] as number)
        : (b[o] as number) | ((b[o + 1] as number) << 8) | ((b[o + 2] as number) << 16);
    }
    return { array: out, isBig: false };
  }
  let buf = aligned(d.bytes);
  // Rows the decompressed bytes hold (the buffer may be longer than its bytes: a prefix decode's margin).
  const rowBytes = perRow * size;
  const held = Math.min(rows, Math.floor(d.bytes.byteLength / rowBytes));
  if (codec.predictor === 3) {
    buf = undoFloatingPoint(buf, codec.tileWidth, held, spp, bits, span);
  } else {
    if (!codec.littleEndian && size > 1) swapInPlace(new Uint8Array(buf), size, span.row0 * rowBytes, Math.min(span.row1, held) * rowBytes);
    if (codec.predictor === 2) undoHorizontal(buf, codec.tileWidth, held, spp, bits, span);
  }
  const n = Math.floor(Math.min(buf.byteLength, d.bytes.byteLength) / size);
  if (format === 3 && bits === 16) {
    const view = new DataView(buf);
    const out = new Float32Array(n);
    for (let i = 0; i < n; i++) out[i] = getFloat16(view, i * 2, true);
    return { array: out, isBig: false };
  }
  return typed(type.dtype, buf, n);
}
