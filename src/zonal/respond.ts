/**
 * Pure: accumulator results + areas → the response object (contract §4): one key per band in the order
 * asked, the requested statistics, aoi_area and data_area always present, never NaN or Infinity.
 */
import type { ResultContext, StatsAccumulator } from '../stats/accumulator.ts';
import type { BandStats } from './model.ts';

function clean(v: unknown): unknown {
  if (typeof v === 'number') return Number.isFinite(v) ? (Object.is(v, -0) ? 0 : v) : null;
  return v;
}

function finite(v: number): number {
  return Number.isFinite(v) ? v : 0;
}

/**
 * One band's or column's statistics. `context` is what density needs (vector); `replace` sets statistics
 * the accumulator cannot compute (vector `sum`, an areal share), when they were asked for.
 */
export function bandStats(
  acc: StatsAccumulator,
  aoiAreaM2: number,
  dataAreaM2: number,
  options: { context?: ResultContext; replace?: Record<string, number | null> } = {},
): BandStats {
  // The result object itself, cleaned in place (a copy a band was garbage).
  const out: Record<string, unknown> = acc.result(options.context);
  const { replace } = options;
  for (const k in out) out[k] = clean(replace && k in replace ? replace[k] : out[k]);
  out['aoi_area'] = finite(aoiAreaM2);
  out['data_area'] = finite(dataAreaM2);
  return out as BandStats;
}

/** The keys bandStats answers for `acc`: its statistics', then aoi_area and data_area (bandNumbers' order). */
export function bandNames(acc: StatsAccumulator): string[] {
  return [...acc.resultKeys(), 'aoi_area', 'data_area'];
}

/**
 * bandStats' numbers at `out[at + i]` for the i-th of bandNames (null as NaN), without an object: false when a
 * statistic is not a number (take bandStats then).
 */
export function bandNumbers(acc: StatsAccumulator, aoiAreaM2: number, dataAreaM2: number, out: Float64Array, at: number, context?: ResultContext): boolean {
  if (!acc.resultNumbers(out, at, context)) return false;
  const n = acc.resultKeys().length;
  out[at + n] = finite(aoiAreaM2);
  out[at + n + 1] = finite(dataAreaM2);
  return true;
}
