/**
 * A zone's rows of one group of steps, held compactly until the zone's last group is in (a cube's answer
 * may be a million rows): the numbers of every step in one Float64Array (null as NaN: a statistic is never
 * NaN), the rare values that are not numbers (histograms, quantile lists, class maps) beside them.
 */
import type { BandStats, StatsResponse } from './model.ts';

export interface PackedRows {
  /** The answer's keys, in its order (the same for every step: one question). */
  keys: string[];
  /** Per step (row-major), per key: the number, NaN for null or for a value kept in `extra`. */
  values: Float64Array;
  /** Per step, the values that are not numbers or null, by key; null when there are none. */
  extra: (Record<string, unknown> | null)[] | null;
  /** Per step, its index among the request's steps; -1: the step had no answer. */
  steps: number[];
}

const bandKeys: string[] = [];
/** `band_<b + 1>`, made once. */
const bandKey = (b: number): string => (bandKeys[b] ??= `band_${b + 1}`);

/** The group's `band_<k>` answers (k = 1 … steps.length) of one zone, packed. */
export function packRows(statistics: StatsResponse, steps: readonly number[]): PackedRows {
  let keys: string[] = [];
  for (const band in statistics) {
    keys = Object.keys(statistics[band] as BandStats);
    break;
  }
  const n = keys.length;
  const values = new Float64Array(steps.length * n).fill(Number.NaN);
  let extra: (Record<string, unknown> | null)[] | null = null;
  const present = new Array<number>(steps.length);
  for (let b = 0; b < steps.length; b++) {
    const stats = statistics[bandKey(b)];
    present[b] = stats ? (steps[b] as number) : -1;
    if (!stats) continue;
    // Every band has the keys in one order (one question): walked in it, each found at its place.
    let k = 0;
    for (const key in stats) {
      const at = key === keys[k] ? k : keys.indexOf(key);
      k++;
      if (at < 0) continue;
      const v = stats[key];
      if (typeof v === 'number') values[b * n + at] = v;
      else if (v !== null && v !== undefined) {
        extra ??= steps.map(() => null);
        (extra[b] ??= {})[key] = v;
      }
    }
  }
  return { keys, values, extra, steps: present };
}

/** A zone's rows of every group, in step order: one table (groups hold consecutive chunks, but with two iterated dimensions their steps interleave). */
export function joinRows(packed: readonly PackedRows[]): {
  names: string[];
  values: Float64Array;
  extra: (Record<string, unknown> | null)[] | null;
  steps: Int32Array;
} {
  const names = packed.find((p) => p.keys.length > 0)?.keys ?? [];
  const at: { p: number; b: number; step: number }[] = [];
  let ordered = true;
  packed.forEach((p, i) =>
    p.steps.forEach((step, b) => {
      if (step < 0) return;
      if (at.length > 0 && step <= (at[at.length - 1] as { step: number }).step) ordered = false;
      at.push({ p: i, b, step });
    }),
  );
  if (!ordered) at.sort((x, y) => x.step - y.step);
  const n = names.length;
  const values = new Float64Array(at.length * n);
  const steps = new Int32Array(at.length);
  let extra: (Record<string, unknown> | null)[] | null = null;
  // Each group's column of each name (one question: the same keys, in the same order, unless a group had none).
  const columns = packed.map((p) => (p.keys.join() === names.join() ? null : names.map((name) => p.keys.indexOf(name))));
  at.forEach(({ p, b, step }, row) => {
    const group = packed[p] as PackedRows;
    const width = group.keys.length;
    const cols = columns[p];
    for (let k = 0; k < n; k++) {
      const c = cols === null || cols === undefined ? k : (cols[k] as number);
      values[row * n + k] = c < 0 ? Number.NaN : (group.values[b * width + c] as number);
    }
    const more = group.extra?.[b] ?? null;
    if (more !== null) (extra ??= at.map(() => null))[row] = more;
    steps[row] = step;
  });
  return { names, values, extra, steps };
}
