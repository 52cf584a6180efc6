/**
 * The statistic catalogue (CONTRACT §2, §5): which names exist, which source kind each applies to, and what
 * an accumulator must track to answer them. Pure.
 */
import { ZonalError } from '../errors.ts';

/** Every fixed statistic name, in the order the contract's table lists them. */
export const BASE_STAT_NAMES = [
  'count',
  'min',
  'max',
  'mean',
  'sum',
  'std',
  'median',
  'range',
  'majority',
  'minority',
  'unique',
  'freq_hist',
  'nodata',
  'density',
] as const;

export type BaseStatName = (typeof BASE_STAT_NAMES)[number];
/** `percentile_<q>` with q a decimal number in [0, 100], e.g. `percentile_90`, `percentile_2.5`. */
export type PercentileName = `percentile_${number}`;
export type StatName = BaseStatName | PercentileName;
export type SourceKind = 'raster' | 'vector';

/** The contract's default `stats` (CONTRACT §2). */
export const DEFAULT_STAT_NAMES: readonly StatName[] = ['min', 'max', 'mean', 'count'];

/**
 * Keys present in every response whatever was asked (CONTRACT §4). Accepted in `stats` as no-ops (they are
 * never returned twice and never rejected), but they are not statistics the accumulator computes.
 */
export const ALWAYS_PRESENT_NAMES = ['aoi_area', 'data_area'] as const;

/** Past this many distinct values `unique` and `freq_hist` are refused (CONTRACT §5). */
export const MAX_DISTINCT_VALUES = 10_000;

const NOT_APPLICABLE: Record<SourceKind, readonly BaseStatName[]> = {
  raster: ['density'],
  vector: ['nodata'],
};

const BASE_SET: ReadonlySet<string> = new Set(BASE_STAT_NAMES);
const ALWAYS_SET: ReadonlySet<string> = new Set(ALWAYS_PRESENT_NAMES);
/** Digits, optionally a dot and more digits: `percentile_2.5` yes; `percentile_.5`, `percentile_1e1` no. */
const PERCENTILE_RE = /^percentile_(\d+(?:\.\d+)?)$/;

/** The q of a `percentile_<q>` name, or null when `name` is not a valid percentile name (q outside [0, 100] included). */
export function percentileOf(name: string): number | null {
  const m = PERCENTILE_RE.exec(name);
  if (m === null) return null;
  const q = Number(m[1]);
  return q >= 0 && q <= 100 ? q : null;
}

/** True for a statistic name of either source kind (`aoi_area` / `data_area` are not statistic names). */
export function isStatName(name: string): name is StatName {
  return BASE_SET.has(name) || percentileOf(name) !== null;
}

/** The names valid for `kind`, as listed in error messages. */
export function validStatNames(kind: SourceKind): string[] {
  const excluded = NOT_APPLICABLE[kind];
  return [...BASE_STAT_NAMES.filter((n) => !excluded.includes(n)), 'percentile_<q> (q from 0 to 100)'];
}

/**
 * Validates and normalises the request's `stats` list (CONTRACT §2, §5).
 *
 * - Empty list → ZonalError `validation_failed`.
 * - Unknown names (including `percentile_<q>` with q not a plain decimal in [0, 100]) → ZonalError
 *   `unknown_stat`, whose detail lists the valid names for `kind`; every offending entry is reported in
 *   `extras.errors` with its JSON pointer (`/stats/<i>`).
 * - `density` on a raster or `nodata` on a vector → ZonalError `stat_not_applicable`.
 * - `aoi_area` and `data_area` are accepted and dropped: they are always in the response, so asking for them
 *   is a no-op. A list holding only those two is valid and yields `[]`.
 * - Duplicates are answered once, keeping the order of first appearance. Names are exact (case-sensitive);
 *   `percentile_5` and `percentile_05` are different keys of the response with the same value.
 */
export function parseStatNames(names: readonly string[], kind: SourceKind): StatName[] {
  if (names.length === 0) {
    throw new ZonalError('validation_failed', 'The list of statistics is empty; ask for at least one.', {
      errors: [{ path: '/stats', message: 'must contain at least 1 item' }],
    });
  }
  const unknown: { path: string; message: string; name: string }[] = [];
  const notApplicable: { path: string; message: string; name: string }[] = [];
  const out: StatName[] = [];
  const seen = new Set<string>();
  names.forEach((name, i) => {
    if (ALWAYS_SET.has(name)) return;
    if (!isStatName(name)) {
      unknown.push({ path: `/stats/${i}`, message: `unknown statistic '${name}'`, name });
      return;
    }
    if ((NOT_APPLICABLE[kind] as readonly string[]).includes(name)) {
      notApplicable.push({ path: `/stats/${i}`, message: `'${name}' does not apply to ${kind} sources`, name });
      return;
    }
    if (seen.has(name)) return;
    seen.add(name);
    out.push(name);
  });
  if (unknown.length > 0) {
    const list = unknown.map((u) => `'${u.name}'`).join(', ');
    throw new ZonalError('unknown_stat', `Unknown statistic ${list}; valid names are ${validStatNames(kind).join(', ')}.`, {
      errors: unknown.map(({ path, message }) => ({ path, message })),
    });
  }
  if (notApplicable.length > 0) {
    const list = notApplicable.map((u) => `'${u.name}'`).join(', ');
    throw new ZonalError('stat_not_applicable', `The statistic ${list} does not apply to ${kind} sources.`, {
      errors: notApplicable.map(({ path, message }) => ({ path, message })),
    });
  }
  return out;
}

/** What an accumulator must track to answer a list of statistics (ARCHITECTURE §2). */
export interface StatNeeds {
  /** Running moments (Σw, Σv·w): `mean`, `sum`, `std`. */
  readonly moments: boolean;
  /** The centred second moment as well (Welford M2): `std`. */
  readonly spread: boolean;
  /** Running min and max: `min`, `max`, `range`. */
  readonly minMax: boolean;
  /** Every counted value is kept and sorted once at the end: median, percentiles, majority, minority, unique, freq_hist. */
  readonly values: boolean;
  /** Distinct values are listed, so the 10,000-value cap applies: `unique`, `freq_hist`. */
  readonly distinct: boolean;
  /** The q of each requested `percentile_<q>` (and 50 for `median`), de-duplicated. */
  readonly percentiles: readonly number[];
}

/** The accumulator features `names` need. `count` and `nodata` are always tracked (they cost one add). */
export function needsOf(names: readonly StatName[]): StatNeeds {
  let moments = false;
  let spread = false;
  let minMax = false;
  let values = false;
  let distinct = false;
  const qs = new Set<number>();
  for (const name of names) {
    switch (name) {
      case 'std':
        spread = true;
        moments = true;
        break;
      case 'mean':
      case 'sum':
        moments = true;
        break;
      case 'min':
      case 'max':
      case 'range':
        minMax = true;
        break;
      case 'median':
        values = true;
        qs.add(50);
        break;
      case 'majority':
      case 'minority':
        values = true;
        break;
      case 'unique':
      case 'freq_hist':
        values = true;
        distinct = true;
        break;
      case 'count':
      case 'nodata':
      case 'density':
        break;
      default: {
        const q = percentileOf(name);
        if (q !== null) {
          values = true;
          qs.add(q);
        }
      }
    }
  }
  return { moments, spread, minMax, values, distinct, percentiles: [...qs] };
}
