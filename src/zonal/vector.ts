/**
 * The vector use case, top to bottom (CONTRACT §5 vector rules):
 * format check → validate → open source → open GeoParquet (footer) → prune row groups → per row group:
 * fetch its column chunks here, then in the worker pool decode them, keep the rows whose WKB box meets
 * the AOI (vector/select.ts) and tally them (vector/tally.ts) → merge the partials → data_area from the
 * counted pieces (vector/data-area.ts) → respond (respond.ts, as the raster side does).
 */
import { ZonalError } from '../errors.ts';
import type { Config } from '../config.ts';
import type { ByteSource } from '../source/source.ts';
import type { VectorRequest } from '../schemas/vector.ts';
import type { StatsResponse } from '../schemas/response.ts';
import { DEFAULT_STATS } from '../schemas/common.ts';
import { parseAoi } from '../geometry/aoi.ts';
import { geometryOf } from './zones.ts';
import { makeTransformer, transformBBox } from '../geometry/reproject.ts';
import { bboxesOfPolygons } from '../geometry/bbox.ts';
import type { FoldRunner } from '../workers/pool.ts';
import type { BBox } from '../geometry/types.ts';
import { parseStatNames, type StatName } from '../stats/names.ts';
import { createAccumulator, restoreAccumulator, type StatsAccumulator } from '../stats/accumulator.ts';
import { openGeoParquet } from '../vector/reader.ts';
import { resolveColumns } from '../vector/columns.ts';
import { pruneRowGroups } from '../vector/prune.ts';
import { crsFromProjJson } from '../vector/crs.ts';
import { wkbFromPolygons } from '../geometry/wkb.ts';
import type { ChunkAoi, VectorChunkResult, VectorGroupResult } from '../vector/tally.ts';
import { dataAreaM2, samePresence, type DataAreaRunner, type PieceSet, type UnionJob } from '../vector/data-area.ts';
import { bandStats } from './respond.ts';

export interface VectorDeps {
  config: Config;
  openSource(url: string): Promise<ByteSource>;
  /** Worker pool: chunks are tallied and data_area unions computed there, off the event loop. */
  runner: Pick<FoldRunner, 'vectorGroup' | 'unionAreas' | 'overlapGroups'>;
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

/** Statistics of numeric columns of the GeoParquet file at `req.url` inside `req.aoi`. */
export async function vectorZonalStats(req: VectorRequest, deps: VectorDeps): Promise<StatsResponse> {
  const { config, signal } = deps;
  if (!deps.knownParquet) checkParquetUrl(req.url);
  const names: StatName[] = parseStatNames(req.stats ?? DEFAULT_STATS, 'vector');
  const aoi = parseAoi(geometryOf(req.aoi, req.radius), { maxVertices: config.maxVertices });
  const byArea = (req.weighting_method ?? 'area') === 'area';

  const source = await deps.openSource(req.url);
  const reader = await openGeoParquet(source, req.geometry_column, signal);
  const { info } = reader;
  const columns = resolveColumns(req.columns, info.columns);
  const crs = crsFromProjJson(info.geo.crs);

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
  // The main thread only fetches column chunks; a worker decodes, selects and tallies each row group.
  // Polygon datasets are weighted in intersect mode, others not (CONTRACT §5): the first row kept
  // decides for every group, so groups go one at a time until one has kept a row.
  let weighted: boolean | null = null;
  const pending: Promise<VectorGroupResult>[] = [];
  const partials: VectorChunkResult[] = [];
  const settle = (r: VectorGroupResult): void => {
    if (r.result === null) return;
    weighted ??= r.weighted;
    partials.push(r.result);
  };
  for (const g of groups) {
    if (signal?.aborted) throw signal.reason;
    const group = await reader.fetchGroup(g, columns);
    const task = { group, aoi: chunkAoi, boxes, fileCrs: crs.isGeographic ? null : crs.proj4, weighted, byArea, names };
    pending.push(deps.runner.vectorGroup(task, signal));
    if (weighted === null || pending.length >= IN_FLIGHT) settle(await (pending.shift() as Promise<VectorGroupResult>));
  }
  for (const r of await Promise.all(pending)) settle(r);

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
  const run: DataAreaRunner = {
    unionAreas: (jobs: UnionJob[]) => deps.runner.unionAreas(jobs, signal),
    overlapGroups: (b: Float64Array) => deps.runner.overlapGroups(b, signal),
  };
  const dataAreas: Promise<number>[] = [];
  const response: StatsResponse = {};
  for (let c = 0; c < columns.length; c++) {
    // Columns that count the same pieces (no nulls where the other has none) share one data_area.
    const same = dataAreas.findIndex((_, k) => samePresence(pieces, columns.length, k, c));
    dataAreas.push(same >= 0 ? (dataAreas[same] as Promise<number>) : dataAreaM2(pieces, columns.length, c, run));
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
