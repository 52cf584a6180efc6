/** A source's extent as a lon/lat ring for a map (sources/info): densified edges, continuous longitudes, RFC 7946 bounds. */
import { ZonalError } from '../errors.ts';
import { makeTransformer } from '../geometry/reproject.ts';

const WGS84 = '+proj=longlat +datum=WGS84 +no_defs';
/** Points per footprint edge, so a projected raster's curved edges look right on a lon/lat map. */
const EDGE_POINTS = 16;

export type Position = [number, number];
export interface Footprint {
  type: 'Polygon';
  coordinates: Position[][];
}

export function ring(points: Position[]): Footprint {
  return { type: 'Polygon', coordinates: [[...points, points[0] as Position]] };
}

/**
 * RFC 7946 §5.2 bounds of a ring whose longitudes run continuously (unwrapped): west > east when it crosses
 * the antimeridian; the whole width when it goes around the globe.
 */
export function boundsOf(points: readonly Position[]): [number, number, number, number] {
  let w = Infinity,
    s = Infinity,
    e = -Infinity,
    n = -Infinity;
  for (const [x, y] of points) {
    w = Math.min(w, x);
    e = Math.max(e, x);
    s = Math.min(s, y);
    n = Math.max(n, y);
  }
  if (e - w >= 360) return [-180, s, 180, n];
  if (w >= -180 && e <= 180) return [w, s, e, n];
  const wrap = (x: number): number => ((((x + 180) % 360) + 360) % 360) - 180;
  const east = wrap(e);
  return [wrap(w), s, east === -180 ? 180 : east, n];
}

/** Longitudes made continuous along the ring (no 360° jump at the antimeridian), centred on [-180, 180]. */
export function unwrap(points: Position[]): Position[] {
  const out: Position[] = [];
  for (const [x, y] of points) {
    const prev = out.length > 0 ? (out[out.length - 1] as Position)[0] : x;
    out.push([x + 360 * Math.round((prev - x) / 360), y]);
  }
  const min = Math.min(...out.map((p) => p[0]));
  const shift = min >= 180 ? -360 : Math.max(...out.map((p) => p[0])) <= -180 ? 360 : 0;
  return shift === 0 ? out : out.map(([x, y]) => [x + shift, y]);
}

/** The rectangle (x0, y0)–(x1, y1) in `proj4` as a densified lon/lat ring (clockwise from top-left). */
export function lonLatRing(proj4: string, corner: (u: number, v: number) => Position): Position[] {
  const t = makeTransformer(proj4, WGS84).forward;
  const out: Position[] = [];
  const edges: [number, number, number, number][] = [
    [0, 0, 1, 0],
    [1, 0, 1, 1],
    [1, 1, 0, 1],
    [0, 1, 0, 0],
  ];
  for (const [u0, v0, u1, v1] of edges) {
    for (let k = 0; k < EDGE_POINTS; k++) {
      const f = k / EDGE_POINTS;
      const p = t(corner(u0 + (u1 - u0) * f, v0 + (v1 - v0) * f)) as Position;
      if (Number.isFinite(p[0]) && Number.isFinite(p[1])) out.push([p[0], p[1]]);
    }
  }
  if (out.length < 3) throw new ZonalError('unsupported_raster', "The source's extent cannot be placed on a longitude/latitude map.");
  return unwrap(out);
}
