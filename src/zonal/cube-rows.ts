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

/** The group's `band_<k>` answers (k = 1 … steps.length) of one zone, packed. */
export function packRows(statistics: StatsResponse, steps: readonly number[]): PackedRows {
  const first = Object.values(statistics)[0];
  const keys = first ? Object.keys(first) : [];
  const values = new Float64Array(steps.length * keys.length).fill(Number.NaN);
  let extra: (Record<string, unknown> | null)[] | null = null;
  const present = steps.map((step, b) => {
    const stats = statistics[`band_${b + 1}`];
    if (!stats) return -1;
    keys.forEach((key, k) => {
      const v = stats[key];
      if (typeof v === 'number') values[b * keys.length + k] = v;
      else if (v !== null && v !== undefined) {
        extra ??= steps.map(() => null);
        const row = (extra[b] ??= {});
        row[key] = v;
      }
    });
    return step;
  });
  return { keys, values, extra, steps: present };
}

/** The packed rows back as each step's statistics, in the group's order. */
export function* unpackRows(p: PackedRows): Generator<{ step: number; stats: BandStats }> {
  const { keys, values, extra } = p;
  for (let b = 0; b < p.steps.length; b++) {
    const step = p.steps[b] as number;
    if (step < 0) continue;
    const more = extra?.[b] ?? null;
    const stats: Record<string, unknown> = {};
    keys.forEach((key, k) => {
      const v = values[b * keys.length + k] as number;
      stats[key] = more !== null && key in more ? more[key] : v !== v ? null : v;
    });
    yield { step, stats: stats as BandStats };
  }
}
