/**
 * An accumulator's state as the statistic declarations read it (declaration.ts StatState): its numbers,
 * taken once, and its kept values and cells, read on demand. One object a result: a cube's answer takes ~1M
 * results, and six closures each were most of their garbage. Pure.
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

/** An accumulator's state as the declarations read it: its numbers, taken once, and its kept values and cells on demand. */
export class ResultState implements StatState {
  private memo: Runs | null | undefined;

  constructor(
    private readonly acc: StateSource,
    private readonly distinct: ResultPlan['distinct'],
    readonly empty: boolean,
    readonly count: number,
    readonly weight: number,
    readonly sum: number,
    readonly m2: number,
    readonly min: number,
    readonly max: number,
    readonly nodata: number,
    readonly minCell: number,
    readonly maxCell: number,
  ) {}

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
