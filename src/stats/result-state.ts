/**
 * An accumulator's state as the statistic declarations read it (declaration.ts StatState): its numbers,
 * taken for each result, and its kept values and cells, read on demand. Pure.
 */
import type { ResultPlan } from './names.ts';
import type { Frequencies } from './frequencies.ts';
import type { Runs, StatState } from './catalogue.ts';

/** What a state reads of its accumulator beyond the numbers. */
export interface StateSource {
  readonly weighted: boolean;
  /** The kept values' store (made on first use). */
  frequencies(): Frequencies;
  /** Whether values are kept. */
  keeps(): boolean;
  /** The counted cells in cell-id order. */
  cellsInOrder(): ReturnType<StatState['cells']>;
}

/**
 * An accumulator's state as the declarations read it: its numbers, taken for each result (`take`), and its kept
 * values and cells on demand. One object an accumulator, filled again for each result: a cube's answer takes
 * ~1M results, and an object each was ~130 MB of the main thread's garbage (a result never keeps its state).
 */
export class ResultState implements StatState {
  private memo: Runs | null | undefined;
  empty = true;
  count = 0;
  weight = 0;
  sum = 0;
  m2 = 0;
  min = 0;
  max = 0;
  nodata = 0;
  minCell = -1;
  maxCell = -1;

  constructor(
    private readonly acc: StateSource,
    private readonly distinct: ResultPlan['distinct'],
  ) {}

  /** The accumulator's numbers now (the runs of kept values are then read again on demand). */
  take(
    empty: boolean,
    count: number,
    weight: number,
    sum: number,
    m2: number,
    min: number,
    max: number,
    nodata: number,
    minCell: number,
    maxCell: number,
  ): this {
    this.memo = undefined;
    this.empty = empty;
    this.count = count;
    this.weight = weight;
    this.sum = sum;
    this.m2 = m2;
    this.min = min;
    this.max = max;
    this.nodata = nodata;
    this.minCell = minCell;
    this.maxCell = maxCell;
    return this;
  }

  quantile(q: number): number | null {
    return this.empty ? null : this.acc.frequencies().quantile(q, false, this.acc.weighted);
  }

  median(): number | null {
    return this.empty ? null : this.acc.frequencies().quantile(50, true, this.acc.weighted);
  }

  runs(): Runs | null {
    return (this.memo ??= this.empty || !this.acc.keeps() ? null : this.acc.frequencies().runs(this.distinct));
  }

  cells(): ReturnType<StatState['cells']> {
    return this.acc.cellsInOrder();
  }

  walk(visit: (value: number, weight: number) => void): void {
    if (this.empty || !this.acc.keeps()) return;
    this.acc.frequencies().walkRuns((v, w) => {
      visit(v, w);
      return true;
    });
  }
}
