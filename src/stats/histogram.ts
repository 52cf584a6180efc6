/**
 * Histograms and per-class tallies from an accumulator's kept values (issue 11), pure.
 *
 * A histogram follows numpy.histogram: `bins` is a count of equal-width bins over `range` (default the
 * data's min and max; a single value v spans v − 0.5 … v + 0.5; no data 0 … 1; edges as numpy.linspace
 * computes them) or the edges themselves, ascending; every bin is half-open [a, b) but the last, which is
 * closed; values outside the edges are not counted. Counts are sums of weights (pixel counts unless the
 * fractional rule weights them).
 */
import { ZonalError } from '../errors.ts';
import { MAX_DISTINCT_VALUES } from './names.ts';
import type { StatsAccumulator } from './accumulator.ts';

export interface HistogramSpec {
  bins: number | number[];
  range?: [number, number];
}

export interface Histogram {
  edges: number[];
  counts: number[];
}

/** numpy.linspace(lo, hi, n + 1): i × step + lo, the last edge exactly hi. */
function linspace(lo: number, hi: number, n: number): number[] {
  const step = (hi - lo) / n;
  const edges = Array.from({ length: n + 1 }, (_, i) => i * step + lo);
  edges[n] = hi;
  return edges;
}

/** The edges for `spec` over data spanning [min, max] (empty: min > max). */
function histogramEdges(spec: HistogramSpec, min: number, max: number): number[] {
  if (Array.isArray(spec.bins)) return spec.bins;
  let [lo, hi] = spec.range ?? (min <= max ? [min, max] : [0, 1]);
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) {
    throw new ZonalError('validation_failed', 'The values span an infinite range: give the histogram a "range" [low, high].');
  }
  if (lo === hi) {
    lo -= 0.5;
    hi += 0.5;
  }
  return linspace(lo, hi, spec.bins);
}

/** The weighted histogram of the accumulator's kept values. */
export function histogramOf(spec: HistogramSpec, acc: StatsAccumulator): Histogram {
  let min = Infinity;
  let max = -Infinity;
  if (!Array.isArray(spec.bins) && spec.range === undefined) {
    acc.walkValues((v) => {
      if (v < min) min = v;
      max = v;
      return true;
    });
  }
  const edges = histogramEdges(spec, min, max);
  const n = edges.length - 1;
  const counts = new Array<number>(n).fill(0);
  const last = edges[n] as number;
  let bin = 0;
  acc.walkValues((v, w) => {
    if (v < (edges[0] as number) || v > last) return v < last;
    // Ascending values: move right while v is at or past the bin's right edge (the last bin is closed).
    while (bin < n - 1 && v >= (edges[bin + 1] as number)) bin++;
    counts[bin] = (counts[bin] as number) + w;
    return true;
  });
  return { edges, counts };
}

export interface ClassTally {
  count: number;
  fraction: number;
  area_m2: number;
  name?: string;
}

/**
 * Per distinct value (class): its count (Σ weights), its fraction of all counted pixels, and its ground area
 * (`areas`: class → Σ weight × pixel area, from the fold), named from `names` when given. Past
 * MAX_DISTINCT_VALUES classes, 422 too_many_unique_values.
 */
export function classesOf(acc: StatsAccumulator, areas: ReadonlyMap<number, number>, names?: ReadonlyMap<number, string>): Record<string, ClassTally> {
  const tallies: [number, number][] = [];
  let total = 0;
  acc.walkValues((v, w) => {
    if (tallies.length >= MAX_DISTINCT_VALUES) {
      throw new ZonalError(
        'too_many_unique_values',
        `Categorical statistics stop at ${MAX_DISTINCT_VALUES.toLocaleString('en-US')} distinct classes and this AOI has more: is the band really a classification?`,
        { limit: MAX_DISTINCT_VALUES },
      );
    }
    tallies.push([v + 0, w]);
    total += w;
    return true;
  });
  const out: Record<string, ClassTally> = {};
  for (const [v, w] of tallies) {
    const name = names?.get(v);
    out[String(v)] = { count: w, fraction: total > 0 ? w / total : 0, area_m2: areas.get(v) ?? 0, ...(name !== undefined ? { name } : {}) };
  }
  return out;
}

/** The request's histogram, checked in the user's words (the schema checks the types). */
export function parseHistogramSpec(h: { bins: number | number[]; range?: [number, number] } | undefined): HistogramSpec | null {
  if (h === undefined) return null;
  const fail = (detail: string): ZonalError => new ZonalError('validation_failed', detail, { errors: [{ path: '/histogram', message: detail }] });
  if (Array.isArray(h.bins)) {
    if (h.range !== undefined) throw fail('Give the histogram either bin edges or a number of bins with a "range", not both.');
    for (let i = 1; i < h.bins.length; i++)
      if (!((h.bins[i] as number) > (h.bins[i - 1] as number))) throw fail("The histogram's bin edges must increase strictly.");
    return { bins: h.bins };
  }
  if (h.range !== undefined && !(h.range[0] < h.range[1])) throw fail('The histogram\'s "range" must be [low, high] with low below high.');
  return h.range === undefined ? { bins: h.bins } : { bins: h.bins, range: h.range };
}
