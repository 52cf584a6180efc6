/**
 * Areas and circles on the WGS84 ellipsoid (pure). The only file that imports geographiclib-geodesic.
 *
 * Two readings of a lon/lat polygon edge exist: the geodesic between its ends, or the straight line in
 * lon/lat that GeoJSON (RFC 7946 §3.1.1) prescribes and that the coverage, the antimeridian split and the
 * reprojection all use. For small AOIs they agree (a 1 km box: ~3e-7); for big ones they do not (a 1°
 * box at the equator: 2.6e-5; a 1,000,000 km² box at 55–65° N: ~2 %). `ellipsoidalAreaM2` therefore
 * measures the region the pipeline actually selects pixels and features from: lon/lat-straight edges,
 * exactly (a line integral of the authalic-latitude zone area), so splitting a polygon at the antimeridian
 * or at any meridian leaves its area unchanged. `geodesicAreaLeftOfRingM2` is geographiclib's geodesic
 * polygon area, for callers (and tests) that want the geodesic reading.
 */
import geographiclib from 'geographiclib-geodesic';
import type { MultiPolygonCoords, Ring } from './types.ts';

const geod = geographiclib.Geodesic.WGS84;

/** WGS84 semi-major axis (m). */
const WGS84_A = 6378137;
/** WGS84 flattening. */
const WGS84_F = 1 / 298.257223563;
const E2 = WGS84_F * (2 - WGS84_F);
const E = Math.sqrt(E2);
const B2 = WGS84_A * WGS84_A * (1 - E2);
const DEG = Math.PI / 180;

/**
 * Vertices of a geodesic circle. An inscribed N-gon has relative area deficit ≈ 2π²/(3N²): 1.0e-4 for
 * N = 256, ten times inside the 0.1 % of contract §3 (measured in test/geometry/geodesic.test.ts).
 */
export const CIRCLE_VERTICES = 256;

/**
 * Area in m² per radian of longitude between the equator and latitude `latRad` (signed, odd in lat):
 * (b²/2)·[sinφ/(1−e²sin²φ) + atanh(e·sinφ)/e], the authalic-latitude integral.
 */
function zoneAreaPerRadian(latRad: number): number {
  const s = Math.sin(latRad);
  return (B2 / 2) * (s / (1 - E2 * s * s) + Math.atanh(E * s) / E);
}

/** Total surface of the WGS84 ellipsoid in m² (510,065,621.7 km²). */
export const WGS84_AREA_M2 = 4 * Math.PI * zoneAreaPerRadian(Math.PI / 2);

// 4-point Gauss–Legendre on [0, 1].
const GL_T = [0.0694318442029737, 0.33000947820757187, 0.6699905217924281, 0.9305681557970262];
const GL_W = [0.17392742256872692, 0.3260725774312731, 0.3260725774312731, 0.17392742256872692];

/**
 * zoneAreaPerRadian(b) − zoneAreaPerRadian(a), radians. Close latitudes integrate the area density
 * b²·cosφ/(1−e²sin²φ)² directly (4-point Gauss–Legendre, ~1e-15 for a span under 0.02 rad), because the
 * difference of two ~2e13 values would lose up to 1e-7 of a small cell's area near the poles.
 */
function zoneDiff(a: number, b: number): number {
  const d = b - a;
  if (Math.abs(d) > 0.02) return zoneAreaPerRadian(b) - zoneAreaPerRadian(a);
  let sum = 0;
  for (let k = 0; k < 4; k++) {
    const p = a + (GL_T[k] as number) * d;
    const sn = Math.sin(p);
    const w = 1 - E2 * sn * sn;
    sum += ((GL_W[k] as number) * B2 * Math.cos(p)) / (w * w);
  }
  return sum * d;
}

/**
 * Exact area in m² on the WGS84 ellipsoid of the cell bounded by the parallels `lat1`, `lat2` and two
 * meridians `dLonDeg` apart (degrees; order and sign do not matter). Closed form (authalic latitude),
 * not a geodesic polygon: the cell's north and south sides are parallels.
 */
export function latLonCellAreaM2(lat1: number, lat2: number, dLonDeg: number): number {
  return Math.abs(zoneDiff(clampLat(lat1) * DEG, clampLat(lat2) * DEG) * dLonDeg * DEG);
}

function clampLat(lat: number): number {
  return Math.max(-90, Math.min(90, lat));
}

/** Edge pieces span at most this many degrees of latitude, so that 4-point Gauss–Legendre is exact to ~1e-15. */
const MAX_PIECE_DLAT = 2;

/**
 * ∫ (zoneAreaPerRadian(φ) − zoneAreaPerRadian(φref)) dλ along the lon/lat-straight edge (λ in radians);
 * measuring from the ring's own latitude keeps small rings free of cancellation.
 */
function edgeIntegral(lon1: number, lat1: number, lon2: number, lat2: number, ref: number): number {
  const dLon = (lon2 - lon1) * DEG;
  if (dLon === 0) return 0;
  const dLat = lat2 - lat1;
  if (dLat === 0) return dLon * zoneDiff(ref, lat1 * DEG);
  const pieces = Math.max(1, Math.ceil(Math.abs(dLat) / MAX_PIECE_DLAT));
  let mean = 0;
  for (let p = 0; p < pieces; p++) {
    for (let k = 0; k < 4; k++) {
      const t = (p + (GL_T[k] as number)) / pieces;
      mean += ((GL_W[k] as number) / pieces) * zoneDiff(ref, (lat1 + t * dLat) * DEG);
    }
  }
  return dLon * mean;
}

/**
 * Signed area in m² of the region bounded by `ring` with edges straight in lon/lat (GeoJSON's reading),
 * on the WGS84 ellipsoid: positive when counter-clockwise in lon/lat. Exact up to rounding. A ring that
 * winds round a pole (after the antimeridian jumps are removed) is closed through the nearer-in-area pole.
 */
export function signedRingAreaM2(ring: Ring): number {
  const n = ring.length;
  if (n < 3) return 0;
  const xy = scratch(n);
  for (let i = 0; i < n; i++) {
    const p = ring[i] as Ring[number];
    xy[2 * i] = p[0];
    xy[2 * i + 1] = p[1];
  }
  return signedRingAreaXYM2(xy, 0, n);
}

let scratchXY = new Float64Array(1024);
function scratch(n: number): Float64Array {
  if (scratchXY.length < 2 * n) scratchXY = new Float64Array(2 * n * 2);
  return scratchXY;
}

/**
 * signedRingAreaM2 of the ring of `n` vertices stored as x, y pairs from index `start` (in pairs) of
 * `xy`: the form WKB decodes to, measured without allocating. Longitude jumps of more than 180° are read
 * as the short way across the antimeridian (but not an edge running exactly from −180 to 180, which is a
 * full-width edge such as a polar cap's); GeoJSON rings from parseAoi never jump, pixel outlines mapped
 * to lon/lat may.
 */
export function signedRingAreaXYM2(xy: Float64Array, start: number, n: number): number {
  if (n < 3) return 0;
  const o = 2 * start;
  const ref = (xy[o + 1] as number) * DEG;
  let sum = 0;
  let offset = 0;
  let prevRaw = xy[o] as number;
  let prevLon = prevRaw;
  const firstLon = prevLon;
  for (let i = 1; i < n; i++) {
    const raw = xy[o + 2 * i] as number;
    const step = raw + offset - prevLon;
    const fullWidth = Math.abs(prevRaw) === 180 && Math.abs(raw) === 180;
    if (!fullWidth && step > 180) offset -= 360;
    else if (!fullWidth && step < -180) offset += 360;
    const lon = raw + offset;
    sum -= edgeIntegral(prevLon, xy[o + 2 * i - 1] as number, lon, xy[o + 2 * i + 1] as number, ref);
    prevLon = lon;
    prevRaw = raw;
  }
  const netLon = (prevLon - firstLon) * DEG;
  if (Math.abs(netLon) > 1e-9) {
    // Unclosed in lon/lat: the ring encircles a pole. Close it along the north or the south pole and keep
    // the smaller region.
    const viaNorth = sum + zoneDiff(ref, Math.PI / 2) * netLon;
    const viaSouth = sum + zoneDiff(ref, -Math.PI / 2) * netLon;
    return Math.abs(viaNorth) <= Math.abs(viaSouth) ? viaNorth : viaSouth;
  }
  return sum;
}

/**
 * Area in m² of a (multi)polygon on the WGS84 ellipsoid: exterior rings minus holes, whatever their
 * winding, each polygon's result taken as non-negative. Edges are straight in lon/lat (see the file
 * comment); correct for polygons of any size, across the antimeridian (longitudes beyond ±180 or a
 * jump across it) and for caps bounded by the pole (edges along latitude ±90). 0 for an empty input.
 */
export function ellipsoidalAreaM2(polygons: MultiPolygonCoords): number {
  let total = 0;
  for (const polygon of polygons) {
    let area = 0;
    polygon.forEach((ring, k) => {
      const a = Math.abs(signedRingAreaM2(ring));
      area += k === 0 ? a : -a;
    });
    total += Math.max(0, area);
  }
  return total;
}

/**
 * geographiclib's geodesic polygon area in m² of the region to the LEFT of the ring as traversed, in
 * [0, ellipsoid area): counter-clockwise rings give their interior, even when it is more than half the
 * ellipsoid or contains a pole. Edges are geodesics between consecutive vertices.
 */
export function geodesicAreaLeftOfRingM2(ring: Ring): number {
  const poly = geod.Polygon(false);
  const n = ring.length;
  const closed = n > 1 && samePosition(ring[0] as Ring[number], ring[n - 1] as Ring[number]);
  for (let i = 0; i < (closed ? n - 1 : n); i++) {
    const [lon, lat] = ring[i] as Ring[number];
    poly.AddPoint(lat, lon);
  }
  const area = poly.Compute(false, false).area ?? 0;
  return area;
}

function samePosition(a: Ring[number], b: Ring[number]): boolean {
  return a[0] === b[0] && a[1] === b[1];
}

/** Geodesic distance in metres between two lon/lat points on WGS84. */
export function geodesicDistanceM(lon1: number, lat1: number, lon2: number, lat2: number): number {
  return geod.Inverse(lat1, lon1, lat2, lon2).s12 ?? Number.NaN;
}

/**
 * The geodesic circle of `radiusM` metres around (lon, lat) on WGS84 as a closed ring of `vertices` + 1
 * positions: vertex i is `radiusM` along the geodesic leaving the centre at azimuth −360·i/vertices, so
 * the ring runs counter-clockwise round the centre. Longitudes are normalised to [−180, 180] vertex by
 * vertex (a ring crossing the antimeridian jumps; parseAoi splits it). Radius must be > 0 and below the
 * distance to the cut locus (~19,970 km); parseAoi enforces that.
 */
export function geodesicCircle(lon: number, lat: number, radiusM: number, vertices: number = CIRCLE_VERTICES): Ring {
  const ring: Ring = [];
  for (let i = 0; i < vertices; i++) {
    const azimuth = i === 0 ? 0 : 360 - (360 * i) / vertices;
    const d = geod.Direct(lat, lon, azimuth, radiusM);
    ring.push([normaliseLon(d.lon2 ?? Number.NaN), d.lat2 ?? Number.NaN]);
  }
  ring.push([...(ring[0] as Ring[number])] as Ring[number]);
  return ring;
}

function normaliseLon(lon: number): number {
  if (lon >= -180 && lon <= 180) return lon;
  const r = ((((lon + 180) % 360) + 360) % 360) - 180;
  return r;
}
