#!/usr/bin/env python3
"""Write the request files fixtures/cases/<NAME>.request.json (dev-only; GDAL + pyproj from Debian).

    /usr/bin/python3 tools/oracle/make_cases.py     # then: /usr/bin/python3 tools/oracle/raster_oracle.py

AOIs are drawn in each raster's own pixel coordinates (fractional column, row; (0,0) is the top-left
corner of the raster, (0.5,0.5) the centre of its first pixel) and converted to lon/lat rounded to
1e-7 degree (about 1 cm), so it is plain which pixels an AOI is meant to take. Vertices and edge
directions are chosen so that no edge passes near a pixel centre (the oracle checks the margin).
"""
import json
import math
import os
import sys

try:
    import pyproj
    from osgeo import gdal
except ImportError:
    if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    raise

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import raster_oracle  # noqa: E402  (same folder)

gdal.UseExceptions()
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FIXTURES = os.path.join(ROOT, "fixtures")
CASES = os.path.join(FIXTURES, "cases")

ALL_STATS = ["count", "min", "max", "mean", "sum", "std", "median", "percentile_10", "percentile_90",
             "range", "majority", "minority", "unique", "freq_hist", "nodata"]

_cache = {}


def _grid(f):
    if f not in _cache:
        ds = gdal.Open(os.path.join(FIXTURES, f))
        tr = pyproj.Transformer.from_crs(pyproj.CRS.from_wkt(ds.GetProjection()), "EPSG:4326",
                                         always_xy=True)
        _cache[f] = (ds.GetGeoTransform(), tr)
    return _cache[f]


def ll(f, col, row):
    gt, tr = _grid(f)
    x = gt[0] + col * gt[1]
    y = gt[3] + row * gt[5]
    lon, lat = tr.transform(x, y)
    return [round(lon, 7), round(lat, 7)]


def ring(f, pts):
    r = [ll(f, c, rw) for c, rw in pts]
    r.append(r[0])
    return r


def polygon(f, *rings):
    return {"type": "Polygon", "coordinates": [ring(f, r) for r in rings]}


def multipolygon(f, *polys):
    return {"type": "MultiPolygon", "coordinates": [[ring(f, r) for r in p] for p in polys]}


# Grid polygons: vertices at (integer + 0.25) pixel positions, edges along directions (p, q) with
# p - q odd ((1,0), (0,1), (2,1), (1,2), (1,4), ...): such an edge stays 0.25/sqrt(p*p+q*q) px or
# more away from every pixel centre (0.11 px for (2,1)), and no edge lies on a pixel's edge either.
GRID_OFFSET = 0.25


def _check_dirs(pts):
    for (c1, r1), (c2, r2) in zip(pts, pts[1:] + pts[:1]):
        dc, dr = c2 - c1, r2 - r1
        g = math.gcd(dc, dr)
        if ((dc // g) - (dr // g)) % 2 == 0:
            raise ValueError("edge %s -> %s: direction would pass near pixel centres" % ((c1, r1), (c2, r2)))


def gpolygon(f, *rings):
    for r in rings:
        _check_dirs(r)
    return polygon(f, *[[(c + GRID_OFFSET, rw + GRID_OFFSET) for c, rw in r] for r in rings])


def gmultipolygon(f, *polys):
    for p in polys:
        for r in p:
            _check_dirs(r)
    return multipolygon(f, *[[[(c + GRID_OFFSET, rw + GRID_OFFSET) for c, rw in r] for r in p]
                             for p in polys])


def robust_circle(f, col, row, radius, want=0.025, tries=4000):
    """A circle whose centre is moved (deterministically, by < 1 px) until no pixel centre lies
    within `want` px of it, whatever way its edges are drawn (see raster_oracle.area_selection)."""
    ds = gdal.Open(os.path.join(FIXTURES, f))
    best = None
    for k in range(tries):
        dc = (k * 0.6180339887) % 1.0 - 0.5
        dr = (k * 0.7548776662) % 1.0 - 0.5
        aoi = point(f, col + dc, row + dr, radius)
        res = raster_oracle.area_selection(ds, raster_oracle.aoi_polygons(aoi)[1])
        if res["geodesic_same"] and (best is None or res["margin"] > best[0]):
            best = (res["margin"], aoi)
            if res["margin"] >= want:
                break
    print("circle on %s: margin %.4f px" % (f, best[0]))
    return best[1]


def point(f, col, row, radius=None):
    p = {"type": "Point", "coordinates": ll(f, col, row)}
    if radius is not None:
        p["radius"] = radius
    return p


def case(name, f, aoi, stats=None, bands=None, note=""):
    body = {"aoi": aoi}
    if stats is not None:
        body["stats"] = stats
    if bands is not None:
        body["bands"] = bands
    req = {"endpoint": "raster", "file": f, "note": note, "body": body}
    with open(os.path.join(CASES, name + ".request.json"), "w") as fh:
        json.dump(req, fh, indent=2)
        fh.write("\n")


L7 = "raster/L7_ETMs.cog.tif"
ELEV = "raster/elev.cog.tif"
ELEVS = "raster/elev_scaled.cog.tif"
LC = "raster/lc.cog.tif"
SYN = "raster/synthetic/"

# the tiny grids are 6 x 4 pixels; this ring holds all 24 pixel centres with a wide margin
TINY_ALL = [(-0.63, -0.41), (6.37, -0.58), (6.71, 4.43), (-0.52, 4.61)]
# pixel centres of columns 1..3, rows 1..2 (6 pixels)
TINY_PART = [(0.83, 0.77), (4.21, 0.69), (4.17, 3.29), (0.91, 3.21)]


def main():
    os.makedirs(CASES, exist_ok=True)
    # ---------------------------------------------------------------- L7_ETMs (UTM 25S, 28.5 m)
    case("l7_polygon_bands_1_2_6", L7,
         gpolygon(L7, [(120, 80), (170, 80), (190, 120), (150, 140), (120, 140)]),
         ALL_STATS, [1, 2, 6], "pentagon of about 3,000 pixels in the middle of the scene")
    case("l7_polygon_small", L7,
         gpolygon(L7, [(50, 40), (56, 40), (52, 48)]),
         ALL_STATS, [1], "small triangle: a couple of dozen pixels, easy to check by hand")
    case("l7_polygon_hole", L7,
         gpolygon(L7, [(200, 200), (260, 200), (260, 250), (200, 250)],
                  [(230, 210), (250, 220), (230, 230), (210, 220)]),
         ["count", "mean", "min", "max", "sum", "nodata"], [1, 4], "rectangle with a diamond hole")
    case("l7_multipolygon", L7,
         gmultipolygon(L7, [[(20, 300), (60, 300), (40, 340)]],
                       [[(280, 20), (330, 20), (330, 60), (280, 60)]]),
         ["count", "mean", "std", "median", "majority", "minority", "nodata"], [3, 5],
         "two disjoint parts, far apart")
    case("l7_circle_500m", L7, robust_circle(L7, 210.37, 170.61, 500),
         ["count", "min", "max", "mean", "std", "median", "percentile_25", "percentile_2.5", "sum",
          "nodata"], [1, 2, 6],
         "geodesic circle of 500 m radius; centre placed so that no pixel centre is near the circle")
    case("l7_point", L7, point(L7, 123.41, 234.63),
         ["count", "min", "max", "mean", "median", "std", "sum", "unique", "freq_hist", "nodata",
          "majority"], [1, 2, 3, 4, 5, 6], "bare point: the single pixel (col 123, row 234)")
    case("l7_point_radius_0", L7, point(L7, 300.77, 21.19, 0),
         ["count", "mean", "nodata"], [1], "radius 0 is a bare point: pixel (col 300, row 21)")
    case("l7_point_outside", L7, point(L7, -10.4, 100.6),
         ["count", "min", "max", "mean", "unique", "freq_hist", "nodata"], [1],
         "bare point west of the raster: nothing counted")
    case("l7_overhang_ne", L7,
         gpolygon(L7, [(310, -30), (380, -30), (380, 40), (340, 40), (310, 25)]),
         ["count", "min", "max", "mean", "sum", "nodata", "median"], [1, 6],
         "pentagon over the north-east corner: part of it is off the raster")
    case("l7_outside", L7,
         gpolygon(L7, [(-80, 100), (-20, 100), (-20, 160), (-80, 160)]),
         ALL_STATS, [1, 2], "entirely west of the raster: nothing counted, every other stat null")
    case("l7_default_stats", L7,
         gpolygon(L7, [(150, 250), (170, 250), (160, 270)]),
         None, None, "no stats, no bands: the defaults (min, max, mean, count of band 1)")
    case("l7_duplicate_bands", L7,
         gpolygon(L7, [(150, 250), (170, 250), (160, 270)]),
         ["count", "mean"], [2, 2, 1], "bands [2,2,1]: answered once each, in the order asked")
    # ---------------------------------------------------------------- elev (EPSG:4326, 30")
    elev_poly = [(4, 3), (40, 3), (44, 11), (44, 27), (20, 39), (4, 31)]
    case("elev_polygon_nodata", ELEV, gpolygon(ELEV, elev_poly),
         ["count", "nodata", "min", "max", "mean", "std", "median", "sum", "percentile_90"], [1],
         "north-west of Luxembourg: the polygon takes nodata (-32768) pixels outside the country")
    case("elev_scaled_polygon_nodata", ELEVS, gpolygon(ELEVS, elev_poly),
         ["count", "nodata", "min", "max", "mean", "std", "median", "sum", "percentile_90"], [1],
         "the same polygon on elev_scaled (value = raw*0.5-10, ZSTD): compare with elev_polygon_nodata")
    case("elev_overhang_w", ELEV,
         gpolygon(ELEV, [(-15, 40), (20, 40), (20, 60), (-15, 60)]),
         ["count", "nodata", "mean", "min", "max", "unique"], [1],
         "crosses the west edge of the raster")
    # ---------------------------------------------------------------- lc (Albers, 3 km, categorical)
    case("lc_polygon_categorical", LC,
         gpolygon(LC, [(20, 10), (50, 10), (52, 14), (52, 30), (24, 30), (20, 22)]),
         ["count", "majority", "minority", "unique", "freq_hist", "nodata", "median"], [1],
         "land cover classes (0 = water is a value: the file declares no nodata)")
    case("lc_overhang_se", LC,
         gpolygon(LC, [(70, 30), (96, 30), (96, 56), (70, 56)]),
         ["count", "majority", "unique", "freq_hist", "nodata"], [1],
         "crosses the south-east corner of the raster")
    # ---------------------------------------------------------------- synthetic files
    for dt in ("int8", "uint8", "int16", "uint16", "int32", "uint32", "float32", "float64"):
        case("syn_tiny_%s_all" % dt, SYN + "tiny_%s.tif" % dt, polygon(SYN + "tiny_%s.tif" % dt, TINY_ALL),
             ["count", "nodata", "min", "max", "sum", "mean", "median", "unique", "freq_hist"], [1],
             "all 24 pixels; the nodata pixel (col 5, row 3) is counted in nodata")
    case("syn_tiny_float32_part", SYN + "tiny_float32.tif", polygon(SYN + "tiny_float32.tif", TINY_PART),
         ["count", "nodata", "min", "max", "mean", "std", "median", "freq_hist"], [1],
         "columns 1-3 of rows 1-2 only")
    case("syn_tiny_nan_all", SYN + "tiny_nan.tif", polygon(SYN + "tiny_nan.tif", TINY_ALL),
         ["count", "nodata", "min", "max", "mean"], [1], "NaN pixels (0,0) and (1,0) are nodata")
    case("syn_tiny_mask_all", SYN + "tiny_mask.tif", polygon(SYN + "tiny_mask.tif", TINY_ALL),
         ["count", "nodata", "min", "max", "sum", "unique"], [1], "the internal mask hides column 0")
    case("syn_tiny_scaled_all", SYN + "tiny_scaled.tif", polygon(SYN + "tiny_scaled.tif", TINY_ALL),
         ["count", "nodata", "min", "max", "sum", "mean", "freq_hist"], [1],
         "value = raw*0.5+100; raw -1 at (0,0) is nodata")
    case("syn_tiny_multiband_part", SYN + "tiny_multiband.tif", polygon(SYN + "tiny_multiband.tif", TINY_PART),
         ["count", "min", "max", "mean"], [3, 1, 2], "pixel-interleaved, 3 bands, asked out of order")
    case("syn_tiny_multiband_band_part", SYN + "tiny_multiband_band.tif",
         polygon(SYN + "tiny_multiband_band.tif", TINY_PART),
         ["count", "min", "max", "mean"], [3, 1, 2], "band-interleaved: same answer as the pixel-interleaved file")
    case("syn_tiny_4326_point", SYN + "tiny_4326.tif", point(SYN + "tiny_4326.tif", 2.5, 1.5),
         ["count", "min", "max"], [1], "bare point in pixel (2,1) of the EPSG:4326 grid: value 6")
    case("syn_tiny_4326_polygon", SYN + "tiny_4326.tif",
         polygon(SYN + "tiny_4326.tif", [(0.77, 0.71), (3.29, 0.83), (3.21, 2.27), (0.69, 2.19)]),
         ["count", "min", "max", "mean", "unique"], [1], "centres of pixels (col 1, row 1) and (col 2, row 1) only: values 5 and 6")
    case("syn_edges_overhang_all", SYN + "edges.tif",
         polygon(SYN + "edges.tif", [(-5.37, -4.61), (105.29, -5.13), (104.71, 74.83), (-4.83, 75.39)]),
         ["count", "nodata", "min", "max", "sum", "mean"], [1],
         "overhangs all four edges: every one of the 7,000 pixels, partial edge tiles included")
    case("syn_edges_overhang_corner", SYN + "edges.tif",
         polygon(SYN + "edges.tif", [(90.37, 60.41), (112.29, 59.87), (111.63, 80.71), (89.71, 81.23)]),
         ["count", "min", "max", "unique"], [1],
         "over the bottom-right corner: cols 90-99, rows 60-69, across the partial edge tiles")
    case("syn_big_tiles_one_tile", SYN + "big_tiles.tif",
         gpolygon(SYN + "big_tiles.tif", [(530, 790), (560, 790), (560, 810), (530, 810)]),
         ["count", "min", "max", "mean", "sum"], [1],
         "30 x 20 pixels inside the single 256 px tile (col 2, row 3): a reader needs that tile only")
    case("syn_overviews_full_res", SYN + "overviews.tif",
         gpolygon(SYN + "overviews.tif", [(1000, 1000), (1300, 1000), (1300, 1200), (1000, 1200)]),
         ["count", "min", "max", "mean", "median"], [1],
         "300 x 200 pixels at full resolution (approx_stats false): value = col + row")


if __name__ == "__main__":
    main()
