/**
 * The one place where a Coverage meets pixel values (ARCHITECTURE §1): decode each block of a task once
 * (raster/decode.ts), select every zone's pixels in it, apply validity and scale/offset, and return one
 * partial accumulator per zone and block (exactextract's mergeable partials). Runs in a worker thread
 * (src/workers/fold-worker.ts) or inline; its input and output are plain cloneable data.
 */
import {
  decodeBlock,
  recycle,
  sampleAt,
  spanOf,
  type DecodedPlane,
  type BlockFormat,
  type DecodedBlock,
  type DecodeTimes,
  type EncodedBlock,
} from './decode.ts';
import { intersectWindows, type Grid, type PixelWindow } from '../geometry/grid.ts';
import { blocksUnder, cellUnder } from './plan.ts';
import { pixelAreaRows, type PixelAreaSpec } from './pixel-area.ts';
import type { Selection } from './plan.ts';
import { centerCoverage } from '../coverage/center.ts';
import { pointCoverage } from '../coverage/point.ts';
import { allTouchedCoverage } from '../coverage/all-touched.ts';
import { fractionalCoverage } from '../coverage/fractional.ts';
import type { Coverage } from '../coverage/coverage.ts';
import { createAccumulator, restoreAccumulator, type AccumulatorSnapshot, type StatsAccumulator } from '../stats/accumulator.ts';
import type { StatName } from '../stats/names.ts';
import { compileExpression } from '../stats/expression.ts';
import { TileCache } from './tile-cache.ts';

export type { Selection };

/** How a band's raw samples become values (CONTRACT §5 raster rules). */
export interface FoldBand {
  /** Raw nodata value as the band's samples can hold it (see effectiveNodata), or null. */
  nodata: number | null;
  scale: number;
  offset: number;
}

/** One zone of a task: what it selects on the level, and its window there. */
export interface FoldZone {
  selection: Selection;
  /** The zone's window on the level grid, clipped to it. */
  window: PixelWindow;
  /** Fractional coverage of an area: weights are coverage fractions. */
  weighted: boolean;
  /**
   * Names this selection on its grid wherever it recurs (the same zone over Items of one grid): a worker
   * computes its coverage of a block once and reuses it. Absent: not shared.
   */
  key?: string;
}

/**
 * A run of blocks of one level and the zones that need each (exactextract's raster-sequential strategy):
 * each block is decoded once and every zone that touches it accumulates from it.
 */
export interface FoldTask {
  /** From the reader; only raster/decode.ts looks inside. */
  format: BlockFormat;
  blocks: EncodedBlock[];
  /**
   * Per block, the part of it (on the level) that the zones needing it cover: only these rows and columns
   * are decoded (DEFLATE stops after its last row). Absent: whole blocks.
   */
  needs?: PixelWindow[];
  zones: FoldZone[];
  /** Per block, the indexes into `zones` of the zones that need it. */
  touches: number[][];
  bands: FoldBand[];
  /** The level's grid and CRS, for data_area (a bare point zone has none: its data_area is 0 by contract). */
  area: PixelAreaSpec;
  names: StatName[];
  /** Keep every value though no statistic needs them (a histogram, categorical). */
  keepValues: boolean;
  /** Tally the ground area of each distinct value (categorical). */
  categorical: boolean;
  /**
   * Band math and class masks (issue 11); null: each band answered on its own, every band of `bands` an
   * output. With a program the outputs are `program.outputs` (band indexes), or the one expression.
   */
  program: FoldProgram | null;
  /**
   * Other rasters on the same grid and block layout (other assets of a STAC Item), their blocks aligned
   * with `blocks`; their bands follow the primary's in `bands` (see FoldProgram.sources).
   */
  extras?: { format: BlockFormat; blocks: EncodedBlock[] }[];
  /** A class raster on another grid of the same CRS (a 20 m scene classification under 10 m bands). */
  classes?: ClassSource;
  /** Per block: return its newly decoded planes (on SharedArrayBuffers) for the process-wide decoded-tile cache. */
  keep: boolean[];
}

/** One zone's statistics from one block. */
export interface FoldPartial {
  /** Index into FoldTask.zones. */
  zone: number;
  /** Position of the block in FoldTask.blocks. */
  block: number;
  bands: BandPartial[];
}

/** A class raster read by nearest neighbour: the class of a pixel is that of the class pixel holding its centre. */
export interface ClassSource {
  format: BlockFormat;
  /** Its level grid, and its block size and blocks across (to find the block of a class pixel). */
  grid: Grid;
  blockWidth: number;
  blockHeight: number;
  across: number;
  /** The class blocks this task's pixels may fall in. */
  blocks: EncodedBlock[];
  /** Per class block, the part of it under the task's needed pixels (absent: whole blocks). */
  needs?: PixelWindow[];
  nodata: number | null;
}

/** Band math and a class mask over the decoded bands of a task. */
export interface FoldProgram {
  /** Per band of FoldTask.bands: its raster (0 the primary, k extras[k − 1]) and its index among that raster's bands. */
  sources?: { raster: number; band: number }[];
  /** An expression over `names` (one per band of FoldTask.bands, in order), or null. */
  expression: { text: string; names: string[] } | null;
  /** Without an expression: the bands answered (indexes into FoldTask.bands). */
  outputs: number[];
  /**
   * Pixels whose class (raw value of band `band`, or with `band` −1 of FoldTask.classes) is not in
   * `include`, or is in `exclude`, are masked.
   */
  mask: { band: number; include: number[] | null; exclude: number[] | null } | null;
}

/** One band's partial: its accumulator, its data area and (categorical) each class's area. */
export interface BandPartial {
  acc: AccumulatorSnapshot;
  dataAreaM2: number;
  /** Summed weight of the pixels the class mask removed. */
  masked?: number;
  /** Distinct values and the summed weight × pixel area of each (categorical only). */
  classAreas?: { values: number[]; areas: number[] };
}

/** Milliseconds a task spent per phase in its thread (bench/stac's per-tile profile, /metrics). */
export interface FoldTimes extends DecodeTimes {
  coverage: number;
  fold: number;
  /** The whole task, from its start in the thread to its result. */
  total: number;
  /** Planes decoded. */
  planes: number;
  /** Coverages of a zone on a block worked out, and taken from the thread's cache (FoldZone.key). */
  coverages: number;
  reused: number;
}

export interface FoldResult {
  partials: FoldPartial[];
  /** Planes decoded by this task, for the decoded-tile cache (those of the blocks to keep). */
  decoded: { key: string; plane: DecodedPlane }[];
  /**
   * Why a block could not be decoded (a corrupt tile, a stream cut short): the source's problem, told as
   * data because an error's class does not cross to the main thread. The task stops there.
   */
  failure?: string;
  times: FoldTimes;
}

/**
 * Coverages of shared selections (FoldZone.key) per block window, kept by each thread: the zones of a
 * request over many Items of one grid cover the same pixels of every Item's block. Bounded in bytes.
 */
const coverages = new TileCache<Coverage>();
const COVERAGE_CACHE_BYTES = 32 * 1024 * 1024;

const now = (): number => performance.now();

function coverageFor(zone: FoldZone, win: PixelWindow, levelWidth: number, levelHeight: number): Coverage | null {
  const sel = zone.selection;
  if (sel.kind === 'point') {
    const cov = pointCoverage(sel.col, sel.row, { width: levelWidth, height: levelHeight });
    return cov && intersectWindows(cov.window, win) ? cov : null;
  }
  switch (sel.rule) {
    case 'all_touched':
      return allTouchedCoverage(sel.geometry, win);
    case 'fractional':
      return fractionalCoverage(sel.geometry, win);
    default:
      return centerCoverage(sel.geometry, win);
  }
}

/** One zone's pixels of one decoded block into one accumulator per band. */
function foldZone(task: FoldTask, zone: FoldZone, block: DecodedBlock, cov: Coverage): BandPartial[] {
  const cw = cov.window;
  const areas = zone.selection.kind === 'point' ? null : pixelAreaRows(task.area, cw);
  const { valid, maskStride } = block;
  const { col0, row0 } = block.window;
  const fill = task.format.fill;
  return task.bands.map(({ nodata, scale, offset }, b) => {
    const acc = createAccumulator({ names: task.names, weighted: zone.weighted, keepValues: task.keepValues });
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
        if (valid && valid[tr * maskStride + tc] === 0) {
          acc.addNodata(w);
          continue;
        }
        const i = tr * rowStride + tc * step + first;
        const raw = arr === undefined ? fill : big ? Number(arr[i] as bigint) : (arr[i] as number);
        if (raw !== raw || raw === nodata) {
          acc.addNodata(w);
          continue;
        }
        const value = raw * scale + offset;
        acc.add(value, w);
        if (areaRow) {
          const a = w * (areaRow[c] as number);
          area += a;
          if (classes) classes.set(value, (classes.get(value) ?? 0) + a);
        } else if (classes && !classes.has(value)) classes.set(value, 0);
      }
    }
    const partial: BandPartial = { acc: acc.snapshot(), dataAreaM2: area };
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
  classAt: ((col: number, row: number) => number) | null,
  cov: Coverage,
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
  const accs = outputs.map(() => createAccumulator({ names: task.names, weighted: zone.weighted, keepValues: task.keepValues }));
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
        const raw = sampleAt(from, src.band, tr, tc, fills[src.raster] as number);
        const good = (src.raster === 0 ? fileValid : !from.valid || from.valid[tr * from.maskStride + tc] !== 0) && raw === raw && raw !== band.nodata;
        ok[b] = good ? 1 : 0;
        inputs[b] = good ? raw * band.scale + band.offset : Number.NaN;
      }
      const a = areaRow ? w * (areaRow[c] as number) : 0;
      for (let o = 0; o < outputs.length; o++) {
        const acc = accs[o] as StatsAccumulator;
        let value: number;
        if (evaluate) {
          value = ok.includes(0) ? Number.NaN : evaluate(inputs);
        } else {
          const b = outputs[o] as number;
          value = ok[b] ? (inputs[b] as number) : Number.NaN;
        }
        if (!Number.isFinite(value)) {
          acc.addNodata(w);
          continue;
        }
        acc.add(value, w);
        dataArea[o] = (dataArea[o] as number) + a;
        const cl = classes[o];
        if (cl) cl.set(value, (cl.get(value) ?? 0) + a);
      }
    }
  }
  return accs.map((acc, o) => {
    const partial: BandPartial = { acc: acc.snapshot(), dataAreaM2: dataArea[o] as number, masked };
    const cl = classes[o];
    if (cl) partial.classAreas = { values: [...cl.keys()], areas: [...cl.values()] };
    return partial;
  });
}

function sharedCoverage(zone: FoldZone, win: PixelWindow, levelWidth: number, levelHeight: number, times: FoldTimes): Coverage | null {
  if (zone.key === undefined) {
    times.coverages++;
    return coverageFor(zone, win, levelWidth, levelHeight);
  }
  const key = `${zone.key}\n${win.col0},${win.row0},${win.width},${win.height}`;
  const hit = coverages.get(key);
  if (hit !== undefined) {
    times.reused++;
    return hit.weights.length === 0 ? null : hit;
  }
  times.coverages++;
  const cov = coverageFor(zone, win, levelWidth, levelHeight);
  // A miss is kept too (an empty coverage), so that it is not worked out again.
  const kept = cov ?? { window: win, weights: new Float64Array(0) };
  coverages.put(key, kept, 64 + kept.weights.byteLength, COVERAGE_CACHE_BYTES);
  return cov;
}

/** Decodes each block of a task once and folds every zone that needs it: one partial per zone and block. */
export async function foldTiles(task: FoldTask): Promise<FoldResult> {
  const start = now();
  const times: FoldTimes = { inflate: 0, samples: 0, bytes: 0, whole: 0, coverage: 0, fold: 0, total: 0, planes: 0, coverages: 0, reused: 0 };
  const partials: FoldPartial[] = [];
  const decoded: { key: string; plane: DecodedPlane }[] = [];
  const { levelWidth, levelHeight } = task.format;
  const tw = task.format.codec.tileWidth;
  // Class blocks decoded on first use, shared by every block of the task.
  const classBlocks = new Map<number, Promise<DecodedBlock>>();
  const cs = task.classes;
  const classEncoded = new Map((cs?.blocks ?? []).map((b, i) => [b.index, { block: b, need: cs?.needs?.[i] }]));
  const classOf = async (index: number): Promise<DecodedBlock | null> => {
    const enc = classEncoded.get(index);
    if (!cs || !enc) return null;
    let p = classBlocks.get(index);
    if (!p) {
      const span = enc.need ? spanOf(enc.need, enc.block.col0, enc.block.row0, cs.format.codec.tileWidth, false) : undefined;
      classBlocks.set(index, (p = decodeBlock(cs.format, enc.block, false, span, times)));
      times.planes++;
    }
    return p;
  };
  for (let k = 0; k < task.blocks.length; k++) {
    const encoded = task.blocks[k] as EncodedBlock;
    let block: DecodedBlock | null = null;
    let rasters: DecodedBlock[] = [];
    let classAt: ((col: number, row: number) => number) | null = null;
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
          if (cs) classAt = await classLookup(cs, task.area.grid, need ?? block.window, classOf);
        } catch (e) {
          times.total = now() - start;
          return { partials: [], decoded: [], times, failure: e instanceof Error ? e.message : String(e) };
        }
      }
      const t1 = now();
      partials.push({
        zone: z,
        block: k,
        bands: task.program ? foldProgram(task, task.program, zone, rasters, classAt, cov) : foldZone(task, zone, block, cov),
      });
      times.fold += now() - t1;
    }
    // Every zone of the block is folded: its planes' buffers serve the next blocks.
    for (const r of rasters) recycle(r);
  }
  for (const c of classBlocks.values()) recycle(await c);
  times.total = now() - start;
  return { partials, decoded, times };
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

/** Merges a zone's partials (in the order given: block order, for the same bits every time). */
export function mergePartials(
  options: { names: StatName[]; weighted: boolean; bandCount: number; keepValues: boolean },
  partials: readonly BandPartial[][],
): { accs: StatsAccumulator[]; dataAreaM2: number[]; classAreas: Map<number, number>[]; masked: number[] } {
  const accs = Array.from({ length: options.bandCount }, () =>
    createAccumulator({ names: options.names, weighted: options.weighted, keepValues: options.keepValues }),
  );
  const dataAreaM2 = accs.map(() => 0);
  const classAreas = accs.map(() => new Map<number, number>());
  const masked = accs.map(() => 0);
  for (const bands of partials) {
    bands.forEach((band, b) => {
      masked[b] = (masked[b] as number) + (band.masked ?? 0);
      (accs[b] as StatsAccumulator).merge(restoreAccumulator(band.acc));
      dataAreaM2[b] = (dataAreaM2[b] as number) + band.dataAreaM2;
      const into = classAreas[b] as Map<number, number>;
      band.classAreas?.values.forEach((v, k) => into.set(v, (into.get(v) ?? 0) + (band.classAreas?.areas[k] as number)));
    });
  }
  return { accs, dataAreaM2, classAreas, masked };
}
