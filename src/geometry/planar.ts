/**
 * Pure planar predicates for feature geometries. `crossesItself` finds rings that cross themselves or
 * each other (bow ties), which must be repaired before their area means anything: the shoelace area
 * of a bow tie is the difference of its lobes, not their sum.
 */
import type { PolygonCoords, Position } from './types.ts';

function orient(ax: number, ay: number, bx: number, by: number, cx: number, cy: number): number {
  const v = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
  return v > 0 ? 1 : v < 0 ? -1 : 0;
}

/** Whether segments ab and cd cross at a point interior to both (touching ends does not count). */
function properCross(ax: number, ay: number, bx: number, by: number, cx: number, cy: number, dx: number, dy: number): boolean {
  const o1 = orient(ax, ay, bx, by, cx, cy);
  const o2 = orient(ax, ay, bx, by, dx, dy);
  const o3 = orient(cx, cy, dx, dy, ax, ay);
  const o4 = orient(cx, cy, dx, dy, bx, by);
  return o1 * o2 < 0 && o3 * o4 < 0;
}

/**
 * Whether any two edges of a polygon's rings cross properly. A sweep over edges sorted by their
 * smallest x, so typical rings cost O(n log n).
 */
export function crossesItself(polygon: PolygonCoords): boolean {
  const segs: number[] = [];
  for (const ring of polygon) {
    for (let i = 0; i + 1 < ring.length; i++) {
      const [ax, ay] = ring[i] as Position;
      const [bx, by] = ring[i + 1] as Position;
      if (ax !== bx || ay !== by) segs.push(ax, ay, bx, by);
    }
  }
  const n = segs.length / 4;
  const order = Array.from({ length: n }, (_, i) => i).sort((i, j) => Math.min(segs[4 * i]!, segs[4 * i + 2]!) - Math.min(segs[4 * j]!, segs[4 * j + 2]!));
  for (let a = 0; a < n; a++) {
    const i = order[a] as number;
    const [ax, ay, bx, by] = [segs[4 * i]!, segs[4 * i + 1]!, segs[4 * i + 2]!, segs[4 * i + 3]!];
    const maxX = Math.max(ax, bx);
    for (let b = a + 1; b < n; b++) {
      const j = order[b] as number;
      const [cx, cy, dx, dy] = [segs[4 * j]!, segs[4 * j + 1]!, segs[4 * j + 2]!, segs[4 * j + 3]!];
      if (Math.min(cx, dx) > maxX) break;
      if (Math.max(cy, dy) < Math.min(ay, by) || Math.min(cy, dy) > Math.max(ay, by)) continue;
      if (properCross(ax, ay, bx, by, cx, cy, dx, dy)) return true;
    }
  }
  return false;
}
