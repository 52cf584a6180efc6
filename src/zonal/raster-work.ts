/**
 * The raster plug-in's work for the zones × units engine (exactextract's raster-sequential strategy): the
 * units are blocks (tiles or strips); they go to the workers in tasks of a few blocks of one level, each
 * block read and decoded once for every zone that needs it; a zone's partials merge in block order into
 * its answer.
 */
import { ZonalError } from '../errors.ts';
import { intersectWindows, toWorld, unionWindows, type PixelWindow } from '../geometry/grid.ts';
import type { RasterLevel, RasterReader } from '../raster/reader.ts';
import type { EncodedBlock } from '../raster/decode.ts';
import type { ClassSource } from '../raster/fold-types.ts';
import { blocksUnder, blockWindow, cellsUnder, type ZonePlan } from '../raster/plan.ts';
import { admitted, decodedTiles, spanCovers, spanOf } from '../raster/decode.ts';
import { mergeBand, mergePartials, type FoldPartial, type FoldResult, type FoldTask, type FoldZone } from '../raster/fold.ts';
import { classesOf, histogramOf } from '../stats/histogram.ts';
import { createAccumulator } from '../stats/accumulator.ts';
import { channelWeighted, isDefaultWeighting } from '../stats/weighting.ts';
import { countFold, tally } from '../observe.ts';
import { bandStats } from './respond.ts';
import { withSlot } from './slots.ts';
import type { Unit, Work } from './engine.ts';
import { keepsAll, type PlannedZone, type RasterContext } from './raster-context.ts';
import { readMosaic } from './mosaic-layers.ts';
import { packGeometry } from '../raster/fold-geometry.ts';
import { release } from '../codecs/release.ts';
import type { StatsResponse } from './model.ts';

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

/** The engine's raster work: units are blocks, work items are tasks of a few tiles of one level. */
export function rasterWork(ctx: RasterContext, zones: readonly PlannedZone[]): Work<Block, FoldPartial['bands'], { statistics: StatsResponse }> {
  const { reader, deps } = ctx;
  return {
    id: (b) => `${b.level}:${b.block}`,
    compare: (a, b) => a.level - b.level || a.block - b.block,
    items: (units) => tasksOf(ctx, units),
    run: (task) => withSlot(deps.slots, () => runTask(ctx, zones, task)),
    answer: (z, partials) => answerZone(ctx, z, zones[z] as Exclude<PlannedZone, { error: unknown }>, partials),
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
function answerZone(
  ctx: RasterContext,
  index: number,
  z: Exclude<PlannedZone, { error: unknown }>,
  partials: FoldPartial['bands'][],
): { statistics: StatsResponse } {
  const [main, ...extra] = ctx.channels as [RasterContext['channels'][number], ...RasterContext['channels']];
  const fractional = weightedOf(z);
  const options = {
    names: main.names,
    weighted: channelWeighted(main.weighting, fractional),
    bandCount: ctx.outputs.length,
    keepValues: keepsAll(ctx),
    channels: extra.map((c) => ({ names: c.names, weighted: channelWeighted(c.weighting, fractional) })),
  };
  // Cell ids are on the full-resolution grid (per-cell statistics are refused with approx_stats).
  const grid = (ctx.reader.info.levels[0] as RasterLevel).grid;
  const context = { cellCenter: (id: number) => toWorld(grid, (id % grid.width) + 0.5, Math.floor(id / grid.width) + 0.5) };
  const statistics: StatsResponse = {};
  if (!ctx.masked && !ctx.histogram && !ctx.categorical && ctx.channels.length === 1 && z.plan.selection.kind !== 'zone') {
    // The plain answer (a cube's steps of a group): one accumulator for every band, nothing to join; to a
    // sink, the accumulator itself.
    const acc = createAccumulator(options);
    const { sink } = ctx.deps;
    ctx.outputs.forEach(({ key }, k) => {
      if (k > 0) acc.reset();
      const merged = mergeBand(acc, partials, k);
      const dataAreaM2 = z.isArea ? merged : 0;
      if (sink) sink(index, k, acc, z.aoiAreaM2, dataAreaM2, context);
      else statistics[key] = bandStats(acc, z.aoiAreaM2, dataAreaM2, { context });
    });
    // The zone's packed numbers (its own, cloned from a worker) are read: freed now, not at a mark-compact.
    for (const bands of partials) if ('packed' in bands) release(bands.values);
    return answered(z, statistics);
  }
  const { accs, more, missing, dataAreaM2, zoneAreaM2, classAreas, masked } = mergePartials(options, partials);
  // A zone of a zones raster has no geometry: its area is that of the cells it covers.
  const aoiAreaM2 = z.plan.selection.kind === 'zone' ? zoneAreaM2 : z.aoiAreaM2;
  ctx.outputs.forEach(({ key, classes }, k) => {
    const acc = accs[k] as (typeof accs)[number];
    const extra: Record<string, unknown> = {};
    if (ctx.masked) extra['masked'] = masked[k] ?? 0;
    if (ctx.histogram) extra['histogram'] = histogramOf(ctx.histogram, acc);
    if (ctx.categorical) extra['classes'] = classesOf(acc, classAreas[k] ?? new Map<number, number>(), classes);
    // A weighted channel that counted a pixel without a weight answers null (exactextract: NaN).
    const channel = (m: (typeof more)[number][number], c: number) => {
      const stats = bandStats(m, aoiAreaM2, 0, { context }) as Record<string, unknown>;
      return (missing[k]?.[c] ?? 0) > 0 ? Object.fromEntries(Object.keys(stats).map((key) => [key, null])) : stats;
    };
    const others = Object.assign({}, ...(more[k] ?? []).map(channel)) as Record<string, unknown>;
    delete others['aoi_area'];
    delete others['data_area'];
    statistics[key] = { ...bandStats(acc, aoiAreaM2, z.isArea ? (dataAreaM2[k] ?? 0) : 0, { context }), ...others, ...extra };
  });
  return answered(z, statistics);
}

function answered(z: { plan: ZonePlan }, statistics: StatsResponse): { statistics: StatsResponse } {
  tally.pixels += z.plan.pixels;
  tally.zones += 1;
  return { statistics };
}

/** A task's statistics by channel: the first (with the request's weighting, absent when it is the plain one) and the rest. */
function channelsOfTask(ctx: RasterContext): Pick<FoldTask, 'names' | 'weighting' | 'channels'> {
  const [main, ...extra] = ctx.channels as [RasterContext['channels'][number], ...RasterContext['channels']];
  return {
    names: main.names,
    ...(isDefaultWeighting(main.weighting) ? {} : { weighting: main.weighting }),
    ...(extra.length > 0 ? { channels: extra } : {}),
  };
}

function weightedOf(zone: { plan: ZonePlan; isArea: boolean }): boolean {
  // Fractional coverage weights pixels (contract §5 weighted definitions); the other rules count them.
  const sel = zone.plan.selection;
  return zone.isArea && sel.kind !== 'point' && sel.rule === 'fractional';
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
  const zs = ctx.zoneSource;
  return {
    needs,
    classNeeds: lookupNeeds(ctx.classSource?.level, level, needs),
    weightNeeds: lookupNeeds(ctx.weightSource?.level, level, needs, ctx.weightSource),
    zoneNeeds: lookupNeeds(zs?.level, level, needs, zs),
  };
}

/**
 * The blocks of a raster read by nearest neighbour (a class, weights or zones raster) under the needed
 * windows, and the part of each; `sub`: nx × ny of its cells in a value cell (finer zones).
 */
function lookupNeeds(
  other: RasterLevel | undefined,
  level: RasterLevel,
  needs: readonly PixelWindow[],
  sub?: { nx: number; ny: number },
): Map<number, PixelWindow> {
  const out = new Map<number, PixelWindow>();
  if (!other) return out;
  for (const need of needs) {
    const cells = cellsUnder(level.grid, need, other.grid, sub);
    if (!cells) continue;
    for (const b of blocksUnder(level.grid, need, other, sub)) {
      const part = intersectWindows(blockWindow(other, b), cells);
      if (part) out.set(b, unionWindows(out.get(b) ?? null, part));
    }
  }
  return out;
}

/** A raster read by nearest neighbour, as a fold task carries it: its grid, tiling, blocks and the parts of them needed. */
function lookupSource(
  src: { reader: RasterReader; level: RasterLevel; nodata: number | null },
  band: number,
  blocks: EncodedBlock[],
  needs: Map<number, PixelWindow>,
): ClassSource {
  const { level } = src;
  return {
    format: src.reader.blockFormat(level, [band]),
    grid: level.grid,
    blockWidth: level.blockWidth,
    blockHeight: level.blockHeight,
    across: Math.ceil(level.grid.width / level.blockWidth),
    blocks,
    needs: blocks.map((b) => needs.get(b.index) as PixelWindow),
    nodata: src.nodata,
  };
}

/**
 * Reads a task's blocks (and the other rasters' and class blocks under them). Planes in the decoded-tile
 * cache holding the rows and columns needed are neither read nor decoded; only single-zone requests add to
 * it, a block the second time one asks for it (a request over many zones decodes each block once, and
 * would push out the hot ones).
 */
async function readTask(
  ctx: RasterContext,
  single: boolean,
  level: RasterLevel,
  ids: readonly number[],
  needs: readonly PixelWindow[],
  lookups: { classIds: number[]; weightIds: number[]; zoneIds: number[] },
) {
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
  const ws = ctx.weightSource;
  const zs = ctx.zoneSource;
  const fetchStart = performance.now();
  const [blocks, extras, classBlocks, weightBlocks, zoneBlocks] = await Promise.all([
    ctx.reader.readBlocks(level, ids, ctx.bands, deps.signal, cacheBytes > 0 ? fromCache : undefined),
    // Other rasters of the same grid and tiling: the same blocks; a class raster: the blocks under them.
    Promise.all(
      ctx.extras.map(async (e) => {
        const nums = e.bandNumbers ?? [1];
        return { format: e.reader.blockFormat(e.level, nums), blocks: await e.reader.readBlocks(e.level, ids, nums, deps.signal) };
      }),
    ),
    cs ? cs.reader.readBlocks(cs.level, lookups.classIds, [1], deps.signal) : Promise.resolve([]),
    ws ? ws.reader.readBlocks(ws.level, lookups.weightIds, [ws.band], deps.signal) : Promise.resolve([]),
    zs ? zs.reader.readBlocks(zs.level, lookups.zoneIds, [zs.band], deps.signal) : Promise.resolve([]),
  ]);
  return { blocks, extras, classBlocks, weightBlocks, zoneBlocks, keep, fetchMs: performance.now() - fetchStart };
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
        const sel = p.plan.selection;
        // A polygon goes packed: one array to copy instead of an array a vertex (fold-geometry.ts).
        const shape = sel.kind === 'polygon' ? { selection: { ...sel, geometry: [] }, packed: packGeometry(sel.geometry) } : { selection: sel };
        foldZones.push({ ...shape, window: p.plan.window as PixelWindow, weighted: weightedOf(p), ...(p.share ? { key: p.share } : {}) });
      }
      return k;
    }),
  );
  const { needs, classNeeds, weightNeeds, zoneNeeds } = taskNeeds(ctx, zones, level, task);
  const sorted = (m: Map<number, PixelWindow>): number[] => [...m.keys()].sort((a, b) => a - b);
  const ids = task.map((u) => u.key.block);
  const [read, mosaic] = await Promise.all([
    readTask(ctx, zones.length === 1, level, ids, needs, { classIds: sorted(classNeeds), weightIds: sorted(weightNeeds), zoneIds: sorted(zoneNeeds) }),
    ctx.mosaic ? readMosaic(ctx.mosaic, level.grid, needs, ctx.deps.signal) : undefined,
  ]);
  const cs = ctx.classSource;
  const ws = ctx.weightSource;
  const zs = ctx.zoneSource;
  const { info } = reader;
  const fold: FoldTask = {
    format,
    blocks: read.blocks,
    needs,
    zones: foldZones,
    touches,
    bands: ctx.foldBands,
    area: { grid: level.grid, proj4: info.crs.proj4, isGeographic: info.crs.isGeographic },
    ...channelsOfTask(ctx),
    keepValues: keepsAll(ctx),
    categorical: ctx.categorical,
    program: ctx.program,
    extras: read.extras,
    ...(cs ? { classes: lookupSource(cs, 1, read.classBlocks, classNeeds) } : {}),
    ...(ws ? { weights: { ...lookupSource(ws, ws.band, read.weightBlocks, weightNeeds), scale: ws.scale, offset: ws.offset, nx: ws.nx, ny: ws.ny } } : {}),
    ...(zs ? { zoneRaster: { ...lookupSource(zs, zs.band, read.zoneBlocks, zoneNeeds), nx: zs.nx, ny: zs.ny } } : {}),
    keep: read.keep,
    ...(mosaic ? { mosaic } : {}),
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
