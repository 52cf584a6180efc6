import { describe, expect, it } from 'vitest';
import { pointCoverage } from '../../src/coverage/point.ts';

const grid = { width: 3, height: 4 };

describe('pointCoverage', () => {
  it('takes the cell containing the point', () => {
    expect(pointCoverage(1.5, 2.5, grid)).toEqual({ window: { col0: 1, row0: 2, width: 1, height: 1 }, weights: new Float64Array([1]) });
    expect(pointCoverage(2.999, 3.999, grid)?.window).toEqual({ col0: 2, row0: 3, width: 1, height: 1 });
  });
  it('a point on a cell boundary belongs to the cell right / below (floor rule)', () => {
    expect(pointCoverage(1, 2, grid)?.window).toMatchObject({ col0: 1, row0: 2 });
    expect(pointCoverage(0, 0, grid)?.window).toMatchObject({ col0: 0, row0: 0 });
  });
  it('the far right / bottom edge of the raster is outside', () => {
    expect(pointCoverage(3, 1, grid)).toBeNull();
    expect(pointCoverage(1, 4, grid)).toBeNull();
    expect(pointCoverage(3, 4, grid)).toBeNull();
  });
  it('outside and NaN are null', () => {
    expect(pointCoverage(-0.0001, 1, grid)).toBeNull();
    expect(pointCoverage(1, -1e-12, grid)).toBeNull();
    expect(pointCoverage(NaN, 1, grid)).toBeNull();
    expect(pointCoverage(1, Infinity, grid)).toBeNull();
  });
  it('-0 is the first cell, reported as +0', () => {
    const c = pointCoverage(-0, -0, grid);
    expect(Object.is(c?.window.col0, 0)).toBe(true);
    expect(Object.is(c?.window.row0, 0)).toBe(true);
  });
});
