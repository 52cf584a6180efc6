import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ZonalError } from '../../src/errors.ts';
import { createAccumulator, restoreAccumulator, snapshotTransferables, type StatsAccumulator, type StatsResult } from '../../src/stats/accumulator.ts';
import type { StatName } from '../../src/stats/names.ts';

const ALL_RASTER: StatName[] = [
  'count',
  'min',
  'max',
  'mean',
  'sum',
  'std',
  'median',
  'percentile_25',
  'percentile_90',
  'range',
  'majority',
  'minority',
  'unique',
  'freq_hist',
  'nodata',
];

function fill(names: readonly StatName[], values: readonly number[], weights?: readonly number[], weighted = weights !== undefined): StatsAccumulator {
  const acc = createAccumulator({ names, weighted });
  values.forEach((v, i) => acc.add(v, weights ? (weights[i] as number) : 1));
  return acc;
}

function statsOf(names: readonly StatName[], values: readonly number[], weights?: readonly number[]): StatsResult {
  return fill(names, values, weights).result();
}

describe('unweighted statistics, by hand', () => {
  // values 1, 2, 2, 3, 10 (sorted already), n = 5
  const r = statsOf(ALL_RASTER, [3, 1, 10, 2, 2]);
  it('count, sum, mean, min, max, range', () => {
    expect(r['count']).toBe(5);
    expect(r['sum']).toBe(18); // 1 + 2 + 2 + 3 + 10
    expect(r['mean']).toBe(3.6); // 18 / 5
    expect(r['min']).toBe(1);
    expect(r['max']).toBe(10);
    expect(r['range']).toBe(9); // 10 − 1
  });
  it('std is the population deviation', () => {
    // deviations from 3.6: −2.6, −1.6, −1.6, −0.6, 6.4 → squares 6.76 + 2.56 + 2.56 + 0.36 + 40.96 = 53.2; / 5 = 10.64
    expect(r['std']).toBeCloseTo(Math.sqrt(10.64), 14);
  });
  it('median and percentiles (numpy linear: rank q/100 · (n − 1))', () => {
    expect(r['median']).toBe(2); // middle of 1, 2, [2], 3, 10
    expect(r['percentile_25']).toBe(2); // rank 1
    expect(r['percentile_90']).toBeCloseTo(7.2, 14); // rank 3.6: 3 + 0.6 · (10 − 3)
  });
  it('majority, minority (ties to the smallest), unique, freq_hist', () => {
    expect(r['majority']).toBe(2); // 2 occurs twice
    expect(r['minority']).toBe(1); // 1, 3 and 10 occur once: smallest
    expect(r['unique']).toEqual([1, 2, 3, 10]);
    expect(r['freq_hist']).toEqual({ '1': 1, '2': 2, '3': 1, '10': 1 });
  });
  it('nodata counts cells, not values', () => {
    expect(r['nodata']).toBe(0);
    const acc = fill(['count', 'nodata'], [4]);
    acc.addNodata(1);
    acc.addNodata(0.3); // unweighted: still one cell
    expect(acc.result()).toEqual({ count: 1, nodata: 2 });
  });
  it('even count: median is the mean of the two middle values, and percentile_50 agrees', () => {
    const e = statsOf(['median', 'percentile_50', 'percentile_25', 'percentile_0', 'percentile_100'], [4, 1, 3, 2]);
    // sorted 1, 2, 3, 4
    expect(e).toEqual({ median: 2.5, percentile_50: 2.5, percentile_25: 1.75, percentile_0: 1, percentile_100: 4 });
  });
  it('returns exactly the names asked, in order', () => {
    const s = statsOf(['std', 'count'], [1, 2]);
    expect(Object.keys(s)).toEqual(['std', 'count']);
  });
  it('ignores weights in unweighted mode, and skips non-positive weights', () => {
    const acc = createAccumulator({ names: ['count', 'sum', 'median'], weighted: false });
    acc.add(2, 0.5);
    acc.add(4, 1);
    acc.add(100, 0);
    acc.add(100, -1);
    acc.add(100, NaN);
    expect(acc.result()).toEqual({ count: 2, sum: 6, median: 3 });
  });
  it('ties for majority go to the smallest value', () => {
    expect(statsOf(['majority', 'minority'], [5, 3, 5, 3, 9, 9])).toEqual({ majority: 3, minority: 3 });
  });
});

describe('weighted statistics, by hand', () => {
  // values 1, 2, 3, 4 with weights 0.5, 0.25, 1, 0.25: total weight 2
  const names: StatName[] = [...ALL_RASTER, 'percentile_0', 'percentile_100', 'percentile_30'];
  const r = statsOf(names, [3, 1, 4, 2], [1, 0.5, 0.25, 0.25]);
  it('count is Σw, sum Σv·w, mean Σv·w / Σw', () => {
    expect(r['count']).toBe(2);
    expect(r['sum']).toBe(5); // 0.5 + 0.5 + 3 + 1
    expect(r['mean']).toBe(2.5);
  });
  it('std divides by Σw', () => {
    // deviations −1.5, −0.5, 0.5, 1.5 → 0.5·2.25 + 0.25·0.25 + 1·0.25 + 0.25·2.25 = 2; 2 / 2 = 1
    expect(r['std']).toBeCloseTo(1, 15);
  });
  it('min, max and range are unweighted', () => {
    expect([r['min'], r['max'], r['range']]).toEqual([1, 4, 3]);
  });
  it('median / percentiles: smallest value whose cumulative weight reaches q/100 of the total', () => {
    // cumulative: 0.5 (1), 0.75 (2), 1.75 (3), 2 (4)
    expect(r['median']).toBe(3); // target 1
    expect(r['percentile_25']).toBe(1); // target 0.5, reached exactly
    expect(r['percentile_30']).toBe(2); // target 0.6
    expect(r['percentile_90']).toBe(4); // target 1.8
    expect(r['percentile_0']).toBe(1);
    expect(r['percentile_100']).toBe(4);
  });
  it('majority / minority / freq_hist by weighted frequency', () => {
    expect(r['majority']).toBe(3); // weight 1
    expect(r['minority']).toBe(2); // 2 and 4 both 0.25: smallest
    expect(r['freq_hist']).toEqual({ '1': 0.5, '2': 0.25, '3': 1, '4': 0.25 });
    expect(r['unique']).toEqual([1, 2, 3, 4]);
  });
  it('mixes whole and fractional weights of the same value', () => {
    const m = statsOf(['count', 'freq_hist', 'majority', 'minority', 'median'], [5, 5, 7, 1], [1, 0.5, 1, 0.25]);
    // 1: 0.25, 5: 1 + 0.5 = 1.5, 7: 1 → total 2.75, half 1.375 reached at 5 (0.25 + 1.5)
    expect(m).toEqual({ count: 2.75, freq_hist: { '1': 0.25, '5': 1.5, '7': 1 }, majority: 5, minority: 1, median: 5 });
  });
  it('nodata is Σ weight of nodata cells', () => {
    const acc = createAccumulator({ names: ['nodata', 'count'], weighted: true });
    acc.addNodata(0.5);
    acc.addNodata(0.25);
    acc.addNodata(0);
    expect(acc.result()).toEqual({ nodata: 0.75, count: 0 });
  });
  it('weighted median tolerates rounding of the running sum (14 × 0.1 → the 7th value)', () => {
    const v = Array.from({ length: 14 }, (_, i) => i + 1);
    expect(
      statsOf(
        ['median'],
        v,
        v.map(() => 0.1),
      )['median'],
    ).toBe(7);
  });
  it('vector rule: countItems counts features, density per km²', () => {
    const acc = createAccumulator({ names: ['count', 'mean', 'density'], weighted: true, countItems: true });
    acc.add(10, 3);
    acc.add(20, 1);
    acc.add(30, 0); // zero weight: not counted
    // mean (10·3 + 20·1) / 4 = 12.5; 2 features on 4 km²
    expect(acc.result({ aoiAreaM2: 4e6 })).toEqual({ count: 2, mean: 12.5, density: 0.5 });
    expect(acc.result({ aoiAreaM2: 0 })['density']).toBeNull();
    expect(() => acc.result()).toThrow(TypeError);
  });
});

// Deterministic generator (mulberry32) so failures reproduce.
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const DTYPES: [string, (r: () => number) => number][] = [
  ['Uint8', (r) => Math.floor(r() * 256)],
  ['Int16', (r) => Math.floor(r() * 65536) - 32768],
  ['Float32', (r) => Math.fround((r() - 0.5) * 2000)],
  ['Float64', (r) => (r() - 0.5) * 1e6],
];

describe.each(DTYPES)('%s-like data against plain arithmetic', (_name, gen) => {
  const r = rng(42);
  const values = Array.from({ length: 2001 }, () => gen(r));
  const sorted = [...values].sort((a, b) => a - b);
  const n = values.length;
  const names: StatName[] = [...ALL_RASTER, 'percentile_2.5', 'percentile_50'];
  const res = statsOf(names, values);

  it('moments', () => {
    let sum = 0;
    for (const v of values) sum += v;
    const mean = sum / n;
    let ss = 0;
    for (const v of values) ss += (v - mean) ** 2;
    const scale = Math.max(1, Math.abs(sorted[0]!), Math.abs(sorted[n - 1]!));
    expect(res['count']).toBe(n);
    expect(Math.abs((res['sum'] as number) - sum)).toBeLessThanOrEqual(1e-9 * scale * n);
    expect(Math.abs((res['mean'] as number) - mean)).toBeLessThanOrEqual(1e-12 * scale);
    expect(Math.abs((res['std'] as number) - Math.sqrt(ss / n))).toBeLessThanOrEqual(1e-12 * scale);
  });
  it('order statistics', () => {
    expect(res['min']).toBe(sorted[0]);
    expect(res['max']).toBe(sorted[n - 1]);
    expect(res['range']).toBe(sorted[n - 1]! - sorted[0]!);
    expect(res['median']).toBe(sorted[(n - 1) / 2]); // n odd
    expect(res['percentile_50']).toBe(res['median']);
    for (const q of [2.5, 25, 90]) {
      const h = (q / 100) * (n - 1);
      const lo = Math.floor(h);
      const want = sorted[lo]! + (h - lo) * (sorted[lo + 1]! - sorted[lo]!);
      expect(res[`percentile_${q}`]).toBeCloseTo(want, 6);
    }
  });
  it('frequencies', () => {
    const freq = new Map<number, number>();
    for (const v of values) freq.set(v, (freq.get(v) ?? 0) + 1);
    const keys = [...freq.keys()].sort((a, b) => a - b);
    expect(res['unique']).toEqual(keys);
    expect(res['freq_hist']).toEqual(Object.fromEntries(keys.map((k) => [String(k), freq.get(k)])));
    const best = Math.max(...freq.values());
    const worst = Math.min(...freq.values());
    expect(res['majority']).toBe(keys.find((k) => freq.get(k) === best));
    expect(res['minority']).toBe(keys.find((k) => freq.get(k) === worst));
  });
});

describe('nothing counted', () => {
  it('count 0, nodata as counted, unique [], freq_hist {}, density 0, everything else null', () => {
    const acc = createAccumulator({ names: ALL_RASTER, weighted: false });
    acc.addNodata(1);
    acc.addNodata(1);
    expect(acc.result()).toEqual({
      count: 0,
      min: null,
      max: null,
      mean: null,
      sum: null,
      std: null,
      median: null,
      percentile_25: null,
      percentile_90: null,
      range: null,
      majority: null,
      minority: null,
      unique: [],
      freq_hist: {},
      nodata: 2,
    });
    const vec = createAccumulator({ names: ['count', 'density', 'mean'], weighted: true, countItems: true });
    expect(vec.result({ aoiAreaM2: 1e6 })).toEqual({ count: 0, density: 0, mean: null });
    expect(vec.result({ aoiAreaM2: 0 })).toEqual({ count: 0, density: null, mean: null }); // bare point
  });
});

describe('never NaN, Infinity or -0', () => {
  it('overflowing sums become null', () => {
    const r = statsOf(ALL_RASTER, [1.7e308, 1.7e308]);
    expect(r['sum']).toBeNull();
    expect(r['mean']).toBeNull();
    expect(r['min']).toBe(1.7e308);
    expect(r['median']).toBe(1.7e308);
    for (const v of Object.values(r)) if (typeof v === 'number') expect(Number.isFinite(v)).toBe(true);
  });
  it('-0 is reported as 0 and merged with 0', () => {
    const r = statsOf(['min', 'max', 'median', 'sum', 'mean', 'unique', 'freq_hist', 'majority'], [-0, 0, -0]);
    for (const k of ['min', 'max', 'median', 'sum', 'mean', 'majority']) expect(Object.is(r[k], 0)).toBe(true);
    expect(r['unique']).toEqual([0]);
    expect(Object.is((r['unique'] as number[])[0], 0)).toBe(true);
    expect(r['freq_hist']).toEqual({ '0': 3 });
  });
});

describe('distinct-value cap (10,000)', () => {
  const many = Array.from({ length: 10_001 }, (_, i) => i * 0.5);
  it('refuses unique / freq_hist past 10,000 distinct values, naming the statistic and the cap', () => {
    for (const name of ['unique', 'freq_hist'] as const) {
      const acc = fill([name], many);
      try {
        acc.result();
        expect.unreachable();
      } catch (e) {
        expect(e).toBeInstanceOf(ZonalError);
        expect((e as ZonalError).code).toBe('too_many_unique_values');
        expect((e as ZonalError).detail).toContain(`'${name}'`);
        expect((e as ZonalError).detail).toContain('10,000');
      }
    }
  });
  it('names both when both are asked', () => {
    expect(() => fill(['freq_hist', 'count', 'unique'], many).result()).toThrow("The statistics 'freq_hist' and 'unique' stop at 10,000");
  });
  it('does not apply to the other statistics', () => {
    const r = statsOf(['median', 'majority', 'minority', 'count'], many);
    expect(r).toEqual({ median: 2500, majority: 0, minority: 0, count: 10_001 });
  });
  it('allows exactly 10,000', () => {
    expect((statsOf(['unique'], many.slice(1))['unique'] as number[]).length).toBe(10_000);
  });
});

describe('std accuracy', () => {
  it('1e7 values of 1e7 + tiny noise: std exact to ~1e-9 relative', () => {
    const r = rng(7);
    const n = 10_000_000;
    const acc = createAccumulator({ names: ['std', 'mean'], weighted: false });
    // Reference: offsets from 1e7 are exact (Sterbenz), so two passes over the small offsets are accurate.
    const off = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const v = 1e7 + (r() - 0.5) * 1e-3;
      off[i] = v - 1e7;
      acc.add(v, 1);
    }
    let s = 0;
    for (let i = 0; i < n; i++) s += off[i]!;
    const m = s / n;
    let ss = 0;
    for (let i = 0; i < n; i++) ss += (off[i]! - m) ** 2;
    const std = Math.sqrt(ss / n); // ≈ 1e-3 / √12
    const res = acc.result();
    expect(Math.abs((res['std'] as number) - std) / std).toBeLessThan(1e-6);
    expect(Math.abs((res['mean'] as number) - (1e7 + m))).toBeLessThan(1e-8);
  });
});

// ----- merge, order independence, snapshots -----

const EXACT_KEYS = ['min', 'max', 'range', 'median', 'percentile_25', 'percentile_90', 'majority', 'minority', 'unique', 'freq_hist'];
const CLOSE_KEYS = ['count', 'sum', 'mean', 'std', 'nodata'];

function expectSameResults(a: StatsResult, b: StatsResult, scale: number): void {
  expect(Object.keys(a)).toEqual(Object.keys(b));
  for (const k of EXACT_KEYS) expect(a[k]).toEqual(b[k]);
  for (const k of CLOSE_KEYS) {
    const x = a[k] as number | null;
    const y = b[k] as number | null;
    if (x === null || y === null) expect(x).toBe(y);
    else expect(Math.abs(x - y)).toBeLessThanOrEqual(1e-9 * (scale + Math.abs(y)));
  }
}

const valueArb = fc.oneof(fc.integer({ min: -20, max: 20 }), fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true }));
const weightArb = fc.oneof(fc.constant(1), fc.double({ min: 0.001, max: 1, noNaN: true }));
const itemsArb = fc.array(fc.tuple(valueArb, weightArb, fc.boolean()), { maxLength: 60 });

function feed(acc: StatsAccumulator, items: readonly [number, number, boolean][]): void {
  for (const [v, w, isNodata] of items) {
    if (isNodata) acc.addNodata(w);
    else acc.add(v, w);
  }
}

describe.each([false, true])('merge and snapshots (weighted = %s)', (weighted) => {
  const make = () => createAccumulator({ names: ALL_RASTER, weighted });

  it('merge(a, b) equals one pass over both (fast-check)', () => {
    fc.assert(
      fc.property(itemsArb, itemsArb, (xs, ys) => {
        const one = make();
        feed(one, [...xs, ...ys]);
        const a = make();
        feed(a, xs);
        const b = make();
        feed(b, ys);
        a.merge(b);
        expectSameResults(a.result(), one.result(), 1e6);
        // merge leaves the other side unchanged and merge(b, a) gives the same
        const b2 = make();
        feed(b2, ys);
        expect(b.result()).toEqual(b2.result());
        const c = make();
        feed(c, ys);
        const a2 = make();
        feed(a2, xs);
        c.merge(a2);
        expectSameResults(c.result(), one.result(), 1e6);
      }),
      { numRuns: 200 },
    );
  });

  it('order statistics do not depend on insertion order, to the bit', () => {
    fc.assert(
      fc.property(
        itemsArb.chain((xs) => fc.tuple(fc.constant(xs), fc.shuffledSubarray(xs, { minLength: xs.length, maxLength: xs.length }))),
        ([xs, shuffled]) => {
          const a = make();
          feed(a, xs);
          const b = make();
          feed(b, shuffled);
          const ra = a.result();
          const rb = b.result();
          for (const k of EXACT_KEYS) expect(ra[k]).toEqual(rb[k]);
          expectSameResults(ra, rb, 1e6);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('snapshot → structuredClone → restore gives the same accumulator', () => {
    fc.assert(
      fc.property(itemsArb, itemsArb, (xs, ys) => {
        const a = make();
        feed(a, xs);
        const snap = a.snapshot();
        const copy = structuredClone(snap, { transfer: snapshotTransferables(snap) });
        const b = restoreAccumulator(copy);
        expect(b.result()).toEqual(a.result());
        feed(a, ys);
        feed(b, ys);
        expect(b.result()).toEqual(a.result());
      }),
      { numRuns: 100 },
    );
  });
});

describe('accumulator lifecycle', () => {
  it('keeps working after result() (values re-sorted)', () => {
    const acc = fill(['median', 'unique'], [5, 1]);
    expect(acc.result()).toEqual({ median: 3, unique: [1, 5] });
    acc.add(0, 1);
    expect(acc.result()).toEqual({ median: 1, unique: [0, 1, 5] });
  });
  it('grows its buffers past the initial capacity', () => {
    const values = Array.from({ length: 5000 }, (_, i) => 4999 - i);
    const r = statsOf(['median', 'percentile_0', 'count'], values);
    expect(r).toEqual({ median: 2499.5, percentile_0: 0, count: 5000 });
  });
  it('refuses to merge accumulators built for other statistics or modes', () => {
    const a = createAccumulator({ names: ['mean'], weighted: false });
    expect(() => a.merge(createAccumulator({ names: ['mean'], weighted: true }))).toThrow(TypeError);
    expect(() => a.merge(createAccumulator({ names: ['median'], weighted: false }))).toThrow(TypeError);
    expect(() => a.merge(a)).toThrow(TypeError);
  });
  it('refuses something that is not a snapshot', () => {
    const snap = createAccumulator({ names: ['mean'], weighted: false }).snapshot();
    expect(() => restoreAccumulator({ ...snap, unitValues: [] as unknown as Float64Array })).toThrow(TypeError);
  });
});

describe('the second moment is tracked only for std', () => {
  it('mean and sum are the same bits with or without std asked, alone and merged, weighted or not', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.double({ min: -1e6, max: 1e6, noNaN: true }), fc.double({ min: 0.01, max: 1, noNaN: true })), { minLength: 1, maxLength: 60 }),
        fc.boolean(),
        (pairs, weighted) => {
          const run = (names: StatName[]) => {
            const a = createAccumulator({ names, weighted });
            const b = createAccumulator({ names, weighted });
            pairs.forEach(([v, w], i) => (i % 2 === 0 ? a : b).add(v, w));
            a.merge(b);
            return a.result();
          };
          const without = run(['mean', 'sum', 'count']);
          const withStd = run(['mean', 'sum', 'count', 'std']);
          expect(Object.is(without['mean'], withStd['mean'])).toBe(true);
          expect(Object.is(without['sum'], withStd['sum'])).toBe(true);
          expect(without['count']).toBe(withStd['count']);
        },
      ),
    );
  });
});
