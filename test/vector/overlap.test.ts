import { describe, expect, it } from 'vitest';
import { overlappingBoxes } from '../../src/vector/overlap.ts';
import type { BBox } from '../../src/geometry/types.ts';

describe('overlappingBoxes', () => {
  it('boxes that only touch (a grid of squares) overlap nothing', () => {
    const boxes: BBox[] = [];
    for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) boxes.push([i, j, i + 1, j + 1]);
    expect(overlappingBoxes(boxes).size).toBe(0);
  });

  it('finds each box that overlaps another, whatever the order', () => {
    const boxes: BBox[] = [
      [10, 10, 12, 12], // overlaps 3
      [0, 0, 1, 1], // alone
      [5, 0, 6, 1], // alone (touches 4 at x = 6)
      [11, 11, 13, 13], // overlaps 0
      [6, 0, 7, 1], // alone
      [0, 5, 9, 6], // overlaps 6 (a long box reaching far right)
      [8, 5.5, 8.5, 7],
    ];
    expect([...overlappingBoxes(boxes)].sort((a, b) => a - b)).toEqual([0, 3, 5, 6]);
  });
});
