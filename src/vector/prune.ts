/** Pure: the row groups whose bbox statistics can intersect the AOI (groups without statistics stay). */
import type { BBox } from '../geometry/types.ts';
import { bboxesIntersect } from '../geometry/bbox.ts';
import type { RowGroupInfo } from './reader.ts';

export function pruneRowGroups(groups: readonly RowGroupInfo[], aoiBoxes: readonly BBox[]): number[] {
  return groups.filter((g) => g.numRows > 0 && (g.bbox === null || aoiBoxes.some((b) => bboxesIntersect(g.bbox as BBox, b)))).map((g) => g.index);
}
