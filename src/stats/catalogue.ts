/**
 * The statistics, each declared once: its name (or name template, `percentile_<q>`), the sources it applies
 * to, what the accumulator must track for it, how its answer is read from the accumulator's state, its
 * description and its place on the web page's form. Everything else reads this list: the request's parser
 * and needs (names.ts), the accumulator's result (accumulator.ts), the `stats` schema and the OpenAPI
 * document (schemas/common.ts), the page's checkboxes (web/src/stat-choices.ts). Adding a statistic is one
 * entry here and its test.
 *
 * A statistic with arguments declares them as `params` and reads them in `needs` and `result`: spelt as holes
 * of the name (`percentile_<q>`), or as exactextract spells an operation's arguments (`quantile(q=0.75)`, the
 * declaration's `call`). Any raster statistic may also be called with exactextract's weighting arguments
 * (`mean(coverage_weight=none)`, `count(min_coverage_frac=0.5)`, `sum(default_value=0)`): they say which cells
 * count and how much (WEIGHTING_ARGS), and the answer's key is the name without them (exactextract's column).
 *
 * Pure: the web page bundles it.
 */
import { weightedQuantile } from './weighted-quantile.ts';

export type SourceKind = 'raster' | 'vector';

/** The arguments of a statistic: the values of its template's holes (`percentile_<q>` → `{ q }`). */
export type Args = Readonly<Record<string, number | string>>;
type NoArgs = Readonly<Record<string, never>>;

/**
 * One parameter of a statistic. Today the holes of a name template; the same specs will check the named
 * arguments of exactextract's spelling (`quantile(q=0.75)`, `count(min_coverage_frac=0.5)`).
 */
interface NumberParam {
  readonly type: 'number';
  /** How a request spells the value: a regular expression's source without capturing groups. */
  readonly text: string;
  /** The inclusive range; outside it the name is unknown, as a misspelt one is. */
  readonly min: number;
  readonly max: number;
}
export type ParamSpec = NumberParam;

/**
 * Two weights this close (relative) are equal for majority, minority and mode: two cells that a zone covers
 * alike have coverage fractions that may differ by a few ulps, and a tie must not turn on them.
 */
export const TIE_REL = 1e-12;

/** Past this many distinct values the statistics that list them (`needs.distinct`) are refused (docs/contract.md §5). */
export const MAX_DISTINCT_VALUES = 10_000;
const MAX_DISTINCT_TEXT = MAX_DISTINCT_VALUES.toLocaleString('en-US');

/** What the accumulator tracks for a statistic. `count` and `nodata` are always tracked (one add each). */
export interface Needs {
  /** Running Σw and Σv·w. */
  readonly moments?: boolean;
  /** The centred second moment as well (Welford M2): about a third of an add, so only when read. */
  readonly spread?: boolean;
  /** Running min and max. */
  readonly minMax?: boolean;
  /** Every counted value kept, sorted once when the result is taken. */
  readonly values?: boolean;
  /** The answer lists the distinct values, so the MAX_DISTINCT_VALUES cap applies. */
  readonly distinct?: boolean;
  /** The q (0 to 100) of the quantiles it reads. */
  readonly quantiles?: readonly number[];
}

/** What one walk over the distinct kept values yields (majority / minority NaN when there are none). */
export interface Runs {
  majority: number;
  minority: number;
  unique: number[];
  hist: Record<string, number>;
}

/** The accumulator's state as a statistic reads it. Sums are already compensated. */
export interface StatState {
  /** Nothing counted. */
  readonly empty: boolean;
  /** Counted by the source's rule: features (vector), Σ weights (weighted raster) or cells; 0 when empty. */
  readonly count: number;
  /** Σ weights (cells when unweighted). */
  readonly weight: number;
  /** Σ value·weight (needs `moments`). */
  readonly sum: number;
  /** Σ weight·(value − mean)² (needs `spread`). */
  readonly m2: number;
  /** Smallest and largest counted value (±Infinity when empty). */
  readonly min: number;
  readonly max: number;
  /** Nodata cells counted (Σ weights when weighted). */
  readonly nodata: number;
  /** The q-th percentile (needs `values`): numpy's linear rule unweighted, the cumulative-weight rule weighted; null when empty. */
  quantile(q: number): number | null;
  /** The median rule (the mean of the two middle values for an even count); null when empty. */
  median(): number | null;
  /** The distinct values with their frequencies (needs `values`), walked once per result; null when empty. */
  runs(): Runs | null;
  /** Visits the distinct kept values in ascending order with their total weight (needs `values`). */
  walk(visit: (value: number, weight: number) => void): void;
}

/** What the accumulator cannot know. */
export interface ResultContext {
  /** Area of the AOI in m² (`density`); null when it has none. Required when `density` was asked. */
  readonly aoiAreaM2?: number | null;
}

/** One statistic's answer: a number, null for "nothing counted", a list (`unique`), an object (`freq_hist`). */
export type StatValue = number | null | number[] | Record<string, number>;

/** The groups of the page's form, in page order. */
export const FORM_GROUPS = [
  { id: 'summary', label: 'Summary' },
  { id: 'quantiles', label: 'Quantiles' },
  { id: 'distinct', label: 'Distinct values' },
] as const;
type FormGroup = (typeof FORM_GROUPS)[number]['id'];

/** A statistic on the page's form. */
interface FormEntry<A extends Args> {
  readonly group: FormGroup;
  /** The checkbox's text; the name by default (what the curl command and the table show). */
  readonly label?: string;
  /** Ticked when the page opens. */
  readonly checked?: boolean;
  /** For a template: the instances offered as checkboxes (others are typed in). */
  readonly offer?: readonly A[];
}

export interface StatDeclaration<A extends Args = Args> {
  /** The name a request asks for and the answer's key; a template names its holes: `percentile_<q>`. */
  readonly name: string;
  /** Each hole of the template (none for a plain name), or each argument of `call`. */
  readonly params?: { readonly [K in keyof A]: ParamSpec };
  /**
   * Spelt as exactextract spells an operation with arguments, `name(arg=value, …)`, every `params` entry
   * required; the answer's key is `key(args)` (exactextract's column name).
   */
  readonly call?: { readonly key: (args: A) => string };
  readonly appliesTo: readonly SourceKind[];
  readonly needs: Needs | ((args: A) => Needs);
  /** The answer, never NaN or ±Infinity (null instead; see `finite`). */
  readonly result: (state: StatState, args: A, context: ResultContext) => StatValue;
  /** One sentence for the schema, the OpenAPI document and the form's tooltip. */
  readonly description: string;
  readonly form: FormEntry<A>;
}

/** A declaration whose name's literal type is kept (for StatName) and whose arguments are erased (for the list). */
type Declared<N extends string> = StatDeclaration & { readonly name: N };

function statistic<const N extends string, A extends Args = NoArgs>(declaration: StatDeclaration<A> & { readonly name: N }): Declared<N> {
  // A's checks are done here, where the declaration is written; the list holds them all as StatDeclaration.
  return declaration as unknown as Declared<N>;
}

/** A finite number with -0 folded to 0, or null. */
function finite(x: number | null): number | null {
  return x !== null && Number.isFinite(x) ? x + 0 : null;
}

/** Digits, optionally a dot and more digits: `2.5` yes; `.5`, `1e1`, `5.` no. */
const DECIMAL = '\\d+(?:\\.\\d+)?';
/** A number as exactextract's arguments take one: `0.75`, `.5`, `-1`, `1e-3`. */
const NUMBER = '[+-]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][+-]?\\d+)?';

/** `percentile_<q>`; exported for the form's typed-in percentiles. */
export const PERCENTILE = statistic<'percentile_<q>', { readonly q: number }>({
  name: 'percentile_<q>',
  params: { q: { type: 'number', text: DECIMAL, min: 0, max: 100 } },
  appliesTo: ['raster', 'vector'],
  needs: ({ q }) => ({ values: true, quantiles: [q] }),
  result: (s, { q }) => finite(s.quantile(q)),
  description:
    "The q-th percentile, decimals allowed (percentile_2.5): numpy's linear interpolation, or the median's rule where weights apply; " +
    'percentile_50 equals median.',
  form: { group: 'quantiles', offer: [{ q: 10 }, { q: 90 }] },
});

/** `quantile(q=…)`, exactextract's operation (q from 0 to 1; its column `quantile_` + ⌊100·q⌋). */
const QUANTILE = statistic<'quantile', { readonly q: number }>({
  name: 'quantile',
  params: { q: { type: 'number', text: NUMBER, min: 0, max: 1 } },
  call: { key: ({ q }) => `quantile_${Math.trunc(q * 100)}` },
  appliesTo: ['raster'],
  needs: { values: true },
  result: (s, { q }) => {
    const xs: number[] = [];
    const ws: number[] = [];
    s.walk((x, w) => (xs.push(x), ws.push(w)));
    return finite(weightedQuantile(xs, ws, q));
  },
  description:
    "exactextract's quantile, as quantile(q=0.75) (q from 0 to 1; the key is quantile_75, quantile_ + ⌊100·q⌋): " +
    'interpolated over the distinct values weighted by their summed coverage, as exactextract computes it.',
  form: { group: 'quantiles', offer: [{ q: 0.25 }, { q: 0.75 }] },
});

/** Every statistic, in the contract's order (docs/contract.md §5). */
export const STATISTICS = [
  statistic({
    name: 'count',
    appliesTo: ['raster', 'vector'],
    needs: {},
    result: (s) => finite(s.count) ?? 0,
    description: 'Raster: valid pixels counted (with fractional pixel weights, the sum of the weights); vector: features counted.',
    form: { group: 'summary', checked: true },
  }),
  statistic({
    name: 'min',
    appliesTo: ['raster', 'vector'],
    needs: { minMax: true },
    result: (s) => (s.empty ? null : finite(s.min)),
    description: 'Smallest counted value (unweighted).',
    form: { group: 'summary', checked: true },
  }),
  statistic({
    name: 'max',
    appliesTo: ['raster', 'vector'],
    needs: { minMax: true },
    result: (s) => (s.empty ? null : finite(s.max)),
    description: 'Largest counted value (unweighted).',
    form: { group: 'summary', checked: true },
  }),
  statistic({
    name: 'mean',
    appliesTo: ['raster', 'vector'],
    needs: { moments: true },
    result: (s) => (s.empty ? null : finite(s.sum / s.weight)),
    description: 'Mean, weighted where weights apply.',
    form: { group: 'summary', checked: true },
  }),
  statistic({
    name: 'sum',
    appliesTo: ['raster', 'vector'],
    needs: { moments: true },
    result: (s) => (s.empty ? null : finite(s.sum)),
    description: 'Raster: sum of the values (× weights where weights apply); vector: the areal share Σ value × intersection area / feature area.',
    form: { group: 'summary' },
  }),
  statistic({
    name: 'std',
    appliesTo: ['raster', 'vector'],
    needs: { moments: true, spread: true },
    result: (s) => (s.empty ? null : finite(Math.sqrt(Math.max(s.m2, 0) / s.weight))),
    description: 'Population standard deviation (divided by the total weight, not n − 1), weighted where weights apply.',
    form: { group: 'summary', checked: true },
  }),
  statistic({
    name: 'median',
    appliesTo: ['raster', 'vector'],
    needs: { values: true, quantiles: [50] },
    result: (s) => finite(s.median()),
    description:
      'The middle value, the mean of the two middle values for an even count; ' +
      'where weights apply, the smallest value whose cumulative weight reaches half the total.',
    form: { group: 'quantiles', checked: true },
  }),
  PERCENTILE,
  statistic({
    name: 'range',
    appliesTo: ['raster', 'vector'],
    needs: { minMax: true },
    result: (s) => (s.empty ? null : finite(s.max - s.min)),
    description: 'max − min.',
    form: { group: 'summary' },
  }),
  statistic({
    name: 'majority',
    appliesTo: ['raster', 'vector'],
    needs: { values: true },
    result: (s) => finite(s.runs()?.majority ?? null),
    description: 'Most frequent value (weighted frequency where weights apply); ties go to the smallest value.',
    form: { group: 'distinct' },
  }),
  statistic({
    name: 'minority',
    appliesTo: ['raster', 'vector'],
    needs: { values: true },
    result: (s) => finite(s.runs()?.minority ?? null),
    description: 'Least frequent value (weighted frequency where weights apply); ties go to the smallest value.',
    form: { group: 'distinct' },
  }),
  statistic({
    name: 'unique',
    appliesTo: ['raster', 'vector'],
    needs: { values: true, distinct: true },
    result: (s) => s.runs()?.unique ?? [],
    description: `Sorted list of the distinct values (at most ${MAX_DISTINCT_TEXT}, else 422 too_many_unique_values).`,
    form: { group: 'distinct' },
  }),
  statistic({
    name: 'freq_hist',
    appliesTo: ['raster', 'vector'],
    needs: { values: true, distinct: true },
    result: (s) => s.runs()?.hist ?? {},
    description: `Object from each distinct value (as a string key) to its count, weighted where weights apply (at most ${MAX_DISTINCT_TEXT} values).`,
    form: { group: 'distinct' },
  }),
  statistic({
    name: 'nodata',
    appliesTo: ['raster'],
    needs: {},
    result: (s) => finite(s.nodata) ?? 0,
    description: 'Pixels inside the AOI that are nodata, NaN or masked (the sum of their weights with fractional pixel weights).',
    form: { group: 'summary' },
  }),
  statistic({
    name: 'density',
    appliesTo: ['vector'],
    needs: {},
    result: (s, _args, { aoiAreaM2: area }) => {
      if (area === undefined) throw new TypeError("result: 'density' needs context.aoiAreaM2");
      return area !== null && area > 0 ? finite(s.count / (area / 1e6)) : null;
    },
    description: 'Features counted per km² of the AOI; null when the AOI has no area.',
    form: { group: 'summary' },
  }),
  // exactextract's operations (python/doc/operations.rst), under its names and formulas.
  statistic({
    name: 'stdev',
    appliesTo: ['raster'],
    needs: { moments: true, spread: true },
    result: (s) => (s.empty ? null : finite(Math.sqrt(Math.max(s.m2, 0) / s.weight))),
    description: "exactextract's stdev: √(Σcᵢ(xᵢ − x̄)² / Σcᵢ), the population standard deviation with coverage (std's value).",
    form: { group: 'summary' },
  }),
  statistic({
    name: 'variance',
    appliesTo: ['raster'],
    needs: { moments: true, spread: true },
    result: (s) => (s.empty ? null : finite(Math.max(s.m2, 0) / s.weight)),
    description: 'Σcᵢ(xᵢ − x̄)² / Σcᵢ: the population variance with coverage.',
    form: { group: 'summary' },
  }),
  statistic({
    name: 'coefficient_of_variation',
    appliesTo: ['raster'],
    needs: { moments: true, spread: true },
    result: (s) => (s.empty ? null : finite(Math.sqrt(Math.max(s.m2, 0) / s.weight) / (s.sum / s.weight))),
    description: 'stdev / mean (null where the mean is 0).',
    form: { group: 'summary' },
  }),
  statistic({
    name: 'variety',
    appliesTo: ['raster'],
    needs: { values: true },
    result: (s) => {
      let n = 0;
      s.walk(() => n++);
      return n;
    },
    description: 'The number of distinct values.',
    form: { group: 'distinct' },
  }),
  statistic({
    name: 'mode',
    appliesTo: ['raster'],
    needs: { values: true },
    result: (s) => {
      let mode: number | null = null;
      let best = -Infinity;
      // Ascending walk, ties to the larger value (exactextract's mode; majority ties to the smaller).
      s.walk((v, w) => {
        if (best === -Infinity || w >= best - TIE_REL * Math.abs(best)) [best, mode] = [w, v];
      });
      return finite(mode);
    },
    description: "exactextract's mode: the value of the largest summed coverage, ties to the larger value (majority ties to the smaller).",
    form: { group: 'distinct' },
  }),
  statistic({
    name: 'frac',
    appliesTo: ['raster'],
    needs: { values: true, distinct: true },
    result: (s) => {
      const out: Record<string, number> = {};
      if (s.empty) return out;
      s.walk((v, w) => (out[String(v + 0)] = w / s.weight));
      return out;
    },
    description: `Object from each distinct value (as a string key) to the share of the covered cells it occupies, Σcᵢ of the value / Σcᵢ (at most ${MAX_DISTINCT_TEXT} values).`,
    form: { group: 'distinct' },
  }),
  QUANTILE,
] as const;

/** The names as declared (templates with their holes). */
type DeclaredName = (typeof STATISTICS)[number]['name'];
/** A template's holes read as numbers: `percentile_<q>` → `percentile_${number}`. */
type Spelled<T extends string> = T extends `${infer P}<${string}>${infer S}` ? `${P}${number}${Spelled<S>}` : T;
/** A statistic as a request names it and the answer keys it. */
export type StatName = Spelled<DeclaredName>;

/** The contract's default `stats` (docs/contract.md §2). */
export const DEFAULT_STATS: readonly StatName[] = ['min', 'max', 'mean', 'count'];

/**
 * Keys in every answer whatever was asked. Accepted in `stats` as no-ops (never answered twice, never refused),
 * but not statistics the accumulator computes.
 */
export const ALWAYS_PRESENT_NAMES = ['aoi_area', 'data_area'] as const;
