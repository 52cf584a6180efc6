/**
 * The vector plug-in of the zones × units engine (contract §5 vector rules): a zone needs the row groups
 * whose bbox statistics can meet it; each row group is fetched here and, in a worker, decoded once for
 * every zone that needs it, each zone keeping the rows whose WKB box meets it (vector/select.ts) and
 * tallying them (vector/tally.ts); a zone's partials merge in row-group order, with data_area from the
 * counted pieces (vector/data-area.ts). One zone or many, the same path.
 */
import { ZonalError } from '../errors.ts';
import type { Config } from '../config.ts';
import type { ByteSource } from '../source/source.ts';
import { DEFAULT_STATS } from '../stats/catalogue.ts';
import { makeTransformer, transformBBox } from '../geometry/reproject.ts';
import { bboxesOfPolygons } from '../geometry/bbox.ts';
import type { FoldRunner } from '../workers/pool.ts';
import type { Aoi, BBox } from '../geometry/types.ts';
import { parseStatNames, type StatName } from '../stats/names.ts';
import { createAccumulator, restoreAccumulator, type StatsAccumulator } from '../stats/accumulator.ts';
import { openGeoParquet, type VectorReader } from '../vector/reader.ts';
import { resolveColumns } from '../vector/columns.ts';
import { pruneRowGroups } from '../vector/prune.ts';
import { crsFromProjJson } from '../vector/crs.ts';
import { wkbFromPolygons } from '../geometry/wkb.ts';
import type { ChunkAoi, VectorChunkResult, VectorGroupResult } from '../vector/tally.ts';
import { dataAreaM2, samePresence, type DataAreaRunner, type PieceSet, type UnionJob } from '../vector/data-area.ts';
import { tally } from '../observe.ts';
import { bandStats } from './respond.ts';
import { answerZones, type Needs, type Work } from './engine.ts';
import { parseZones, planEach } from './zones.ts';
import type { StatsResponse, VectorQuery, Zone } from './model.ts';

export interface VectorDeps {
  config: Config;
  openSource(url: string): Promise<ByteSource>;
  /** Worker pool: chunks are tallied and data_area unions computed there, off the event loop. */
  runner: Pick<FoldRunner, 'vectorGroup' | 'vectorGroupZones' | 'unionAreas' | 'overlapGroups'>;
  signal?: AbortSignal;
  /** The caller already knows the source is Parquet (a STAC asset's media type says so). */
  knownParquet?: boolean;
}

const WGS84 = '+proj=longlat +datum=WGS84 +no_defs';
const PARQUET_PATH = /\.(geo)?parquet$/i;

/** Whether a URL's path (query aside, any case) ends in .parquet or .geoparquet (contract §5). */
export function hasParquetPath(url: URL): boolean {
  return PARQUET_PATH.test(url.pathname);
}

/** The URL path must end in .parquet or .geoparquet (contract §5); 415 otherwise. */
export function checkParquetUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ZonalError('validation_failed', 'The url is not a valid URL.', { errors: [{ path: '/url', message: 'is not a valid URL' }] });
  }
  if (!hasParquetPath(parsed)) {
    throw new ZonalError('unsupported_media_type', 'The vector source must be a GeoParquet file: its path must end in .parquet or .geoparquet.');
  }
}

/** What every zone of a request over one GeoParquet file shares. */
interface VectorContext {
  reader: VectorReader;
  columns: string[];
  names: StatName[];
  byArea: boolean;
  /** The file's CRS: boxes of the zones are compared in it. */
  crs: { isGeographic: boolean; proj4: string };
  deps: VectorDeps;
}

/** A zone ready to read: its AOI, its boxes in the file's CRS and the row groups (units) they can meet. */
interface VectorZone extends Needs<number> {
  aoi: Aoi;
  boxes: BBox[];
  chunkAoi: ChunkAoi;
}

type PlannedZone = VectorZone | { error: unknown };

/** The file's footer, once for every zone. */
async function openVectorContext(req: VectorQuery, names: StatName[], deps: VectorDeps): Promise<VectorContext> {
  const source = await deps.openSource(req.url);
  const reader = await openGeoParquet(source, req.geometry_column, deps.signal);
  const { info } = reader;
  const columns = resolveColumns(req.columns, info.columns);
  return { reader, columns, names, byArea: (req.weighting_method ?? 'area') === 'area', crs: crsFromProjJson(info.geo.crs), deps };
}

/** A zone's boxes and row groups; a problem of the zone (too many features) throws its ZonalError. */
function planVectorZone(ctx: VectorContext, aoi: Aoi): VectorZone {
  const { info } = ctx.reader;
  const { config } = ctx.deps;
  // Row groups whose bbox statistics can meet the AOI (boxes in the file's CRS).
  const lonLatBoxes: BBox[] = aoi.kind === 'point' ? [[aoi.lon, aoi.lat, aoi.lon, aoi.lat]] : bboxesOfPolygons(aoi.polygons);
  const boxes = ctx.crs.isGeographic ? lonLatBoxes : lonLatBoxes.map((b) => transformBBox(b, makeTransformer(WGS84, ctx.crs.proj4).forward));
  const groups = pruneRowGroups(info.rowGroups, boxes);
  const considered = groups.reduce((n, g) => n + (info.rowGroups[g]?.numRows ?? 0), 0);
  if (considered > config.maxFeatures) {
    throw new ZonalError(
      'too_many_features',
      `The area of interest reaches ${considered.toLocaleString('en')} features, above the limit of ${config.maxFeatures.toLocaleString('en')}.`,
      { limit_features: config.maxFeatures },
    );
  }
  tally.features += considered;
  const chunkAoi: ChunkAoi = aoi.kind === 'point' ? { kind: 'point', lon: aoi.lon, lat: aoi.lat } : { kind: 'area', wkb: wkbFromPolygons(aoi.polygons) };
  return { aoi, boxes, units: groups, chunkAoi };
}

/**
 * The answers of the zones over one GeoParquet file, in input order, each as soon as it and every zone
 * before it are complete; a zone's problem is its answer, the request's problems throw.
 */
export async function* vectorZones(
  req: VectorQuery,
  zones: readonly Zone[],
  deps: VectorDeps,
): AsyncGenerator<{ statistics: StatsResponse } | { error: unknown }> {
  if (!deps.knownParquet) checkParquetUrl(req.url);
  const names = parseStatNames(req.stats ?? DEFAULT_STATS, 'vector');
  // AOIs before any byte: a bad geometry costs no upstream read.
  const aois = parseZones(zones, deps.config.maxVertices);
  if (zones.length === 1 && 'error' in (aois[0] as object)) {
    yield aois[0] as { error: unknown };
    return;
  }
  const ctx = await openVectorContext(req, names, deps);
  const planned = await planEach(
    aois,
    (aoi) => {
      if ('error' in aoi) throw aoi.error;
      return planVectorZone(ctx, aoi);
    },
    deps.signal,
  );
  yield* answerZones(planned, vectorWork(ctx, planned));
}

/**
 * The engine's vector work: units are row groups, each fetched here and decoded once in a worker for
 * every zone that needs it. A zone whose groups disagree on the weighting (a file mixing polygons with
 * points or lines, where the first row kept decides) is answered again alone, group after group.
 */
function vectorWork(ctx: VectorContext, zones: readonly PlannedZone[]): Work<number, VectorGroupResult, { statistics: StatsResponse }> {
  const { deps } = ctx;
  const fileCrs = ctx.crs.isGeographic ? null : ctx.crs.proj4;
  return {
    id: (g) => g,
    compare: (a, b) => a - b,
    run: async ([unit]) => {
      const { key: g, zones: members } = unit as { key: number; zones: number[] };
      const group = await ctx.reader.fetchGroup(g, ctx.columns);
      const own = members.map((z) => zones[z] as VectorZone);
      const task = { group, zones: own.map((z) => ({ aoi: z.chunkAoi, boxes: z.boxes })), fileCrs, byArea: ctx.byArea, names: ctx.names };
      const out = await deps.runner.vectorGroupZones(task, deps.signal);
      return members.map((zone, k) => ({ zone, key: g, result: out[k] as VectorGroupResult }));
    },
    answer: async (z, results) => {
      const zone = zones[z] as VectorZone;
      const kept = results.filter((r) => r.result !== null);
      const weighted = kept[0]?.weighted ?? false;
      const statistics = kept.every((r) => r.weighted === weighted)
        ? await respond(
            ctx,
            zone.aoi,
            kept.map((r) => r.result as VectorChunkResult),
            weighted,
          )
        : await answerAlone(ctx, zone);
      return { statistics };
    },
    ...(deps.signal ? { signal: deps.signal } : {}),
  };
}

/** One zone, row group after row group: the first group that keeps a row decides the weighting of all. */
async function answerAlone(ctx: VectorContext, zone: VectorZone): Promise<StatsResponse> {
  const { signal } = ctx.deps;
  const fileCrs = ctx.crs.isGeographic ? null : ctx.crs.proj4;
  let weighted: boolean | null = null;
  const partials: VectorChunkResult[] = [];
  for (const g of zone.units) {
    if (signal?.aborted) throw signal.reason;
    const group = await ctx.reader.fetchGroup(g, ctx.columns);
    const task = { group, aoi: zone.chunkAoi, boxes: zone.boxes, fileCrs, weighted, byArea: ctx.byArea, names: ctx.names };
    const r = await ctx.deps.runner.vectorGroup(task, signal);
    if (r.result === null) continue;
    weighted ??= r.weighted;
    partials.push(r.result);
  }
  return respond(ctx, zone.aoi, partials, weighted ?? false);
}

/** The partials of a zone merged into its answer, with data_area from the counted pieces. */
async function respond(ctx: VectorContext, aoi: Aoi, partials: VectorChunkResult[], weighted: boolean): Promise<StatsResponse> {
  tally.zones += 1;
  const { columns, names, deps } = ctx;
  const { signal } = deps;
  // Merge the partials column by column.
  const accs: StatsAccumulator[] = columns.map(() => createAccumulator({ names, weighted, countItems: true }));
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
