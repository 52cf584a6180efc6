/**
 * Pure: a GeoParquet column's CRS (PROJJSON, contract §5) → proj4 via the GeoTIFF CRS catalogue.
 * Absent = OGC:CRS84. EPSG ids (on the CRS or, for a bound CRS, its source) are looked up; a geographic
 * CRS without an id is read as lon/lat on its ellipsoid. Coordinates of a geographic CRS are used as
 * lon/lat as they are (no datum shift: NAD27 ↔ WGS84 differ by tens of metres, below what areas feel).
 */
import { ZonalError } from '../errors.ts';
import { crsFromGeoKeys, type CrsInfo } from '../geometry/crs.ts';

export const CRS84: CrsInfo = { proj4: '+proj=longlat +datum=WGS84 +no_defs', isGeographic: true, name: 'OGC:CRS84' };

interface Id {
  authority?: string;
  code?: string | number;
}

function idOf(pj: Record<string, unknown>): Id | undefined {
  const id = (pj['id'] as Id | undefined) ?? (pj['ids'] as Id[] | undefined)?.[0];
  return id && typeof id === 'object' ? id : undefined;
}

function unsupported(what: string): ZonalError {
  return new ZonalError('invalid_source', `The file's coordinate reference system (${what}) is not supported.`);
}

export function crsFromProjJson(pj: Record<string, unknown> | null): CrsInfo {
  if (pj === null) return CRS84;
  const type = String(pj['type'] ?? '');
  if (type === 'BoundCRS' && pj['source_crs'] && typeof pj['source_crs'] === 'object') {
    return crsFromProjJson(pj['source_crs'] as Record<string, unknown>);
  }
  const id = idOf(pj);
  const authority = String(id?.authority ?? '').toUpperCase();
  const code = id?.code;
  if (authority === 'OGC' && /^CRS(84|83|27)$/i.test(String(code))) return { ...CRS84, name: `OGC:${String(code)}` };
  const geographic = type === 'GeographicCRS' || type === 'GeodeticCRS';
  if (authority === 'EPSG' && code !== undefined && Number.isInteger(Number(code))) {
    const epsg = Number(code);
    try {
      const info = crsFromGeoKeys(geographic ? { GTModelTypeGeoKey: 2, GeographicTypeGeoKey: epsg } : { GTModelTypeGeoKey: 1, ProjectedCSTypeGeoKey: epsg });
      return { ...info, name: `EPSG:${epsg}` };
    } catch {
      throw unsupported(`EPSG:${epsg}`);
    }
  }
  if (geographic) return { ...CRS84, name: String(pj['name'] ?? 'geographic') };
  throw unsupported(String(pj['name'] ?? (type || 'unknown')));
}
