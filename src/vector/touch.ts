/**
 * Pure: touch mode (a bare-point AOI, contract §5): the feature contains or touches the point. Exact
 * arithmetic on the few features whose box holds the point, with a 1e-12° tolerance on edges (a point
 * given on a shared border touches both features).
 */
import type { MultiPolygonCoords, Position } from '../geometry/types.ts';
import type { Shape } from '../geometry/wkb.ts';

/** Even-odd point in polygon(s), holes included. */
export function pointInPolygons(polygons: MultiPolygonCoords, x: number, y: number): boolean {
  let inside = false;
  for (const poly of polygons) {
    for (const ring of poly) {
      for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
        const [xi, yi] = ring[i] as Position;
        const [xj, yj] = ring[j] as Position;
        if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
      }
    }
  }
  return inside;
}

const EPS = 1e-12;

function onSegment(px: number, py: number, a: Position, b: Position): boolean {
  const [ax, ay] = a;
  const [bx, by] = b;
  const cross = (bx - ax) * (py - ay) - (by - ay) * (px - ax);
  const len = Math.hypot(bx - ax, by - ay);
  if (Math.abs(cross) > EPS * Math.max(1, len)) return false;
  return px >= Math.min(ax, bx) - EPS && px <= Math.max(ax, bx) + EPS && py >= Math.min(ay, by) - EPS && py <= Math.max(ay, by) + EPS;
}

function onRings(rings: Position[][], x: number, y: number): boolean {
  for (const ring of rings) for (let i = 0; i + 1 < ring.length; i++) if (onSegment(x, y, ring[i] as Position, ring[i + 1] as Position)) return true;
  return false;
}

/** Touch mode (bare point AOI): the feature contains or touches the point. */
export function touchesPoint(shape: Shape, x: number, y: number): boolean {
  switch (shape.kind) {
    case 'polygon':
      return pointInPolygons(shape.polygons, x, y) || shape.polygons.some((p) => onRings(p, x, y));
    case 'line':
      return onRings(shape.lines, x, y);
    case 'point':
      return shape.points.some(([px, py]) => Math.abs(px - x) <= EPS && Math.abs(py - y) <= EPS);
  }
}
