/** Plain coordinate types shared by the pure geometry, coverage and vector modules. */

/** [x, y]: lon/lat in degrees for WGS84, metres (or the CRS unit) once projected, or pixel units. */
export type Position = [number, number];
/** A closed ring: first position equals the last. */
export type Ring = Position[];
/** Exterior ring first, then holes. */
export type PolygonCoords = Ring[];
export type MultiPolygonCoords = PolygonCoords[];

/** Axis-aligned box [minX, minY, maxX, maxY]. */
export type BBox = [number, number, number, number];

/**
 * A validated area of interest (contract §3), in WGS84 lon/lat.
 * - `point`: a bare point (no radius or radius 0).
 * - `area`: a polygon, multipolygon or geodesic circle, split at the antimeridian so that every
 *   longitude lies in [-180, 180]; `areaM2` is its area on the WGS84 ellipsoid.
 */
export type Aoi = { kind: 'point'; lon: number; lat: number } | { kind: 'area'; polygons: MultiPolygonCoords; areaM2: number; source: 'polygon' | 'circle' };
