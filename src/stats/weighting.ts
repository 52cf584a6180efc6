/**
 * exactextract's weighting arguments (python/doc/operations.rst, "Operation arguments"): which cells a
 * statistic counts and with what weight cᵢ. A request gives defaults; an operation may give its own
 * (`mean(coverage_weight=none)`); operations with the same effective arguments share one accumulator, a
 * channel. Pure and import-free: the web page bundles it.
 */

const COVERAGE_WEIGHTS = ['fraction', 'none', 'area_cartesian', 'area_spherical_m2', 'area_spherical_km2'] as const;
export type CoverageWeight = (typeof COVERAGE_WEIGHTS)[number];

export interface Weighting {
  /** cᵢ: the covered fraction (1 for a cell the centre or all-touched rule selects), 1, or it × the cell's area. */
  readonly coverage: CoverageWeight;
  /** Cells covered less than this fraction are left out (0: every covered cell). */
  readonly minFrac: number;
  /** The value of a nodata cell instead of leaving it out (null: left out, counted as nodata). */
  readonly defaultValue: number | null;
  /** cᵢ is multiplied by the weighting raster's value wᵢ (exactextract's weighted_* operations). */
  readonly byWeights: boolean;
  /** With byWeights: the weight of a cell whose weight is nodata (null: the channel's answers are undefined). */
  readonly defaultWeight: number | null;
}

const DEFAULT_WEIGHTING: Weighting = { coverage: 'fraction', minFrac: 0, defaultValue: null, byWeights: false, defaultWeight: null };

/** The arguments as a request or an operation spells them. */
export interface WeightingArgs {
  readonly coverage_weight?: CoverageWeight;
  readonly min_coverage_frac?: number;
  readonly default_value?: number;
  readonly default_weight?: number;
}

export const WEIGHTING_ARG_NAMES = ['coverage_weight', 'min_coverage_frac', 'default_value', 'default_weight'] as const;

/** An argument's value as written in an operation, or why it is not one. */
export function weightingArg(name: (typeof WEIGHTING_ARG_NAMES)[number], text: string): number | string | { why: string } {
  if (name === 'coverage_weight') {
    return (COVERAGE_WEIGHTS as readonly string[]).includes(text) ? text : { why: `coverage_weight must be one of ${COVERAGE_WEIGHTS.join(', ')}` };
  }
  const value = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/.test(text) ? Number(text) : Number.NaN;
  if (name === 'min_coverage_frac') return value >= 0 && value <= 1 ? value : { why: 'min_coverage_frac must be a number from 0 to 1' };
  return Number.isFinite(value) ? value : { why: `${name} must be a finite number` };
}

/** The effective weighting of arguments over defaults; `byWeights` for a weighted_* operation. */
function weightingOf(args: WeightingArgs, defaults: WeightingArgs = {}, byWeights = false): Weighting {
  return {
    coverage: args.coverage_weight ?? defaults.coverage_weight ?? DEFAULT_WEIGHTING.coverage,
    minFrac: args.min_coverage_frac ?? defaults.min_coverage_frac ?? DEFAULT_WEIGHTING.minFrac,
    defaultValue: args.default_value ?? defaults.default_value ?? DEFAULT_WEIGHTING.defaultValue,
    byWeights,
    // Only a weighted channel reads it: the others are not split by it.
    defaultWeight: byWeights ? (args.default_weight ?? defaults.default_weight ?? null) : null,
  };
}

export function isDefaultWeighting(w: Weighting): boolean {
  return w.coverage === 'fraction' && w.minFrac === 0 && w.defaultValue === null && !w.byWeights;
}

/**
 * Whether a channel's accumulator sums weights (count = Σcᵢ): coverage fractions of a fractional zone, and
 * areas always; `none`, and fractions of cells a centre or all-touched rule selects, count cells.
 */
export function channelWeighted(w: Weighting, fractionalZone: boolean): boolean {
  if (w.byWeights) return true;
  if (w.coverage === 'none') return false;
  return w.coverage === 'fraction' ? fractionalZone : true;
}

/** Groups names by effective weighting; the first channel has the defaults (and holds every name that keeps them). */
export function channelsOf<N extends string>(
  names: readonly N[],
  argsOf: (name: N) => WeightingArgs & { byWeights?: boolean },
  defaults: WeightingArgs,
): { weighting: Weighting; names: N[] }[] {
  const main = { weighting: weightingOf({}, defaults), names: [] as N[] };
  const byKey = new Map<string, { weighting: Weighting; names: N[] }>([[JSON.stringify(main.weighting), main]]);
  for (const name of names) {
    const args = argsOf(name);
    const weighting = weightingOf(args, defaults, args.byWeights === true);
    const key = JSON.stringify(weighting);
    let channel = byKey.get(key);
    if (channel === undefined) byKey.set(key, (channel = { weighting, names: [] }));
    channel.names.push(name);
  }
  return [...byKey.values()];
}
