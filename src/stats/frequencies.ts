/**
 * The values a StatsAccumulator keeps for the order statistics (median, percentiles, majority, minority,
 * unique, freq_hist), as a weighted multiset. Pure.
 *
 * Values live in growable Float64Array buffers, never JS arrays, and are sorted once when a result is
 * taken. Values of weight exactly 1 go to a weight-less buffer; other weights go to a (value, weight) pair
 * buffer, so the centre and all-touched rules (all weights 1) never store weights and the fractional rule
 * stores them only for boundary cells. Results read from the sorted values do not depend on insertion
 * order or on how buffers were appended, to the bit.
 */
import { ZonalError } from '../errors.ts';
import { MAX_DISTINCT_VALUES, TIE_REL, type Runs } from './catalogue.ts';
import { medianSorted, quantileSorted, sortPairs, sortValues, weightedTarget } from './quantile.ts';

const INITIAL_CAPACITY = 1024;

/** A larger copy of `buf`: doubling, or exactly `need` for a first, large fill (a merge into an empty accumulator). */
function grow(buf: Float64Array, need: number): Float64Array {
  let cap = buf.length === 0 ? Math.max(need, INITIAL_CAPACITY) : buf.length * 2;
  while (cap < need) cap *= 2;
  const next = new Float64Array(cap);
  next.set(buf);
  return next;
}

/** Kept (value, weight) pairs: the unit and pair buffers, sorted lazily, with quantiles and distinct runs. */
export class Frequencies {
  private unit: Float64Array;
  private unitLen = 0;
  private pairV: Float64Array;
  private pairW: Float64Array;
  private pairLen = 0;
  private sorted = true;

  /** `capacity`: values of weight 1 the unit buffer holds before it first grows. */
  constructor(capacity: number) {
    this.unit = new Float64Array(capacity);
    this.pairV = new Float64Array(0);
    this.pairW = new Float64Array(0);
  }

  /** Stores a counted value (kept out of the accumulator's `add` so that `add` stays small enough to be inlined by TurboFan). */
  add(value: number, w: number): void {
    if (w === 1) {
      if (this.unitLen === this.unit.length) this.unit = grow(this.unit, this.unitLen + 1);
      this.unit[this.unitLen++] = value;
    } else {
      if (this.pairLen === this.pairV.length) {
        this.pairV = grow(this.pairV, this.pairLen + 1);
        this.pairW = grow(this.pairW, this.pairLen + 1);
      }
      this.pairV[this.pairLen] = value;
      this.pairW[this.pairLen++] = w;
    }
    this.sorted = false;
  }

  /** Copies another multiset's buffers in after these (`pairValues` and `pairWeights` of equal length). */
  append(unitValues: Float64Array, pairValues: Float64Array, pairWeights: Float64Array): void {
    if (unitValues.length > 0) {
      const need = this.unitLen + unitValues.length;
      if (need > this.unit.length) this.unit = grow(this.unit, need);
      this.unit.set(unitValues, this.unitLen);
      this.unitLen = need;
      this.sorted = false;
    }
    if (pairValues.length > 0) {
      const need = this.pairLen + pairValues.length;
      if (need > this.pairV.length) {
        this.pairV = grow(this.pairV, need);
        this.pairW = grow(this.pairW, need);
      }
      this.pairV.set(pairValues, this.pairLen);
      this.pairW.set(pairWeights, this.pairLen);
      this.pairLen = need;
      this.sorted = false;
    }
  }

  /** Takes the given buffers (exact length) as this (empty) multiset's own, without copying. */
  adopt(unit: Float64Array, pairV: Float64Array, pairW: Float64Array): void {
    this.unit = unit;
    this.unitLen = unit.length;
    this.pairV = pairV;
    this.pairW = pairW;
    this.pairLen = pairV.length;
    this.sorted = unit.length === 0 && pairV.length === 0;
  }

  /** The kept values of weight 1 (a view of the buffer, exact length; not safe to keep). */
  unitView(): Float64Array {
    return this.unit.subarray(0, this.unitLen);
  }

  /** The kept values of other weights (a view, exact length; not safe to keep). */
  pairValuesView(): Float64Array {
    return this.pairV.subarray(0, this.pairLen);
  }

  /** Their weights, at the same index as `pairValuesView` (a view, exact length; not safe to keep). */
  pairWeightsView(): Float64Array {
    return this.pairW.subarray(0, this.pairLen);
  }

  private sortBuffers(): void {
    if (this.sorted) return;
    sortValues(this.unit, this.unitLen);
    sortPairs(this.pairV, this.pairW, this.pairLen);
    this.sorted = true;
  }

  /**
   * Quantile over the kept values. Unweighted: numpy linear (the median rule when `median`); weighted: the
   * smallest value whose cumulative weight reaches q/100 of the total.
   */
  quantile(q: number, median: boolean, weighted: boolean): number | null {
    this.sortBuffers();
    if (!weighted) {
      return median ? medianSorted(this.unit, this.unitLen) : quantileSorted(this.unit, q, this.unitLen);
    }
    let total = this.unitLen;
    for (let j = 0; j < this.pairLen; j++) total += this.pairW[j] as number;
    const target = weightedTarget(total, q);
    let cum = 0;
    let result: number | null = null;
    this.walkRuns((v, w) => {
      cum += w;
      result = v;
      return cum < target;
    });
    return result;
  }

  /**
   * Visits the distinct kept values in ascending order with their total (weighted) frequency, merging the
   * unit and pair buffers; stops when `visit` returns false. Sums within a run are in canonical order.
   */
  walkRuns(visit: (value: number, weight: number) => boolean): void {
    this.sortBuffers();
    const u = this.unit;
    const pv = this.pairV;
    const pw = this.pairW;
    const nu = this.unitLen;
    const np = this.pairLen;
    let i = 0;
    let j = 0;
    while (i < nu || j < np) {
      const a = i < nu ? (u[i] as number) : Infinity;
      const b = j < np ? (pv[j] as number) : Infinity;
      // Infinity may be a real value: take the stream that still has data when both read Infinity.
      const v = i < nu && (j >= np || a <= b) ? a : b;
      let units = 0;
      while (i < nu && u[i] === v) {
        units++;
        i++;
      }
      let pairs = 0;
      while (j < np && pv[j] === v) pairs += pw[j++] as number;
      if (!visit(v, units + pairs)) return;
    }
  }

  /**
   * Majority and minority (ties to the smallest value), and, when `capped` names the statistics that list
   * them (unique, freq_hist), the distinct values and their frequencies. Throws ZonalError
   * `too_many_unique_values`, naming them, past MAX_DISTINCT_VALUES distinct values in that case.
   */
  runs(capped: readonly string[]): Runs {
    const wantDistinct = capped.length > 0;
    const unique: number[] = [];
    const hist: Record<string, number> = {};
    let majority = NaN;
    let majorityW = -Infinity;
    let minority = NaN;
    let minorityW = Infinity;
    let distinct = 0;
    this.walkRuns((value, w) => {
      const v = value + 0;
      distinct++;
      if (wantDistinct) {
        if (distinct > MAX_DISTINCT_VALUES) {
          const [they, stop] = capped.length > 1 ? ['The statistics', 'stop'] : ['The statistic', 'stops'];
          const names = capped.map((n) => `'${n}'`).join(' and ');
          const limit = MAX_DISTINCT_VALUES.toLocaleString('en-US');
          throw new ZonalError('too_many_unique_values', `${they} ${names} ${stop} at ${limit} distinct values and this AOI has more.`, {
            stats: capped,
            limit: MAX_DISTINCT_VALUES,
          });
        }
        unique.push(v);
        hist[String(v)] = w;
      }
      // Ascending walk with strict comparisons: ties go to the smallest value. Summed coverages within
      // TIE_REL of each other are ties: cells alike by geometry differ in their last bits.
      if (majorityW === -Infinity || w > majorityW + TIE_REL * Math.abs(majorityW)) {
        majorityW = w;
        majority = v;
      }
      if (minorityW === Infinity || w < minorityW - TIE_REL * Math.abs(minorityW)) {
        minorityW = w;
        minority = v;
      }
      return true;
    });
    return { majority, minority, unique, hist };
  }
}
