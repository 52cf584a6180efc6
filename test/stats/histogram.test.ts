/** Histograms and class tallies from kept values (stats/histogram.ts), by hand, with numpy.histogram's rules. */
import { describe, expect, it } from 'vitest';
import { createAccumulator } from '../../src/stats/accumulator.ts';
import { classesOf, histogramOf } from '../../src/stats/histogram.ts';

function acc(values: number[], weights?: number[]) {
  const a = createAccumulator({ names: ['count'], weighted: weights !== undefined, keepValues: true });
  values.forEach((v, i) => a.add(v, weights?.[i] ?? 1));
  return a;
}

describe('histogramOf', () => {
  it('equal bins over the values’ own range; the last bin is closed', () => {
    // numpy.histogram([1, 2, 2, 3, 4, 5], bins=4) → counts [1, 2, 1, 2], edges [1, 2, 3, 4, 5]
    expect(histogramOf({ bins: 4 }, acc([1, 2, 2, 3, 4, 5]))).toEqual({ edges: [1, 2, 3, 4, 5], counts: [1, 2, 1, 2] });
  });

  it('given edges: values outside them are not counted, a value on an inner edge goes right', () => {
    // numpy.histogram([0, 1, 1.5, 2, 3, 9], bins=[1, 2, 3]) → [2, 2]
    expect(histogramOf({ bins: [1, 2, 3] }, acc([0, 1, 1.5, 2, 3, 9]))).toEqual({ edges: [1, 2, 3], counts: [2, 2] });
  });

  it('a range: edges as numpy.linspace, values outside ignored', () => {
    const h = histogramOf({ bins: 3, range: [0, 1] }, acc([-1, 0, 0.3, 0.5, 1, 2]));
    expect(h.edges).toEqual([0, 1 / 3, 2 * (1 / 3), 1]);
    expect(h.counts).toEqual([2, 1, 1]);
  });

  it('one distinct value spans v − 0.5 … v + 0.5; no value spans 0 … 1', () => {
    expect(histogramOf({ bins: 2 }, acc([7, 7]))).toEqual({ edges: [6.5, 7, 7.5], counts: [0, 2] });
    expect(histogramOf({ bins: 2 }, acc([]))).toEqual({ edges: [0, 0.5, 1], counts: [0, 0] });
  });

  it('counts are summed weights (fractional coverage)', () => {
    expect(histogramOf({ bins: [0, 10, 20] }, acc([5, 5, 15], [0.25, 0.5, 1])).counts).toEqual([0.75, 1]);
  });
});

describe('classesOf', () => {
  it('count, fraction and area per class, names where given', () => {
    const areas = new Map([
      [1, 300],
      [4, 100],
    ]);
    const out = classesOf(acc([1, 1, 1, 4]), areas, new Map([[4, 'water']]));
    expect(out).toEqual({ '1': { count: 3, fraction: 0.75, area_m2: 300 }, '4': { count: 1, fraction: 0.25, area_m2: 100, name: 'water' } });
  });
});
