/**
 * A request's `stats` list checked against the statistics declared in catalogue.ts: which names exist, which
 * source kind each applies to (docs/contract.md §2, §5), and what an accumulator must track to answer them.
 * Pure.
 */
import { ZonalError } from '../errors.ts';
import { ALWAYS_PRESENT_NAMES, MAX_DISTINCT_VALUES, PERCENTILE, type SourceKind, type StatName } from './catalogue.ts';
import { holesOf, listedName, needsOfStat, resolveStat, statisticsFor, whyNotStat, type ResolvedStat } from './spelling.ts';

export { MAX_DISTINCT_VALUES, type SourceKind, type StatName };

const ALWAYS_SET: ReadonlySet<string> = new Set(ALWAYS_PRESENT_NAMES);

/** The q of a `percentile_<q>` name, or null when `name` is not a valid percentile name (q outside [0, 100] included). */
export function percentileOf(name: string): number | null {
  const stat = resolveStat(name);
  return stat?.declaration === PERCENTILE ? (stat.args['q'] as number) : null;
}

/** True for a statistic name of either source kind (`aoi_area` / `data_area` are not statistic names). */
export function isStatName(name: string): name is StatName {
  return resolveStat(name) !== null;
}

/** The names valid for `kind`, as listed in error messages: the plain names, then the templates with their ranges. */
export function validStatNames(kind: SourceKind): string[] {
  const declared = statisticsFor(kind);
  const plain = declared.filter((d) => holesOf(d).length === 0);
  const templates = declared.filter((d) => holesOf(d).length > 0);
  return [...plain, ...templates].map(listedName);
}

/**
 * Validates and normalises the request's `stats` list (docs/contract.md §2, §5).
 *
 * - Empty list → ZonalError `validation_failed`.
 * - Unknown names (including `percentile_<q>` with q not a plain decimal in [0, 100]) → ZonalError
 *   `unknown_stat`, whose detail lists the valid names for `kind`; every offending entry is reported in
 *   `extras.errors` with its JSON pointer (`/stats/<i>`).
 * - A statistic that does not apply to `kind` (`density` on a raster, `nodata` on a vector) → ZonalError
 *   `stat_not_applicable`.
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
  /** Answer key → the first name that gives it (`quantile(q=0.75)` → quantile_75). */
  const keys = new Map<string, string>();
  const clashes: { path: string; message: string; name: string }[] = [];
  names.forEach((name, i) => {
    if (ALWAYS_SET.has(name)) return;
    const stat = resolveStat(name);
    if (stat === null) {
      unknown.push({ path: `/stats/${i}`, message: whyNotStat(name) ?? `unknown statistic '${name}'`, name });
      return;
    }
    if (!stat.declaration.appliesTo.includes(kind)) {
      notApplicable.push({ path: `/stats/${i}`, message: `'${name}' does not apply to ${kind} sources`, name });
      return;
    }
    if (seen.has(name)) return;
    seen.add(name);
    const other = keys.get(stat.key);
    if (other !== undefined) clashes.push({ path: `/stats/${i}`, message: `'${other}' and '${name}' would both answer '${stat.key}'`, name });
    keys.set(stat.key, name);
    out.push(name as StatName);
  });
  if (unknown.length > 0) {
    const list = unknown.map((u) => `'${u.name}'`).join(', ');
    // A known name with wrong arguments says what is wrong with them; otherwise the valid names are listed.
    const why = unknown.filter((u) => u.message !== `unknown statistic '${u.name}'`).map((u) => `${u.message}.`);
    throw new ZonalError(
      'unknown_stat',
      `Unknown statistic ${list}; ${why.length > 0 ? `${why.join(' ')} Valid` : 'valid'} names are ${validStatNames(kind).join(', ')}.`,
      {
        errors: unknown.map(({ path, message }) => ({ path, message })),
      },
    );
  }
  if (clashes.length > 0) {
    throw new ZonalError('validation_failed', `${clashes.map((c) => c.message).join('; ')}: ask for one of each (an answer key names one statistic).`, {
      errors: clashes.map(({ path, message }) => ({ path, message })),
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

/** What an accumulator must track to answer a list of statistics (the union of their declared needs). */
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
  /** The q of each quantile read (each requested `percentile_<q>`, and 50 for `median`), de-duplicated. */
  readonly percentiles: readonly number[];
  /** Every counted cell kept with its id: exactextract's per-cell operations. */
  readonly cells: boolean;
}

/** The accumulator features `names` need. `count` and `nodata` are always tracked (they cost one add). */
/**
 * `f(names)` worked out once per list of names (every accumulator asks, a cube's a million of them): by
 * the array itself (a task's accumulators share one), else by its names.
 */
function memo<T>(f: (names: readonly StatName[]) => T): (names: readonly StatName[]) => T {
  const byArray = new WeakMap<readonly StatName[], T>();
  const byKey = new Map<string, T>();
  return (names) => {
    let v = byArray.get(names);
    if (v !== undefined) return v;
    const key = names.join('\n');
    v = byKey.get(key);
    if (v === undefined) {
      if (byKey.size >= 256) byKey.clear();
      byKey.set(key, (v = f(names)));
    }
    byArray.set(names, v);
    return v;
  };
}

/** What `names` need. */
export const needsOf = memo(needsOfNames);

function needsOfNames(names: readonly StatName[]): StatNeeds {
  let moments = false;
  let spread = false;
  let minMax = false;
  let values = false;
  let distinct = false;
  let cells = false;
  const qs = new Set<number>();
  for (const name of names) {
    const stat = resolveStat(name);
    if (stat === null) continue;
    const needs = needsOfStat(stat);
    moments ||= needs.moments === true;
    spread ||= needs.spread === true;
    minMax ||= needs.minMax === true;
    values ||= needs.values === true;
    distinct ||= needs.distinct === true;
    cells ||= needs.cells === true;
    for (const q of needs.quantiles ?? []) qs.add(q);
  }
  return { moments, spread, minMax, values, distinct, percentiles: [...qs], cells };
}

/** How `result` answers `names`: each one's declaration, and the ones that list distinct values (named by the cap's error). */
export interface ResultPlan {
  readonly stats: readonly { readonly name: string; readonly stat: ResolvedStat | null }[];
  readonly distinct: readonly string[];
  /** The answer's keys in its order (a key asked twice once, where first asked), and each statistic's place among them. */
  readonly keys: readonly string[];
  readonly slots: readonly number[];
}

/** How `result` answers `names` (worked out once per list of names). */
export const planOf = memo((names): ResultPlan => {
  const stats = names.map((name) => ({ name, stat: resolveStat(name) }));
  const distinct = stats.flatMap(({ stat }) => (stat !== null && needsOfStat(stat).distinct === true ? [stat.key] : []));
  const keys: string[] = [];
  const slots = stats.map(({ name, stat }) => {
    const key = stat?.key ?? name;
    const at = keys.indexOf(key);
    return at >= 0 ? at : keys.push(key) - 1;
  });
  return { stats, distinct, keys, slots };
});
