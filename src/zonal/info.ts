/**
 * What a source is, for the web page (and anyone who wants to look before asking for statistics): its
 * footprint in WGS84, its bands or columns, and for a raster a coarse preview grid of band 1 read from an
 * overview. Reads only the header (COG) or the footer (GeoParquet), plus one small overview's tiles.
 */
import { ZonalError } from '../errors.ts';
import { EMPTY_BBOX, unionBBox } from '../geometry/bbox.ts';
import { makeTransformer } from '../geometry/reproject.ts';
import type { BBox } from '../geometry/types.ts';
import type { PreviewGrid } from '../raster/preview.ts';
import type { FoldRunner } from '../workers/pool.ts';
import { blockWindow, layoutOf } from '../raster/plan.ts';
import { openRaster, type CogLevel, type CogReader } from '../raster/reader.ts';
import { toWorld, type Grid } from '../geometry/grid.ts';
import type { ByteSource } from '../source/source.ts';
import { openGeoParquet } from '../vector/reader.ts';
import { crsFromProjJson } from '../vector/crs.ts';
import { hasParquetPath } from './vector.ts';
import { boundsOf, lonLatRing, ring, unwrap, type Footprint, type Position } from './footprint.ts';
import { cubeInfo, isCubeUrl, type CubeInfoAnswer } from './cube-info.ts';
import { checkItemUrl, fetchItem, isGeoTiffAsset, isParquetAsset, pickAsset, resolveHref, type StacAsset, type StacItem } from '../stac/item.ts';

const WGS84 = '+proj=longlat +datum=WGS84 +no_defs';
/** The overview read for a preview has at most this many pixels on its long side (≤ 1 M pixels decoded). */
const PREVIEW_LEVEL_MAX_SIDE = 1024;
/** The preview grid sent has at most this many cells on its long side (≤ 65,536 values). */
const PREVIEW_MAX_SIDE = 256;
/**
 * What a preview may read and decode, data and mask together, and in how many blocks: a crafted header
 * (huge tiles, many samples, a million 1-pixel tiles, an odd mask) must not make it costly.
 */
const PREVIEW_MAX_BYTES = 64 * 1024 * 1024;
const PREVIEW_MAX_BLOCKS = 4096;

export interface InfoDeps {
  openSource(url: string): Promise<ByteSource>;
  /** The worker pool: the preview's tiles are decoded there, off the event loop. */
  runner: Pick<FoldRunner, 'preview'>;
  signal?: AbortSignal;
}

interface RasterPreview {
  width: number;
  height: number;
  /** [lon, lat] of the preview's top-left, top-right, bottom-right and bottom-left corners. */
  corners: [Position, Position, Position, Position];
  min: number | null;
  max: number | null;
  /** Band 1 with scale/offset applied, row-major, null where invalid (nodata, masked, NaN). */
  values: (number | null)[];
  /** The level it was read from (0 = full resolution). */
  level: number;
}

export interface RasterInfoAnswer {
  kind: 'raster';
  url: string;
  width: number;
  height: number;
  crs: string | null;
  bands: { band: number; data_type: string; nodata: number | string | null; scale: number; offset: number }[];
  bounds: [number, number, number, number];
  footprint: Footprint;
  levels: { level: number; width: number; height: number }[];
  preview: RasterPreview | null;
  /** Why there is no preview, when there is none. */
  preview_note?: string;
}

export interface StacItemInfoAnswer {
  kind: 'stac_item';
  url: string;
  id: string | null;
  datetime: string | null;
  bounds: [number, number, number, number] | null;
  footprint: Footprint | null;
  /** Each asset with what the service would read it as (raster, vector) or null (neither). */
  assets: { key: string; title: string | null; type: string | null; kind: 'raster' | 'vector' | null }[];
}

export interface VectorInfoAnswer {
  kind: 'vector';
  url: string;
  rows: number;
  geometry_column: string;
  columns: { name: string; numeric: boolean }[];
  bounds: [number, number, number, number] | null;
  footprint: Footprint | null;
}

/**
 * A source is vector when its path ends in .parquet/.geoparquet (the vector endpoint's own rule). With
 * `stac`, `url` is a STAC Item: without `asset`, what the Item holds; with it, that asset as the raster/stac
 * or vector/stac endpoint would read it (the same media-type rules).
 */
export async function sourceInfo(
  req: { url: string; stac?: boolean; asset?: string },
  deps: InfoDeps,
): Promise<RasterInfoAnswer | VectorInfoAnswer | StacItemInfoAnswer | CubeInfoAnswer> {
  if (req.stac === true) {
    const { item, base } = await fetchItem(checkItemUrl(req.url), deps.openSource, deps.signal);
    if (req.asset === undefined) return itemInfo(req.url, item, base);
    const [, asset] = pickAsset(item, req.asset);
    const href = resolveHref(base, asset.href as string);
    const kind = assetKind(asset, href);
    if (kind === null) throw new ZonalError('unsupported_asset', `The asset "${req.asset}" is neither a GeoTIFF nor a GeoParquet file.`);
    const source = await deps.openSource(href);
    return kind === 'vector' ? vectorInfo(href, source, deps) : rasterInfo(href, source, deps);
  }
  if (req.asset !== undefined)
    throw new ZonalError('validation_failed', 'An "asset" is read from a STAC Item: add "stac": true.', {
      errors: [{ path: '/asset', message: 'needs "stac": true' }],
    });
  // A Zarr store or kerchunk references: the cube's variables and dimensions.
  if (isCubeUrl(req.url)) return cubeInfo(req.url, deps);
  // openSource has checked the URL: it parses.
  const source = await deps.openSource(req.url);
  return hasParquetPath(new URL(req.url)) ? vectorInfo(req.url, source, deps) : rasterInfo(req.url, source, deps);
}

/** As the STAC endpoints decide: Parquet by media type or path (vector/stac), else GeoTIFF by media type or none given (raster/stac). */
function assetKind(asset: StacAsset, href: string): 'raster' | 'vector' | null {
  if (isParquetAsset(asset) || hasParquetPath(new URL(href))) return 'vector';
  return isGeoTiffAsset(asset) ? 'raster' : null;
}

/** A declared box of four or six finite numbers as [west, south, east, north] (a 3D box drops z), else null. */
function declaredBox(v: unknown): [number, number, number, number] | null {
  if (!Array.isArray(v) || (v.length !== 4 && v.length !== 6) || !v.every((x) => typeof x === 'number' && Number.isFinite(x))) return null;
  const b = v as number[];
  return (b.length === 6 ? [b[0], b[1], b[3], b[4]] : b) as [number, number, number, number];
}

function itemInfo(url: string, item: StacItem, base: URL): StacItemInfoAnswer {
  const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);
  const props = (item['properties'] ?? {}) as Record<string, unknown>;
  const bbox = declaredBox(item['bbox']);
  let footprint: Footprint | null = null;
  if (bbox !== null) {
    const [w, s, e, n] = bbox;
    const east = e < w ? e + 360 : e;
    footprint = ring(
      unwrap([
        [w, n],
        [east, n],
        [east, s],
        [w, s],
      ]),
    );
  }
  return {
    kind: 'stac_item',
    url,
    id: text(item['id']),
    datetime: text(props['datetime']) ?? text(props['start_datetime']),
    bounds: bbox,
    footprint,
    assets: Object.entries(item.assets).map(([key, a]) => {
      const asset = a && typeof a === 'object' ? a : {};
      let kind: 'raster' | 'vector' | null = null;
      // Resolved as the STAC endpoints resolve it; an href that is not a URL or path is no source.
      if (typeof asset.href === 'string' && asset.href.trim() !== '') {
        try {
          kind = assetKind(asset, resolveHref(base, asset.href));
        } catch {
          kind = null;
        }
      }
      return { key, title: text(asset['title']), type: text(asset.type), kind };
    }),
  };
}

async function rasterInfo(url: string, source: ByteSource, deps: InfoDeps): Promise<RasterInfoAnswer> {
  const reader = await openRaster(source, deps.signal);
  const { info } = reader;
  const base = info.levels[0] as CogLevel;
  const gridCorner =
    (g: Grid) =>
    (u: number, v: number): Position =>
      toWorld(g, u * g.width, v * g.height);
  const points = lonLatRing(info.crs.proj4, gridCorner(base.grid));
  const level = [...info.levels]
    .filter((l) => Math.max(l.grid.width, l.grid.height) <= PREVIEW_LEVEL_MAX_SIDE && previewAffordable(l))
    .sort((a, b) => b.grid.width - a.grid.width)[0];
  const answer: RasterInfoAnswer = {
    kind: 'raster',
    url,
    width: base.grid.width,
    height: base.grid.height,
    crs: info.crs.epsg !== undefined ? `EPSG:${info.crs.epsg}` : info.crs.name || null,
    bands: Array.from({ length: info.bandCount }, (_, i) => ({
      band: i + 1,
      data_type: info.dtype,
      // A 64-bit nodata beyond 2⁵³ is not a float64: given as its digits.
      nodata: info.nodata64 !== null && !Number.isSafeInteger(Number(info.nodata64)) ? info.nodata64.toString() : info.nodata,
      scale: info.scaling[i]?.scale ?? 1,
      offset: info.scaling[i]?.offset ?? 0,
    })),
    bounds: boundsOf(points),
    footprint: ring(points),
    levels: info.levels.map((l) => ({ level: l.index, width: l.grid.width, height: l.grid.height })),
    preview: null,
  };
  if (level === undefined) {
    answer.preview_note = `No overview of at most ${PREVIEW_LEVEL_MAX_SIDE} pixels a side, ${PREVIEW_MAX_BLOCKS} tiles and ${PREVIEW_MAX_BYTES / 1024 / 1024} MiB of tiles (add overviews, e.g. with gdaladdo, for a preview).`;
    return answer;
  }
  answer.preview = await preview(reader, level, deps.runner, deps.signal);
  if (answer.preview === null)
    answer.preview_note = "The raster's corners cannot all be placed on a longitude/latitude map (outside its projection's domain): no preview.";
  return answer;
}

/** Whether a preview of `level` reads and decodes at most PREVIEW_MAX_BYTES in at most PREVIEW_MAX_BLOCKS blocks. */
function previewAffordable(level: CogLevel): boolean {
  const layout = layoutOf(level);
  const blocks = layout.across * layout.down;
  if (blocks > PREVIEW_MAX_BLOCKS) return false;
  const cost = (ifd: CogLevel['ifd'], samples: number): number => {
    const c = ifd.codec;
    const across = Math.ceil(ifd.width / c.tileWidth);
    const down = Math.ceil(ifd.height / c.tileHeight);
    if (across * down > PREVIEW_MAX_BLOCKS) return Infinity;
    // Decoded: whole blocks, every sample of a pixel (at least a byte each); read: the first plane's blocks.
    let read = 0;
    for (let i = 0; i < across * down; i++) read += ifd.byteCounts[i] ?? 0;
    return across * down * c.tileWidth * c.tileHeight * samples * Math.max(1, Math.ceil(Math.max(...c.bitsPerSample) / 8)) + read;
  };
  const codec = level.ifd.codec;
  const total = cost(level.ifd, codec.planarConfiguration === 2 ? 1 : codec.samplesPerPixel) + (level.mask === null ? 0 : cost(level.mask, 1));
  return total <= PREVIEW_MAX_BYTES;
}

/** Band 1 of `level`, sampled to ≤ PREVIEW_MAX_SIDE a side (nearest), scale and offset applied. */
async function preview(reader: CogReader, level: CogLevel, runner: InfoDeps['runner'], signal?: AbortSignal): Promise<RasterPreview | null> {
  const { info } = reader;
  const { width: lw, height: lh } = level.grid;
  const step = Math.max(1, Math.ceil(Math.max(lw, lh) / PREVIEW_MAX_SIDE));
  const width = Math.ceil(lw / step);
  const height = Math.ceil(lh / step);
  const layout = layoutOf(level);
  const blocks = Array.from({ length: layout.across * layout.down }, (_, i) => i);
  const format = reader.blockFormat(level, [1]);
  const encoded = await reader.readBlocks(level, blocks, [1], signal);
  const { scale, offset } = info.scaling[0] ?? { scale: 1, offset: 0 };
  let grid: PreviewGrid;
  try {
    grid = await runner.preview(
      { format, blocks: encoded, windows: encoded.map((b) => blockWindow(level, b.index)), step, width, height, nodata: info.nodata, scale, offset },
      signal,
    );
  } catch (e) {
    if (signal?.aborted) throw e;
    throw new ZonalError('invalid_source', 'A tile of the raster could not be decoded: the file is corrupt or uses an unsupported encoding.');
  }
  // The preview's cells are `step` pixels: its corners are those of the cells, which may overhang the level.
  const g = level.grid;
  const t = makeTransformer(info.crs.proj4, WGS84).forward;
  const at = (col: number, row: number): Position => {
    const p = t(toWorld(g, col, row)) as Position;
    return [p[0], p[1]];
  };
  const corners = unwrap([at(0, 0), at(width * step, 0), at(width * step, height * step), at(0, height * step)]) as RasterPreview['corners'];
  if (corners.some(([x, y]) => !Number.isFinite(x) || !Number.isFinite(y))) return null;
  return {
    width,
    height,
    corners,
    min: grid.min,
    max: grid.max,
    values: grid.values,
    level: level.index,
  };
}

async function vectorInfo(url: string, source: ByteSource, deps: InfoDeps): Promise<VectorInfoAnswer> {
  const reader = await openGeoParquet(source, undefined, deps.signal);
  const { info } = reader;
  const crs = crsFromProjJson(info.geo.crs);
  // The file's declared bbox (four or six finite numbers), else the union of its row groups' (covering
  // column statistics); a malformed one is not guessed at.
  let box = declaredBox(info.geo.bbox);
  if (box === null && info.rowGroups.length > 0 && info.rowGroups.every((g) => g.bbox !== null)) {
    box = declaredBox([...info.rowGroups.reduce((acc, g) => unionBBox(acc, g.bbox as BBox), EMPTY_BBOX)]);
  }
  let footprint: Footprint | null = null;
  if (box !== null) {
    const [x0, y0, x1raw, y1] = box;
    // GeoParquet (as RFC 7946) writes a lon/lat box across the antimeridian with west > east.
    const x1 = crs.isGeographic && x1raw < x0 ? x1raw + 360 : x1raw;
    const points = lonLatRing(crs.proj4, (u, v) => [x0 + u * (x1 - x0), y1 - v * (y1 - y0)]);
    footprint = ring(points);
  }
  return {
    kind: 'vector',
    url,
    rows: info.numRows,
    geometry_column: info.geo.name,
    columns: info.columns.map((c) => ({ name: c.name, numeric: c.numeric })),
    bounds: footprint === null ? null : boundsOf(footprint.coordinates[0] as Position[]),
    footprint,
  };
}
