/**
 * What a source is, for the web page (and anyone who wants to look before asking for statistics): its
 * footprint in WGS84, its bands or columns, and for a raster a coarse preview grid of band 1 read from an
 * overview. Reads only the header (COG) or the footer (GeoParquet), plus one small overview's tiles.
 */
import { ZonalError } from '../errors.ts';
import { EMPTY_BBOX, unionBBox } from '../geometry/bbox.ts';
import { makeTransformer } from '../geometry/reproject.ts';
import type { BBox } from '../geometry/types.ts';
import { decodeBlock } from '../raster/decode.ts';
import { blockWindow, layoutOf } from '../raster/plan.ts';
import { openRaster, type RasterLevel, type RasterReader } from '../raster/reader.ts';
import { toWorld, type Grid } from '../raster/grid.ts';
import type { ByteSource } from '../source/source.ts';
import { openGeoParquet } from '../vector/reader.ts';
import { crsFromProjJson } from '../vector/crs.ts';
import { checkParquetUrl } from './vector.ts';

const WGS84 = '+proj=longlat +datum=WGS84 +no_defs';
/** The overview read for a preview has at most this many pixels on its long side (≤ 1 M pixels decoded). */
const PREVIEW_LEVEL_MAX_SIDE = 1024;
/** The preview grid sent has at most this many cells on its long side (≤ 65,536 values). */
const PREVIEW_MAX_SIDE = 256;
/** What a preview may read and decode: a crafted header (huge tiles, many samples) must not make it costly. */
const PREVIEW_MAX_BYTES = 64 * 1024 * 1024;
/** Points per footprint edge, so a projected raster's curved edges look right on a lon/lat map. */
const EDGE_POINTS = 16;

export interface InfoDeps {
  openSource(url: string): Promise<ByteSource>;
  signal?: AbortSignal;
}

type Position = [number, number];
export interface Footprint {
  type: 'Polygon';
  coordinates: Position[][];
}

export interface RasterPreview {
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
  bands: { band: number; data_type: string; nodata: number | null; scale: number; offset: number }[];
  bounds: [number, number, number, number];
  footprint: Footprint;
  levels: { level: number; width: number; height: number }[];
  preview: RasterPreview | null;
  /** Why there is no preview, when there is none. */
  preview_note?: string;
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

/** A source is vector when its path ends in .parquet/.geoparquet (the vector endpoint's own rule). */
export async function sourceInfo(url: string, deps: InfoDeps): Promise<RasterInfoAnswer | VectorInfoAnswer> {
  let parquet = true;
  try {
    checkParquetUrl(url);
  } catch (e) {
    if (!(e instanceof ZonalError) || e.code !== 'unsupported_media_type') throw e;
    parquet = false;
  }
  const source = await deps.openSource(url);
  return parquet ? vectorInfo(url, source, deps) : rasterInfo(url, source, deps);
}

function ring(points: Position[]): Footprint {
  return { type: 'Polygon', coordinates: [[...points, points[0] as Position]] };
}

function boundsOf(points: readonly Position[]): [number, number, number, number] {
  let w = Infinity, s = Infinity, e = -Infinity, n = -Infinity;
  for (const [x, y] of points) {
    w = Math.min(w, x);
    e = Math.max(e, x);
    s = Math.min(s, y);
    n = Math.max(n, y);
  }
  return [w, s, e, n];
}

/** The rectangle (x0, y0)–(x1, y1) in `proj4` as a densified lon/lat ring (clockwise from top-left). */
function lonLatRing(proj4: string, corner: (u: number, v: number) => Position): Position[] {
  const t = makeTransformer(proj4, WGS84).forward;
  const out: Position[] = [];
  const edges: [number, number, number, number][] = [[0, 0, 1, 0], [1, 0, 1, 1], [1, 1, 0, 1], [0, 1, 0, 0]];
  for (const [u0, v0, u1, v1] of edges) {
    for (let k = 0; k < EDGE_POINTS; k++) {
      const f = k / EDGE_POINTS;
      const p = t(corner(u0 + (u1 - u0) * f, v0 + (v1 - v0) * f)) as Position;
      if (Number.isFinite(p[0]) && Number.isFinite(p[1])) out.push([p[0], p[1]]);
    }
  }
  if (out.length < 3) throw new ZonalError('unsupported_raster', 'The source\'s extent cannot be placed on a longitude/latitude map.');
  return out;
}

async function rasterInfo(url: string, source: ByteSource, deps: InfoDeps): Promise<RasterInfoAnswer> {
  const reader = await openRaster(source, deps.signal);
  const { info } = reader;
  const base = info.levels[0] as RasterLevel;
  const gridCorner = (g: Grid) => (u: number, v: number): Position => toWorld(g, u * g.width, v * g.height);
  const points = lonLatRing(info.crs.proj4, gridCorner(base.grid));
  const level = [...info.levels]
    .filter((l) => Math.max(l.grid.width, l.grid.height) <= PREVIEW_LEVEL_MAX_SIDE && previewCost(l) <= PREVIEW_MAX_BYTES)
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
      nodata: info.nodata,
      scale: info.scaling[i]?.scale ?? 1,
      offset: info.scaling[i]?.offset ?? 0,
    })),
    bounds: boundsOf(points),
    footprint: ring(points),
    levels: info.levels.map((l) => ({ level: l.index, width: l.grid.width, height: l.grid.height })),
    preview: null,
  };
  if (level === undefined) {
    answer.preview_note = `No overview of at most ${PREVIEW_LEVEL_MAX_SIDE} pixels a side and ${PREVIEW_MAX_BYTES / 1024 / 1024} MiB of tiles (add overviews, e.g. with gdaladdo, for a preview).`;
    return answer;
  }
  answer.preview = await preview(reader, level, deps.signal);
  return answer;
}

/** Bytes a preview of `level` reads (band 1's blocks) or decodes (whole blocks, every sample of a pixel). */
function previewCost(level: RasterLevel): number {
  const codec = level.ifd.codec;
  const layout = layoutOf(level);
  const blocks = layout.across * layout.down;
  const samples = codec.planarConfiguration === 2 ? 1 : codec.samplesPerPixel;
  const decoded = blocks * codec.tileWidth * codec.tileHeight * samples * Math.ceil(Math.max(...codec.bitsPerSample) / 8);
  // Band 1's blocks come first in the offsets (band-separate files list each band's blocks in turn).
  let read = 0;
  for (let i = 0; i < blocks; i++) read += level.ifd.byteCounts[i] ?? 0;
  return Math.max(decoded, read);
}

/** Band 1 of `level`, sampled to ≤ PREVIEW_MAX_SIDE a side (nearest), scale and offset applied. */
async function preview(reader: RasterReader, level: RasterLevel, signal?: AbortSignal): Promise<RasterPreview> {
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
  const nodata = info.nodata;
  const values: (number | null)[] = new Array<number | null>(width * height).fill(null);
  let min = Infinity;
  let max = -Infinity;
  for (const block of encoded) {
    // Small by construction (≤ 1 M pixels in all); decoded here, not worth a worker's round trip.
    const decoded = await decodeBlock(format, block, false);
    const win = blockWindow(level, block.index);
    const band = decoded.bands[0];
    if (band === undefined) continue;
    const r0 = Math.ceil(win.row0 / step) * step;
    const c0 = Math.ceil(win.col0 / step) * step;
    for (let row = r0; row < win.row0 + win.height; row += step) {
      for (let col = c0; col < win.col0 + win.width; col += step) {
        const r = row - win.row0;
        const c = col - win.col0;
        if (decoded.valid !== null && decoded.valid[r * decoded.maskStride + c] === 0) continue;
        const raw = band.values === null ? format.fill : Number(band.values[r * band.rowStride + c * band.step + band.offset]);
        if (Number.isNaN(raw) || (nodata !== null && raw === nodata)) continue;
        const v = Number((raw * scale + offset).toPrecision(7));
        values[(row / step) * width + col / step] = v;
        if (v < min) min = v;
        if (v > max) max = v;
      }
    }
  }
  // The preview's cells are `step` pixels: its corners are those of the cells, which may overhang the level.
  const g = level.grid;
  const t = makeTransformer(info.crs.proj4, WGS84).forward;
  const at = (col: number, row: number): Position => {
    const p = t(toWorld(g, col, row)) as Position;
    return [p[0], p[1]];
  };
  return {
    width,
    height,
    corners: [at(0, 0), at(width * step, 0), at(width * step, height * step), at(0, height * step)],
    min: Number.isFinite(min) ? min : null,
    max: Number.isFinite(max) ? max : null,
    values,
    level: level.index,
  };
}

async function vectorInfo(url: string, source: ByteSource, deps: InfoDeps): Promise<VectorInfoAnswer> {
  const reader = await openGeoParquet(source, undefined, deps.signal);
  const { info } = reader;
  const crs = crsFromProjJson(info.geo.crs);
  // The file's declared bbox, else the union of its row groups' (covering column statistics).
  let box: number[] | null = info.geo.bbox !== null && info.geo.bbox.length >= 4 ? info.geo.bbox : null;
  if (box === null && info.rowGroups.length > 0 && info.rowGroups.every((g) => g.bbox !== null)) {
    box = [...info.rowGroups.reduce((acc, g) => unionBBox(acc, g.bbox as BBox), EMPTY_BBOX)];
  }
  let footprint: Footprint | null = null;
  if (box !== null) {
    // A 3D bbox is [minx, miny, minz, maxx, maxy, maxz].
    const [x0, y0, x1, y1] = box.length === 6 ? [box[0], box[1], box[3], box[4]] : box;
    const points = lonLatRing(crs.proj4, (u, v) => [(x0 as number) + u * ((x1 as number) - (x0 as number)), (y1 as number) - v * ((y1 as number) - (y0 as number))]);
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
