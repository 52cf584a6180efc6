/**
 * The plain fold of a zone's cells on a block (raster/fold.ts): one accumulator with the request's own
 * weighting, no further channel, class or kept value, every band (a cube's 24 steps and more) read from its
 * raw samples and folded by the accumulator's `packRun` in one pass, the bands' states written packed
 * (fold-packed.ts) rather than one accumulator and snapshot a band. The same numbers as adding cell by cell. Pure.
 */
import type { Coverage } from '../coverage/coverage.ts';
import { PACKED_FIELDS, type ScaledRun, type StatsAccumulator } from '../stats/accumulator.ts';
import type { CellList } from './fold-cells.ts';
import type { DecodedBlock } from './decode.ts';
import type { FoldBand, FoldTask, PackedBands } from './fold-types.ts';

/** A packed band: the accumulator's numbers, then the band's data area. */
export const BAND_FIELDS = PACKED_FIELDS + 1;

/** CF's further nodata of a band, in raw (packed) units: its missing values and the values outside its valid range; null when none. */
export function cfInvalid(band: FoldBand): ((raw: number) => boolean) | null {
  if (!hasInvalid(band)) return null;
  const { also = [], validMin = -Infinity, validMax = Infinity } = band;
  return (raw) => raw < validMin || raw > validMax || also.includes(raw);
}

/** Whether CF names further nodata for the band (cfInvalid's; the native fold knows `nodata` alone). */
function hasInvalid(band: FoldBand): boolean {
  return (band.also?.length ?? 0) > 0 || (band.validMin ?? -Infinity) !== -Infinity || (band.validMax ?? Infinity) !== Infinity;
}

/** The thread's scratch: each cell's id and its sample's place in a band (−1: masked); the run packRun reads. */
let cellIds = new Int32Array(4096);
let places = new Int32Array(4096);
const run: ScaledRun = {
  raw: undefined,
  first: 0,
  absent: 0,
  at: places,
  nodata: null,
  invalid: null,
  scale: 1,
  offset: 0,
  weights: new Float64Array(0),
  cells: cellIds,
  areas: null,
  n: 0,
};

/**
 * Every band of a block for one zone through `acc` (fresh, of the task's options), packed; null where the plain
 * fold does not apply (a band of 64-bit integers, an accumulator that keeps values or cells, a single band).
 */
export function foldPlain(task: FoldTask, acc: StatsAccumulator, block: DecodedBlock, cov: Coverage, list: CellList): PackedBands | null {
  const bands = block.bands;
  if (task.bands.length < 2 || !acc.packs() || bands.some((s) => s?.isBig === true)) return null;
  const { n, w: ws, r: rs, c: cs, area: as } = list;
  if (places.length < n) {
    cellIds = new Int32Array(n);
    places = new Int32Array(n);
  }
  const cw = cov.window;
  const width = task.format.levelWidth;
  const fill = task.format.fill;
  const out = new Float64Array(task.bands.length * BAND_FIELDS);
  for (let k = 0; k < n; k++) cellIds[k] = (cw.row0 + (rs[k] as number)) * width + cw.col0 + (cs[k] as number);
  run.at = places;
  run.weights = ws;
  run.cells = cellIds;
  run.areas = as;
  run.n = n;
  const flags = acc.packFlags() | (as === null ? 0 : AREAS);
  // Each cell's sample place, worked out once for the bands that share the first one's strides (a cube's steps).
  let [rows, cols] = [Number.NaN, Number.NaN];
  for (let b = 0; b < task.bands.length;) {
    const band = task.bands[b] as FoldBand;
    const samples = bands[b];
    const rowStride = samples?.rowStride ?? 0;
    const step = samples?.step ?? 1;
    if (rowStride !== rows || step !== cols) {
      [rows, cols] = [rowStride, step];
      placesOf(block, cw.col0, list, rowStride, step);
    }
    const native = kernel === null ? null : kernelRun(task, bands, b);
    if (native !== null) {
      const { values, end, stride } = native;
      (kernel as PackKernel).packRuns(
        values,
        samples?.offset ?? 0,
        stride,
        end - b,
        places,
        ws,
        cellIds,
        as,
        n,
        band.nodata ?? Number.NaN,
        band.scale,
        band.offset,
        flags,
        out,
        b * BAND_FIELDS,
        BAND_FIELDS,
      );
      b = end;
      continue;
    }
    run.raw = (samples?.values ?? undefined) as ArrayLike<number> | undefined;
    run.first = samples?.offset ?? 0;
    // A sparse block's value everywhere: the fill, or nothing where 64-bit nodata says so.
    run.absent = (band.nodata64 ?? null) === null ? fill : Number.NaN;
    run.nodata = band.nodata;
    run.invalid = cfInvalid(band);
    run.scale = band.scale;
    run.offset = band.offset;
    out[b * BAND_FIELDS + PACKED_FIELDS] = acc.packRun(run, out, b * BAND_FIELDS);
    b++;
  }
  return { packed: { names: task.names, weighted: acc.weighted, countItems: false, keep: false }, values: out };
}

/** The native fold's flag for "areas given" (native/fold/fold.c), beside the accumulator's packFlags. */
const AREAS = 8;

/**
 * A native fold of packRun (native/fold/fold.c, loaded by raster/fold-native.ts): for each of `bands` bands,
 * the numbers packRun writes for the run's cells on raw[at[k] + first + b × planeStride], at
 * out[o + b × outStride …] (PACKED_FIELDS, then Σ weight·area); the same bits.
 */
export interface PackKernel {
  packRuns(
    raw: ArrayBufferView,
    first: number,
    planeStride: number,
    bands: number,
    at: Int32Array,
    weights: Float64Array,
    cells: Int32Array,
    areas: Float64Array | null,
    n: number,
    nodata: number,
    scale: number,
    offset: number,
    flags: number,
    out: Float64Array,
    o: number,
    outStride: number,
  ): void;
}

/** The thread's native fold; null: packRun in JavaScript. */
let kernel: PackKernel | null = null;

/** Makes this thread fold plain bands with `k` (null: in JavaScript; the tests run both). */
export function useFoldKernel(k: PackKernel | null): void {
  kernel = k;
}

/** Sample arrays the kernel reads (not 64-bit integers, not float16). */
const KERNEL_TYPES = new Set<unknown>([Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, Float32Array, Float64Array]);

/**
 * The bands from `b` that one kernel call folds: samples in one typed array of a type it reads, with the same
 * strides, offsets a plane apart, and the same nodata, scale and offset (a cube chunk's steps); null: none.
 */
function kernelRun(task: FoldTask, bands: DecodedBlock['bands'], b: number): { values: ArrayBufferView; end: number; stride: number } | null {
  const s = bands[b];
  const band = task.bands[b] as FoldBand;
  if (!s?.values || !KERNEL_TYPES.has(s.values.constructor) || hasInvalid(band)) return null;
  let stride = 0;
  let end = b + 1;
  for (; end < task.bands.length; end++) {
    const t = bands[end];
    const next = task.bands[end] as FoldBand;
    if (t?.values !== s.values || t.rowStride !== s.rowStride || t.step !== s.step || hasInvalid(next)) break;
    if (next.nodata !== band.nodata || next.scale !== band.scale || next.offset !== band.offset) break;
    const gap = t.offset - (bands[end - 1]?.offset ?? 0);
    if (end === b + 1) {
      if (gap < 0) break;
      stride = gap;
    } else if (gap !== stride) break;
  }
  return { values: s.values, end, stride };
}

/** Each listed cell's sample place in a band of these strides (before the band's offset), −1 where the block's mask says invalid. */
function placesOf(block: DecodedBlock, covCol0: number, list: CellList, rowStride: number, step: number): void {
  const { valid, maskStride } = block;
  const col0 = block.window.col0;
  const { n, c: cs, tr: trs } = list;
  for (let k = 0; k < n; k++) {
    const tr = trs[k] as number;
    const tc = covCol0 + (cs[k] as number) - col0;
    places[k] = valid !== null && valid[tr * maskStride + tc] === 0 ? -1 : tr * rowStride + tc * step;
  }
}
