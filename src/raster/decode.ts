/**
 * Blocks (tiles or strips) as the fold sees them: the reader sends each block's compressed bytes with an
 * opaque BlockFormat, and decodeBlock turns them into `{window, bands, valid}`, where a band is a typed
 * array with its strides. Decoding runs in the worker threads; decoded planes may come from, and go to,
 * the process-wide decoded-tile cache. TIFF internals (codecs, planes, sample layout, masks) stay here and
 * in the reader.
 */
import type { TileCodec } from './geotiff-adapter.ts';
import { decompress, type Allocate } from './codecs/index.ts';
import { toSamples, type SampleArray } from './samples.ts';
import { unpackMask } from './pixels.ts';
import type { PixelWindow } from '../geometry/grid.ts';
import type { BlockSpan } from './predictor.ts';
import { TileCache } from './tile-cache.ts';
import { isMainThread } from 'node:worker_threads';
import { decodeZarrRegion } from '../codecs/zarr.ts';
import { release } from '../codecs/release.ts';

export type { BlockSpan };

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
  /** A cube's chunks (cube/reader.ts): the blocks are Zarr chunks decoded by zarrita; `codec` then gives only the block size. */
  readonly zarr?: ZarrLayout;
}

/**
 * How the planes of a cube's blocks decode: each plane is a chunk (or shard) of the variable, the block its
 * spatial chunk, and each band a step (an index along the other dimensions) inside one plane.
 */
interface ZarrLayout {
  readonly zarrFormat: 2 | 3;
  /** The array's metadata documents (codecs/zarr.ts). */
  readonly docs: Readonly<Record<string, string>>;
  readonly shape: readonly number[];
  /** The chunk (or shard) shape read as one object. */
  readonly chunks: readonly number[];
  /** The dimensions of the level's rows and columns. */
  readonly yDim: number;
  readonly xDim: number;
  /** Per plane: its chunk coordinates along each dimension (the spatial ones are the block's). */
  readonly planes: readonly (readonly number[])[];
  /** Per band of `bands`: its index inside its plane's chunk along each dimension (0 along the spatial ones). */
  readonly at: readonly (readonly number[])[];
}

/** Decoded samples of one plane of a block; `array` lies on a SharedArrayBuffer (threads share it). */
export interface DecodedPlane {
  readonly array: SampleArray;
  readonly isBig: boolean;
  /** The block-local rows and columns whose samples are final (outside it the array holds anything). */
  readonly span: BlockSpan;
}

/** Whether a plane decoded on `have` holds every sample of `need`. */
export function spanCovers(have: BlockSpan, need: BlockSpan): boolean {
  return have.row0 <= need.row0 && have.row1 >= need.row1 && have.col1 >= need.col1;
}

/**
 * The block-local span of the pixels `need` (a window on the level) of the block at (col0, row0); with
 * `prefix`, every row from the block's first and every column (what the decoded-tile cache keeps: the
 * inflated prefix costs no more, and later requests in the same rows reuse it).
 */
export function spanOf(need: PixelWindow, col0: number, row0: number, width: number, prefix: boolean): BlockSpan {
  const row1 = need.row0 + need.height - row0;
  return prefix ? { row0: 0, row1, col1: width } : { row0: need.row0 - row0, row1, col1: need.col0 + need.width - col0 };
}

/** Milliseconds spent per decoding phase, and bytes decompressed (summed by the caller, reported by bench/ and /metrics). */
export interface DecodeTimes {
  inflate: number;
  samples: number;
  /** Bytes the codecs produced, against `whole`, those of the whole planes (a decode that stops early makes fewer). */
  bytes: number;
  whole: number;
}

/** One block's compressed bytes, as read, and the planes the decoded-tile cache already had. */
export interface EncodedBlock {
  /** Row-major block index on its level (raster/plan.ts). */
  readonly index: number;
  readonly col0: number;
  readonly row0: number;
  /**
   * Per plane (one for pixel-interleaved files, one per requested band for band-separate ones): its
   * compressed bytes; null when it is sparse or when `cached` has it.
   */
  readonly planes: (ArrayBuffer | null)[];
  /** Per plane, its decoded samples from the decoded-tile cache, or null. */
  readonly cached: (DecodedPlane | null)[];
  /** The mask block; null when the level has no mask or its mask block is sparse (all masked). */
  readonly mask: ArrayBuffer | null;
  /** Per plane, its key in the decoded-tile cache (null: not cacheable, the source has no validator). */
  readonly keys: (string | null)[];
  /** A cube's block: per plane, its chunk's key in the array's folder (BlockFormat.zarr). */
  readonly chunkKeys?: readonly string[];
}

/** Bytes of a block's decompressed data up to the end of row `row1` (what a prefix decode must produce). */
function bytesThrough(codec: TileCodec, row1: number): number {
  const spp = codec.planarConfiguration === 2 ? 1 : codec.samplesPerPixel;
  return Math.ceil((codec.tileWidth * spp * (codec.bitsPerSample[0] ?? 8)) / 8) * row1;
}

/** One band of a decoded block: sample (r, c) of the block is `values[r * rowStride + c * step + offset]`. */
interface BandSamples {
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
  /** Planes decoded here that the caller may add to the decoded-tile cache (when asked to keep them). */
  readonly fresh: { key: string; plane: DecodedPlane }[];
}

/** The raw sample of band `b` at block row `tr`, column `tc` (the fill value in a sparse block). */
export function sampleAt(block: DecodedBlock, b: number, tr: number, tc: number, fill: number): number {
  const s = block.bands[b] as BandSamples;
  if (s.values === null) return fill;
  const v = s.values[tr * s.rowStride + tc * s.step + s.offset] as number | bigint;
  return typeof v === 'bigint' ? Number(v) : v;
}

/** A 64-bit integer band's sample as a number, NaN where it is `nodata64` exactly (or in a sparse tile, filled with nodata). */
export function sample64At(block: DecodedBlock, b: number, tr: number, tc: number, nodata64: bigint): number {
  const s = block.bands[b] as BandSamples;
  if (s.values === null) return Number.NaN;
  const v = s.values[tr * s.rowStride + tc * s.step + s.offset] as number | bigint;
  return v === nodata64 ? Number.NaN : Number(v);
}

/**
 * The process-wide decoded-tile cache (like GDAL's block cache; raster/tile-cache.ts), held by the main
 * thread: planes lie on SharedArrayBuffers, so the workers read cached planes without a copy and the
 * main thread skips reading the bytes of every cached plane.
 */
export const decodedTiles = new TileCache<DecodedPlane>();

/*
 * The cache's doorkeeper: a plane is kept only when a single-zone request asks for it a second time.
 * Keeping costs its first request a shared buffer and the predictor over whole rows from the block's top
 * (bench/raster: about a twentieth of a one-tile request at a new place), which a plane asked for once
 * never repays. The keys asked for once, most recent last, bounded.
 */
const askedOnce = new Map<string, true>();
const ASKED_ONCE = 8192;

/** Whether a plane's key was asked for before (then its decode is worth keeping); records it otherwise. */
export function admitted(key: string): boolean {
  if (askedOnce.delete(key)) return true;
  askedOnce.set(key, true);
  if (askedOnce.size > ASKED_ONCE) askedOnce.delete(askedOnce.keys().next().value as string);
  return false;
}

/** The same samples on a SharedArrayBuffer (a copy unless they already lie on one), so that every thread can read them. */
function shared(plane: DecodedPlane): DecodedPlane {
  const { array } = plane;
  if (array.buffer instanceof SharedArrayBuffer) return plane;
  const sab = new SharedArrayBuffer(array.byteLength);
  new Uint8Array(sab).set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
  const Ctor = array.constructor as new (buffer: SharedArrayBuffer) => SampleArray;
  return { array: new Ctor(sab), isBig: plane.isBig, span: plane.span };
}

/*
 * Output buffers of planes a task is done with, kept by this thread for its next blocks: a tile's 2 MB
 * allocated per plane kept V8 collecting (about 8 % of a worker's time in bench/stac), and a cube's block
 * of 8–16 chunks of ~0.5 MB made each worker mark-compact its heap every ~20 MB of them. Only buffers made
 * here return (`spare`); planes kept for the cache lie on their own SharedArrayBuffers.
 */
const spares: ArrayBuffer[] = [];
/** Bytes of spare buffers a thread keeps at most (a task's 4 tiles of 2 MB, a cube block's 16 chunks). */
const SPARE_BYTES = 16 * 1024 * 1024;
let spareBytes = 0;
const ours = new WeakSet<ArrayBuffer>();

const fromSpares: Allocate = (n, most) => {
  const i = spares.findIndex((b) => b.byteLength >= n);
  // A new one is not zero-filled: every byte a sample is read from is written first.
  const buf = i >= 0 ? (spares.splice(i, 1)[0] as ArrayBuffer) : Buffer.allocUnsafeSlow(most).buffer;
  if (i >= 0) spareBytes -= buf.byteLength;
  ours.add(buf);
  return new Uint8Array(buf, 0, n);
};

const intoShared: Allocate = (n) => new Uint8Array(new SharedArrayBuffer(n));

function spare(buf: ArrayBufferLike): void {
  if (buf instanceof ArrayBuffer && ours.has(buf) && spareBytes + buf.byteLength <= SPARE_BYTES && !spares.includes(buf)) {
    spares.push(buf);
    spareBytes += buf.byteLength;
  }
}

/** Gives back the buffers of a decoded block's planes: the caller no longer reads the block. */
export function recycle(block: DecodedBlock): void {
  for (const band of block.bands) if (band.values) spare(band.values.buffer);
}

const now = (): number => performance.now();

async function decodePlane(codec: TileCodec, bytes: ArrayBuffer, rows: number, span: BlockSpan, keep: boolean, times?: DecodeTimes): Promise<DecodedPlane> {
  const spp = codec.planarConfiguration === 1 ? codec.samplesPerPixel : 1;
  const t0 = now();
  // Inflating stops after the last row needed where the codec can (DEFLATE through libdeflate); a plane
  // kept for the cache is inflated straight into shared memory.
  const d = await decompress(codec, bytes, bytesThrough(codec, span.row1), keep ? intoShared : fromSpares);
  const t1 = now();
  const view = toSamples(codec, d, rows, span);
  // Samples written elsewhere (the floating-point predictor, half floats, packed bits): the inflated bytes are spare.
  if (view.array.buffer !== d.bytes.buffer) spare(d.bytes.buffer);
  if (times) {
    times.inflate += t1 - t0;
    times.samples += now() - t1;
    times.bytes += d.bytes.byteLength;
    times.whole += bytesThrough(codec, codec.tileHeight);
  }
  if (view.array.length < codec.tileWidth * spp * (span.row1 - 1) + span.col1 * spp) throw new Error('decoded tile is shorter than expected');
  return { ...view, span };
}

/**
 * A cube's block: each plane (a chunk) decoded whole by zarrita, or by codecs/blosc.ts on the rows `need`
 * holds, each band a step inside one of them.
 */
async function decodeZarrBlock(format: BlockFormat, z: ZarrLayout, block: EncodedBlock, need?: BlockSpan, times?: DecodeTimes): Promise<DecodedBlock> {
  const { yDim, xDim, chunks, shape } = z;
  const window = {
    col0: block.col0,
    row0: block.row0,
    width: Math.min(chunks[xDim] as number, format.levelWidth - block.col0),
    height: Math.min(chunks[yDim] as number, format.levelHeight - block.row0),
  };
  // Rows are contiguous when y and x are the last two dimensions: then only the rows and columns the zones
  // need are unshuffled (the fold reads no other sample).
  const rows =
    need && yDim === shape.length - 2 && xDim === shape.length - 1
      ? { row0: Math.max(0, need.row0), row1: Math.min(window.height, need.row1), col1: Math.min(window.width, need.col1) }
      : undefined;
  const t0 = now();
  const regions = await Promise.all(
    block.planes.map(async (bytes, p) => {
      const coords = z.planes[p] as readonly number[];
      const region = shape.map((n, d): [number, number] => {
        const size = chunks[d] as number;
        const start = d === yDim ? block.row0 : d === xDim ? block.col0 : (coords[d] as number) * size;
        return [start, Math.min(start + size, n)];
      });
      const decoded = await decodeZarrRegion(
        z.zarrFormat,
        z.docs,
        block.chunkKeys?.[p] ?? '',
        bytes === null ? null : new Uint8Array(bytes),
        region,
        true,
        rows,
        fromSpares,
      );
      // A worker holds the chunk's bytes alone (moved to it): freed once decoded into a buffer of its own,
      // unless another plane of the block is the same buffer.
      const owned = !isMainThread && bytes !== null && decoded.data.buffer !== bytes;
      if (owned && block.planes.indexOf(bytes) === p && block.planes.lastIndexOf(bytes) === p) release(bytes);
      return decoded;
    }),
  );
  if (times) {
    times.inflate += now() - t0;
    for (const r of regions) times.bytes += r.data.byteLength;
    for (const r of regions) times.whole += r.data.byteLength;
  }
  const bands = format.bands.map(({ plane }, b): BandSamples => {
    const r = regions[plane];
    if (r === undefined) throw new Error('a band names a plane the block does not have');
    const at = z.at[b] as readonly number[];
    const offset = at.reduce((sum, i, d) => sum + i * (r.stride[d] as number), 0);
    const isBig = r.data instanceof BigInt64Array || r.data instanceof BigUint64Array;
    return { values: r.data as unknown as SampleArray, isBig, rowStride: r.stride[yDim] as number, step: r.stride[xDim] as number, offset };
  });
  return { window, bands, valid: null, maskStride: window.width, fresh: [] };
}

/**
 * Decodes a block (its planes not in `cached`, and its mask) on `need` (block-local; the whole block when
 * absent). With `keep`, the newly decoded planes are returned in `fresh` on SharedArrayBuffers for the
 * caller to cache.
 */
export async function decodeBlock(format: BlockFormat, block: EncodedBlock, keep: boolean, need?: BlockSpan, times?: DecodeTimes): Promise<DecodedBlock> {
  if (format.zarr) return decodeZarrBlock(format, format.zarr, block, need, times);
  const { codec, maskCodec } = format;
  const tw = codec.tileWidth;
  // Decoded blocks are always tileWidth wide; edge tiles and the last strip hold fewer real pixels.
  const rows = Math.min(codec.tileHeight, format.levelHeight - block.row0);
  const window = { col0: block.col0, row0: block.row0, width: Math.min(tw, format.levelWidth - block.col0), height: rows };
  const span = need ?? { row0: 0, row1: rows, col1: tw };
  const fresh: { key: string; plane: DecodedPlane }[] = [];
  const planes = await Promise.all(
    block.planes.map(async (bytes, k): Promise<DecodedPlane | null> => {
      const cached = block.cached[k] ?? null;
      if (cached !== null || bytes === null) return cached;
      const key = block.keys[k] ?? null;
      const plane = await decodePlane(codec, bytes, rows, span, keep && key !== null, times);
      if (!keep || key === null) return plane;
      const kept = shared(plane);
      fresh.push({ key, plane: kept });
      return kept;
    }),
  );
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
  return { window, bands, valid, maskStride: maskCodec?.tileWidth ?? tw, fresh };
}
