/**
 * What a statistic's declaration is (catalogue.ts lists them): its parameters, what the accumulator tracks for it,
 * the state its answer is read from, its place on the page's form. Pure and import-free: the page bundles it.
 */

export type SourceKind = 'raster' | 'vector';

/** The arguments of a statistic: the values of its template's holes (`percentile_<q>` → `{ q }`). */
export type Args = Readonly<Record<string, number | string>>;
export type NoArgs = Readonly<Record<string, never>>;

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
export const MAX_DISTINCT_TEXT = MAX_DISTINCT_VALUES.toLocaleString('en-US');

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
  /** Every counted cell kept with its id and weight (exactextract's per-cell operations). */
  readonly cells?: boolean;
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
  /** The counted cells in cell-id order: ids, values and weights cᵢ (needs `cells`); empty arrays when none. */
  cells(): { ids: ArrayLike<number>; values: ArrayLike<number>; weights: ArrayLike<number> };
  /** The cell of the smallest / largest value (the first in cell-id order among equals); −1 when empty or untracked. */
  readonly minCell: number;
  readonly maxCell: number;
}

/** What the accumulator cannot know. */
export interface ResultContext {
  /** Area of the AOI in m² (`density`); null when it has none. Required when `density` was asked. */
  readonly aoiAreaM2?: number | null;
  /** The centre of a cell of the raster's full grid, in its CRS (center_x, min_center_x, …). */
  readonly cellCenter?: (id: number) => [number, number];
}

/** One statistic's answer: a number, null for "nothing counted", a list (`unique`), an object (`freq_hist`). */
export type StatValue = number | null | number[] | Record<string, number>;

/** The groups of the page's form, in page order. */
export const FORM_GROUPS = [
  { id: 'summary', label: 'Summary' },
  { id: 'quantiles', label: 'Quantiles' },
  { id: 'distinct', label: 'Distinct values' },
  { id: 'weighted', label: 'Weighted (with weights)' },
  { id: 'cells', label: 'Per pixel' },
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
  /** An exactextract weighted_* operation: read from a channel whose cᵢ are multiplied by the weighting raster's wᵢ. */
  readonly byWeights?: boolean;
  readonly appliesTo: readonly SourceKind[];
  readonly needs: Needs | ((args: A) => Needs);
  /** The answer, never NaN or ±Infinity (null instead; see `finite`). */
  readonly result: (state: StatState, args: A, context: ResultContext) => StatValue;
  /** One sentence for the schema, the OpenAPI document and the form's tooltip. */
  readonly description: string;
  readonly form: FormEntry<A>;
}

/** A declaration whose name's literal type is kept (for StatName) and whose arguments are erased (for the list). */
export type Declared<N extends string> = StatDeclaration & { readonly name: N };

export function statistic<const N extends string, A extends Args = NoArgs>(declaration: StatDeclaration<A> & { readonly name: N }): Declared<N> {
  // A's checks are done here, where the declaration is written; the list holds them all as StatDeclaration.
  return declaration as unknown as Declared<N>;
}

/** A finite number with -0 folded to 0, or null. */
export function finite(x: number | null): number | null {
  return x !== null && Number.isFinite(x) ? x + 0 : null;
}

/** Digits, optionally a dot and more digits: `2.5` yes; `.5`, `1e1`, `5.` no. */
export const DECIMAL = '\\d+(?:\\.\\d+)?';
/** A number as exactextract's arguments take one: `0.75`, `.5`, `-1`, `1e-3`. */
export const NUMBER = '[+-]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][+-]?\\d+)?';
