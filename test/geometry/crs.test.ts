/**
 * GeoKeys as geotiff.js returns them (`(await (await fromFile(f)).getImage()).getGeoKeys()`), from:
 * - lc.cog.tif: /work/shared/data/lc.cog.tif (a user-defined Albers on NAD83);
 * - the EPSG files: `gdal_create -of GTiff -outsize 4 4 -bands 1 -a_srs EPSG:<code> -a_ullr 0 4 4 0 e<code>.tif`
 *   (GDAL 3.6.2);
 * - meuse: the same with -a_srs "+proj=sterea +lat_0=52.15616055555555 +lon_0=5.38763888888889 +k=0.9999079
 *   +x_0=155000 +y_0=463000 +ellps=bessel +towgs84=565.4171,50.3319,465.5524,-0.398957,0.343988,-1.8774,4.0725
 *   +units=m +no_defs" (sp's meuse CRS), which GDAL writes as a user-defined oblique stereographic.
 * Expected coordinates from PROJ 9.1.1 (Debian proj-bin); each test names its command.
 */
import { describe, expect, it } from 'vitest';
import { crsFromGeoKeys } from '../../src/geometry/crs.ts';
import { makeTransformer } from '../../src/geometry/reproject.ts';
import { ZonalError } from '../../src/errors.ts';
import type { Position } from '../../src/geometry/types.ts';

const WGS84 = '+proj=longlat +datum=WGS84 +no_defs';

const KEYS = {
  e4326: {
    GTModelTypeGeoKey: 2,
    GTRasterTypeGeoKey: 1,
    GeographicTypeGeoKey: 4326,
    GeogCitationGeoKey: 'WGS 84',
    GeogAngularUnitsGeoKey: 9102,
    GeogSemiMajorAxisGeoKey: 6378137,
    GeogInvFlatteningGeoKey: 298.257223563,
  },
  e31985: {
    GTModelTypeGeoKey: 1,
    GTRasterTypeGeoKey: 1,
    GTCitationGeoKey: 'SIRGAS 2000 / UTM zone 25S',
    GeogCitationGeoKey: 'SIRGAS 2000',
    GeogAngularUnitsGeoKey: 9102,
    ProjectedCSTypeGeoKey: 31985,
    ProjLinearUnitsGeoKey: 9001,
  },
  e32633: {
    GTModelTypeGeoKey: 1,
    GTRasterTypeGeoKey: 1,
    GTCitationGeoKey: 'WGS 84 / UTM zone 33N',
    GeogCitationGeoKey: 'WGS 84',
    GeogAngularUnitsGeoKey: 9102,
    ProjectedCSTypeGeoKey: 32633,
    ProjLinearUnitsGeoKey: 9001,
  },
  e3857: {
    GTModelTypeGeoKey: 1,
    GTRasterTypeGeoKey: 1,
    GTCitationGeoKey: 'WGS 84 / Pseudo-Mercator',
    GeogCitationGeoKey: 'WGS 84',
    GeogAngularUnitsGeoKey: 9102,
    ProjectedCSTypeGeoKey: 3857,
    ProjLinearUnitsGeoKey: 9001,
  },
  e28992: {
    GTModelTypeGeoKey: 1,
    GTRasterTypeGeoKey: 1,
    GTCitationGeoKey: 'Amersfoort / RD New',
    GeogCitationGeoKey: 'Amersfoort',
    GeogAngularUnitsGeoKey: 9102,
    ProjectedCSTypeGeoKey: 28992,
    ProjLinearUnitsGeoKey: 9001,
  },
  meuse: {
    GTModelTypeGeoKey: 1,
    GTRasterTypeGeoKey: 1,
    GTCitationGeoKey: 'unknown',
    GeographicTypeGeoKey: 32767,
    GeogCitationGeoKey:
      'GCS Name = unknown|Datum = Unknown based on Bessel 1841 ellipsoid using towgs84=565.4171,50.3319,465.5524,-0.398957,0.343988,-1.8774,4.0725|Ellipsoid = Bessel 1841|Primem = Greenwich|',
    GeogGeodeticDatumGeoKey: 32767,
    GeogAngularUnitsGeoKey: 9102,
    GeogEllipsoidGeoKey: 32767,
    GeogSemiMajorAxisGeoKey: 6377397.155,
    GeogInvFlatteningGeoKey: 299.1528128,
    GeogPrimeMeridianLongGeoKey: 0,
    // geotiff.js hands this key over as a typed array.
    GeogTOWGS84GeoKey: new Float64Array([565.4171, 50.3319, 465.5524, -0.398957, 0.343988, -1.8774, 4.0725]),
    ProjectedCSTypeGeoKey: 32767,
    ProjectionGeoKey: 32767,
    ProjCoordTransGeoKey: 16,
    ProjLinearUnitsGeoKey: 9001,
    ProjNatOriginLongGeoKey: 5.38763888888889,
    ProjNatOriginLatGeoKey: 52.1561605555556,
    ProjFalseEastingGeoKey: 155000,
    ProjFalseNorthingGeoKey: 463000,
    ProjScaleAtNatOriginGeoKey: 0.9999079,
  },
  lc: {
    GTModelTypeGeoKey: 1,
    GTRasterTypeGeoKey: 1,
    GTCitationGeoKey: 'Albers Conical Equal Area',
    GeographicTypeGeoKey: 4269,
    GeogCitationGeoKey: 'NAD83',
    GeogAngularUnitsGeoKey: 9102,
    GeogSemiMajorAxisGeoKey: 6378137,
    GeogInvFlatteningGeoKey: 298.257222101004,
    ProjectedCSTypeGeoKey: 32767,
    ProjectionGeoKey: 32767,
    ProjCoordTransGeoKey: 11,
    ProjLinearUnitsGeoKey: 9001,
    ProjStdParallel1GeoKey: 29.5,
    ProjStdParallel2GeoKey: 45.5,
    ProjNatOriginLongGeoKey: -96,
    ProjNatOriginLatGeoKey: 23,
    ProjFalseEastingGeoKey: 0,
    ProjFalseNorthingGeoKey: 0,
  },
};

function expectForward(def: string, lonLat: Position, expected: Position, digits = 3): void {
  const t = makeTransformer(WGS84, def);
  const [x, y] = t.forward(lonLat);
  expect(x).toBeCloseTo(expected[0], digits);
  expect(y).toBeCloseTo(expected[1], digits);
  // proj4's inverse 7-parameter datum shift is not exact: ~1e-8° (1 mm) back.
  const [lon, lat] = t.inverse([x, y]);
  expect(lon).toBeCloseTo(lonLat[0], 7);
  expect(lat).toBeCloseTo(lonLat[1], 7);
}

describe('crsFromGeoKeys', () => {
  it('EPSG:4326: geographic, no axis swap', () => {
    const crs = crsFromGeoKeys(KEYS.e4326);
    expect(crs).toMatchObject({ epsg: 4326, isGeographic: true, name: 'WGS 84' });
    expect(crs.proj4).toMatch(/^\+proj=longlat /);
    expect(crs.proj4).not.toMatch(/\+axis/); // the library adds +axis=ne (EPSG order); GeoTIFF is lon first
    expectForward(crs.proj4, [6.1, 49.6], [6.1, 49.6], 10);
  });

  it('EPSG:31985 (SIRGAS 2000 / UTM 25S), the Olinda scene', () => {
    const crs = crsFromGeoKeys(KEYS.e31985);
    expect(crs).toMatchObject({ epsg: 31985, isGeographic: false, name: 'SIRGAS 2000 / UTM zone 25S' });
    // printf -- "-8.0 -34.85\n-9.5 -35.5\n" | cs2cs -f %.4f EPSG:4326 EPSG:31985
    expectForward(crs.proj4, [-34.85, -8.0], [296097.2136, 9115243.8898]);
    expectForward(crs.proj4, [-35.5, -9.5], [225519.8283, 8948879.6425]);
  });

  it('EPSG:32633 (WGS 84 / UTM 33N)', () => {
    const crs = crsFromGeoKeys(KEYS.e32633);
    expect(crs).toMatchObject({ epsg: 32633, isGeographic: false });
    // printf "48.2 15.5\n60 20\n" | cs2cs -f %.4f EPSG:4326 EPSG:32633
    expectForward(crs.proj4, [15.5, 48.2], [537153.3112, 5338650.6345]);
    expectForward(crs.proj4, [20, 60], [778711.2298, 6661953.0405]);
  });

  it('EPSG:3857 (Web Mercator: WGS 84 lon/lat projected on the sphere, no datum shift)', () => {
    const crs = crsFromGeoKeys(KEYS.e3857);
    expect(crs).toMatchObject({ epsg: 3857, isGeographic: false });
    // printf "40.75 -73.98\n35.7 139.7\n" | cs2cs -f %.4f EPSG:4326 EPSG:3857
    expectForward(crs.proj4, [-73.98, 40.75], [-8235415.9289, 4975536.3611]);
    expectForward(crs.proj4, [139.7, 35.7], [15551332.8638, 4259419.9655]);
  });

  it('EPSG:28992 (Amersfoort / RD New): oblique stereographic with the datum shift PROJ uses', () => {
    const crs = crsFromGeoKeys(KEYS.e28992);
    expect(crs).toMatchObject({ epsg: 28992, isGeographic: false, name: 'Amersfoort / RD New' });
    expect(crs.proj4).toMatch(/\+proj=sterea .*\+towgs84=565\.4171,50\.3319,465\.5524,/);
    // printf "52.156160555556 5.387638888889\n52.37 4.9\n" | cs2cs -f %.4f EPSG:4326 EPSG:28992
    // (PROJ picks "Amersfoort to WGS 84 (4)"; without it the answer would be ~110 m off.)
    expectForward(crs.proj4, [5.387638888889, 52.156160555556], [155029.7941, 463109.9541]);
    expectForward(crs.proj4, [4.9, 52.37], [121819.3652, 487013.7615]);
    // printf "155000 463000\n" | cs2cs -f %.9f EPSG:28992 EPSG:4326 → 52.155172301 5.387203508
    const [lon, lat] = makeTransformer(crs.proj4, WGS84).forward([155000, 463000]);
    expect(lon).toBeCloseTo(5.387203508, 8);
    expect(lat).toBeCloseTo(52.155172301, 8);
  });

  it('a user-defined oblique stereographic from keys (Bessel + TOWGS84, the meuse CRS)', () => {
    const crs = crsFromGeoKeys(KEYS.meuse);
    expect(crs).toMatchObject({ isGeographic: false, name: 'user-defined' });
    expect(crs.epsg).toBeUndefined();
    expect(crs.proj4).toMatch(/^\+proj=sterea /);
    // printf "50.97 5.74\n" | cs2cs -f %.4f EPSG:4326 "$(gdalsrsinfo -o wkt2 meuse.tif)"
    expectForward(crs.proj4, [5.74, 50.97], [179782.1326, 331205.7907]);
  });

  it('the user-defined Albers of lc.cog.tif (GeographicTypeGeoKey 4269 beside a user-defined projection)', () => {
    const crs = crsFromGeoKeys(KEYS.lc);
    expect(crs).toMatchObject({ isGeographic: false, name: 'Albers Conical Equal Area' });
    expect(crs.proj4).toMatch(/^\+proj=aea \+lat_0=23 \+lon_0=-96 \+lat_1=29\.5 \+lat_2=45\.5 /);
    expect(crs.proj4).not.toMatch(/\+axis/); // inherited from the NAD83 base by the library
    // printf "18.2 -66.5\n18.5 -65.3\n" | cs2cs -f %.4f EPSG:4326 "$(gdalsrsinfo -o wkt2 /work/shared/data/lc.cog.tif)"
    expectForward(crs.proj4, [-66.5, 18.2], [3190667.8608, -17398.7254]);
    expectForward(crs.proj4, [-65.3, 18.5], [3305852.2454, 54007.1687]);
    // The raster's top-left corner (geotiff.js getOrigin()):
    // printf "3092415 59415\n" | cs2cs -f %.9f "$(gdalsrsinfo -o wkt2 lc.cog.tif)" EPSG:4326 → 19.164027379 -67.144059123
    const [lon, lat] = makeTransformer(crs.proj4, WGS84).forward([3092415, 59415]);
    expect(lon).toBeCloseTo(-67.144059123, 8);
    expect(lat).toBeCloseTo(19.164027379, 8);
  });

  it('an EPSG projected code wins over a geographic code set beside it', () => {
    // The library alone would return +proj=longlat here.
    const crs = crsFromGeoKeys({ GTModelTypeGeoKey: 1, GeographicTypeGeoKey: 4326, ProjectedCSTypeGeoKey: 32633 });
    expect(crs).toMatchObject({ epsg: 32633, isGeographic: false, name: 'EPSG:32633' });
    expectForward(crs.proj4, [15.5, 48.2], [537153.3112, 5338650.6345]);
  });

  it('units: an EPSG CRS in US feet, and user-defined feet folded in as +to_meter', () => {
    // printf "40.75 -73.98\n" | cs2cs -f %.4f EPSG:4326 EPSG:2263
    expectForward(crsFromGeoKeys({ GTModelTypeGeoKey: 1, ProjectedCSTypeGeoKey: 2263 }).proj4, [-73.98, 40.75], [989791.4573, 212522.5192]);
    const feet = crsFromGeoKeys({
      GTModelTypeGeoKey: 1,
      ProjectedCSTypeGeoKey: 32767,
      GeographicTypeGeoKey: 4269,
      ProjCoordTransGeoKey: 1,
      ProjLinearUnitsGeoKey: 9002,
      ProjNatOriginLatGeoKey: 40,
      ProjNatOriginLongGeoKey: -74,
      ProjScaleAtNatOriginGeoKey: 0.9999,
      ProjFalseEastingGeoKey: 492125,
      ProjFalseNorthingGeoKey: 0,
    });
    expect(feet.proj4).toMatch(/\+to_meter=0\.3048 /);
    // The false easting 492,125 ft is 149,999.7 m:
    // echo "-73.98 40.75" | cs2cs -f %.4f +proj=longlat +datum=WGS84 +to +proj=tmerc +lat_0=40 +lon_0=-74 +k=0.9999
    //   +x_0=149999.7 +y_0=0 +ellps=GRS80 +units=ft +no_defs
    expectForward(feet.proj4, [-73.98, 40.75], [497665.9342, 273206.2072]);
  });

  it('adds the datum shift of other national grids the library leaves without one', () => {
    // printf "51.5 -0.12\n" | cs2cs -f %.4f EPSG:4326 EPSG:27700 (OSGB36 to WGS 84 (6))
    expectForward(crsFromGeoKeys({ GTModelTypeGeoKey: 1, ProjectedCSTypeGeoKey: 27700 }).proj4, [-0.12, 51.5], [530591.1664, 179571.0654]);
    expect(crsFromGeoKeys({ GTModelTypeGeoKey: 2, GeographicTypeGeoKey: 4289 }).proj4).toMatch(/\+towgs84=565\.4171/);
    expect(crsFromGeoKeys({ GTModelTypeGeoKey: 1, ProjectedCSTypeGeoKey: 31467 }).proj4).toMatch(/\+towgs84=598\.1,73\.7,418\.2/);
  });

  it('no CRS keys → missing_crs', () => {
    for (const keys of [{}, { GTModelTypeGeoKey: 1, GTRasterTypeGeoKey: 1 }, { GTCitationGeoKey: 'nothing' }]) {
      let error: unknown;
      try {
        crsFromGeoKeys(keys);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ZonalError);
      expect((error as ZonalError).code).toBe('missing_crs');
      expect((error as ZonalError).detail).toBe('The raster has no coordinate reference system.');
    }
  });

  it.each([
    [
      { GTModelTypeGeoKey: 3, GeographicTypeGeoKey: 4978 },
      "The raster's geocentric coordinate system is not supported. Reproject it, for example with gdalwarp -t_srs EPSG:4326 in.tif out.tif.",
    ],
    [
      { GTModelTypeGeoKey: 1, ProjectedCSTypeGeoKey: 1234 },
      "The raster's coordinate reference system (EPSG:1234) is not supported. Reproject it, for example with gdalwarp -t_srs EPSG:4326 in.tif out.tif.",
    ],
    [
      { GTModelTypeGeoKey: 1, ProjectedCSTypeGeoKey: 32767, GeographicTypeGeoKey: 4326 },
      "The raster's projected coordinate system is user-defined but names no projection method.",
    ],
    [
      { GTModelTypeGeoKey: 1, ProjectedCSTypeGeoKey: 32767, GeographicTypeGeoKey: 4326, ProjCoordTransGeoKey: 2 },
      "The raster's projection method Transverse Mercator (modified Alaska) (code 2) is not supported. Reproject it, for example with gdalwarp -t_srs EPSG:4326 in.tif out.tif.",
    ],
    [
      { GTModelTypeGeoKey: 2, GeographicTypeGeoKey: 4326, GeogAngularUnitsGeoKey: 9105 },
      "The raster's angular unit (EPSG:4326) is not supported. Lon/lat rasters are read in degrees only. Reproject it, for example with gdalwarp -t_srs EPSG:4326 in.tif out.tif.",
    ],
  ])('%j → unsupported_raster', (keys, detail) => {
    let error: unknown;
    try {
      crsFromGeoKeys(keys);
    } catch (e) {
      error = e;
    }
    expect((error as ZonalError).code).toBe('unsupported_raster');
    expect((error as ZonalError).detail).toBe(detail);
  });
});
