/**
 * Which Items a zone takes, by time (issue 11), pure: `all` (every Item), `asof` (the latest on or before
 * the zone's date), `nearest` (the closest; a tie goes to the earlier), `window` (within ± days).
 */
export type TimeRule = 'all' | 'asof' | 'nearest' | 'window';

/** Milliseconds of an ISO 8601 date or date-time (a date alone is midnight UTC), or null. */
export function parseInstant(text: unknown): number | null {
  if (typeof text !== 'string' || !/^\d{4}-\d{2}-\d{2}([Tt ][\d:.]+([Zz]|[+-]\d{2}:?\d{2})?)?$/.test(text.trim())) return null;
  const t = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(text.trim()) ? `${text.trim()}T00:00:00Z` : text.trim());
  return Number.isFinite(t) ? t : null;
}

/**
 * Indexes (into `times`, ascending) of the Items a zone of date `date` (ms; null: none) takes. The rules
 * other than `all` need a date: the caller reports a zone without one.
 */
export function pickItems(times: readonly number[], rule: TimeRule, date: number | null, windowDays = 0): number[] {
  const all = times.map((_, i) => i);
  if (rule === 'all') return all;
  if (date === null) return [];
  switch (rule) {
    case 'asof': {
      let best = -1;
      times.forEach((t, i) => {
        if (t <= date) best = i;
      });
      return best < 0 ? [] : [best];
    }
    case 'nearest': {
      let best = -1;
      times.forEach((t, i) => {
        // Strictly closer only: on a tie the earlier Item (first in ascending order) stays.
        if (best < 0 || Math.abs(t - date) < Math.abs((times[best] as number) - date)) best = i;
      });
      return best < 0 ? [] : [best];
    }
    case 'window': {
      const span = windowDays * 86_400_000;
      return all.filter((i) => Math.abs((times[i] as number) - date) <= span);
    }
  }
}
