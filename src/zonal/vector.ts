/**
 * The vector use case, top to bottom (CONTRACT §5 vector rules):
 * format check → validate → open source → open GeoParquet (footer) → prune row groups → read the
 * geometry and value columns of the groups left → weigh each feature → accumulate per column → respond.
 */
import { ZonalError } from '../errors.ts';
import type { Config } from '../config.ts';
import type { ByteSource } from '../source/source.ts';
import type { VectorRequest } from '../schemas/vector.ts';
import type { StatsResponse } from '../schemas/response.ts';
import { DEFAULT_STATS } from '../schemas/common.ts';
import { parseAoi } from '../geometry/aoi.ts';
import { makeTransformer, transformBBox, transformPolygons, type PointTransform } from '../geometry/reproject.ts';
import { bboxesIntersect, bboxesOfPolygons, bboxOfPolygons } from '../geometry/bbox.ts';
import { overlappingBoxes } from '../vector/overlap.ts';
import { ellipsoidalAreaM2 } from '../geometry/geodesic.ts';
import type { FoldRunner } from '../workers/pool.ts';
import type { BBox, MultiPolygonCoords } from '../geometry/types.ts';
import { parseStatNames, type StatName } from '../stats/names.ts';
import { createAccumulator, type StatsAccumulator } from '../stats/accumulator.ts';
import { openGeoParquet } from '../vector/reader.ts';
import { resolveColumns } from '../vector/columns.ts';
import { pruneRowGroups } from '../vector/prune.ts';
import { crsFromProjJson } from '../vector/crs.ts';
import { geometryBBox, indexAoi, meetsAoi, polygonOverlap, shapeOf, touchesPoint, type Shape } from '../vector/weights.ts';

export interface VectorDeps {
  config: Config;
  openSource(url: string): Promise<ByteSource>;
  /** Worker pool: the data_area union runs there, off the event loop. */
  runner: Pick<FoldRunner, 'unionArea'>;
  signal?: AbortSignal;
  /** The caller already knows the source is Parquet (a STAC asset's media type says so). */
  knownParquet?: boolean;
}

const WGS84 = '+proj=longlat +datum=WGS84 +no_defs';
const PARQUET_PATH = /\.(geo)?parquet$/i;
/** Feature work between yields to the event loop, ms. */
const SLICE_MS = 5;

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

/** Per requested column: its accumulator, areal share sum and intersection pieces. */
interface ColumnState {
  acc: StatsAccumulator;
  /** Features counted (value not null). */
  n: number;
  share: number;
  /** Counted intersections, for the union behind data_area (dropped past MAX_UNION_PIECES). */
  pieces: MultiPolygonCoords[];
  /** Area of each piece, m². */
  pieceAreas: number[];
  /** Σ intersection areas, the data_area fallback past MAX_UNION_PIECES. */
  interSum: number;
  overflow: boolean;
}

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

function toLonLat(shape: Shape, fwd: PointTransform | null): Shape {
  if (fwd === null) return shape;
  switch (shape.kind) {
    case 'polygon':
      return { kind: 'polygon', polygons: transformPolygons(shape.polygons, fwd, 1e-7) };
    case 'line':
      return { kind: 'line', lines: shape.lines.map((l) => l.map(fwd)) };
    case 'point':
      return { kind: 'point', points: shape.points.map(fwd) };
  }
}

/** Statistics of numeric columns of the GeoParquet file at `req.url` inside `req.aoi`. */
export async function vectorZonalStats(req: VectorRequest, deps: VectorDeps): Promise<StatsResponse> {
  const { config } = deps;
  if (!deps.knownParquet) checkParquetUrl(req.url);
  const names: StatName[] = parseStatNames(req.stats ?? DEFAULT_STATS, 'vector');
  const aoi = parseAoi(req.aoi, { maxVertices: config.maxVertices });
  const byArea = (req.weighting_method ?? 'area') === 'area';

  const source = await deps.openSource(req.url);
  const reader = await openGeoParquet(source, req.geometry_column, deps.signal);
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

  const idx = aoi.kind === 'area' ? indexAoi(aoi.polygons) : null;
  // Polygon datasets are weighted in intersect mode; points, lines and touch mode are not (CONTRACT §5).
  let states: Map<string, ColumnState> | null = null;
  const statesFor = (shape: Shape): Map<string, ColumnState> => {
    if (states === null) {
      const weighted = idx !== null && shape.kind === 'polygon';
      states = new Map(columns.map((c) => [c, { acc: createAccumulator({ names, weighted, countItems: true }), n: 0, share: 0, pieces: [], pieceAreas: [], interSum: 0, overflow: false }]));
    }
    return states;
  };

  let sliceStart = performance.now();
  for (const g of groups) {
    const batch = await reader.readGroup(g, columns);
    for (let i = 0; i < batch.geometries.length; i++) {
      if (performance.now() - sliceStart > SLICE_MS) {
        await yieldToLoop();
        if (deps.signal?.aborted) throw deps.signal.reason;
        sliceStart = performance.now();
      }
      const geometry = batch.geometries[i] ?? null;
      if (geometry === null) continue;
      if (crs.isGeographic) {
        // Most rows of a row group miss the AOI: reject them on their box before building anything.
        const gb = geometryBBox(geometry);
        if (gb === null || !lonLatBoxes.some((b) => bboxesIntersect(b, gb))) continue;
      }
      const raw = shapeOf(geometry);
      if (raw === null) continue;
      const shape = toLonLat(raw, fileToLonLat);
      const cols = statesFor(shape);
      let weight = 1;
      let share = 1;
      let pieces: MultiPolygonCoords | null = null;
      let interM2 = 0;
      if (aoi.kind === 'point') {
        if (!touchesPoint(shape, aoi.lon, aoi.lat)) continue;
      } else if (shape.kind === 'polygon') {
        const ov = polygonOverlap(idx!, shape.polygons);
        if (ov === null) continue;
        share = ov.interAreaM2 / ov.featureAreaM2;
        weight = byArea ? ov.interAreaM2 : share;
        pieces = ov.pieces;
        interM2 = ov.interAreaM2;
      } else if (!meetsAoi(idx!, shape)) {
        continue;
      }
      for (const c of columns) {
        const v = batch.values.get(c)?.[i];
        if (v === null || v === undefined) continue;
        const st = cols.get(c) as ColumnState;
        st.acc.add(v, weight);
        st.n += 1;
        st.share += v * share;
        if (pieces) {
          st.interSum += interM2;
          if (!st.overflow) {
            st.pieces.push(pieces);
            st.pieceAreas.push(interM2);
          }
          if (st.pieces.length > MAX_UNION_PIECES) {
            st.pieces = [];
            st.pieceAreas = [];
            st.overflow = true;
          }
        }
      }
    }
  }

  const aoiAreaM2 = aoi.kind === 'area' ? aoi.areaM2 : 0;
  const response: StatsResponse = {};
  // Columns without nulls count the same features: one union serves them all.
  const unions = new Map<string, Promise<number>>();
  for (const c of columns) {
    const st = (states as Map<string, ColumnState> | null)?.get(c) ?? {
      acc: createAccumulator({ names, weighted: false, countItems: true }),
      n: 0,
      share: 0,
      pieces: [],
      pieceAreas: [],
      interSum: 0,
      overflow: false,
    };
    const result: Record<string, unknown> = { ...st.acc.result({ aoiAreaM2: aoi.kind === 'area' ? aoiAreaM2 : null }) };
    // `sum` is the areal share Σ value × (intersection / feature area), whatever the weighting.
    if ('sum' in result) result['sum'] = st.n === 0 ? null : st.share;
    const key = `${st.pieces.length}:${st.interSum}`;
    if (!unions.has(key)) unions.set(key, dataArea(st, aoiAreaM2, deps));
    response[c] = { ...result, aoi_area: aoiAreaM2, data_area: await (unions.get(key) as Promise<number>) };
  }
  return response;
}

/**
 * Most intersections dissolved into one union for data_area; past this the union's cost grows faster than
 * the answer's worth, and data_area is the sum of the intersection areas, at most the AOI's area.
 */
const MAX_UNION_PIECES = 5000;

/** Area of the union of the counted intersections (overlapping features count once). */
async function dataArea(st: ColumnState, aoiAreaM2: number, deps: VectorDeps): Promise<number> {
  if (st.overflow) return Math.min(aoiAreaM2, st.interSum);
  if (st.pieces.length === 0) return 0;
  if (st.pieces.length === 1) return ellipsoidalAreaM2(st.pieces[0]!);
  // Pieces whose boxes overlap no other box add exactly; only the others go through a union.
  const overlapping = overlappingBoxes(st.pieces.map((p) => bboxOfPolygons(p)));
  let separate = 0;
  st.pieceAreas.forEach((a, i) => {
    if (!overlapping.has(i)) separate += a;
  });
  if (overlapping.size === 0) return separate;
  const area = await deps.runner.unionArea(
    st.pieces.filter((_, i) => overlapping.has(i)),
    deps.signal,
  );
  return area === null ? Math.min(aoiAreaM2, st.interSum) : separate + area;
}
