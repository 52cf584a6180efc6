#!/usr/bin/env python3
"""The CRS table: how GDAL reads a GeoTIFF's GeoKeys, as points to check the service's GeoKeys -> CRS path.

Dev-only tool: GDAL/OSR + pyproj from Debian (GDAL 3.6, PROJ 9.1), no code shared with the service.

    apt-get install -y gdal-bin python3-gdal python3-pyproj
    /usr/bin/python3 tools/oracle/crs_oracle.py

For every entry of TABLE below it
1. writes fixtures/crs/tif/<name>.tif, a 2x2 GeoTIFF whose only content that matters is its GeoKeys, as
   GDAL writes them for that CRS (an EPSG code, or a user-defined CRS from a PROJ string; a projection
   that GeoTIFF has no code for is written as GDAL does it, with an "ESRI PE String" citation). GDAL 3.6
   writes some EPSG CRSs (Equal Earth, Guam, hyperbolic Cassini) only to a .aux.xml sidecar, so those files
   get GeoKeys written by this script (see write_handmade_tif), which GDAL then reads back like the others;
2. opens the file again with GDAL and takes the CRS GDAL reads from those GeoKeys, with GDAL's
   traditional GIS axis order (the order of the file's model space: the first coordinate runs along the
   pixel columns);
3. projects points of the CRS's area of use from its own geographic CRS (longitude east of Greenwich and
   latitude, in degrees; converted here to the base CRS's prime meridian and angular unit) with OSR;
4. for EPSG entries, projects the same points with pyproj from the EPSG code alone, and stops when the
   two disagree by more than 0.1 mm (then the GeoKeys would not carry the CRS, and the table would test
   GDAL's encoding rather than the service).

and writes fixtures/crs/table.json: [{name, srs, family, method, tif, units_to_metre, geographic,
points: [{lon, lat, x, y}], expect, reason?}]. `expect` is the service's decision for that CRS: "read"
(points must agree to 1 mm) or "refuse" (a 422 that names the CRS), with the reason. A refusal is only
for a CRS the service's CRS library (proj4js) cannot express.
"""
import json
import math
import os
import shutil
import struct
import sys

try:
    import pyproj
    from osgeo import gdal, osr
except ImportError:  # a pyenv python3 first on PATH: re-run under Debian's interpreter
    if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3", *sys.argv])
    raise

gdal.UseExceptions()
osr.UseExceptions()
# Deprecated codes (EPSG:3411, 3408, 32662) are written as themselves, not as their replacements.
gdal.SetConfigOption("OSR_USE_NON_DEPRECATED", "NO")

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
OUT = os.path.join(ROOT, "fixtures", "crs")

# (name, srs, family, method, options). srs is EPSG:code or a PROJ string (a user-defined CRS).
# options: points = explicit [(lon, lat)], writer = GDAL GeoTIFF creation options.
TABLE = [
    # Polar stereographic
    ("epsg3031", "EPSG:3031", "polar stereographic", "variant B (south)", {}),
    ("epsg3413", "EPSG:3413", "polar stereographic", "variant B (north)", {}),
    ("epsg3976", "EPSG:3976", "polar stereographic", "variant B (south)", {}),
    ("epsg3995", "EPSG:3995", "polar stereographic", "variant B (north)", {}),
    ("epsg3032", "EPSG:3032", "polar stereographic", "variant B, false origin", {}),
    ("epsg3411", "EPSG:3411", "polar stereographic", "variant B, Hughes 1980", {}),
    ("epsg32661", "EPSG:32661", "polar stereographic", "variant A (UPS north)", {}),
    ("epsg32761", "EPSG:32761", "polar stereographic", "variant A (UPS south)", {}),
    ("epsg5041", "EPSG:5041", "polar stereographic", "variant A (UPS north, E/N)", {}),
    ("epsg5042", "EPSG:5042", "polar stereographic", "variant A (UPS south, E/N)", {}),
    ("epsg2985", "EPSG:2985", "polar stereographic", "variant C", {}),
    ("ud_polar_a", "+proj=stere +lat_0=90 +lon_0=-45 +k=0.994 +x_0=2000000 +y_0=2000000 +datum=WGS84 +units=m", "polar stereographic", "variant A, user-defined", {"points": [(-45, 85), (10, 70), (120, 60), (-150, 80)]}),
    ("ud_polar_b", "+proj=stere +lat_0=-90 +lat_ts=-71 +lon_0=30 +x_0=0 +y_0=0 +datum=WGS84 +units=m", "polar stereographic", "variant B, user-defined", {"points": [(30, -85), (-60, -70), (170, -65), (-120, -89)]}),
    # Lambert azimuthal equal area
    ("epsg3035", "EPSG:3035", "Lambert azimuthal equal area", "LAEA", {}),
    ("epsg6931", "EPSG:6931", "Lambert azimuthal equal area", "LAEA polar (EASE-Grid 2.0 North)", {}),
    ("epsg3573", "EPSG:3573", "Lambert azimuthal equal area", "LAEA polar", {}),
    ("epsg9311", "EPSG:9311", "Lambert azimuthal equal area", "LAEA, Clarke 1866", {}),
    ("epsg3408", "EPSG:3408", "Lambert azimuthal equal area", "LAEA spherical (EASE-Grid North)", {}),
    ("ud_laea", "+proj=laea +lat_0=-15 +lon_0=135 +x_0=1000 +y_0=2000 +ellps=GRS80 +units=m", "Lambert azimuthal equal area", "LAEA, user-defined", {"points": [(135, -15), (120, -30), (150, -5), (140, -40)]}),
    # Cylindrical equal area
    ("epsg6933", "EPSG:6933", "cylindrical equal area", "Lambert cylindrical equal area (EASE-Grid 2.0 global)", {}),
    # Albers
    ("epsg5070", "EPSG:5070", "Albers equal area", "Albers", {}),
    ("epsg3577", "EPSG:3577", "Albers equal area", "Albers", {}),
    ("epsg3005", "EPSG:3005", "Albers equal area", "Albers", {}),
    ("epsg3310", "EPSG:3310", "Albers equal area", "Albers", {}),
    ("ud_aea", "+proj=aea +lat_0=0 +lat_1=-18 +lat_2=-36 +lon_0=132 +x_0=0 +y_0=0 +ellps=GRS80 +units=m", "Albers equal area", "Albers, user-defined", {"points": [(132, -25), (115, -33), (150, -10), (145, -42)]}),
    # Lambert conic conformal
    ("epsg2154", "EPSG:2154", "Lambert conic conformal", "LCC 2SP", {}),
    ("epsg3034", "EPSG:3034", "Lambert conic conformal", "LCC 2SP", {}),
    ("epsg3347", "EPSG:3347", "Lambert conic conformal", "LCC 2SP", {}),
    ("epsg3978", "EPSG:3978", "Lambert conic conformal", "LCC 2SP", {}),
    ("epsg3057", "EPSG:3057", "Lambert conic conformal", "LCC 2SP", {}),
    ("epsg31370", "EPSG:31370", "Lambert conic conformal", "LCC 2SP Belgium", {}),
    ("epsg27572", "EPSG:27572", "Lambert conic conformal", "LCC 1SP, Paris meridian, grads", {}),
    ("epsg27562", "EPSG:27562", "Lambert conic conformal", "LCC 1SP, Paris meridian, grads", {}),
    ("epsg26191", "EPSG:26191", "Lambert conic conformal", "LCC 1SP", {}),
    ("epsg2085", "EPSG:2085", "Lambert conic conformal", "LCC 1SP", {}),
    ("epsg2062", "EPSG:2062", "Lambert conic conformal", "LCC 1SP, Madrid meridian", {}),
    ("epsg2263", "EPSG:2263", "Lambert conic conformal", "LCC 2SP, US survey foot", {}),
    ("epsg2227", "EPSG:2227", "Lambert conic conformal", "LCC 2SP, US survey foot", {}),
    ("ud_lcc1sp", "+proj=lcc +lat_1=46.8 +lat_0=46.8 +lon_0=3 +k_0=0.9998 +x_0=600000 +y_0=200000 +ellps=GRS80 +units=m", "Lambert conic conformal", "LCC 1SP, user-defined", {"points": [(3, 46.8), (-2, 43), (7, 50), (1, 48)]}),
    ("ud_lcc_usft", "+proj=lcc +lat_1=33 +lat_2=45 +lat_0=39 +lon_0=-96 +x_0=1000 +y_0=0 +ellps=GRS80 +units=us-ft", "Lambert conic conformal", "LCC 2SP, user-defined, US survey foot", {"points": [(-96, 39), (-120, 35), (-75, 44), (-100, 30)]}),
    # Mercator
    ("epsg3857", "EPSG:3857", "Mercator", "Popular Visualisation Pseudo-Mercator", {"points": [(0, 0), (-120, 45), (150, -60), (179, 80), (-179, -80)]}),
    ("epsg3395", "EPSG:3395", "Mercator", "Mercator 1SP", {"points": [(0, 0), (-120, 45), (150, -60), (179, 80)]}),
    ("epsg3832", "EPSG:3832", "Mercator", "Mercator 1SP, central meridian 150", {}),
    ("epsg3994", "EPSG:3994", "Mercator", "Mercator 2SP", {}),
    ("epsg5641", "EPSG:5641", "Mercator", "Mercator 2SP", {}),
    ("epsg3388", "EPSG:3388", "Mercator", "Mercator 2SP", {}),
    ("ud_merc2sp", "+proj=merc +lat_ts=33 +lon_0=100 +x_0=0 +y_0=0 +ellps=WGS84 +units=m", "Mercator", "Mercator 2SP, user-defined", {"points": [(100, 0), (80, 33), (120, -20), (150, 60)]}),
    # Transverse Mercator
    ("epsg32633", "EPSG:32633", "Transverse Mercator", "UTM north", {}),
    ("epsg32756", "EPSG:32756", "Transverse Mercator", "UTM south", {}),
    ("epsg27700", "EPSG:27700", "Transverse Mercator", "TM", {}),
    ("epsg2193", "EPSG:2193", "Transverse Mercator", "TM (N/E axes)", {}),
    ("epsg28355", "EPSG:28355", "Transverse Mercator", "UTM south", {}),
    ("epsg3006", "EPSG:3006", "Transverse Mercator", "TM (N/E axes)", {}),
    ("epsg25832", "EPSG:25832", "Transverse Mercator", "UTM north", {}),
    ("epsg31467", "EPSG:31467", "Transverse Mercator", "Gauss-Kruger", {}),
    ("epsg2047", "EPSG:2047", "Transverse Mercator", "TM south-oriented", {}),
    ("epsg2053", "EPSG:2053", "Transverse Mercator", "TM south-oriented", {}),
    ("epsg22275", "EPSG:22275", "Transverse Mercator", "TM south-oriented", {}),
    ("ud_tmerc_so", "+proj=tmerc +axis=wsu +lat_0=0 +lon_0=25 +k=1 +x_0=0 +y_0=0 +ellps=WGS84 +units=m", "Transverse Mercator", "TM south-oriented, user-defined", {"points": [(25, -30), (22, -25), (28, -33), (26, -20)]}),
    ("ud_tmerc_ft", "+proj=tmerc +lat_0=31 +lon_0=-110.1666666666667 +k=0.9999 +x_0=213360 +y_0=0 +ellps=GRS80 +units=ft", "Transverse Mercator", "TM, user-defined, international foot", {"points": [(-110.17, 31), (-111, 33), (-109.5, 35), (-110.5, 32)]}),
    # Oblique stereographic
    ("epsg28992", "EPSG:28992", "oblique stereographic", "oblique stereographic", {}),
    ("epsg3844", "EPSG:3844", "oblique stereographic", "oblique stereographic", {}),
    ("epsg2953", "EPSG:2953", "oblique stereographic", "oblique stereographic", {}),
    ("ud_sterea", "+proj=sterea +lat_0=52.15616055555555 +lon_0=5.38763888888889 +k=0.9999079 +x_0=155000 +y_0=463000 +ellps=bessel +units=m", "oblique stereographic", "oblique stereographic, user-defined", {"points": [(5.38763888888889, 52.15616055555555), (3.5, 51.4), (7, 53.4), (6, 50.8)]}),
    # Hotine oblique Mercator
    ("epsg2056", "EPSG:2056", "Hotine oblique Mercator", "variant B", {}),
    ("epsg21781", "EPSG:21781", "Hotine oblique Mercator", "variant B", {}),
    ("epsg3375", "EPSG:3375", "Hotine oblique Mercator", "variant B (RSO)", {}),
    ("epsg3376", "EPSG:3376", "Hotine oblique Mercator", "variant B (RSO)", {}),
    ("epsg26931", "EPSG:26931", "Hotine oblique Mercator", "variant B (Alaska zone 1)", {}),
    ("epsg29873", "EPSG:29873", "Hotine oblique Mercator", "variant A (RSO Borneo)", {}),
    ("epsg3079", "EPSG:3079", "Hotine oblique Mercator", "variant A (Michigan)", {}),
    ("ud_omerc_b", "+proj=omerc +lat_0=46.9524055555556 +lonc=7.43958333333333 +alpha=90 +gamma=90 +k=1 +x_0=2600000 +y_0=1200000 +ellps=bessel +units=m", "Hotine oblique Mercator", "variant B, user-defined", {"points": [(7.44, 46.95), (6.0, 46.2), (9.5, 47.6), (8.5, 46.0)]}),
    ("ud_omerc_a", "+proj=omerc +no_uoff +lat_0=4 +lonc=115 +alpha=53.3158204722222 +gamma=53.1301023611111 +k=0.99984 +x_0=0 +y_0=0 +ellps=evrst30 +units=m", "Hotine oblique Mercator", "variant A, user-defined", {"points": [(115, 4), (110, 1.5), (118, 6.5), (113, 3)]}),
    # Krovak
    ("epsg5514", "EPSG:5514", "Krovak", "Krovak East North", {}),
    ("epsg5513", "EPSG:5513", "Krovak", "Krovak (south, west)", {}),
    ("epsg2065", "EPSG:2065", "Krovak", "Krovak (south, west), Ferro meridian", {}),
    ("ud_krovak", "+proj=krovak +lat_0=49.5 +lon_0=24.8333333333333 +alpha=30.2881397527778 +k=0.9999 +x_0=0 +y_0=0 +ellps=bessel +units=m", "Krovak", "Krovak, user-defined (ESRI PE string)", {"points": [(15, 50), (12.5, 49), (18.5, 49.8), (16.5, 48.8)]}),
    # Equal Earth
    ("epsg8857", "EPSG:8857", "Equal Earth", "Equal Earth", {"handmade": True, "points": [(0, 0), (-120, 45), (150, -60), (179, 85), (-179, -85)]}),
    ("epsg8858", "EPSG:8858", "Equal Earth", "Equal Earth Americas", {"handmade": True}),
    ("ud_eqearth", "+proj=eqearth +lon_0=150 +ellps=WGS84 +units=m", "Equal Earth", "Equal Earth, user-defined (ESRI PE string)", {"points": [(150, 0), (100, 45), (-170, -60), (10, 30)], "handmade": True}),
    # Sinusoidal
    ("ud_sinu_modis", "+proj=sinu +lon_0=0 +x_0=0 +y_0=0 +R=6371007.181 +units=m", "sinusoidal", "sinusoidal as MODIS uses it (sphere R=6371007.181)", {"points": [(0, 0), (-120, 45), (150, -60), (179, 80), (-75, 10)]}),
    ("ud_sinu", "+proj=sinu +lon_0=-60 +x_0=100 +y_0=200 +datum=WGS84 +units=m", "sinusoidal", "sinusoidal on the WGS 84 ellipsoid", {"points": [(-60, 0), (-120, 45), (30, -60), (0, 20)]}),
    # Cassini
    ("epsg3068", "EPSG:3068", "Cassini-Soldner", "Cassini", {}),
    ("epsg2314", "EPSG:2314", "Cassini-Soldner", "Cassini, Clarke's foot", {}),
    ("epsg30200", "EPSG:30200", "Cassini-Soldner", "Cassini, Clarke's link", {}),
    ("epsg24500", "EPSG:24500", "Cassini-Soldner", "Cassini", {}),
    # Equidistant cylindrical
    ("epsg4087", "EPSG:4087", "equidistant cylindrical", "equidistant cylindrical", {"points": [(0, 0), (-120, 45), (150, -60), (179, 89)]}),
    ("epsg32662", "EPSG:32662", "equidistant cylindrical", "Plate Carree (deprecated code)", {"points": [(0, 0), (-120, 45), (150, -60), (179, 89)]}),
    ("epsg4088", "EPSG:4088", "equidistant cylindrical", "equidistant cylindrical (spherical)", {"points": [(0, 0), (-120, 45), (150, -60), (179, 89)]}),
    ("ud_eqc", "+proj=eqc +lat_ts=30 +lon_0=10 +x_0=0 +y_0=0 +datum=WGS84 +units=m", "equidistant cylindrical", "equidistant cylindrical, standard parallel 30, user-defined", {"points": [(10, 0), (-120, 45), (150, -60), (179, 89)]}),
    # Geostationary
    ("ud_geos_y", "+proj=geos +h=35785831 +lon_0=0 +sweep=y +ellps=WGS84 +units=m", "geostationary", "geostationary, sweep y (Meteosat)", {"points": [(0, 0), (-30, 40), (45, -30), (20, 60)]}),
    ("ud_geos_x", "+proj=geos +h=35785831 +lon_0=-75 +sweep=x +ellps=GRS80 +units=m", "geostationary", "geostationary, sweep x (GOES)", {"points": [(-75, 0), (-100, 40), (-50, -30), (-80, 60)]}),
    # Others GeoTIFF can name
    ("epsg27200", "EPSG:27200", "New Zealand map grid", "NZMG", {}),
    ("epsg5880", "EPSG:5880", "American polyconic", "polyconic", {}),
    ("epsg29702", "EPSG:29702", "Hotine oblique Mercator", "variant B standing in for Laborde (EPSG's approximation)", {}),
    ("epsg29701", "EPSG:29701", "Laborde oblique Mercator", "Laborde Oblique Mercator", {}),
    ("epsg22700", "EPSG:22700", "Lambert conic conformal", "Lambert Conic Near-Conformal", {}),
    ("epsg3993", "EPSG:3993", "azimuthal equidistant", "Guam projection", {"handmade": True}),
    ("epsg3139", "EPSG:3139", "Cassini-Soldner", "Hyperbolic Cassini-Soldner", {}),
    ("epsg6247", "EPSG:6247", "Colombia Urban", "Colombia Urban", {}),
    ("ud_aeqd", "+proj=aeqd +lat_0=-20 +lon_0=140 +x_0=0 +y_0=0 +datum=WGS84 +units=m", "azimuthal equidistant", "azimuthal equidistant, user-defined", {"points": [(140, -20), (130, -10), (150, -35), (145, -25)]}),
    # Geographic
    ("epsg4326", "EPSG:4326", "geographic", "WGS 84", {"points": [(0, 0), (-120, 45), (150, -60), (179.9, 89.9), (-179.9, -89.9)]}),
    ("epsg4269", "EPSG:4269", "geographic", "NAD83", {}),
    ("epsg4267", "EPSG:4267", "geographic", "NAD27", {}),
    ("epsg4283", "EPSG:4283", "geographic", "GDA94", {}),
    ("epsg4258", "EPSG:4258", "geographic", "ETRS89", {}),
    ("epsg4801", "EPSG:4801", "geographic", "Bern 1898 (Bern meridian)", {}),
    ("epsg4807", "EPSG:4807", "geographic", "NTF (Paris meridian, grads)", {}),
    ("ud_longlat_sphere", "+proj=longlat +R=6371007.181", "geographic", "user-defined sphere", {"points": [(0, 0), (-120, 45), (150, -60)]}),
]

# The service's decisions, with the reason a user reads in the 422.
REFUSE = {
    "epsg2985": "polar stereographic variant C: neither proj4js's EPSG table (geotiff-geokeys-to-proj4) nor PROJ 9.1 has it",
    "epsg4807": "angular unit grad: only degrees are read for lon/lat rasters",
    "epsg29701": "Laborde oblique Mercator: proj4js has no Laborde projection",
    "epsg22700": "Lambert Conic Near-Conformal: the library would give it as the conformal LCC",
    "epsg3993": "Guam projection: proj4js ignores +guam",
    "epsg3139": "Hyperbolic Cassini-Soldner: proj4js ignores +hyperbolic",
    "epsg6247": "Colombia Urban: proj4js has no such projection",
    "ud_sinu": "sinusoidal on an ellipsoid: proj4js puts points up to 220 m from PROJ's (MODIS's spherical sinusoidal is read)",
}


def area_points(crs):
    """Five points inside the CRS's area of use (its middle and four points 15% in from its corners)."""
    a = crs.area_of_use
    west, south, east, north = a.west, a.south, a.east, a.north
    if east < west:
        east += 360
    pts = []
    for fx, fy in [(0.5, 0.5), (0.15, 0.15), (0.85, 0.85), (0.15, 0.85), (0.85, 0.15)]:
        lon = west + fx * (east - west)
        lat = south + fy * (north - south)
        lon = ((lon + 180) % 360) - 180
        pts.append((round(lon, 6), round(lat, 6)))
    return pts


def write_tif(path, srs_text, options):
    srs = osr.SpatialReference()
    srs.SetFromUserInput(srs_text)
    if os.path.exists(path):
        os.remove(path)
    ds = gdal.GetDriverByName("GTiff").Create(path, 2, 2, 1, gdal.GDT_Byte, options=options)
    ds.SetSpatialRef(srs)
    ds.SetGeoTransform([0, 1, 0, 0, 0, -1])
    ds.GetRasterBand(1).WriteRaster(0, 0, 2, 2, bytes([1, 2, 3, 4]))
    ds = None
    aux = path + ".aux.xml"
    if os.path.exists(aux):  # GDAL 3.6 has no GeoKeys for it: write the EPSG code as other writers do
        os.remove(aux)
        if not srs_text.startswith("EPSG:"):
            raise SystemExit(f"{path}: GDAL put the CRS in a .aux.xml sidecar, not in the GeoKeys")
        write_handmade_tif(path, srs_text)


def write_handmade_tif(path, srs_text):
    """A 2x2 GeoTIFF whose GeoKeys this script writes itself, for a CRS that GDAL 3.6's GeoTIFF writer only
    puts in a .aux.xml sidecar (Equal Earth): an EPSG code as ProjectedCSTypeGeoKey, or a user-defined CRS
    as GDAL writes one it has no GeoTIFF method for (model type user-defined, "ESRI PE String" citation).
    GDAL then reads the file back like any other."""
    if srs_text.startswith("EPSG:"):
        keys, ascii = [(1024, 1), (1025, 1), (3072, int(srs_text[5:]))], ""
    else:
        srs = osr.SpatialReference()
        srs.SetFromUserInput(srs_text)
        srs.MorphToESRI()
        ascii = "ESRI PE String = " + srs.ExportToWkt() + "|"
        keys, ascii = [(1024, 32767), (1025, 1), (3073, ("ascii", len(ascii), 0)), (3076, 9001)], ascii
    directory = [1, 1, 0, len(keys)]
    for key, value in sorted(keys):
        if isinstance(value, tuple):
            directory += [key, 34737, value[1], value[2]]
        else:
            directory += [key, 0, 1, value]
    ascii_bytes = ascii.encode("ascii") + b"\0"
    pixels = bytes([1, 2, 3, 4])
    # Layout: header, IFD, then the tag values that do not fit in 4 bytes, then the pixels.
    tags = [(256, 3, 1, 2), (257, 3, 1, 2), (258, 3, 1, 8), (259, 3, 1, 1), (262, 3, 1, 1), (273, 4, 1, None),
            (277, 3, 1, 1), (278, 3, 1, 2), (279, 4, 1, 4), (33550, 12, 3, None), (33922, 12, 6, None),
            (34735, 3, len(directory), None)]
    if ascii:
        tags.append((34737, 2, len(ascii_bytes), None))
    ifd_size = 2 + 12 * len(tags) + 4
    extra_at = 8 + ifd_size
    blobs = {33550: struct.pack("<3d", 1, 1, 0), 33922: struct.pack("<6d", 0, 0, 0, 0, 0, 0),
             34735: struct.pack(f"<{len(directory)}H", *directory), 34737: ascii_bytes}
    offsets, extra = {}, b""
    for tag, *_ in tags:
        if tag in blobs:
            offsets[tag] = extra_at + len(extra)
            extra += blobs[tag] + (b"\0" if len(blobs[tag]) % 2 else b"")
    pixel_at = extra_at + len(extra)
    ifd = struct.pack("<H", len(tags))
    for tag, typ, count, value in tags:
        if tag == 273:
            ifd += struct.pack("<HHII", tag, typ, count, pixel_at)
        elif value is None:
            ifd += struct.pack("<HHII", tag, typ, count, offsets[tag])
        elif typ == 3:
            ifd += struct.pack("<HHIHH", tag, typ, count, value, 0)
        else:
            ifd += struct.pack("<HHII", tag, typ, count, value)
    ifd += struct.pack("<I", 0)
    with open(path, "wb") as f:
        f.write(b"II*\0" + struct.pack("<I", 8) + ifd + extra + pixels)


def main():
    tif_dir = os.path.join(OUT, "tif")
    shutil.rmtree(tif_dir, ignore_errors=True)
    os.makedirs(tif_dir)
    rows = []
    for name, srs_text, family, method, opts in TABLE:
        path = os.path.join(tif_dir, f"{name}.tif")
        if opts.get("handmade"):
            write_handmade_tif(path, srs_text)
        else:
            write_tif(path, srs_text, opts.get("writer", []))
        ds = gdal.Open(path)
        read = ds.GetSpatialRef()
        if read is None:
            raise SystemExit(f"{name}: GDAL reads no CRS back")
        read.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
        base = read.CloneGeogCS()
        base.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
        ct = osr.CoordinateTransformation(base, read)
        read_crs = pyproj.CRS.from_wkt(read.ExportToWkt())
        pm = read_crs.prime_meridian
        pm_deg = math.degrees(pm.longitude * pm.unit_conversion_factor)
        ang_deg = math.degrees(base.GetAngularUnits())  # degrees per unit of the base CRS
        geographic = bool(read.IsGeographic())
        to_metre = 1.0 if geographic else read.GetLinearUnits()

        code = int(srs_text[5:]) if srs_text.startswith("EPSG:") else None
        pts = opts.get("points") or area_points(pyproj.CRS.from_epsg(code))
        check = None
        if code is not None and not geographic:
            by_code = pyproj.CRS.from_epsg(code)
            try:
                check = pyproj.Transformer.from_crs(by_code.geodetic_crs, by_code, always_xy=True)
            except pyproj.exceptions.ProjError as e:  # PROJ 9.1 builds no operation for EPSG:2985's base
                print(f"{name}: no cross-check with pyproj ({e})")

        points = []
        for lon, lat in pts:
            glon = (lon - pm_deg) / ang_deg
            glat = lat / ang_deg
            try:
                x, y, _ = ct.TransformPoint(glon, glat)
            except RuntimeError as e:  # PROJ 9.1 has no polar stereographic variant C: GDAL reads no grid either
                if name in REFUSE:
                    print(f"{name}: GDAL cannot project it either ({e}); kept as a refusal without points")
                    points = []
                    break
                raise
            if not (math.isfinite(x) and math.isfinite(y)):
                raise SystemExit(f"{name}: ({lon}, {lat}) does not project")
            if check is not None:
                # pyproj from the code, in the same axis order as GDAL's model space.
                cx, cy = check.transform(glon, glat)
                order = read.GetDataAxisToSRSAxisMapping()
                if not geographic and order == [2, 1]:
                    cx, cy = cy, cx
                if geographic:
                    cx, cy = glon, glat
                if math.hypot(cx - x, cy - y) * to_metre > 1e-4 and not _same_swapped(cx, cy, x, y, to_metre):
                    raise SystemExit(f"{name}: GDAL's reading of the GeoKeys and pyproj from the code disagree at ({lon}, {lat}): {x, y} vs {cx, cy}")
            points.append({"lon": lon, "lat": lat, "x": x, "y": y})
        row = {
            "name": name,
            "srs": srs_text,
            "family": family,
            "method": method,
            "tif": f"tif/{name}.tif",
            "geographic": geographic,
            "units_to_metre": to_metre,
            "gdal_proj4": _proj4(read),
            "points": points,
            "expect": "refuse" if name in REFUSE else "read",
        }
        if name in REFUSE:
            row["reason"] = REFUSE[name]
        rows.append(row)
    with open(os.path.join(OUT, "table.json"), "w") as f:
        json.dump(rows, f, indent=1)
        f.write("\n")
    epsg = sum(1 for r in rows if r["srs"].startswith("EPSG:"))
    print(f"{len(rows)} CRSs ({epsg} EPSG codes, {len(rows) - epsg} user-defined), {len({r['family'] for r in rows})} families, "
          f"{sum(1 for r in rows if r['expect'] == 'refuse')} refused")


def _proj4(srs):
    try:
        return srs.ExportToProj4()
    except RuntimeError:  # a method PROJ cannot write as a PROJ string
        return None


def _same_swapped(cx, cy, x, y, to_metre):
    return math.hypot(cy - x, cx - y) * to_metre <= 1e-4


if __name__ == "__main__":
    main()
