/**
 * Coordinate transformation (pure): the only proj4 user. Polygon edges are straight in the
 * SOURCE coordinates (lon/lat for an AOI, as GeoJSON says), so a long edge becomes a curve in the target
 * CRS; `transformPolygons` follows that curve by adaptive subdivision (contract §5: "edges densified so
 * long edges stay true").
 */
import proj4, { type Converter } from 'proj4';
import { ZonalError } from '../errors.ts';
import type { BBox, MultiPolygonCoords, Position, Ring } from './types.ts';
import { EMPTY_BBOX } from './bbox.ts';

/** A point transformation; [NaN, NaN] for a point outside the projection's domain. */
export type PointTransform = (p: Position) => Position;

export interface Transformer {
  forward: PointTransform;
  inverse: PointTransform;
}

const CONVERTERS = new Map<string, Converter>();
const MAX_CACHED = 64;

function converter(fromDef: string, toDef: string): Converter {
  const key = `${fromDef}\u0000${toDef}`;
  let c = CONVERTERS.get(key);
  if (c) {
    CONVERTERS.delete(key);
  } else {
    try {
      c = proj4(fromDef, toDef);
    } catch {
      throw new ZonalError('unsupported_raster', 'The coordinate reference system is not supported.');
    }
  }
  CONVERTERS.set(key, c);
  if (CONVERTERS.size > MAX_CACHED) CONVERTERS.delete(CONVERTERS.keys().next().value as string);
  return c;
}

/** Whether proj4js accepts a definition (crs.ts asks before it hands one out). */
export function isValidProj4(def: string): boolean {
  try {
    proj4(def);
    return true;
  } catch {
    return false;
  }
}

function isLongLat(def: string): boolean {
  return /\+proj=(longlat|latlong|lonlat|latlon)\b/.test(def);
}

function finite(p: Position): boolean {
  return Number.isFinite(p[0]) && Number.isFinite(p[1]);
}

/**
 * True when `back` (a round trip of `p`) is `p`: within 5e-6° (~0.5 m) in lon/lat, longitudes compared
 * modulo 360 and ignored at the poles, or within 0.5 units in a projected CRS. Far outside a projection's
 * zone proj4 can return finite nonsense (transverse Mercator 85° from its meridian: metres to kilometres
 * off on the way back); the round trip exposes it. proj4's 7-parameter datum shifts do not invert
 * exactly (up to ~1.3 mm, ~1.2e-8°), hence the slack.
 */
function sameSpot(p: Position, back: Position, geographic: boolean): boolean {
  if (!finite(back)) return false;
  if (!geographic) return Math.abs(back[0] - p[0]) <= 0.5 && Math.abs(back[1] - p[1]) <= 0.5;
  if (Math.abs(back[1] - p[1]) > 5e-6) return false;
  if (Math.abs(p[1]) > 90 - 1e-6) return true;
  const dLon = Math.abs(((((back[0] - p[0]) % 360) + 540) % 360) - 180);
  return dLon <= 5e-6;
}

/**
 * Point transformations between two proj4 definitions, forward (from → to) and inverse. A point that
 * proj4 rejects, maps to a non-finite value, or does not map back to itself (see `sameSpot`) comes out
 * as [NaN, NaN]. Throws ZonalError('unsupported_raster') when proj4 cannot parse a definition.
 */
export function makeTransformer(fromDef: string, toDef: string): Transformer {
  const c = converter(fromDef, toDef);
  const fromGeo = isLongLat(fromDef);
  const toGeo = isLongLat(toDef);
  const raw =
    (f: Converter['forward']) =>
    (p: Position): Position => {
      try {
        // enforceAxis: proj4js applies a definition's +axis (south-oriented TM, Krovak south-west) only when asked.
        const q = f([p[0], p[1]], true);
        return [q[0] as number, q[1] as number];
      } catch {
        return [Number.NaN, Number.NaN];
      }
    };
  const fwd = raw(c.forward);
  const inv = raw(c.inverse);
  const checked =
    (there: PointTransform, back: PointTransform, geographic: boolean): PointTransform =>
    (p) => {
      const q = there(p);
      return finite(q) && sameSpot(p, back(q), geographic) ? q : [Number.NaN, Number.NaN];
    };
  return { forward: checked(fwd, inv, fromGeo), inverse: checked(inv, fwd, toGeo) };
}

export interface DensifyOptions {
  /** Deepest halving of one input edge (2^depth pieces at most). Default 16. */
  maxDepth?: number;
  /**
   * Output vertices after which edges are no longer subdivided (the shape stays valid, only coarser; the
   * midpoints already on the way down are kept, at most maxDepth more). Default 2,000,000.
   */
  maxVertices?: number;
}

function notExpressible(): ZonalError {
  return new ZonalError('invalid_geometry', "The area of interest cannot be expressed in the raster's coordinate system.");
}

/**
 * Every ring transformed by `forward`, each input edge (straight in the source coordinates) subdivided at
 * its midpoint, recursively, while the transformed midpoint lies more than `tolerance` (target units,
 * > 0) from the midpoint of the transformed ends. Rings stay closed; structure and order are kept.
 * Throws ZonalError('invalid_geometry') when any vertex or midpoint has no finite image.
 */
export function transformPolygons(polygons: MultiPolygonCoords, forward: PointTransform, tolerance: number, options: DensifyOptions = {}): MultiPolygonCoords {
  if (!(tolerance > 0)) throw new RangeError('transformPolygons: tolerance must be > 0');
  const maxDepth = options.maxDepth ?? 16;
  const maxVertices = options.maxVertices ?? 2_000_000;
  let count = 0;
  const project = (p: Position): Position => {
    const q = forward(p);
    if (!finite(q)) throw notExpressible();
    return q;
  };
  const densify = (a: Position, fa: Position, b: Position, fb: Position, depth: number, out: Ring): void => {
    if (depth >= maxDepth || count >= maxVertices) return;
    const m: Position = [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];
    const fm = project(m);
    const dx = fm[0] - (fa[0] + fb[0]) / 2;
    const dy = fm[1] - (fa[1] + fb[1]) / 2;
    if (Math.hypot(dx, dy) <= tolerance) return;
    densify(a, fa, m, fm, depth + 1, out);
    out.push(fm);
    count++;
    densify(m, fm, b, fb, depth + 1, out);
  };
  return polygons.map((polygon) =>
    polygon.map((ring) => {
      const out: Ring = [];
      const first = ring[0];
      if (!first) return out;
      const fFirst = project(first);
      out.push(fFirst);
      count++;
      let a = first;
      let fa = fFirst;
      for (let i = 1; i < ring.length; i++) {
        const b = ring[i] as Position;
        // The closing position reuses the first image, so the ring stays exactly closed.
        const closes = i === ring.length - 1 && b[0] === first[0] && b[1] === first[1];
        const fb = closes ? fFirst : project(b);
        densify(a, fa, b, fb, 0, out);
        out.push(closes ? [fFirst[0], fFirst[1]] : fb);
        count++;
        a = b;
        fa = fb;
      }
      return out;
    }),
  );
}

/**
 * Box of the image of `bbox` under `forward`: the images of `samplesPerEdge` points along each side
 * (GDAL's transform-bounds approach; an extreme inside the box, such as a pole, is not seen). Points
 * with no image are skipped; throws ZonalError('invalid_geometry') when none has one.
 */
export function transformBBox(bbox: BBox, forward: PointTransform, samplesPerEdge = 21): BBox {
  const [x0, y0, x1, y1] = bbox;
  const out: BBox = [...EMPTY_BBOX];
  const n = Math.max(2, samplesPerEdge);
  const add = (x: number, y: number) => {
    const q = forward([x, y]);
    if (!finite(q)) return;
    out[0] = Math.min(out[0], q[0]);
    out[1] = Math.min(out[1], q[1]);
    out[2] = Math.max(out[2], q[0]);
    out[3] = Math.max(out[3], q[1]);
  };
  for (let i = 0; i < n; i++) {
    const t = i / (n - 1);
    const x = x0 + t * (x1 - x0);
    const y = y0 + t * (y1 - y0);
    add(x, y0);
    add(x, y1);
    add(x0, y);
    add(x1, y);
  }
  if (!(out[0] <= out[2])) throw notExpressible();
  return out;
}
