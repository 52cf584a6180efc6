/**
 * RasterReader: what the raster use case knows of a COG. Opening reads only the header (one request for
 * a well-formed COG); tiles are fetched one byte range each, only those the AOI touches.
 */
import type { ByteSource } from '../source/source.ts';
import { SourceError } from '../source/source.ts';
import { ZonalError } from '../errors.ts';
import type { Grid } from './grid.ts';
import { compressionSupported, readGeoTiffHeader, type IfdInfo, type TileCodec } from './geotiff-adapter.ts';
import { parseBandScaling, parseNodata, type BandScaling } from './gdal-metadata.ts';
import { crsFromGeoKeys, type CrsInfo } from '../geometry/crs.ts';

/** One resolution level: 0 is full resolution, then the overviews from finest to coarsest. */
export interface RasterLevel {
  readonly index: number;
  readonly grid: Grid;
  readonly ifd: IfdInfo;
  /** The internal transparency mask of this level (GDAL_TIFF_INTERNAL_MASK), if any. */
  readonly mask: IfdInfo | null;
}

export interface RasterInfo {
  readonly levels: readonly RasterLevel[];
  readonly bandCount: number;
  readonly crs: CrsInfo;
  /** GDAL_NODATA, shared by all bands (GDAL's TIFF model); NaN means NaN is nodata; null none. */
  readonly nodata: number | null;
  readonly scaling: readonly BandScaling[];
  /** e.g. "uint8", "float32" (of band 1). */
  readonly dtype: string;
}

export interface RasterReader {
  readonly info: RasterInfo;
  /** Compressed bytes of tile `index` (TIFF tile order) of an IFD; null for a sparse (empty) tile. */
  readTile(ifd: IfdInfo, index: number, signal?: AbortSignal): Promise<ArrayBuffer | null>;
}

const DTYPES: Record<string, string> = {
  '1/8': 'uint8', '2/8': 'int8', '1/16': 'uint16', '2/16': 'int16', '1/32': 'uint32', '2/32': 'int32',
  '1/64': 'uint64', '2/64': 'int64', '3/32': 'float32', '3/64': 'float64',
};

/** Sample type name, or null when we do not read it (1-bit, 4-bit, 24-bit, float16…). */
export function dtypeOf(codec: TileCodec, sample: number): string | null {
  return DTYPES[`${codec.sampleFormat[sample] ?? 1}/${codec.bitsPerSample[sample] ?? 8}`] ?? null;
}

function isMask(ifd: IfdInfo): boolean {
  return (ifd.subfileType & 4) !== 0;
}

function checkReadable(ifd: IfdInfo, what: string): void {
  if (!compressionSupported(ifd.codec.compression)) {
    throw new ZonalError('unsupported_raster', `The ${what} uses TIFF compression ${ifd.codec.compression}, which this service does not decode.`);
  }
}

/**
 * Opens a GeoTIFF over a ByteSource: parses the header, georeferencing, CRS, nodata and scale/offset.
 * Throws ZonalError('invalid_source') for bytes that are not a readable TIFF, ('missing_crs') without a CRS.
 */
export async function openRaster(source: ByteSource, signal?: AbortSignal): Promise<RasterReader> {
  let header;
  try {
    header = await readGeoTiffHeader(source, signal);
  } catch (e) {
    if (e instanceof SourceError || e instanceof ZonalError) throw e;
    throw new ZonalError('invalid_source', 'The source is not a readable GeoTIFF.');
  }
  const images = header.ifds.filter((ifd) => !isMask(ifd));
  const base = images[0];
  if (!base) throw new ZonalError('invalid_source', 'The source is not a readable GeoTIFF.');
  if (!header.affine) throw new ZonalError('missing_crs', 'The raster has no georeferencing (no geotransform).');
  if (header.rotated) throw new ZonalError('unsupported_raster', 'The raster grid is rotated; only north-up rasters are supported.');
  const crs = crsFromGeoKeys(header.geoKeys ?? {});
  const dtype = dtypeOf(base.codec, 0);
  if (dtype === null) {
    throw new ZonalError('unsupported_raster', `The raster's sample type (${base.codec.bitsPerSample[0]}-bit) is not supported.`);
  }
  checkReadable(base, 'raster');
  const [x0, y0, dx, dy] = header.affine;
  const masks = header.ifds.filter(isMask);
  const levels: RasterLevel[] = [];
  for (const ifd of images) {
    // Overviews of another shape (e.g. a thumbnail of other bands) are not levels of this raster.
    if (ifd.codec.samplesPerPixel !== base.codec.samplesPerPixel || ifd.width > base.width) continue;
    const grid: Grid = {
      x0,
      y0,
      dx: (dx * base.width) / ifd.width,
      dy: (dy * base.height) / ifd.height,
      width: ifd.width,
      height: ifd.height,
    };
    const mask = masks.find((m) => m.width === ifd.width && m.height === ifd.height) ?? null;
    levels.push({ index: levels.length, grid, ifd, mask });
  }
  const bandCount = base.codec.samplesPerPixel;
  const { head } = header;
  return {
    info: {
      levels,
      bandCount,
      crs,
      nodata: parseNodata(header.gdalNodata),
      scaling: parseBandScaling(header.gdalMetadata, bandCount),
      dtype,
    },
    async readTile(ifd, index, sig) {
      const offset = ifd.offsets[index];
      const length = ifd.byteCounts[index];
      if (offset === undefined || length === undefined) {
        throw new ZonalError('invalid_source', 'The GeoTIFF tile index is incomplete.');
      }
      if (length === 0) return null;
      if (offset + length <= head.byteLength) return head.slice(offset, offset + length);
      return source.read(offset, length, sig);
    },
  };
}
