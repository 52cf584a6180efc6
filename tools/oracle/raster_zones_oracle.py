#!/usr/bin/env python3
"""exactextract CLI as an oracle for zones given as a raster ("zones raster").

Dev-only tool (the test suite never runs it). Needs Debian's GDAL Python bindings and numpy (it re-runs itself
under /usr/bin/python3 when the first python3 on the PATH lacks them) and `exactextract` on the PATH (built as
fixtures/exactextract/README.md says; `bash tools/oracle/exactextract_oracle.sh` builds it when missing).

    /usr/bin/python3 tools/oracle/raster_zones_oracle.py        # rewrites fixtures/exactextract/zones/

What it writes (see "Zones as a raster" in fixtures/exactextract/README.md), for each zones raster NAME:
  fixtures/exactextract/zones/NAME.tif             the zones raster (integer zone ids, a nodata value)
  fixtures/exactextract/zones/NAME.zones.geojson   the polygons fed to exactextract: one MultiPolygon feature
                                                   per zone value, the union of its cells' squares clipped to
                                                   the value raster's extent, vertices on the cell corners
                                                   moved 1e-9 of a cell inward (INSET)
  fixtures/exactextract/zones/NAME.json            exactextract's answers, one row per zone (sorted by zone)
  fixtures/exactextract/zones/NAME.rules.json      numpy-only answers for the `center` and `all_touched` pixel
                                                   rules (count, sum, min, max, nodata, cell_id per zone; see
                                                   RULES_DEFINITION), no exactextract involved

The coverage of a value cell by zone z is the fraction of its area lying in zones cells of value z (0 or 1 when
the zones cells are the value cells or a whole multiple of them, a multiple of 1/k^2 when the value cells are k
zones cells wide); zones nodata cells belong to no zone; only the part of the zones raster over the value
raster counts. The polygons are built on the grid of the finer of the two rasters in integer cell units
(exact), then every vertex (u, v) is mapped to x0 + u * dx, y0 + v * dy of that grid, computed from the value
raster's geotransform, and every edge moved 1e-9 of a cell into its zone (INSET, see to_lonlat: exactly on the
cell edges, exactextract's own rounding gives neighbouring cells slivers), so that exactextract, which
intersects each polygon with the value cells, gives that coverage exactly (checked: every coverage it reports
is 1, or a multiple of 1/k^2).

Deterministic: the rasters are formulas, the polygons are exact, the answers are whatever the CLI prints.
A self-check at the end recomputes count / sum / min / max per zone with numpy and asserts they agree, and
checks the rules answers against exactextract's (equal for equal / coarser zones; for the fine zones the
all_touched cells are exactly those exactextract covers, and center's a subset of them).
"""
import csv
import json
import math
import os
import shlex
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ next to the tools
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exactextract_oracle as eo  # noqa: E402  (re-executes under /usr/bin/python3 when GDAL is missing)

import numpy as np  # noqa: E402
from osgeo import gdal, ogr  # noqa: E402

gdal.UseExceptions()
ogr.UseExceptions()

ROOT = eo.ROOT
FIXTURES = eo.FIXTURES
OUT_SUB = "exactextract/zones"
OUT = os.path.join(FIXTURES, OUT_SUB)
EE = eo.EE
EE_COMMIT = eo.EE_COMMIT

F32 = "exactextract/oracle/float32.tif"
ELEV = "demo/elev.cog.tif"
# weights for weighted_mean / weighted_sum over float32.tif: the aligned weights raster of twice the value
# cell size (weights_float32.tif is half the value cell size, 38 x 31 cells, and does not cover the value
# raster: see the README)
WEIGHTS = "exactextract/oracle/weights_coarse_float32.tif"

UNWEIGHTED = ["count", "sum", "mean", "min", "max", "stdev", "variance", "coefficient_of_variation", "median",
              "majority", "mode", "minority", "variety", "frac", "unique", "cell_id", "values", "coverage",
              "min_center_x", "min_center_y", "max_center_x", "max_center_y"]
WEIGHTED = ["weighted_mean", "weighted_sum"]


def rel(p):
    return os.path.relpath(p, ROOT)


def fx(p):
    """a path under fixtures/ as the JSON names it"""
    return os.path.relpath(p, FIXTURES)


# ------------------------------------------------------------------------------------------ zones rasters

def write_zones(name, arr, gdal_type, gt, nodata, srs_wkt):
    return eo.write_tiff(os.path.join(OUT, name), arr, gdal_type, gt, nodata, srs_wkt)


def value_info(path):
    ds = gdal.Open(path)
    b = ds.GetRasterBand(1)
    return {"gt": ds.GetGeoTransform(), "w": ds.RasterXSize, "h": ds.RasterYSize, "srs": ds.GetProjection(),
            "arr": b.ReadAsArray(), "nodata": b.GetNoDataValue()}


def zones_equal():
    """20 x 16, the value grid. UInt16, nodata 0."""
    z = np.zeros((16, 20), np.uint16)
    z[0:8, 0:6] = 1            # over the 2 x 2 NaN block (rows 2-3, columns 2-3)
    z[0:8, 6:13] = 2           # around zone 7 (a hole); over the NaN cell (7, 9)
    z[4, 9] = 7                # one cell
    z[0:11, 13:20] = 3
    z[11:16, 14:20] = 3        # ... and the value raster's nodata block (rows 11-15, columns 14-19), but
    z[12:15, 15:18] = 9        # zone 9 (a hole in 3): wholly in the value raster's nodata
    z[8:16, 0:14] = 5          # over the NaN cell (8, 10)
    z[9:12, 1:4] = 4           # zone 4: two disjoint patches
    z[10:14, 8:11] = 4
    z[15, 0:4] = 0             # zones nodata
    z[6, 6] = 0
    z[0, 19] = 0
    z[13, 13] = 0
    return z


def zones_coarse():
    """11 x 9 cells of 2 x 2 value cells: one zones column west of the value raster (column 0) and one row
    south of it (row 8). Zones column C holds value columns 2C - 2, 2C - 1; row R value rows 2R, 2R + 1.
    Int32, nodata -1; zone 0 is a zone; zone 8 lies only outside the value raster."""
    z = np.ones((9, 11), np.int32)
    z[0:4, 1:5] = 0
    z[0:3, 5:11] = 2
    z[3:8, 6:11] = 3           # over the value nodata block (zones rows 5-7, columns 8-10)
    z[5:8, 1:4] = 5
    z[:, 0] = 8                # outside the value raster only
    z[8, :] = 8
    z[0:2, 0] = 2              # zone 2 also outside (clipped away)
    z[8, 6:10] = 3             # zone 3 also outside
    z[4, 4] = -1               # zones nodata
    z[7, 1] = -1
    z[8, 10] = -1
    return z


def zones_fine():
    """40 x 32 cells of half a value cell. Int32, nodata -9999. Irregular blocks whose edges lie on odd
    fine-cell lines (through value cells), a diagonal staircase stripe, a nodata patch, and zone 99 in a
    single fine cell (a quarter of value cell (4, 6))."""
    vals = [-7, 2, 11, 4, 30]
    cb = [0, 7, 15, 25, 33, 40]
    rb = [0, 5, 13, 19, 27, 32]
    z = np.zeros((32, 40), np.int32)
    for i in range(5):
        for j in range(5):
            z[rb[i]:rb[i + 1], cb[j]:cb[j + 1]] = vals[(2 * i + 3 * j) % 5]
    r, c = np.mgrid[0:32, 0:40]
    z[(r + c >= 28) & (r + c <= 32) & (r >= 8)] = 4   # diagonal stripe, 5 fine cells wide
    z[21:25, 27:32] = -9999
    z[9, 13] = 99
    return z


def zones_elev(w, h):
    """12 x 12 cells of 8 x 8 elev cells from elev's origin (covering its 95 x 90 cells; the last zones column
    and row reach past its east and south edges). UInt16, nodata 65535 (no nodata cells). 12 blocks of
    4 x 3 zones cells, values 10..60, each value in two disjoint blocks."""
    n = 12
    assert n * 8 >= w and n * 8 >= h and (n - 1) * 8 < w and (n - 1) * 8 < h
    R, C = np.mgrid[0:n, 0:n]
    return (10 * (1 + ((R // 4) * 4 + C // 3) % 6)).astype(np.uint16)


# ------------------------------------------------------------------------------------------ polygons

def to_unit_grid(zarr, k_zone, k_value, off_col, off_row, w_units, h_units):
    """the zones array on the unit grid (the finer of the two), cropped to the value raster: k_zone /
    k_value units per zones / value cell; zones cell (0, 0) starts at unit (off_col, off_row) from the value
    raster's corner (negative: west / north of it)."""
    up = np.repeat(np.repeat(zarr, k_zone, axis=0), k_zone, axis=1)
    r0, c0 = -off_row, -off_col
    assert r0 >= 0 and c0 >= 0
    out = up[r0:r0 + h_units, c0:c0 + w_units]
    assert out.shape == (h_units, w_units), out.shape
    return out


def drop_collinear(ring):
    """integer ring (closed) without the vertices in the middle of a straight run"""
    pts = ring[:-1]
    n = len(pts)
    keep = []
    for i in range(n):
        a, b, c = pts[i - 1], pts[i], pts[(i + 1) % n]
        if (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]) != 0:
            keep.append(b)
    # start at the smallest vertex (row, then column) for a canonical ring
    s = min(range(len(keep)), key=lambda i: (keep[i][1], keep[i][0]))
    keep = keep[s:] + keep[:s]
    return keep + [keep[0]]


def signed_area(ring):
    return sum(ring[i][0] * ring[i + 1][1] - ring[i + 1][0] * ring[i][1] for i in range(len(ring) - 1)) / 2


def zone_polygons(units, nodata):
    """{zone value: [[ring, ...], ...]} (a MultiPolygon's coordinates in integer units: x = column, y = row,
    y growing south), the union of each value's unit cells"""
    h, w = units.shape
    ds = gdal.GetDriverByName("MEM").Create("", w, h, 1, gdal.GDT_Int32)
    ds.SetGeoTransform((0, 1, 0, 0, 0, 1))
    b = ds.GetRasterBand(1)
    b.WriteArray(units.astype(np.int32))
    mds = gdal.GetDriverByName("MEM").Create("", w, h, 1, gdal.GDT_Byte)
    mds.GetRasterBand(1).WriteArray((units != nodata).astype(np.uint8))
    vds = ogr.GetDriverByName("Memory").CreateDataSource("")
    lyr = vds.CreateLayer("z", geom_type=ogr.wkbPolygon)
    lyr.CreateField(ogr.FieldDefn("zone", ogr.OFTInteger64))
    gdal.Polygonize(b, mds.GetRasterBand(1), lyr, 0, [])
    parts = {}
    for f in lyr:
        parts.setdefault(int(f.GetField(0)), []).append(f.GetGeometryRef().Clone())
    out = {}
    for zv in sorted(parts):
        mp = ogr.Geometry(ogr.wkbMultiPolygon)
        for g in parts[zv]:
            mp.AddGeometry(g)
        u = mp.UnionCascaded()
        assert u is not None and u.IsValid(), zv
        # the union covers exactly the value's cells
        assert abs(u.GetArea() - float((units == zv).sum())) == 0, zv
        gj = json.loads(u.ExportToJson())
        polys = gj["coordinates"] if gj["type"] == "MultiPolygon" else [gj["coordinates"]]
        rings_out = []
        for poly in polys:
            rings = []
            for ring in poly:
                pts = [(int(round(x)), int(round(y))) for x, y in ring]
                assert all(abs(x - a) == 0 and abs(y - b_) == 0 for (x, y), (a, b_) in zip(ring, pts))
                rings.append(drop_collinear(pts))
            rings_out.append(rings)
        rings_out.sort(key=lambda p: (p[0][0][1], p[0][0][0]))
        out[zv] = rings_out
    return out


# How far every edge is moved into its zone, as a fraction of the unit cell (see to_lonlat).
INSET = 1e-9


def to_lonlat(polys, gt, k_value):
    """integer unit vertices (u, v) to coordinates x0 + u * dx_unit, y0 + v * dy_unit (dx_unit = dx / k_value),
    every edge moved INSET of a unit cell into the polygon. Exterior rings counter-clockwise, holes clockwise
    (RFC 7946).

    Why the inset: vertices exactly on the cell edges as the geotransform gives them (x0 + u * dx) are not
    exactly on the cell edges exactextract uses, which it computes from the origin of a grid cropped to each
    feature's and each ring's bounding box (xmin' + j * dx, xmin' = x0 + col0 * dx; grid.h shrink_to_fit,
    grid.cpp grid_cell): an edge an ulp beyond a cell edge gives the neighbouring cell a sliver of ~1e-13
    coverage (then counted by min, max, values, cell_id, ...). Moved 1e-9 of a cell inward, no edge reaches
    a neighbouring cell, and the zone's own cells lose ~1e-9 of their area, which exactextract's float32
    coverage fractions round away (1 - 1e-9 -> 1.0f; 0.25 - 2e-9 -> 0.25f): the coverage is exactly the
    definition's (checked by the self-check: every coverage 1, or a multiple of 1 / k^2)."""
    x0, dx, _, y0, _, dy = gt
    dxu, dyu = dx / k_value, dy / k_value
    out = []
    for poly in polys:
        rings = []
        for i, ring in enumerate(poly):
            pts = [(u, -v) for u, v in ring]  # (u, Y): Y = -v grows north, as y does
            a = signed_area(pts)
            if (i == 0) != (a > 0):
                pts = pts[::-1]
            # the polygon's interior lies left of every edge: move each vertex along the left normals of
            # its two edges (rectilinear: one is horizontal, the other vertical)
            p = pts[:-1]
            n = len(p)
            coords = []
            for j in range(n):
                (ax, ay), (bx, by), (cx, cy) = p[j - 1], p[j], p[(j + 1) % n]
                d1 = (sgn(bx - ax), sgn(by - ay))
                d2 = (sgn(cx - bx), sgn(cy - by))
                su = -d1[1] - d2[1]
                sY = d1[0] + d2[0]
                assert abs(su) == 1 and abs(sY) == 1, (d1, d2)
                coords.append([x0 + bx * dxu + su * INSET * abs(dxu), y0 - by * dyu + sY * INSET * abs(dyu)])
            coords.append(coords[0])
            rings.append(coords)
        out.append(rings)
    geom = {"type": "MultiPolygon", "coordinates": out}
    g = ogr.CreateGeometryFromJson(json.dumps(geom))
    assert g.IsValid()
    return geom


def sgn(a):
    return (a > 0) - (a < 0)


def write_geojson(path, feats):
    # "name": the layer's name for OGR (by default the file's name without ".geojson", whose dot breaks the
    # CLI's "SELECT zone FROM <layer>")
    lines = ['{"type": "FeatureCollection", "name": "zones", "features": [']
    for i, (zv, geom) in enumerate(feats):
        lines.append(json.dumps({"type": "Feature", "properties": {"zone": zv}, "geometry": geom},
                                allow_nan=False) + ("," if i < len(feats) - 1 else ""))
    lines.append("]}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


# ------------------------------------------------------------------------------------------ the CLI

def cli(value, weights, zones_file, stats, out):
    cmd = [EE, "-r", "v:%s[1]" % value]
    if weights:
        cmd += ["-w", "w:%s[1]" % weights]
    cmd += ["-p", zones_file, "-f", "zone", "--nested-output"]
    if weights:
        # this CLI build reads --grid-compat-tol as a flag (see the README); it decides only whether the
        # grids are accepted, never the answers
        cmd += ["--grid-compat-tol=1"]
    for name, desc in stats:
        cmd += ["-s", "%s=%s" % (name, desc)]
    return cmd + ["-o", out]


def run(value, weights, zones_file, stats):
    """stats: [(name, descriptor)]. Runs the CLI as GeoJSON (17 significant digits) and as CSV (tells a NaN from
    an empty value: the GeoJSON writer drops both). Returns ({zone: {name: value}}, {zone: {name: 'NaN' |
    'null'}} for the values missing from the GeoJSON, the command lines)."""
    with tempfile.TemporaryDirectory() as tmp:
        outs, cmds = {}, []
        for ext in ("geojson", "csv"):
            o = os.path.join(tmp, "out." + ext)
            cmd = cli(value, weights, zones_file, stats, o)
            p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
            if p.returncode != 0:
                raise RuntimeError("%s\n%s" % (" ".join(cmd), p.stderr))
            outs[ext] = o
            cmds.append(" ".join(shlex.quote(c) for c in cli(value, weights, zones_file, stats, "out." + ext)))
        with open(outs["geojson"]) as f:
            gj = json.load(f)
        with open(outs["csv"], newline="") as f:
            rows = list(csv.DictReader(f))
    res, missing = {}, {}
    assert len(gj["features"]) == len(rows)
    for feat, row in zip(gj["features"], rows):
        props = feat["properties"]
        zv = props["zone"]
        assert isinstance(zv, int) and int(row["zone"]) == zv, (zv, row["zone"])
        got, miss = {}, {}
        for name, desc in stats:
            if name in props and props[name] is not None:
                v = props[name]
                if name == "frac":
                    u = props["unique"]
                    assert len(u) == len(v)
                    v = {eo.fmt_key(a): b for a, b in zip(u, v)}
                assert not contains_nonfinite(v), (zv, name, v)
            else:
                c = row[name].strip().lower()
                if c in ("nan", "-nan"):
                    miss[name] = "NaN"
                elif c == "":
                    miss[name] = "null"
                else:
                    raise ValueError("GeoJSON lacks %s but CSV has %r" % (name, row[name]))
                v = None  # NaN and no value alike: JSON null
            got[name] = v
        res[zv] = got
        missing[zv] = miss
    return res, missing, cmds


def contains_nonfinite(v):
    if isinstance(v, float):
        return not math.isfinite(v)
    if isinstance(v, list):
        return any(contains_nonfinite(x) for x in v)
    if isinstance(v, dict):
        return any(contains_nonfinite(x) for x in v.values())
    return False


# ------------------------------------------------------------------------------------------ one case

def make_case(name, value, weights, zarr, zgt, ztype, znodata, k_zone, k_value, off_col, off_row, notes):
    """value: path under fixtures/; zarr, zgt: the zones raster; the unit grid has k_value units per value
    cell and k_zone per zones cell; zones cell (0, 0) at unit (off_col, off_row) of the value raster."""
    vpath = os.path.join(FIXTURES, value)
    vi = value_info(vpath)
    zpath = write_zones(name + ".tif", zarr, ztype, zgt, znodata, vi["srs"])
    units = to_unit_grid(zarr, k_zone, k_value, off_col, off_row, vi["w"] * k_value, vi["h"] * k_value)
    polys = zone_polygons(units, znodata)
    feats = [(zv, to_lonlat(p, vi["gt"], k_value)) for zv, p in polys.items()]
    gpath = os.path.join(OUT, name + ".zones.geojson")
    write_geojson(gpath, feats)

    stats = [(op, "%s(v)" % op) for op in UNWEIGHTED]
    res, missing, cmds = run(rel(vpath), None, rel(gpath), stats)
    if weights:
        wstats = [(op, "%s(v,w)" % op) for op in WEIGHTED]
        wres, wmissing, wcmds = run(rel(vpath), rel(os.path.join(FIXTURES, weights)), rel(gpath), wstats)
        for zv in res:
            res[zv].update(wres[zv])
            missing[zv].update(wmissing[zv])
        cmds += wcmds
    assert sorted(res) == sorted(polys), (sorted(res), sorted(polys))

    doc = {
        "value_raster": value,
        "band": 1,
        "zones_raster": fx(zpath),
        "zones_polygons": fx(gpath),
        "weights_raster": weights,
        "command": "\n".join(cmds),
        "exactextract_commit": EE_COMMIT,
        "exactextract_version": eo.ee_version(),
        "notes": notes,
        "rows": [{"zone": zv, "stats": res[zv]} for zv in sorted(res)],
    }
    jpath = os.path.join(OUT, name + ".json")
    lines = ["{"]
    for k in doc:
        if k == "rows":
            continue
        lines.append("  %s: %s," % (json.dumps(k), json.dumps(doc[k], allow_nan=False)))
    lines.append('  "rows": [')
    for i, r in enumerate(doc["rows"]):
        lines.append("    " + json.dumps(r, allow_nan=False, separators=(",", ":")) +
                     ("," if i < len(doc["rows"]) - 1 else ""))
    lines.append("  ]")
    lines.append("}")
    with open(jpath, "w") as f:
        f.write("\n".join(lines) + "\n")
    return {"name": name, "value": value, "vi": vi, "zarr": zarr, "zgt": zgt, "znodata": znodata, "k_zone": k_zone,
            "k_value": k_value, "units": units, "res": res, "missing": missing, "weights": weights,
            "paths": [zpath, gpath, jpath]}


# ------------------------------------------------------------------------------------------ self-check

def value_valid(vi):
    a = vi["arr"]
    ok = np.ones(a.shape, bool)
    if vi["nodata"] is not None:
        ok &= a != vi["nodata"]
    if a.dtype.kind == "f":
        ok &= ~np.isnan(a)
    return ok


def nearest_zones(case):
    """each value cell's zone: the zones cell holding its centre (nearest neighbour); None where nodata"""
    vi = case["vi"]
    x0, dx, _, y0, _, dy = vi["gt"]
    zx0, zdx, _, zy0, _, zdy = case["zgt"]
    r, c = np.mgrid[0:vi["h"], 0:vi["w"]]
    zc = np.floor((x0 + (c + 0.5) * dx - zx0) / zdx).astype(int)
    zr = np.floor((y0 + (r + 0.5) * dy - zy0) / zdy).astype(int)
    z = case["zarr"][zr, zc]
    return z, z != case["znodata"]


def check_whole(case):
    """equal / coarser zones: count, sum, min, max per zone from plain numpy"""
    vi = case["vi"]
    v = vi["arr"].astype(np.float64)
    ok = value_valid(vi)
    z, zok = nearest_zones(case)
    zones = sorted(int(a) for a in np.unique(z[zok]))
    assert zones == sorted(case["res"]), (zones, sorted(case["res"]))
    n = 0
    for zv in zones:
        m = zok & (z == zv) & ok
        got = case["res"][zv]
        cnt = float(m.sum())
        assert got["count"] == cnt, (zv, got["count"], cnt)
        s = float(v[m].sum())
        assert abs(got["sum"] - s) <= 1e-9 * abs(s), (zv, got["sum"], s)
        if m.any():
            assert got["min"] == v[m].min() and got["max"] == v[m].max(), (zv, got["min"], got["max"])
        else:
            assert got["min"] is None and got["max"] is None
        # the cells exactextract used are exactly the zone's: coverage 1 each, cell ids row-major
        assert got["coverage"] == [1.0] * int(cnt), zv
        assert got["cell_id"] == [int(i) for i in np.flatnonzero(m)], zv
        n += 4
    return n


def check_fine(case):
    """finer zones (k zones cells per value cell side): count = sum over valid value cells of the share of
    their zones sub-cells of the zone; sum likewise; coverage a multiple of 1 / k^2"""
    vi = case["vi"]
    k = case["k_value"]
    v = vi["arr"].astype(np.float64)
    ok = value_valid(vi)
    units = case["units"]
    zones = sorted(int(a) for a in np.unique(units[units != case["znodata"]]))
    assert zones == sorted(case["res"]), (zones, sorted(case["res"]))
    n = 0
    for zv in zones:
        share = (units == zv).reshape(vi["h"], k, vi["w"], k).sum(axis=(1, 3)) / float(k * k)
        m = ok & (share > 0)
        got = case["res"][zv]
        cnt = float(share[ok].sum())
        assert abs(got["count"] - cnt) <= 1e-9 * max(cnt, 1), (zv, got["count"], cnt)
        s = float((share[m] * v[m]).sum())
        assert abs(got["sum"] - s) <= 1e-9 * abs(s), (zv, got["sum"], s)
        assert got["coverage"] == [float(x) for x in share[m]], zv
        assert got["cell_id"] == [int(i) for i in np.flatnonzero(m)], zv
        n += 4
    return n


def check_weighted(case):
    """weighted_sum / weighted_mean from numpy, weights cell = the one holding the value cell's centre;
    a nodata weight under a valid value cell of the zone makes both NaN (null)"""
    vi = case["vi"]
    wds = gdal.Open(os.path.join(FIXTURES, case["weights"]))
    wa = wds.GetRasterBand(1).ReadAsArray().astype(np.float64)
    wnd = wds.GetRasterBand(1).GetNoDataValue()
    wx0, wdx, _, wy0, _, wdy = wds.GetGeoTransform()
    x0, dx, _, y0, _, dy = vi["gt"]
    r, c = np.mgrid[0:vi["h"], 0:vi["w"]]
    w = wa[np.floor((y0 + (r + 0.5) * dy - wy0) / wdy).astype(int),
           np.floor((x0 + (c + 0.5) * dx - wx0) / wdx).astype(int)]
    v = vi["arr"].astype(np.float64)
    ok = value_valid(vi)
    k = case["k_value"]
    units = case["units"]
    n = 0
    for zv, got in case["res"].items():
        share = (units == zv).reshape(vi["h"], k, vi["w"], k).sum(axis=(1, 3)) / float(k * k)
        m = ok & (share > 0)
        if (w[m] == wnd).any():
            assert got["weighted_sum"] is None and got["weighted_mean"] is None, zv
            assert case["missing"][zv]["weighted_sum"] == "NaN"
        else:
            ws = float((share[m] * v[m] * w[m]).sum())
            sw = float((share[m] * w[m]).sum())
            assert abs(got["weighted_sum"] - ws) <= 1e-9 * abs(ws), (zv, got["weighted_sum"], ws)
            if sw > 0:
                assert abs(got["weighted_mean"] - ws / sw) <= 1e-9 * abs(ws / sw), (zv, got["weighted_mean"])
        n += 2
    return n


# ------------------------------------------------------------------------------------------ pixel rules

RULES_DEFINITION = (
    "Numpy only (no exactextract). Each value cell's centre zone is the zones cell holding the value cell's "
    "centre point, found as GDAL's nearest neighbour does: pixel coordinates in the zones raster "
    "(x - x0) / dx and (y - y0) / dy from the two geotransforms, then floor after adding 1e-10 (so a centre "
    "on a zones cell corner, as in the fine grid with 2 x 2 zones cells per value cell, falls in the zones "
    "cell to the right and below, sub-cell (1, 1), also where the float pixel coordinate lands a few 1e-13 "
    "short of the corner); a zones nodata cell, or a centre outside the zones raster, gives no "
    "zone. Each value cell's touched zones are the distinct zone values of the zones cells overlapping the "
    "value cell's area (the single one under it for equal or coarser zones, its 2 x 2 sub-cells for the fine "
    "grid), zones nodata left out. Rule center: zone z holds the value cells whose centre zone is z; rule "
    "all_touched: the value cells with z among their touched zones (a value cell can be in several zones). "
    "Per zone and rule, over its value cells: count = number of cells whose value is valid (not the value "
    "raster's nodata, not NaN); sum (float64 sum of the values, correctly rounded: math.fsum), min, max over "
    "those cells (null when there is none; sum then 0.0); nodata = number of the zone's cells whose value is "
    "nodata or NaN; cell_id = the valid cells' row-major indices in the value raster, ascending. Listed: every "
    "zone value with at least one value cell under that rule (valid or not), ascending.")


# added to a zones pixel coordinate before flooring it (see rule_masks)
CENTRE_EPS = 1e-10


def gdal_nearest(case):
    """the zones raster resampled onto the value grid by GDAL's nearest neighbour (gdal.Warp -r near), zones
    nodata where no zone: the check of the centre zones (not used for the answers)"""
    vi = case["vi"]
    zpath = case["paths"][0]
    dtype = gdal.Open(zpath).GetRasterBand(1).DataType
    dst = gdal.GetDriverByName("MEM").Create("", vi["w"], vi["h"], 1, dtype)
    dst.SetGeoTransform(vi["gt"])
    dst.SetProjection(vi["srs"])
    b = dst.GetRasterBand(1)
    b.SetNoDataValue(case["znodata"])
    b.Fill(case["znodata"])
    gdal.Warp(dst, zpath, resampleAlg="near")
    return b.ReadAsArray()


def rule_masks(case):
    """{"center": {zone: mask}, "all_touched": {zone: mask}}: boolean value-raster-shaped masks of each
    zone's value cells under each rule (valid or not)"""
    vi = case["vi"]
    h, w = vi["h"], vi["w"]
    x0, dx, _, y0, _, dy = vi["gt"]
    zx0, zdx, _, zy0, _, zdy = case["zgt"]
    zarr = case["zarr"]
    zh, zw = zarr.shape
    r, c = np.mgrid[0:h, 0:w]
    # centre zone: the value cell's centre as a pixel coordinate in the zones raster, floored after adding
    # CENTRE_EPS (without it, 61 of the 320 centres of the fine grid, whose pixel coordinates come out up to
    # 8e-13 below the corner they lie on, would take the sub-cell left of or above it; GDAL's nearest
    # neighbour takes sub-cell (1, 1): checked in check_rules against gdal.Warp -r near)
    zc = np.floor((x0 + (c + 0.5) * dx - zx0) / zdx + CENTRE_EPS).astype(np.int64)
    zr = np.floor((y0 + (r + 0.5) * dy - zy0) / zdy + CENTRE_EPS).astype(np.int64)
    inside = (zc >= 0) & (zc < zw) & (zr >= 0) & (zr < zh)
    cz = zarr[np.clip(zr, 0, zh - 1), np.clip(zc, 0, zw - 1)]
    has = inside & (cz != case["znodata"])
    # touched zones: the zones cells over the value cell's area, from the (exact, integer) unit grid of the
    # finer raster: k_value x k_value units per value cell, each unit inside one zones cell
    k = case["k_value"]
    units = case["units"]
    blocks = units.reshape(h, k, w, k)
    # cross-check the centre zone with the unit grid: the unit holding the centre is (k // 2, k // 2) of the
    # value cell (k = 1: the cell itself; k = 2: sub-cell (1, 1), the one right of and below the centre)
    uc = blocks[:, k // 2, :, k // 2]
    assert np.array_equal(np.where(has, cz, case["znodata"]), np.where(inside, uc, case["znodata"])), case["name"]
    # ... and with GDAL's own nearest neighbour
    assert np.array_equal(np.where(has, cz, case["znodata"]), gdal_nearest(case)), case["name"]
    out = {"center": {}, "all_touched": {}}
    for zv in sorted(int(a) for a in np.unique(cz[has])):
        out["center"][zv] = has & (cz == zv)
    for zv in sorted(int(a) for a in np.unique(units[units != case["znodata"]])):
        out["all_touched"][zv] = (blocks == zv).any(axis=(1, 3))
    return out


def rule_rows(case, masks):
    vi = case["vi"]
    v = vi["arr"]
    ok = value_valid(vi)
    rows = []
    for zv in sorted(masks):
        m = masks[zv]
        if not m.any():
            continue
        good = m & ok
        vals = [float(x) for x in v[good].astype(np.float64)]   # row-major
        rows.append({"zone": zv, "count": int(good.sum()), "sum": math.fsum(vals),
                     "min": min(vals) if vals else None, "max": max(vals) if vals else None,
                     "nodata": int((m & ~ok).sum()), "cell_id": [int(i) for i in np.flatnonzero(good)]})
    return rows


def write_rules(case):
    """fixtures/exactextract/zones/NAME.rules.json; returns (path, {rule: rows})"""
    masks = rule_masks(case)
    rules = {rule: rule_rows(case, masks[rule]) for rule in ("center", "all_touched")}
    doc_head = [("value_raster", case["value"]), ("zones_raster", fx(case["paths"][0])),
                ("definition", RULES_DEFINITION)]
    lines = ["{"]
    for k, val in doc_head:
        lines.append("  %s: %s," % (json.dumps(k), json.dumps(val, allow_nan=False)))
    lines.append('  "rules": {')
    names = list(rules)
    for j, rule in enumerate(names):
        lines.append("    %s: [" % json.dumps(rule))
        rows = rules[rule]
        for i, row in enumerate(rows):
            lines.append("      " + json.dumps(row, allow_nan=False, separators=(",", ":")) +
                         ("," if i < len(rows) - 1 else ""))
        lines.append("    ]" + ("," if j < len(names) - 1 else ""))
    lines.append("  }")
    lines.append("}")
    path = os.path.join(OUT, case["name"] + ".rules.json")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    # round trip: the file is valid JSON and holds exactly these rows
    with open(path) as f:
        back = json.load(f)
    assert list(back) == ["value_raster", "zones_raster", "definition", "rules"]
    assert back["rules"] == rules
    return path, rules, masks


def check_rules(case, rules, masks):
    """equal / coarser zones: both rules give exactextract's count, sum, min, max, cell_id (each value cell
    lies in one zones cell); finer zones: all_touched's cells are exactly exactextract's cells (coverage > 0,
    valid value), center's are a subset of them (so its count is at most all_touched's). Returns the number of
    comparisons."""
    res = case["res"]
    n = 0
    if case["k_value"] == 1:
        for rule in ("center", "all_touched"):
            rows = rules[rule]
            assert [r["zone"] for r in rows] == sorted(res), (case["name"], rule)
            for r in rows:
                got = res[r["zone"]]
                assert got["count"] == r["count"], (case["name"], rule, r["zone"], got["count"], r["count"])
                assert got["sum"] == r["sum"], (case["name"], rule, r["zone"], got["sum"], r["sum"])
                assert got["min"] == r["min"] and got["max"] == r["max"], (case["name"], rule, r["zone"])
                assert got["cell_id"] == r["cell_id"], (case["name"], rule, r["zone"])
                n += 5
        for zv in masks["center"]:
            assert np.array_equal(masks["center"][zv], masks["all_touched"][zv]), (case["name"], zv)
    else:
        at = {r["zone"]: r for r in rules["all_touched"]}
        ce = {r["zone"]: r for r in rules["center"]}
        assert sorted(at) == sorted(res), case["name"]
        assert set(ce) <= set(at), case["name"]
        for zv, r in at.items():
            got = res[zv]
            assert got["cell_id"] == r["cell_id"], (case["name"], zv)
            assert all(cv > 0 for cv in got["coverage"]), (case["name"], zv)
            n += 1
            if zv in ce:
                assert ce[zv]["count"] <= r["count"], (case["name"], zv)
                assert set(ce[zv]["cell_id"]) <= set(r["cell_id"]), (case["name"], zv)
                n += 2
    return n


# ------------------------------------------------------------------------------------------ main

def main():
    os.makedirs(OUT, exist_ok=True)
    f32 = value_info(os.path.join(FIXTURES, F32))
    x0, dx, _, y0, _, dy = f32["gt"]
    assert (f32["w"], f32["h"]) == (20, 16)
    elev = value_info(os.path.join(FIXTURES, ELEV))
    ex0, edx, _, ey0, _, edy = elev["gt"]

    cases = []
    cases.append(make_case(
        "float32_zones_equal", F32, WEIGHTS, zones_equal(), f32["gt"], gdal.GDT_UInt16, 0,
        1, 1, 0, 0,
        "Zones raster on the value raster's grid (UInt16, nodata 0). Zone 4: two disjoint patches; zone 7: one "
        "cell (a hole in zone 2); zone 9: wholly over the value raster's nodata (no valid value); zone 3 has "
        "zone 9 as a hole."))
    # coarse: zones cells 2 x 2 value cells, origin one zones cell (two value cells) west of the value raster
    cases.append(make_case(
        "float32_zones_coarse", F32, WEIGHTS, zones_coarse(), (x0 - 2 * dx, 2 * dx, 0.0, y0, 0.0, 2 * dy),
        gdal.GDT_Int32, -1, 2, 1, -2, 0,
        "Zones cells 2 x the value cells (Int32, nodata -1), aligned; the zones raster reaches one zones cell "
        "further west and south than the value raster. Zone 0 is a zone; zone 8 lies only outside the value "
        "raster, so it has no row; zones 2 and 3 have cells outside too (left out)."))
    cases.append(make_case(
        "float32_zones_fine", F32, WEIGHTS, zones_fine(), (x0, dx / 2, 0.0, y0, 0.0, dy / 2),
        gdal.GDT_Int32, -9999, 1, 2, 0, 0,
        "Zones cells half the value cells (Int32, nodata -9999), aligned, 40 x 32: coverage = (zones cells of "
        "the zone in the value cell) / 4. Zone 99: a single zones cell (a quarter of value cell row 4, "
        "column 6)."))
    ez = zones_elev(elev["w"], elev["h"])
    cases.append(make_case(
        "elev_zones_coarse", ELEV, None, ez, (ex0, 8 * edx, 0.0, ey0, 0.0, 8 * edy),
        gdal.GDT_UInt16, 65535, 8, 1, 0, 0,
        "Zones cells 8 x elev's cells (UInt16, nodata 65535, no nodata cells), aligned on elev's origin, 12 x 12: "
        "the last zones column and row reach past elev's east and south edges (left out). Each zone is two "
        "disjoint blocks."))

    checks = 0
    for c in cases:
        if c["k_value"] == 1:
            n = check_whole(c)
            what = "count (exact), sum (1e-9 relative), min, max, coverage (all 1), cell_id"
        else:
            n = check_fine(c)
            what = "count = sum of zones sub-cells / %d (1e-9 relative), sum, coverage, cell_id" % c["k_value"] ** 2
        if c["weights"]:
            n += check_weighted(c)
            what += "; weighted_sum, weighted_mean (1e-9 relative; NaN where a weight is nodata)"
        checks += n
        zs = sorted(c["res"])
        empty = [zv for zv in zs if c["res"][zv]["count"] == 0]
        print("%-22s zones %s%s" % (c["name"], zs, ("  no valid value: %s" % empty) if empty else ""))
        print("  self-check vs numpy, %d zones: %s: OK" % (len(zs), what))
        for zv in zs:
            if c["missing"][zv]:
                print("  zone %s: NaN -> null: %s; no value -> null: %s" % (
                    zv, [k for k, v in c["missing"][zv].items() if v == "NaN"],
                    [k for k, v in c["missing"][zv].items() if v == "null"]))
        for p in c["paths"]:
            print("  %-60s %7d bytes" % (rel(p), os.path.getsize(p)))

    # numpy-only answers for the center / all_touched pixel rules
    rchecks = 0
    for c in cases:
        path, rules, masks = write_rules(c)
        c["paths"].append(path)
        print("%-22s rules (zone: count valid / nodata cells)" % c["name"])
        for rule in ("center", "all_touched"):
            print("  %-12s %s" % (rule, "  ".join("%s: %d/%d" % (r["zone"], r["count"], r["nodata"])
                                                 for r in rules[rule])))
        n = check_rules(c, rules, masks)
        rchecks += n
        if c["k_value"] == 1:
            what = "both rules = exactextract's count, sum, min, max, cell_id (exact)"
        else:
            what = "all_touched cell_id = exactextract's (coverage > 0); center cells within them, count <="
        print("  self-check vs exactextract: %s: OK" % what)
        print("  %-60s %7d bytes" % (rel(path), os.path.getsize(path)))

    total = sum(os.path.getsize(p) for c in cases for p in c["paths"])
    print("total %d bytes (%d files)" % (total, sum(len(c["paths"]) for c in cases)))
    print("self-check: OK (%d comparisons with numpy; %d of the rules answers with exactextract)" % (checks, rchecks))


if __name__ == "__main__":
    main()
