/**
 * The area of interest (contract §3), pure: a schema-checked GeoJSON Point (+ radius), Polygon or
 * MultiPolygon → a validated `Aoi` in WGS84 lon/lat, split at the antimeridian so that every longitude
 * lies in [−180, 180], exterior rings counter-clockwise and holes clockwise.
 *
 * Edges are straight in lon/lat (GeoJSON's reading), so validity is planar in the coordinates as given: a
 * ring that continues to 181 crosses the antimeridian there, and 179 → −179 is the long way round (such
 * edges longer than 180° come back cut into shorter pieces). A geodesic circle is drawn with
 * CIRCLE_VERTICES vertices; one containing a pole is closed along that pole, one containing both poles is
 * the world minus the region round the antipode. `areaM2` is ellipsoidalAreaM2 of the output, which is
 * exact for the lon/lat reading and unchanged by the split.
 * Every invalid input is a ZonalError('invalid_geometry') with one sentence naming the ring and position
 * (validity.ts), plus `errors: [{ path, message }]` pointing into the request's `aoi`.
 */
import { ZonalError } from '../errors.ts';
import type { Aoi, MultiPolygonCoords, PolygonCoords, Position, Ring } from './types.ts';
import { CIRCLE_VERTICES, ellipsoidalAreaM2, geodesicCircle, geodesicDistanceM } from './geodesic.ts';
import { checkPartsDisjoint, fail, namer, unsplittable, validPolygon } from './validity.ts';
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

/** Validate and normalise an AOI (contract §3). Throws ZonalError('invalid_geometry' | 'too_many_vertices'). */
export function parseAoi(input: AoiInput, limits: AoiLimits): Aoi {
  if (input.type === 'Point') return parsePoint(input, limits);
  const multi = input.type === 'MultiPolygon';
  const coords = multi ? input.coordinates : [input.coordinates];
  checkVertexCount(
    coords.reduce((n, p) => n + p.reduce((m, r) => m + r.length, 0), 0),
    limits,
  );
  const names = namer(multi);
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
  // Holes that cover their shell leave nothing (contract §3: invalid polygons are 422).
  if (!(areaM2 > 0)) throw new ZonalError('invalid_geometry', 'The area of interest has no area: its holes cover it entirely.');
  return { kind: 'area', polygons: out, areaM2, source: 'polygon' };
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
