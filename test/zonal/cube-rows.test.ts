/**
 * A zone's table of rows (zonal/cube-rows.ts): groups of steps come in any order (two iterated dimensions
 * interleave them), a step may have no answer, a group may have no statistics, values that are not numbers
 * sit beside the numbers. Expected rows written by hand.
 */
import { describe, expect, it } from 'vitest';
import { rowsOfTable, writeGroup, type ZoneTable } from '../../src/zonal/cube-rows.ts';
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
