/**
 * Pure planar predicates on rings and polygons, in the coordinates as given (no wrapping, no geodesics):
 * orientation and shoelace area, point in ring / polygon, an interior point, repeated positions.
 */
import type { PolygonCoords, Position, Ring } from './types.ts';

/** Shoelace area in coordinate units², positive when counter-clockwise. */
export function planarArea(ring: Ring): number {
  let s = 0;
  const [x0, y0] = ring[0] as Position;
  for (let i = 1; i + 1 < ring.length; i++) {
    const [ax, ay] = ring[i] as Position;
    const [bx, by] = ring[i + 1] as Position;
    s += (ax - x0) * (by - y0) - (bx - x0) * (ay - y0);
  }
  return s / 2;
}

/** Twice the signed area of triangle abc: positive when c lies left of a→b, 0 when collinear. */
export function orient(ax: number, ay: number, bx: number, by: number, cx: number, cy: number): number {
  return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
}

/** All positions on one straight line (to 1e-12 of the ring's size), so the ring encloses nothing. */
export function collinear(ring: Ring): boolean {
  const [x0, y0] = ring[0] as Position;
  let far = ring[0] as Position;
  let d2 = 0;
  for (const q of ring) {
    const d = (q[0] - x0) ** 2 + (q[1] - y0) ** 2;
    if (d > d2) [far, d2] = [q, d];
  }
  if (d2 === 0) return true;
  return ring.every((q) => Math.abs(orient(x0, y0, far[0], far[1], q[0], q[1])) <= 1e-12 * d2);
}

/** Consecutive repeated positions dropped; the ring closed. */
export function dedupe(ring: Ring): Ring {
  const out: Ring = [];
  for (const p of ring) {
    const q = out[out.length - 1];
    if (!q || q[0] !== p[0] || q[1] !== p[1]) out.push(p);
  }
  const first = out[0];
  const last = out[out.length - 1];
  if (first && last && (first[0] !== last[0] || first[1] !== last[1])) out.push([first[0], first[1]]);
  return out;
}

/** 1 inside, −1 outside, 0 on the boundary of a closed ring. */
export function pointInRing(ring: Ring, x: number, y: number): number {
  let inside = false;
  for (let i = 0; i + 1 < ring.length; i++) {
    const [ax, ay] = ring[i] as Position;
    const [bx, by] = ring[i + 1] as Position;
    if (ay === y && by === y) {
      if (x >= Math.min(ax, bx) && x <= Math.max(ax, bx)) return 0;
      continue;
    }
    if (ay <= y !== by <= y) {
      const o = orient(ax, ay, bx, by, x, y);
      if (o === 0) return 0;
      if (o > 0 === by > ay) inside = !inside;
    } else if ((ax === x && ay === y) || (bx === x && by === y)) {
      return 0;
    }
  }
  return inside ? 1 : -1;
}

/** 1 inside the polygon (in its exterior ring, outside its holes), −1 outside, 0 on a boundary. */
export function pointInPolygon(polygon: PolygonCoords, x: number, y: number): number {
  const s = pointInRing(polygon[0] as Ring, x, y);
  if (s <= 0) return s;
  for (let h = 1; h < polygon.length; h++) {
    const t = pointInRing(polygon[h] as Ring, x, y);
    if (t >= 0) return t === 0 ? 0 : -1;
  }
  return 1;
}

/**
 * A point strictly inside a polygon (holes excluded): the middle of the widest interior run of a
 * horizontal line at a height between two vertex latitudes, so it never passes through a vertex.
 */
export function interiorPoint(polygon: PolygonCoords): Position {
  let n = 0;
  for (const ring of polygon) n += ring.length;
  const ys = new Float64Array(n);
  let k = 0;
  for (const ring of polygon) for (const pos of ring) ys[k++] = pos[1];
  ys.sort();
  // Two different vertex latitudes around the median; the line runs between them.
  let hi = n >> 1;
  while (hi < n - 1 && ys[hi] === ys[hi - 1]) hi++;
  let lo = hi - 1;
  while (lo > 0 && ys[lo] === ys[hi]) lo--;
  const y = ((ys[lo] as number) + (ys[hi] as number)) / 2;
  const xs: number[] = [];
  for (const ring of polygon) {
    for (let i = 0; i + 1 < ring.length; i++) {
      const [ax, ay] = ring[i] as Position;
      const [bx, by] = ring[i + 1] as Position;
      if (ay < y !== by < y) xs.push(ax + ((y - ay) / (by - ay)) * (bx - ax));
    }
  }
  xs.sort((a, b) => a - b);
  let best: Position = [xs[0] ?? 0, y];
  let widest = -1;
  for (let i = 0; i + 1 < xs.length; i += 2) {
    const w = (xs[i + 1] as number) - (xs[i] as number);
    if (w > widest) {
      widest = w;
      best = [((xs[i] as number) + (xs[i + 1] as number)) / 2, y];
    }
  }
  return best;
}
