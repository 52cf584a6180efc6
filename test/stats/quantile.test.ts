import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lerp, medianSorted, midpoint, quantileSorted, sortPairs, sortValues, weightedQuantileSorted } from '../../src/stats/quantile.ts';

describe('quantileSorted (numpy linear)', () => {
  const s = [1, 2, 2, 3, 10];
  it('derives each percentile from the rank h = q/100 · (n − 1)', () => {
    expect(quantileSorted(s, 0)).toBe(1); // h = 0
    expect(quantileSorted(s, 25)).toBe(2); // h = 1 → s[1]
    expect(quantileSorted(s, 50)).toBe(2); // h = 2 → s[2]
    expect(quantileSorted(s, 100)).toBe(10); // h = 4
    // h = 0.1·4 = 0.4 → 1 + 0.4·(2 − 1)
    expect(quantileSorted(s, 10)).toBeCloseTo(1.4, 15);
    // h = 3.6 → t ≥ 0.5 so numpy evaluates from the upper end: 10 − 7·(1 − 0.6) (numpy 2.4: 7.200000000000001)
    expect(quantileSorted(s, 90)).toBe(7.200000000000001);
  });
  it('matches the median rule at q = 50 for even counts', () => {
    const e = [1, 2, 3, 4];
    expect(quantileSorted(e, 50)).toBe(2.5); // (2 + 3) / 2
    expect(medianSorted(e)).toBe(2.5);
    expect(quantileSorted(e, 25)).toBe(1.75); // h = 0.75 → 1 + 0.75·1
    // (0.1 + 0.2) / 2 = 0.15000000000000002, while 0.2 − 0.1·0.5 = 0.15: the median rule wins at t = 0.5
    expect(quantileSorted([0.1, 0.2], 50)).toBe((0.1 + 0.2) / 2);
    expect(medianSorted([0.1, 0.2])).toBe((0.1 + 0.2) / 2);
  });
  it('is null on nothing and the value itself on one value', () => {
    expect(quantileSorted([], 50)).toBeNull();
    expect(medianSorted([])).toBeNull();
    expect(quantileSorted([7], 33)).toBe(7);
    expect(medianSorted([7])).toBe(7);
  });
  it('reads only the first n values', () => {
    expect(quantileSorted(new Float64Array([1, 2, 3, 99, 99]), 100, 3)).toBe(3);
    expect(medianSorted(new Float64Array([1, 2, 3, 4, 99]), 4)).toBe(2.5);
  });
  it('interpolates like numpy (numpy 2.4: percentile([0.1, 0.7], 33) = 0.29800000000000004)', () => {
    expect(quantileSorted([0.1, 0.7], 33)).toBe(0.29800000000000004);
  });
  it('never overflows to Infinity', () => {
    expect(midpoint(1.7e308, 1.7e308)).toBe(1.7e308);
    expect(lerp(-1.7e308, 1.7e308, 0.25)).toBeCloseTo(-0.85e308, -300);
    expect(Number.isFinite(quantileSorted([-1.7e308, 1.7e308], 30) as number)).toBe(true);
  });
});

describe('weightedQuantileSorted', () => {
  // values 1, 2, 3, 4 with weights 0.5, 0.25, 1, 0.25: total 2, cumulative 0.5, 0.75, 1.75, 2
  const v = [1, 2, 3, 4];
  const w = [0.5, 0.25, 1, 0.25];
  it('takes the smallest value whose cumulative weight reaches q/100 of the total', () => {
    expect(weightedQuantileSorted(v, w, 0)).toBe(1); // q = 0 → min
    expect(weightedQuantileSorted(v, w, 25)).toBe(1); // target 0.5, reached exactly by 1
    expect(weightedQuantileSorted(v, w, 30)).toBe(2); // target 0.6 → 0.75
    expect(weightedQuantileSorted(v, w, 50)).toBe(3); // target 1 → 1.75
    expect(weightedQuantileSorted(v, w, 100)).toBe(4); // target 2 → 2
  });
  it('tolerates rounding of the running sum', () => {
    // 14 values of weight 0.1: the 7th reaches exactly half the total, but in floats the running sum after 7 is
    // 0.7 while (50/100) × (the running total of 14) is 0.7000000000000001; without the tolerance the 8th would win.
    const v14 = Array.from({ length: 14 }, (_, i) => i + 1);
    expect(
      weightedQuantileSorted(
        v14,
        v14.map(() => 0.1),
        50,
      ),
    ).toBe(7);
    // 16 values of weight 0.1: percentile_25 is the 4th (4 / 16), percentile_12.5 the 2nd
    const v16 = Array.from({ length: 16 }, (_, i) => i + 1);
    expect(
      weightedQuantileSorted(
        v16,
        v16.map(() => 0.1),
        25,
      ),
    ).toBe(4);
    expect(
      weightedQuantileSorted(
        v16,
        v16.map(() => 0.1),
        12.5,
      ),
    ).toBe(2);
  });
  it('ignores non-positive weights and is null with no weight', () => {
    expect(weightedQuantileSorted([1, 2, 3], [0, 1, 1], 0)).toBe(2);
    expect(weightedQuantileSorted([1, 2], [0, 0], 50)).toBeNull();
    expect(weightedQuantileSorted([], [], 50)).toBeNull();
  });
});

describe('sortPairs', () => {
  it('sorts by value then weight', () => {
    const v = new Float64Array([3, 1, 2, 1, 3]);
    const w = new Float64Array([0.5, 0.9, 0.1, 0.2, 0.25]);
    sortPairs(v, w);
    expect([...v]).toEqual([1, 1, 2, 3, 3]);
    expect([...w]).toEqual([0.2, 0.9, 0.1, 0.25, 0.5]);
  });
  it('agrees with a reference sort on random input (many duplicates, sorted and reversed runs)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: -5, max: 5 }), fc.double({ min: 0.01, max: 1, noNaN: true })), { maxLength: 400 }),
        fc.constantFrom('random', 'sorted', 'reversed'),
        (pairs, shape) => {
          const input = shape === 'random' ? pairs : [...pairs].sort((a, b) => (shape === 'sorted' ? a[0] - b[0] : b[0] - a[0]));
          const v = Float64Array.from(input.map((p) => p[0]));
          const w = Float64Array.from(input.map((p) => p[1]));
          sortPairs(v, w);
          const expected = [...input].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
          expect([...v]).toEqual(expected.map((p) => p[0]));
          expect([...w]).toEqual(expected.map((p) => p[1]));
        },
      ),
    );
  });
  // Work is counted, not timed (issue 22): every element read or written through the two arrays, with a
  // budget of 8 · n · log2 n (this introsort needs 1.3 on the organ pipe, under 6 on random input). A
  // quadratic sort needs ~n²/4 (2.5e9 here) and is stopped as soon as it overruns the budget.
  it('handles a large adversarial input in O(n log n): element accesses within 8 · n · log2 n', () => {
    const n = 100_000;
    const v = new Float64Array(n);
    const w = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      v[i] = i % 2 === 0 ? i : n - i; // organ-pipe-like pattern
      w[i] = 1 / (1 + (i % 7));
    }
    const budget = 8 * n * Math.log2(n);
    const work = { accesses: 0 };
    sortPairs(countAccesses(v, work, budget), countAccesses(w, work, budget));
    let ordered = true;
    for (let i = 1; i < n; i++) if (v[i - 1]! > v[i]!) ordered = false;
    expect(ordered).toBe(true);
    expect(work.accesses).toBeGreaterThan(n); // every element was looked at through the counters
    expect(work.accesses).toBeLessThanOrEqual(budget);
  });
});

/**
 * `a` behind a proxy that counts each indexed read and write into `work.accesses` and throws once the count
 * passes `budget` (so a quadratic sort fails at once instead of running for minutes).
 */
function countAccesses(a: Float64Array, work: { accesses: number }, budget: number): Float64Array {
  const isIndex = (p: string | symbol): p is string => typeof p === 'string' && /^\d+$/.test(p);
  const tick = (): void => {
    if (++work.accesses > budget) throw new Error(`more than ${Math.round(budget)} element accesses: not O(n log n)`);
  };
  return new Proxy(a, {
    get(target, p) {
      if (isIndex(p)) {
        tick();
        return target[Number(p)];
      }
      const x: unknown = Reflect.get(target, p, target);
      return typeof x === 'function' ? (x as (...args: unknown[]) => unknown).bind(target) : x;
    },
    set(target, p, value: number) {
      if (!isIndex(p)) return Reflect.set(target, p, value, target);
      tick();
      target[Number(p)] = value;
      return true;
    },
  });
}

describe('sortValues', () => {
  it('agrees with a numeric sort for integer (counting path) and other data (native path)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.array(fc.integer({ min: -300, max: 300 }), { maxLength: 500 }),
          fc.array(fc.integer({ min: -2e9, max: 2e9 }), { maxLength: 50 }),
          fc.array(fc.double({ noNaN: true }), { maxLength: 200 }),
        ),
        (xs) => {
          const a = Float64Array.from(xs);
          sortValues(a);
          const want = [...xs].sort((p, q) => p - q);
          // -0 and 0 compare equal; the counting path may return -0 as 0
          expect([...a].map((v) => v + 0)).toEqual(want.map((v) => v + 0));
        },
      ),
    );
  });
  it('sorts only the first n', () => {
    const a = new Float64Array([3, 1, 2, -5, -6]);
    sortValues(a, 3);
    expect([...a]).toEqual([1, 2, 3, -5, -6]);
  });
});
