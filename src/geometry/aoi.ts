/**
 * The area of interest (CONTRACT §3), pure: a schema-checked GeoJSON Point (+ radius), Polygon or
 * MultiPolygon → a validated `Aoi` in WGS84 lon/lat, split at the antimeridian so that every longitude
 * lies in [−180, 180], exterior rings counter-clockwise and holes clockwise.
 *
 * Edges are straight in lon/lat (GeoJSON's reading), so validity is planar in the coordinates as given: a
 * ring that continues to 181 crosses the antimeridian there, and 179 → −179 is the long way round (such
 * edges longer than 180° come back cut into shorter pieces). A geodesic circle is drawn with
 * CIRCLE_VERTICES vertices; one containing a pole is closed along that pole, one containing both poles is
 * the world minus the region round the antipode. `areaM2` is ellipsoidalAreaM2 of the output, which is
 * exact for the lon/lat reading and unchanged by the split.
 * Every invalid input is a ZonalError('invalid_geometry') with one sentence naming the ring and position,
 * plus `errors: [{ path, message }]` pointing into the request's `aoi`.
 */
import { ZonalError } from '../errors.ts';
import type { Aoi, BBox, MultiPolygonCoords, PolygonCoords, Position, Ring } from './types.ts';
import { CIRCLE_VERTICES, ellipsoidalAreaM2, geodesicCircle, geodesicDistanceM } from './geodesic.ts';
import { bboxOfRing, bboxesIntersect } from './bbox.ts';

/** The request's AOI after the schema check (structurally; ranges are re-checked here). */
export type AoiInput =
  | { type: 'Point'; coordinates: number[]; radius?: number }
  | { type: 'Polygon'; coordinates: number[][][] }
  | { type: 'MultiPolygon'; coordinates: number[][][][] };

export interface AoiLimits {
  /** Most positions the AOI may have, counting every ring's closing position and a circle's vertices. */
  maxVertices: number;
}

/**
 * Largest circle radius accepted: below the ~19,970 km at which geodesics from an equatorial centre reach
 * their cut locus and a ring of equal distances stops being a circle.
 */
export const MAX_RADIUS_M = 19_900_000;

const WORLD_BOX: Ring = [[-180, -90], [180, -90], [180, 90], [-180, 90], [-180, -90]];

/** Validate and normalise an AOI (CONTRACT §3). Throws ZonalError('invalid_geometry' | 'too_many_vertices'). */
export function parseAoi(input: AoiInput, limits: AoiLimits): Aoi {
  if (input.type === 'Point') return parsePoint(input, limits);
  const multi = input.type === 'MultiPolygon';
  const coords = multi ? input.coordinates : [input.coordinates];
  const names = namer(multi);
  checkVertexCount(coords.reduce((n, p) => n + p.reduce((m, r) => m + r.length, 0), 0), limits);
  const polygons = coords.map((p, i) => validPolygon(p, i, names));
  const pieces: PolygonCoords[] = [];
  const sourceOf: number[] = [];
  polygons.forEach((p, i) => {
    for (const piece of toWorld(p)) {
      pieces.push(piece);
      sourceOf.push(i);
    }
  });
  if (polygons.length > 1) checkPartsDisjoint(pieces, sourceOf, names);
  const out = pieces.map(splitLongEdges);
  const areaM2 = ellipsoidalAreaM2(out);
  // Holes that cover their shell leave nothing (CONTRACT §3: invalid polygons are 422).
  if (!(areaM2 > 0)) throw new ZonalError('invalid_geometry', 'The area of interest has no area: its holes cover it entirely.');
  return { kind: 'area', polygons: out, areaM2, source: 'polygon' };
}

// ---------------------------------------------------------------------------------------------------
// Messages

interface Namer {
  ring(p: number, r: number): string;
  rings(p: number, a: number, b: number): string;
  polygon(p: number): string;
  path(p: number, r?: number, i?: number): string;
}

function namer(multi: boolean): Namer {
  return {
    ring: (p, r) => (multi ? `ring ${r} of polygon ${p}` : `ring ${r} of the polygon`),
    rings: (p, a, b) => (multi ? `rings ${a} and ${b} of polygon ${p}` : `rings ${a} and ${b} of the polygon`),
    polygon: (p) => (multi ? `polygon ${p}` : 'the polygon'),
    path: (p, r, i) => ['/aoi/coordinates', ...(multi ? [p] : []), ...(r === undefined ? [] : [r]), ...(i === undefined ? [] : [i])].join('/'),
  };
}

function fail(sentence: string, path: string): never {
  const detail = sentence.charAt(0).toUpperCase() + sentence.slice(1);
  throw new ZonalError('invalid_geometry', detail, { errors: [{ path, message: detail }] });
}

function fmt(v: number): string {
  return String(Math.round(v * 1e6) / 1e6);
}

function at(x: number, y: number): string {
  return `near (${fmt(x)}, ${fmt(y)})`;
}

function checkVertexCount(n: number, limits: AoiLimits): void {
  if (n > limits.maxVertices) {
    throw new ZonalError(
      'too_many_vertices',
      `The area of interest has ${n.toLocaleString('en')} vertices, above the limit of ${limits.maxVertices.toLocaleString('en')}.`,
      { limit_vertices: limits.maxVertices, vertices: n },
    );
  }
}

// ---------------------------------------------------------------------------------------------------
// Point and circle

function parsePoint(input: Extract<AoiInput, { type: 'Point' }>, limits: AoiLimits): Aoi {
  const [lon, lat] = input.coordinates as [number, number];
  if (!Number.isFinite(lon) || !Number.isFinite(lat)) fail('the point is not a pair of finite numbers.', '/aoi/coordinates');
  if (lon < -180 || lon > 180) fail(`the point's longitude ${lon} is outside [-180, 180].`, '/aoi/coordinates/0');
  if (lat < -90 || lat > 90) fail(`the point's latitude ${lat} is outside [-90, 90].`, '/aoi/coordinates/1');
  const r = input.radius ?? 0;
  if (!Number.isFinite(r) || r < 0) fail('the radius must be a finite number of metres, 0 or more.', '/aoi/radius');
  if (r === 0) return { kind: 'point', lon, lat };
  if (r > MAX_RADIUS_M) {
    fail(`a radius of ${r} m is too large: a circle's radius must be at most ${MAX_RADIUS_M} m.`, '/aoi/radius');
  }
  checkVertexCount(CIRCLE_VERTICES + 1, limits);
  const polygons = circlePolygons(lon, lat, r).map(splitLongEdges);
  // Cut at the antimeridian or closed along a pole, the circle has a few positions more.
  checkVertexCount(polygons.reduce((n, p) => n + p.reduce((m, ring) => m + ring.length, 0), 0), limits);
  return { kind: 'area', polygons, areaM2: ellipsoidalAreaM2(polygons), source: 'circle' };
}

/** The geodesic circle as lon/lat polygons within [−180, 180] (see the file comment). */
function circlePolygons(lon: number, lat: number, r: number): MultiPolygonCoords {
  // A vertex exactly on a pole has no meaningful longitude; the pole edge of the cap replaces it.
  const vertices = geodesicCircle(lon, lat, r)
    .slice(0, -1)
    .filter(([, la]) => Math.abs(la) < 90);
  vertices.push([...(vertices[0] as Position)] as Position);
  const { ring, turns } = unwrap(vertices);
  const n = ring.length;
  const winding = Math.round(((ring[n - 1] as Position)[0] - (ring[0] as Position)[0]) / 360);
  if (winding === 0) {
    const containsBoth = r > geodesicDistanceM(lon, lat, lon, 90) && r > geodesicDistanceM(lon, lat, lon, -90);
    if (!containsBoth) return toWorld([ring]);
    // The circle covers both poles: the world minus the small region round the antipode, which the
    // (planar-clockwise) ring bounds.
    const complement = toWorld([[...ring].reverse()]);
    return [[WORLD_BOX.map((p) => [...p] as Position), ...complement.map((p) => [...(p[0] as Ring)].reverse())]];
  }
  return toWorld([poleCap(vertices, ring, turns, winding > 0)]);
}

/** Longitudes made continuous (whole turns added), and the turn count of each position. */
function unwrap(ring: Ring): { ring: Ring; turns: number[] } {
  const out: Ring = [];
  const turns: number[] = [];
  let turn = 0;
  ring.forEach(([x, y], i) => {
    if (i > 0) {
      const prev = (ring[i - 1] as Position)[0];
      if (x - prev > 180) turn -= 1;
      else if (x - prev < -180) turn += 1;
    }
    turns.push(turn);
    out.push([x + 360 * turn, y]);
  });
  return { ring: out, turns };
}

/**
 * The cap between a circle that winds once round a pole and that pole: the circle cut where it meets the
 * antimeridian, from −180 to 180 (eastwards round the north pole, westwards round the south pole), then
 * along the pole back.
 */
function poleCap(vertices: Ring, unwrapped: Ring, turns: number[], north: boolean): Ring {
  const n = unwrapped.length; // closed: the last position is the first one turned once round
  const L = (i: number) => (unwrapped[i] as Position)[0];
  const L0 = L(0);
  // The antimeridian value c (180 + 360k) met first after the start, going round the pole.
  const k = north ? Math.ceil((L0 - 180) / 360) : Math.floor((L0 + 180) / 360);
  const c = north ? 180 + 360 * k : -180 + 360 * k;
  let j = 0;
  while (j < n - 2 && !(north ? L(j) <= c && c < L(j + 1) : L(j) >= c && c > L(j + 1))) j++;
  const a = unwrapped[j] as Position;
  const b = unwrapped[j + 1] as Position;
  const yc = a[0] === c ? a[1] : a[1] + ((c - a[0]) / (b[0] - a[0])) * (b[1] - a[1]);
  // Shift taking c to −180 (north) or 180 (south), in whole turns so that longitudes stay exact.
  const shiftTurns = north ? k + 1 : k - 1;
  const out: Ring = [[north ? -180 : 180, yc]];
  const m = n - 1;
  for (let t = 1; t <= m; t++) {
    const i = (j + t) % m;
    const extra = j + t >= m ? (north ? 1 : -1) : 0;
    const [lon, lat] = vertices[i] as Position;
    out.push([lon + 360 * ((turns[i] as number) + extra - shiftTurns), lat]);
  }
  const pole = north ? 90 : -90;
  const end = north ? 180 : -180;
  out.push([end, yc], [end, pole], [-end, pole], [-end, yc]);
  return dedupe(out);
}

// ---------------------------------------------------------------------------------------------------
// Polygon validation

/** One polygon's rings checked and normalised (closed, no repeated positions, exterior CCW, holes CW). */
function validPolygon(rings: number[][][], p: number, names: Namer): PolygonCoords {
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
  checkNoCrossings(out, out.map(() => 0), 'polygon', (ra, rb, x, y, kind) => {
    if (ra === rb) {
      const verb = kind === 'touch' ? 'touches itself' : kind === 'overlap' ? 'runs back over itself' : 'crosses itself';
      fail(`${names.ring(p, ra)} ${verb} ${at(x, y)}.`, names.path(p, ra));
    }
    fail(`${names.ring(p, Math.max(ra, rb))} crosses ring ${Math.min(ra, rb)} ${at(x, y)}.`, names.path(p, Math.max(ra, rb)));
  });
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

/** All positions on one straight line (to 1e-12 of the ring's size), so the ring encloses nothing. */
function collinear(ring: Ring): boolean {
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
function checkPartsDisjoint(pieces: PolygonCoords[], sourceOf: number[], names: Namer): void {
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
  forOverlappingBoxes(pieces.map((piece) => bboxOfRing(piece[0] as Ring)), (a, b) => {
    if (sourceOf[a] === sourceOf[b]) return;
    const [xa, ya] = inner[a] as Position;
    const [xb, yb] = inner[b] as Position;
    if (pointInPolygon(pieces[b] as PolygonCoords, xa, ya) >= 0 || pointInPolygon(pieces[a] as PolygonCoords, xb, yb) >= 0) {
      const [pa, pb] = [sourceOf[a] as number, sourceOf[b] as number].sort((u, v) => u - v);
      fail(`polygons ${pa} and ${pb} overlap.`, names.path(pb as number));
    }
  });
}

// ---------------------------------------------------------------------------------------------------
// Planar predicates

/** Shoelace area in coordinate units², positive when counter-clockwise. */
function planarArea(ring: Ring): number {
  let s = 0;
  const [x0, y0] = ring[0] as Position;
  for (let i = 1; i + 1 < ring.length; i++) {
    const [ax, ay] = ring[i] as Position;
    const [bx, by] = ring[i + 1] as Position;
    s += (ax - x0) * (by - y0) - (bx - x0) * (ay - y0);
  }
  return s / 2;
}

function orient(ax: number, ay: number, bx: number, by: number, cx: number, cy: number): number {
  return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
}

/** 1 inside, −1 outside, 0 on the boundary of a closed ring. */
function pointInRing(ring: Ring, x: number, y: number): number {
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
function pointInPolygon(polygon: PolygonCoords, x: number, y: number): number {
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
function interiorPoint(polygon: PolygonCoords): Position {
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
    const ax = seg[4 * s] as number, ay = seg[4 * s + 1] as number, bx = seg[4 * s + 2] as number, by = seg[4 * s + 3] as number;
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
  const ax = seg[4 * s] as number, ay = seg[4 * s + 1] as number, bx = seg[4 * s + 2] as number, by = seg[4 * s + 3] as number;
  const cx = seg[4 * t] as number, cy = seg[4 * t + 1] as number, dx = seg[4 * t + 2] as number, dy = seg[4 * t + 3] as number;
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

// ---------------------------------------------------------------------------------------------------
// Antimeridian

/** Consecutive repeated positions dropped; the ring closed. */
function dedupe(ring: Ring): Ring {
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

/**
 * Edges longer than 180° of longitude (a band's edge from −180 to 180, the pole edge of a cap, or a
 * deliberate long way round) cut into shorter pieces along the same straight line, so that no consumer
 * can mistake one for a short hop across the antimeridian.
 */
function splitLongEdges(polygon: PolygonCoords): PolygonCoords {
  return polygon.map((ring) => {
    const out: Ring = [];
    ring.forEach((b, i) => {
      const a = ring[i - 1];
      const dx = a ? b[0] - a[0] : 0;
      if (a && Math.abs(dx) > 180) {
        const n = Math.floor(Math.abs(dx) / 180) + 1;
        for (let k = 1; k < n; k++) out.push([a[0] + (dx * k) / n, a[1] + ((b[1] - a[1]) * k) / n]);
      }
      out.push(b);
    });
    return out;
  });
}

function shift(polygon: PolygonCoords, dx: number): PolygonCoords {
  return polygon.map((ring) => ring.map(([x, y]) => [x + dx, y] as Position));
}

/**
 * A polygon (exterior CCW, holes CW) whose longitudes may run past ±180 as the pieces that cover the
 * same ground with every longitude in [−180, 180]: cut at the antimeridian, the far side turned by 360°.
 * Its longitude span is at most 360°, so it meets at most one of the lines x = 180, x = −180.
 */
function toWorld(polygon: PolygonCoords): PolygonCoords[] {
  const [minX, , maxX] = bboxOfRing(polygon[0] as Ring);
  if (minX >= -180 && maxX <= 180) return [polygon];
  if (minX >= 180) return [shift(polygon, -360)];
  if (maxX <= -180) return [shift(polygon, 360)];
  const c = maxX > 180 ? 180 : -180;
  const left = clipSide(polygon, c, 'left');
  const right = clipSide(polygon, c, 'right');
  return c === 180 ? [...left, ...right.map((p) => shift(p, -360))] : [...left.map((p) => shift(p, 360)), ...right];
}

/** Where edge a→b meets x = c (exactly an endpoint when one lies on the line). */
function crossingAt(a: Position, b: Position, c: number): Position {
  if (a[0] === c) return [c, a[1]];
  if (b[0] === c) return [c, b[1]];
  return [c, a[1] + ((c - a[0]) / (b[0] - a[0])) * (b[1] - a[1])];
}

/**
 * The part of a polygon on one side of the vertical line x = c ('left': x ≤ c, 'right': x > c), as
 * polygons. Rings are cut into chains that enter and leave across the line; each chain's exit is joined
 * along the line to the next entry (upwards on the left side, downwards on the right, which keeps the
 * interior on the left), the usual rejoin of a polygon cut by a line.
 */
function clipSide(polygon: PolygonCoords, c: number, side: 'left' | 'right'): PolygonCoords[] {
  const inside = side === 'left' ? (x: number) => x <= c : (x: number) => x > c;
  const chains: Position[][] = [];
  const shells: Ring[] = [];
  const holes: Ring[] = [];
  polygon.forEach((ring, r) => {
    const m = ring.length - 1;
    const ins = ring.slice(0, m).map(([x]) => inside(x));
    const count = ins.filter(Boolean).length;
    if (count === m) {
      (r === 0 ? shells : holes).push(ring);
      return;
    }
    if (count === 0) return;
    const start = ins.indexOf(false);
    let chain: Position[] = [];
    for (let t = 0; t < m; t++) {
      const i = (start + t) % m;
      const j = (i + 1) % m;
      if (ins[i]) chain.push(ring[i] as Position);
      if (ins[i] !== ins[j]) {
        const p = crossingAt(ring[i] as Position, ring[j] as Position, c);
        if (ins[j]) {
          chain = [p];
        } else {
          chain.push(p);
          if (chain.some(([x]) => x !== c)) chains.push(chain);
        }
      }
    }
  });
  if (polygon.length > 0 && shells.length === 0 && chains.length === 0) return [];
  shells.push(...rejoin(chains, side === 'left'));
  const out: PolygonCoords[] = shells.map((s) => [s]);
  for (const hole of holes) {
    const [x, y] = interiorPoint([hole]);
    const home = out.find((p) => pointInRing(p[0] as Ring, x, y) > 0) ?? out[0];
    home?.push(hole);
  }
  return out;
}

/** Chains joined into closed rings along the cut line (see clipSide). */
function rejoin(chains: Position[][], upwards: boolean): Ring[] {
  const entryY = chains.map((ch) => (ch[0] as Position)[1]);
  const used = chains.map(() => false);
  const rings: Ring[] = [];
  for (let s = 0; s < chains.length; s++) {
    if (used[s]) continue;
    const ring: Position[] = [];
    let cur = s;
    for (let guard = 0; guard <= chains.length; guard++) {
      used[cur] = true;
      const chain = chains[cur] as Position[];
      ring.push(...chain);
      const exitY = (chain[chain.length - 1] as Position)[1];
      let next = -1;
      for (let e = 0; e < chains.length; e++) {
        if (used[e] && e !== s) continue;
        const y = entryY[e] as number;
        if (upwards ? y < exitY : y > exitY) continue;
        if (next === -1 || (upwards ? y < (entryY[next] as number) : y > (entryY[next] as number))) next = e;
      }
      if (next === -1) fail('the polygon could not be split at the antimeridian; check that its rings do not cross.', '/aoi/coordinates');
      if (next === s) break;
      cur = next;
    }
    const closed = dedupe(ring);
    if (closed.length >= 4 && planarArea(closed) > 0) rings.push(closed);
  }
  return rings;
}
