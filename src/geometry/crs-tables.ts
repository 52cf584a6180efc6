/**
 * The tables crs.ts repairs GeoTIFF CRSs with: EPSG datum shifts, EPSG projected CRSs whose method the
 * geokeys library gets wrong or only approximates, proj4 tokens proj4js cannot express, and the GeoTIFF
 * projection method codes (ProjCoordTransGeoKey). Data from PROJ's proj.db and the GeoTIFF 1.1 standard.
 */

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
  6312: {
    towgs84: '577.326,90.129,463.919,5.137,1.474,5.297,2.4232',
    gcs: 4312,
    pcs: [9271, 9272, 9273, 31254, 31255, 31256, 31257, 31258, 31259, 31284, 31285, 31286, 31287, 31294, 31295, 31296, 31297],
  },
  // Monte Mario to WGS 84 (4), EPSG:1660
  6265: { towgs84: '-104.1,-49.1,-9.9,0.971,-2.917,0.714,-11.68', gcs: 4265, pcs: [3003, 3004, 5659] },
  // S-JTSK to WGS 84 (3), EPSG:15965
  6156: { towgs84: '589,76,480', gcs: 4156, pcs: [5513, 5514] },
};

/**
 * EPSG projected CRSs on Hotine oblique Mercator variant A (EPSG method 9812), which the library writes as
 * plain omerc (variant B): `SELECT p.code FROM projected_crs p JOIN conversion c ON p.conversion_code =
 * c.code WHERE c.method_code = 9812` in proj.db (PROJ 9.1.1).
 */
export const HOTINE_A = new Set([
  3078, 3079, 3167, 3168, 3375, 3376, 3468, 3591, 5247, 6394, 6497, 6808, 6809, 6810, 6811, 6840, 6841, 6842, 6843, 24571, 26731, 26931, 29874,
]);

/** EPSG projected CRSs whose method the library maps to a neighbouring one (same query, methods 9817, 9816). */
export const APPROXIMATED: Record<number, string> = { 22700: 'Lambert Conic Near-Conformal', 22300: 'Tunisia Mining Grid' };

/** proj4 tokens that proj4js ignores or lacks, so the grid would be another projection's. */
export const UNEXPRESSIBLE: [RegExp, string][] = [
  [/^\+proj=labrd$/, 'Laborde oblique Mercator'],
  [/^\+proj=col_urban$/, 'Colombia Urban'],
  [/^\+guam$/, 'Guam projection'],
  [/^\+hyperbolic$/, 'Hyperbolic Cassini-Soldner'],
];

/** GeoTIFF ProjCoordTransGeoKey codes handled here rather than by the library. */
export const CT_HOTINE_A = 3;
export const CT_MERCATOR = 7;
export const CT_POLAR_STEREOGRAPHIC = 15;
export const CT_EQUIRECTANGULAR = 17;
export const CT_TM_SOUTH_ORIENTED = 27;
export const CT_HOTINE_B = 9815;

/** GeoTIFF 1.1 ProjCoordTransGeoKey names, for a refusal that says which projection it is. */
export const CT_NAMES: Record<number, string> = {
  1: 'Transverse Mercator',
  2: 'Transverse Mercator (modified Alaska)',
  3: 'Hotine oblique Mercator',
  4: 'Laborde oblique Mercator',
  5: 'Rosenmund oblique Mercator',
  6: 'spherical oblique Mercator',
  7: 'Mercator',
  8: 'Lambert conic conformal (2SP)',
  9: 'Lambert conic conformal (1SP)',
  10: 'Lambert azimuthal equal area',
  11: 'Albers equal area',
  12: 'azimuthal equidistant',
  13: 'equidistant conic',
  14: 'stereographic',
  15: 'polar stereographic',
  16: 'oblique stereographic',
  17: 'equirectangular',
  18: 'Cassini-Soldner',
  19: 'gnomonic',
  20: 'Miller cylindrical',
  21: 'orthographic',
  22: 'polyconic',
  23: 'Robinson',
  24: 'sinusoidal',
  25: 'Van der Grinten',
  26: 'New Zealand map grid',
  27: 'Transverse Mercator (south oriented)',
  28: 'cylindrical equal area',
  9815: 'Hotine oblique Mercator (variant B)',
};

/** The +towgs84 of a datum (or of the geographic or projected CRS on it) that DATUM_SHIFTS knows, else undefined. */
export function datumShiftFor(pcs: number | undefined, gcs: number | undefined, datum: number | undefined): string | undefined {
  if (datum !== undefined && DATUM_SHIFTS[datum]) return DATUM_SHIFTS[datum].towgs84;
  for (const shift of Object.values(DATUM_SHIFTS)) {
    if (shift.gcs === gcs || (pcs !== undefined && shift.pcs.includes(pcs))) return shift.towgs84;
  }
  return undefined;
}
