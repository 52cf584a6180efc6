/**
 * RasterReader: what the raster use case knows of a COG. Opening reads only the header (one request for
 * a well-formed COG); tiles are fetched one byte range each, only those the AOI touches.
 */
import { SourceError, versionKey, type ByteSource } from '../source/source.ts';
import { ZonalError } from '../errors.ts';
import type { Grid } from '../geometry/grid.ts';
import { readGeoTiffHeader, type GeoTiffHeader, type IfdInfo, type TileCodec } from './geotiff-adapter.ts';
import { compressionName, compressionSupported } from './codecs/index.ts';
import { sampleType } from './samples.ts';
import { parseBandScaling, parseNodata, parseNodata64, type BandScaling } from './gdal-metadata.ts';
import { crsFromGeoKeys, type CrsInfo } from '../geometry/crs.ts';
import type { PlanLevel } from './plan.ts';
import type { BlockFormat, DecodedPlane, EncodedBlock } from './decode.ts';

/** One resolution level: 0 is full resolution, then the overviews from finest to coarsest. */
export interface RasterLevel extends PlanLevel {
  readonly index: number;
  readonly grid: Grid;
}

/** A COG's level: its IFD and internal mask. */
export interface CogLevel extends RasterLevel {
  readonly ifd: IfdInfo;
  /** The internal transparency mask of this level (GDAL_TIFF_INTERNAL_MASK), if any. */
  readonly mask: IfdInfo | null;
}

interface RasterInfo<L extends RasterLevel = RasterLevel> {
  readonly levels: readonly L[];
  readonly bandCount: number;
  readonly crs: CrsInfo;
  /** GDAL_NODATA, shared by all bands (GDAL's TIFF model); NaN means NaN is nodata; null none. */
  readonly nodata: number | null;
  /** GDAL_NODATA of a 64-bit integer band as written (see parseNodata64), else null. */
  readonly nodata64: bigint | null;
  readonly scaling: readonly BandScaling[];
  /** e.g. "uint8", "float32" (of band 1). */
  readonly dtype: string;
  /** A cube's further nodata (CF missing_value, valid range; raw units): every band's. */
  readonly cf?: { also: number[]; validMin?: number; validMax?: number };
}

/**
 * What the raster use case reads: levels, bands and their blocks. A COG is one (openRaster); a cube's chunks
 * for some steps are another (cube/reader.ts), its steps as bands.
 */
export interface RasterReader<L extends RasterLevel = RasterLevel> {
  readonly info: RasterInfo<L>;
  /** How `bands` (1-based) decode from the blocks of a level (raster/decode.ts). */
  blockFormat(level: RasterLevel, bands: readonly number[]): BlockFormat;
  /**
   * The blocks (raster/plan.ts indexes) of a level with the planes that hold `bands` and the mask, read
   * together so that near ranges merge. Keys for the decoded-tile cache carry the object's validator;
   * without one (a source that cannot tell a change) nothing is cached. Planes that `cached` gives (asked
   * with each plane's key and its block's position in `blocks`) are not read.
   */
  readBlocks(
    level: RasterLevel,
    blocks: readonly number[],
    bands: readonly number[],
    signal?: AbortSignal,
    cached?: (key: string, k: number) => DecodedPlane | undefined,
  ): Promise<EncodedBlock[]>;
}

/** A COG's reader: its levels carry their IFDs, and tiles can be read by index. */
export interface CogReader extends RasterReader<CogLevel> {
  /** Compressed bytes of tile `index` (TIFF tile order) of an IFD; null for a sparse (empty) tile. */
  readTile(ifd: IfdInfo, index: number, signal?: AbortSignal): Promise<ArrayBuffer | null>;
  /**
   * Several tiles (or strips) of one IFD, in the order asked: byte ranges closer than MERGE_GAP are read
   * in one request (a window of one-row strips is one read, not one per strip). null for a sparse tile.
   */
  readTiles(ifd: IfdInfo, indexes: readonly number[], signal?: AbortSignal): Promise<(ArrayBuffer | null)[]>;
}

/** The data type of a sample ("uint8" … "float64"; packed depths widened), or null when we do not read it. */
function dtypeOf(codec: TileCodec, sample: number): string | null {
  const type = sampleType(codec.sampleFormat[sample] ?? 1, codec.bitsPerSample[sample] ?? 8);
  return 'dtype' in type ? type.dtype : null;
}

function isMask(ifd: IfdInfo): boolean {
  return (ifd.subfileType & 4) !== 0;
}

const REENCODE = 're-encode it, for example with gdal_translate -of COG -co COMPRESS=DEFLATE in.tif out.tif';

function refuse(what: string, remedy = REENCODE): ZonalError {
  return new ZonalError('unsupported_raster', `The raster ${what}, which this service cannot read exactly: ${remedy}.`);
}

/**
 * Every reason an IFD's tiles could not be decoded exactly, checked before any tile is read, so that a
 * file we cannot read is a 422 naming why rather than a wrong number.
 */
function checkReadable(codec: TileCodec, what = 'raster'): void {
  const { compression, predictor } = codec;
  if (!compressionSupported(compression)) throw refuse(`uses ${compressionName(compression)}`);
  const bits = codec.bitsPerSample[0] ?? 8;
  const format = codec.sampleFormat[0] ?? 1;
  const mixed = codec.bitsPerSample.some((b) => b !== bits) || codec.sampleFormat.some((f) => f !== format);
  if (mixed) throw refuse(`has bands of different sample types (${codec.bitsPerSample.join('/')} bits)`);
  const type = sampleType(format, bits);
  if ('refuse' in type) {
    const remedy = format === 5 || format === 6 ? 'write the real values you need as a real-valued band (for example amplitude, with gdal_calc.py)' : REENCODE;
    throw refuse(`${what === 'raster' ? 'has' : `mask has`} ${type.refuse}`, remedy);
  }
  if (codec.fillOrder !== 1) throw refuse('stores bits least significant first (FillOrder 2)');
  if (predictor !== 1 && predictor !== 2 && predictor !== 3) throw refuse(`uses TIFF predictor ${predictor}`);
  if (predictor === 2 && ![8, 16, 32, 64].includes(bits)) throw refuse(`uses the horizontal predictor on ${bits}-bit samples`);
  if (predictor === 3 && format !== 3) throw refuse('uses the floating-point predictor on integer samples');
  const spp = codec.planarConfiguration === 2 ? 1 : codec.samplesPerPixel;
  if (compression === 7 && (bits !== 8 || (spp !== 1 && spp !== 3))) {
    throw refuse(bits !== 8 ? `is ${bits}-bit JPEG` : `is JPEG with ${spp} samples per pixel`);
  }
  if (compression === 50001 && (bits !== 8 || codec.planarConfiguration !== 1 || (spp !== 3 && spp !== 4))) {
    throw refuse(`is WebP with ${spp} ${bits}-bit samples per pixel (GDAL writes 3 or 4 8-bit bands)`);
  }
  if (compression === 34887 && (bits % 8 !== 0 || (format === 3 && bits === 16))) throw refuse(`is LERC with ${bits}-bit samples`);
  if (codec.photometric === 6 && compression !== 7) throw refuse('is YCbCr without JPEG compression');
}

/**
 * Tile or strip byte ranges this close (bytes) are read as one: the bytes between them cost less than
 * another round trip (16 KiB is ~1 ms at 100 Mbit/s, against a round trip of several ms to object storage).
 */
export const MERGE_GAP = 16 * 1024;
/** Largest merged read (so one read does not hold a whole file in memory). */
const MERGE_MAX = 4 * 1024 * 1024;
/** Blocks larger than this are read on their own. */
const MERGE_SMALL = 128 * 1024;

type ReadTiles = CogReader['readTiles'];
type ReadBlocks = RasterReader['readBlocks'];
type GeoTransform = NonNullable<GeoTiffHeader['geoTransform']>;

/**
 * Opens a GeoTIFF over a ByteSource: parses the header, georeferencing, CRS, nodata and scale/offset.
 * Throws ZonalError('invalid_source') for bytes that are not a readable TIFF, ('missing_crs') without a CRS.
 */
export async function openRaster(source: ByteSource, signal?: AbortSignal): Promise<CogReader> {
  const header = await readHeader(source, signal);
  const images = header.ifds.filter((ifd) => !isMask(ifd));
  const base = images[0];
  if (!base) throw new ZonalError('invalid_source', 'The source is not a readable GeoTIFF.');
  const geoTransform = requireGeoTransform(header);
  const crs = crsFromGeoKeys(header.geoKeys ?? {});
  checkReadable(base.codec);
  const dtype = dtypeOf(base.codec, 0) as string;
  const levels = rasterLevels(images, header.ifds.filter(isMask), base, geoTransform);
  const bandCount = base.codec.samplesPerPixel;
  const nodata = parseNodata(header.gdalNodata);
  const planar = base.codec.planarConfiguration === 2;
  const readTiles = tileReader(source, header.head);
  return {
    info: {
      levels,
      bandCount,
      crs,
      nodata,
      nodata64: parseNodata64(header.gdalNodata, dtype),
      scaling: parseBandScaling(header.gdalMetadata, bandCount),
      dtype,
    },
    async readTile(ifd, index, sig) {
      return (await readTiles(ifd, [index], sig))[0] ?? null;
    },
    readTiles,
    blockFormat: (level, bands) => blockFormatOf(level as CogLevel, bands, planar, nodata),
    readBlocks: blockReader(source, planar, readTiles),
  };
}

/** The parsed header; anything but a source or service error means the bytes are not a GeoTIFF we read. */
async function readHeader(source: ByteSource, signal?: AbortSignal): Promise<GeoTiffHeader> {
  try {
    return await readGeoTiffHeader(source, signal);
  } catch (e) {
    if (e instanceof SourceError || e instanceof ZonalError) throw e;
    throw new ZonalError('invalid_source', 'The source is not a readable GeoTIFF.');
  }
}

/** The affine geotransform; a raster without one (or georeferenced by GCPs only) has no usable CRS grid. */
function requireGeoTransform(header: GeoTiffHeader): GeoTransform {
  if (!header.geoTransform) {
    if (header.gcpCount > 0) {
      throw new ZonalError(
        'missing_crs',
        `The raster is georeferenced by ${header.gcpCount} ground control points, not by a geotransform; warp it to a grid first (gdalwarp).`,
      );
    }
    throw new ZonalError('missing_crs', 'The raster has no georeferencing (no geotransform).');
  }
  return header.geoTransform;
}

/** Full resolution and its overviews as levels, each with its grid and internal mask (checked readable). */
function rasterLevels(images: readonly IfdInfo[], masks: readonly IfdInfo[], base: IfdInfo, geoTransform: GeoTransform): CogLevel[] {
  const [x0, dx, rx, y0, ry, dy] = geoTransform;
  if (dx * dy - rx * ry === 0) throw new ZonalError('invalid_source', 'The raster’s geotransform is degenerate (zero pixel size).');
  const levels: CogLevel[] = [];
  for (const ifd of images) {
    // Overviews of another shape (e.g. a thumbnail of other bands) are not levels of this raster.
    if (ifd.codec.samplesPerPixel !== base.codec.samplesPerPixel || ifd.width > base.width) continue;
    // An overview spans the same extent with fewer pixels: column steps scale with the width ratio, row steps with the height's.
    const fx = base.width / ifd.width;
    const fy = base.height / ifd.height;
    const grid: Grid = { x0, y0, dx: dx * fx, dy: dy * fy, rx: rx * fy, ry: ry * fx, width: ifd.width, height: ifd.height };
    const mask = masks.find((m) => m.width === ifd.width && m.height === ifd.height) ?? null;
    if (mask) checkReadable(mask.codec, 'mask');
    levels.push({ index: levels.length, grid, ifd, mask, blockWidth: ifd.tileWidth, blockHeight: ifd.tileHeight });
  }
  return levels;
}

/** How the requested bands decode from a level's blocks (raster/decode.ts). */
function blockFormatOf(level: CogLevel, bands: readonly number[], planar: boolean, nodata: number | null): BlockFormat {
  return {
    codec: level.ifd.codec,
    maskCodec: level.mask?.codec ?? null,
    levelWidth: level.grid.width,
    levelHeight: level.grid.height,
    // Band-separate files: one plane per requested band, in the order asked.
    bands: bands.map((b, k) => (planar ? { plane: k, sample: 0 } : { plane: 0, sample: b - 1 })),
    fill: nodata !== null && Number.isFinite(nodata) ? nodata : 0,
  };
}

/** readBlocks over `readTiles`: the planes the decoded-tile cache lacks and the masks, read together. */
function blockReader(source: ByteSource, planar: boolean, readTiles: ReadTiles): ReadBlocks {
  return async function readBlocks(level, blocks, bands, sig, cached) {
    const { ifd, mask } = level as CogLevel;
    const across = Math.ceil(ifd.width / ifd.tileWidth);
    const perBand = across * Math.ceil(ifd.height / ifd.tileHeight);
    const version = versionKey(source);
    const prefix = version === undefined ? null : `${version}\n${level.index}\n`;
    const planeIndexes = blocks.map((index) => (planar ? bands.map((b) => (b - 1) * perBand + index) : [index]));
    const keys = planeIndexes.map((own) => own.map((i) => (prefix === null ? null : prefix + i)));
    const hits = keys.map((own, k) => own.map((key) => (key === null || cached === undefined ? null : (cached(key, k) ?? null))));
    // Only the planes the cache does not have are read.
    const toRead = planeIndexes.flatMap((own, k) => own.filter((_, j) => hits[k]?.[j] === null));
    const [planes, masks] = await Promise.all([readTiles(ifd, toRead, sig), mask ? readTiles(mask, blocks, sig) : Promise.resolve(blocks.map(() => null))]);
    let p = 0;
    return blocks.map((index, k): EncodedBlock => {
      const own = hits[k] as (DecodedPlane | null)[];
      return {
        index,
        col0: (index % across) * ifd.tileWidth,
        row0: Math.floor(index / across) * ifd.tileHeight,
        planes: own.map((hit) => (hit === null ? (planes[p++] ?? null) : null)),
        cached: own,
        mask: masks[k] ?? null,
        keys: keys[k] as (string | null)[],
      };
    });
  };
}

interface WantedRange {
  k: number;
  offset: number;
  length: number;
}

/** readTiles over the source: blocks inside the header bytes need no request, near ones share one. */
function tileReader(source: ByteSource, head: ArrayBuffer): ReadTiles {
  return async function readTiles(ifd, indexes, sig) {
    const out: (ArrayBuffer | null)[] = new Array<ArrayBuffer | null>(indexes.length).fill(null);
    const wanted: WantedRange[] = [];
    indexes.forEach((index, k) => {
      const offset = ifd.offsets[index];
      const length = ifd.byteCounts[index];
      if (offset === undefined || length === undefined) throw new ZonalError('invalid_source', 'The GeoTIFF tile index is incomplete.');
      if (length === 0) return;
      if (offset + length <= head.byteLength) out[k] = head.slice(offset, offset + length);
      else wanted.push({ k, offset, length });
    });
    await Promise.all(
      mergeRanges(wanted).map(async (run) => {
        const bytes = await source.read(run.start, run.end - run.start, sig);
        for (const p of run.parts) out[p.k] = run.parts.length === 1 ? bytes : bytes.slice(p.offset - run.start, p.offset - run.start + p.length);
      }),
    );
    return out;
  };
}

/** Sorts `wanted` by offset and groups it into runs read as one request (gaps ≤ MERGE_GAP, run ≤ MERGE_MAX). */
function mergeRanges(wanted: WantedRange[]): { start: number; end: number; parts: WantedRange[] }[] {
  wanted.sort((a, b) => a.offset - b.offset);
  const runs: { start: number; end: number; parts: WantedRange[] }[] = [];
  for (const w of wanted) {
    const run = runs[runs.length - 1];
    // Only small blocks (strips, small tiles) are merged: a big tile is worth its own request, and slicing
    // merged big tiles apart would cost the main thread copies.
    if (run && w.length <= MERGE_SMALL && w.offset - run.end <= MERGE_GAP && Math.max(run.end, w.offset + w.length) - run.start <= MERGE_MAX) {
      run.end = Math.max(run.end, w.offset + w.length);
      run.parts.push(w);
    } else {
      runs.push({ start: w.offset, end: w.offset + w.length, parts: [w] });
    }
  }
  return runs;
}
