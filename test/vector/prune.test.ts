/**
 * src/vector/prune.ts: the row groups whose bbox statistics can meet the AOI's boxes. By hand: boxes
 * are closed (a shared edge or corner meets, so a point on a group's edge keeps it), groups with unknown
 * statistics are always kept, empty groups never, and indexes come back in file order.
 */
import { describe, expect, it } from 'vitest';
import { pruneRowGroups } from '../../src/vector/prune.ts';
import type { RowGroupInfo } from '../../src/vector/reader.ts';
import type { BBox } from '../../src/geometry/types.ts';

/** A 3 × 2 grid of groups, each a 10° × 10° box from (0, 0); group i = column i % 3, row ⌊i / 3⌋. */
const GRID: RowGroupInfo[] = Array.from({ length: 6 }, (_, i) => {
  const x = (i % 3) * 10;
  const y = Math.floor(i / 3) * 10;
  return { index: i, rowStart: i * 100, numRows: 100, bbox: [x, y, x + 10, y + 10] as BBox };
});

describe('pruneRowGroups', () => {
  it('keeps only the group a small box lies in', () => {
    expect(pruneRowGroups(GRID, [[12, 3, 14, 4]])).toEqual([1]);
    expect(pruneRowGroups(GRID, [[22, 13, 23, 14]])).toEqual([5]);
  });

  it('a box over several groups keeps each of them, in file order', () => {
    expect(pruneRowGroups(GRID, [[5, 5, 15, 15]])).toEqual([0, 1, 3, 4]);
    expect(pruneRowGroups(GRID, [[-100, -100, 100, 100]])).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('several AOI boxes (a multipolygon, an AOI split at the antimeridian) keep the union of their groups', () => {
    expect(
      pruneRowGroups(GRID, [
        [21, 1, 22, 2],
        [1, 11, 2, 12],
      ]),
    ).toEqual([2, 3]);
  });

  it('a box outside every group keeps none', () => {
    expect(pruneRowGroups(GRID, [[40, 40, 50, 50]])).toEqual([]);
    expect(pruneRowGroups(GRID, [[-5, -5, -0.001, 20]])).toEqual([]);
    expect(pruneRowGroups(GRID, [])).toEqual([]);
  });

  it('closed boxes: an AOI edge on a group edge, and a point on a shared corner, keep the groups they touch', () => {
    expect(pruneRowGroups(GRID, [[30, 0, 35, 5]])).toEqual([2]);
    // A bare point is a degenerate box; on the corner shared by four groups it keeps all four.
    expect(pruneRowGroups(GRID, [[10, 10, 10, 10]])).toEqual([0, 1, 3, 4]);
    expect(pruneRowGroups(GRID, [[15, 5, 15, 5]])).toEqual([1]);
  });

  it('a group without statistics (bbox null) is always kept', () => {
    const groups: RowGroupInfo[] = [GRID[0]!, { index: 1, rowStart: 100, numRows: 50, bbox: null }, GRID[2]!];
    expect(pruneRowGroups(groups, [[100, 100, 101, 101]])).toEqual([1]);
    expect(pruneRowGroups(groups, [[1, 1, 2, 2]])).toEqual([0, 1]);
  });

  it('an empty group is never kept, even without statistics', () => {
    const groups: RowGroupInfo[] = [
      { index: 0, rowStart: 0, numRows: 0, bbox: [0, 0, 10, 10] },
      { index: 1, rowStart: 0, numRows: 0, bbox: null },
      { index: 2, rowStart: 0, numRows: 7, bbox: [0, 0, 10, 10] },
    ];
    expect(pruneRowGroups(groups, [[1, 1, 2, 2]])).toEqual([2]);
  });

  it("answers the groups' own index, not their position in the list", () => {
    const groups: RowGroupInfo[] = [GRID[4]!, GRID[1]!];
    expect(pruneRowGroups(groups, [[12, 3, 14, 14]])).toEqual([4, 1]);
  });
});
