/**
 * Pure planar predicates on rings and polygons, in the coordinates as given (no wrapping, no geodesics):
 * orientation and shoelace area, point in ring / polygon, an interior point, and the crossing search that
 * AOI validation is built on (`checkNoCrossings`, through a uniform grid of segments).
 */
import type { BBox, PolygonCoords, Position, Ring } from './types.ts';
import { bboxesIntersect } from './bbox.ts';

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

/** Calls `visit(i, j)` (i < j) for every pair of intersecting boxes, sweeping along x. */
export function forOverlappingBoxes(boxes: BBox[], visit: (i: number, j: number) => void): void {
  const order = boxes.map((_, i) => i).sort((a, b) => (boxes[a] as BBox)[0] - (boxes[b] as BBox)[0]);
  const active: number[] = [];
  for (const i of order) {
    const b = boxes[i] as BBox;
    let w = 0;
    for (const j of active) if ((boxes[j] as BBox)[2] >= b[0]) active[w++] = j;
    active.length = w;
    for (const j of active) if (bboxesIntersect(b, boxes[j] as BBox)) visit(Math.min(i, j), Math.max(i, j));
    active.push(i);
  }
}

/** How two edges meet: crossing at a point interior to both, touching at a point, or sharing a stretch. */
export type Contact = 'proper' | 'touch' | 'overlap';

/**
 * Sweep over every edge of `rings` (closed) looking for contacts. Within one ring, non-adjacent edges may
 * not meet at all and adjacent ones may not fold back onto each other. Between rings of the same group
 * (mode 'polygon') or of different groups (mode 'parts'), edges may touch or share a stretch but not cross.
 * `report(ringA, ringB, x, y, kind)` must throw.
 */
export function checkNoCrossings(
  rings: Ring[],
  group: number[],
  mode: 'polygon' | 'parts',
  report: (ra: number, rb: number, x: number, y: number, kind: Contact) => never,
): void {
  let m = 0;
  for (const ring of rings) m += ring.length - 1;
  const seg = new Float64Array(4 * m);
  const ringOf = new Int32Array(m);
  const idxOf = new Int32Array(m);
  const sizes = rings.map((ring) => ring.length - 1);
  let k = 0;
  rings.forEach((ring, r) => {
    for (let i = 0; i + 1 < ring.length; i++, k++) {
      const [ax, ay] = ring[i] as Position;
      const [bx, by] = ring[i + 1] as Position;
      seg.set([ax, ay, bx, by], 4 * k);
      ringOf[k] = r;
      idxOf[k] = i;
    }
  });
  forNearbySegments(seg, m, (t, s) => {
    const ra = ringOf[t] as number;
    const rb = ringOf[s] as number;
    if (mode === 'parts' && group[ra] === group[rb]) return;
    const c = contact(seg, t, s);
    if (c === null) return;
    if (ra === rb) {
      const n = sizes[ra] as number;
      const i = idxOf[t] as number;
      const j = idxOf[s] as number;
      const adjacent = (i + 1) % n === j || (j + 1) % n === i;
      if (!adjacent || c.kind === 'overlap') report(ra, rb, c.x, c.y, c.kind);
    } else if (c.kind === 'proper') {
      report(ra, rb, c.x, c.y, c.kind);
    }
  });
}

/**
 * Calls `visit(s, t)` once for every pair of segments (flat array, 4 numbers each) whose boxes meet,
 * through a uniform grid of about one cell per segment: linear for the usual shapes, where a sweep would
 * be quadratic on many parts side by side. A pair is visited in the cell holding the lower-left corner of
 * the overlap of its boxes.
 */
function forNearbySegments(seg: Float64Array, m: number, visit: (s: number, t: number) => void): void {
  const box = new Float64Array(4 * m);
  let gx0 = Infinity;
  let gy0 = Infinity;
  let gx1 = -Infinity;
  let gy1 = -Infinity;
  for (let s = 0; s < m; s++) {
    const ax = seg[4 * s] as number,
      ay = seg[4 * s + 1] as number,
      bx = seg[4 * s + 2] as number,
      by = seg[4 * s + 3] as number;
    box[4 * s] = Math.min(ax, bx);
    box[4 * s + 1] = Math.min(ay, by);
    box[4 * s + 2] = Math.max(ax, bx);
    box[4 * s + 3] = Math.max(ay, by);
    gx0 = Math.min(gx0, box[4 * s] as number);
    gy0 = Math.min(gy0, box[4 * s + 1] as number);
    gx1 = Math.max(gx1, box[4 * s + 2] as number);
    gy1 = Math.max(gy1, box[4 * s + 3] as number);
  }
  const g = Math.max(1, Math.ceil(Math.sqrt(m)));
  const w = (gx1 - gx0) / g || 1;
  const h = (gy1 - gy0) / g || 1;
  const col = (x: number) => Math.min(g - 1, Math.max(0, Math.floor((x - gx0) / w)));
  const row = (y: number) => Math.min(g - 1, Math.max(0, Math.floor((y - gy0) / h)));
  // Cell lists in one flat array (counting sort): no per-cell allocation.
  const start = new Int32Array(g * g + 1);
  const each = (s: number, f: (cell: number) => void) => {
    const c0 = col(box[4 * s] as number);
    const c1 = col(box[4 * s + 2] as number);
    const r1 = row(box[4 * s + 3] as number);
    for (let r = row(box[4 * s + 1] as number); r <= r1; r++) for (let c = c0; c <= c1; c++) f(r * g + c);
  };
  for (let s = 0; s < m; s++) each(s, (cell) => start[cell + 1]++);
  for (let i = 0; i < g * g; i++) start[i + 1] = (start[i + 1] as number) + (start[i] as number);
  const fill = start.slice(0, g * g);
  const entries = new Int32Array(start[g * g] as number);
  for (let s = 0; s < m; s++) each(s, (cell) => (entries[fill[cell]++] = s));
  for (let cell = 0; cell < g * g; cell++) {
    const end = start[cell + 1] as number;
    for (let i = start[cell] as number; i < end; i++) {
      const s = entries[i] as number;
      for (let j = i + 1; j < end; j++) {
        const t = entries[j] as number;
        const x0 = Math.max(box[4 * s] as number, box[4 * t] as number);
        const y0 = Math.max(box[4 * s + 1] as number, box[4 * t + 1] as number);
        if (x0 > Math.min(box[4 * s + 2] as number, box[4 * t + 2] as number)) continue;
        if (y0 > Math.min(box[4 * s + 3] as number, box[4 * t + 3] as number)) continue;
        if (row(y0) * g + col(x0) !== cell) continue;
        visit(Math.min(s, t), Math.max(s, t));
      }
    }
  }
}

/** How edges s and t of the flat array meet, if they do, and where. */
function contact(seg: Float64Array, s: number, t: number): { kind: Contact; x: number; y: number } | null {
  const ax = seg[4 * s] as number,
    ay = seg[4 * s + 1] as number,
    bx = seg[4 * s + 2] as number,
    by = seg[4 * s + 3] as number;
  const cx = seg[4 * t] as number,
    cy = seg[4 * t + 1] as number,
    dx = seg[4 * t + 2] as number,
    dy = seg[4 * t + 3] as number;
  const d1 = orient(cx, cy, dx, dy, ax, ay);
  const d2 = orient(cx, cy, dx, dy, bx, by);
  const d3 = orient(ax, ay, bx, by, cx, cy);
  const d4 = orient(ax, ay, bx, by, dx, dy);
  if (d1 === 0 && d2 === 0) {
    // Collinear: compare the stretches along the dominant axis.
    const useX = Math.abs(bx - ax) >= Math.abs(by - ay);
    const [s0, s1] = useX ? [Math.min(ax, bx), Math.max(ax, bx)] : [Math.min(ay, by), Math.max(ay, by)];
    const [t0, t1] = useX ? [Math.min(cx, dx), Math.max(cx, dx)] : [Math.min(cy, dy), Math.max(cy, dy)];
    const lo = Math.max(s0, t0);
    const hi = Math.min(s1, t1);
    if (hi < lo) return null;
    const f = (v: number) => (useX ? [v, ay + ((v - ax) / (bx - ax || 1)) * (by - ay)] : [ax + ((v - ay) / (by - ay || 1)) * (bx - ax), v]);
    const [x, y] = f((lo + hi) / 2) as [number, number];
    return { kind: hi > lo ? 'overlap' : 'touch', x, y };
  }
  if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))) {
    const u = d1 / (d1 - d2);
    return { kind: 'proper', x: ax + u * (bx - ax), y: ay + u * (by - ay) };
  }
  if (d1 === 0 && within(cx, cy, dx, dy, ax, ay)) return { kind: 'touch', x: ax, y: ay };
  if (d2 === 0 && within(cx, cy, dx, dy, bx, by)) return { kind: 'touch', x: bx, y: by };
  if (d3 === 0 && within(ax, ay, bx, by, cx, cy)) return { kind: 'touch', x: cx, y: cy };
  if (d4 === 0 && within(ax, ay, bx, by, dx, dy)) return { kind: 'touch', x: dx, y: dy };
  return null;
}

/** (px, py), known to be collinear with the segment, lies on it. */
function within(ax: number, ay: number, bx: number, by: number, px: number, py: number): boolean {
  return px >= Math.min(ax, bx) && px <= Math.max(ax, bx) && py >= Math.min(ay, by) && py <= Math.max(ay, by);
}
