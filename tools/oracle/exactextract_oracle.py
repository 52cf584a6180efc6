#!/usr/bin/env python3
"""exactextract CLI as an oracle for the exactextract operations (issue 24).

Dev-only tool (the test suite never runs it). Run through tools/oracle/exactextract_oracle.sh, which builds
the CLI when it is missing. Needs Debian's GDAL Python bindings and numpy, and `exactextract` on the PATH.

    /usr/bin/python3 tools/oracle/exactextract_oracle.py            # rewrites fixtures/exactextract/oracle/

What it writes (see fixtures/exactextract/README.md):
  fixtures/exactextract/oracle/float32.tif, classes_uint8.tif, weights_float32.tif,
                             weights_coarse_float32.tif   small synthetic rasters
  fixtures/exactextract/oracle/<name>.json   one per (raster, weights) pair: every zone, every operation
                                             under every argument set, as the CLI answers it
Deterministic: the rasters are formulas; the answers are whatever the CLI prints (GeoJSON writer, 17
significant digits), read back without rounding.

Also used as a module by tools/fixtures/make_exactextract_ported.py --check (run(), close()).
"""
import csv
import json
import math
import os
import shlex
import subprocess
import sys
import tempfile

try:
    import numpy as np
    from osgeo import gdal, osr
except ImportError:  # e.g. a pyenv python3 first on PATH: re-run under Debian's interpreter
    if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    raise

gdal.UseExceptions()

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FIXTURES = os.path.join(ROOT, "fixtures")
OUT_SUB = "exactextract/oracle"
OUT = os.path.join(FIXTURES, OUT_SUB)
EE = os.environ.get("EXACTEXTRACT", "exactextract")
EE_COMMIT = os.environ.get("EXACTEXTRACT_COMMIT", "3b4926bd0237a6ab20b7f69d1dfc960625c3b3af")

NAN = "NaN"
ARRAY_OPS = {"values", "weights", "coverage", "cell_id", "center_x", "center_y", "unique"}


class ExactextractError(RuntimeError):
    pass


# ------------------------------------------------------------------------------------------ running the CLI

def split_stat(stat):
    """'quantile(q=0.25)' -> ('quantile', '(q=0.25)', {'q': '0.25'})"""
    i = stat.find("(")
    if i < 0:
        return stat, "", {}
    args = {}
    for kv in stat[i + 1:-1].split(","):
        if kv.strip():
            k, v = kv.split("=")
            args[k.strip()] = v.strip()
    return stat[:i], stat[i:], args


def key_of(stat):
    """the answer's key: exactextract's column name without the raster prefix"""
    op, _, args = split_stat(stat)
    if op == "quantile":
        return "quantile_%d" % int(float(args["q"]) * 100)  # static_cast<int>(q * 100) in operation.cpp
    return op


def fmt_key(v):
    """a distinct value as a frac key: '1', '2.5', '-9999'"""
    if isinstance(v, bool):
        raise TypeError(v)
    if isinstance(v, int):
        return str(v)
    v = float(v)
    if v.is_integer():
        return str(int(v))
    return repr(v)


def descriptors(stats):
    """the -s arguments: s<i>=<stat>; frac and weighted_frac also get u<i>=unique(<same args>), the keys
    of their map (exactextract orders both by the same histogram)."""
    out = []
    for i, s in enumerate(stats):
        out.append("s%d=%s" % (i, s))
        op, argpart, _ = split_stat(s)
        if op in ("frac", "weighted_frac"):
            out.append("u%d=unique%s" % (i, argpart))
    return out


def base_command(raster, band, weights, wband, zones_path, out_path, extra_args=()):
    cmd = [EE, "-r", "v:%s[%d]" % (raster, band)]
    if weights:
        cmd += ["-w", "w:%s[%d]" % (weights, wband)]
    cmd += ["-p", zones_path, "-f", "id", "--nested-output"] + list(extra_args) + ["-o", out_path]
    return cmd


def run(raster, band, weights, wband, zones, stats, extra_args=()):
    """Run the CLI once as GeoJSON (full precision) and once as CSV (which tells NaN from null: the
    GeoJSON writer drops both). zones: [(id, geometry)]. Returns ({id: [{op, key, value}]}, command)."""
    with tempfile.TemporaryDirectory() as tmp:
        zp = os.path.join(tmp, "zones.geojson")
        with open(zp, "w") as f:
            json.dump({"type": "FeatureCollection", "features": [
                {"type": "Feature", "properties": {"id": str(i)}, "geometry": g} for i, g in zones]}, f)
        desc = descriptors(stats)
        sargs = []
        for d in desc:
            sargs += ["-s", d]
        outs = {}
        for ext in ("geojson", "csv"):
            op = os.path.join(tmp, "out." + ext)
            cmd = base_command(raster, band, weights, wband, zp, op, extra_args) + sargs
            p = subprocess.run(cmd, capture_output=True, text=True)
            if p.returncode != 0:
                raise ExactextractError(p.stderr)
            outs[ext] = op
        with open(outs["geojson"]) as f:
            gj = json.load(f)
        with open(outs["csv"], newline="") as f:
            rows = list(csv.DictReader(f))
    command = base_command(raster, band, weights, wband, "zones.geojson", "out.geojson", extra_args)
    result = {}
    for feat, row in zip(gj["features"], rows):
        props = feat["properties"]
        zid = props["id"]
        assert row["id"] == zid
        answers = []
        for i, s in enumerate(stats):
            op, _, args = split_stat(s)
            name = "s%d" % i
            if op == "quantile":  # exactextract appends _<int(100 q)> even to a given name
                name += "_%d" % int(float(args["q"]) * 100)
            if name in props and props[name] is not None:
                v = props[name]
                if op in ("frac", "weighted_frac"):
                    u = props["u%d" % i]
                    assert len(u) == len(v), (s, u, v)
                    v = {fmt_key(a): b for a, b in zip(u, v)}
            else:
                c = row[name].strip().lower()
                if c in ("nan", "-nan"):
                    v = NAN
                elif c in ("inf", "+inf", "infinity"):
                    v = "Infinity"
                elif c in ("-inf", "-infinity"):
                    v = "-Infinity"
                elif c == "":
                    v = None
                else:
                    raise ValueError("GeoJSON lacks %s but CSV has %r" % (name, row[name]))
            answers.append({"op": s, "key": key_of(s), "value": sanitize(v)})
        result[zid] = answers
    return result, command


def run_robust(raster, band, weights, wband, zones, stats, extra_args=()):
    """run(), but an operation the CLI fails on (for some zone) is run again zone by zone and its answer
    recorded as {"op", "key", "error": <the CLI's message>} where it fails; a CLI error aborts a whole run."""
    try:
        return run(raster, band, weights, wband, zones, stats, extra_args)
    except ExactextractError:
        pass
    good, bad = [], []
    for s in stats:
        try:
            run(raster, band, weights, wband, zones, [s], extra_args)
            good.append(s)
        except ExactextractError:
            bad.append(s)
    res, command = run(raster, band, weights, wband, zones, good, extra_args)
    per = {zid: {r["op"]: r for r in rs} for zid, rs in res.items()}
    for s in bad:
        for zid, geom in zones:
            try:
                r, _ = run(raster, band, weights, wband, [(zid, geom)], [s], extra_args)
                per[zid][s] = r[zid][0]
            except ExactextractError as e:
                msg = [ln for ln in str(e).strip().splitlines() if ln.startswith("Error")][-1]
                per[zid][s] = {"op": s, "key": key_of(s), "error": msg}
    return {zid: [per[zid][s] for s in stats] for zid, _ in zones}, command


def sanitize(v):
    """NaN / infinities inside arrays and maps (GDAL's GeoJSON writer prints them as bare NaN) as strings"""
    if isinstance(v, float) and not math.isfinite(v):
        return NAN if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity")
    if isinstance(v, list):
        return [sanitize(x) for x in v]
    if isinstance(v, dict):
        return {k: sanitize(x) for k, x in v.items()}
    return v


def close(got, want, atol=0.0, rtol=0.0, as_set=False):
    if isinstance(want, dict):
        return (isinstance(got, dict) and set(got) == set(want) and
                all(close(got[k], want[k], atol, rtol) for k in want))
    if isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            return False
        if as_set:
            return sorted(got) == sorted(want)
        return all(close(a, b, atol, rtol) for a, b in zip(got, want))
    if want is None or isinstance(want, str):
        return got == want
    if not isinstance(got, (int, float)) or isinstance(got, bool):
        return False
    return abs(got - want) <= atol + rtol * abs(want)


# ------------------------------------------------------------------------------------------ synthetic rasters

ELEV = "raster/elev.cog.tif"
ELEV_SCALED = "raster/elev_scaled.cog.tif"


def elev_gt():
    return gdal.Open(os.path.join(FIXTURES, ELEV)).GetGeoTransform()


# the synthetic value rasters: 20 x 16 cells of elev's grid, from elev's column 30 and row 36
SYN_COL0, SYN_ROW0, SYN_W, SYN_H = 30, 36, 20, 16
# the weights raster: half elev's cell size, 38 x 31 weights cells: from half a value cell west of the value
# rasters (one weights cell) to 1.5 value cells short of their east edge, from one value cell below their
# top (two weights cells) to half a value cell below their bottom
W_DCOL, W_DROW, W_W, W_H = -1, 2, 38, 31
# the coarse weights raster: twice elev's cell size, 12 x 10 weights cells on value-cell corners: from two value
# cells west of the value rasters to two east of them, from two value cells north of them to two south (each
# value cell in one weights cell; weights column c holds value columns 2c - 2 and 2c - 1, row r value rows
# 2r - 2 and 2r - 1)
WC_DCOL, WC_DROW, WC_W, WC_H = -2, -2, 12, 10


def syn_gt():
    x0, dx, _, y0, _, dy = elev_gt()
    return (x0 + SYN_COL0 * dx, dx, 0.0, y0 + SYN_ROW0 * dy, 0.0, dy)


def weights_gt():
    x0, dx, _, y0, _, dy = syn_gt()
    return (x0 + W_DCOL * dx / 2, dx / 2, 0.0, y0 + W_DROW * dy / 2, 0.0, dy / 2)


def weights_coarse_gt():
    x0, dx, _, y0, _, dy = syn_gt()
    return (x0 + WC_DCOL * dx, 2 * dx, 0.0, y0 + WC_DROW * dy, 0.0, 2 * dy)


NAN_CELLS = [(2, 2), (2, 3), (3, 2), (3, 3), (7, 9), (8, 10)]  # (row, col)
NODATA_BLOCK = (slice(11, 16), slice(14, 20))  # rows 11-15, cols 14-19
TIE_BLOCK = (3, 11)  # rows 3-4, cols 11-12: two cells of 3, two of 5


def write_tiff(p, arr, gdal_type, gt, nodata, srs_wkt):
    """A small tiled GeoTIFF (16 x 16 blocks, DEFLATE) at path p, replacing any earlier one and its .aux.xml."""
    for f in (p, p + ".aux.xml"):
        if os.path.exists(f):
            os.unlink(f)
    h, w = arr.shape
    src = gdal.GetDriverByName("MEM").Create("", w, h, 1, gdal_type)
    src.SetGeoTransform(gt)
    src.SetProjection(srs_wkt)
    b = src.GetRasterBand(1)
    b.WriteArray(arr)
    b.SetNoDataValue(nodata)
    gdal.GetDriverByName("GTiff").CreateCopy(
        p, src, options=["TILED=YES", "BLOCKXSIZE=16", "BLOCKYSIZE=16", "COMPRESS=DEFLATE"])
    return p


def write(name, arr, gdal_type, gt, nodata):
    s = osr.SpatialReference()
    s.ImportFromEPSG(4326)
    write_tiff(os.path.join(OUT, name), arr, gdal_type, gt, nodata, s.ExportToWkt())
    return OUT_SUB + "/" + name


def make_rasters():
    os.makedirs(OUT, exist_ok=True)
    row, col = np.mgrid[0:SYN_H, 0:SYN_W]
    # float32: multiples of 1/8 (exact in float32), -9999 nodata block, NaN cells
    v = 100 + 3.25 * col - 1.5 * row + 0.125 * ((col * row) % 7)
    v = v.astype(np.float32)
    for r, c in NAN_CELLS:
        v[r, c] = np.nan
    v[NODATA_BLOCK] = -9999
    f32 = write("float32.tif", v, gdal.GDT_Float32, syn_gt(), -9999)
    # uint8 classes 1, 2, 3, 5, 7 in 4 x 4 blocks, a few 7s scattered, a 2 x 2 tie, nodata 255
    classes = np.array([1, 2, 3, 5, 7])
    k = classes[(col // 4 + row // 4) % 5]
    k = np.where((col * 7 + row * 3) % 11 == 0, 7, k)
    r0, c0 = TIE_BLOCK
    k[r0:r0 + 2, c0:c0 + 2] = [[3, 5], [5, 3]]
    k[NODATA_BLOCK] = 255
    cls = write("classes_uint8.tif", k.astype(np.uint8), gdal.GDT_Byte, syn_gt(), 255)
    # weights, float32: 0.5 .. 1.5 by quarters, a nodata (-1) block, a strip of zero weights
    wr, wc = np.mgrid[0:W_H, 0:W_W]
    w = (0.5 + 0.25 * ((wc + 2 * wr) % 5)).astype(np.float32)
    w[8:12, 20:24] = -1
    w[:, 30:32] = 0
    wts = write("weights_float32.tif", w, gdal.GDT_Float32, weights_gt(), -1)
    # coarse weights, float32: 0.25 .. 1.5 by quarters, a 2 x 2 nodata (-1) block at weights rows 6-7, columns 8-9
    # (value rows 10-13, columns 14-17: zones nodata_edge and all_nodata), weight 0 in four cells: (1, 1) under
    # multi's first part, (2, 6) and (3, 7) under tie's two cells of class 3 (value (3, 11) and (4, 12)), (4, 9)
    # under part of multi's second part
    wr, wc = np.mgrid[0:WC_H, 0:WC_W]
    w = (0.25 + 0.25 * ((3 * wc + wr) % 6)).astype(np.float32)
    for r, c in [(1, 1), (2, 6), (3, 7), (4, 9)]:
        w[r, c] = 0
    w[6:8, 8:10] = -1
    wtc = write("weights_coarse_float32.tif", w, gdal.GDT_Float32, weights_coarse_gt(), -1)
    return f32, cls, wts, wtc


# ------------------------------------------------------------------------------------------ zones

def box(xmin, ymin, xmax, ymax):
    return [[xmin, ymin], [xmax, ymin], [xmax, ymax], [xmin, ymax], [xmin, ymin]]


def poly(*rings):
    return {"type": "Polygon", "coordinates": [list(r) for r in rings]}


def rev(ring):
    return list(reversed(ring))


def elev_zones():
    x0, dx, _, y0, _, dy = elev_gt()
    cx = lambda c: x0 + c * dx  # noqa: E731
    cy = lambda r: y0 + r * dy  # noqa: E731
    return [
        ("inside", "pentagon in the data (within the weights raster)",
         poly([[6.03, 49.845], [6.075, 49.838], [6.082, 49.865], [6.055, 49.881], [6.028, 49.868], [6.03, 49.845]])),
        # 6.10 and 6.15 (and "multi"'s 6.00) are within an ulp of cell edges (columns 43, 49, 31): exactextract gives
        # the cells beyond them slivers of ~1e-14 coverage (float rounding), which its min/max/minority then count;
        # 6.1004/6.1496/6.0004 are not; nor is (6.3302, 49.69), whose edge from (6.30, 49.70) passed through
        # the corner (6.325, 49.691667) of cell 5769.
        ("hole", "rectangle with a triangular hole",
         poly(box(6.1004, 49.78, 6.1496, 49.82), rev([[6.11, 49.79], [6.14, 49.79], [6.125, 49.812], [6.11, 49.79]]))),
        ("multi", "multipolygon: one part within the weights raster, one far outside it",
         {"type": "MultiPolygon", "coordinates": [[box(6.0004, 49.87, 6.02, 49.885)],
                                                  [[[6.30, 49.70], [6.3302, 49.69], [6.335, 49.715], [6.30, 49.70]]]]}),
        ("tiny", "0.002 x 0.003 deg box inside one cell (column 40, row 40)",
         poly(box(6.0770, 49.8520, 6.0790, 49.8550))),
        ("grid_aligned", "vertices on cell corners: columns 33-35, rows 44-46",
         poly([[cx(33), cy(47)], [cx(36), cy(47)], [cx(36), cy(44)], [cx(33), cy(44)], [cx(33), cy(47)]])),
        ("partly_outside", "across the raster's west edge (x = 5.741667)",
         poly(box(5.70, 49.81, 5.78, 49.85))),
        ("all_nodata", "wholly in nodata (north-west corner)", poly(box(5.75, 50.15, 5.80, 50.18))),
        ("outside", "wholly outside the raster (east of it)", poly(box(6.60, 49.60, 6.65, 49.65))),
        ("coast", "across the edge of the data in the north (data and nodata cells)",
         poly([[5.87, 50.07], [5.953, 50.08], [5.94, 50.12], [5.88, 50.115], [5.87, 50.07]])),
    ]


def syn_zones():
    x0, dx, _, y0, _, dy = syn_gt()
    cx = lambda c: x0 + c * dx  # noqa: E731
    cy = lambda r: y0 + r * dy  # noqa: E731
    r0, c0 = TIE_BLOCK
    return [
        ("inside", "pentagon in valid cells only",
         poly([[6.032, 49.842], [6.058, 49.840], [6.062, 49.862], [6.045, 49.870], [6.030, 49.860], [6.032, 49.842]])),
        ("hole", "square with a square hole; touches the NaN cell at row 7, column 9",
         poly(box(6.07, 49.81, 6.0996, 49.84), rev(box(6.08, 49.82, 6.09, 49.83)))),
        ("multi", "multipolygon of two small parts; part 2 over the zero-weight strip",
         {"type": "MultiPolygon", "coordinates": [[box(5.995, 49.88, 6.005, 49.889)],
                                                  [box(6.12, 49.83, 6.135, 49.845)]]}),
        ("partly_outside", "across the value rasters' west edge (the weights reach half a cell further west)",
         poly(box(5.97, 49.79, 6.01, 49.81))),
        ("tiny", "box inside one cell (row 4, column 6)", poly(box(6.0430, 49.8525, 6.0470, 49.8560))),
        ("all_nodata", "wholly in the nodata block (rows 11-15, columns 14-19)", poly(box(6.12, 49.765, 6.15, 49.79))),
        ("outside", "wholly outside the rasters", poly(box(6.20, 49.70, 6.25, 49.72))),
        ("tie", "exactly cells rows 3-4, columns 11-12 (vertices on cell corners; classes 3, 5 / 5, 3)",
         poly([[cx(c0), cy(r0 + 2)], [cx(c0 + 2), cy(r0 + 2)], [cx(c0 + 2), cy(r0)], [cx(c0), cy(r0)],
               [cx(c0), cy(r0 + 2)]])),
        ("nan_mix", "over the 2 x 2 NaN block (float32) and valid cells", poly(box(6.00, 49.855, 6.03, 49.88))),
        ("nodata_edge", "across the nodata block's edge (and the weights' nodata block)",
         poly(box(6.1004, 49.79, 6.125, 49.81))),
    ]


# ------------------------------------------------------------------------------------------ operations

SCALARS = ["count", "sum", "mean", "min", "max", "majority", "minority", "mode", "variety", "variance", "stdev",
           "coefficient_of_variation", "median", "quantile(q=0.25)", "quantile(q=0.75)", "quantile(q=0.025)",
           "frac"]
POSITION = ["unique", "min_center_x", "min_center_y", "max_center_x", "max_center_y"]
ARRAYS = ["values", "coverage", "cell_id", "center_x", "center_y"]
WEIGHTED = ["weighted_mean", "weighted_sum", "weighted_stdev", "weighted_variance", "weighted_frac"]

COVERAGE_WEIGHTS = ["none", "area_cartesian", "area_spherical_m2", "area_spherical_km2"]


def with_args(op, args):
    if not args:
        return op
    if "(" in op:
        return op[:-1] + "," + args + ")"
    return op + "(" + args + ")"


def stat_list(weighted, nodata, skip=()):
    """every operation under every argument set that can change its answer (skip: ops left out)"""
    stats = []
    w_scalars = WEIGHTED if weighted else []
    w_arrays = ["weights"] if weighted else []
    # default arguments: everything
    stats += SCALARS + POSITION + ARRAYS + w_scalars + w_arrays
    # coverage_weight changes the weighting, not the set of cells. area_cartesian multiplies every cell by
    # the same dx * dy and area_spherical_km2 is area_spherical_m2 * 1e-6: the normalised answers (mean,
    # quantiles, frac, ...) are those of the default and of area_spherical_m2, so only the sums and
    # means are repeated for them
    for cw in COVERAGE_WEIGHTS:
        a = "coverage_weight=" + cw
        ops = SCALARS + ["coverage"] + w_scalars
        if cw in ("area_cartesian", "area_spherical_km2"):
            ops = [o for o in ops if o in ("count", "sum", "mean", "coverage", "weighted_sum", "weighted_mean")]
            if weighted:  # their coverage arrays are long on the common grid: kept in the no-weights files
                ops.remove("coverage")
        stats += [with_args(o, a) for o in ops]
    # min_coverage_frac and default_value change the set of cells (center_x / center_y arrays only with
    # the default arguments: cell_id gives the cells)
    arrays = [o for o in ARRAYS if o not in ("center_x", "center_y")]
    stats += [with_args(s, "min_coverage_frac=0.5") for s in SCALARS + POSITION + arrays + w_scalars + w_arrays]
    if nodata:
        stats += [with_args(s, "default_value=0") for s in SCALARS + POSITION + arrays + w_scalars]
    if weighted:
        stats += [with_args(s, "default_weight=1") for s in w_scalars + w_arrays]
    return [s for s in stats if split_stat(s)[0] not in skip]


# ------------------------------------------------------------------------------------------ the files

def dump(path, doc):
    """one zone per block, one result per line"""
    lines = ["{"]
    head = [k for k in doc if k != "zones"]
    for k in head:
        lines.append("  %s: %s," % (json.dumps(k), json.dumps(doc[k], allow_nan=False)))
    lines.append('  "zones": [')
    for zi, z in enumerate(doc["zones"]):
        lines.append("    {")
        for k in ("id", "description", "aoi"):
            lines.append("      %s: %s," % (json.dumps(k), json.dumps(z[k], allow_nan=False)))
        lines.append('      "results": [')
        for ri, r in enumerate(z["results"]):
            lines.append("        " + json.dumps(r, allow_nan=False) + ("," if ri < len(z["results"]) - 1 else ""))
        lines.append("      ]")
        lines.append("    }" + ("," if zi < len(doc["zones"]) - 1 else ""))
    lines.append("  ]")
    lines.append("}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def unscaled_copy(raster, tmp):
    """raw x scale + offset as Float64, the scaled nodata as a plain nodata value (see elev_scaled below)"""
    src = gdal.Open(os.path.join(FIXTURES, raster))
    b = src.GetRasterBand(1)
    nodata = b.GetNoDataValue() * b.GetScale() + b.GetOffset()
    out = os.path.join(tmp, "unscaled.tif")
    dst = gdal.Translate(out, src, options=gdal.TranslateOptions(unscale=True, outputType=gdal.GDT_Float64,
                                                                  noData=nodata))
    dst = None  # flush
    raw = b.ReadAsArray()
    check = gdal.Open(out)  # keep the dataset alive while its band is used (GDAL 3.6 bindings)
    got = check.GetRasterBand(1).ReadAsArray()
    check = None
    assert np.array_equal(got, raw * b.GetScale() + b.GetOffset())
    assert np.array_equal(got == nodata, raw == b.GetNoDataValue())
    return out, nodata


def oracle_file(name, raster, weights, zones, note, skip=(), cli_raster=None, command_note=""):
    has_nodata = True  # every raster here has a nodata value
    stats = stat_list(weights is not None, has_nodata, skip)
    rpath = cli_raster or os.path.join(FIXTURES, raster)
    wpath = os.path.join(FIXTURES, weights) if weights else None
    # this CLI build reads --grid-compat-tol as a flag (0 without it, 1 with it; see the README); the
    # 1/120 and 1/240 degree grids differ by ~1e-13 of a cell, which a tolerance of 0 rejects. The
    # tolerance only decides whether the grids are accepted, never the answers.
    extra = ["--grid-compat-tol=1"] if weights else []
    res, cmd = run_robust(rpath, 1, wpath, 1, [(z[0], z[2]) for z in zones], stats, extra)
    cmd = [c.replace(FIXTURES + "/", "") for c in cmd]
    if cli_raster:
        cmd = [c.replace(cli_raster, os.path.basename(cli_raster)) for c in cmd]
    cmd_s = " ".join(shlex.quote(c) for c in cmd)
    cmd_s += (" -s s0=%s ... (one -s sI=OP per distinct op of the results, in order; frac and weighted_frac "
              "also -s uI=unique(SAME ARGS) for their keys); run again with -o out.csv to tell NaN from null"
              % stats[0]) + command_note
    doc = {
        "raster": raster,
        "weights": {"raster": weights, "band": 1} if weights else None,
        "band": 1,
        "exactextract": {"commit": EE_COMMIT, "version": ee_version(), "command": cmd_s},
        "notes": note,
        "zones": [{"id": zid, "description": desc, "aoi": geom, "results": res[zid]} for zid, desc, geom in zones],
    }
    path = os.path.join(OUT, name + ".json")
    dump(path, doc)
    n = sum(len(z["results"]) for z in doc["zones"])
    errors = [(z["id"], r["op"], r["error"]) for z in doc["zones"] for r in z["results"] if "error" in r]
    print("%-36s %5d rows  %7d bytes  %s" % (name + ".json", n, os.path.getsize(path),
                                              "errors: %s" % errors if errors else ""))
    return n


def ee_version():
    p = subprocess.run([EE, "--version"], capture_output=True, text=True)
    return p.stdout.strip()


WEIGHTED_NOTE = ("With weights, exactextract (CLI and Python alike) attaches the weights raster to every operation, "
                 "weighted or not, and computes each one on the common grid of the two rasters (the finer cell size, "
                 "the union of the extents): unweighted answers here can differ from the no-weights file.")

COARSE_NOTE = ("The weights are 2x coarser than the values and aligned (cells 2 x 1/120 deg, origin two value cells "
               "west and north of the value rasters' origin, on a value-cell corner): each value cell lies in one "
               "weights cell, and the weights raster covers the value rasters with two value cells to spare on "
               "each side. ")


# Zones whose vertices lie on cell edges on purpose (their cells are whole).
ON_GRID = ("grid_aligned", "tie")
# How far a vertex within an ulp of a cell edge is moved east / south, in degrees (1/28 of a cell).
NUDGE = 0.0003
# Added to every vertex of those zones, in degrees (about 1/600 and 1/900 of a cell).
SHIFT = (1.37e-5, -0.91e-5)


def off_grid(zones):
    """Every vertex within an ulp of a cell edge moved NUDGE off it, but in ON_GRID zones: exactextract gives
    the cells such an edge or vertex only touches slivers of 1e-25 to 1e-12 coverage from float rounding,
    which its min, max, minority, variety and coverage_weight=none then count as cells (exactly computed,
    they touch the zone in a line or a point, and cover nothing)."""
    x0, dx, _, y0, _, dy = elev_gt()

    def move(c):
        if isinstance(c[0], (int, float)):
            fx, fy = (c[0] - x0) / dx, (c[1] - y0) / dy
            x = c[0] + NUDGE if abs(fx - round(fx)) < 1e-6 else c[0]
            y = c[1] - NUDGE if abs(fy - round(fy)) < 1e-6 else c[1]
            # And every vertex by a little that is no simple fraction of a cell, so that no edge of
            # round-number vertices runs exactly through a cell corner (the same slivers).
            return [round(x + SHIFT[0], 10), round(y + SHIFT[1], 10)]
        return [move(e) for e in c]

    out = []
    for z in zones:
        if z[0] in ON_GRID:
            out.append(z)
            continue
        geom = dict(z[-1])
        geom["coordinates"] = move(geom["coordinates"])
        out.append(tuple(z[:-1]) + (geom,))
    return out


def main():
    f32, cls, wts, wtc = make_rasters()
    ez, sz = off_grid(elev_zones()), off_grid(syn_zones())
    total = 0
    total += oracle_file("elev", ELEV, None, ez, "int16, nodata -32768.")
    # The CLI loses the nodata of a scaled band: for a band with scale/offset it drops its nodata value and
    # reads GDAL's mask band instead, but the mask is not carried into the RasterView that re-grids a read
    # window to a zone's cells, so for most zones nodata cells come through as raw x 0.5 - 10 = -16394
    # (see the README). So it is run on an equivalent copy: the same values as Float64, nodata -16394.
    with tempfile.TemporaryDirectory() as tmp:
        unscaled, nd = unscaled_copy(ELEV_SCALED, tmp)
        total += oracle_file(
            "elev_scaled", ELEV_SCALED, None, ez,
            "int16 with scale 0.5, offset -10: values raw x 0.5 - 10 (doubles), nodata where raw = -32768. Run on an "
            "unscaled Float64 copy (nodata %g), because the CLI drops this file's nodata for most zones. Same grid and "
            "zones as elev.json, so the operations that depend only on the cells (coverage, cell_id, center_x/y, "
            "min/max_center_x/y) are in elev.json only." % nd,
            skip=("coverage", "cell_id", "center_x", "center_y", "min_center_x", "min_center_y",
                  "max_center_x", "max_center_y"),
            cli_raster=unscaled,
            command_note=("; v:unscaled.tif[1] is gdal_translate -unscale -ot Float64 -a_nodata %g "
                          "raster/elev_scaled.cog.tif unscaled.tif" % nd))
    total += oracle_file("float32", f32, None, sz, "float32, nodata -9999 and 6 NaN cells.")
    total += oracle_file("float32_weighted", f32, wts, sz, "float32, weights weights_float32.tif. " + WEIGHTED_NOTE)
    total += oracle_file("classes_uint8", cls, None, sz, "uint8 classes 1, 2, 3, 5, 7, nodata 255.")
    total += oracle_file("classes_uint8_weighted", cls, wts, sz,
                         "uint8 classes, weights weights_float32.tif. " + WEIGHTED_NOTE)
    total += oracle_file("float32_weighted_coarse", f32, wtc, sz,
                         "float32, weights weights_coarse_float32.tif. " + COARSE_NOTE + WEIGHTED_NOTE)
    total += oracle_file("classes_uint8_weighted_coarse", cls, wtc, sz,
                         "uint8 classes, weights weights_coarse_float32.tif. " + COARSE_NOTE + WEIGHTED_NOTE)
    print("total %d rows" % total)


if __name__ == "__main__":
    main()
