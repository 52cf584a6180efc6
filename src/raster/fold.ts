/**
 * The one place where a Coverage meets pixel values (docs/architecture.md): decode each block of a task once
 * (raster/decode.ts), select every zone's pixels in it, apply validity and scale/offset, and return one
 * partial accumulator per zone and block (exactextract's mergeable partials). Runs in a worker thread
 * (src/workers/fold-worker.ts) or inline; its input and output are plain cloneable data (fold-types.ts),
 * merged on the main thread by fold-merge.ts.
 */
import { decodeBlock, recycle, sample64At, sampleAt, spanOf, type DecodedPlane, type DecodedBlock, type EncodedBlock } from './decode.ts';
import { intersectWindows, type Grid, type PixelWindow } from '../geometry/grid.ts';
import { blocksUnder, cellUnder } from './plan.ts';
import { pixelAreaRows } from './pixel-area.ts';
import type { Coverage } from '../coverage/coverage.ts';
import { createAccumulator, type StatsAccumulator } from '../stats/accumulator.ts';
import { compileExpression } from '../stats/expression.ts';
import { sharedCoverage } from './fold-coverage.ts';
import { addCell, rowAreas } from './fold-weighting.ts';
import { channelWeighted, isDefaultWeighting, type Weighting } from '../stats/weighting.ts';
import type { BandPartial, ClassSource, FoldBand, FoldPartial, FoldProgram, FoldResult, FoldTask, FoldTimes, FoldZone } from './fold-types.ts';

export type { FoldBand, FoldPartial, FoldProgram, FoldResult, FoldTask, FoldZone } from './fold-types.ts';
export { mergePartials } from './fold-merge.ts';

const now = (): number => performance.now();

/**
 * A zone's channels on one window: the main accumulator's weighting (null: the plain rule, every covered cell
 * at its fraction, nodata left out) and the further channels', with their rows' cell areas.
 */
/** A zone's accumulators for one band or output: the main one, and one per further channel with its count of unweighed cells. */
interface ChannelSet {
  acc: StatsAccumulator;
  more: StatsAccumulator[] | null;
  missing: number[];
}

function channelsFor(task: FoldTask, zone: FoldZone, cw: PixelWindow, weightAt: Lookup | null) {
  const main = task.weighting && !isDefaultWeighting(task.weighting) ? task.weighting : null;
  const extra = task.channels ?? [];
  const grid = task.area.grid;
  const width = task.format.levelWidth;
  const mainAreas = main ? rowAreas(main, grid, cw.row0, cw.height) : null;
  const extraAreas = extra.map((c) => rowAreas(c.weighting, grid, cw.row0, cw.height));
  const weighs = extra.some((c) => c.weighting.byWeights);
  return {
    accumulators: (): ChannelSet => ({
      acc: createAccumulator({ names: task.names, weighted: main ? channelWeighted(main, zone.weighted) : zone.weighted, keepValues: task.keepValues }),
      more: extra.length === 0 ? null : extra.map((c) => createAccumulator({ names: c.names, weighted: channelWeighted(c.weighting, zone.weighted) })),
      missing: extra.map(() => 0),
    }),
    /** A cell of row `r` covered `f` (value NaN where nodata) into the main accumulator and every further channel. */
    add(set: ChannelSet, f: number, value: number, r: number, c: number): void {
      const cell = (cw.row0 + r) * width + cw.col0 + c;
      const { acc, more } = set;
      if (more !== null) {
        const wi = weighs && weightAt ? weightAt(cw.col0 + c, cw.row0 + r) : Number.NaN;
        for (let k = 0; k < more.length; k++) {
          const areas = extraAreas[k];
          const ok = addCell(
            more[k] as StatsAccumulator,
            (extra[k] as { weighting: Weighting }).weighting,
            f,
            value,
            areas ? (areas[r] as number) : 1,
            cell,
            wi,
          );
          if (!ok) set.missing[k] = (set.missing[k] as number) + 1;
        }
      }
      if (main !== null) addCell(acc, main, f, value, mainAreas ? (mainAreas[r] as number) : 1, cell, Number.NaN);
      else if (value !== value) acc.addNodata(f);
      else acc.add(value, f, cell);
    },
  };
}

/** One zone's pixels of one decoded block into one accumulator per band. */
function foldZone(task: FoldTask, zone: FoldZone, block: DecodedBlock, cov: Coverage, weightAt: Lookup | null): BandPartial[] {
  const cw = cov.window;
  const areas = zone.selection.kind === 'point' ? null : pixelAreaRows(task.area, cw);
  const { valid, maskStride } = block;
  const { col0, row0 } = block.window;
  const fill = task.format.fill;
  const ch = channelsFor(task, zone, cw, weightAt);
  return task.bands.map(({ nodata, nodata64 = null, scale, offset }, b) => {
    const set = ch.accumulators();
    const { acc, more } = set;
    const classes = task.categorical ? new Map<number, number>() : null;
    const samples = block.bands[b];
    const arr = samples?.values ?? undefined;
    const big = samples?.isBig ?? false;
    const rowStride = samples?.rowStride ?? 0;
    const step = samples?.step ?? 1;
    const first = samples?.offset ?? 0;
    let area = 0;
    for (let r = 0; r < cw.height; r++) {
      const tr = cw.row0 + r - row0;
      const areaRow = areas?.row(r);
      for (let c = 0; c < cw.width; c++) {
        const w = cov.weights[r * cw.width + c] as number;
        if (w <= 0) continue;
        const tc = cw.col0 + c - col0;
        let raw: number;
        if (valid && valid[tr * maskStride + tc] === 0) raw = Number.NaN;
        else {
          const i = tr * rowStride + tc * step + first;
          if (arr === undefined) raw = nodata64 === null ? fill : Number.NaN;
          else if (big) {
            // Compared before the conversion: 2⁶⁴ − 1 and a nodata of 2⁶⁴ − 2 are one float64.
            const v = arr[i] as bigint;
            raw = v === nodata64 ? Number.NaN : Number(v);
          } else raw = arr[i] as number;
        }
        const value = raw !== raw || raw === nodata ? Number.NaN : raw * scale + offset;
        ch.add(set, w, value, r, c);
        if (value !== value) continue;
        if (areaRow) {
          const a = w * (areaRow[c] as number);
          area += a;
          if (classes) classes.set(value, (classes.get(value) ?? 0) + a);
        } else if (classes && !classes.has(value)) classes.set(value, 0);
      }
    }
    const partial: BandPartial = { acc: acc.snapshot(), dataAreaM2: area };
    if (more !== null) partial.more = more.map((m) => m.snapshot());
    if (set.missing.some((n) => n > 0)) partial.missing = set.missing;
    if (classes) partial.classAreas = { values: [...classes.keys()], areas: [...classes.values()] };
    return partial;
  });
}

/**
 * One zone's pixels of one block through a program: masked pixels (by class) counted apart, then each
 * output is a band's value or the expression over every input band; a pixel invalid in any input (nodata,
 * NaN, the file's mask) or whose expression is not finite (a division by zero) counts as nodata.
 */
function foldProgram(
  task: FoldTask,
  program: FoldProgram,
  zone: FoldZone,
  rasters: DecodedBlock[],
  classAt: Lookup | null,
  cov: Coverage,
  weightAt: Lookup | null,
): BandPartial[] {
  const cw = cov.window;
  const areas = zone.selection.kind === 'point' ? null : pixelAreaRows(task.area, cw);
  const block = rasters[0] as DecodedBlock;
  const { valid, maskStride } = block;
  const { col0, row0 } = block.window;
  const fill = task.format.fill;
  const fills = [fill, ...(task.extras ?? []).map((e) => e.format.fill)];
  const sources = program.sources ?? task.bands.map((_, b) => ({ raster: 0, band: b }));
  const evaluate = program.expression ? compileExpression(program.expression.text, program.expression.names) : null;
  const outputs = evaluate ? [-1] : program.outputs;
  const ch = channelsFor(task, zone, cw, weightAt);
  const sets = outputs.map(() => ch.accumulators());
  const classes = outputs.map(() => (task.categorical ? new Map<number, number>() : null));
  const dataArea = outputs.map(() => 0);
  let masked = 0;
  const include = program.mask?.include ? new Set(program.mask.include) : null;
  const exclude = program.mask?.exclude ? new Set(program.mask.exclude) : null;
  const inputs = new Float64Array(task.bands.length);
  const ok = new Uint8Array(task.bands.length);
  for (let r = 0; r < cw.height; r++) {
    const tr = cw.row0 + r - row0;
    const areaRow = areas?.row(r);
    for (let c = 0; c < cw.width; c++) {
      const w = cov.weights[r * cw.width + c] as number;
      if (w <= 0) continue;
      const tc = cw.col0 + c - col0;
      const fileValid = !valid || valid[tr * maskStride + tc] !== 0;
      if (program.mask) {
        const m = program.mask.band;
        const cls = m < 0 ? (classAt as (col: number, row: number) => number)(cw.col0 + c, cw.row0 + r) : sampleAt(block, m, tr, tc, fill);
        const clsValid = (m < 0 || fileValid) && cls === cls && cls !== (m < 0 ? task.classes?.nodata : (task.bands[m] as FoldBand).nodata);
        if ((include && !(clsValid && include.has(cls))) || (exclude && clsValid && exclude.has(cls))) {
          masked += w;
          continue;
        }
      }
      for (let b = 0; b < task.bands.length; b++) {
        const band = task.bands[b] as FoldBand;
        const src = sources[b] as { raster: number; band: number };
        const from = rasters[src.raster] as DecodedBlock;
        const raw = band.nodata64 == null ? sampleAt(from, src.band, tr, tc, fills[src.raster] as number) : sample64At(from, src.band, tr, tc, band.nodata64);
        const good = (src.raster === 0 ? fileValid : !from.valid || from.valid[tr * from.maskStride + tc] !== 0) && raw === raw && raw !== band.nodata;
        ok[b] = good ? 1 : 0;
        inputs[b] = good ? raw * band.scale + band.offset : Number.NaN;
      }
      const a = areaRow ? w * (areaRow[c] as number) : 0;
      for (let o = 0; o < outputs.length; o++) {
        const b = outputs[o] as number;
        const v = evaluate ? (ok.includes(0) ? Number.NaN : evaluate(inputs)) : ok[b] ? (inputs[b] as number) : Number.NaN;
        const value = Number.isFinite(v) ? v : Number.NaN;
        ch.add(sets[o] as ChannelSet, w, value, r, c);
        if (value !== value) continue;
        dataArea[o] = (dataArea[o] as number) + a;
        const cl = classes[o];
        if (cl) cl.set(value, (cl.get(value) ?? 0) + a);
      }
    }
  }
  return sets.map(({ acc, more, missing }, o) => {
    const partial: BandPartial = { acc: acc.snapshot(), dataAreaM2: dataArea[o] as number, masked };
    if (more !== null) partial.more = more.map((m) => m.snapshot());
    if (missing.some((n) => n > 0)) partial.missing = missing;
    const cl = classes[o];
    if (cl) partial.classAreas = { values: [...cl.keys()], areas: [...cl.values()] };
    return partial;
  });
}

/** Decodes each block of a task once and folds every zone that needs it: one partial per zone and block. */
export async function foldTiles(task: FoldTask): Promise<FoldResult> {
  const start = now();
  const times: FoldTimes = { inflate: 0, samples: 0, bytes: 0, whole: 0, coverage: 0, fold: 0, total: 0, planes: 0, coverages: 0, reused: 0 };
  const partials: FoldPartial[] = [];
  const decoded: { key: string; plane: DecodedPlane }[] = [];
  const { levelWidth, levelHeight } = task.format;
  const tw = task.format.codec.tileWidth;
  // Class and weights blocks decoded on first use, shared by every block of the task.
  const cs = task.classes;
  const ws = task.weights;
  const classOf = cs ? lookupBlocks(cs, times) : null;
  const weightOf = ws ? lookupBlocks(ws, times) : null;
  for (let k = 0; k < task.blocks.length; k++) {
    const encoded = task.blocks[k] as EncodedBlock;
    let block: DecodedBlock | null = null;
    let rasters: DecodedBlock[] = [];
    let classAt: Lookup | null = null;
    let weightAt: Lookup | null = null;
    const blockWin: PixelWindow = {
      col0: encoded.col0,
      row0: encoded.row0,
      width: Math.min(tw, levelWidth - encoded.col0),
      height: Math.min(task.format.codec.tileHeight, levelHeight - encoded.row0),
    };
    const need = task.needs?.[k];
    // A block kept for the decoded-tile cache is decoded from its first row, so later requests reuse it.
    const keep = task.keep[k] === true;
    const span = need ? spanOf(need, encoded.col0, encoded.row0, tw, keep) : undefined;
    for (const z of task.touches[k] ?? []) {
      const zone = task.zones[z] as FoldZone;
      const win = intersectWindows(blockWin, zone.window);
      if (!win) continue;
      const t0 = now();
      const cov = sharedCoverage(zone, win, levelWidth, levelHeight, times);
      times.coverage += now() - t0;
      if (!cov) continue;
      // Decoded on first use only: a block no zone selects a pixel of is never decompressed.
      if (block === null) {
        try {
          block = await decodeBlock(task.format, encoded, keep, span, times);
          decoded.push(...block.fresh);
          const extras = task.extras ?? [];
          rasters = [block, ...(await Promise.all(extras.map((e) => decodeBlock(e.format, e.blocks[k] as EncodedBlock, false, span, times))))];
          times.planes += encoded.planes.filter((p) => p !== null).length + extras.length;
          if (cs && classOf) classAt = await classLookup(cs, task.area.grid, need ?? block.window, classOf.get);
          if (ws && weightOf) {
            const raw = await classLookup(ws, task.area.grid, need ?? block.window, weightOf.get);
            weightAt = (col, row) => {
              const v = raw(col, row);
              return v !== v || v === ws.nodata ? Number.NaN : v * ws.scale + ws.offset;
            };
          }
        } catch (e) {
          times.total = now() - start;
          return { partials: [], decoded: [], times, failure: e instanceof Error ? e.message : String(e) };
        }
      }
      const t1 = now();
      partials.push({
        zone: z,
        block: k,
        bands: task.program ? foldProgram(task, task.program, zone, rasters, classAt, cov, weightAt) : foldZone(task, zone, block, cov, weightAt),
      });
      times.fold += now() - t1;
    }
    // Every zone of the block is folded: its planes' buffers serve the next blocks.
    for (const r of rasters) recycle(r);
  }
  for (const c of [...(classOf?.all.values() ?? []), ...(weightOf?.all.values() ?? [])]) recycle(await c);
  times.total = now() - start;
  return { partials, decoded, times };
}

/** The value of a raster read by nearest neighbour at a pixel (col, row) of the level: NaN outside it. */
type Lookup = (col: number, row: number) => number;

/** A raster read by nearest neighbour: its blocks decoded on first use (only the part the task needs). */
function lookupBlocks(src: ClassSource, times: FoldTimes): { get: (index: number) => Promise<DecodedBlock | null>; all: Map<number, Promise<DecodedBlock>> } {
  const all = new Map<number, Promise<DecodedBlock>>();
  const encoded = new Map(src.blocks.map((b, i) => [b.index, { block: b, need: src.needs?.[i] }]));
  const get = async (index: number): Promise<DecodedBlock | null> => {
    const enc = encoded.get(index);
    if (!enc) return null;
    let p = all.get(index);
    if (!p) {
      const span = enc.need ? spanOf(enc.need, enc.block.col0, enc.block.row0, src.format.codec.tileWidth, false) : undefined;
      all.set(index, (p = decodeBlock(src.format, enc.block, false, span, times)));
      times.planes++;
    }
    return p;
  };
  return { get, all };
}

/**
 * The class of each pixel of a data block, by nearest neighbour: the class pixel that holds the pixel's
 * centre (as GDAL's nearest resampling takes it); NaN outside the class raster. The class blocks the data
 * block's pixels fall in are decoded first.
 */
async function classLookup(
  cs: ClassSource,
  grid: Grid,
  win: PixelWindow,
  classOf: (index: number) => Promise<DecodedBlock | null>,
): Promise<(col: number, row: number) => number> {
  const level = { index: 0, grid: cs.grid, blockWidth: cs.blockWidth, blockHeight: cs.blockHeight };
  const decoded = new Map<number, DecodedBlock | null>();
  await Promise.all(blocksUnder(grid, win, level).map(async (i) => decoded.set(i, await classOf(i))));
  return (col, row) => {
    const [mc, mr] = cellUnder(grid, cs.grid, col, row);
    if (mc < 0 || mr < 0 || mc >= cs.grid.width || mr >= cs.grid.height) return Number.NaN;
    const b = decoded.get(Math.floor(mr / cs.blockHeight) * cs.across + Math.floor(mc / cs.blockWidth));
    if (!b) return Number.NaN;
    return sampleAt(b, 0, mr - b.window.row0, mc - b.window.col0, cs.format.fill);
  };
}
