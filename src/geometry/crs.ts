/**
 * A GeoTIFF's coordinate reference system from its GeoKeys (pure), through geotiff-geokeys-to-proj4 (the
 * only file that imports it). The library's output is repaired where it would mislead proj4js:
 * - It prefers GeographicTypeGeoKey when both it and ProjectedCSTypeGeoKey are set, which would turn an
 *   EPSG projected CRS into lon/lat: GTModelTypeGeoKey decides here, and an EPSG projected code wins.
 * - It tags geographic bases `+axis=ne` (EPSG's lat/lon order), and a user-defined projection inherits
 *   that tag from its base; GeoTIFF model space is always easting/longitude first, so the tag is dropped.
 * - User-defined linear units come back as multipliers beside the string; they are folded in as +to_meter.
 * - EPSG codes whose datum has several transformations to WGS 84 come without +towgs84 (Amersfoort,
 *   OSGB36, DHDN, …): proj4js would then apply no datum shift at all (~100 m off). DATUM_SHIFTS adds the
 *   transformation PROJ itself prefers for the most used of them.
 */
import { toProj4 } from 'geotiff-geokeys-to-proj4';
import { isValidProj4 } from './reproject.ts';
import { ZonalError } from '../errors.ts';

/** A raster's CRS as the rest of the service needs it. */
export interface CrsInfo {
  /** proj4 definition of the raster's model space (x = easting or longitude, in the raster's units). */
  proj4: string;
  /** EPSG code of the CRS when the file names one (not for user-defined CRSs). */
  epsg?: number;
  isGeographic: boolean;
  /** Human name: the file's citation, else EPSG:code. */
  name: string;
}

const USER_DEFINED = 32767;

interface DatumShift {
  towgs84: string;
  /** The geographic CRS on this datum, and the projected CRSs built on it (PROJ's proj.db). */
  gcs: number;
  pcs: readonly number[];
}

/**
 * Helmert parameters (position-vector convention, as +towgs84 expects) of the first Helmert transformation
 * `projinfo -s EPSG:<gcs> -t EPSG:4326 --spatial-test intersects -o PROJ` lists (PROJ 9.1.1, proj.db of
 * Debian bookworm), rotations of coordinate-frame methods negated. Projected CRSs from
 * `SELECT code FROM projected_crs WHERE geodetic_crs_code = <gcs>` in the same proj.db.
 */
const DATUM_SHIFTS: Record<number, DatumShift> = {
  // Amersfoort to WGS 84 (4), EPSG:4833
  6289: { towgs84: '565.4171,50.3319,465.5524,-0.398957388243134,0.343987817378283,-1.87740163998045,4.0725', gcs: 4289, pcs: [28991, 28992] },
  // OSGB36 to WGS 84 (6), EPSG:1314
  6277: { towgs84: '446.448,-125.157,542.06,0.15,0.247,0.842,-20.489', gcs: 4277, pcs: [27700] },
  // DHDN to WGS 84 (2), EPSG:1777
  6314: {
    towgs84: '598.1,73.7,418.2,0.202,0.045,-2.455,6.7',
    gcs: 4314,
    pcs: [3068, 5520, 5676, 5677, 5678, 5679, 5680, 31461, 31462, 31463, 31464, 31465, 31466, 31467, 31468, 31469, 31491, 31492, 31493, 31494, 31495],
  },
  // BD72 to WGS 84 (3), EPSG:15929
  6313: { towgs84: '-106.8686,52.2978,-103.7239,0.3366,-0.457,1.8422,-1.2747', gcs: 4313, pcs: [31300, 31370] },
  // CH1903 to WGS 84 (2), EPSG:1766
  6149: { towgs84: '674.374,15.056,405.346', gcs: 4149, pcs: [21781, 21782] },
  // CH1903+ to WGS 84 (1), EPSG:1676
  6150: { towgs84: '674.374,15.056,405.346', gcs: 4150, pcs: [2056] },
  // MGI to WGS 84 (3), EPSG:1618 (Austria; the Balkan projected CRSs on MGI are left out)
  6312: { towgs84: '577.326,90.129,463.919,5.137,1.474,5.297,2.4232', gcs: 4312, pcs: [9271, 9272, 9273, 31254, 31255, 31256, 31257, 31258, 31259, 31284, 31285, 31286, 31287, 31294, 31295, 31296, 31297] },
  // Monte Mario to WGS 84 (4), EPSG:1660
  6265: { towgs84: '-104.1,-49.1,-9.9,0.971,-2.917,0.714,-11.68', gcs: 4265, pcs: [3003, 3004, 5659] },
  // S-JTSK to WGS 84 (3), EPSG:15965
  6156: { towgs84: '589,76,480', gcs: 4156, pcs: [5513, 5514] },
};

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v !== 0 ? v : undefined;
}

function isEpsg(code: number | undefined): code is number {
  return code !== undefined && code > 0 && code < USER_DEFINED;
}

function unsupported(what: string): ZonalError {
  return new ZonalError('unsupported_raster', `The raster's ${what} is not supported.`);
}

function datumShiftFor(pcs: number | undefined, gcs: number | undefined, datum: number | undefined): string | undefined {
  if (datum !== undefined && DATUM_SHIFTS[datum]) return DATUM_SHIFTS[datum].towgs84;
  for (const shift of Object.values(DATUM_SHIFTS)) {
    if (shift.gcs === gcs || (pcs !== undefined && shift.pcs.includes(pcs))) return shift.towgs84;
  }
  return undefined;
}

function cleanCitation(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const first = (v.split('|')[0] ?? '').replace(/^(GCS|PCS) Name = /, '').trim();
  return first && first.toLowerCase() !== 'unknown' ? first : undefined;
}

/**
 * The CRS of a GeoTIFF from its GeoKeys (geotiff.js `image.getGeoKeys()`). EPSG and user-defined
 * geographic and projected CRSs are supported (see the file comment for the repairs made).
 * Throws ZonalError('missing_crs') when the keys name no CRS, ZonalError('unsupported_raster') for a
 * geocentric model, an unknown code or method, or units other than degrees / a linear unit.
 */
export function crsFromGeoKeys(geoKeys: Record<string, unknown>): CrsInfo {
  const keys: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(geoKeys ?? {})) keys[k] = ArrayBuffer.isView(v) ? Array.from(v as unknown as ArrayLike<number>) : v;
  const model = num(keys['GTModelTypeGeoKey']);
  const pcs = num(keys['ProjectedCRSGeoKey']) ?? num(keys['ProjectedCSTypeGeoKey']);
  const gcs = num(keys['GeodeticCRSGeoKey']) ?? num(keys['GeographicTypeGeoKey']);
  const method = num(keys['ProjMethodGeoKey']) ?? num(keys['ProjCoordTransGeoKey']);
  const conversion = num(keys['ProjectionGeoKey']);
  const datum = num(keys['GeodeticDatumGeoKey']) ?? num(keys['GeogGeodeticDatumGeoKey']);
  const ellipsoid =
    num(keys['EllipsoidGeoKey']) ?? num(keys['GeogEllipsoidGeoKey']) ?? num(keys['EllipsoidSemiMajorAxisGeoKey']) ?? num(keys['GeogSemiMajorAxisGeoKey']);
  if (model === 3) throw unsupported('geocentric coordinate system');
  if (pcs === undefined && gcs === undefined && method === undefined && conversion === undefined && datum === undefined && ellipsoid === undefined) {
    throw new ZonalError('missing_crs', 'The raster has no coordinate reference system.');
  }
  const projected = model === 1 || (model === undefined && (pcs !== undefined || method !== undefined || conversion !== undefined));
  if (projected && isEpsg(pcs)) {
    // An EPSG projected code says everything; a geographic code beside it would make the library ignore it.
    delete keys['GeodeticCRSGeoKey'];
    delete keys['GeographicTypeGeoKey'];
  } else if (projected && !isEpsg(conversion) && method === undefined) {
    throw new ZonalError('unsupported_raster', "The raster's projected coordinate system is user-defined but names no projection method.");
  } else if (!projected) {
    for (const k of ['ProjectedCRSGeoKey', 'ProjectedCSTypeGeoKey', 'ProjMethodGeoKey', 'ProjCoordTransGeoKey', 'ProjectionGeoKey']) delete keys[k];
  }

  const result = toProj4(keys as unknown as Parameters<typeof toProj4>[0]);
  const errors = result.errors as unknown as Record<string, unknown>;
  const crsCode = errors['CRSNotSupported'];
  if (crsCode !== undefined) throw unsupported(`coordinate reference system (EPSG:${String(crsCode)})`);
  const methodCode = errors['coordinateTransformationNotSupported'] ?? errors['conversionNotSupported'];
  if (methodCode !== undefined) throw unsupported(`projection method (GeoTIFF code ${String(methodCode)})`);
  if (Object.keys(errors).some((k) => /Unit.*(NotSupported|NotDefined)$/.test(k) && !k.startsWith('vertical'))) throw unsupported('coordinate unit');

  const tokens = result.proj4.trim().split(/\s+/).filter((t) => !/^\+axis=(en|ne|enu|neu)$/.test(t));
  const isGeographic = result.isGCS;
  const { x, y } = result.coordinatesConversionParameters;
  if (isGeographic) {
    if (x !== 1 || y !== 1) throw unsupported('angular unit (only degrees are)');
  } else {
    if (result.coordinatesUnits !== 'metre') throw unsupported(`coordinate unit (${result.coordinatesUnits})`);
    if (x !== y) throw unsupported('coordinate unit');
    if (x !== 1) {
      const i = tokens.findIndex((t) => t.startsWith('+to_meter='));
      const existing = i >= 0 ? Number((tokens[i] as string).slice('+to_meter='.length)) : 1;
      if (i >= 0) tokens.splice(i, 1);
      tokens.splice(tokens.length - 1, 0, `+to_meter=${existing * x}`);
    }
  }
  if (!tokens.some((t) => /^\+(towgs84|datum|nadgrids)=/.test(t))) {
    const shift = datumShiftFor(projected ? pcs : undefined, gcs, datum);
    if (shift) tokens.splice(tokens.length - 1, 0, `+towgs84=${shift}`);
  }
  // Polar stereographic variant B (EPSG:3031, 3413, …) comes without its pole: proj4js would then take
  // lat_0 = 0, an equatorial stereographic, and every point would be wrong.
  if (tokens.includes('+proj=stere') && !tokens.some((t) => t.startsWith('+lat_0='))) {
    const ts = tokens.find((t) => t.startsWith('+lat_ts='));
    if (ts === undefined) throw unsupported('stereographic projection without a latitude of origin');
    tokens.splice(tokens.length - 1, 0, `+lat_0=${Number(ts.slice('+lat_ts='.length)) < 0 ? -90 : 90}`);
  }
  const def = tokens.join(' ');
  if (!isValidProj4(def)) throw unsupported('coordinate reference system');
  const epsg = projected ? (isEpsg(pcs) ? pcs : undefined) : isEpsg(gcs) ? gcs : undefined;
  const citation = cleanCitation(projected ? keys['GTCitationGeoKey'] ?? keys['PCSCitationGeoKey'] : keys['GeogCitationGeoKey'] ?? keys['GTCitationGeoKey']);
  const name = citation ?? (epsg !== undefined ? `EPSG:${epsg}` : 'user-defined');
  return epsg !== undefined ? { proj4: def, epsg, isGeographic, name } : { proj4: def, isGeographic, name };
}
