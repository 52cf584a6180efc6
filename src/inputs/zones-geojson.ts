/** A GeoJSON zones file: a FeatureCollection (one zone per feature), a Feature or a bare geometry (one zone). */
import type { ZoneInput as Zone } from '../zonal/model.ts';
import { ZonesFileError } from './errors.ts';
import type { ZonesFile } from './model.ts';

function idOf(v: unknown, where: string): string | number | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string' || typeof v === 'number') return v;
  throw new ZonesFileError(`${where} has an id that is neither a string nor a number.`);
}

/** Every zone of the document, each feature checked; `name` is the file as messages call it. */
export function parseGeoJsonZones(text: string, name: string): ZonesFile {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new ZonesFileError(`The zones file ${name} is not valid JSON (${(e as Error).message}).`);
  }
  const d = doc as { type?: unknown; features?: unknown; crs?: { properties?: { name?: unknown } } } | null;
  if (!d || typeof d !== 'object' || typeof d.type !== 'string') throw new ZonesFileError(`The zones file ${name} is not GeoJSON: it has no "type".`);
  const crsName = d.crs?.properties?.name;
  if (typeof crsName === 'string' && !/(CRS84|EPSG:?:?4326)$/i.test(crsName)) {
    throw new ZonesFileError(`The zones file ${name} is in ${crsName}; zones must be WGS84 longitude/latitude (GeoJSON's own CRS).`);
  }
  const unreadable = new Map<number, string>();
  if (d.type === 'FeatureCollection') {
    if (!Array.isArray(d.features)) throw new ZonesFileError(`The FeatureCollection of ${name} has no "features" list.`);
    return { zones: d.features.map((f: unknown, index: number) => featureZone(f, index, name)), unreadable };
  }
  if (d.type === 'Feature') {
    const f = d as { id?: unknown; properties?: unknown; geometry?: unknown };
    const properties = f.properties && typeof f.properties === 'object' ? (f.properties as Record<string, unknown>) : null;
    return { zones: [{ index: 0, id: idOf(f.id, `The Feature of ${name}`), properties, geometry: f.geometry ?? null }], unreadable };
  }
  return { zones: [{ index: 0, id: null, properties: null, geometry: d }], unreadable };
}

/** Feature `index` of a FeatureCollection as its zone. */
function featureZone(f: unknown, index: number, name: string): Zone {
  const feature = f as { type?: unknown; id?: unknown; properties?: unknown; geometry?: unknown } | null;
  if (!feature || typeof feature !== 'object' || feature.type !== 'Feature') throw new ZonesFileError(`Feature ${index} of ${name} is not a GeoJSON Feature.`);
  const properties =
    feature.properties && typeof feature.properties === 'object' && !Array.isArray(feature.properties) ? (feature.properties as Record<string, unknown>) : null;
  return { index, id: idOf(feature.id, `Feature ${index} of ${name}`), properties, geometry: feature.geometry ?? null };
}
