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
import { bboxOfRing } from './bbox.ts';
import { checkNoCrossings, collinear, dedupe, forOverlappingBoxes, interiorPoint, planarArea, pointInPolygon, pointInRing } from './planar.ts';
import { poleCap, splitLongEdges, toWorld, unwrap } from './antimeridian.ts';

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

const WORLD_BOX: Ring = [
  [-180, -90],
  [180, -90],
  [180, 90],
  [-180, 90],
  [-180, -90],
];

/** Validate and normalise an AOI (CONTRACT §3). Throws ZonalError('invalid_geometry' | 'too_many_vertices'). */
export function parseAoi(input: AoiInput, limits: AoiLimits): Aoi {
  if (input.type === 'Point') return parsePoint(input, limits);
  const multi = input.type === 'MultiPolygon';
  const coords = multi ? input.coordinates : [input.coordinates];
  const names = namer(multi);
  checkVertexCount(
    coords.reduce((n, p) => n + p.reduce((m, r) => m + r.length, 0), 0),
    limits,
  );
  const polygons = coords.map((p, i) => validPolygon(p, i, names));
  const pieces: PolygonCoords[] = [];
  const sourceOf: number[] = [];
  polygons.forEach((p, i) => {
    for (const piece of toWorld(p, unsplittable)) {
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

/** Passed to toWorld: its cut pieces could not be joined back into rings (only rings that cross do that). */
function unsplittable(): never {
  return fail('the polygon could not be split at the antimeridian; check that its rings do not cross.', '/aoi/coordinates');
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
  checkVertexCount(
    polygons.reduce((n, p) => n + p.reduce((m, ring) => m + ring.length, 0), 0),
    limits,
  );
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
    if (!containsBoth) return toWorld([ring], unsplittable);
    // The circle covers both poles: the world minus the small region round the antipode, which the
    // (planar-clockwise) ring bounds.
    const complement = toWorld([[...ring].reverse()], unsplittable);
    return [[WORLD_BOX.map((p) => [...p] as Position), ...complement.map((p) => [...(p[0] as Ring)].reverse())]];
  }
  return toWorld([poleCap(vertices, ring, turns, winding > 0)], unsplittable);
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
