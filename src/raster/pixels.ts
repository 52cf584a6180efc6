/**
 * Pure pixel helpers: typed views over decoded tile bytes, validity (nodata, NaN, mask) and
 * scale/offset (CONTRACT §5 raster rules).
 */
import type { TileCodec } from './geotiff-adapter.ts';

export type SampleArray =
  | Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array | Uint32Array
  | Float32Array | Float64Array | BigInt64Array | BigUint64Array;

/** Samples of one decoded tile as numbers, indexable as `get(i)`. */
export interface SampleView {
  readonly array: SampleArray;
  readonly isBig: boolean;
}

function bytesPer(codec: TileCodec): number {
  return (codec.bitsPerSample[0] ?? 8) / 8;
}

/** Big-endian files decode to big-endian bytes (except the float predictor, which emits native order). */
function swapInPlace(buf: ArrayBuffer, bytes: number): void {
  const u8 = new Uint8Array(buf);
  for (let i = 0; i + bytes <= u8.length; i += bytes) {
    for (let a = i, b = i + bytes - 1; a < b; a++, b--) {
      const t = u8[a] as number;
      u8[a] = u8[b] as number;
      u8[b] = t;
    }
  }
}

/** A typed view over decoded bytes for the codec's sample type. Assumes all samples share one type. */
export function sampleView(codec: TileCodec, decoded: ArrayBuffer): SampleView {
  const bytes = bytesPer(codec);
  if (!codec.littleEndian && bytes > 1 && codec.predictor !== 3) swapInPlace(decoded, bytes);
  const n = Math.floor(decoded.byteLength / bytes);
  const format = codec.sampleFormat[0] ?? 1;
  const bits = codec.bitsPerSample[0] ?? 8;
  const key = `${format}/${bits}`;
  switch (key) {
    case '1/8': return { array: new Uint8Array(decoded, 0, n), isBig: false };
    case '2/8': return { array: new Int8Array(decoded, 0, n), isBig: false };
    case '1/16': return { array: new Uint16Array(decoded, 0, n), isBig: false };
    case '2/16': return { array: new Int16Array(decoded, 0, n), isBig: false };
    case '1/32': return { array: new Uint32Array(decoded, 0, n), isBig: false };
    case '2/32': return { array: new Int32Array(decoded, 0, n), isBig: false };
    case '3/32': return { array: new Float32Array(decoded, 0, n), isBig: false };
    case '3/64': return { array: new Float64Array(decoded, 0, n), isBig: false };
    case '1/64': return { array: new BigUint64Array(decoded, 0, n), isBig: true };
    case '2/64': return { array: new BigInt64Array(decoded, 0, n), isBig: true };
    default: throw new Error(`unsupported sample type ${key}`);
  }
}

/**
 * Mask tile → one byte per pixel (non-zero = valid). GDAL writes internal masks as 1-bit rows padded to
 * whole bytes (MSB first) or, rarely, as 8-bit.
 */
export function unpackMask(codec: TileCodec, decoded: ArrayBuffer, width: number, height: number): Uint8Array {
  const bits = codec.bitsPerSample[0] ?? 1;
  const src = new Uint8Array(decoded);
  if (bits === 8) return src;
  const out = new Uint8Array(width * height);
  const rowBytes = Math.ceil(width / 8);
  for (let r = 0; r < height; r++) {
    for (let c = 0; c < width; c++) {
      const byte = src[r * rowBytes + (c >> 3)] ?? 0;
      out[r * width + c] = (byte >> (7 - (c & 7))) & 1;
    }
  }
  return out;
}

/**
 * The nodata value as the band's samples can hold it: an integer band cannot contain 1.5 or 300 in
 * uint8, so such a nodata never matches (null).
 */
export function effectiveNodata(nodata: number | null, dtype: string): number | null {
  if (nodata === null || Number.isNaN(nodata)) return null;
  if (dtype.startsWith('float')) return dtype === 'float32' ? Math.fround(nodata) : nodata;
  if (!Number.isInteger(nodata)) return null;
  const ranges: Record<string, [number, number]> = {
    uint8: [0, 255], int8: [-128, 127], uint16: [0, 65535], int16: [-32768, 32767],
    uint32: [0, 4294967295], int32: [-2147483648, 2147483647],
    uint64: [0, Number.MAX_SAFE_INTEGER], int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  };
  const range = ranges[dtype];
  if (range && (nodata < range[0] || nodata > range[1])) return null;
  return nodata;
}
