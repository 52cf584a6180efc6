/**
 * LERC (TIFF compression 34887), alone or wrapped in DEFLATE or ZSTD (LercParameters[1]), decoded by Esri's
 * own decoder (the `lerc` package, WASM): the only file importing it.
 *
 * libtiff stores a pixel-interleaved tile as one LERC band of `samplesPerPixel` depths, and marks NaN pixels
 * of floating-point rasters through LERC's validity mask (or, in LERC 4, a per-depth no-data value); it
 * turns both back into NaN when reading, and so do we.
 */
import { inflateSync } from 'node:zlib';
import * as Lerc from 'lerc';
import type { TileCodec } from '../geotiff-adapter.ts';
import { decodeZstd } from '../../codecs/zstd.ts';

let loaded: Promise<void> | null = null;

/** An upper bound of a LERC blob's size: the raw tile plus LERC's headers and masks. */
function lercBound(codec: TileCodec): number {
  const spp = codec.planarConfiguration === 2 ? 1 : codec.samplesPerPixel;
  const pixels = codec.tileWidth * codec.tileHeight;
  return pixels * spp * Math.ceil((codec.bitsPerSample[0] ?? 8) / 8) + pixels + 4096;
}

export async function decodeLerc(codec: TileCodec, bytes: Uint8Array): Promise<Uint8Array> {
  loaded ??= Lerc.load();
  await loaded;
  const extra = codec.lercAddCompression;
  const blob = extra === 1 ? inflateSync(bytes) : extra === 2 ? await decodeZstd(bytes, lercBound(codec)) : bytes;
  if (extra !== 0 && extra !== 1 && extra !== 2) throw new Error(`LERC with additional compression ${extra}`);
  const result = Lerc.decode(blob, { returnInterleaved: true });
  const pixels = result.pixels[0];
  if (!pixels) throw new Error('LERC blob without a band');
  const float = result.pixelType === 'F32' || result.pixelType === 'F64';
  if (float) {
    const depth = result.depthCount;
    const { mask } = result;
    if (mask) {
      for (let p = 0; p < mask.length; p++) if (mask[p] === 0) pixels.fill(Number.NaN, p * depth, (p + 1) * depth);
    }
    const noData = result.noDataValues?.[0];
    if (noData !== null && noData !== undefined) {
      for (let i = 0; i < pixels.length; i++) if (pixels[i] === noData) pixels[i] = Number.NaN;
    }
  }
  return new Uint8Array(pixels.buffer, pixels.byteOffset, pixels.byteLength);
}
