/**
 * The zones of a request (contract §8): a single AOI is one zone (a Feature keeps its id and properties);
 * a FeatureCollection's features are the zones, each geometry checked on its own as a single AOI's is, so
 * a bad zone is that zone's answer, not the request's.
 */
import { Value } from '@sinclair/typebox/value';
import { ZonalError } from '../errors.ts';
import type { Geometry, Zone, ZoneInput } from '../zonal/model.ts';
import { GEOMETRY_SCHEMAS, type AoiRequest, type GeometryRequest } from './aoi.ts';

function withRadius(g: GeometryRequest, radius: number | undefined): Geometry {
  return g.type === 'Point' && g.radius === undefined && radius !== undefined ? { ...g, radius } : g;
}

/** The zones of a request's `aoi`; 413 past the zone limit. The schema has checked a single AOI already. */
export function zonesOfAoi(aoi: AoiRequest, radius: number | undefined, maxZones: number): Zone[] {
  if (aoi.type !== 'FeatureCollection') {
    const feature = aoi.type === 'Feature' ? aoi : null;
    const geometry = feature ? feature.geometry : (aoi as GeometryRequest);
    const properties = (feature?.properties as Record<string, unknown> | null | undefined) ?? null;
    return [{ index: 0, id: feature?.id ?? null, properties, geometry, aoi: withRadius(geometry, radius) }];
  }
  if (aoi.features.length > maxZones) {
    throw new ZonalError(
      'too_many_zones',
      `The FeatureCollection has ${aoi.features.length.toLocaleString('en')} features, above the limit of ${maxZones.toLocaleString('en')} zones per request: split it into several requests.`,
      { limit_zones: maxZones, zones: aoi.features.length },
    );
  }
  return checkZones(
    aoi.features.map((f, index) => ({
      index,
      id: f.id ?? null,
      properties: (f.properties as Record<string, unknown> | null | undefined) ?? null,
      geometry: f.geometry,
    })),
    radius,
  );
}

/** Zones as given (a FeatureCollection's features, a zones file's rows), each geometry checked as a single AOI's is. */
export function checkZones(zones: readonly ZoneInput[], radius: number | undefined): Zone[] {
  return zones.map((zone) => ({ ...zone, aoi: zoneGeometry(zone, radius) }));
}

/** One zone's geometry checked as the schema checks a single AOI, or the zone's validation_failed. */
function zoneGeometry(zone: ZoneInput, radius: number | undefined): Geometry | ZonalError {
  const g = zone.geometry as { type?: unknown } | null;
  const schema = g && typeof g === 'object' && typeof g.type === 'string' ? GEOMETRY_SCHEMAS[g.type as keyof typeof GEOMETRY_SCHEMAS] : undefined;
  if (!schema) {
    return new ZonalError(
      'validation_failed',
      `Zone ${zone.index} has no Point, Polygon or MultiPolygon geometry (GeoJSON, WGS84 longitude/latitude in degrees).`,
    );
  }
  const first = Value.Errors(schema, g).First();
  if (first) return new ZonalError('validation_failed', `Zone ${zone.index}'s ${String(g?.type)} ${whatToFix(first.path, first.message)}`);
  return withRadius(g as GeometryRequest, radius);
}

/** The user's words for what is wrong at a JSON path of a geometry. */
function whatToFix(path: string, message: string): string {
  if (path.startsWith('/radius')) return 'has a radius that is not a number of metres from 0 to 20,000,000.';
  if (path.startsWith('/coordinates') && /array length to be greater/i.test(message)) {
    return 'has too few positions: every ring needs at least 4 [longitude, latitude] positions, the first repeated last.';
  }
  if (path.startsWith('/coordinates')) {
    return 'has a position that is not [longitude, latitude] in WGS84 degrees (longitude −180..180, or up to ±360 for a ring crossing the antimeridian; latitude −90..90).';
  }
  return `has a member that GeoJSON does not allow (${path || 'the geometry'}).`;
}

/** The question of a body: everything but its zones. */
export function questionOf<K extends string, B extends { aoi?: unknown; radius?: number; include_geometry?: boolean }>(
  kind: K,
  body: B,
): Omit<B, 'aoi' | 'radius' | 'include_geometry'> & { kind: K } {
  const { aoi: _aoi, radius: _radius, include_geometry: _geometry, ...rest } = body;
  return { kind, ...rest };
}
