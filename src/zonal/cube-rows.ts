/**
 * A zone's rows, held compactly until its last group of steps is in (a cube's answer may be a million rows):
 * one Float64Array a zone, row i holding step i's numbers (steps are in axis order, so rows need no sorting;
 * null as NaN: a statistic is never NaN), written as each group comes in; the rare values that are not
 * numbers (histograms, quantile lists, class maps) beside them. One allocation a zone: small arrays a zone and
 * group were garbage the heap held in proportion to the steps.
 */
import type { BandStats, StatsResponse } from './model.ts';
import type { ResultContext, StatsAccumulator } from '../stats/accumulator.ts';
import { bandNames, bandNumbers, bandStats } from './respond.ts';

export interface ZoneTable {
  /** The answer's keys, in its order (the same for every step: one question); empty until a group has some. */
  names: string[];
  /** Per step (row-major), per name: the number, NaN for null or for a value kept in `extra`. */
  values: Float64Array;
  /** Per step: 1 when it has an answer. */
  present: Uint8Array;
  /** By step, the values that are not numbers or null, by name. */
  extra: Map<number, Record<string, unknown>> | null;
}

const bandKeys: string[] = [];
/** `band_<b + 1>`, made once. */
const bandKey = (b: number): string => (bandKeys[b] ??= `band_${b + 1}`);

/**
 * Writes one step's answer (row `row` of `total`) into a zone's table, made on the first step that has
 * statistics (its keys are the table's names: every step has them in one order, one question).
 */
export function writeStep(table: ZoneTable | undefined, stats: BandStats, row: number, total: number): ZoneTable | undefined {
  let t = table;
  if (t === undefined || t.names.length === 0) {
    const names = Object.keys(stats);
    if (names.length === 0 && t !== undefined) return t;
    t = newTable(names, total, t?.present, t?.extra);
  }
  const { names, values, present } = t;
  const n = names.length;
  present[row] = 1;
  // Walked in the names' order, each key found at its place (indexOf only for a key out of place).
  let k = 0;
  for (const key in stats) {
    const at = key === names[k] ? k : names.indexOf(key);
    k++;
    if (at < 0) continue;
    const v = stats[key];
    if (typeof v === 'number') values[row * n + at] = v;
    else if (v !== null && v !== undefined) {
      t.extra ??= new Map();
      const more = t.extra.get(row) ?? {};
      more[key] = v;
      t.extra.set(row, more);
    }
  }
  return t;
}

/**
 * Writes one step's plain answer (row `row` of `total`) into a zone's table from its accumulator and areas:
 * bandStats' numbers without its object (bandNumbers), or its object where a value is not a number.
 */
export function writeBand(
  table: ZoneTable | undefined,
  row: number,
  total: number,
  acc: StatsAccumulator,
  aoiAreaM2: number,
  dataAreaM2: number,
  context: ResultContext,
): ZoneTable {
  // A table that has a value other than a number takes the objects from then on.
  if (table?.extra != null || (table !== undefined && table.names.length === 0)) {
    return writeStep(table, bandStats(acc, aoiAreaM2, dataAreaM2, { context }), row, total) as ZoneTable;
  }
  const t = table ?? newTable(bandNames(acc), total);
  t.present[row] = 1;
  if (bandNumbers(acc, aoiAreaM2, dataAreaM2, t.values, row * t.names.length, context)) return t;
  return writeStep(t, bandStats(acc, aoiAreaM2, dataAreaM2, { context }), row, total) as ZoneTable;
}

function newTable(names: string[], total: number, present: Uint8Array = new Uint8Array(total), extra: ZoneTable['extra'] = null): ZoneTable {
  return { names, values: new Float64Array(total * names.length).fill(Number.NaN), present, extra };
}

/**
 * Writes a group's `band_<k>` answers (k = 1 … steps.length, band k being step `steps[k − 1]` of `total`) of
 * one zone into its table.
 */
export function writeGroup(table: ZoneTable | undefined, statistics: StatsResponse, steps: readonly number[], total: number): ZoneTable | undefined {
  let t = table;
  for (let b = 0; b < steps.length; b++) {
    const stats = statistics[bandKey(b)];
    if (stats) t = writeStep(t, stats, steps[b] as number, total);
  }
  return t;
}

/** The table's rows that have an answer, in step order: the numbers, the other values, each row's step. */
export function rowsOfTable(t: ZoneTable | undefined): {
  names: string[];
  values: Float64Array;
  extra: (Record<string, unknown> | null)[] | null;
  steps: Int32Array;
} {
  if (t === undefined) return { names: [], values: new Float64Array(0), extra: null, steps: new Int32Array(0) };
  const { names, present } = t;
  const n = names.length;
  let count = 0;
  for (let i = 0; i < present.length; i++) count += present[i] as number;
  const steps = new Int32Array(count);
  // Every step answered (the usual case): the table as it is; else the answered rows moved up.
  const values = count === present.length ? t.values : new Float64Array(count * n);
  let row = 0;
  for (let i = 0; i < present.length; i++) {
    if (present[i] === 0) continue;
    if (values !== t.values) values.set(t.values.subarray(i * n, (i + 1) * n), row * n);
    steps[row++] = i;
  }
  const extra = t.extra === null ? null : Array.from(steps, (s) => t.extra?.get(s) ?? null);
  return { names, values, extra, steps };
}
