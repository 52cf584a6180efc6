/**
 * Axis-aligned bounding boxes [minX, minY, maxX, maxY] (pure). Boxes are planar: an AOI that crosses the
 * antimeridian has been split by parseAoi, so its parts' boxes lie within [−180, 180]; use
 * `bboxesOfPolygons` to test the parts one by one rather than their union, which then spans the globe.
 */
import type { BBox, MultiPolygonCoords, PolygonCoords, Position, Ring } from './types.ts';

/** The box of nothing: the identity of `unionBBox`; `isEmptyBBox` is true for it. */
export const EMPTY_BBOX: BBox = [Infinity, Infinity, -Infinity, -Infinity];

/** True when the box contains no point (min > max on either axis). */
export function isEmptyBBox(b: BBox): boolean {
  return !(b[0] <= b[2] && b[1] <= b[3]);
}

/** Box of a list of positions (EMPTY_BBOX for none). Non-finite coordinates are ignored. */
function bboxOfPositions(positions: readonly Position[]): BBox {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const [x, y] of positions) {
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
  }
  return [minX, minY, maxX, maxY];
}

/** Box of a ring. */
export function bboxOfRing(ring: Ring): BBox {
  return bboxOfPositions(ring);
}

/** Box of a polygon (its exterior ring suffices, holes lie inside it). */
export function bboxOfPolygon(polygon: PolygonCoords): BBox {
  return polygon.length > 0 ? bboxOfRing(polygon[0] as Ring) : [...EMPTY_BBOX];
}

/** Box of a multipolygon: the union of its polygons' boxes. */
export function bboxOfPolygons(polygons: MultiPolygonCoords): BBox {
  let b: BBox = [...EMPTY_BBOX];
  for (const p of polygons) b = unionBBox(b, bboxOfPolygon(p));
  return b;
}

/** One box per polygon, in order: tighter than the union for an AOI split at the antimeridian. */
export function bboxesOfPolygons(polygons: MultiPolygonCoords): BBox[] {
  return polygons.map(bboxOfPolygon);
}

/** Smallest box containing both. */
export function unionBBox(a: BBox, b: BBox): BBox {
  return [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[2], b[2]), Math.max(a[3], b[3])];
}

/** Overlap of two boxes, or null when they are disjoint. Boxes that only touch give a degenerate box. */
export function intersectBBox(a: BBox, b: BBox): BBox | null {
  const r: BBox = [Math.max(a[0], b[0]), Math.max(a[1], b[1]), Math.min(a[2], b[2]), Math.min(a[3], b[3])];
  return isEmptyBBox(r) ? null : r;
}

/** True when the boxes share at least one point (touching counts). */
export function bboxesIntersect(a: BBox, b: BBox): boolean {
  return a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3];
}

/** True when (x, y) lies in the closed box. */
export function bboxContains(b: BBox, x: number, y: number): boolean {
  return x >= b[0] && x <= b[2] && y >= b[1] && y <= b[3];
}

/** The box grown by `margin` on every side (`marginY` defaults to `margin`); an empty box stays empty. */
export function expandBBox(b: BBox, margin: number, marginY: number = margin): BBox {
  if (isEmptyBBox(b)) return [...EMPTY_BBOX];
  return [b[0] - margin, b[1] - marginY, b[2] + margin, b[3] + marginY];
}
