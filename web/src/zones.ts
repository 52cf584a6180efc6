/** Zones: GeoJSON text → features, the request's FeatureCollection, and what the map shows of them. */
import type { Feature, FeatureCollection, Geometry, Point, Polygon } from 'geojson';

/** A Point may carry `radius` (metres), as the service reads it. */
export type ZoneGeometry = Geometry & { radius?: number };
export type Zone = Feature<ZoneGeometry>;

/**
 * The zones in a GeoJSON text: a geometry (one zone), a Feature (one zone) or a FeatureCollection (one zone per
 * feature). The service checks each geometry; this only rejects what is not GeoJSON at all.
 */
export function parseZones(text: string): Zone[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new Error(`Not JSON: ${(err as Error).message}`);
  }
  return zonesOf(value);
}

function zonesOf(value: unknown): Zone[] {
  if (!isObject(value) || typeof value['type'] !== 'string') throw new Error('Not GeoJSON: expected an object with a "type".');
  const type = value['type'];
  if (type === 'FeatureCollection') {
    const features = value['features'];
    if (!Array.isArray(features)) throw new Error('A FeatureCollection needs a "features" array.');
    if (features.length === 0) throw new Error('The FeatureCollection has no features.');
    return features.map((f, i) => {
      if (!isObject(f) || f['type'] !== 'Feature') throw new Error(`Feature ${i} is not a GeoJSON Feature.`);
      return featureOf(f);
    });
  }
  if (type === 'Feature') return [featureOf(value)];
  if ('coordinates' in value || type === 'GeometryCollection') return [{ type: 'Feature', properties: {}, geometry: value as unknown as ZoneGeometry }];
  throw new Error(`Unsupported GeoJSON type "${type}".`);
}

function featureOf(f: Record<string, unknown>): Zone {
  const geometry = f['geometry'];
  if (!isObject(geometry)) throw new Error('A Feature without geometry cannot be a zone.');
  const zone: Zone = {
    type: 'Feature',
    properties: isObject(f['properties']) ? (f['properties'] as Record<string, unknown>) : {},
    geometry: geometry as unknown as ZoneGeometry,
  };
  if (typeof f['id'] === 'string' || typeof f['id'] === 'number') zone.id = f['id'];
  return zone;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The request's `aoi`: always a FeatureCollection, zones in list order. */
export function zonesCollection(zones: readonly Zone[]): FeatureCollection<ZoneGeometry> {
  return { type: 'FeatureCollection', features: zones.map((z) => ({ ...z, properties: z.properties ?? {} })) };
}

/** What the map draws: each zone with its index, and a circle around a Point that has a radius. */
export function displayZones(zones: readonly Zone[], selected: number | null): FeatureCollection<Geometry> {
  const features: Feature<Geometry>[] = [];
  zones.forEach((z, index) => {
    const props = { index, selected: index === selected };
    const g = z.geometry;
    if (g.type === 'Point' && typeof g.radius === 'number' && g.radius > 0)
      features.push({ type: 'Feature', properties: props, geometry: circle(g, g.radius) });
    if (g.type === 'GeometryCollection') for (const part of g.geometries) features.push({ type: 'Feature', properties: props, geometry: part });
    else features.push({ type: 'Feature', properties: props, geometry: g });
  });
  return { type: 'FeatureCollection', features };
}

/** A circle of `radius` metres around a point on a sphere (display only: the service computes the exact one). */
function circle(center: Point, radius: number, vertices = 64): Polygon {
  const R = 6371008.8;
  const [lon0, lat0] = center.coordinates as [number, number];
  const d = radius / R;
  const φ1 = (lat0 * Math.PI) / 180;
  const λ1 = (lon0 * Math.PI) / 180;
  const ring: [number, number][] = [];
  for (let i = 0; i < vertices; i++) {
    const θ = (-2 * Math.PI * i) / vertices;
    const φ2 = Math.asin(Math.sin(φ1) * Math.cos(d) + Math.cos(φ1) * Math.sin(d) * Math.cos(θ));
    const λ2 = λ1 + Math.atan2(Math.sin(θ) * Math.sin(d) * Math.cos(φ1), Math.cos(d) - Math.sin(φ1) * Math.sin(φ2));
    ring.push([(λ2 * 180) / Math.PI, (φ2 * 180) / Math.PI]);
  }
  ring.push(ring[0]!);
  return { type: 'Polygon', coordinates: [ring] };
}

/** A one-line description for the list: "Polygon, 5 vertices", "Point, r = 500 m". */
export function describeZone(zone: Zone): string {
  const g = zone.geometry;
  const name = zone.properties?.['name'];
  const label = typeof name === 'string' ? `${name}: ` : zone.id !== undefined ? `${zone.id}: ` : '';
  switch (g.type) {
    case 'Point':
      return `${label}Point ${g.coordinates.map((c) => c.toFixed(4)).join(', ')}${g.radius ? `, r = ${g.radius} m` : ''}`;
    case 'Polygon':
      return `${label}Polygon, ${Math.max(0, (g.coordinates[0]?.length ?? 1) - 1)} vertices`;
    case 'MultiPolygon':
      return `${label}MultiPolygon, ${g.coordinates.length} parts`;
    default:
      return `${label}${g.type}`;
  }
}
