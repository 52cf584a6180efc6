/**
 * The only file that imports geotiff.js (a heavy library enters through one adapter).
 *
 * geotiff.js parses the TIFF header (IFDs, GeoKeys, tag values) over our ByteSource; tile bytes are then
 * fetched by reader.ts and decompressed by raster/codecs/ in worker threads (none of geotiff's decoders).
 * Predictors, byte order and bit packing are undone by raster/samples.ts (geotiff's own predictor step
 * ignores the file's byte order).
 */
import type { GeoTIFF as GeoTIFFClass } from 'geotiff';
import { versionKey, type ByteSource } from '../source/source.ts';
import { memo } from '../memo.ts';

/** Everything a worker needs to decode one compressed tile into raw samples (plain data, cloneable). */
export interface TileCodec {
  compression: number;
  predictor: number;
  planarConfiguration: number;
  samplesPerPixel: number;
  bitsPerSample: number[];
  /** TIFF SampleFormat per sample: 1 unsigned, 2 signed, 3 float. */
  sampleFormat: number[];
  tileWidth: number;
  tileHeight: number;
  littleEndian: boolean;
  /** TIFF PhotometricInterpretation: 1 min-is-black, 2 RGB, 3 palette, 6 YCbCr, … */
  photometric: number;
  /** TIFF FillOrder: 1 most significant bit first (the only order we read). */
  fillOrder: number;
  /** JPEGTables (a tables-only JPEG stream shared by all tiles), or null. */
  jpegTables: Uint8Array | null;
  /** LercParameters[1]: 0 none, 1 DEFLATE, 2 ZSTD around the LERC blob. */
  lercAddCompression: number;
}

/** One IFD as the reader needs it. */
export interface IfdInfo {
  width: number;
  height: number;
  /** NewSubfileType: bit 0 reduced resolution, bit 2 transparency mask. */
  subfileType: number;
  tiled: boolean;
  tileWidth: number;
  tileHeight: number;
  offsets: Float64Array;
  byteCounts: Float64Array;
  codec: TileCodec;
}

/** Header facts of a GeoTIFF: its IFDs and the georeferencing of the first one. */
export interface GeoTiffHeader {
  ifds: IfdInfo[];
  geoKeys: Record<string, unknown> | null;
  /**
   * GDAL's geotransform of IFD 0 [x0, dx, rx, y0, ry, dy] (corner of pixel (0,0), PixelIsPoint already
   * shifted by half a pixel as GDAL does), or null when the file has no affine georeferencing.
   */
  geoTransform: [number, number, number, number, number, number] | null;
  /** Number of tie points when the file is georeferenced by ground control points only. */
  gcpCount: number;
  gdalNodata: string | null;
  gdalMetadata: string | null;
  /** The first bytes of the file, read once: tiles inside them need no further request. */
  head: ArrayBuffer;
}

const MAX_IFDS = 64;
/** Bytes of the file start read at once: a COG keeps its IFDs and tile indexes there. */
const HEADER_BYTES = 64 * 1024;

/**
 * A geotiff.js source over a ByteSource. The first HEADER_BYTES are read once and every header read
 * inside them is served from memory, so parsing a COG costs one request instead of one per tag.
 */
function geotiffClient(source: ByteSource, size: number, header: ArrayBuffer, signal?: AbortSignal) {
  const fetchSlice = async (offset: number, length: number): Promise<ArrayBuffer> => {
    const end = Math.min(offset + length, size);
    if (offset >= size || end <= offset) return new ArrayBuffer(0);
    if (end <= header.byteLength) return header.slice(offset, end);
    return source.read(offset, end - offset, signal);
  };
  return {
    fileSize: size,
    async fetch(slices: { offset: number; length: number }[]): Promise<ArrayBuffer[]> {
      return Promise.all(slices.map((s) => fetchSlice(s.offset, s.length)));
    },
    async close() {},
  };
}

function numbers(v: unknown): number[] {
  if (v === undefined || v === null) return [];
  if (typeof v === 'number' || typeof v === 'bigint') return [Number(v)];
  if (Array.isArray(v) || ArrayBuffer.isView(v)) return Array.from(v as ArrayLike<number | bigint>, Number);
  return [];
}

/** Reads the header of a GeoTIFF: all IFDs with their tile indexes, GeoKeys and GDAL tags. */
export async function readGeoTiffHeader(source: ByteSource, signal?: AbortSignal): Promise<GeoTiffHeader> {
  // One request learns the size and brings the header (HTTP: a range the server clips to the file).
  const header = await source.head(HEADER_BYTES, signal);
  // That request also pinned the object's validator: an unchanged file's parsed header is reused.
  const parsed = await parsedHeaders.remember(versionKey(source), async () => {
    // Kept without the head's bytes: each request brings its own.
    return { ...(await parseHeader(source, header, signal)), head: new ArrayBuffer(0) };
  });
  return { ...parsed, head: header };
}

/** Parsed headers kept, per URL + validator (ETag, size, mtime): parsing a COG's IFDs costs ~5 ms. */
const parsedHeaders = memo<GeoTiffHeader>({ name: 'cog_headers', maxEntries: 128 });

async function parseHeader(source: ByteSource, header: ArrayBuffer, signal?: AbortSignal): Promise<GeoTiffHeader> {
  const size = await source.size(signal);
  const client = geotiffClient(source, size, header, signal);
  // geotiff's types want a BaseSource; ours has the same shape (fetch, fileSize, close).
  // geotiff's main entry pulls in the `web-worker` package, which takes over any worker thread that
  // imports it: imported lazily, on the main thread only.
  const { GeoTIFF } = (await import('geotiff')) as { GeoTIFF: typeof GeoTIFFClass };
  const tiff = await GeoTIFF.fromSource(client as unknown as Parameters<typeof GeoTIFFClass.fromSource>[0], undefined, signal);
  const littleEndian = (tiff as unknown as { littleEndian: boolean }).littleEndian;
  const count = Math.min(await tiff.getImageCount(), MAX_IFDS);
  const ifds: IfdInfo[] = [];
  let first: Awaited<ReturnType<typeof tiff.getImage>> | null = null;
  for (let i = 0; i < count; i++) {
    const image = await tiff.getImage(i);
    if (i === 0) first = image;
    const fd = image.fileDirectory;
    const tiled = !fd.hasTag('StripOffsets');
    const width = image.getWidth();
    const height = image.getHeight();
    const tileWidth = tiled ? Number(await fd.loadValue('TileWidth')) : width;
    const tileHeight = tiled ? Number(await fd.loadValue('TileLength')) : Number((await fd.loadValue('RowsPerStrip')) ?? height) || height;
    const [offsets, byteCounts] = await Promise.all([
      fd.loadValue(tiled ? 'TileOffsets' : 'StripOffsets'),
      fd.loadValue(tiled ? 'TileByteCounts' : 'StripByteCounts'),
    ]);
    const samplesPerPixel = image.getSamplesPerPixel();
    const bits = numbers(await fd.loadValue('BitsPerSample'));
    const formats = numbers(await fd.loadValue('SampleFormat'));
    const compression = Number((await fd.loadValue('Compression')) ?? 1);
    const tables = compression === 7 ? await fd.loadValue('JPEGTables') : undefined;
    const lerc = compression === 34887 ? numbers(await fd.loadValue('LercParameters')) : [];
    ifds.push({
      width,
      height,
      subfileType: Number((await fd.loadValue('NewSubfileType')) ?? 0),
      tiled,
      tileWidth,
      tileHeight,
      offsets: Float64Array.from(numbers(offsets)),
      byteCounts: Float64Array.from(numbers(byteCounts)),
      codec: {
        compression,
        predictor: Number((await fd.loadValue('Predictor')) ?? 1),
        planarConfiguration: Number((await fd.loadValue('PlanarConfiguration')) ?? 1),
        samplesPerPixel,
        bitsPerSample: Array.from({ length: samplesPerPixel }, (_, s) => bits[s] ?? bits[0] ?? 8),
        sampleFormat: Array.from({ length: samplesPerPixel }, (_, s) => formats[s] ?? formats[0] ?? 1),
        tileWidth,
        tileHeight,
        littleEndian,
        photometric: Number((await fd.loadValue('PhotometricInterpretation')) ?? 1),
        fillOrder: Number((await fd.loadValue('FillOrder')) ?? 1),
        jpegTables: tables ? Uint8Array.from(numbers(tables)) : null,
        lercAddCompression: lerc[1] ?? 0,
      },
    });
  }
  if (first === null) throw new Error('no image');
  const fd = first.fileDirectory;
  const geoKeys = (first.getGeoKeys() as Record<string, unknown> | null) ?? null;
  const { geoTransform, gcpCount } = georeferencing(
    numbers(await fd.loadValue('ModelTransformation')),
    numbers(await fd.loadValue('ModelPixelScale')),
    numbers(await fd.loadValue('ModelTiepoint')),
    Number(geoKeys?.['GTRasterTypeGeoKey'] ?? 1) === 2,
  );
  const nodata = await fd.loadValue('GDAL_NODATA');
  const metadata = await fd.loadValue('GDAL_METADATA');
  return {
    ifds,
    geoKeys,
    geoTransform,
    gcpCount,
    gdalNodata: typeof nodata === 'string' ? nodata : null,
    gdalMetadata: typeof metadata === 'string' ? metadata : null,
    head: header,
  };
}

/**
 * GDAL's geotransform from the GeoTIFF tags, as GDAL's GTiff driver derives it: a tie point with a
 * non-zero ModelPixelScale first, else a 16-value ModelTransformation; tie points without either are
 * ground control points (no geotransform). Raster type PixelIsPoint moves the origin back half a pixel
 * (GTIFF_POINT_GEO_IGNORE=FALSE, GDAL's default).
 */
export function georeferencing(
  transformation: number[],
  scale: number[],
  tiepoints: number[],
  pixelIsPoint: boolean,
): { geoTransform: GeoTiffHeader['geoTransform']; gcpCount: number } {
  let gt: [number, number, number, number, number, number] | null = null;
  const [sx = 0, sy = 0] = scale;
  if (sx !== 0 && sy !== 0 && tiepoints.length >= 6) {
    const [i = 0, j = 0, , x = 0, y = 0] = tiepoints;
    gt = [x - i * sx, sx, 0, y + j * sy, 0, -sy];
  } else if (transformation.length === 16) {
    const t = transformation;
    gt = [t[3] ?? 0, t[0] ?? 0, t[1] ?? 0, t[7] ?? 0, t[4] ?? 0, t[5] ?? 0];
  } else if (tiepoints.length >= 6) {
    return { geoTransform: null, gcpCount: Math.floor(tiepoints.length / 6) };
  }
  if (gt && pixelIsPoint) {
    gt[0] -= gt[1] * 0.5 + gt[2] * 0.5;
    gt[3] -= gt[4] * 0.5 + gt[5] * 0.5;
  }
  return { geoTransform: gt, gcpCount: 0 };
}
