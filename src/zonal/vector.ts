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
import type { GeometryRequest } from '../schemas/aoi.ts';
import type { StatsResponse } from '../schemas/response.ts';
import { DEFAULT_STATS } from '../schemas/common.ts';
import { parseAoi } from '../geometry/aoi.ts';
import { geometryOf } from './zones.ts';
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
import type { ChunkAoi, VectorChunkResult, VectorGroupResult, VectorGroupZonesTask } from '../vector/tally.ts';
import { dataAreaM2, samePresence, type DataAreaRunner, type PieceSet, type UnionJob } from '../vector/data-area.ts';
import { bandStats } from './respond.ts';
import { inInputOrder } from './schedule.ts';
import { tally } from '../observe.ts';

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
/** Chunks in the pool at once: enough to keep every worker busy while the next row group is read. */
const IN_FLIGHT = 4;
/** Zones planned between two turns of the event loop. */
const PLAN_SLICE = 64;

/** Whether a URL's path (query aside, any case) ends in .parquet or .geoparquet (CONTRACT §5). */
export function hasParquetPath(url: URL): boolean {
  return PARQUET_PATH.test(url.pathname);
}

/** CONTRACT §5: the URL path must end in .parquet or .geoparquet; 415 otherwise. */
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

/** A zone ready to read: its AOI, its boxes in the file's CRS and the row groups they can meet. */
interface VectorZone {
  aoi: Aoi;
  boxes: BBox[];
  groups: number[];
  chunkAoi: ChunkAoi;
}

type Answer = { statistics: StatsResponse } | { error: unknown };

/** The request's own checks and the file's footer, once for every zone. */
async function openVectorContext(req: Omit<VectorRequest, 'aoi'>, deps: VectorDeps, before?: () => void): Promise<VectorContext> {
  if (!deps.knownParquet) checkParquetUrl(req.url);
  const names: StatName[] = parseStatNames(req.stats ?? DEFAULT_STATS, 'vector');
  before?.();
  const source = await deps.openSource(req.url);
  const reader = await openGeoParquet(source, req.geometry_column, deps.signal);
  const { info } = reader;
  const columns = resolveColumns(req.columns, info.columns);
  return { reader, columns, names, byArea: (req.weighting_method ?? 'area') === 'area', crs: crsFromProjJson(info.geo.crs), deps };
}

function parseZone(geometry: GeometryRequest, config: Config): Aoi {
  return parseAoi(geometry, { maxVertices: config.maxVertices });
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
  return { aoi, boxes, groups, chunkAoi };
}

/** Statistics of numeric columns of the GeoParquet file at `req.url` inside `req.aoi`. */
export async function vectorZonalStats(req: VectorRequest, deps: VectorDeps): Promise<StatsResponse> {
  let aoi: Aoi | undefined;
  // The AOI is checked before the source is opened (a bad AOI costs no upstream read).
  const ctx = await openVectorContext(req, deps, () => {
    aoi = parseZone(geometryOf(req.aoi, req.radius), deps.config);
  });
  return answerZone(ctx, planVectorZone(ctx, aoi as Aoi));
}

/** One zone, row group after row group (the first group that keeps a row decides the weighting). */
async function answerZone(ctx: VectorContext, zone: VectorZone): Promise<StatsResponse> {
  const { signal } = ctx.deps;
  const fileCrs = ctx.crs.isGeographic ? null : ctx.crs.proj4;
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
  for (const g of zone.groups) {
    if (signal?.aborted) throw signal.reason;
    const group = await ctx.reader.fetchGroup(g, ctx.columns);
    const task = { group, aoi: zone.chunkAoi, boxes: zone.boxes, fileCrs, weighted, byArea: ctx.byArea, names: ctx.names };
    pending.push(ctx.deps.runner.vectorGroup(task, signal));
    if (weighted === null || pending.length >= IN_FLIGHT) settle(await (pending.shift() as Promise<VectorGroupResult>));
  }
  for (const r of await Promise.all(pending)) settle(r);
  return respond(ctx, zone.aoi, partials, weighted ?? false);
}

/**
 * The answers of many zones over one GeoParquet file, in input order: each row group is read and decoded
 * once for every zone that can meet it (a row index per group finds each zone's rows). A zone whose
 * groups disagree on the weighting (a file mixing polygons with points or lines, where the first row kept
 * decides) is answered again alone, as its own request would be.
 */
export async function* vectorZonesStats(
  req: Omit<VectorRequest, 'aoi'>,
  geometries: readonly (() => GeometryRequest)[],
  deps: VectorDeps,
): AsyncGenerator<Answer> {
  const ctx = await openVectorContext(req, deps);
  const { signal } = deps;
  const zones: (VectorZone | { error: unknown })[] = [];
  for (let i = 0; i < geometries.length; i++) {
    try {
      zones.push(planVectorZone(ctx, parseZone((geometries[i] as () => GeometryRequest)(), deps.config)));
    } catch (e) {
      zones.push({ error: e });
    }
    // Planning is main-thread work: let other requests in between slices.
    if (i % PLAN_SLICE === PLAN_SLICE - 1) await new Promise<void>((resolve) => setImmediate(resolve));
    if (signal?.aborted) throw signal.reason;
  }
  // Which zones need each row group; groups in the order of the first zone that needs them.
  const byGroup = new Map<number, number[]>();
  const remaining = new Int32Array(zones.length);
  zones.forEach((z, pos) => {
    if ('error' in z) return;
    for (const g of z.groups) {
      let list = byGroup.get(g);
      if (!list) byGroup.set(g, (list = []));
      list.push(pos);
    }
    remaining[pos] = z.groups.length;
  });
  const order = [...byGroup.entries()].sort((a, b) => (a[1][0] as number) - (b[1][0] as number) || a[0] - b[0]);
  const results: { group: number; result: VectorGroupResult }[][] = zones.map(() => []);
  const done: (Promise<Answer> | undefined)[] = new Array(zones.length);
  const finish = (pos: number): void => {
    const z = zones[pos] as VectorZone | { error: unknown };
    if ('error' in z) {
      done[pos] = Promise.resolve(z);
      return;
    }
    // As answerZone merges them: in row-group order, weighted as the first group that kept a row says.
    const own = (results[pos] as { group: number; result: VectorGroupResult }[]).sort((a, b) => a.group - b.group).filter((r) => r.result.result !== null);
    results[pos] = [];
    const decided = own.map((r) => r.result.weighted);
    const weighted = decided[0] ?? false;
    const answer = decided.every((w) => w === weighted)
      ? respond(
          ctx,
          z.aoi,
          own.map((r) => r.result.result as VectorChunkResult),
          weighted,
        )
      : answerZone(ctx, z);
    done[pos] = answer.then(
      (statistics) => ({ statistics }),
      (error: unknown) => ({ error }),
    );
    done[pos].catch(() => undefined);
  };
  zones.forEach((z, pos) => {
    if ('error' in z || remaining[pos] === 0) finish(pos);
  });

  const fileCrs = ctx.crs.isGeographic ? null : ctx.crs.proj4;
  const units = order.map(([g, positions]) => async (): Promise<void> => {
    const group = await ctx.reader.fetchGroup(g, ctx.columns);
    const task: VectorGroupZonesTask = {
      group,
      zones: positions.map((pos) => ({ aoi: (zones[pos] as VectorZone).chunkAoi, boxes: (zones[pos] as VectorZone).boxes })),
      fileCrs,
      byArea: ctx.byArea,
      names: ctx.names,
    };
    const out = await deps.runner.vectorGroupZones(task, signal);
    positions.forEach((pos, k) => {
      (results[pos] as { group: number; result: VectorGroupResult }[]).push({ group: g, result: out[k] as VectorGroupResult });
      if (--remaining[pos] === 0) finish(pos);
    });
  });
  // A problem of the request (the source, a corrupt row group) ends the request as a single zone's would.
  for await (const answer of inInputOrder(
    zones.length,
    units,
    IN_FLIGHT,
    {
      isDone: (pos) => done[pos] !== undefined,
      take: (pos) => {
        const answer = done[pos] as Promise<Answer>;
        done[pos] = undefined;
        return answer;
      },
    },
    signal,
  ))
    yield await answer;
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
