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
 * - Projection parameters are put the way proj4js reads them and GDAL/PROJ mean them (see `repair`):
 *   Mercator 2SP and equidistant cylindrical standard parallels, two-letter axes (south-oriented TM,
 *   Krovak), Hotine variant A (`+no_uoff`), Hotine with azimuth 90° (PROJ's somerc), user-defined polar
 *   stereographic and Hotine, units given twice.
 * - A projection that GeoTIFF has no method code for is written by GDAL (and ESRI) as an "ESRI PE String"
 *   citation; Krovak, Equal Earth and geostationary ones are read from it (`fromEsriPe`).
 * - A method that proj4js would only approximate (Laborde, Guam, hyperbolic Cassini, near-conformal LCC,
 *   Colombia Urban) is refused by name rather than answered on a wrong grid.
 * fixtures/crs/table.json (tools/oracle/crs_oracle.py) checks all of it against GDAL's reading of the
 * same GeoKeys, to a millimetre.
 */
import { toProj4 } from 'geotiff-geokeys-to-proj4';
import { isValidProj4 } from './reproject.ts';
import { ZonalError } from '../errors.ts';
import {
  APPROXIMATED,
  CT_EQUIRECTANGULAR,
  CT_HOTINE_A,
  CT_HOTINE_B,
  CT_MERCATOR,
  CT_NAMES,
  CT_POLAR_STEREOGRAPHIC,
  CT_TM_SOUTH_ORIENTED,
  HOTINE_A,
  UNEXPRESSIBLE,
  datumShiftFor,
} from './crs-tables.ts';

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

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v !== 0 ? v : undefined;
}

function isEpsg(code: number | undefined): code is number {
  return code !== undefined && code > 0 && code < USER_DEFINED;
}

const REPROJECT = 'Reproject it, for example with gdalwarp -t_srs EPSG:4326 in.tif out.tif.';

function unsupported(what: string, label?: string, note?: string): ZonalError {
  const of = label ? ` (${label})` : '';
  return new ZonalError('unsupported_raster', `The raster's ${what}${of} is not supported.${note ? ` ${note}` : ''} ${REPROJECT}`);
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
  const projectedCitation = cleanCitation(keys['GTCitationGeoKey'] ?? keys['PCSCitationGeoKey']);
  if (model === 3) throw unsupported('geocentric coordinate system');
  const esri = esriPeString(keys);
  if (esri !== undefined && method === undefined && !isEpsg(pcs)) return fromEsriPe(esri);
  if (pcs === undefined && gcs === undefined && method === undefined && conversion === undefined && datum === undefined && ellipsoid === undefined) {
    throw new ZonalError('missing_crs', 'The raster has no coordinate reference system.');
  }
  const projected = model === 1 || (model === undefined && (pcs !== undefined || method !== undefined || conversion !== undefined));
  const epsg = projected ? (isEpsg(pcs) ? pcs : undefined) : isEpsg(gcs) ? gcs : undefined;
  const citation = cleanCitation(
    projected ? (keys['GTCitationGeoKey'] ?? keys['PCSCitationGeoKey']) : (keys['GeogCitationGeoKey'] ?? keys['GTCitationGeoKey']),
  );
  const label =
    [epsg !== undefined ? `EPSG:${epsg}` : undefined, citation ?? (projected ? projectedCitation : undefined)].filter(Boolean).join(' ') || undefined;
  if (projected && isEpsg(pcs)) {
    // An EPSG projected code says everything; a geographic code beside it would make the library ignore it.
    delete keys['GeodeticCRSGeoKey'];
    delete keys['GeographicTypeGeoKey'];
    const approximated = APPROXIMATED[pcs];
    if (approximated !== undefined) throw unsupported(`projection method ${approximated}`, label);
  } else if (projected && !isEpsg(conversion) && method === undefined) {
    throw new ZonalError('unsupported_raster', "The raster's projected coordinate system is user-defined but names no projection method.");
  } else if (!projected) {
    for (const k of ['ProjectedCRSGeoKey', 'ProjectedCSTypeGeoKey', 'ProjMethodGeoKey', 'ProjCoordTransGeoKey', 'ProjectionGeoKey']) delete keys[k];
  }
  // The library knows Hotine variant B only as an EPSG method; both user-defined variants go through its
  // variant A code and are completed in `repair`.
  if (projected && method === CT_HOTINE_B) keys['ProjCoordTransGeoKey'] = CT_HOTINE_A;

  const result = toProj4(keys as unknown as Parameters<typeof toProj4>[0]);
  const errors = result.errors as unknown as Record<string, unknown>;
  const crsCode = errors['CRSNotSupported'];
  if (crsCode !== undefined) throw unsupported('coordinate reference system', [`EPSG:${String(crsCode)}`, citation].filter(Boolean).join(' '));
  const methodCode = errors['coordinateTransformationNotSupported'] ?? errors['conversionNotSupported'];
  if (methodCode !== undefined) throw unsupported(`projection method ${CT_NAMES[Number(methodCode)] ?? 'of GeoTIFF code'} (code ${String(methodCode)})`, label);
  if (Object.keys(errors).some((k) => /Unit.*(NotSupported|NotDefined)$/.test(k) && !k.startsWith('vertical'))) throw unsupported('coordinate unit', label);

  const tokens = result.proj4
    .trim()
    .split(/\s+/)
    .filter((t) => !/^\+axis=(en|ne|enu|neu)$/.test(t) && t !== '+no_defs');
  const isGeographic = result.isGCS;
  const { x, y } = result.coordinatesConversionParameters;
  if (isGeographic) {
    if (x !== 1 || y !== 1) throw unsupported('angular unit', label, 'Lon/lat rasters are read in degrees only.');
  } else {
    if (result.coordinatesUnits !== 'metre') throw unsupported(`coordinate unit (${result.coordinatesUnits})`, label);
    if (x !== y) throw unsupported('coordinate unit', label);
    // An EPSG code's string already carries its unit as +to_meter, and the library hands the same factor
    // over again as a multiplier; a user-defined unit comes only as the multiplier.
    if (x !== 1 && !tokens.some((t) => t.startsWith('+to_meter='))) tokens.push(`+to_meter=${x}`);
  }
  if (!tokens.some((t) => /^\+(towgs84|datum|nadgrids)=/.test(t))) {
    const shift = datumShiftFor(projected ? pcs : undefined, gcs, datum);
    if (shift) tokens.push(`+towgs84=${shift}`);
  }
  if (projected) repair(tokens, keys, method, pcs, label);
  for (const [pattern, name] of UNEXPRESSIBLE) {
    if (tokens.some((t) => pattern.test(t))) throw unsupported(`projection method ${name}`, label);
  }
  tokens.push('+no_defs');
  const def = tokens.join(' ');
  if (!isValidProj4(def)) throw unsupported('coordinate reference system', label);
  const name = citation ?? (epsg !== undefined ? `EPSG:${epsg}` : 'user-defined');
  return epsg !== undefined ? { proj4: def, epsg, isGeographic, name } : { proj4: def, isGeographic, name };
}

function tokenValue(tokens: string[], name: string): string | undefined {
  const t = tokens.find((s) => s.startsWith(`+${name}=`));
  return t === undefined ? undefined : t.slice(name.length + 2);
}

/** Sets (in place, so +proj stays first), adds, or with `undefined` removes a token; '' is a flag. */
function setToken(tokens: string[], name: string, value: string | number | undefined): void {
  const i = tokens.findIndex((s) => s === `+${name}` || s.startsWith(`+${name}=`));
  const token = value === undefined ? undefined : value === '' ? `+${name}` : `+${name}=${value}`;
  if (i >= 0 && token !== undefined) tokens[i] = token;
  else if (i >= 0) tokens.splice(i, 1);
  else if (token !== undefined) tokens.push(token);
}

/**
 * Puts a projected CRS's parameters the way proj4js reads them, as GDAL/PROJ read the same GeoKeys
 * (each rule is checked by a row of fixtures/crs/table.json).
 */
function repair(tokens: string[], keys: Record<string, unknown>, method: number | undefined, pcs: number | undefined, label: string | undefined): void {
  const proj = tokenValue(tokens, 'proj');
  const userDefined = !isEpsg(pcs);
  // proj4js reads a Mercator or equidistant cylindrical standard parallel as +lat_ts only.
  if (proj === 'merc' || proj === 'eqc') {
    const lat1 = tokenValue(tokens, 'lat_1');
    const ts = tokenValue(tokens, 'lat_ts');
    if (lat1 !== undefined) setToken(tokens, 'lat_1', undefined);
    setToken(tokens, 'lat_ts', lat1 ?? (ts !== undefined && ts !== 'undefined' ? ts : undefined));
    if (userDefined && method === CT_MERCATOR && lat1 === undefined) setToken(tokens, 'lat_ts', num(keys['ProjStdParallel1GeoKey']) ?? ts);
    if (userDefined && method === CT_EQUIRECTANGULAR) setToken(tokens, 'lat_ts', num(keys['ProjStdParallel1GeoKey']) ?? lat1 ?? 0);
  }
  // proj4js's ellipsoidal sinusoidal is up to 220 m from PROJ's; the spherical one (MODIS) is exact.
  if (proj === 'sinu') {
    const a = Number(tokenValue(tokens, 'a') ?? tokenValue(tokens, 'R'));
    const b = Number(tokenValue(tokens, 'b') ?? a);
    if (!(a === b) && tokenValue(tokens, 'R') === undefined)
      throw unsupported('projection method sinusoidal on an ellipsoid', label, 'Only the spherical sinusoidal, as MODIS uses it, is read.');
  }
  // Axes: proj4js takes three letters (+axis=wsu), the library writes two.
  const axis = tokenValue(tokens, 'axis');
  if (axis !== undefined && /^[ewns]{2}$/.test(axis)) setToken(tokens, 'axis', `${axis}u`);
  if (userDefined && method === CT_TM_SOUTH_ORIENTED) setToken(tokens, 'axis', 'wsu');
  // User-defined polar stereographic: libgeotiff's keys are the latitude of true scale (±90 for variant A)
  // and the longitude of the straight vertical pole.
  if (userDefined && method === CT_POLAR_STEREOGRAPHIC) {
    const lat = num(keys['ProjNatOriginLatGeoKey']) ?? num(keys['ProjCenterLatGeoKey']) ?? 0;
    const lon = num(keys['ProjStraightVertPoleLongGeoKey']) ?? num(keys['ProjNatOriginLongGeoKey']) ?? 0;
    if (Math.abs(lat) < 1) throw unsupported('polar stereographic projection without a latitude of true scale', label);
    setToken(tokens, 'lat_0', lat < 0 ? -90 : 90);
    setToken(tokens, 'lon_0', lon);
    if (Math.abs(Math.abs(lat) - 90) > 1e-9) {
      setToken(tokens, 'lat_ts', lat);
      setToken(tokens, 'k_0', undefined);
    }
  }
  // Polar stereographic variant B (EPSG:3031, 3413, …) comes without its pole: proj4js would then take
  // lat_0 = 0, an equatorial stereographic, and every point would be wrong.
  if (proj === 'stere' && tokenValue(tokens, 'lat_0') === undefined) {
    const ts = tokenValue(tokens, 'lat_ts');
    if (ts === undefined) throw unsupported('stereographic projection without a latitude of origin', label);
    setToken(tokens, 'lat_0', Number(ts) < 0 ? -90 : 90);
  }
  if (proj === 'omerc') {
    if (userDefined && (method === CT_HOTINE_A || method === CT_HOTINE_B)) {
      for (const t of ['lon_0', 'lat_0', 'lonc', 'alpha', 'gamma', 'k_0', 'k', 'x_0', 'y_0']) setToken(tokens, t, undefined);
      setToken(tokens, 'lat_0', num(keys['ProjCenterLatGeoKey']) ?? 0);
      setToken(tokens, 'lonc', num(keys['ProjCenterLongGeoKey']) ?? 0);
      setToken(tokens, 'alpha', num(keys['ProjAzimuthAngleGeoKey']) ?? 0);
      const gamma = num(keys['ProjRectifiedGridAngleGeoKey']);
      if (gamma !== undefined) setToken(tokens, 'gamma', gamma);
      setToken(tokens, 'k_0', num(keys['ProjScaleAtCenterGeoKey']) ?? num(keys['ProjScaleAtNatOriginGeoKey']) ?? 1);
      setToken(tokens, 'x_0', num(keys['ProjFalseEastingGeoKey']) ?? num(keys['ProjCenterEastingGeoKey']) ?? 0);
      setToken(tokens, 'y_0', num(keys['ProjFalseNorthingGeoKey']) ?? num(keys['ProjCenterNorthingGeoKey']) ?? 0);
    }
    const variantA = userDefined ? method === CT_HOTINE_A : HOTINE_A.has(pcs);
    if (variantA) setToken(tokens, 'no_uoff', '');
    // PROJ writes Hotine variant B with azimuth and grid angle 90° (the Swiss grids) as somerc.
    const alpha = Number(tokenValue(tokens, 'alpha'));
    const gamma = Number(tokenValue(tokens, 'gamma') ?? alpha);
    if (!variantA && Math.abs(alpha - 90) < 1e-9 && Math.abs(gamma - 90) < 1e-9) {
      setToken(tokens, 'proj', 'somerc');
      setToken(tokens, 'lon_0', tokenValue(tokens, 'lonc'));
      for (const t of ['lonc', 'alpha', 'gamma']) setToken(tokens, t, undefined);
      // proj4js's somerc reads the flattening only as +rf (with +b alone every point is NaN).
      const a = Number(tokenValue(tokens, 'a'));
      const b = Number(tokenValue(tokens, 'b'));
      if (a > b && b > 0) {
        setToken(tokens, 'b', undefined);
        setToken(tokens, 'rf', a / (a - b));
      }
    }
  }
}

/** The WKT of an "ESRI PE String = …" citation (how GDAL and ESRI write a projection GeoTIFF has no code for). */
function esriPeString(keys: Record<string, unknown>): string | undefined {
  for (const k of ['PCSCitationGeoKey', 'GTCitationGeoKey']) {
    const v = keys[k];
    if (typeof v === 'string' && v.startsWith('ESRI PE String = ')) return v.slice('ESRI PE String = '.length).replace(/\|$/, '');
  }
  return undefined;
}

function wktNumber(wkt: string, name: string): number | undefined {
  const m = new RegExp(`PARAMETER\\["${name}",\\s*(-?[\\d.eE+-]+)\\]`, 'i').exec(wkt);
  return m ? Number(m[1]) : undefined;
}

/**
 * A CRS from an ESRI PE string. GDAL adds the PROJ string as EXTENSION["PROJ4", …] when it has one, and
 * GDAL itself prefers it, so that is used. Otherwise only the projections the CRS table checks are read
 * (proj4js parses Krovak and Equal Earth WKT as GDAL does; its WKT reader drops the geostationary
 * satellite height, so that one is written out); any other is refused by name.
 */
function fromEsriPe(wkt: string): CrsInfo {
  const projection = /PROJECTION\["([^"]+)"\]/.exec(wkt)?.[1];
  const name = /^PROJCS\["([^"]*)"/.exec(wkt)?.[1];
  const label = name && name.toLowerCase() !== 'unknown' ? name : undefined;
  if (!wkt.startsWith('PROJCS[') || projection === undefined)
    throw unsupported('coordinate reference system (an ESRI PE string that is not a projected CRS)', label);
  const extension = /EXTENSION\["PROJ4",\s*"([^"]+)"\]/.exec(wkt)?.[1];
  let def: string | undefined;
  if (extension !== undefined) {
    def = extension.replace(/\s*\+wktext\b/, '');
  } else if (projection === 'Krovak' || projection === 'Equal_Earth') {
    def = wkt;
  } else if (projection === 'Geostationary_Satellite') {
    const spheroid = /SPHEROID\["[^"]*",\s*([\d.eE+-]+),\s*([\d.eE+-]+)\]/.exec(wkt);
    const unit = /UNIT\["[^"]*",\s*([\d.eE+-]+)\]\]$/.exec(wkt)?.[1];
    const h = wktNumber(wkt, 'Height');
    if (!spheroid || h === undefined || (unit !== undefined && Number(unit) !== 1))
      throw unsupported('projection (Geostationary_Satellite with these parameters)', label);
    const rf = Number(spheroid[2]);
    def = [
      '+proj=geos',
      `+h=${h}`,
      `+lon_0=${wktNumber(wkt, 'Longitude_Of_Center') ?? 0}`,
      `+sweep=${wktNumber(wkt, 'Option') === 1 ? 'x' : 'y'}`,
      `+x_0=${wktNumber(wkt, 'False_Easting') ?? 0}`,
      `+y_0=${wktNumber(wkt, 'False_Northing') ?? 0}`,
      `+a=${spheroid[1]}`,
      rf === 0 ? `+b=${spheroid[1]}` : `+rf=${rf}`,
      '+no_defs',
    ].join(' ');
  } else {
    throw unsupported(`projection ${projection} (written as an ESRI PE string)`, label);
  }
  if (!isValidProj4(def)) throw unsupported(`projection ${projection}`, label);
  return { proj4: def, isGeographic: false, name: label ?? 'user-defined' };
}
