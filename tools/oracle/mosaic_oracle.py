#!/usr/bin/env python3
"""Expected answers of `"mosaic": "day"` over fixtures/mosaic/ (tools/fixtures/mosaic_fixtures.py), by GDAL + numpy.

Dev-only tool (Debian's GDAL 3.6 + numpy); shares no code with the TypeScript service.

    /usr/bin/python3 tools/oracle/mosaic_oracle.py    # writes fixtures/mosaic/expected.json

For each search order (the ItemCollection's, and day 1 reversed as a STAC API may send it), each request
case and each zone, the rows the service must answer, worked out as follows:

  * A zone takes the Items whose STAC bbox meets its lon/lat bbox; they are grouped by collection and UTC
    date (days in time order), each day's Items in search order; the row's datetime is the first one's.
  * The grid: a single Item's own; else the first Item (search order) whose raster extent contains the zone
    (OGR, the zone's lon/lat edges densified and transformed to the Item's CRS); else, when exactly one
    Item's extent meets the zone, that one's; when several do, the row is the error mosaic_unsupported.
  * The mosaic of an asset on that grid T: each Item's band as float64 (raw x scale + offset from its
    raster:bands, nodata as NaN); an Item in another CRS first warped onto T by gdal.Warp with nearest
    resampling and errorThreshold=0 (exact transformations: each T pixel takes the source pixel under its
    centre); then a GDAL VRT (gdal.BuildVRT, nodata NaN) of the Items listed in REVERSE search order: a
    VRT draws its later sources over the earlier ones except where they are nodata, so the first Item in
    search order that is valid at a pixel wins (the first-valid rule). The 20 m classes come onto the 10 m
    grid the same way (nearest). Cross-checked against numpy's first-valid pick of the same warped arrays.
  * Selected pixels: gdal.RasterizeLayer of the zone on T (ALL_TOUCHED FALSE: the pixel-centre rule; TRUE:
    all touched); a bare point: the pixel holding it.
  * Statistics in float64 with numpy: count, nodata (selected pixels without a value), min, max, mean, sum,
    median (np.median), std (np.std), histogram (np.histogram on fixed edges), freq_hist, majority (ties to
    the smaller value); NDVI (nir - red) / (nir + red) of the two mosaics, pixels of SCL classes 8 or 9 in
    the SCL mosaic counted as masked (first), then an invalid red or nir as nodata.

It also checks that the answers could not come out right by accident: every other-CRS pixel centre lies at
least 1e-6 px from its source pixel's edges (proj4js and PROJ then pick the same pixel), and the first-valid
answers differ from the last-valid ones (the VRT in search order) for the zones where Items overlap.
"""
import json
import os
import sys
import tempfile

try:
    import numpy as np
    from osgeo import gdal, ogr, osr
except ImportError:  # e.g. a pyenv python3 first on PATH: re-run under Debian's interpreter
    if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    raise

gdal.UseExceptions()
ogr.UseExceptions()
osr.UseExceptions()
gdal.SetConfigOption("GDAL_PAM_ENABLED", "NO")

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DIR = os.path.join(ROOT, "fixtures", "mosaic")
SEGMENTIZE_DEG = 0.0001
TIE_PX = 1e-6
EDGES = [0.0, 0.04, 0.08, 0.12, 0.16, 0.2, 0.24, 0.28]
EXPRESSION = "(nir - red) / (nir + red)"
EXCLUDE = [8, 9]
CASES = {
    "red": {"asset": "red", "stats": ["count", "nodata", "min", "max", "mean", "sum", "median", "std"], "histogram": {"bins": EDGES}},
    "red_all_touched": {"asset": "red", "pixels": "all_touched", "stats": ["count", "nodata", "min", "max", "mean", "sum"]},
    "ndvi": {"expression": EXPRESSION, "mask": {"asset": "scl", "exclude": EXCLUDE}, "stats": ["count", "nodata", "min", "max", "mean", "sum"]},
    "scl": {"asset": "scl", "stats": ["count", "nodata", "majority", "freq_hist"]},
}


def srs_of(epsg):
    s = osr.SpatialReference()
    s.ImportFromEPSG(epsg)
    s.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    return s


LL = srs_of(4326)
TMP = tempfile.mkdtemp(prefix="mosaic-oracle-")


class Raster:
    """An Item's asset: its file, grid and how its samples become values."""

    def __init__(self, item, asset):
        a = item["assets"][asset]
        self.path = os.path.join(DIR, a["href"])
        ds = gdal.Open(self.path)
        self.gt = ds.GetGeoTransform()
        self.w, self.h = ds.RasterXSize, ds.RasterYSize
        self.epsg = int(ds.GetSpatialRef().GetAuthorityCode(None))
        band = a["raster:bands"][0]
        raw = ds.ReadAsArray().astype(np.float64)
        vals = raw * band.get("scale", 1) + band.get("offset", 0)
        vals[raw == band["nodata"]] = np.nan
        self.values = vals
        self.key = "%s_%s" % (item["id"], asset)

    def extent(self):
        x0, dx, _, y0, _, dy = self.gt
        x1, y1 = x0 + self.w * dx, y0 + self.h * dy
        return ogr.CreateGeometryFromWkt("POLYGON ((%r %r, %r %r, %r %r, %r %r, %r %r))" % (x0, y0, x1, y0, x1, y1, x0, y1, x0, y0))

    def tif(self):
        """The values as a float64 GeoTIFF, nodata NaN."""
        path = os.path.join(TMP, self.key + ".tif")
        if not os.path.exists(path):
            ds = gdal.GetDriverByName("GTiff").Create(path, self.w, self.h, 1, gdal.GDT_Float64)
            ds.SetGeoTransform(self.gt)
            ds.SetProjection(srs_of(self.epsg).ExportToWkt())
            ds.GetRasterBand(1).SetNoDataValue(float("nan"))
            ds.GetRasterBand(1).WriteArray(self.values)
            ds = None
        return path


class Target:
    """A grid to answer on: an Item raster's grid, or its lattice at another resolution."""

    def __init__(self, raster, res=None):
        x0, dx, _, y0, _, dy = raster.gt
        f = 1 if res is None else dx / res
        self.epsg, self.res = raster.epsg, dx / f
        self.gt = (x0, dx / f, 0.0, y0, 0.0, dy / f)
        self.w, self.h = int(round(raster.w * f)), int(round(raster.h * f))
        self.bounds = (x0, y0 + self.h * self.gt[5], x0 + self.w * self.gt[1], y0)


def zone_geometry(zone, epsg):
    g = ogr.CreateGeometryFromJson(json.dumps(zone["geometry"]))
    g.AssignSpatialReference(LL)
    if g.GetGeometryName() != "POINT":
        g.Segmentize(SEGMENTIZE_DEG)
    g.TransformTo(srs_of(epsg))
    return g


def check_ties(target, raster):
    """Every pixel centre of the target, in the raster's CRS, lies well inside one of its pixels."""
    ct = osr.CoordinateTransformation(srs_of(target.epsg), srs_of(raster.epsg))
    r, c = np.mgrid[0:target.h, 0:target.w]
    xs = target.gt[0] + (c + 0.5) * target.gt[1]
    ys = target.gt[3] + (r + 0.5) * target.gt[5]
    pts = np.array(ct.TransformPoints(np.stack([xs.ravel(), ys.ravel()], axis=1)))
    col = (pts[:, 0] - raster.gt[0]) / raster.gt[1]
    row = (pts[:, 1] - raster.gt[3]) / raster.gt[5]
    for v in (col, row):
        d = np.abs(v - np.round(v))
        assert d.min() >= TIE_PX, "a reprojected pixel centre lies %.2g px from a pixel edge" % d.min()


def on_target(raster, target):
    """The raster's values on the target's CRS (warped by nearest, exact transformations, when it differs)."""
    if raster.epsg == target.epsg:
        return raster.tif()
    check_ties(target, raster)
    path = os.path.join(TMP, "%s_on_%d_%r.tif" % (raster.key, target.epsg, target.gt))
    gdal.Warp(path, raster.tif(), dstSRS=srs_of(target.epsg).ExportToWkt(), outputBounds=target.bounds, xRes=target.res, yRes=target.res,
              resampleAlg="near", errorThreshold=0, srcNodata="nan", dstNodata="nan", outputType=gdal.GDT_Float64, format="GTiff")
    return path


def vrt_mosaic(paths, target):
    """A GDAL VRT of `paths` on the target grid: later sources drawn over earlier ones where they are not nodata."""
    vrt = gdal.BuildVRT("", paths, outputBounds=target.bounds, xRes=target.res, yRes=target.res, resampleAlg="nearest",
                        srcNodata="nan", VRTNodata="nan")
    out = vrt.ReadAsArray().astype(np.float64)
    assert out.shape == (target.h, target.w)
    return out


def mosaic(rasters, target, first_valid=True):
    """The first-valid (or last-valid) mosaic of `rasters` (search order) on the target grid."""
    paths = [on_target(r, target) for r in rasters]
    out = vrt_mosaic(paths[::-1] if first_valid else paths, target)
    # Cross-check: numpy's first-valid pick of each raster brought onto the target alone.
    alone = [vrt_mosaic([p], target) for p in paths]
    pick = np.full((target.h, target.w), np.nan)
    for a in alone if first_valid else alone[::-1]:
        pick = np.where(np.isnan(pick), a, pick)
    assert np.array_equal(np.isnan(out), np.isnan(pick)) and np.array_equal(out[~np.isnan(out)], pick[~np.isnan(pick)])
    return out


def selected(zone, target, all_touched):
    g = zone_geometry(zone, target.epsg)
    if g.GetGeometryName() == "POINT":
        sel = np.zeros((target.h, target.w), dtype=bool)
        c = int(np.floor((g.GetX() - target.gt[0]) / target.gt[1]))
        r = int(np.floor((g.GetY() - target.gt[3]) / target.gt[5]))
        if 0 <= c < target.w and 0 <= r < target.h:
            sel[r, c] = True
        return sel
    mem = gdal.GetDriverByName("MEM").Create("", target.w, target.h, 1, gdal.GDT_Byte)
    mem.SetGeoTransform(target.gt)
    mem.SetProjection(srs_of(target.epsg).ExportToWkt())
    src = ogr.GetDriverByName("Memory").CreateDataSource("z")
    lyr = src.CreateLayer("z", srs=srs_of(target.epsg))
    f = ogr.Feature(lyr.GetLayerDefn())
    f.SetGeometry(g)
    lyr.CreateFeature(f)
    gdal.RasterizeLayer(mem, [1], lyr, burn_values=[1], options=["ALL_TOUCHED=%s" % ("TRUE" if all_touched else "FALSE")])
    return mem.ReadAsArray().astype(bool)


def num(x):
    return None if x is None else float(x)


def plain_stats(names, vals, nodata, histogram):
    ok = vals[~np.isnan(vals)]
    n = int(ok.size)
    out = {"count": n, "nodata": int(nodata)}
    if "min" in names:
        out.update({"min": num(ok.min()) if n else None, "max": num(ok.max()) if n else None})
    if "mean" in names:
        out.update({"mean": num(ok.mean()) if n else None, "sum": num(ok.sum()) if n else None})
    if "median" in names:
        out.update({"median": num(np.median(ok)) if n else None, "std": num(ok.std()) if n else None})
    if histogram:
        counts, _ = np.histogram(ok, bins=np.array(EDGES))
        out["histogram"] = {"edges": EDGES, "counts": [int(c) for c in counts]}
    if "freq_hist" in names:
        values, counts = np.unique(ok, return_counts=True)
        out["freq_hist"] = {"%d" % v: int(c) for v, c in zip(values, counts)}
        out["majority"] = num(values[np.argmax(counts)]) if n else None  # argmax: the first (smallest) of the most frequent
    return out


def answer(case, zone, items, grid, first_valid=True):
    """The statistics of one zone on one day's mosaic (items in search order) on `grid`'s raster."""
    spec = CASES[case]
    if case == "ndvi":
        base = Raster(grid, "nir")
        t10 = Target(base)
        red = mosaic([Raster(i, "red") for i in items], t10, first_valid)
        nir = mosaic([Raster(i, "nir") for i in items], t10, first_valid)
        scl = mosaic([Raster(i, "scl") for i in items], Target(Raster(grid, "scl"), res=t10.res), first_valid)
        sel = selected(zone, t10, False)
        masked = sel & ~np.isnan(scl) & np.isin(scl, EXCLUDE)
        rest = sel & ~masked
        with np.errstate(divide="ignore", invalid="ignore"):
            ndvi = (nir - red) / (nir + red)
        bad = rest & ~np.isfinite(ndvi)
        out = plain_stats(spec["stats"], ndvi[rest & ~bad], int(bad.sum()), False)
        out["masked"] = int(masked.sum())
        return {"expression": out}
    asset = spec["asset"]
    target = Target(Raster(grid, asset))
    values = mosaic([Raster(i, asset) for i in items], target, first_valid)
    sel = selected(zone, target, spec.get("pixels") == "all_touched")
    vals = values[sel]
    return {"band_1": plain_stats(spec["stats"], vals, int(np.isnan(vals).sum()), "histogram" in spec)}


def meets(a, b):
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


def zone_bbox(zone):
    g = zone["geometry"]
    pts = [g["coordinates"]] if g["type"] == "Point" else g["coordinates"][0]
    return [min(p[0] for p in pts), min(p[1] for p in pts), max(p[0] for p in pts), max(p[1] for p in pts)]


def days_of(zone, order):
    """The zone's days: the Items meeting its bbox by (UTC date, collection), days in time order, Items in search order."""
    days = {}
    for item in order:
        if meets(item["bbox"], zone_bbox(zone)):
            days.setdefault((item["properties"]["datetime"][:10], item["collection"]), []).append(item)
    return [days[k] for k in sorted(days, key=lambda k: min(i["properties"]["datetime"] for i in days[k]))]


def grid_of(zone, items, asset):
    """The Item whose grid answers the zone, or None when several Items meet it and none holds it whole."""
    if len(items) == 1:
        return items[0]
    placed = [(i, zone_geometry(zone, Raster(i, asset).epsg), Raster(i, asset).extent()) for i in items]
    for i, g, ext in placed:
        if g.Within(ext) or (g.GetGeometryName() == "POINT" and g.Intersects(ext)):
            return i
    meeting = [i for i, g, ext in placed if g.Intersects(ext)]
    return meeting[0] if len(meeting) == 1 else (None if meeting else items[0])


def rows(case, zone, order):
    out = []
    asset = "nir" if case == "ndvi" else CASES[case]["asset"]
    for items in days_of(zone, order):
        grid = grid_of(zone, items, asset)
        row = {"zone": zone["id"], "item_id": (grid or items[0])["id"], "datetime": items[0]["properties"]["datetime"], "item_ids": [i["id"] for i in items]}
        if grid is None:
            row["error"] = "mosaic_unsupported"
        else:
            row["statistics"] = answer(case, zone, items, grid)
            if len(items) > 1 and case == "red" and zone["id"] != "point":
                last = answer(case, zone, items, grid, first_valid=False)
                assert last != row["statistics"], "zone %s: first-valid and last-valid agree" % zone["id"]
        out.append(row)
    return out


def main():
    items = json.load(open(os.path.join(DIR, "items.json")))["features"]
    zones = json.load(open(os.path.join(DIR, "zones.json")))["features"]
    day1 = [i for i in items if i["properties"]["datetime"].startswith("2024-06-01")]
    orders = {"file": items, "reversed": day1[::-1] + [i for i in items if i not in day1]}
    expected = {o: {c: [r for z in zones for r in rows(c, z, order)] for c in CASES} for o, order in orders.items()}
    doc = {
        "note": "Written by tools/oracle/mosaic_oracle.py (GDAL %s + numpy %s) over tools/fixtures/mosaic_fixtures.py's Items; see the script for how each number is made." % (gdal.__version__, np.__version__),
        "cases": CASES,
        "orders": {o: [i["id"] for i in order] for o, order in orders.items()},
        "expected": expected,
    }
    with open(os.path.join(DIR, "expected.json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print("wrote", os.path.join(DIR, "expected.json"))


if __name__ == "__main__":
    main()
