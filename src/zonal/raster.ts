/**
 * The raster use case: the request checked, its zones' AOIs parsed before any byte is read, the raster
 * opened (raster-context.ts), each zone planned (the blocks it needs, at the level it reads), then the
 * zones × units engine with the raster work (raster-work.ts). One zone or many, the same path. All I/O
 * arrives through `deps`.
 */
import { ZonalError } from '../errors.ts';
import { parseAoi } from '../geometry/aoi.ts';
import { placeAoi } from '../geometry/place.ts';
import type { Aoi } from '../geometry/types.ts';
import { edgesKey, pixelSize } from '../geometry/grid.ts';
import { needsOf } from '../stats/names.ts';
import type { RasterLevel } from '../raster/reader.ts';
import { planZone, type ZonePlan } from '../raster/plan.ts';
import { parseZones, planEach } from './zones.ts';
import { answerZones } from './engine.ts';
import { rasterWork } from './raster-work.ts';
import { openMosaic, type MosaicInput } from './raster-mosaic.ts';
import {
  checkRasterQuery,
  keepsAll,
  openRasterContext,
  type PlanCache,
  type PlannedZone,
  type RasterContext,
  type RasterDeps,
  type RasterSources,
} from './raster-context.ts';
import type { Geometry, RasterQuery, StatsResponse, Zone } from './model.ts';

export type { PlanCache, RasterDeps, RasterSources };

/** approx_stats reads the coarsest overview that still gives this many AOI pixels (contract §5). */
const APPROX_MIN_PIXELS = 1_000_000;
/** Names selections that recur across rasters of one grid, unique in the process (FoldZone.key). */
let shareSerial = 0;

/** What makes two rasters' plans of a zone the same: the CRS, every level's grid and blocks, the rule. */
function gridSignature(ctx: RasterContext): string {
  const levels = ctx.reader.info.levels.map((l) => {
    const g = l.grid;
    return [g.x0, g.y0, g.dx, g.dy, g.rx, g.ry, g.width, g.height, l.blockWidth, l.blockHeight, edgesKey(g)].join(',');
  });
  return [ctx.reader.info.crs.proj4, ctx.rule, ctx.approx, ...levels].join('\n');
}

/** One zone's plan; a problem of the zone (area, pixels) throws its ZonalError. */
function planRasterZone(ctx: RasterContext, aoi: Aoi): Exclude<PlannedZone, { error: unknown }> {
  const { config } = ctx.deps;
  const aoiAreaM2 = aoi.kind === 'area' ? aoi.areaM2 : 0;
  if (!ctx.approx && ctx.deps.areaLimit !== false && aoiAreaM2 / 1e6 > config.maxAreaKm2) {
    throw new ZonalError(
      'aoi_too_large',
      `The area of interest covers ${Math.round(aoiAreaM2 / 1e6).toLocaleString('en')} km², above the limit of ${config.maxAreaKm2.toLocaleString('en')} km² (use approx_stats to skip it).`,
      { limit_km2: config.maxAreaKm2, aoi_km2: aoiAreaM2 / 1e6 },
    );
  }
  const { levels, crs } = ctx.reader.info;
  const plan = planZone(levels, placeAoi(aoi, crs, (levels[0] as RasterLevel).grid), ctx.rule, {
    approx: ctx.approx,
    maxPixels: config.maxPixels,
    maxApproxPixels: config.maxApproxPixels,
    approxMinPixels: APPROX_MIN_PIXELS,
  });
  return {
    plan,
    aoiAreaM2,
    isArea: aoi.kind === 'area',
    units: plan.blocks.map((block) => ({ level: plan.level, block })),
    bytes: heldBytes(ctx, plan),
  };
}

/** What a zone holds until it is answered (the engine's passes keep the sum bounded). */
export function heldBytes(ctx: RasterContext, plan: ZonePlan): number {
  const fractional = plan.selection.kind !== 'point' && plan.selection.rule === 'fractional';
  // Per channel: its kept values (8 bytes, 16 with weights) and its counted cells (id, value, cᵢ, copied
  // once to be sorted, then a list of each in the answer).
  const held = ctx.channels.reduce((sum, c, k) => {
    const needs = needsOf(c.names);
    return sum + (needs.values || (k === 0 && keepsAll(ctx)) ? (fractional ? 16 : 8) : 0) + (needs.cells ? 80 : 0);
  }, 0);
  return 1024 + plan.pixels * held;
}

/** The geometry with every position's first two numbers swapped ([lat, lon] given for [lon, lat]). */
function swapped(g: Geometry): Geometry {
  const swap = (c: unknown): unknown => (Array.isArray(c) && typeof c[0] === 'number' ? [c[1], c[0], ...c.slice(2)] : Array.isArray(c) ? c.map(swap) : c);
  return { ...g, coordinates: swap(g.coordinates) } as Geometry;
}

/** A single zone's answer says which level it read, and whether [lat, lon] would have met a raster it misses. */
function tellSingle(ctx: RasterContext, zone: Zone, planned: PlannedZone): void {
  const { deps } = ctx;
  if ('error' in planned) return;
  if (planned.plan.window === null && deps.onNote && !(zone.aoi instanceof ZonalError)) {
    try {
      const aoi = parseAoi(swapped(zone.aoi), { maxVertices: deps.config.maxVertices });
      if (planRasterZone(ctx, aoi).plan.window !== null) {
        deps.onNote(
          'The area of interest misses the raster, but with its two coordinates swapped it would meet it: GeoJSON positions are [longitude, latitude].',
        );
      }
    } catch {
      // The swapped geometry is not even valid: nothing to suggest.
    }
  }
  const level = ctx.reader.info.levels[planned.plan.level] as RasterLevel;
  const size = pixelSize(level.grid);
  deps.onLevel?.({ index: level.index, width: level.grid.width, height: level.grid.height, pixelSize: Math.sqrt(size.alongRow * size.alongColumn) });
}

/** A zone's plan, from the request's plan cache where another raster of the grid made it. */
function planner(ctx: RasterContext, keys?: readonly string[]): (aoi: Aoi | { error: unknown }, i: number) => PlannedZone {
  const { plans } = ctx.deps;
  const signature = plans && keys ? gridSignature(ctx) : null;
  return (aoi, i) => {
    const cacheKey = signature === null ? null : `${signature}\n${keys?.[i] ?? ''}`;
    const hit = cacheKey === null ? undefined : plans?.get(cacheKey);
    if (hit !== undefined) return hit;
    let zone: PlannedZone;
    try {
      if ('error' in aoi) throw aoi.error;
      zone = planRasterZone(ctx, aoi);
      if (cacheKey !== null) zone.share = String(++shareSerial);
    } catch (error) {
      zone = { error };
    }
    if (cacheKey !== null) plans?.set(cacheKey, zone);
    return zone;
  };
}

/**
 * The answers of the zones over one raster, in input order, each as soon as it and every zone before it
 * are complete; a zone's problem is its answer, the request's problems throw. `aois`: the zones already
 * parsed (zones × time parses each once for all its Items); with deps.plans, `keys` name the zones the
 * same in every raster of the request; `mosaic`: other Items whose pixels fill this raster's (raster-mosaic.ts).
 */
export async function* rasterZones(
  req: RasterQuery,
  zones: readonly Zone[],
  deps: RasterDeps,
  options: { sources?: RasterSources; keys?: readonly string[]; aois?: readonly (Aoi | { error: unknown })[]; mosaic?: MosaicInput } = {},
): AsyncGenerator<{ statistics: StatsResponse } | { error: unknown }> {
  checkRasterQuery(req, options.sources);
  // AOIs before any byte: a bad geometry costs no upstream read.
  const aois = options.aois ?? parseZones(zones, deps.config.maxVertices);
  if (zones.length === 1 && 'error' in (aois[0] as object)) {
    yield aois[0] as { error: unknown };
    return;
  }
  const opened = await openRasterContext(req, deps, options.sources);
  const ctx = options.mosaic ? await openMosaic(opened, options.mosaic) : opened;
  const planned = (await planEach(aois, planner(ctx, options.keys), deps.signal)) as PlannedZone[];
  if (zones.length === 1) tellSingle(ctx, zones[0] as Zone, planned[0] as PlannedZone);
  yield* answerZones(planned, rasterWork(ctx, planned));
}
