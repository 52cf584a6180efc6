/**
 * Many zones in one request (CONTRACT §8): the zones of a FeatureCollection, each zone's geometry checked
 * as a single AOI would be, and the engines' answers (zonal/raster.ts, zonal/vector.ts: one pass over the
 * blocks or row groups for all zones) as outcomes in input order. A problem of one
 * zone (its geometry, a limit, a statistic) is that zone's answer; a problem of the request (the source,
 * an unknown statistic or band, too many zones) stops the request.
 */
import { Value } from '@sinclair/typebox/value';
import { ZonalError } from '../errors.ts';
import { GEOMETRY_SCHEMAS, type AoiRequest, type FeatureCollectionAoi, type GeometryRequest } from '../schemas/aoi.ts';
import type { StatsResponse } from '../schemas/response.ts';

export interface Zone {
  index: number;
  id: string | number | null;
  properties: Record<string, unknown> | null;
  geometry: unknown;
}

export interface ZoneError {
  status: number;
  code: string;
  detail: string;
}

export interface ZoneOutcome {
  zone: Zone;
  /** zones × time: the STAC Item of this row (its id and datetime); absent otherwise, null for a zone's row without an Item. */
  item?: { id: string; datetime: string } | null;
  statistics?: StatsResponse;
  error?: ZoneError;
}

/** Codes that belong to one zone; any other error is the request's. */
const ZONE_CODES = new Set([
  'invalid_geometry',
  'too_many_vertices',
  'aoi_too_large',
  'too_many_pixels',
  'too_many_features',
  'too_many_unique_values',
  'validation_failed',
  'no_items',
  'no_date',
]);

function withRadius(g: GeometryRequest, radius: number | undefined): GeometryRequest {
  return g.type === 'Point' && g.radius === undefined && radius !== undefined ? { ...g, radius } : g;
}

/** The AOI geometry of a request whose `aoi` is a geometry or a Feature (CONTRACT §8: a Feature is its geometry). */
export function geometryOf(aoi: AoiRequest, radius?: number): GeometryRequest {
  if (aoi.type === 'FeatureCollection') throw new Error('geometryOf: a FeatureCollection has many zones');
  return withRadius(aoi.type === 'Feature' ? aoi.geometry : aoi, radius);
}

/** The zones of a FeatureCollection; 413 past the zone limit. */
export function zonesOf(fc: FeatureCollectionAoi, maxZones: number): Zone[] {
  if (fc.features.length > maxZones) {
    throw new ZonalError(
      'too_many_zones',
      `The FeatureCollection has ${fc.features.length.toLocaleString('en')} features, above the limit of ${maxZones.toLocaleString('en')} zones per request: split it into several requests.`,
      { limit_zones: maxZones, zones: fc.features.length },
    );
  }
  return fc.features.map((f, index) => ({
    index,
    id: f.id ?? null,
    properties: (f.properties as Record<string, unknown> | null | undefined) ?? null,
    geometry: f.geometry,
  }));
}

/** One zone's geometry checked as the schema checks a single AOI (ZonalError validation_failed otherwise). */
export function zoneGeometry(zone: Zone, radius: number | undefined): GeometryRequest {
  const g = zone.geometry as { type?: unknown } | null;
  const schema = g && typeof g === 'object' && typeof g.type === 'string' ? GEOMETRY_SCHEMAS[g.type as keyof typeof GEOMETRY_SCHEMAS] : undefined;
  if (!schema) {
    throw new ZonalError(
      'validation_failed',
      `Zone ${zone.index} has no Point, Polygon or MultiPolygon geometry (GeoJSON, WGS84 longitude/latitude in degrees).`,
    );
  }
  const first = Value.Errors(schema, g).First();
  if (first) throw new ZonalError('validation_failed', `Zone ${zone.index}'s ${String(g?.type)} ${whatToFix(first.path, first.message)}`);
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

export function zoneError(e: unknown): ZoneError | null {
  if (e instanceof ZonalError && ZONE_CODES.has(e.code)) return { status: e.status, code: e.code, detail: e.detail };
  return null;
}

/** The outcome of each zone, in order, from an engine that answers many zones at once (zonal/raster.ts). */
export async function* zoneOutcomes(
  zones: readonly Zone[],
  answers: AsyncIterable<{ statistics: StatsResponse } | { error: unknown }>,
): AsyncGenerator<ZoneOutcome> {
  let i = 0;
  for await (const answer of answers) {
    const zone = zones[i++] as Zone;
    if ('statistics' in answer) {
      yield { zone, statistics: answer.statistics };
      continue;
    }
    const error = zoneError(answer.error);
    if (error === null) throw answer.error;
    yield { zone, error };
  }
}

/** Each zone's geometry, checked when the engine plans it (a problem is that zone's answer). */
export function zoneGeometries(zones: readonly Zone[], radius: number | undefined): (() => GeometryRequest)[] {
  return zones.map((zone) => () => zoneGeometry(zone, radius));
}
