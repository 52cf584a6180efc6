#!/usr/bin/env python3
"""Independent oracle for raster zonal statistics (docs/contract.md sections 3-5, "Raster rules").

Dev-only tool: GDAL/OGR + numpy + pyproj from Debian, no code shared with the TypeScript service.

    apt-get install -y gdal-bin python3-gdal python3-numpy python3-pyproj
    /usr/bin/python3 tools/oracle/raster_oracle.py            # every fixtures/cases/*.request.json
    /usr/bin/python3 tools/oracle/raster_oracle.py NAME ...    # only these cases
    /usr/bin/python3 tools/oracle/raster_oracle.py --dir cases-conformance [NAME ...]   # another folder of fixtures/

For each fixtures/cases/<NAME>.request.json
    {"endpoint": "raster", "file": "raster/<file>.tif", "body": {"aoi": ..., "stats": [...], "bands": [...]}}
it writes fixtures/cases/<NAME>.expected.json
    {"oracle": "...", "tolerance": {"default": 1e-9, "<stat>": tol, ...},
     "tolerance_reason": {"<stat>": "why"}, "checks": {...}, "response": {"band_1": {...}}}

Grids: the geotransform is GDAL's (for PixelIsPoint files shifted by half a pixel, as gdal.Open reports
it), applied in full, so rotated (ModelTransformation) and south-up grids take the pixels whose centre
is inside the AOI (GDAL's rasterizer on the source grid, cross-checked by an even-odd test of the
centres). A lon/lat raster may span any 360-degree window (0..360, -30..330): the AOI, given in
-180..180, is also taken 360 degrees east and west and the pixels of every copy are taken together; a
circle around a pole is closed along the pole, so it covers every longitude.

Tolerances are relative: |got - expected| <= tol * max(1, |expected|); a stat without its own entry
uses "default". count and nodata are integers, and unique / freq_hist (keys and counts) are exact
(unique elements compare with the same numeric tolerance). "checks" is information for whoever debugs
a failing test (how far the nearest pixel centre is from the AOI's edge, in pixels, and so on).
"""
import json
import math
import os
import sys
from decimal import Decimal

try:
    import numpy as np
    import pyproj
    from osgeo import gdal, ogr, osr
except ImportError:  # e.g. a pyenv python3 first on PATH: re-run under Debian's interpreter
    if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    raise

gdal.UseExceptions()
ogr.UseExceptions()
osr.UseExceptions()

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FIXTURES = os.path.join(ROOT, "fixtures")
CASES = os.path.join(FIXTURES, "cases")

GEOD = pyproj.Geod(ellps="WGS84")
CIRCLE_VERTICES = 2048
SEGMENTIZE_DEG = 0.001
PIXEL_EDGE_POINTS = 32  # points per pixel edge for the pixel's ground area (>= 8 asked)
MIN_MARGIN_PX = 0.02  # an AOI edge closer than this to a pixel centre makes the case ambiguous
DEFAULT_STATS = ["min", "max", "mean", "count"]

ORACLE = "GDAL %s + numpy %s + pyproj %s" % (gdal.__version__, np.__version__, pyproj.__version__)


# ----------------------------------------------------------------------------- numbers and JSON

def js_string(x):
    """String(x) as JavaScript writes a number (ECMAScript Number::toString)."""
    x = float(x)
    if x == 0:
        return "0"
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    sign = "-" if x < 0 else ""
    d = Decimal(repr(abs(x)))  # repr is the shortest round-trip form, as in JavaScript
    _, digits, exp = d.as_tuple()
    digits = list(digits)
    while len(digits) > 1 and digits[-1] == 0:
        digits.pop()
        exp += 1
    s = "".join(str(c) for c in digits)
    k = len(s)
    n = exp + k  # value = 0.s * 10^n
    if k <= n <= 21:
        out = s + "0" * (n - k)
    elif 0 < n <= 21:
        out = s[:n] + "." + s[n:]
    elif -6 < n <= 0:
        out = "0." + "0" * (-n) + s
    else:
        e = n - 1
        es = ("+" if e >= 0 else "-") + str(abs(e))
        out = (s[0] + "e" + es) if k == 1 else (s[0] + "." + s[1:] + "e" + es)
    return sign + out


def num(x):
    """A float64 as a JSON number: integral values as integers (same number in JSON)."""
    if x is None:
        return None
    x = float(x)
    if not math.isfinite(x):
        return None
    if x.is_integer() and abs(x) < 2 ** 53:
        return int(x)
    return x


# ----------------------------------------------------------------------------- AOI

def lonlat_srs():
    s = osr.SpatialReference()
    s.ImportFromEPSG(4326)
    s.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    return s


def circle_ring(lon, lat, radius):
    az = np.arange(CIRCLE_VERTICES) * (360.0 / CIRCLE_VERTICES)
    lons, lats, _ = GEOD.fwd(np.full(CIRCLE_VERTICES, lon), np.full(CIRCLE_VERTICES, lat), az,
                             np.full(CIRCLE_VERTICES, float(radius)))
    # longitudes made continuous (a circle across the antimeridian goes on past 180)
    if np.any(np.abs(np.diff(lons)) > 180):
        lons = np.degrees(np.unwrap(np.radians(lons)))
    ring = [[float(a), float(b)] for a, b in zip(lons, lats)]
    if abs(lons[-1] - lons[0]) > 180:
        # the circle holds a pole: its longitudes run once around; close it as the cap up to the pole
        pole = 90.0 if lat > 0 else -90.0
        ring.sort(key=lambda p: p[0])
        a = ring[0]
        ring = ring + [[a[0] + 360.0, a[1]], [a[0] + 360.0, pole], [a[0], pole]]
    ring.append(ring[0])
    return ring


def aoi_polygons(aoi):
    """-> ("point", (lon, lat)) or ("area", [polygon rings lists]) in lon/lat."""
    t = aoi["type"]
    if t == "Point":
        lon, lat = aoi["coordinates"][:2]
        r = aoi.get("radius", 0) or 0
        if r == 0:
            return "point", (float(lon), float(lat))
        return "area", [[circle_ring(lon, lat, r)]]
    if t == "Polygon":
        return "area", [aoi["coordinates"]]
    if t == "MultiPolygon":
        return "area", list(aoi["coordinates"])
    raise ValueError("unsupported AOI type %s" % t)


def geodesic_area(polys):
    """Area in m2 of lon/lat polygons (rings after the first are holes), geodesic edges."""
    total = 0.0
    for rings in polys:
        for i, ring in enumerate(rings):
            lons = [p[0] for p in ring]
            lats = [p[1] for p in ring]
            a = abs(GEOD.polygon_area_perimeter(lons, lats)[0])
            total += a if i == 0 else -a
    return total


def ogr_geometry(polys):
    mp = ogr.Geometry(ogr.wkbMultiPolygon)
    for rings in polys:
        poly = ogr.Geometry(ogr.wkbPolygon)
        for ring in rings:
            r = ogr.Geometry(ogr.wkbLinearRing)
            for x, y in ring:
                r.AddPoint_2D(float(x), float(y))
            poly.AddGeometry(r)
        mp.AddGeometry(poly)
    return mp


def rings_xy(geom):
    """All rings of a (multi)polygon OGR geometry as arrays of shape (n, 2)."""
    out = []
    for i in range(geom.GetGeometryCount()):
        poly = geom.GetGeometryRef(i)
        for j in range(poly.GetGeometryCount()):
            ring = poly.GetGeometryRef(j)
            out.append(np.array(ring.GetPoints())[:, :2])
    return out


# ----------------------------------------------------------------------------- raster helpers

def raster_srs(ds):
    wkt = ds.GetProjection()
    if not wkt:
        raise ValueError("raster has no CRS (the service answers 422)")
    s = osr.SpatialReference()
    s.ImportFromWkt(wkt)
    s.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    return s


def read_band(ds, bidx, xoff, yoff, w, h):
    """-> (values float64 after scale/offset, invalid bool) for the window."""
    band = ds.GetRasterBand(bidx)
    raw = band.ReadAsArray(xoff, yoff, w, h)
    if band.DataType == gdal.GDT_Byte and band.GetMetadataItem("PIXELTYPE", "IMAGE_STRUCTURE") == "SIGNEDBYTE":
        raw = raw.view(np.int8)  # GDAL 3.6 has no Int8 type
    invalid = np.zeros(raw.shape, dtype=bool)
    nd = band.GetNoDataValue()
    if nd is not None:
        if math.isnan(nd):
            pass  # NaN is invalid anyway
        else:
            invalid |= raw.astype(np.float64) == nd
    if raw.dtype.kind == "f":
        invalid |= np.isnan(raw)
    flags = band.GetMaskFlags()
    if flags not in (gdal.GMF_ALL_VALID, gdal.GMF_NODATA):
        # a real mask (internal/external mask band, alpha): 0 = masked
        m = band.GetMaskBand().ReadAsArray(xoff, yoff, w, h)
        invalid |= m == 0
    scale = band.GetScale()
    offset = band.GetOffset()
    scale = 1.0 if scale is None else scale
    offset = 0.0 if offset is None else offset
    vals = raw.astype(np.float64) * scale + offset
    return vals, invalid


def pixel_areas(gt, to_lonlat, cols, rows):
    """Geodesic ground area (m2) of the pixels (cols[i], rows[i]) of the grid (any affine geotransform)."""
    n = PIXEL_EDGE_POINTS
    t = np.arange(n) / n
    # walk the pixel outline in pixel units: top, right, bottom, left edges (n points each)
    fc = np.concatenate([t, np.ones(n), 1 - t, np.zeros(n)])
    fr = np.concatenate([np.zeros(n), t, np.ones(n), 1 - t])
    c = cols[:, None] + fc[None, :]
    r = rows[:, None] + fr[None, :]
    x = gt[0] + c * gt[1] + r * gt[2]
    y = gt[3] + c * gt[4] + r * gt[5]
    lon, lat = to_lonlat.transform(x, y)
    areas = np.empty(len(cols))
    for i in range(len(cols)):
        areas[i] = abs(GEOD.polygon_area_perimeter(lon[i], lat[i])[0])
    return areas


def even_odd_inside(px, py, rings):
    """Independent point-in-polygon (even-odd over all rings) and the distance to the nearest edge."""
    inside = np.zeros(px.shape, dtype=bool)
    dist = np.full(px.shape, np.inf)
    for ring in rings:
        x1, y1 = ring[:-1, 0], ring[:-1, 1]
        x2, y2 = ring[1:, 0], ring[1:, 1]
        for s in range(0, len(x1), 128):
            a1, b1, a2, b2 = (v[s:s + 128][None, :] for v in (x1, y1, x2, y2))
            X = px[:, None]
            Y = py[:, None]
            cond = (b1 > Y) != (b2 > Y)
            with np.errstate(divide="ignore", invalid="ignore"):
                xint = a1 + (Y - b1) * (a2 - a1) / (b2 - b1)
            crossing = cond & (X < xint)
            inside ^= (np.count_nonzero(crossing, axis=1) % 2).astype(bool)
            dx, dy = a2 - a1, b2 - b1
            L2 = dx * dx + dy * dy
            with np.errstate(divide="ignore", invalid="ignore"):
                u = np.clip(((X - a1) * dx + (Y - b1) * dy) / L2, 0, 1)
            u = np.where(L2 > 0, u, 0)
            d = np.hypot(a1 + u * dx - X, b1 + u * dy - Y)
            dist = np.minimum(dist, d.min(axis=1))
    return inside, dist


# ----------------------------------------------------------------------------- statistics

def compute_stats(values, stats):
    out = {}
    n = int(values.size)
    if n:
        u, counts = np.unique(values, return_counts=True)  # sorted ascending
    for s in stats:
        if s == "count":
            out[s] = n
        elif s == "nodata":
            out[s] = None  # filled in by the caller (keeps the request's order)
        elif s in ("unique",):
            out[s] = [num(v) for v in u] if n else []
        elif s == "freq_hist":
            out[s] = {js_string(v): int(c) for v, c in zip(u, counts)} if n else {}
        elif n == 0:
            out[s] = None
        elif s == "min":
            out[s] = num(values.min())
        elif s == "max":
            out[s] = num(values.max())
        elif s == "range":
            out[s] = num(values.max() - values.min())
        elif s == "mean":
            out[s] = num(np.mean(values))
        elif s == "sum":
            out[s] = num(np.sum(values))
        elif s == "std":
            out[s] = num(np.std(values, ddof=0))
        elif s == "median":
            out[s] = num(np.median(values))
        elif s.startswith("percentile_"):
            q = float(s[len("percentile_"):])
            out[s] = num(np.percentile(values, q))
        elif s == "majority":
            out[s] = num(u[int(np.argmax(counts))])  # argmax: first = smallest value on ties
        elif s == "minority":
            out[s] = num(u[int(np.argmin(counts))])
        else:
            raise ValueError("statistic %s is not a raster statistic" % s)
    return out


def run_case(req):
    if req.get("endpoint") != "raster":
        raise ValueError("only raster cases are handled")
    body = req["body"]
    stats = body.get("stats", DEFAULT_STATS)
    bands = []
    for b in body.get("bands", [1]):
        if b not in bands:
            bands.append(b)
    ds = gdal.Open(os.path.join(FIXTURES, req["file"]))
    gt = ds.GetGeoTransform()
    inv = gdal.InvGeoTransform(gt)
    W, H = ds.RasterXSize, ds.RasterYSize
    for b in bands:
        if b > ds.RasterCount:
            raise ValueError("band %d: the raster has %d bands" % (b, ds.RasterCount))
    dst = raster_srs(ds)
    src = lonlat_srs()
    ct = osr.CoordinateTransformation(src, dst)
    to_lonlat = pyproj.Transformer.from_crs(pyproj.CRS.from_wkt(ds.GetProjection()), "EPSG:4326",
                                            always_xy=True)
    kind, aoi = aoi_polygons(body["aoi"])
    checks = {}
    tolerance = {"default": 1e-9}
    reasons = {}

    if kind == "point":
        aoi_area = 0.0
        g = ogr.Geometry(ogr.wkbPoint)
        g.AddPoint_2D(*aoi)
        g.Transform(ct)
        gx = g.GetX()
        if raster_srs(ds).IsGeographic():
            gx += next((sh for sh in (0.0, -360.0, 360.0) if lon_extent(ds)[0] <= gx + sh < lon_extent(ds)[1]), 0.0)
        fc = inv[0] + gx * inv[1] + g.GetY() * inv[2]
        fr = inv[3] + gx * inv[4] + g.GetY() * inv[5]
        c, r = math.floor(fc), math.floor(fr)
        margin = min(fc - c, c + 1 - fc, fr - r, r + 1 - fr)
        checks["point_pixel"] = [c, r]
        checks["min_margin_px"] = round(margin, 4)
        if margin < MIN_MARGIN_PX:
            raise ValueError("point lies within %.4f px of a pixel edge" % margin)
        if 0 <= c < W and 0 <= r < H:
            xoff, yoff, w, h = c, r, 1, 1
            sel = np.ones((1, 1), dtype=bool)
        else:
            xoff = yoff = w = h = 0
            sel = None
    else:
        aoi_area = geodesic_area(aoi)
        win = wrapped_selection(ds, aoi)
        xoff, yoff, w, h, sel = win["xoff"], win["yoff"], win["w"], win["h"], win["sel"]
        checks["aoi_area_lonlat_edges"] = num(win["aoi_area_lonlat_edges"])
        checks["aoi_area_densified_rel_diff"] = win["aoi_area_densified_rel_diff"]
        checks["min_margin_px"] = win["margin"]
        checks["same_pixels_with_geodesic_edges"] = win["geodesic_same"]
        if win["margin"] is not None and win["margin"] < MIN_MARGIN_PX:
            raise ValueError("an AOI edge passes within %.4f px of a pixel centre" % win["margin"])
        if not win["geodesic_same"]:
            raise ValueError("geodesic edges and lon/lat-straight edges take different pixels")
        if body["aoi"]["type"] == "Point":
            tolerance["aoi_area"] = 1e-3
        else:
            # wide enough for either reading of a polygon's edges (see tolerance_reason)
            d = win["aoi_area_densified_rel_diff"]
            tolerance["aoi_area"] = max(1e-9, float("%.1g" % (2 * d)) if d > 0 else 0.0)
        tolerance["data_area"] = 1e-6

    if body["aoi"]["type"] == "Point" and kind == "area":
        reasons["aoi_area"] = (
            "circle: the service may draw the geodesic circle with another vertex count; "
            "contract section 3 asks for 0.1 % of the true circle's area")
    elif kind == "area":
        reasons["aoi_area"] = (
            "response.aoi_area is the geodesic area of the given vertices (edges as geodesics, pyproj/"
            "geographiclib); checks.aoi_area_lonlat_edges is the area with edges read as straight lon/lat "
            "lines (each edge cut into >= 64 pieces and <= 0.001 degree, as the pixels are chosen); the tolerance admits both")
    if kind == "area":
        reasons["data_area"] = (
            "each pixel's ground area is the geodesic area of its outline projected to lon/lat with "
            "%d points per edge; another faithful method (other densification, scale factors) differs "
            "by well under 1e-6" % PIXEL_EDGE_POINTS)

    response = {}
    expression = body.get("expression")
    mask = body.get("mask")
    # The class mask (raw values of its band): pixels it removes are neither data nor nodata.
    keep = None
    if mask is not None and sel is not None and sel.any():
        mb = ds.GetRasterBand(mask["band"])
        cls = mb.ReadAsArray(xoff, yoff, w, h).astype(np.float64)
        _, cls_invalid = read_band(ds, mask["band"], xoff, yoff, w, h)
        if "include" in mask:
            keep = ~cls_invalid & np.isin(cls, mask["include"])
        else:
            keep = ~(~cls_invalid & np.isin(cls, mask["exclude"]))
    outputs = ["expression"] if expression is not None else bands
    for b in outputs:
        masked = 0
        if sel is None or not sel.any():
            vals = np.zeros(0)
            nodata = 0
            cols = rows = np.zeros(0, dtype=np.int64)
        else:
            s_eff = sel if keep is None else sel & keep
            masked = int(np.count_nonzero(sel)) - int(np.count_nonzero(s_eff))
            if expression is not None:
                # numpy over the bands the expression names; a pixel invalid in any of them, or whose result
                # is not finite, is nodata (Python evaluates this dev-only text; the service uses its own parser).
                names = sorted(set(int(t[1:]) for t in __import__("re").findall(r"\bb\d+\b", expression)))
                env = {"abs": np.abs, "sqrt": np.sqrt, "exp": np.exp, "log": np.log, "log10": np.log10,
                       "floor": np.floor, "ceil": np.ceil, "pow": np.power, "min": np.minimum, "max": np.maximum}
                invalid = np.zeros((h, w), dtype=bool)
                for k in names:
                    v_k, inv_k = read_band(ds, k, xoff, yoff, w, h)
                    env["b%d" % k] = v_k
                    invalid |= inv_k
                with np.errstate(all="ignore"):
                    v = np.asarray(eval(expression, {"__builtins__": {}}, env), dtype=np.float64)
                invalid |= ~np.isfinite(v)
            else:
                v, invalid = read_band(ds, b, xoff, yoff, w, h)
            ok = s_eff & ~invalid
            nodata = int(np.count_nonzero(s_eff & invalid))
            rr, cc = np.nonzero(ok)
            vals = v[rr, cc]
            cols = cc + xoff
            rows = rr + yoff
        out = compute_stats(vals, stats)
        if "nodata" in out:
            out["nodata"] = nodata
        if mask is not None:
            out["masked"] = masked
        if kind == "point" or len(cols) == 0:
            data_area = 0.0
        else:
            data_area = float(np.sum(pixel_areas(gt, to_lonlat, cols.astype(float), rows.astype(float))))
        out["aoi_area"] = num(aoi_area)
        out["data_area"] = num(data_area)
        if "histogram" in body:
            # numpy.histogram itself: an empty selection spans (0, 1) as numpy does.
            h = body["histogram"]
            rng = tuple(h["range"]) if "range" in h else None
            counts, edges = np.histogram(vals, bins=h["bins"], range=rng)
            out["histogram"] = {"edges": [num(e) for e in edges], "counts": [int(c) for c in counts]}
        if body.get("categorical"):
            # Per class: pixel count, fraction of the counted pixels, and ground area of its pixels.
            classes = {}
            if len(vals):
                areas = np.zeros(0) if kind == "point" else pixel_areas(gt, to_lonlat, cols.astype(float), rows.astype(float))
                u, counts = np.unique(vals, return_counts=True)
                for v, c in zip(u, counts):
                    a = 0.0 if kind == "point" else float(np.sum(areas[vals == v]))
                    classes[js_string(v)] = {"count": int(c), "fraction": num(c / len(vals)), "area_m2": num(a)}
            out["classes"] = classes
            tolerance["classes"] = 1e-6
            reasons["classes"] = "area_m2 as data_area (pixel ground areas)"
        response["expression" if b == "expression" else "band_%d" % b] = out
    ordered_tol = {"default": tolerance.pop("default")}
    ordered_tol.update(tolerance)
    return {"oracle": ORACLE, "tolerance": ordered_tol, "tolerance_reason": reasons, "checks": checks,
            "response": response}


def geodesic_densified(polys):
    """The same polygons with every edge followed as a geodesic (points every <= 50 m)."""
    out = []
    for rings in polys:
        new_rings = []
        for ring in rings:
            pts = [list(ring[0])]
            for (lon1, lat1), (lon2, lat2) in zip(ring[:-1], ring[1:]):
                d = GEOD.inv(lon1, lat1, lon2, lat2)[2]
                n = int(math.ceil(d / 50.0)) - 1
                if n > 0:
                    # npts answers in -180..180: keep each point within half a turn of the edge's start
                    pts.extend([[lon1 + (p[0] - lon1 + 180.0) % 360.0 - 180.0, p[1]]
                                for p in GEOD.npts(lon1, lat1, lon2, lat2, n)])
                pts.append([lon2, lat2])
            new_rings.append(pts)
        out.append(new_rings)
    return out


def lonlat_edge_polys(polys, pieces=64):
    """The polygons with each edge cut into >= `pieces` straight lon/lat pieces (and <= 0.001 degree)."""
    out = []
    for poly in polys:
        rings = []
        for ring in poly:
            ring = [[float(p[0]), float(p[1])] for p in ring]
            pts = []
            for (x0, y0), (x1, y1) in zip(ring[:-1], ring[1:]):
                n = max(pieces, int(math.ceil(max(abs(x1 - x0), abs(y1 - y0)) / SEGMENTIZE_DEG)))
                pts.extend([x0 + (x1 - x0) * k / n, y0 + (y1 - y0) * k / n] for k in range(n))
            pts.append(pts[0])
            rings.append(pts)
        out.append(rings)
    return out


def area_selection(ds, polys):
    """Pixels whose centre is inside the lon/lat polygons, on a window of the raster's grid.

    Edges are straight lines in lon/lat, segmentized to <= 0.001 degree before the transform. Also
    checks the selection against an independent even-odd test, measures the margin (distance in
    pixels from the nearest pixel centre to an edge), and whether following the edges as geodesics
    would take the same pixels.
    """
    gt = ds.GetGeoTransform()
    W, H = ds.RasterXSize, ds.RasterYSize
    dst = raster_srs(ds)
    ct = osr.CoordinateTransformation(lonlat_srs(), dst)
    geom = ogr_geometry(polys)
    if not geom.IsValid():
        raise ValueError("AOI is not valid")
    dens = geom.Clone()
    dens.Segmentize(SEGMENTIZE_DEG)
    a0 = geodesic_area(polys)
    # straight lon/lat edges: every edge cut into >= 64 pieces (0.001 degree alone leaves short edges whole)
    a1 = geodesic_area(lonlat_edge_polys(polys))
    res = {"aoi_area_densified_rel_diff": float("%.3g" % (abs(a1 - a0) / a0)), "margin": None,
           "geodesic_same": True, "aoi_area_lonlat_edges": a1}
    dens.Transform(ct)
    geo = ogr_geometry(geodesic_densified(polys))
    geo.Transform(ct)
    minx, maxx, miny, maxy = dens.GetEnvelope()
    # pixel window (clipped to the raster) that holds every pixel whose centre may be inside: the
    # envelope's corners through the inverse geotransform (rotated grids too)
    inv = gdal.InvGeoTransform(gt)
    pcs = [inv[0] + x * inv[1] + y * inv[2] for x in (minx, maxx) for y in (miny, maxy)]
    prs = [inv[3] + x * inv[4] + y * inv[5] for x in (minx, maxx) for y in (miny, maxy)]
    c0 = max(0, int(math.floor(min(pcs))) - 1)
    c1 = min(W, int(math.ceil(max(pcs))) + 1)
    r0 = max(0, int(math.floor(min(prs))) - 1)
    r1 = min(H, int(math.ceil(max(prs))) + 1)
    if c1 <= c0 or r1 <= r0:
        res.update(xoff=0, yoff=0, w=0, h=0, sel=None)
        return res
    xoff, yoff, w, h = c0, r0, c1 - c0, r1 - r0
    sel = rasterize(dens, dst, gt, xoff, yoff, w, h)
    # independent cross-check of GDAL's pixel-centre rule, and distance of centres to edges
    cc, rr = np.meshgrid(np.arange(w) + xoff + 0.5, np.arange(h) + yoff + 0.5)
    px = (gt[0] + cc * gt[1] + rr * gt[2]).ravel()
    py = (gt[3] + cc * gt[4] + rr * gt[5]).ravel()
    inside, dist = even_odd_inside(px, py, rings_xy(dens))
    inside = inside.reshape(h, w)
    if not np.array_equal(inside, sel):
        raise ValueError("GDAL rasterize and the even-odd test disagree on %d pixels"
                         % int(np.count_nonzero(inside != sel)))
    inside_g, dist_g = even_odd_inside(px, py, rings_xy(geo))
    px_size = min(math.hypot(gt[1], gt[4]), math.hypot(gt[2], gt[5]))
    res["margin"] = round(float(min(dist.min(), dist_g.min()) / px_size), 4)
    res["geodesic_same"] = bool(np.array_equal(inside_g.reshape(h, w), sel))
    res.update(xoff=xoff, yoff=yoff, w=w, h=h, sel=sel)
    return res


def lon_extent(ds):
    """West and east edges (longitude) of a geographic raster."""
    gt = ds.GetGeoTransform()
    W, H = ds.RasterXSize, ds.RasterYSize
    xs = [gt[0] + c * gt[1] + r * gt[2] for c in (0, W) for r in (0, H)]
    return min(xs), max(xs)


def wrapped_selection(ds, polys):
    """area_selection, with longitudes wrapping on a geographic raster whose extent is any 360-degree
    window (0..360, -30..330): the AOI, given in -180..180 (or continuing past 180 across the
    antimeridian), is also taken one turn east and west, and the pixels of every copy that meets the
    raster are taken together. Copies 360 degrees apart never take the same pixel (checked)."""
    if not raster_srs(ds).IsGeographic():
        return area_selection(ds, polys)
    west, east = lon_extent(ds)
    lo = min(p[0] for rings in polys for p in rings[0])
    hi = max(p[0] for rings in polys for p in rings[0])
    shifts = [sh for sh in (0.0, -360.0, 360.0, -720.0, 720.0) if hi + sh > west and lo + sh < east]
    if shifts == [0.0]:
        return area_selection(ds, polys)
    W, H = ds.RasterXSize, ds.RasterYSize
    sel = np.zeros((H, W), dtype=bool)
    out = None
    for sh in shifts:
        moved = [[[[p[0] + sh, p[1]] for p in ring] for ring in rings] for rings in polys]
        win = area_selection(ds, moved)
        if out is None:
            out = win
        else:
            if win["margin"] is not None:
                out["margin"] = win["margin"] if out["margin"] is None else min(out["margin"], win["margin"])
            out["geodesic_same"] = out["geodesic_same"] and win["geodesic_same"]
        if win["sel"] is not None:
            part = sel[win["yoff"]:win["yoff"] + win["h"], win["xoff"]:win["xoff"] + win["w"]]
            if np.any(part & win["sel"]):
                raise ValueError("copies of the AOI a turn apart take the same pixel")
            part |= win["sel"]
    # area checks are of the AOI as given (the first copy measured them the same way)
    out.update(xoff=0, yoff=0, w=W, h=H, sel=sel)
    return out


def _polys_of(geom):
    out = []
    for i in range(geom.GetGeometryCount()):
        poly = geom.GetGeometryRef(i)
        out.append([np.array(poly.GetGeometryRef(j).GetPoints())[:, :2]
                    for j in range(poly.GetGeometryCount())])
    return out


def rasterize(geom, srs, gt, xoff, yoff, w, h):
    """GDAL's pixel-centre rule (ALL_TOUCHED=FALSE) on a window of the source grid."""
    mem = gdal.GetDriverByName("MEM").Create("", w, h, 1, gdal.GDT_Byte)
    mem.SetGeoTransform((gt[0] + xoff * gt[1] + yoff * gt[2], gt[1], gt[2], gt[3] + xoff * gt[4] + yoff * gt[5], gt[4], gt[5]))
    mem.SetProjection(srs.ExportToWkt())
    vds = ogr.GetDriverByName("Memory").CreateDataSource("aoi")
    lyr = vds.CreateLayer("aoi", srs=srs, geom_type=ogr.wkbMultiPolygon)
    f = ogr.Feature(lyr.GetLayerDefn())
    f.SetGeometry(geom)
    lyr.CreateFeature(f)
    gdal.RasterizeLayer(mem, [1], lyr, burn_values=[1], options=["ALL_TOUCHED=FALSE"])
    return mem.GetRasterBand(1).ReadAsArray() == 1


def main(argv):
    global CASES
    args = argv[1:]
    if args[:1] == ["--dir"]:
        CASES = os.path.join(FIXTURES, args[1])
        args = args[2:]
    names = args
    if not names:
        names = sorted(f[: -len(".request.json")] for f in os.listdir(CASES) if f.endswith(".request.json"))
    failed = 0
    for name in names:
        with open(os.path.join(CASES, name + ".request.json")) as fh:
            req = json.load(fh)
        try:
            result = run_case(req)
        except Exception as e:  # report and go on with the other cases
            failed += 1
            print("%-40s FAILED: %s" % (name, e))
            continue
        with open(os.path.join(CASES, name + ".expected.json"), "w") as fh:
            json.dump(result, fh, indent=2, ensure_ascii=False, allow_nan=False)
            fh.write("\n")
        first = next(iter(result["response"].values()))
        print("%-40s count=%s nodata=%s margin_px=%s" % (
            name, first.get("count"), first.get("nodata"), result["checks"].get("min_margin_px")))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
