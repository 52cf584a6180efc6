/**
 * exactextract's operations (python/doc/operations.rst), under its names and formulas, as declarations of the
 * catalogue. Pure: the page bundles it.
 */
import { MAX_DISTINCT_TEXT, NUMBER, TIE_REL, finite, statistic, type ResultContext, type StatState } from './declaration.ts';
import { weightedQuantile } from './weighted-quantile.ts';

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

/** A centre of the cells, or of one cell, in the raster's CRS; the context says where cells are. */
function centreOf(context: ResultContext, id: number, axis: 0 | 1): number | null {
  if (id < 0) return null;
  if (context.cellCenter === undefined) throw new TypeError('result: per-cell statistics need context.cellCenter');
  return finite(context.cellCenter(id)[axis]);
}

/** exactextract's per-cell operations: lists in its cell order (row by row on the raster's full grid). */
const PER_CELL = {
  appliesTo: ['raster'],
  needs: { cells: true },
  form: { group: 'cells' },
} as const;

/** Nothing weighs: no pixel, or every weight 0 (exactextract's 0 / 0: NaN). */
function weightless(s: StatState): boolean {
  return s.empty || !(s.weight > 1e-300);
}

/** weighted_*: the statistic read from a channel whose cᵢ are multiplied by the weighting raster's wᵢ. */
const BY_WEIGHTS = { appliesTo: ['raster'], byWeights: true, form: { group: 'weighted' } } as const;

/** exactextract's operations, in the catalogue's order. */
export const EXACTEXTRACT = [
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
  statistic({
    name: 'weighted_mean',
    ...BY_WEIGHTS,
    needs: { moments: true },
    result: (s) => (weightless(s) ? null : finite(s.sum / s.weight)),
    description: 'Σxᵢcᵢwᵢ / Σcᵢwᵢ, wᵢ from `weights` (null where a counted pixel has no weight and no default_weight).',
  }),
  statistic({
    name: 'weighted_sum',
    ...BY_WEIGHTS,
    needs: { moments: true },
    result: (s) => (s.empty ? null : finite(s.sum)),
    description: 'Σxᵢcᵢwᵢ, wᵢ from `weights`.',
  }),
  statistic({
    name: 'weighted_stdev',
    ...BY_WEIGHTS,
    needs: { moments: true, spread: true },
    result: (s) => (weightless(s) ? null : finite(Math.sqrt(Math.max(s.m2, 0) / s.weight))),
    description: 'stdev with cᵢwᵢ for cᵢ.',
  }),
  statistic({
    name: 'weighted_variance',
    ...BY_WEIGHTS,
    needs: { moments: true, spread: true },
    result: (s) => (weightless(s) ? null : finite(Math.max(s.m2, 0) / s.weight)),
    description: 'variance with cᵢwᵢ for cᵢ.',
  }),
  statistic({
    name: 'weighted_frac',
    ...BY_WEIGHTS,
    needs: { values: true, distinct: true },
    result: (s) => {
      const out: Record<string, number> = {};
      if (weightless(s)) return s.empty ? out : null;
      // A value whose pixels all weigh 0 carries the least double (fold-weighting.ts): its share is 0.
      s.walk((v, w) => (out[String(v + 0)] = w < 1e-300 ? 0 : w / s.weight));
      return out;
    },
    description: `Object from each distinct value to Σcᵢwᵢ of the value / Σcᵢwᵢ (at most ${MAX_DISTINCT_TEXT} values).`,
  }),
  statistic({
    name: 'weights',
    ...BY_WEIGHTS,
    form: { group: 'cells' },
    needs: { cells: true },
    result: (s) => Array.from(s.cells().weights),
    description: 'The weight wᵢ of each counted pixel (default_weight where it has none), in the same order as values.',
  }),
  statistic({
    name: 'values',
    ...PER_CELL,
    result: (s) => Array.from(s.cells().values),
    description: "The value of each counted pixel, in exactextract's cell order (row by row).",
  }),
  statistic({
    name: 'coverage',
    ...PER_CELL,
    result: (s) => Array.from(s.cells().weights),
    description: 'The cᵢ of each counted pixel (its covered fraction, or as coverage_weight says), in the same order.',
  }),
  statistic({
    name: 'cell_id',
    ...PER_CELL,
    result: (s) => Array.from(s.cells().ids),
    description: "Each counted pixel's 0-based index on the raster's full grid, row by row (row × width + column).",
  }),
  statistic({
    name: 'center_x',
    ...PER_CELL,
    result: (s, _a, context) => Array.from(s.cells().ids, (id) => centreOf(context, id, 0) as number),
    description: "Each counted pixel's centre x, in the raster's CRS.",
  }),
  statistic({
    name: 'center_y',
    ...PER_CELL,
    result: (s, _a, context) => Array.from(s.cells().ids, (id) => centreOf(context, id, 1) as number),
    description: "Each counted pixel's centre y, in the raster's CRS.",
  }),
  ...(
    [
      ['min_center_x', 'min', 0],
      ['min_center_y', 'min', 1],
      ['max_center_x', 'max', 0],
      ['max_center_y', 'max', 1],
    ] as const
  ).map(([name, end, axis]) =>
    statistic({
      name,
      appliesTo: ['raster'],
      needs: { minMax: true },
      result: (s, _a, context) => centreOf(context, end === 'min' ? s.minCell : s.maxCell, axis),
      description: `The ${axis === 0 ? 'x' : 'y'} of the centre of the pixel of the ${end === 'min' ? 'smallest' : 'largest'} value (the first row by row among equals), in the raster's CRS.`,
      form: { group: 'cells' },
    }),
  ),
] as const;
