/**
 * Blocks (tiles or strips) as the fold sees them: the reader sends each block's compressed bytes with an
 * opaque BlockFormat, and decodeBlock turns them into `{window, bands, valid}`, where a band is a typed
 * array with its strides. Runs in the worker threads; TIFF internals (codecs, planes, sample layout,
 * masks) stay here and in the reader.
 */
import type { TileCodec } from './geotiff-adapter.ts';
import { decompress } from './codecs/index.ts';
import { toSamples, type SampleArray } from './samples.ts';
import { unpackMask } from './pixels.ts';
import type { PixelWindow } from './grid.ts';
import { TileCache } from './tile-cache.ts';

/** How the blocks of one level decode (made by the reader; the fold passes it on untouched). */
export interface BlockFormat {
  readonly codec: TileCodec;
  readonly maskCodec: TileCodec | null;
  readonly levelWidth: number;
  readonly levelHeight: number;
  /** Per requested band: the block plane that holds it and its sample within a pixel. */
  readonly bands: readonly { plane: number; sample: number }[];
  /** Raw value of a sparse block (GDAL: nodata, else 0). */
  readonly fill: number;
}

/** One block's compressed bytes, as read. */
export interface EncodedBlock {
  /** Row-major block index on its level (raster/plan.ts). */
  readonly index: number;
  readonly col0: number;
  readonly row0: number;
  /** Per plane (one for pixel-interleaved files, one per requested band for band-separate ones); null: sparse. */
  readonly planes: (ArrayBuffer | null)[];
  /** The mask block; null when the level has no mask or its mask block is sparse (all masked). */
  readonly mask: ArrayBuffer | null;
  /** Per plane, the key of its decoded samples in this thread's cache (null: not cacheable). */
  readonly keys: (string | null)[];
}

/** One band of a decoded block: sample (r, c) of the block is `values[r * rowStride + c * step + offset]`. */
export interface BandSamples {
  /** null: a sparse block (every sample is BlockFormat.fill). */
  readonly values: SampleArray | null;
  readonly isBig: boolean;
  readonly rowStride: number;
  readonly step: number;
  readonly offset: number;
}

export interface DecodedBlock {
  /** The block's pixels on the level grid (clipped to the level). */
  readonly window: PixelWindow;
  readonly bands: BandSamples[];
  /** Non-zero where the mask says valid, `maskStride` per row; null when the level has no mask. */
  readonly valid: Uint8Array | null;
  readonly maskStride: number;
}

/** This thread's decoded blocks (like GDAL's block cache; raster/tile-cache.ts). */
export const decodedTiles = new TileCache<{ array: SampleArray; isBig: boolean }>();

async function decodePlane(codec: TileCodec, bytes: ArrayBuffer | null, rows: number, key: string | null, cacheBytes: number) {
  if (bytes === null) return null;
  const cached = key !== null && cacheBytes > 0 ? decodedTiles.get(key) : undefined;
  if (cached) return cached;
  const spp = codec.planarConfiguration === 1 ? codec.samplesPerPixel : 1;
  const view = toSamples(codec, await decompress(codec, bytes), rows);
  if (view.array.length < codec.tileWidth * rows * spp) throw new Error('decoded tile is shorter than expected');
  if (key !== null && cacheBytes > 0) decodedTiles.put(key, view, view.array.byteLength, cacheBytes);
  return view;
}

/** Decodes a block (its planes and mask); `cacheBytes` is this thread's share of the decoded-tile cache. */
export async function decodeBlock(format: BlockFormat, block: EncodedBlock, cacheBytes: number): Promise<DecodedBlock> {
  const { codec, maskCodec } = format;
  const tw = codec.tileWidth;
  // Decoded blocks are always tileWidth wide; edge tiles and the last strip hold fewer real pixels.
  const rows = Math.min(codec.tileHeight, format.levelHeight - block.row0);
  const window = { col0: block.col0, row0: block.row0, width: Math.min(tw, format.levelWidth - block.col0), height: rows };
  const planes = await Promise.all(block.planes.map((p, k) => decodePlane(codec, p, rows, block.keys[k] ?? null, cacheBytes)));
  const step = codec.planarConfiguration === 1 ? codec.samplesPerPixel : 1;
  const bands = format.bands.map(({ plane, sample }): BandSamples => {
    const view = planes[plane] ?? null;
    return { values: view?.array ?? null, isBig: view?.isBig ?? false, rowStride: tw * step, step, offset: sample };
  });
  let valid: Uint8Array | null = null;
  if (maskCodec) {
    const maskRows = Math.min(maskCodec.tileHeight, format.levelHeight - block.row0);
    valid = block.mask ? unpackMask(maskCodec, (await decompress(maskCodec, block.mask)).bytes, maskCodec.tileWidth, maskRows) : new Uint8Array(tw * rows);
  }
  return { window, bands, valid, maskStride: maskCodec?.tileWidth ?? tw };
}
