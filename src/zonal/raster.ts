/**
 * The raster plug-in of the zones × units engine (exactextract's raster-sequential strategy): a zone needs
 * the blocks (tiles or strips) its plan names; blocks go to the workers in tasks of a few tiles, each block
 * read and decoded once for every zone that needs it; a zone's partials merge in block order into its
 * answer. One zone or many, the same path. All I/O arrives through `deps`.
 */
import { ZonalError } from '../errors.ts';
import { parseAoi } from '../geometry/aoi.ts';
import { placeAoi } from '../geometry/place.ts';
import type { Aoi } from '../geometry/types.ts';
import { intersectWindows, pixelSize, unionWindows, type PixelWindow } from '../geometry/grid.ts';
import { needsOf } from '../stats/names.ts';
import type { RasterLevel } from '../raster/reader.ts';
import { blocksUnder, blockWindow, cellsUnder, planZone, type ZonePlan } from '../raster/plan.ts';
import { admitted, decodedTiles, spanCovers, spanOf } from '../raster/decode.ts';
import { mergePartials, type FoldPartial, type FoldResult, type FoldTask, type FoldZone } from '../raster/fold.ts';
import { classesOf, histogramOf } from '../stats/histogram.ts';
import { countFold, tally } from '../observe.ts';
import { bandStats } from './respond.ts';
import { parseZones, planEach } from './zones.ts';
import { answerZones, withSlot, type Unit, type Work } from './engine.ts';
import {
  checkRasterQuery,
  openRasterContext,
  type PlanCache,
  type PlannedZone,
  type RasterContext,
  type RasterDeps,
  type RasterSources,
} from './raster-context.ts';
import type { Geometry, RasterQuery, StatsResponse, Zone } from './model.ts';

export type { PlanCache, RasterDeps, RasterSources };

/** approx_stats reads the coarsest overview that still gives this many AOI pixels (CONTRACT §5). */
const APPROX_MIN_PIXELS = 1_000_000;
/** Most tiles per worker task: enough to amortise messaging, few enough to bound memory in flight. */
const MAX_TILES_PER_TASK = 4;
/**
 * Zones whose partial statistics are held at once (a pass): kept values (median, unique, …) cost 8–16
 * bytes a pixel until their zone is complete. Blocks shared by zones of two passes are read once per pass.
 */
const PASS_STATE_BYTES = 128 * 1024 * 1024;

/** A block of a level. */
interface Block {
  level: number;
  block: number;
}

/** Names selections that recur across rasters of one grid, unique in the process (FoldZone.key). */
let shareSerial = 0;

/** What makes two rasters' plans of a zone the same: the CRS, every level's grid and blocks, the rule. */
function gridSignature(ctx: RasterContext): string {
  const levels = ctx.reader.info.levels.map((l) => {
    const g = l.grid;
    return [g.x0, g.y0, g.dx, g.dy, g.rx, g.ry, g.width, g.height, l.blockWidth, l.blockHeight].join(',');
  });
  return [ctx.reader.info.crs.proj4, ctx.rule, ctx.approx, ...levels].join('\n');
}

/** Whether every value is kept though no statistic needs it (a histogram, categorical). */
function keepsAll(ctx: RasterContext): boolean {
  return ctx.histogram !== null || ctx.categorical;
}

/** One zone's plan; a problem of the zone (area, pixels) throws its ZonalError. */
function planRasterZone(ctx: RasterContext, aoi: Aoi): Exclude<PlannedZone, { error: unknown }> {
  const { config } = ctx.deps;
  const aoiAreaM2 = aoi.kind === 'area' ? aoi.areaM2 : 0;
  if (!ctx.approx && aoiAreaM2 / 1e6 > config.maxAreaKm2) {
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
  const keepsValues = needsOf(ctx.names).values || keepsAll(ctx);
  const fractional = plan.selection.kind === 'polygon' && plan.selection.rule === 'fractional';
  return {
    plan,
    aoiAreaM2,
    isArea: aoi.kind === 'area',
    units: plan.blocks.map((block) => ({ level: plan.level, block })),
    bytes: 1024 + (keepsValues ? plan.pixels * (fractional ? 16 : 8) : 0),
  };
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

/** Every zone's plan, from the request's plan cache where another raster of the grid made it. */
function planZones(ctx: RasterContext, aois: readonly (Aoi | { error: unknown })[], keys?: readonly string[]): Promise<PlannedZone[]> {
  const { deps } = ctx;
  const signature = deps.plans && keys ? gridSignature(ctx) : null;
  return planEach(
    aois,
    (aoi, i) => {
      const cacheKey = signature === null ? null : `${signature}\n${keys?.[i] ?? ''}`;
      const hit = cacheKey === null ? undefined : deps.plans?.get(cacheKey);
      if (hit !== undefined) return hit;
      let zone: PlannedZone;
      try {
        if ('error' in aoi) throw aoi.error;
        zone = planRasterZone(ctx, aoi);
        if (cacheKey !== null) zone.share = String(++shareSerial);
      } catch (error) {
        zone = { error };
      }
      if (cacheKey !== null) deps.plans?.set(cacheKey, zone);
      return zone;
    },
    deps.signal,
  );
}

/**
 * The answers of the zones over one raster, in input order, each as soon as it and every zone before it
 * are complete; a zone's problem is its answer, the request's problems throw. `aois`: the zones already
 * parsed (zones × time parses each once for all its Items); with deps.plans, `keys` name the zones the
 * same in every raster of the request.
 */
export async function* rasterZones(
  req: RasterQuery,
  zones: readonly Zone[],
  deps: RasterDeps,
  options: { sources?: RasterSources; keys?: readonly string[]; aois?: readonly (Aoi | { error: unknown })[] } = {},
): AsyncGenerator<{ statistics: StatsResponse } | { error: unknown }> {
  checkRasterQuery(req, options.sources);
  // AOIs before any byte: a bad geometry costs no upstream read.
  const aois = options.aois ?? parseZones(zones, deps.config.maxVertices);
  if (zones.length === 1 && 'error' in (aois[0] as object)) {
    yield aois[0] as { error: unknown };
    return;
  }
  const ctx = await openRasterContext(req, deps, options.sources);
  const planned = await planZones(ctx, aois, options.keys);
  if (zones.length === 1) tellSingle(ctx, zones[0] as Zone, planned[0] as PlannedZone);
  yield* answerZones(planned, rasterWork(ctx, planned));
}

/** The engine's raster work: units are blocks, work items are tasks of a few tiles of one level. */
function rasterWork(ctx: RasterContext, zones: readonly PlannedZone[]): Work<Block, FoldPartial['bands'], { statistics: StatsResponse }> {
  const { reader, deps } = ctx;
  return {
    id: (b) => `${b.level}:${b.block}`,
    compare: (a, b) => a.level - b.level || a.block - b.block,
    items: (units) => tasksOf(ctx, units),
    run: (task) => withSlot(deps.slots, () => runTask(ctx, zones, task)),
    answer: (z, partials) => answerZone(ctx, zones[z] as Exclude<PlannedZone, { error: unknown }>, partials),
    passBytes: PASS_STATE_BYTES,
    ...(deps.signal ? { signal: deps.signal } : {}),
  };
  function tasksOf(c: RasterContext, units: readonly Unit<Block>[]): Unit<Block>[][] {
    // Runs of units of one level. Small blocks (strips a few rows high) go together up to about
    // MAX_TILES_PER_TASK 512 × 512 tiles' worth of pixels; small requests spread over every worker.
    const tasks: Unit<Block>[][] = [];
    for (let i = 0; i < units.length;) {
      const level = reader.info.levels[(units[i] as Unit<Block>).key.level] as RasterLevel;
      const tilePixels = level.blockWidth * level.blockHeight;
      const maxPerTask = tilePixels < 256 * 256 ? Math.max(MAX_TILES_PER_TASK, Math.floor((MAX_TILES_PER_TASK * 512 * 512) / tilePixels)) : MAX_TILES_PER_TASK;
      const perTask = Math.max(1, Math.min(maxPerTask, Math.ceil(units.length / Math.max(1, c.deps.config.workers))));
      const run: Unit<Block>[] = [];
      while (i < units.length && run.length < perTask && (units[i] as Unit<Block>).key.level === level.index) run.push(units[i++] as Unit<Block>);
      tasks.push(run);
    }
    return tasks;
  }
}

/** A zone's partials, merged in block order (the same bits as any other request), into its answer. */
function answerZone(ctx: RasterContext, z: Exclude<PlannedZone, { error: unknown }>, partials: FoldPartial['bands'][]): { statistics: StatsResponse } {
  const { accs, dataAreaM2, classAreas, masked } = mergePartials(
    { names: ctx.names, weighted: weightedOf(z), bandCount: ctx.outputs.length, keepValues: keepsAll(ctx) },
    partials,
  );
  const statistics: StatsResponse = {};
  ctx.outputs.forEach(({ key, classes }, k) => {
    const acc = accs[k] as (typeof accs)[number];
    const extra: Record<string, unknown> = {};
    if (ctx.masked) extra['masked'] = masked[k] ?? 0;
    if (ctx.histogram) extra['histogram'] = histogramOf(ctx.histogram, acc);
    if (ctx.categorical) extra['classes'] = classesOf(acc, classAreas[k] as Map<number, number>, classes);
    statistics[key] = { ...bandStats(acc, z.aoiAreaM2, z.isArea ? (dataAreaM2[k] ?? 0) : 0), ...extra };
  });
  tally.pixels += z.plan.pixels;
  tally.zones += 1;
  return { statistics };
}

function weightedOf(zone: { plan: ZonePlan; isArea: boolean }): boolean {
  // Fractional coverage weights pixels (CONTRACT §5 weighted definitions); the other rules count them.
  const sel = zone.plan.selection;
  return zone.isArea && sel.kind === 'polygon' && sel.rule === 'fractional';
}

/** Per block of a task, the part of it its zones cover (only that is decoded); and the class blocks under them. */
function taskNeeds(ctx: RasterContext, zones: readonly PlannedZone[], level: RasterLevel, task: readonly Unit<Block>[]) {
  const needs = task.map((unit) => {
    const bw = blockWindow(level, unit.key.block);
    return (
      unit.zones.reduce<PixelWindow | null>((u, z) => {
        const w = intersectWindows(bw, (zones[z] as { plan: ZonePlan }).plan.window as PixelWindow);
        return w ? unionWindows(u, w) : u;
      }, null) ?? bw
    );
  });
  const classNeeds = new Map<number, PixelWindow>();
  const cs = ctx.classSource;
  if (cs) {
    for (const need of needs) {
      const cells = cellsUnder(level.grid, need, cs.level.grid);
      if (!cells) continue;
      for (const b of blocksUnder(level.grid, need, cs.level)) {
        const part = intersectWindows(blockWindow(cs.level, b), cells);
        if (part) classNeeds.set(b, unionWindows(classNeeds.get(b) ?? null, part));
      }
    }
  }
  return { needs, classNeeds };
}

/**
 * Reads a task's blocks (and the other rasters' and class blocks under them). Planes in the decoded-tile
 * cache holding the rows and columns needed are neither read nor decoded; only single-zone requests add to
 * it, a block the second time one asks for it (a request over many zones decodes each block once, and
 * would push out the hot ones).
 */
async function readTask(ctx: RasterContext, single: boolean, level: RasterLevel, ids: readonly number[], needs: readonly PixelWindow[], classIds: number[]) {
  const { deps } = ctx;
  const cacheBytes = deps.config.tileCacheBytes;
  const keep = ids.map(() => false);
  const fromCache = (key: string, k: number): ReturnType<typeof decodedTiles.get> => {
    const plane = decodedTiles.get(key);
    const bw = blockWindow(level, ids[k] as number);
    if (plane && spanCovers(plane.span, spanOf(needs[k] as PixelWindow, bw.col0, bw.row0, level.blockWidth, false))) return plane;
    if (single && admitted(key)) keep[k] = true;
    return undefined;
  };
  const cs = ctx.classSource;
  const fetchStart = performance.now();
  const [blocks, extras, classBlocks] = await Promise.all([
    ctx.reader.readBlocks(level, ids, ctx.bands, deps.signal, cacheBytes > 0 ? fromCache : undefined),
    // Other rasters of the same grid and tiling: the same blocks; a class raster: the blocks under them.
    Promise.all(
      ctx.extras.map(async (e) => ({ format: e.reader.blockFormat(e.level, [1]), blocks: await e.reader.readBlocks(e.level, ids, [1], deps.signal) })),
    ),
    cs ? cs.reader.readBlocks(cs.level, classIds, [1], deps.signal) : Promise.resolve([]),
  ]);
  return { blocks, extras, classBlocks, keep, fetchMs: performance.now() - fetchStart };
}

/** Reads a task of blocks and folds, in a worker, the zones that need them: their partials by zone and block. */
async function runTask(ctx: RasterContext, zones: readonly PlannedZone[], task: readonly Unit<Block>[]) {
  const { reader } = ctx;
  const level = reader.info.levels[(task[0] as Unit<Block>).key.level] as RasterLevel;
  let format = ctx.formats.get(level.index);
  if (!format) ctx.formats.set(level.index, (format = reader.blockFormat(level, ctx.bands)));
  // The task's own numbering of its zones.
  const local = new Map<number, number>();
  const positions: number[] = [];
  const foldZones: FoldZone[] = [];
  const touches = task.map((unit) =>
    unit.zones.map((z) => {
      let k = local.get(z);
      if (k === undefined) {
        const p = zones[z] as { plan: ZonePlan; isArea: boolean; share?: string };
        local.set(z, (k = positions.length));
        positions.push(z);
        foldZones.push({ selection: p.plan.selection, window: p.plan.window as PixelWindow, weighted: weightedOf(p), ...(p.share ? { key: p.share } : {}) });
      }
      return k;
    }),
  );
  const { needs, classNeeds } = taskNeeds(ctx, zones, level, task);
  const classIds = [...classNeeds.keys()].sort((a, b) => a - b);
  const ids = task.map((u) => u.key.block);
  const read = await readTask(ctx, zones.length === 1, level, ids, needs, classIds);
  const cs = ctx.classSource;
  const { info } = reader;
  const fold: FoldTask = {
    format,
    blocks: read.blocks,
    needs,
    zones: foldZones,
    touches,
    bands: ctx.foldBands,
    area: { grid: level.grid, proj4: info.crs.proj4, isGeographic: info.crs.isGeographic },
    names: ctx.names,
    keepValues: keepsAll(ctx),
    categorical: ctx.categorical,
    program: ctx.program,
    extras: read.extras,
    ...(cs
      ? {
          classes: {
            format: cs.reader.blockFormat(cs.level, [1]),
            grid: cs.level.grid,
            blockWidth: cs.level.blockWidth,
            blockHeight: cs.level.blockHeight,
            across: Math.ceil(cs.level.grid.width / cs.level.blockWidth),
            blocks: read.classBlocks,
            needs: classIds.map((b) => classNeeds.get(b) as PixelWindow),
            nodata: cs.nodata,
          },
        }
      : {}),
    keep: read.keep,
  };
  const result = await foldInWorker(ctx, fold, read.fetchMs);
  return result.partials.map((p) => ({ zone: positions[p.zone] as number, key: (task[p.block] as Unit<Block>).key, result: p.bands }));
}

/** Runs a fold task; a tile the worker could not decode is the source's problem (422), not a failure of ours. */
async function foldInWorker(ctx: RasterContext, task: FoldTask, fetchMs: number): Promise<FoldResult> {
  const { deps } = ctx;
  const runStart = performance.now();
  const result = await deps.runner.run(task, deps.signal);
  countFold(result.times, fetchMs, performance.now() - runStart);
  if (result.failure !== undefined) {
    throw new ZonalError('invalid_source', 'A tile of the raster could not be decoded: the file is corrupt or uses an unsupported encoding.');
  }
  for (const { key, plane } of result.decoded) decodedTiles.put(key, plane, plane.array.buffer.byteLength, deps.config.tileCacheBytes);
  return result;
}
