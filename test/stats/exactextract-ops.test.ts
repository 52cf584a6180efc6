/**
 * exactextract's operations (python/doc/operations.rst) as the accumulator answers them, on the example of
 * that page: values 1, 2, 3, 4 covered 0.5, 0, 1, 0.25 (the cell covered 0 is not added). Every expected
 * number is worked out here by hand from the page's formulas, and the quantile from exactextract's
 * src/weighted_quantiles.cpp (sₖ = (k − 1)·wₖ + (n − 1)·Σ_{i<k} wᵢ over the distinct values).
 */
import { describe, expect, it } from 'vitest';
import { ZonalError } from '../../src/errors.ts';
import { createAccumulator } from '../../src/stats/accumulator.ts';
import { resolveStat } from '../../src/stats/spelling.ts';
import { parseStatNames, type StatName } from '../../src/stats/names.ts';

function answer(names: string[], cells: [number, number][], weighted = true) {
  const acc = createAccumulator({ names: names as StatName[], weighted });
  for (const [v, c] of cells) acc.add(v, c);
  return acc.result();
}

function errorOf(fn: () => unknown): ZonalError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ZonalError) return e;
    throw e;
  }
  throw new Error('no error');
}

const EXAMPLE: [number, number][] = [
  [1, 0.5],
  [3, 1],
  [4, 0.25],
];

describe("exactextract's operations on its documentation's example", () => {
  const all = ['count', 'sum', 'mean', 'stdev', 'variance', 'coefficient_of_variation', 'variety', 'mode', 'majority', 'minority', 'frac'];
  const r = answer([...all, 'quantile(q=0.5)', 'quantile(q=0)', 'quantile(q=1)'], EXAMPLE);
  const mean = 4.5 / 1.75;
  const variance = (0.5 * (1 - mean) ** 2 + 1 * (3 - mean) ** 2 + 0.25 * (4 - mean) ** 2) / 1.75;

  it('count, sum, mean: Σcᵢ, Σxᵢcᵢ, their ratio', () => {
    expect(r['count']).toBe(1.75);
    expect(r['sum']).toBe(4.5);
    expect(r['mean']).toBeCloseTo(mean, 14);
  });

  it('variance, stdev, coefficient_of_variation: population, with coverage (the page: 1.10, 1.05, 0.41)', () => {
    expect(r['variance']).toBeCloseTo(variance, 13);
    expect(r['stdev']).toBeCloseTo(Math.sqrt(variance), 13);
    expect(r['coefficient_of_variation']).toBeCloseTo(Math.sqrt(variance) / mean, 13);
    expect([r['variance'], r['stdev'], r['coefficient_of_variation']].map((x) => Math.round((x as number) * 100) / 100)).toEqual([1.1, 1.05, 0.41]);
  });

  it('variety, mode, majority, minority, frac: by summed coverage', () => {
    expect(r['variety']).toBe(3);
    expect(r['mode']).toBe(3);
    expect(r['majority']).toBe(3);
    expect(r['minority']).toBe(4);
    expect(r['frac']).toEqual({ '1': 0.5 / 1.75, '3': 1 / 1.75, '4': 0.25 / 1.75 });
  });

  it('quantile over the distinct values weighted by coverage: q 0.5 → 2.75, and the ends', () => {
    // Distinct (1, 0.5), (3, 1), (4, 0.25): s = 0, 1·1 + 2·0.5 = 2, 2·0.25 + 2·1.5 = 3.5; q·(n − 1)·Σw = 1.75
    // lies between s₀ and s₁: 1 + 1.75·(3 − 1)/(2 − 0) = 2.75.
    expect(r['quantile_50']).toBe(2.75);
    expect(r['quantile_0']).toBe(1);
    expect(r['quantile_100']).toBe(4);
  });

  it("equal weights over distinct values: numpy's linear rule", () => {
    const cells: [number, number][] = [
      [1, 1],
      [2, 1],
      [3, 1],
      [4, 1],
    ];
    expect(answer(['quantile(q=0.25)', 'quantile(q=0.9)'], cells, false)).toEqual({ quantile_25: 1.75, quantile_90: 3.7 });
  });

  it('mode ties to the larger value, majority and minority to the smaller', () => {
    const tie = answer(
      ['mode', 'majority', 'minority'],
      [
        [1, 1],
        [2, 1],
      ],
    );
    expect(tie).toEqual({ mode: 2, majority: 1, minority: 1 });
  });

  it('an empty zone: count 0, variety 0, frac {}, the rest null', () => {
    expect(answer([...all, 'quantile(q=0.5)'], [])).toEqual({
      count: 0,
      sum: null,
      mean: null,
      stdev: null,
      variance: null,
      coefficient_of_variation: null,
      variety: 0,
      mode: null,
      majority: null,
      minority: null,
      frac: {},
      quantile_50: null,
    });
  });
});

describe("exactextract's spelling", () => {
  it('keys an operation as exactextract names its column', () => {
    expect(resolveStat('quantile(q=0.75)')?.key).toBe('quantile_75');
    expect(resolveStat('quantile(q=0.025)')?.key).toBe('quantile_2');
    expect(resolveStat('quantile( q = .5 )')?.key).toBe('quantile_50');
    // 0.29 × 100 is 28.999999999999996 in float64: exactextract's static_cast<int> gives 28, and so does this.
    expect(resolveStat('quantile(q=0.29)')?.key).toBe('quantile_28');
    expect(resolveStat('mean()')?.key).toBe('mean');
    expect(resolveStat('percentile_90()')?.key).toBe('percentile_90');
  });

  it.each([
    ['quantile', "'quantile' needs q: quantile(q=…) (q from 0 to 1)"],
    ['quantile()', "'quantile' needs q: quantile(q=…) (q from 0 to 1)"],
    ['quantile(q=2)', "'quantile(q=2)': q must be a number from 0 to 1"],
    ['quantile(q=x)', "'quantile(q=x)': q must be a number from 0 to 1"],
    [
      'quantile(q=0.5,foo=1)',
      "'quantile(q=0.5,foo=1)': quantile has no argument 'foo' (its arguments: q, coverage_weight, min_coverage_frac, default_value, default_weight)",
    ],
    [
      'quantile(0.5)',
      "'quantile(0.5)': an argument is written name=value (quantile's arguments: q, coverage_weight, min_coverage_frac, default_value, default_weight)",
    ],
    ['mean(q=0.5)', "'mean(q=0.5)': mean has no argument 'q' (its arguments: coverage_weight, min_coverage_frac, default_value, default_weight)"],
    ['avg(q=1)', "unknown statistic 'avg' in 'avg(q=1)'"],
  ])('%s is refused, saying why', (name, why) => {
    const e = errorOf(() => parseStatNames(['mean', name], 'raster'));
    expect(e.code).toBe('unknown_stat');
    expect(e.extras['errors']).toEqual([{ path: '/stats/1', message: why }]);
    expect(e.detail).toContain(`${why}.`);
  });

  it.each([
    [
      'mean(coverage_weight=area)',
      "'mean(coverage_weight=area)': coverage_weight must be one of fraction, none, area_cartesian, area_spherical_m2, area_spherical_km2",
    ],
    ['count(min_coverage_frac=1.5)', "'count(min_coverage_frac=1.5)': min_coverage_frac must be a number from 0 to 1"],
    ['sum(default_value=nan)', "'sum(default_value=nan)': default_value must be a finite number"],
    ['sum(default_value=0,default_value=1)', "'sum(default_value=0,default_value=1)' gives default_value twice"],
  ])('%s: a weighting argument out of its domain is refused, saying why', (name, why) => {
    expect(errorOf(() => parseStatNames([name], 'raster')).extras['errors']).toEqual([{ path: '/stats/0', message: why }]);
  });

  it('reads the weighting arguments of any raster statistic, and keys it without them', () => {
    expect(resolveStat('mean(coverage_weight=area_spherical_km2, min_coverage_frac=0.5)')).toMatchObject({
      key: 'mean',
      weighting: { coverage_weight: 'area_spherical_km2', min_coverage_frac: 0.5 },
    });
    expect(resolveStat('quantile(q=0.1,default_value=-1)')).toMatchObject({ key: 'quantile_10', args: { q: 0.1 }, weighting: { default_value: -1 } });
    expect(resolveStat('percentile_90(coverage_weight=none)')).toMatchObject({ key: 'percentile_90', args: { q: 90 }, weighting: { coverage_weight: 'none' } });
  });

  it('two operations that would give one key are a 422 naming both', () => {
    const e = errorOf(() => parseStatNames(['quantile(q=0.75)', 'mean', 'quantile(q=0.751)'], 'raster'));
    expect(e.code).toBe('validation_failed');
    expect(e.detail).toBe(
      "'quantile(q=0.75)' and 'quantile(q=0.751)' would both answer 'quantile_75': ask for one of each (an answer key names one statistic).",
    );
    expect(e.extras['errors']).toEqual([{ path: '/stats/2', message: "'quantile(q=0.75)' and 'quantile(q=0.751)' would both answer 'quantile_75'" }]);
    // The same name twice is answered once, as before.
    expect(parseStatNames(['quantile(q=0.75)', 'quantile(q=0.75)'], 'raster')).toEqual(['quantile(q=0.75)']);
  });

  it("exactextract's operations are raster statistics", () => {
    expect(errorOf(() => parseStatNames(['quantile(q=0.5)'], 'vector')).code).toBe('stat_not_applicable');
  });
});
