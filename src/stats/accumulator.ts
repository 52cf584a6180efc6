/**
 * StatsAccumulator: folds (value, weight) pairs into the statistics of docs/contract.md §5, whose answers
 * are read from its state as catalogue.ts declares them. Pure: numbers only, never geometry or bytes.
 *
 * - One pass for count / sum / mean / std / min / max: Neumaier-compensated Σw and Σv·w, weighted Welford
 *   (West 1979) for the centred second moment; partials merge with Chan's parallel formula.
 * - Values are kept (in `Frequencies`, growable Float64Array buffers, never JS arrays) only when a statistic
 *   asked needs them (median, a percentile, majority, minority, unique, freq_hist), and sorted once when the
 *   result is taken. Values of weight exactly 1 go to a weight-less buffer; other weights go to a (value,
 *   weight) pair buffer, so the centre and all-touched rules (all weights 1) never store weights and the
 *   fractional rule stores them only for boundary cells.
 * - Statistics computed from the sorted values (median, percentiles, majority, minority, unique, freq_hist) do
 *   not depend on insertion order or on how partials were merged, to the bit. count, min, max, range and
 *   nodata are exact in unweighted mode. sum, mean, std and weighted count are compensated / stable
 *   and agree across orders and merges to within a few ulps.
 */
import { type ResultContext, type StatState, type StatValue } from './catalogue.ts';
import { needsOf, planOf, type ResultPlan, type StatName } from './names.ts';
import { Frequencies } from './frequencies.ts';
import { CellList, type CellArrays } from './cells.ts';
import { ResultState } from './result-state.ts';
import { Moments, PACKED_FIELDS, packNumbers, type MomentNumbers, type ScaledRun } from './moments.ts';

export type { ResultContext };

export { PACKED_FIELDS, type ScaledRun };
/** The requested statistics by name. */
export type StatsResult = Record<string, StatValue>;

export interface AccumulatorOptions {
  /** The statistics `result()` returns, as validated by `parseStatNames`. */
  readonly names: readonly StatName[];
  /**
   * Weighted mode: weights are coverage fractions or feature weights, and count, mean, sum, std, the
   * quantiles, majority/minority, freq_hist and nodata use them (docs/contract.md §5). Unweighted mode: every add
   * counts 1 whatever weight is passed (weights ≤ 0 are still skipped).
   */
  readonly weighted: boolean;
  /**
   * Vector rule (docs/contract.md §5, "vector: features counted"): `count` (and `density`) count the added items
   * instead of summing their weights. Default false (raster: count = Σ weights in weighted mode).
   */
  readonly countItems?: boolean;
  /** Expected number of values, to size the value buffer once (only used when values are kept). */
  readonly capacityHint?: number;
  /** Keep the values even when no statistic of `names` needs them (a histogram, per-class counts). */
  readonly keepValues?: boolean;
}

/** Plain data that survives structuredClone / postMessage (all numbers, booleans, strings and Float64Arrays): the numbers, and: */
export interface AccumulatorSnapshot extends MomentNumbers {
  readonly version: 1;
  readonly names: StatName[];
  readonly weighted: boolean;
  readonly countItems: boolean;
  /** Kept values of weight 1 (exact length, no spare capacity). */
  readonly unitValues: Float64Array;
  /** Kept values of other weights, with their weights at the same index. */
  readonly pairValues: Float64Array;
  readonly pairWeights: Float64Array;
  /** Values kept though no statistic of `names` needs them (AccumulatorOptions.keepValues). */
  readonly keep?: boolean;
  /** The counted cells (needs `cells`). */
  readonly cells?: CellArrays;
}

export interface StatsAccumulator {
  /** Weighted mode (AccumulatorOptions.weighted). */
  readonly weighted: boolean;
  /**
   * Counts one valid value with its weight (coverage fraction or feature weight). Weights ≤ 0 (or NaN) are
   * ignored; `value` must not be NaN (validity is the caller's job). Allocation-free except when a value
   * buffer doubles. `cell`: the cell's id on the raster's full grid (per-cell statistics, min/max centres);
   * `cellWeight`: what its per-cell list keeps as its weight (default `weight`; a weighting raster's wᵢ).
   */
  add(value: number, weight: number, cell?: number, cellWeight?: number): void;
  /** Counts one nodata / masked cell inside the AOI (its weight in weighted mode, else 1); weights ≤ 0 ignored. */
  addNodata(weight: number): void;
  /**
   * For an accumulator that packs: the packed numbers of a fresh state after add() or addNodata() for each cell
   * of a run of linearly decoded samples (moments.ts ScaledRun), written at `out[o …]`; returns the valid cells'
   * Σ weight·area. Leaves this state as it was.
   */
  packRun(run: ScaledRun, out: Float64Array, o: number): number;
  /** What packRun computes, as flags for the native fold (native/fold/fold.c): 1 weighted, 2 Σv·w, 4 the spread. */
  packFlags(): number;
  /** Back to nothing counted, for another band (the kept values and cells let go, not cleared: results may hold them). */
  reset(): void;
  /** Whether the state is its numbers alone (no kept values, no cells): what writePacked / mergePacked carry. */
  packs(): boolean;
  /** Writes the state's numbers at `out[o …]` (PACKED_FIELDS of them). */
  writePacked(out: Float64Array, o: number): void;
  /** Folds numbers that writePacked wrote (an accumulator of the same options) into this one, as merge would. */
  mergePacked(values: Float64Array, o: number): void;
  /** Folds another accumulator built with the same names and mode into this one (`other` is left unchanged). */
  merge(other: StatsAccumulator): void;
  /** Plain-data copy of the state, for a worker thread's postMessage. */
  snapshot(): AccumulatorSnapshot;
  /**
   * Exactly the requested statistics (docs/contract.md §5), never NaN or ±Infinity (null instead), -0 reported as 0.
   * Nothing counted → count 0, nodata as counted, unique [], freq_hist {}, density 0 (null without area),
   * everything else null. Throws ZonalError `too_many_unique_values` when unique / freq_hist would list
   * more than 10,000 distinct values. The caller adds aoi_area and data_area.
   */
  result(context?: ResultContext): StatsResult;
  /** The keys `result` answers, in its order. */
  resultKeys(): readonly string[];
  /**
   * The result's values as numbers at `out[at + i]` for the i-th of resultKeys (null and ±Infinity as NaN, -0
   * as 0); false as soon as one is not a number (a list, a map): take `result` then.
   */
  resultNumbers(out: Float64Array, at: number, context?: ResultContext): boolean;
  /**
   * Visits the distinct kept values in ascending order with their total weight (their count in unweighted
   * mode); stops when `visit` returns false. Nothing when values are not kept.
   */
  walkValues(visit: (value: number, weight: number) => boolean): void;
}

class Accumulator extends Moments implements StatsAccumulator {
  readonly names: readonly StatName[];
  readonly countItems: boolean;
  private readonly keepValues: boolean;

  /** The kept values, made on first use: most keep none (a cube's answer merges one per zone and step). */
  private store: Frequencies | null = null;
  private readonly capacity: number;

  private readonly keepAnyway: boolean;
  /** The counted cells, when a statistic lists them. */
  private cells: CellList | null;
  /** Resolved on the first result (partials built in workers are merged, never asked). */
  private plan: ResultPlan | undefined;
  /** The state results read, filled again for each (a result never keeps it). */
  private resultState: ResultState | undefined;

  constructor(names: readonly StatName[], weighted: boolean, countItems: boolean, capacity: number, keep = false) {
    const needs = needsOf(names);
    super(weighted, needs.moments, needs.spread);
    this.names = names;
    this.countItems = countItems;
    this.keepAnyway = keep;
    this.keepValues = needs.values || keep;
    this.capacity = this.keepValues ? Math.max(0, Math.floor(capacity)) : 0;
    this.cells = needs.cells ? new CellList() : null;
  }

  private get values(): Frequencies {
    return (this.store ??= new Frequencies(this.capacity));
  }
  add(value: number, weight: number, cell = -1, cellWeight = weight): void {
    if (!(weight > 0)) return;
    if (this.cells !== null) this.cells.add(cell, value, cellWeight);
    const first = this.items++ === 0;
    let w = 1;
    let wt: number;
    if (this.weighted) {
      w = weight;
      const ws = this.wSum;
      wt = ws + w;
      this.wComp += ws >= w ? ws - wt + w : w - wt + ws;
      this.wSum = wt;
    } else {
      // An exact integer count: no compensation needed.
      wt = this.wSum + 1;
      this.wSum = wt;
    }
    if (this.needMoments) {
      const s = this.vSum;
      const x = value * w;
      const t = s + x;
      this.vComp += Math.abs(s) >= Math.abs(x) ? s - t + x : x - t + s;
      this.vSum = t;
    }
    if (this.needSpread) {
      // West's weighted Welford update on the shifted value.
      if (first) this.shift = value;
      const d = value - this.shift;
      const mean = this.mean;
      const delta = d - mean;
      const m = mean + delta * (w / wt);
      this.mean = m;
      this.m2 += w * delta * (d - m);
    }
    // Strict: within one accumulator cells come row by row, so the first of equal values is the first cell.
    if (value < this.min) {
      this.min = value;
      this.minCell = cell;
    }
    if (value > this.max) {
      this.max = value;
      this.maxCell = cell;
    }
    if (this.keepValues) this.values.add(value, w);
  }

  reset(): void {
    this.resetNumbers();
    this.store = null;
    if (this.cells !== null) this.cells = new CellList();
  }

  packs(): boolean {
    return this.cells === null && !this.keepValues;
  }

  merge(other: StatsAccumulator): void {
    if (!(other instanceof Accumulator)) throw new TypeError('merge: not an accumulator from createAccumulator');
    if (other === this) throw new TypeError('merge: cannot merge an accumulator into itself');
    this.mergeState(other.snapshotView());
  }

  /** The state without copying the buffers (for merge); not safe to keep. */
  private snapshotView(): AccumulatorSnapshot {
    return {
      version: 1,
      names: this.names as StatName[],
      weighted: this.weighted,
      countItems: this.countItems,
      items: this.items,
      wSum: this.wSum,
      wComp: this.wComp,
      vSum: this.vSum,
      vComp: this.vComp,
      shift: this.shift,
      mean: this.mean,
      m2: this.m2,
      min: this.min,
      max: this.max,
      nodata: this.nodata,
      nodataComp: this.nodataComp,
      unitValues: this.store?.unitView() ?? NONE,
      pairValues: this.store?.pairValuesView() ?? NONE,
      pairWeights: this.store?.pairWeightsView() ?? NONE,
      keep: this.keepAnyway,
      minCell: this.minCell,
      maxCell: this.maxCell,
      ...(this.cells ? { cells: this.cells.copy() } : {}),
    };
  }

  walkValues(visit: (value: number, weight: number) => boolean): void {
    if (this.keepValues) this.values.walkRuns(visit);
  }

  /** @internal Folds a compatible state into this one (Chan et al.'s parallel formula for the moments). */
  mergeState(o: AccumulatorSnapshot): void {
    if (o.weighted !== this.weighted || o.countItems !== this.countItems || !sameNames(o.names, this.names) || (o.keep ?? false) !== this.keepAnyway) {
      throw new TypeError('merge: accumulators were created with different options');
    }
    packNumbers(o, SNAPSHOT_NUMBERS, 0);
    this.mergePacked(SNAPSHOT_NUMBERS, 0);
    if (o.cells && this.cells) this.cells.append(o.cells);
    if (o.unitValues.length > 0 || o.pairValues.length > 0) this.values.append(o.unitValues, o.pairValues, o.pairWeights);
  }

  /** @internal Takes the value buffers of a snapshot as this (empty) accumulator's own. */
  adopt(unit: Float64Array, pairV: Float64Array, pairW: Float64Array): void {
    if (unit.length > 0 || pairV.length > 0 || this.store !== null) this.values.adopt(unit, pairV, pairW);
  }

  snapshot(): AccumulatorSnapshot {
    const view = this.snapshotView();
    // The names array and empty value buffers are shared by the snapshots that have them (read-only): a
    // worker posts one partial per zone and block, and structuredClone writes a shared object once (a
    // fresh array each was a twentieth of a worker's time in bench/batch).
    const own = (a: Float64Array): Float64Array => (a.length === 0 ? NONE : a.slice());
    return { ...view, names: this.names as StatName[], unitValues: own(view.unitValues), pairValues: own(view.pairValues), pairWeights: own(view.pairWeights) };
  }

  result(context: ResultContext = {}): StatsResult {
    const { stats } = (this.plan ??= planOf(this.names));
    const state = this.state();
    const out: StatsResult = {};
    // A name no declaration spells (never one parseStatNames let through) answers null.
    for (const { name, stat } of stats) out[stat?.key ?? name] = stat === null ? null : stat.declaration.result(state, stat.args, context);
    return out;
  }

  resultKeys(): readonly string[] {
    return (this.plan ??= planOf(this.names)).keys;
  }

  resultNumbers(out: Float64Array, at: number, context: ResultContext = {}): boolean {
    const { stats, slots } = (this.plan ??= planOf(this.names));
    const state = this.state();
    for (let i = 0; i < stats.length; i++) {
      const { stat } = stats[i] as (typeof stats)[number];
      const v = stat === null ? null : stat.declaration.result(state, stat.args, context);
      if (typeof v === 'number') out[at + (slots[i] as number)] = Number.isFinite(v) ? (v === 0 ? 0 : v) : Number.NaN;
      else if (v === null) out[at + (slots[i] as number)] = Number.NaN;
      else return false;
    }
    return true;
  }

  /** The state the declarations read a result from. */
  private state(): ResultState {
    const { distinct } = (this.plan ??= planOf(this.names));
    const weight = this.wSum + this.wComp;
    const empty = this.items === 0;
    return (this.resultState ??= new ResultState(this, distinct)).take(
      empty,
      this.countItems ? this.items : empty ? 0 : weight,
      weight,
      this.vSum + this.vComp,
      this.m2,
      this.min,
      this.max,
      this.nodata + this.nodataComp,
      empty ? -1 : this.minCell,
      empty ? -1 : this.maxCell,
    );
  }

  /** @internal The kept values' store (made on first use), for a result's state. */
  frequencies(): Frequencies {
    return this.values;
  }

  /** @internal Whether values are kept. */
  keeps(): boolean {
    return this.keepValues;
  }

  /** @internal The counted cells in cell-id order, for a result's state. */
  cellsInOrder(): ReturnType<StatState['cells']> {
    return this.cells?.inOrder() ?? { ids: [], values: [], weights: [] };
  }
}

/** A snapshot's numbers as writePacked lays them out, for mergePacked (one array, written for each merge). */
const SNAPSHOT_NUMBERS = new Float64Array(PACKED_FIELDS);

const sameNames = (a: readonly StatName[], b: readonly StatName[]): boolean => a === b || (a.length === b.length && a.every((n, i) => n === b[i]));

/**
 * A fresh accumulator for `names` (validated by `parseStatNames`). Values are kept only when a statistic
 * needs them (`needsOf(names).values`). See {@link AccumulatorOptions} for the weighted and vector modes.
 */
export function createAccumulator(options: AccumulatorOptions): StatsAccumulator {
  return new Accumulator(options.names, options.weighted, options.countItems ?? false, options.capacityHint ?? 0, options.keepValues ?? false);
}

/**
 * Rebuilds an accumulator from a snapshot (e.g. one posted back by a worker thread). The accumulator takes
 * ownership of the snapshot's arrays (no copy; they are sorted in place later): do not reuse them.
 */
export function restoreAccumulator(snapshot: AccumulatorSnapshot): StatsAccumulator {
  const s = checked(snapshot);
  const acc = new Accumulator(s.names, s.weighted, s.countItems, 0, s.keep ?? false);
  acc.mergeState({ ...s, unitValues: EMPTY, pairValues: EMPTY, pairWeights: EMPTY });
  acc.adopt(s.unitValues, s.pairValues, s.pairWeights);
  return acc;
}

/** `acc.merge(restoreAccumulator(snapshot))` to the bit, without the accumulator in between (a cube merges ~1M). */
export function mergeSnapshot(acc: StatsAccumulator, snapshot: AccumulatorSnapshot): void {
  if (!(acc instanceof Accumulator)) throw new TypeError('mergeSnapshot: not an accumulator from createAccumulator');
  acc.mergeState(checked(snapshot));
}

function checked(s: AccumulatorSnapshot): AccumulatorSnapshot {
  const ok = s.version === 1 && s.unitValues instanceof Float64Array && s.pairValues instanceof Float64Array && s.pairWeights instanceof Float64Array;
  if (!ok || s.pairValues.length !== s.pairWeights.length) throw new TypeError('restoreAccumulator: not an accumulator snapshot');
  return s;
}

const EMPTY = new Float64Array(0);
/** The empty value buffer snapshots share (never written: an accumulator that adopts it grows a new one). */
const NONE = new Float64Array(0);

/** The buffers of a snapshot, for postMessage's transfer list: its non-empty arrays' (each owns its buffer). */
export function snapshotTransferables(snapshot: AccumulatorSnapshot): ArrayBuffer[] {
  return [snapshot.unitValues, snapshot.pairValues, snapshot.pairWeights].filter((a) => a.length > 0).map((a) => a.buffer as ArrayBuffer);
}
