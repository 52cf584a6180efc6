/**
 * TIFF compressions → raw tile bytes. Each codec library enters through its own adapter file in this
 * folder; this registry only dispatches and names what it cannot decode.
 *
 * `decompress` returns either the tile's bytes as stored (file byte order, predictor still applied, bits
 * still packed: raster/samples.ts finishes them) or, for image codecs (JPEG, WebP) and LERC, samples
 * already decoded in the machine's order (`native: true`).
 */
import type { TileCodec } from '../geotiff-adapter.ts';
import { decodeJpeg, decodeWebp } from './image.ts';
import { decodeLerc } from './lerc.ts';
import { decodeZstd } from '../../codecs/zstd.ts';
import { decodeXz } from '../../codecs/lzma.ts';
import { inflate, type Allocate } from '../../codecs/deflate.ts';
import { decodeLzw } from '../../codecs/lzw.ts';
import { decodePackBits } from '../../codecs/packbits.ts';

export type { Allocate };

export interface Decompressed {
  bytes: Uint8Array;
  /** True when `bytes` already hold finished samples in machine order (no predictor, no packing). */
  native: boolean;
}

/**
 * `need`: how many leading bytes the caller needs; a decoder may stop once it has them. `alloc`: where a
 * decoder that writes into a buffer of the caller's may write (DEFLATE through libdeflate).
 */
type Decoder = (codec: TileCodec, bytes: Uint8Array, need: number, alloc?: Allocate) => Promise<Decompressed> | Decompressed;

const raw = (bytes: Uint8Array): Decompressed => ({ bytes, native: false });

/** Decoded size of a full tile (sizes the output buffers). */
function tileBytes(codec: TileCodec): number {
  const spp = codec.planarConfiguration === 2 ? 1 : codec.samplesPerPixel;
  return Math.ceil((codec.tileWidth * spp * (codec.bitsPerSample[0] ?? 8)) / 8) * codec.tileHeight;
}

const DECODERS: Record<number, { name: string; decode: Decoder }> = {
  // A copy: the samples are finished in place, and the input may be a cached range.
  1: { name: 'none', decode: (_c, b) => raw(new Uint8Array(b)) },
  // The project's own decoders (bench/codecs: geotiff.js's were 16× and ~130× slower than GDAL); they stop
  // once the rows needed are out.
  5: { name: 'LZW', decode: (_c, b, need) => raw(decodeLzw(b, need)) },
  8: { name: 'DEFLATE', decode: (c, b, need, alloc) => raw(inflate(b, tileBytes(c), need, undefined, alloc)) },
  32946: { name: 'DEFLATE', decode: (c, b, need, alloc) => raw(inflate(b, tileBytes(c), need, undefined, alloc)) },
  32773: { name: 'PackBits', decode: (_c, b, need, alloc) => raw(decodePackBits(b, need, alloc)) },
  50000: { name: 'ZSTD', decode: async (c, b) => raw(await decodeZstd(b, tileBytes(c))) },
  34925: { name: 'LZMA', decode: async (_c, b) => raw(await decodeXz(b)) },
  34887: { name: 'LERC', decode: async (c, b) => ({ bytes: await decodeLerc(c, b), native: true }) },
  7: { name: 'JPEG', decode: async (c, b) => ({ bytes: await decodeJpeg(c, b), native: true }) },
  50001: { name: 'WebP', decode: async (c, b) => ({ bytes: await decodeWebp(c, b), native: true }) },
};

/** Names of TIFF compressions we know but do not decode (for the 422 message). */
const UNSUPPORTED_NAMES: Record<number, string> = {
  2: 'CCITT modified Huffman RLE',
  3: 'CCITT Group 3 fax',
  4: 'CCITT Group 4 fax',
  6: 'old-style JPEG',
  32771: 'CCITT RLEW',
  32809: 'ThunderScan',
  32895: 'IT8 CT padding',
  32896: 'IT8 linework RLE',
  32897: 'IT8 monochrome',
  32898: 'IT8 binary line art',
  32908: 'Pixar film',
  32909: 'Pixar log',
  32947: 'Kodak DCS',
  34661: 'JBIG',
  34676: 'SGI LogL',
  34677: 'SGI LogLuv',
  34712: 'JPEG 2000',
  34892: 'lossy JPEG (DNG)',
  50002: 'JPEG XL',
  52546: 'JPEG XL (DNG)',
};

export function compressionSupported(compression: number): boolean {
  return compression in DECODERS;
}

/** A human name of a TIFF compression code, e.g. "JPEG 2000 (TIFF compression 34712)". */
export function compressionName(compression: number): string {
  const name = DECODERS[compression]?.name ?? UNSUPPORTED_NAMES[compression];
  return name === undefined ? `TIFF compression ${compression}` : `${name} (TIFF compression ${compression})`;
}

/** Decompresses one tile or strip (runs in worker threads); at least its first `need` bytes when given. */
export async function decompress(codec: TileCodec, compressed: ArrayBuffer, need = tileBytes(codec), alloc?: Allocate): Promise<Decompressed> {
  const entry = DECODERS[codec.compression];
  if (!entry) throw new Error(`no decoder for ${compressionName(codec.compression)}`);
  return entry.decode(codec, new Uint8Array(compressed), Math.min(need, tileBytes(codec)), alloc);
}
