/**
 * Pure: accumulator results + areas → the response object (CONTRACT §4): one key per band in the order
 * asked, the requested statistics, aoi_area and data_area always present, never NaN or Infinity.
 */
import type { StatsAccumulator } from '../stats/accumulator.ts';
import type { BandStats } from '../schemas/response.ts';

function clean(v: unknown): unknown {
  if (typeof v === 'number') return Number.isFinite(v) ? (Object.is(v, -0) ? 0 : v) : null;
  return v;
}

function finite(v: number): number {
  return Number.isFinite(v) ? v : 0;
}

export function bandStats(acc: StatsAccumulator, aoiAreaM2: number, dataAreaM2: number): BandStats {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(acc.result())) out[k] = clean(v);
  return { ...out, aoi_area: finite(aoiAreaM2), data_area: finite(dataAreaM2) };
}
