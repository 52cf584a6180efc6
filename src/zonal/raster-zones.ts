/**
 * Zones given as a raster (issue 24): `zones: {url, band}` in place of `aoi`. Each distinct value of the
 * zones raster's band over the value raster is a zone. First a scan of the zones raster (its blocks decoded
 * in the workers) finds the values and, per zones block, the value cells each touches: that is each zone's
 * window and blocks. Then the same zones × units engine and raster work as for polygons answer every zone,
 * a row keyed `zone`, in ascending order; the fold covers a zone's cells from the zones raster
 * (raster/fold-zones.ts). All I/O arrives through `deps`.
 */
import { ZonalError } from '../errors.ts';
import { intersectWindows, toPixel, toWorld, unionWindows, windowSize, type PixelWindow } from '../geometry/grid.ts';
import type { RasterLevel } from '../raster/reader.ts';
import { blocksOf, blockWindow, cellsUnder, type ZonePlan } from '../raster/plan.ts';
import type { ZoneScanResult } from '../raster/fold-zones.ts';
import { answerZones } from './engine.ts';
import { rasterWork } from './raster-work.ts';
import { heldBytes } from './raster.ts';
import { checkRasterQuery, openRasterContext, type PlannedZone, type RasterContext, type RasterDeps } from './raster-context.ts';
import { openZoneRaster, type ZoneRaster } from './raster-aligned.ts';
import { Slots, withSlot } from './slots.ts';
import { outcomesOf } from './zones.ts';
import type { RasterQuery, ZoneOutcome } from './model.ts';

/** Zones blocks per scan task: enough to amortise messaging. */
const SCAN_BLOCKS_PER_TASK = 8;
/** Scan tasks read ahead per worker: the bytes held stay bounded whatever the size of the zones raster. */
const SCAN_TASKS_PER_WORKER = 2;

/** Each zone value found, with the windows of value cells it touches (one per zones block it lies in). */
async function scanZones(ctx: RasterContext, zs: ZoneRaster): Promise<Map<number, PixelWindow[]>> {
  const { deps } = ctx;
  const { config } = deps;
  const level = ctx.reader.info.levels[0] as RasterLevel;
  const all = { col0: 0, row0: 0, width: level.grid.width, height: level.grid.height };
  const cells = cellsUnder(level.grid, all, zs.level.grid, zs);
  const found = new Map<number, PixelWindow[]>();
  if (cells === null) return found;
  // The zones raster as a whole is the request's area: the value cells under it count against the pixel limit.
  const [x0, y0] = toPixel(level.grid, ...toWorld(zs.level.grid, 0, 0));
  const [x1, y1] = toPixel(level.grid, ...toWorld(zs.level.grid, zs.level.grid.width, zs.level.grid.height));
  const span = (a: number, b: number, n: number): number =>
    Math.max(0, Math.min(n, Math.ceil(Math.max(a, b) - 1e-6)) - Math.max(0, Math.floor(Math.min(a, b) + 1e-6)));
  const pixels = span(x0, x1, level.grid.width) * span(y0, y1, level.grid.height);
  if (pixels > config.maxPixels) {
    throw new ZonalError(
      'too_many_pixels',
      `The zones raster covers ${pixels.toLocaleString('en')} cells of the value raster, above the limit of ${config.maxPixels.toLocaleString('en')}.`,
      { limit_pixels: config.maxPixels, window_pixels: pixels },
    );
  }
  const blocks = blocksOf(zs.level, cells);
  const format = zs.reader.blockFormat(zs.level, [zs.band]);
  const tasks: number[][] = [];
  for (let i = 0; i < blocks.length; i += SCAN_BLOCKS_PER_TASK) tasks.push(blocks.slice(i, i + SCAN_BLOCKS_PER_TASK));
  const scan = async (ids: number[]): Promise<ZoneScanResult> => {
    const encoded = await zs.reader.readBlocks(zs.level, ids, [zs.band], deps.signal);
    const needs = ids.map((b) => intersectWindows(blockWindow(zs.level, b), cells) as PixelWindow);
    const task = { format, blocks: encoded, needs, zgrid: zs.level.grid, grid: level.grid, nodata: zs.nodata, maxValues: config.maxZones };
    return deps.runner.zoneScan(task, deps.signal);
  };
  // A few tasks at a time (each holds its blocks' bytes), results merged in block order: the same windows every time.
  const slots = deps.slots ?? new Slots(SCAN_TASKS_PER_WORKER * Math.max(1, config.workers));
  const results = await Promise.all(tasks.map((ids) => withSlot(slots, () => scan(ids))));
  for (const r of results) {
    if (r.failure !== undefined)
      throw new ZonalError('invalid_source', 'A tile of the zones raster could not be decoded: the file is corrupt or uses an unsupported encoding.');
    if (r.tooMany !== true) {
      for (const { value, box } of r.found) {
        const windows = found.get(value);
        if (windows) windows.push(toWindow(box));
        else found.set(value, [toWindow(box)]);
      }
    }
    if (r.tooMany === true || found.size > config.maxZones) {
      throw new ZonalError(
        'too_many_zones',
        `The zones raster holds more than ${config.maxZones.toLocaleString('en')} distinct values over the value raster, above the limit of zones per request.`,
        { limit_zones: config.maxZones },
      );
    }
  }
  return found;
}

const toWindow = ([c0, r0, c1, r1]: [number, number, number, number]): PixelWindow => ({ col0: c0, row0: r0, width: c1 - c0 + 1, height: r1 - r0 + 1 });

/** A zone value's plan: its window (the union of where it lies) and the value blocks under each of its windows. */
function planValue(ctx: RasterContext, value: number, windows: readonly PixelWindow[]): PlannedZone {
  const level = ctx.reader.info.levels[0] as RasterLevel;
  const window = windows.reduce<PixelWindow | null>((u, w) => unionWindows(u, w), null) as PixelWindow;
  const pixels = windowSize(window);
  if (pixels > ctx.deps.config.maxPixels) {
    const limit = ctx.deps.config.maxPixels;
    const detail = `Zone ${value} spans a window of ${pixels.toLocaleString('en')} pixels, above the limit of ${limit.toLocaleString('en')}.`;
    return { error: new ZonalError('too_many_pixels', detail, { limit_pixels: limit, window_pixels: pixels }) };
  }
  const blocks = [...new Set(windows.flatMap((w) => blocksOf(level, w)))].sort((a, b) => a - b);
  const plan: ZonePlan = { level: 0, selection: { kind: 'zone', value, rule: ctx.rule }, window, pixels, blocks };
  return { plan, aoiAreaM2: 0, isArea: true, units: blocks.map((block) => ({ level: 0, block })), bytes: heldBytes(ctx, plan) };
}

/** The rows of a request whose zones are a raster's values: one per value, ascending, keyed `zone`. */
export async function* rasterZoneOutcomes(req: RasterQuery, deps: RasterDeps): AsyncGenerator<ZoneOutcome> {
  checkRasterQuery(req);
  const opened = await openRasterContext(req, deps);
  const zoneSource = await openZoneRaster(opened, req, deps);
  const ctx: RasterContext = { ...opened, zoneSource };
  const found = await scanZones(ctx, zoneSource);
  const values = [...found.keys()].sort((a, b) => a - b);
  const planned = values.map((v) => planValue(ctx, v, found.get(v) as PixelWindow[]));
  const inputs = values.map((value, index) => ({ index, id: value, properties: { zone: value }, geometry: null }));
  yield* outcomesOf(inputs, answerZones(planned, rasterWork(ctx, planned)));
}
