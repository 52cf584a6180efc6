/**
 * An accumulator's numbers (stats/accumulator.ts): the count, the compensated sums, the centred moments, the
 * extremes and their cells, and nodata, with what changes them without kept values or cells: nodata, a merge,
 * and their packed form (a cube's partials travel and merge as these numbers), which packRun writes straight
 * from a run of raw samples. Pure.
 */

/** The numbers writePacked writes. */
export const PACKED_FIELDS = 14;

/** A state's numbers by name (an accumulator's, a snapshot's), as packNumbers reads them. */
export interface MomentNumbers {
  /** Number of add calls with weight > 0. */
  readonly items: number;
  /** Σw and Σv·w as Neumaier pairs. */
  readonly wSum: number;
  readonly wComp: number;
  readonly vSum: number;
  readonly vComp: number;
  /** Origin of `mean` and `m2` (the first value added). */
  readonly shift: number;
  /** Running weighted mean of (value − shift), and Σ w·(v − mean)². */
  readonly mean: number;
  readonly m2: number;
  readonly min: number;
  readonly max: number;
  /** Nodata count / Σ weight as a Neumaier pair. */
  readonly nodata: number;
  readonly nodataComp: number;
  /** The cells of the min and max value (−1 or absent: none). */
  readonly minCell?: number;
  readonly maxCell?: number;
}

/** Writes a state's numbers at `out[o …]` in the packed layout (PACKED_FIELDS of them; no cell: −1). */
export function packNumbers(s: MomentNumbers, out: Float64Array, o: number): void {
  const { items, wSum, wComp, vSum, vComp, shift, mean, m2, min, max, nodata, nodataComp, minCell = -1, maxCell = -1 } = s;
  packInto(out, o, items, wSum, wComp, vSum, vComp, shift, mean, m2, min, max, nodata, nodataComp, minCell, maxCell);
}

/** The packed layout, from numbers in hand (packRun's locals: no object to hold them). */
function packInto(
  out: Float64Array,
  o: number,
  items: number,
  wSum: number,
  wComp: number,
  vSum: number,
  vComp: number,
  shift: number,
  mean: number,
  m2: number,
  min: number,
  max: number,
  nodata: number,
  nodataComp: number,
  minCell: number,
  maxCell: number,
): void {
  out[o] = items;
  out[o + 1] = wSum;
  out[o + 2] = wComp;
  out[o + 3] = vSum;
  out[o + 4] = vComp;
  out[o + 5] = shift;
  out[o + 6] = mean;
  out[o + 7] = m2;
  out[o + 8] = min;
  out[o + 9] = max;
  out[o + 10] = nodata;
  out[o + 11] = nodataComp;
  out[o + 12] = minCell;
  out[o + 13] = maxCell;
}

/**
 * A run of cells whose values are raw samples decoded linearly (a cube's band over a zone's cells): cell k's
 * value is `raw[at[k] + first] * scale + offset` (`absent` for every cell when `raw` is undefined: a sparse
 * block), and it is nodata where `at[k] < 0` (masked), or the raw sample is NaN, equals `nodata`, or `invalid`
 * says so. Written by the caller, read by `packRun`; one object a thread, reused.
 */
export interface ScaledRun {
  raw: ArrayLike<number> | undefined;
  first: number;
  absent: number;
  at: Int32Array;
  nodata: number | null;
  invalid: ((raw: number) => boolean) | null;
  scale: number;
  offset: number;
  weights: Float64Array;
  cells: Int32Array;
  /** Each cell's area, or null: then no data area is summed. */
  areas: Float64Array | null;
  n: number;
}

export class Moments {
  // Plain double fields measured ~2× faster on the hot path than one Float64Array of state.
  /** Number of add calls with weight > 0. */
  protected items = 0;
  /** Σw as a Neumaier pair (an exact integer count in unweighted mode, wComp then stays 0). */
  protected wSum = 0;
  protected wComp = 0;
  /** Σ v·w as a Neumaier pair. */
  protected vSum = 0;
  protected vComp = 0;
  /** The first value added: moments are of (v − shift), which keeps Welford accurate for data like 1e6 + noise. */
  protected shift = 0;
  /** West's weighted Welford: running mean of (v − shift) and Σ w·(v − mean)². */
  protected mean = 0;
  protected m2 = 0;
  protected min = Infinity;
  protected max = -Infinity;
  /** Nodata count / Σ weight as a Neumaier pair. */
  protected nodata = 0;
  protected nodataComp = 0;
  /** The cells of the min and max value (−1: none). */
  protected minCell = -1;
  protected maxCell = -1;

  constructor(
    readonly weighted: boolean,
    /** Σv·w, for mean and sum. */
    protected readonly needMoments: boolean,
    /** Welford's M2 only for `std`: the Σv·w of mean and sum does not need it (about a third of an add). */
    protected readonly needSpread: boolean,
  ) {}

  addNodata(weight: number): void {
    if (!(weight > 0)) return;
    const w = this.weighted ? weight : 1;
    const s = this.nodata;
    const t = s + w;
    this.nodataComp += s >= w ? s - t + w : w - t + s;
    this.nodata = t;
  }

  /** What packRun computes, as the native fold's flags (native/fold/fold.c): 1 weighted, 2 Σv·w, 4 the spread. */
  packFlags(): number {
    return (this.weighted ? 1 : 0) | (this.needMoments ? 2 : 0) | (this.needSpread ? 4 : 0);
  }

  /**
   * The packed numbers (writePacked's layout, at `out[o …]`) of a fresh state after add() or addNodata() for
   * each cell of the run, in one pass over the raw samples with the state in locals (a cube's fold made an
   * array of values a zone and band, then added them: ~30 % slower); returns Σ weight·area over the valid
   * cells, in cell order. add()'s arithmetic in add()'s order: the same bits. This state is not touched.
   */
  packRun(run: ScaledRun, out: Float64Array, o: number): number {
    const { weighted, needMoments, needSpread } = this;
    const { raw, first, absent, at, nodata, invalid, scale, offset, weights, cells, areas, n } = run;
    // The state in locals, as a fresh one (resetNumbers), and the data area.
    let items = 0;
    let wSum = 0;
    let wComp = 0;
    let vSum = 0;
    let vComp = 0;
    let shift = 0;
    let mean = 0;
    let m2 = 0;
    let min = Infinity;
    let max = -Infinity;
    let nodataSum = 0;
    let nodataComp = 0;
    let minCell = -1;
    let maxCell = -1;
    let area = 0;
    for (let k = 0; k < n; k++) {
      const place = at[k] as number;
      const sample = place < 0 ? Number.NaN : raw === undefined ? absent : (raw[place + first] as number);
      const weight = weights[k] as number;
      // NaN also where a finite sample scales to NaN (an infinite scale or offset): nodata, as for add().
      const value = sample !== sample || sample === nodata || (invalid !== null && invalid(sample)) ? Number.NaN : sample * scale + offset;
      if (value !== value) {
        if (!(weight > 0)) continue;
        const w = weighted ? weight : 1;
        const t = nodataSum + w;
        nodataComp += nodataSum >= w ? nodataSum - t + w : w - t + nodataSum;
        nodataSum = t;
        continue;
      }
      if (areas !== null) area += weight * (areas[k] as number);
      if (!(weight > 0)) continue;
      const isFirst = items++ === 0;
      let w = 1;
      let wt: number;
      if (weighted) {
        w = weight;
        wt = wSum + w;
        wComp += wSum >= w ? wSum - wt + w : w - wt + wSum;
        wSum = wt;
      } else wt = wSum = wSum + 1;
      if (needMoments) {
        const x = value * w;
        const t = vSum + x;
        vComp += Math.abs(vSum) >= Math.abs(x) ? vSum - t + x : x - t + vSum;
        vSum = t;
      }
      if (needSpread) {
        if (isFirst) shift = value;
        const d = value - shift;
        const delta = d - mean;
        const m = mean + delta * (w / wt);
        m2 += w * delta * (d - m);
        mean = m;
      }
      if (value < min) {
        min = value;
        minCell = cells[k] as number;
      }
      if (value > max) {
        max = value;
        maxCell = cells[k] as number;
      }
    }
    packInto(out, o, items, wSum, wComp, vSum, vComp, shift, mean, m2, min, max, nodataSum, nodataComp, minCell, maxCell);
    return area;
  }

  /**
   * Folds the numbers of a state written by `writePacked` at `values[o …]` into this one (Chan's formula for
   * the moments, Neumaier pairs added with their compensations), as mergeState folds a snapshot (the caller
   * knows it was made with the same options, without kept values or cells). Read from the array, not passed as
   * fourteen arguments: each would be a boxed number a merge.
   */
  mergePacked(values: Float64Array, o: number): void {
    const items = values[o] as number;
    const wSum = values[o + 1] as number;
    const wComp = values[o + 2] as number;
    const vSum = values[o + 3] as number;
    const vComp = values[o + 4] as number;
    const shift = values[o + 5] as number;
    const mean = values[o + 6] as number;
    const m2 = values[o + 7] as number;
    const min = values[o + 8] as number;
    const max = values[o + 9] as number;
    const nodata = values[o + 10] as number;
    const nodataComp = values[o + 11] as number;
    const minCell = values[o + 12] as number;
    const maxCell = values[o + 13] as number;
    const wa = this.wSum + this.wComp;
    const wb = wSum + wComp;
    if (wb > 0) {
      if (wa > 0) {
        const w = wa + wb;
        // Difference of the true means, each kept relative to its own shift.
        const delta = shift - this.shift + (mean - this.mean);
        this.mean += delta * (wb / w);
        this.m2 += m2 + delta * delta * ((wa * wb) / w);
      } else {
        this.shift = shift;
        this.mean = mean;
        this.m2 = m2;
      }
    }
    this.items += items;
    // Neumaier sums of compensated pairs, written out (a pair returned as an array was garbage a merge).
    let t = this.wSum + wSum;
    this.wComp = this.wComp + wComp + (Math.abs(this.wSum) >= Math.abs(wSum) ? this.wSum - t + wSum : wSum - t + this.wSum);
    this.wSum = t;
    t = this.vSum + vSum;
    this.vComp = this.vComp + vComp + (Math.abs(this.vSum) >= Math.abs(vSum) ? this.vSum - t + vSum : vSum - t + this.vSum);
    this.vSum = t;
    t = this.nodata + nodata;
    this.nodataComp = this.nodataComp + nodataComp + (Math.abs(this.nodata) >= Math.abs(nodata) ? this.nodata - t + nodata : nodata - t + this.nodata);
    this.nodata = t;
    // Equal extremes: the cell first in cell-id order, whatever the merge order.
    if (min < this.min || (min === this.min && minCell >= 0 && (this.minCell < 0 || minCell < this.minCell))) this.minCell = minCell;
    if (max > this.max || (max === this.max && maxCell >= 0 && (this.maxCell < 0 || maxCell < this.maxCell))) this.maxCell = maxCell;
    if (min < this.min) this.min = min;
    if (max > this.max) this.max = max;
  }

  /** Writes the state's numbers at `out[o …]` (PACKED_FIELDS of them), for mergePacked. */
  writePacked(out: Float64Array, o: number): void {
    packNumbers(this as unknown as MomentNumbers, out, o);
  }

  protected resetNumbers(): void {
    this.items = this.wSum = this.wComp = this.vSum = this.vComp = this.shift = this.mean = this.m2 = this.nodata = this.nodataComp = 0;
    this.min = Infinity;
    this.max = -Infinity;
    this.minCell = this.maxCell = -1;
  }
}
