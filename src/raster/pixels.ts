/**
 * Pure pixel helpers: validity (nodata, NaN, mask) (contract §5 raster rules). Sample decoding is in
 * samples.ts.
 */
import type { TileCodec } from './geotiff-adapter.ts';

/**
 * Mask tile → one byte per pixel (non-zero = valid). GDAL writes internal masks as 1-bit rows padded to
 * whole bytes (MSB first) or, rarely, as 8-bit.
 */
export function unpackMask(codec: TileCodec, decoded: Uint8Array, width: number, height: number): Uint8Array {
  const bits = codec.bitsPerSample[0] ?? 1;
  const src = decoded;
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
/** A nodata given as a number (a STAC asset's) for a 64-bit integer band, as a BigInt when it is exact. */
export function exactNodata64(nodata: number | null, dtype: string): bigint | null {
  if (nodata === null || !Number.isSafeInteger(nodata)) return null;
  if (dtype === 'uint64') return nodata >= 0 ? BigInt(nodata) : null;
  return dtype === 'int64' ? BigInt(nodata) : null;
}

export function effectiveNodata(nodata: number | null, dtype: string): number | null {
  if (nodata === null || Number.isNaN(nodata)) return null;
  if (dtype.startsWith('float')) return dtype === 'float32' ? Math.fround(nodata) : nodata;
  if (!Number.isInteger(nodata)) return null;
  const ranges: Record<string, [number, number]> = {
    uint8: [0, 255],
    int8: [-128, 127],
    uint16: [0, 65535],
    int16: [-32768, 32767],
    uint32: [0, 4294967295],
    int32: [-2147483648, 2147483647],
    uint64: [0, Number.MAX_SAFE_INTEGER],
    int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  };
  const range = ranges[dtype];
  if (range && (nodata < range[0] || nodata > range[1])) return null;
  return nodata;
}
