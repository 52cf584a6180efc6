/**
 * Zone geometries read from files, as GeoJSON: WKT text (wkx, the only file importing it), a WKB Shape
 * (geometry/wkb.ts) and GeoJSON text; coordinates of a projected file moved to WGS84 longitude/latitude.
 */
import wkx from 'wkx';
import type { Shape } from '../geometry/wkb.ts';
import type { Position } from '../geometry/types.ts';

export type GeoJsonGeometry = { type: string; coordinates?: unknown; geometries?: unknown };

/** A WKB Shape as a GeoJSON geometry: one part is a Polygon, LineString or Point, several the Multi- type. */
export function shapeToGeometry(shape: Shape | null): GeoJsonGeometry | null {
  if (shape === null) return null;
  switch (shape.kind) {
    case 'polygon':
      return shape.polygons.length === 1 ? { type: 'Polygon', coordinates: shape.polygons[0] } : { type: 'MultiPolygon', coordinates: shape.polygons };
    case 'line':
      return shape.lines.length === 1 ? { type: 'LineString', coordinates: shape.lines[0] } : { type: 'MultiLineString', coordinates: shape.lines };
    case 'point':
      return shape.points.length === 1 ? { type: 'Point', coordinates: shape.points[0] } : { type: 'MultiPoint', coordinates: shape.points };
  }
}

/** A geometry cell of a CSV file: GeoJSON text (`{...}`) or WKT (EWKT's `SRID=4326;` prefix allowed). Throws with the reason. */
export function parseGeometryText(text: string): GeoJsonGeometry | null {
  const t = text.trim();
  if (t === '') return null;
  if (t.startsWith('{')) {
    let g: unknown;
    try {
      g = JSON.parse(t);
    } catch {
      throw new Error('its GeoJSON geometry is not valid JSON');
    }
    if (!g || typeof g !== 'object' || typeof (g as { type?: unknown }).type !== 'string') throw new Error('its GeoJSON geometry has no "type"');
    return g as GeoJsonGeometry;
  }
  const srid = /^SRID=(\d+);/i.exec(t);
  if (srid && srid[1] !== '4326') throw new Error(`its WKT is in SRID ${srid[1]}; zones must be WGS84 longitude/latitude (SRID 4326)`);
  let g: wkx.Geometry;
  try {
    g = wkx.Geometry.parse(t);
  } catch (e) {
    throw new Error(`its WKT could not be read (${(e as Error).message.replace(/\.$/, '')})`);
  }
  return g.toGeoJSON() as GeoJsonGeometry;
}

/** The geometry with every position moved by `move` (a projected file's zones → longitude/latitude). */
export function mapPositions(g: GeoJsonGeometry | null, move: (p: Position) => Position): GeoJsonGeometry | null {
  if (g === null) return null;
  const walk = (c: unknown): unknown => {
    if (!Array.isArray(c)) return c;
    if (typeof c[0] === 'number') return move([c[0], c[1] as number]);
    return c.map(walk);
  };
  return { ...g, coordinates: walk(g.coordinates) };
}
