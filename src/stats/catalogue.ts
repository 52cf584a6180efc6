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
import { DECIMAL, MAX_DISTINCT_TEXT, finite, statistic } from './declaration.ts';
import { EXACTEXTRACT } from './exactextract.ts';

export {
  FORM_GROUPS,
  MAX_DISTINCT_VALUES,
  TIE_REL,
  type Args,
  type Needs,
  type ParamSpec,
  type ResultContext,
  type Runs,
  type SourceKind,
  type StatDeclaration,
  type StatState,
  type StatValue,
} from './declaration.ts';

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
  ...EXACTEXTRACT,
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
