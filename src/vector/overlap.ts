/**
 * Pure: which of the counted intersections may overlap. Pieces whose boxes overlap no other box cannot
 * overlap anything, so their areas add exactly; only the rest need a polygon union (the costly part of
 * data_area: ~50 ms for 324 disjoint squares before this split, bench/vector).
 */
import type { BBox } from '../geometry/types.ts';

/** Indexes of boxes that strictly overlap at least one other box (boxes that only touch do not). */
export function overlappingBoxes(boxes: readonly BBox[]): Set<number> {
  const order = boxes.map((_, i) => i).sort((a, b) => (boxes[a] as BBox)[0] - (boxes[b] as BBox)[0]);
  const out = new Set<number>();
  for (let i = 0; i < order.length; i++) {
    const a = boxes[order[i] as number] as BBox;
    for (let j = i + 1; j < order.length; j++) {
      const b = boxes[order[j] as number] as BBox;
      if (b[0] >= a[2]) break;
      if (b[1] < a[3] && b[3] > a[1] && b[2] > a[0]) {
        out.add(order[i] as number);
        out.add(order[j] as number);
      }
    }
  }
  return out;
}
