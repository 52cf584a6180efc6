/**
 * exactextract's operations (python/doc/operations.rst), under its names and formulas, as declarations of the
 * catalogue. Pure: the page bundles it.
 */
import { MAX_DISTINCT_TEXT, NUMBER, TIE_REL, finite, statistic } from './declaration.ts';
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
] as const;
