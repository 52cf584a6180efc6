/**
 * src/vector/crs.ts: a GeoParquet column's PROJJSON → the CRS the AOI is compared in (contract §5).
 * - null (no `crs` key) is OGC:CRS84, so is an OGC:CRS84 id;
 * - nc.parquet's real PROJJSON (NAD27, EPSG:4267, a GeographicCRS) is read from the fixture's footer here
 *   with hyparquet's parquetMetadata;
 * - UTM 33N: the PROJJSON PROJ 9.1.1 writes (`projinfo EPSG:32633 -o PROJJSON --single-line -q`, Debian
 *   proj-bin), and points transformed as `cs2cs` from the same package transforms them;
 * - a ProjectedCRS without an id (the same PROJJSON with its top-level id removed) is 422.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parquetMetadata } from 'hyparquet';
import { describe, expect, it } from 'vitest';
import { CRS84, crsFromProjJson } from '../../src/vector/crs.ts';
import { makeTransformer } from '../../src/geometry/reproject.ts';
import { ZonalError } from '../../src/errors.ts';
import type { Position } from '../../src/geometry/types.ts';
import { FIXTURES } from '../helpers/build-app.ts';

const WGS84 = '+proj=longlat +datum=WGS84 +no_defs';

/** `projinfo EPSG:32633 -o PROJJSON --single-line -q` (PROJ 9.1.1). */
const UTM33_PROJJSON = {
  $schema: 'https://proj.org/schemas/v0.5/projjson.schema.json',
  type: 'ProjectedCRS',
  name: 'WGS 84 / UTM zone 33N',
  base_crs: {
    name: 'WGS 84',
    datum_ensemble: {
      name: 'World Geodetic System 1984 ensemble',
      members: [
        { name: 'World Geodetic System 1984 (Transit)', id: { authority: 'EPSG', code: 1166 } },
        { name: 'World Geodetic System 1984 (G730)', id: { authority: 'EPSG', code: 1152 } },
        { name: 'World Geodetic System 1984 (G873)', id: { authority: 'EPSG', code: 1153 } },
        { name: 'World Geodetic System 1984 (G1150)', id: { authority: 'EPSG', code: 1154 } },
        { name: 'World Geodetic System 1984 (G1674)', id: { authority: 'EPSG', code: 1155 } },
        { name: 'World Geodetic System 1984 (G1762)', id: { authority: 'EPSG', code: 1156 } },
        { name: 'World Geodetic System 1984 (G2139)', id: { authority: 'EPSG', code: 1309 } },
      ],
      ellipsoid: { name: 'WGS 84', semi_major_axis: 6378137, inverse_flattening: 298.257223563 },
      accuracy: '2.0',
      id: { authority: 'EPSG', code: 6326 },
    },
    coordinate_system: {
      subtype: 'ellipsoidal',
      axis: [
        { name: 'Geodetic latitude', abbreviation: 'Lat', direction: 'north', unit: 'degree' },
        { name: 'Geodetic longitude', abbreviation: 'Lon', direction: 'east', unit: 'degree' },
      ],
    },
    id: { authority: 'EPSG', code: 4326 },
  },
  conversion: {
    name: 'UTM zone 33N',
    method: { name: 'Transverse Mercator', id: { authority: 'EPSG', code: 9807 } },
    parameters: [
      { name: 'Latitude of natural origin', value: 0, unit: 'degree', id: { authority: 'EPSG', code: 8801 } },
      { name: 'Longitude of natural origin', value: 15, unit: 'degree', id: { authority: 'EPSG', code: 8802 } },
      { name: 'Scale factor at natural origin', value: 0.9996, unit: 'unity', id: { authority: 'EPSG', code: 8805 } },
      { name: 'False easting', value: 500000, unit: 'metre', id: { authority: 'EPSG', code: 8806 } },
      { name: 'False northing', value: 0, unit: 'metre', id: { authority: 'EPSG', code: 8807 } },
    ],
  },
  coordinate_system: {
    subtype: 'Cartesian',
    axis: [
      { name: 'Easting', abbreviation: 'E', direction: 'east', unit: 'metre' },
      { name: 'Northing', abbreviation: 'N', direction: 'north', unit: 'metre' },
    ],
  },
  scope: 'Engineering survey, topographic mapping.',
  area: 'Between 12°E and 18°E, northern hemisphere between equator and 84°N, onshore and offshore. Austria. Bosnia and Herzegovina. Cameroon. Central African Republic. Chad. Congo. Croatia. Czechia. Democratic Republic of the Congo (Zaire). Gabon. Germany. Hungary. Italy. Libya. Malta. Niger. Nigeria. Norway. Poland. San Marino. Slovakia. Slovenia. Svalbard. Sweden. Vatican City State.',
  bbox: { south_latitude: 0, west_longitude: 12, north_latitude: 84, east_longitude: 18 },
  id: { authority: 'EPSG', code: 32633 },
} as Record<string, unknown>;

/** The `crs` of nc.parquet's geometry column `geom`, from the file's own footer. */
function ncProjJson(): Record<string, unknown> {
  const buf = readFileSync(join(FIXTURES, 'vector/nc.parquet'));
  const meta = parquetMetadata(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer);
  const geo = JSON.parse(meta.key_value_metadata?.find((kv) => kv.key === 'geo')?.value ?? 'null') as {
    columns: Record<string, { crs: Record<string, unknown> }>;
  };
  return geo.columns['geom']!.crs;
}

function thrown(f: () => unknown): ZonalError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ZonalError);
    return e as ZonalError;
  }
  throw new Error('expected a ZonalError, nothing was thrown');
}

function expectNear(got: Position, want: Position, tol: number): void {
  expect(Math.abs(got[0] - want[0]), `x: got ${got[0]}, want ${want[0]}`).toBeLessThanOrEqual(tol);
  expect(Math.abs(got[1] - want[1]), `y: got ${got[1]}, want ${want[1]}`).toBeLessThanOrEqual(tol);
}

describe('crsFromProjJson', () => {
  it('null (no crs key) is OGC:CRS84, lon/lat on WGS84', () => {
    const crs = crsFromProjJson(null);
    expect(crs).toEqual(CRS84);
    expect(crs.isGeographic).toBe(true);
    expect(crs.name).toBe('OGC:CRS84');
    expect(crs.proj4).toMatch(/\+proj=longlat/);
    expect(crs.proj4).toMatch(/\+datum=WGS84/);
  });

  it('a PROJJSON whose id is OGC:CRS84 is CRS84', () => {
    const crs = crsFromProjJson({ type: 'GeographicCRS', name: 'WGS 84 (CRS84)', id: { authority: 'OGC', code: 'CRS84' } });
    expect(crs.isGeographic).toBe(true);
    expect(crs.proj4).toBe(CRS84.proj4);
    expect(crs.name).toBe('OGC:CRS84');
  });

  it("nc.parquet's real PROJJSON (NAD27, GeographicCRS, id EPSG:4267) is geographic, used as lon/lat", () => {
    const pj = ncProjJson();
    expect(pj['type']).toBe('GeographicCRS');
    expect(pj['name']).toBe('NAD27');
    expect(pj['id']).toEqual({ authority: 'EPSG', code: 4267 });
    const crs = crsFromProjJson(pj);
    expect(crs.isGeographic).toBe(true);
    expect(crs.name).toBe('EPSG:4267');
    expect(crs.proj4).toMatch(/\+proj=longlat/);
    // Clarke 1866 (NAD27's ellipsoid), whatever way proj4 spells it.
    expect(crs.proj4).toMatch(/clrk66|NAD27|6378206\.4/);
    // Axis order: the definition must not swap to lat/lon (GeoParquet coordinates are lon/lat).
    expect(crs.proj4).not.toMatch(/\+axis=ne/);
  });

  it('a GeographicCRS without an id is read as lon/lat', () => {
    const { id: _id, ...noId } = ncProjJson();
    const crs = crsFromProjJson(noId);
    expect(crs.isGeographic).toBe(true);
    expect(crs.name).toBe('NAD27');
  });

  // Expected numbers: `echo "500000 5000000\n600000 5100000\n350000 4800000" | cs2cs -f %.12f EPSG:32633 EPSG:4326`
  // (PROJ 9.1.1), which prints lat, lon:
  //   45.153477183356 15.000000000000
  //   46.046265455836 16.292532035827
  //   43.337883705553 13.149545088608
  const UTM_POINTS: [Position, Position][] = [
    [
      [500000, 5000000],
      [15.0, 45.153477183356],
    ],
    [
      [600000, 5100000],
      [16.292532035827, 46.046265455836],
    ],
    [
      [350000, 4800000],
      [13.149545088608, 43.337883705553],
    ],
  ];

  it("EPSG:32633 (PROJ's own PROJJSON) is projected and transforms points as cs2cs does", () => {
    const crs = crsFromProjJson(UTM33_PROJJSON);
    expect(crs.isGeographic).toBe(false);
    expect(crs.name).toBe('EPSG:32633');
    const t = makeTransformer(crs.proj4, WGS84);
    for (const [xy, lonLat] of UTM_POINTS) {
      // 1e-9° ≈ 0.1 mm: cs2cs prints 12 decimals.
      expectNear(t.forward(xy), lonLat, 1e-9);
      expectNear(t.inverse(lonLat), xy, 1e-4);
    }
  });

  it('the same CRS named by id alone, by an "ids" array, and with the code as a string', () => {
    for (const pj of [
      { type: 'ProjectedCRS', id: { authority: 'EPSG', code: 32633 } },
      { type: 'ProjectedCRS', ids: [{ authority: 'EPSG', code: 32633 }] },
      { type: 'ProjectedCRS', id: { authority: 'epsg', code: '32633' } },
    ]) {
      const crs = crsFromProjJson(pj);
      expect(crs.isGeographic, JSON.stringify(pj)).toBe(false);
      expectNear(makeTransformer(crs.proj4, WGS84).forward([600000, 5100000]), [16.292532035827, 46.046265455836], 1e-9);
    }
  });

  it('a BoundCRS is read through its source_crs', () => {
    const crs = crsFromProjJson({ type: 'BoundCRS', source_crs: UTM33_PROJJSON, target_crs: { type: 'GeographicCRS', id: { authority: 'EPSG', code: 4326 } } });
    expect(crs.isGeographic).toBe(false);
    expectNear(makeTransformer(crs.proj4, WGS84).forward([500000, 5000000]), [15.0, 45.153477183356], 1e-9);
  });

  it('a ProjectedCRS without an id is 422 naming it', () => {
    const { id: _id, ...noId } = UTM33_PROJJSON;
    // PROJ's PROJJSON still carries ids deeper down (base_crs EPSG:4326, the conversion, each parameter).
    expect(JSON.stringify(noId)).toContain('"code":4326');
    const e = thrown(() => crsFromProjJson(noId));
    expect(e.status).toBe(422);
    expect(e.code).toBe('invalid_source');
    expect(e.detail).toContain('WGS 84 / UTM zone 33N');
  });

  it('an EPSG code that does not exist is 422', () => {
    const e = thrown(() => crsFromProjJson({ type: 'ProjectedCRS', name: 'nonsense', id: { authority: 'EPSG', code: 999999 } }));
    expect(e.status).toBe(422);
    expect(e.detail).toContain('EPSG:999999');
  });

  it('a CRS of another kind without an id (a vertical CRS) is 422', () => {
    expect(thrown(() => crsFromProjJson({ type: 'VerticalCRS', name: 'NAVD88 height' })).status).toBe(422);
    expect(thrown(() => crsFromProjJson({})).status).toBe(422);
  });
});
