/**
 * A zone's table of rows (zonal/cube-rows.ts): groups of steps come in any order (two iterated dimensions
 * interleave them), a step may have no answer, a group may have no statistics, values that are not numbers
 * sit beside the numbers. Expected rows written by hand.
 */
import { describe, expect, it } from 'vitest';
import { rowsOfTable, writeBand, writeGroup, writeStep, type ZoneTable } from '../../src/zonal/cube-rows.ts';
import { bandStats } from '../../src/zonal/respond.ts';
import { createAccumulator } from '../../src/stats/accumulator.ts';
import type { StatName } from '../../src/stats/names.ts';
import type { BandStats, StatsResponse } from '../../src/zonal/model.ts';

const stats = (mean: number | null, histogram: number[] | null = null): BandStats => ({ mean, count: 2, histogram, aoi_area: 10, data_area: 5 });

describe('a zone table of rows', () => {
  it('rows in step order whatever the order of the groups; numbers, nulls and other values kept', () => {
    let t: ZoneTable | undefined;
    // Steps 0..5: the second group (steps 1, 3, 5) first, then steps 0, 2, 4.
    t = writeGroup(t, { band_1: stats(11), band_2: stats(null), band_3: stats(15, [1, 2]) }, [1, 3, 5], 6);
    t = writeGroup(t, { band_1: stats(10), band_2: stats(12), band_3: stats(14) }, [0, 2, 4], 6);
    const rows = rowsOfTable(t);
    expect(rows.names).toEqual(['mean', 'count', 'histogram', 'aoi_area', 'data_area']);
    expect(Array.from(rows.steps)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(Array.from(rows.values.filter((_, i) => i % 5 === 0))).toEqual([10, 11, 12, NaN, 14, 15]);
    // The histogram: null (NaN) in the numbers, the list beside them.
    expect(Array.from(rows.values.filter((_, i) => i % 5 === 2))).toEqual([NaN, NaN, NaN, NaN, NaN, NaN]);
    expect(rows.extra).toEqual([null, null, null, null, null, { histogram: [1, 2] }]);
  });

  it('a step without an answer is left out; a group without statistics adds nothing', () => {
    let t: ZoneTable | undefined;
    t = writeGroup(t, {}, [0, 1], 4);
    t = writeGroup(t, { band_2: stats(7) }, [2, 3], 4);
    const rows = rowsOfTable(t);
    expect(Array.from(rows.steps)).toEqual([3]);
    expect(Array.from(rows.values)).toEqual([7, 2, NaN, 10, 5]);
    expect(rows.extra).toBeNull();
  });

  it('a band whose keys come in another order lands under its names', () => {
    let t: ZoneTable | undefined;
    t = writeGroup(t, { band_1: { mean: 1, count: 3, aoi_area: 1, data_area: 1 } }, [0], 2);
    const reordered = { data_area: 4, aoi_area: 3, count: 2, mean: 1.5 } as BandStats;
    t = writeGroup(t, { band_1: reordered } as StatsResponse, [1], 2);
    expect(Array.from(rowsOfTable(t).values)).toEqual([1, 3, 1, 1, 1.5, 2, 3, 4]);
  });

  it('no group: no rows', () => {
    const rows = rowsOfTable(undefined);
    expect(rows.steps.length).toBe(0);
    expect(rows.names).toEqual([]);
  });
});

describe('a step written from its accumulator (writeBand) against its answer object (bandStats, writeStep)', () => {
  /** One accumulator per step of `cells`: [value (NaN nodata), weight][]. */
  const steps: [number, number][][] = [
    [
      [281.5, 1],
      [279.25, 0.25],
      [Number.NaN, 0.5],
    ],
    [[Number.NaN, 1]],
    [
      [-0, 1],
      [0, 0.5],
    ],
    [
      [1.5e308, 1],
      [1.5e308, 1],
    ],
  ];
  const accOf = (names: StatName[], cells: [number, number][]) => {
    const acc = createAccumulator({ names, weighted: true });
    for (const [v, w] of cells) {
      if (v !== v) acc.addNodata(w);
      else acc.add(v, w);
    }
    return acc;
  };

  for (const names of [
    ['mean', 'count', 'min', 'max'],
    ['sum', 'std', 'median', 'mean', 'nodata'],
    ['mean', 'unique', 'majority'],
  ] as StatName[][]) {
    it(`${names.join(', ')}: the same rows`, () => {
      let byBand: ZoneTable | undefined;
      let byObject: ZoneTable | undefined;
      steps.forEach((cells, row) => {
        byBand = writeBand(byBand, row, steps.length, accOf(names, cells), 1234.5, row * 10, {});
        byObject = writeStep(byObject, bandStats(accOf(names, cells), 1234.5, row * 10), row, steps.length);
      });
      const a = rowsOfTable(byBand);
      const b = rowsOfTable(byObject);
      expect(a.names).toEqual(b.names);
      expect(Array.from(a.values)).toEqual(Array.from(b.values));
      expect(a.extra).toEqual(b.extra);
      expect(Array.from(a.steps)).toEqual([0, 1, 2, 3]);
    });
  }

  it('resultNumbers: the result in resultKeys order, null and infinities as NaN, -0 as 0; false for a list', () => {
    const acc = accOf(['mean', 'count', 'mean', 'sum', 'min'] as StatName[], steps[2] as [number, number][]);
    expect(acc.resultKeys()).toEqual(['mean', 'count', 'sum', 'min']);
    const out = new Float64Array(6).fill(7);
    expect(acc.resultNumbers(out, 1)).toBe(true);
    expect(Array.from(out)).toEqual([7, 0, 1.5, 0, 0, 7]);
    expect(Object.is(out[4], -0)).toBe(false);
    const big = accOf(['sum', 'mean'] as StatName[], steps[3] as [number, number][]);
    expect(big.resultNumbers(out, 0)).toBe(true);
    // The sum overflows: null, as bandStats writes it.
    expect(out[0]).toBeNaN();
    expect(out[1]).toBeNaN();
    expect(bandStats(big, 0, 0)['sum']).toBeNull();
    expect(accOf(['mean', 'unique'] as StatName[], steps[0] as [number, number][]).resultNumbers(out, 0)).toBe(false);
  });
});
