/**
 * Polygon validity, pure: each ring closed, finite, with area; no ring crossing itself or another; holes
 * inside their shell and apart; the parts of a MultiPolygon apart. Every problem is a
 * ZonalError('invalid_geometry') with one sentence naming the ring and position, plus
 * `errors: [{ path, message }]` pointing into the request's `aoi`.
 */
import { ZonalError } from '../errors.ts';
import type { BBox, PolygonCoords, Position, Ring } from './types.ts';
import { bboxesIntersect, bboxOfRing } from './bbox.ts';
import { collinear, dedupe, interiorPoint, orient, planarArea, pointInPolygon, pointInRing } from './planar.ts';

export interface Namer {
  ring(p: number, r: number): string;
  rings(p: number, a: number, b: number): string;
  polygon(p: number): string;
  path(p: number, r?: number, i?: number): string;
}

export function namer(multi: boolean): Namer {
  return {
    ring: (p, r) => (multi ? `ring ${r} of polygon ${p}` : `ring ${r} of the polygon`),
    rings: (p, a, b) => (multi ? `rings ${a} and ${b} of polygon ${p}` : `rings ${a} and ${b} of the polygon`),
    polygon: (p) => (multi ? `polygon ${p}` : 'the polygon'),
    path: (p, r, i) => ['/aoi/coordinates', ...(multi ? [p] : []), ...(r === undefined ? [] : [r]), ...(i === undefined ? [] : [i])].join('/'),
  };
}

export function fail(sentence: string, path: string): never {
  const detail = sentence.charAt(0).toUpperCase() + sentence.slice(1);
  throw new ZonalError('invalid_geometry', detail, { errors: [{ path, message: detail }] });
}

/** Passed to toWorld: its cut pieces could not be joined back into rings (only rings that cross do that). */
export function unsplittable(): never {
  return fail('the polygon could not be split at the antimeridian; check that its rings do not cross.', '/aoi/coordinates');
}

function fmt(v: number): string {
  return String(Math.round(v * 1e6) / 1e6);
}

function at(x: number, y: number): string {
  return `near (${fmt(x)}, ${fmt(y)})`;
}

/** One polygon's rings checked and normalised (closed, no repeated positions, exterior CCW, holes CW). */
export function validPolygon(rings: number[][][], p: number, names: Namer): PolygonCoords {
  const out: PolygonCoords = rings.map((ring, r) => validRing(ring, p, r, names));
  let minX = Infinity;
  let maxX = -Infinity;
  for (const ring of out) {
    const b = bboxOfRing(ring);
    minX = Math.min(minX, b[0]);
    maxX = Math.max(maxX, b[2]);
  }
  if (maxX - minX > 360) {
    fail(`${names.polygon(p)} spans ${fmt(maxX - minX)}° of longitude (from ${fmt(minX)} to ${fmt(maxX)}), more than once round the globe.`, names.path(p));
  }
  checkNoCrossings(
    out,
    out.map(() => 0),
    'polygon',
    (ra, rb, x, y, kind) => {
      if (ra === rb) {
        const verb = kind === 'touch' ? 'touches itself' : kind === 'overlap' ? 'runs back over itself' : 'crosses itself';
        fail(`${names.ring(p, ra)} ${verb} ${at(x, y)}.`, names.path(p, ra));
      }
      fail(`${names.ring(p, Math.max(ra, rb))} crosses ring ${Math.min(ra, rb)} ${at(x, y)}.`, names.path(p, Math.max(ra, rb)));
    },
  );
  out.forEach((ring, r) => {
    const positive = planarArea(ring) > 0;
    if (positive !== (r === 0)) ring.reverse();
  });
  checkHoles(out, p, names);
  return out;
}

function validRing(ring: number[][], p: number, r: number, names: Namer): Ring {
  const name = names.ring(p, r);
  if (ring.length < 4) {
    fail(`${name} has ${ring.length} positions; a ring needs at least 4 (three corners and the closing position).`, names.path(p, r));
  }
  ring.forEach((pos, i) => {
    const [x, y] = pos as [number, number];
    const where = `position ${i} of ${name}`;
    if (!Number.isFinite(x) || !Number.isFinite(y)) fail(`${where} is not a pair of finite numbers.`, names.path(p, r, i));
    if (y < -90 || y > 90) fail(`${where} has latitude ${y}, outside [-90, 90].`, names.path(p, r, i));
    if (x < -360 || x > 360) {
      fail(`${where} has longitude ${x}, outside [-180, 180] (a ring may continue across the antimeridian only up to ±360).`, names.path(p, r, i));
    }
  });
  const first = ring[0] as number[];
  const last = ring[ring.length - 1] as number[];
  if (first[0] !== last[0] || first[1] !== last[1]) {
    fail(`${name} is not closed: its last position must repeat its first.`, names.path(p, r, ring.length - 1));
  }
  const clean = dedupe(ring.map((pos) => [pos[0], pos[1]] as Position));
  if (clean.length < 4 || collinear(clean)) fail(`${name} has zero area: its positions all lie on one line.`, names.path(p, r));
  return clean;
}

/** Every hole inside its exterior ring, and no hole inside another. Rings are known not to cross. */
function checkHoles(rings: PolygonCoords, p: number, names: Namer): void {
  const shell = rings[0] as Ring;
  const shellBox = bboxOfRing(shell);
  const boxes = rings.map(bboxOfRing);
  const inner = rings.map((ring) => interiorPoint([ring]));
  for (let h = 1; h < rings.length; h++) {
    const b = boxes[h] as BBox;
    const [x, y] = inner[h] as Position;
    const inside = b[0] >= shellBox[0] && b[1] >= shellBox[1] && b[2] <= shellBox[2] && b[3] <= shellBox[3] && pointInRing(shell, x, y) > 0;
    if (!inside) fail(`${names.ring(p, h)} (a hole) is not inside the exterior ring.`, names.path(p, h));
  }
  forOverlappingBoxes(boxes.slice(1), (a, b) => {
    const [ha, hb] = [a + 1, b + 1];
    const [xa, ya] = inner[ha] as Position;
    const [xb, yb] = inner[hb] as Position;
    if (pointInRing(rings[hb] as Ring, xa, ya) >= 0 || pointInRing(rings[ha] as Ring, xb, yb) >= 0) {
      fail(`${names.rings(p, ha, hb)} (both holes) overlap.`, names.path(p, hb));
    }
  });
}

/** The polygons of a MultiPolygon (after the antimeridian split) must not overlap; touching is fine. */
export function checkPartsDisjoint(pieces: PolygonCoords[], sourceOf: number[], names: Namer): void {
  const rings: Ring[] = [];
  const group: number[] = [];
  const ringOwner: number[] = [];
  pieces.forEach((piece, k) => {
    for (const ring of piece) {
      rings.push(ring);
      group.push(sourceOf[k] as number);
      ringOwner.push(k);
    }
  });
  checkNoCrossings(rings, group, 'parts', (ra, rb, x, y) => {
    const [pa, pb] = [group[ra] as number, group[rb] as number].sort((u, v) => u - v);
    fail(`polygons ${pa} and ${pb} cross each other ${at(x, y)}.`, names.path(pb as number));
  });
  const inner = pieces.map((piece) => interiorPoint(piece));
  forOverlappingBoxes(
    pieces.map((piece) => bboxOfRing(piece[0] as Ring)),
    (a, b) => {
      if (sourceOf[a] === sourceOf[b]) return;
      const [xa, ya] = inner[a] as Position;
      const [xb, yb] = inner[b] as Position;
      if (pointInPolygon(pieces[b] as PolygonCoords, xa, ya) >= 0 || pointInPolygon(pieces[a] as PolygonCoords, xb, yb) >= 0) {
        const [pa, pb] = [sourceOf[a] as number, sourceOf[b] as number].sort((u, v) => u - v);
        fail(`polygons ${pa} and ${pb} overlap.`, names.path(pb as number));
      }
    },
  );
}

/** Calls `visit(i, j)` (i < j) for every pair of intersecting boxes, sweeping along x. */
function forOverlappingBoxes(boxes: BBox[], visit: (i: number, j: number) => void): void {
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
type Contact = 'proper' | 'touch' | 'overlap';

/**
 * Sweep over every edge of `rings` (closed) looking for contacts. Within one ring, non-adjacent edges may
 * not meet at all and adjacent ones may not fold back onto each other. Between rings of the same group
 * (mode 'polygon') or of different groups (mode 'parts'), edges may touch or share a stretch but not cross.
 * `report(ringA, ringB, x, y, kind)` must throw.
 */
function checkNoCrossings(
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
