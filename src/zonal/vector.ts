/**
 * The vector use case, top to bottom (CONTRACT §5 vector rules):
 * format check → validate → open source → open GeoParquet (footer) → prune row groups → per row group:
 * read its columns, keep the rows whose box meets the AOI (a scan of each row's WKB)
 * → tally each chunk in the worker pool (vector/tally.ts) → merge the partials → data_area from the
 * counted pieces (vector/data-area.ts) → respond (respond.ts, as the raster side does).
 */
import { ZonalError } from '../errors.ts';
import type { Config } from '../config.ts';
import type { ByteSource } from '../source/source.ts';
import type { VectorRequest } from '../schemas/vector.ts';
import type { StatsResponse } from '../schemas/response.ts';
import { DEFAULT_STATS } from '../schemas/common.ts';
import { parseAoi } from '../geometry/aoi.ts';
import { makeTransformer, transformBBox, transformPolygons, type PointTransform } from '../geometry/reproject.ts';
import { bboxesIntersect, bboxesOfPolygons } from '../geometry/bbox.ts';
import type { FoldRunner } from '../workers/pool.ts';
import type { BBox } from '../geometry/types.ts';
import { parseStatNames, type StatName } from '../stats/names.ts';
import { createAccumulator, restoreAccumulator, type StatsAccumulator } from '../stats/accumulator.ts';
import { openGeoParquet, type FeatureBatch } from '../vector/reader.ts';
import { resolveColumns } from '../vector/columns.ts';
import { pruneRowGroups } from '../vector/prune.ts';
import { crsFromProjJson } from '../vector/crs.ts';
import { wkbBBox, wkbFromPolygons, wkbFromShape, wkbKind, wkbToShape, type Shape, type ShapeKind } from '../geometry/wkb.ts';
import type { ChunkAoi, PieceSet, VectorChunkResult } from '../vector/tally.ts';
import { dataAreaM2, samePresence, type UnionJob } from '../vector/data-area.ts';
import { bandStats } from './respond.ts';

export interface VectorDeps {
  config: Config;
  openSource(url: string): Promise<ByteSource>;
  /** Worker pool: chunks are tallied and data_area unions computed there, off the event loop. */
  runner: Pick<FoldRunner, 'vectorChunk' | 'unionAreas'>;
  signal?: AbortSignal;
  /** The caller already knows the source is Parquet (a STAC asset's media type says so). */
  knownParquet?: boolean;
}

const WGS84 = '+proj=longlat +datum=WGS84 +no_defs';
const PARQUET_PATH = /\.(geo)?parquet$/i;
/** Chunks in the pool at once: enough to keep every worker busy while the next row group is read. */
const IN_FLIGHT = 4;

/** CONTRACT §5: the URL path (query aside, any case) must end in .parquet or .geoparquet; 415 otherwise. */
export function checkParquetUrl(url: string): void {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    throw new ZonalError('validation_failed', 'The url is not a valid URL.', { errors: [{ path: '/url', message: 'is not a valid URL' }] });
  }
  if (!PARQUET_PATH.test(path)) {
    throw new ZonalError('unsupported_media_type', 'The vector source must be a GeoParquet file: its path must end in .parquet or .geoparquet.');
  }
}

function toLonLat(shape: Shape, fwd: PointTransform): Shape {
  switch (shape.kind) {
    case 'polygon':
      return { kind: 'polygon', polygons: transformPolygons(shape.polygons, fwd, 1e-7) };
    case 'line':
      return { kind: 'line', lines: shape.lines.map((l) => l.map(fwd)) };
    case 'point':
      return { kind: 'point', points: shape.points.map(fwd) };
  }
}

interface Selected {
  bytes: Uint8Array;
  offsets: Uint32Array;
  values: Float64Array[];
  firstKind: ShapeKind | null;
}

/**
 * The rows of a batch whose box meets one of `boxes` (the AOI's, in the file's CRS), packed for a worker,
 * in lon/lat. Each box comes from a scan of the WKB (no object is built for a row that misses).
 */
function selectRows(batch: FeatureBatch, columns: readonly string[], boxes: readonly BBox[], fileToLonLat: PointTransform | null): Selected | null {
  const keep: number[] = [];
  const geoms: Uint8Array[] = [];
  let size = 0;
  let firstKind: ShapeKind | null = null;
  for (let i = 0; i < batch.wkb.length; i++) {
    let wkb = batch.wkb[i];
    if (!wkb) continue;
    const box = safeBox(wkb);
    if (box === null || !boxes.some((b) => bboxesIntersect(b, box))) continue;
    if (fileToLonLat !== null) {
      const shape = safeShape(wkb);
      if (shape === null) continue;
      wkb = wkbFromShape(toLonLat(shape, fileToLonLat));
    }
    firstKind ??= safeKind(wkb);
    keep.push(i);
    geoms.push(wkb);
    size += wkb.length;
  }
  if (keep.length === 0) return null;
  const bytes = new Uint8Array(size);
  const offsets = new Uint32Array(keep.length + 1);
  let o = 0;
  geoms.forEach((g, k) => {
    bytes.set(g, o);
    o += g.length;
    offsets[k + 1] = o;
  });
  const values = columns.map((c) => {
    const all = batch.values.get(c) as Float64Array;
    return Float64Array.from(keep, (i) => all[i] as number);
  });
  return { bytes, offsets, values, firstKind };
}

function badWkb(): ZonalError {
  return new ZonalError('invalid_source', 'A feature geometry of the file is not valid WKB.');
}
function safeBox(wkb: Uint8Array): BBox | null {
  try {
    return wkbBBox(wkb);
  } catch {
    throw badWkb();
  }
}
function safeShape(wkb: Uint8Array): Shape | null {
  try {
    return wkbToShape(wkb);
  } catch {
    throw badWkb();
  }
}
function safeKind(wkb: Uint8Array): ShapeKind | null {
  try {
    return wkbKind(wkb);
  } catch {
    throw badWkb();
  }
}

/** Statistics of numeric columns of the GeoParquet file at `req.url` inside `req.aoi`. */
export async function vectorZonalStats(req: VectorRequest, deps: VectorDeps): Promise<StatsResponse> {
  const { config, signal } = deps;
  if (!deps.knownParquet) checkParquetUrl(req.url);
  const names: StatName[] = parseStatNames(req.stats ?? DEFAULT_STATS, 'vector');
  const aoi = parseAoi(req.aoi, { maxVertices: config.maxVertices });
  const byArea = (req.weighting_method ?? 'area') === 'area';

  const source = await deps.openSource(req.url);
  const reader = await openGeoParquet(source, req.geometry_column, signal);
  const { info } = reader;
  const columns = resolveColumns(req.columns, info.columns);
  const crs = crsFromProjJson(info.geo.crs);
  const fileToLonLat = crs.isGeographic ? null : makeTransformer(crs.proj4, WGS84).forward;

  // Row groups whose bbox statistics can meet the AOI (boxes in the file's CRS).
  const lonLatBoxes: BBox[] = aoi.kind === 'point' ? [[aoi.lon, aoi.lat, aoi.lon, aoi.lat]] : bboxesOfPolygons(aoi.polygons);
  const boxes = crs.isGeographic ? lonLatBoxes : lonLatBoxes.map((b) => transformBBox(b, makeTransformer(WGS84, crs.proj4).forward));
  const groups = pruneRowGroups(info.rowGroups, boxes);
  const considered = groups.reduce((n, g) => n + (info.rowGroups[g]?.numRows ?? 0), 0);
  if (considered > config.maxFeatures) {
    throw new ZonalError(
      'too_many_features',
      `The area of interest reaches ${considered.toLocaleString('en')} features, above the limit of ${config.maxFeatures.toLocaleString('en')}.`,
      { limit_features: config.maxFeatures },
    );
  }

  const chunkAoi: ChunkAoi = aoi.kind === 'point' ? { kind: 'point', lon: aoi.lon, lat: aoi.lat } : { kind: 'area', wkb: wkbFromPolygons(aoi.polygons) };
  // Polygon datasets are weighted in intersect mode; points, lines and touch mode are not (CONTRACT §5).
  // The first feature whose box meets the AOI decides, for every chunk alike.
  let weighted: boolean | null = null;
  const pending: Promise<VectorChunkResult>[] = [];
  const partials: VectorChunkResult[] = [];
  for (const g of groups) {
    if (signal?.aborted) throw signal.reason;
    const batch = await reader.readGroup(g, columns);
    const chunk = selectRows(batch, columns, boxes, fileToLonLat);
    if (chunk === null) continue;
    weighted ??= aoi.kind === 'area' && chunk.firstKind === 'polygon';
    pending.push(deps.runner.vectorChunk({ aoi: chunkAoi, weighted, byArea, names, bytes: chunk.bytes, offsets: chunk.offsets, values: chunk.values }, signal));
    if (pending.length >= IN_FLIGHT) partials.push(await (pending.shift() as Promise<VectorChunkResult>));
  }
  partials.push(...(await Promise.all(pending)));

  // Merge the partials column by column.
  const accs: StatsAccumulator[] = columns.map(() => createAccumulator({ names, weighted: weighted ?? false, countItems: true }));
  const counted = columns.map(() => 0);
  const shares = columns.map(() => 0);
  for (const p of partials) {
    p.columns.forEach((col, c) => {
      (accs[c] as StatsAccumulator).merge(restoreAccumulator(col.acc));
      counted[c] = (counted[c] as number) + col.n;
      shares[c] = (shares[c] as number) + col.share;
    });
  }

  const aoiAreaM2 = aoi.kind === 'area' ? aoi.areaM2 : 0;
  const pieces: PieceSet[] = partials.map((p) => p.pieces);
  const unionAreas = (jobs: UnionJob[]) => deps.runner.unionAreas(jobs, signal);
  const dataAreas: Promise<number>[] = [];
  const response: StatsResponse = {};
  for (let c = 0; c < columns.length; c++) {
    // Columns that count the same pieces (no nulls where the other has none) share one data_area.
    const same = dataAreas.findIndex((_, k) => samePresence(pieces, columns.length, k, c));
    dataAreas.push(same >= 0 ? (dataAreas[same] as Promise<number>) : dataAreaM2(pieces, columns.length, c, unionAreas));
  }
  const areas = await Promise.all(dataAreas);
  columns.forEach((name, c) => {
    response[name] = bandStats(accs[c] as StatsAccumulator, aoiAreaM2, areas[c] as number, {
      context: { aoiAreaM2: aoi.kind === 'area' ? aoiAreaM2 : null },
      // `sum` is the areal share Σ value × (intersection / feature area), whatever the weighting.
      replace: { sum: counted[c] === 0 ? null : (shares[c] as number) },
    });
  });
  return response;
}
