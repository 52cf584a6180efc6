#!/usr/bin/env python3
"""Independent oracle for vector zonal statistics (docs/contract.md sections 3-5, "Vector rules").

Dev-only tool, no code shared with the TypeScript service: shapely (GEOS) for the geometry, pyproj's
Geod (geographiclib) for the areas, numpy for the plain statistics, OGR for the .gpkg twins of the real
files. The Parquet files themselves are read with parquet-wasm (the Rust `parquet` crate) + apache-arrow,
run by node from a prefix outside the repo, and WKB is decoded by shapely; GeoParquet 1.1 native (GeoArrow)
columns are rebuilt here from their coordinates (native_geometry, below: no code shared with the service):

    apt-get install -y gdal-bin python3-gdal python3-numpy python3-pyproj python3-shapely
    npm i --prefix /tmp/tools parquet-wasm@0.8.0 apache-arrow@21.2.0    # VECTOR_TOOLS=<prefix> to move it
    /usr/bin/python3 tools/oracle/vector_oracle.py            # every fixtures/cases-vector/*.request.json
    /usr/bin/python3 tools/oracle/vector_oracle.py NAME ...    # only these cases

For each fixtures/cases-vector/<NAME>.request.json
    {"endpoint": "vector", "file": "vector/<file>.parquet", "note": "...",
     "body": {"aoi": ..., "columns": [...], "stats": [...], "weighting_method"?: ..., "geometry_column"?: ...}}
it writes fixtures/cases-vector/<NAME>.expected.json
    {"oracle": "...", "tolerance": {"default": 1e-9, "<stat>": tol, ...},
     "tolerance_reason": {"<stat>": "why"}, "checks": {...}, "response": {"<column>": {...}}}

The rules it implements (contract section 5 and issue 3; choices the contract leaves open are marked *):
- Geometry column: `geometry_column` (case-insensitive), else geo.primary_column, else the first of
  geometry, geom, the_geom, wkb_geometry, shape. CRS from the column's `crs` (PROJJSON), none = OGC:CRS84.
  Only geographic CRSs are handled here; their coordinates are taken as WGS84 lon/lat WITHOUT a datum shift
  (nc.parquet is NAD27: its lon/lat are compared with the AOI as they are; checks.datum_shift says what a
  NAD27 -> WGS84 shift would change). Areas are on the WGS84 ellipsoid in m2 whatever the datum.
- Edges (AOI and features) are straight lines in lon/lat (GeoJSON's reading, and the service's): before a
  geodesic area is taken every edge is cut into at least 64 pieces of at most 0.001 degree, which follow
  the straight lon/lat line to under 1e-8 of any area here. (The 64 matters for small features with slanted
  edges: with the 0.001-degree rule alone a triangle 0.005 degree across was off by 1e-6 of its area, and
  overlap_100k's union by 1.6e-7; checked against the exact line integral of the authalic-latitude area.)
- An AOI ring that goes past +-180 (e.g. 179 -> 181) crosses the antimeridian: it is cut at +-180 and the
  part beyond is shifted by 360 degrees. A circle (Point + radius) is a geodesic circle of 2048 vertices.
- Native (GeoArrow) geometry columns (`encoding` point, linestring, polygon, multipoint, multilinestring,
  multipolygon; coordinates as struct {x, y[, z][, m]} or interleaved [x, y, ...]) are 2D: z and m dropped.
  A null or empty geometry (empty list; a point with x and y NaN) is no feature; empty members (a NaN
  point of a multipoint, an empty linestring, interior ring or polygon) are dropped.
- Invalid feature geometries are repaired with shapely's make_valid (checks.repaired counts them).
- Touch mode (bare point): features that contain or touch the point (shapely `intersects`); plain stats.
- Intersect mode (polygon, circle), polygon features: counted when the intersection with the AOI has a
  polygonal part of area > 0; weight = intersection area (m2, `area`, the default) or intersection area /
  feature area (`ratio`). mean, std (population: divided by the total weight), median and percentiles
  (weighted: the smallest value whose cumulative weight reaches q/100 of the total), majority, minority
  (weighted frequency, ties -> smallest value) and freq_hist (value -> total weight) use the weights; min,
  max, range, unique do not; sum = sum of value * intersection area / feature area in both methods. A
  feature wholly inside the AOI has intersection = feature exactly (ratio 1).
- Intersect mode, point or line features: counted when they intersect the AOI; plain statistics;
  data_area 0.
- * Nulls are ignored column by column, and "counted" is per column: count, density and data_area of a
  column take only the counted features whose value in that column is not null.
- * data_area = area of the UNION of the counted features' intersections with the AOI (overlapping
  features are not summed twice); checks.data_area_summed gives the plain sum where they differ.
- density = count per km2 of aoi_area; null for a bare point; 0 when nothing is counted.
- Nothing counted: count 0, unique [], freq_hist {}, density 0 (null for a bare point), data_area 0, other
  statistics null.

Tolerances are relative: |got - expected| <= tol * max(1, |expected|). freq_hist keys (JavaScript
String(number) form) must match exactly; their values (counts, or weights in intersect mode) compare with
tolerance["freq_hist"] when given, else exactly. unique elements compare with the default tolerance.
"""
import json
import math
import os
import subprocess
import sys
import warnings
from decimal import Decimal

try:
    import numpy as np
    import pyproj
    import shapely
    from osgeo import gdal, ogr
    from shapely import wkb as shapely_wkb
    from shapely.affinity import translate
    from shapely.geometry import LineString, MultiLineString, MultiPoint, MultiPolygon, Point, Polygon, box
    from shapely.ops import unary_union
    from shapely.validation import explain_validity, make_valid
except ImportError:  # e.g. a pyenv python3 first on PATH: re-run under Debian's interpreter
    if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    raise

ogr.UseExceptions()
warnings.filterwarnings("ignore", message="Best transformation is not available")

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FIXTURES = os.path.join(ROOT, "fixtures")
CASES = os.path.join(FIXTURES, "cases-vector")
SHARED = os.environ.get("ZONAL_SHARED_DATA", os.path.join(ROOT, "..", "shared", "data"))
TOOLS = os.path.abspath(os.environ.get("VECTOR_TOOLS", "/tmp/tools"))

GEOD = pyproj.Geod(ellps="WGS84")
CIRCLE_VERTICES = 2048
COARSE_CIRCLE_VERTICES = 96  # inscribed: area 0.07 % short of the true circle, inside the contract's 0.1 %
SEGMENTIZE_DEG = 0.001
AOI_MIN_PIECES = 64
FEATURE_MIN_PIECES = 64  # small features with slanted edges need it (see the docstring)
GEOMETRY_FALLBACK = ["geometry", "geom", "the_geom", "wkb_geometry", "shape"]
DEFAULT_STATS = ["min", "max", "mean", "count"]
AMBIGUITY = 1e-9  # weighted quantile / majority decisions closer than this (relative) are refused
POLY_TOL = 1e-7
AREA_EPS = 1e-9  # per-feature relative area error another faithful implementation may have


def _versions():
    def npm_version(pkg):
        try:
            with open(os.path.join(TOOLS, "node_modules", pkg, "package.json")) as fh:
                return json.load(fh)["version"]
        except OSError:
            return "?"
    return "shapely %s (GEOS %s) + pyproj %s + numpy %s + GDAL %s + parquet-wasm %s/apache-arrow %s" % (
        shapely.__version__, shapely.geos.geos_version_string.split("-")[0], pyproj.__version__,
        np.__version__, gdal.__version__, npm_version("parquet-wasm"), npm_version("apache-arrow"))


ORACLE = _versions()


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


def sig(x, digits=3):
    return float("%.*g" % (digits, x))


def sig_up(x):
    """x rounded UP to one significant digit."""
    if x <= 0:
        return 0.0
    e = math.floor(math.log10(x))
    return float("%.0e" % (math.ceil(x / 10 ** e - 1e-12) * 10 ** e))


# ----------------------------------------------------------------------------- reading Parquet

_NODE_DUMP = r"""
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
const req = createRequire(process.env.VECTOR_TOOLS + '/node_modules/noop.js');
const A = req('apache-arrow');
const pw = req('parquet-wasm');
const t = A.tableFromIPC(pw.readParquet(new Uint8Array(readFileSync(process.argv[1]))).intoIPCStream());
const fields = t.schema.fields.map((f) => ({
  name: f.name, type: String(f.type), kind: A.Type[f.type.typeId],
  numeric: A.DataType.isInt(f.type) || A.DataType.isFloat(f.type) || A.DataType.isDecimal(f.type),
  scale: A.DataType.isDecimal(f.type) ? f.type.scale : null,
}));
// GeoArrow columns: lists (also fixed-size) of lists of structs, as plain JSON; NaN as the string "NaN"
const nested = (t) => A.DataType.isList(t) || A.DataType.isFixedSizeList(t) || A.DataType.isStruct(t);
const plain = (x) => {
  if (x === null || x === undefined) return null;
  if (typeof x === 'number') return Number.isFinite(x) ? x : String(x);
  if (x instanceof A.Vector || ArrayBuffer.isView(x) || Array.isArray(x)) return Array.from(x, plain);
  if (typeof x === 'object') return Object.fromEntries(Object.entries(x.toJSON()).map(([k, v]) => [k, plain(v)]));
  return x;
};
const hex = (u) => Buffer.from(u.buffer, u.byteOffset, u.byteLength).toString('hex');
const columns = {};
for (const f of t.schema.fields) {
  const v = t.getChild(f.name);
  const out = new Array(t.numRows);
  for (let i = 0; i < t.numRows; i++) {
    const x = v.get(i);
    if (x === null || x === undefined) out[i] = null;
    else if (A.DataType.isDecimal(f.type)) out[i] = x.toString();
    else if (typeof x === 'bigint') out[i] = x.toString();
    else if (x instanceof Uint8Array) out[i] = hex(x);
    else if (typeof x === 'number' && !Number.isFinite(x)) out[i] = String(x);
    else if (nested(f.type)) out[i] = plain(x);
    else if (typeof x === 'object') out[i] = x.toJSON();
    else out[i] = x;
  }
  columns[f.name] = out;
}
process.stdout.write(JSON.stringify({ metadata: Object.fromEntries(t.schema.metadata), fields, rows: t.numRows, columns }));
"""

_datasets = {}


def read_parquet(path):
    """-> {"metadata": {key: value}, "fields": [...], "rows": n, "columns": {name: [values]}} via parquet-wasm."""
    env = dict(os.environ, VECTOR_TOOLS=TOOLS)
    try:
        out = subprocess.run(["node", "--input-type=module", "-e", _NODE_DUMP, path], env=env, check=True,
                             capture_output=True, text=True).stdout
    except subprocess.CalledProcessError as e:
        raise RuntimeError("reading %s with parquet-wasm failed (npm i --prefix %s parquet-wasm@0.8.0 "
                           "apache-arrow@21.2.0?): %s" % (path, TOOLS, e.stderr.strip()[-400:]))
    return json.loads(out)


def numeric_value(raw, field):
    if raw is None:
        return None
    if field["scale"] is not None:  # decimal: the unscaled integer as text, correctly rounded to float64
        return float(Decimal(raw).scaleb(-field["scale"]))
    if isinstance(raw, str):
        if raw in ("NaN", "Infinity", "-Infinity"):
            raise ValueError("NaN/Infinity values are not handled by this oracle")
        return float(int(raw))  # int64/uint64 as text: exact integer, then correctly rounded
    return float(raw)


class Dataset:
    def __init__(self, rel):
        self.rel = rel
        self.path = os.path.join(FIXTURES, rel)
        d = read_parquet(self.path)
        self.raw = d
        self.rows = d["rows"]
        self.fields = {f["name"]: f for f in d["fields"]}
        self.geo = json.loads(d["metadata"]["geo"]) if "geo" in d["metadata"] else None
        self._geoms = {}

    def geometry_column(self, requested):
        names = list(self.fields)
        if requested is not None:
            for n in names:
                if n.lower() == requested.lower():
                    return n
            raise ValueError("geometry column %s not in the file (the service answers 422)" % requested)
        if self.geo and self.geo.get("primary_column") in self.fields:
            return self.geo["primary_column"]
        lower = {n.lower(): n for n in names}
        for cand in GEOMETRY_FALLBACK:
            if cand in lower:
                return lower[cand]
        raise ValueError("no geometry column")

    def crs(self, gcol):
        meta = (self.geo or {}).get("columns", {}).get(gcol, {})
        if "crs" not in meta:
            return "OGC:CRS84", None
        crs = meta["crs"]
        if crs is None:
            raise ValueError("crs null (unknown CRS) is not handled")
        c = pyproj.CRS.from_json_dict(crs) if isinstance(crs, dict) else pyproj.CRS.from_user_input(crs)
        if not c.is_geographic:
            raise ValueError("projected CRS %s is not handled by this oracle" % c.name)
        return c.name + ("" if c.to_epsg() is None else " (EPSG:%d)" % c.to_epsg()), c

    def encoding(self, gcol):
        meta = (self.geo or {}).get("columns", {}).get(gcol, {})
        return meta.get("encoding", "WKB")

    def geometries(self, gcol):
        """-> (list of shapely geometries (repaired), number repaired, repair reasons)."""
        if gcol not in self._geoms:
            geoms, repaired, reasons = [], 0, []
            enc = self.encoding(gcol)
            native = enc.lower() in NATIVE_ENCODINGS
            if not native and enc.upper() != "WKB":
                raise ValueError("encoding %s is not handled" % enc)
            for h in self.raw["columns"][gcol]:
                g = native_geometry(h, enc) if native else None if h is None else shapely_wkb.loads(bytes.fromhex(h))
                if g is None:
                    geoms.append(None)
                    continue
                if not g.is_valid:
                    repaired += 1
                    reasons.append(explain_validity(g))
                    g = make_valid(g)
                geoms.append(g)
            self._geoms[gcol] = (geoms, repaired, reasons)
        return self._geoms[gcol]

    def column(self, requested):
        """-> (file's spelling, field) for a requested column (case-insensitive)."""
        for n, f in self.fields.items():
            if n.lower() == requested.lower():
                return n, f
        raise ValueError("column %s not in the file (the service answers 422)" % requested)

    def values(self, name):
        f = self.fields[name]
        return [numeric_value(v, f) for v in self.raw["columns"][name]]


NATIVE_ENCODINGS = ("point", "linestring", "polygon", "multipoint", "multilinestring", "multipolygon")


def _xy(c):
    """A GeoArrow coordinate, struct {x, y[, z][, m]} or interleaved [x, y[, z[, m]]], -> (x, y)."""
    if isinstance(c, dict):
        x, y = c["x"], c["y"]
    elif isinstance(c, list) and 2 <= len(c) <= 4:
        x, y = c[0], c[1]
    else:
        raise ValueError("not a GeoArrow coordinate: %r" % (c,))
    return float(x), float(y)  # float("NaN") for the dump's "NaN"


def _empty_xy(p):
    return math.isnan(p[0]) and math.isnan(p[1])


def _native_polygon(rings):
    rings = [[_xy(c) for c in r] for r in rings]
    if not rings or not rings[0]:
        if any(rings):
            raise ValueError("polygon with an empty exterior ring and a non-empty hole")
        return None
    return Polygon(rings[0], [r for r in rings[1:] if r])


def native_geometry(v, encoding):
    """One row of a GeoArrow column (nested lists / dicts from the parquet-wasm dump) -> 2D shapely geometry
    or None (null or empty)."""
    if v is None:
        return None
    enc = encoding.lower()
    if enc == "point":
        p = _xy(v)
        return None if _empty_xy(p) else Point(p)
    if enc == "linestring":
        return LineString([_xy(c) for c in v]) if v else None
    if enc == "polygon":
        return _native_polygon(v)
    if enc == "multipoint":
        pts = [p for p in (_xy(c) for c in v) if not _empty_xy(p)]
        return MultiPoint(pts) if pts else None
    if enc == "multilinestring":
        lines = [[_xy(c) for c in line] for line in v if line]
        return MultiLineString(lines) if lines else None
    if enc == "multipolygon":
        polys = [p for p in (_native_polygon(rings) for rings in v) if p is not None]
        return MultiPolygon(polys) if polys else None
    raise ValueError("encoding %s" % encoding)


def dataset(rel):
    if rel not in _datasets:
        _datasets[rel] = Dataset(rel)
    return _datasets[rel]


def gpkg_twin_check(ds, gcol):
    """For a real file with a .gpkg twin in the shared data: do values and coordinates agree?"""
    base = os.path.splitext(os.path.basename(ds.rel))[0]
    path = os.path.join(SHARED, base + ".gpkg")
    if not os.path.exists(path):
        return None
    src = ogr.Open(path)
    lyr = src.GetLayer(0)
    geoms, _, _ = ds.geometries(gcol)
    max_diff = 0.0
    value_mismatch = 0
    n = 0
    for i, f in enumerate(lyr):
        n += 1
        g = shapely_wkb.loads(bytes(f.GetGeometryRef().ExportToIsoWkb()))
        a = _coords(g)
        b = _coords(geoms[i])
        if a.shape != b.shape:
            max_diff = float("inf")
        elif a.size:
            max_diff = max(max_diff, float(np.max(np.abs(a - b))))
        for name, fld in ds.fields.items():
            if name == gcol or not fld["numeric"]:
                continue
            v = ds.raw["columns"][name][i]
            v = None if v is None else numeric_value(v, fld)
            w = f.GetField(name) if f.GetFieldIndex(name) >= 0 else None
            if not ((v is None and w is None) or (v is not None and w is not None and float(w) == v)):
                value_mismatch += 1
    return {"file": os.path.basename(path), "features": n, "numeric_values_equal": value_mismatch == 0 and n == ds.rows,
            "max_coordinate_difference_deg": max_diff}


def _coords(g):
    pts = []
    for p in getattr(g, "geoms", [g]):
        if p.geom_type == "Polygon":
            pts.extend(p.exterior.coords)
            for r in p.interiors:
                pts.extend(r.coords)
        else:
            pts.extend(p.coords)
    return np.array(pts, dtype=float).reshape(-1, 2)


# ----------------------------------------------------------------------------- geometry

def circle_ring(lon, lat, radius, n=CIRCLE_VERTICES, scale=1.0):
    az = np.arange(n) * (360.0 / n)
    lons, lats, _ = GEOD.fwd(np.full(n, lon), np.full(n, lat), az, np.full(n, float(radius) * scale))
    ring = [[float(a), float(b)] for a, b in zip(lons, lats)]
    ring.append(ring[0])
    return ring


def aoi_parts(aoi, circle_vertices=CIRCLE_VERTICES, circle_scale=1.0):
    """-> ("point", Point) or ("area", MultiPolygon in [-180, 180], raw polygon as given, crossing: bool)."""
    t = aoi["type"]
    if t == "Point":
        lon, lat = aoi["coordinates"][:2]
        r = aoi.get("radius", 0) or 0
        if r == 0:
            return "point", Point(float(lon), float(lat)), None, False
        polys = [[circle_ring(lon, lat, r, circle_vertices, circle_scale)]]
    elif t == "Polygon":
        polys = [aoi["coordinates"]]
    elif t == "MultiPolygon":
        polys = list(aoi["coordinates"])
    else:
        raise ValueError("unsupported AOI type %s" % t)
    raw = MultiPolygon([Polygon(p[0], p[1:]) for p in polys])
    if not raw.is_valid:
        raise ValueError("AOI is not valid: %s" % explain_validity(raw))
    parts = []
    crossing = False
    for lo, hi, shift in ((-180, 180, 0), (180, 540, -360), (-540, -180, 360)):
        piece = raw.intersection(box(lo, -90, hi, 90))
        piece = polygonal(piece)
        if piece.is_empty:
            continue
        if shift:
            crossing = True
            piece = translate(piece, xoff=shift)
        parts.append(piece)
    return "area", polygonal(unary_union(parts)), raw, crossing


def polygonal(g):
    """The polygonal part of a geometry as a MultiPolygon (possibly empty)."""
    if g is None or g.is_empty:
        return MultiPolygon()
    if g.geom_type == "Polygon":
        return MultiPolygon([g])
    if g.geom_type == "MultiPolygon":
        return g
    if g.geom_type == "GeometryCollection":
        polys = []
        for p in g.geoms:
            pp = polygonal(p)
            polys.extend(pp.geoms)
        return MultiPolygon(polys) if polys else MultiPolygon()
    return MultiPolygon()


def _densify_ring(coords, min_pieces):
    c = np.asarray(coords, dtype=float)[:, :2]
    if len(c) < 2:
        return c[:, 0], c[:, 1]
    a, b = c[:-1], c[1:]
    d = np.max(np.abs(b - a), axis=1)
    n = np.maximum(min_pieces, np.ceil(d / SEGMENTIZE_DEG).astype(np.int64))
    idx = np.repeat(np.arange(len(a)), n)
    k = np.concatenate([np.arange(m) for m in n]) / np.repeat(n, n)
    pts = a[idx] + (b[idx] - a[idx]) * k[:, None]
    pts = np.vstack([pts, c[-1:]])
    return pts[:, 0], pts[:, 1]


def area_m2(g, min_pieces=FEATURE_MIN_PIECES):
    """Ellipsoidal area (m2) of a lon/lat (multi)polygon whose edges are straight in lon/lat."""
    total = 0.0
    for p in polygonal(g).geoms:
        lon, lat = _densify_ring(p.exterior.coords, min_pieces)
        total += abs(GEOD.polygon_area_perimeter(lon, lat)[0])
        for r in p.interiors:
            lon, lat = _densify_ring(r.coords, min_pieces)
            total -= abs(GEOD.polygon_area_perimeter(lon, lat)[0])
    return total


def area_geodesic_edges(g):
    """Area with every edge read as a geodesic between its vertices (for information only)."""
    total = 0.0
    for p in polygonal(g).geoms:
        c = np.asarray(p.exterior.coords)
        total += abs(GEOD.polygon_area_perimeter(c[:, 0], c[:, 1])[0])
        for r in p.interiors:
            c = np.asarray(r.coords)
            total -= abs(GEOD.polygon_area_perimeter(c[:, 0], c[:, 1])[0])
    return total


def dims(g):
    """2 for polygonal, 1 lines, 0 points."""
    t = g.geom_type
    if "Polygon" in t:
        return 2
    if "Line" in t:
        return 1
    if "Point" in t:
        return 0
    return max(dims(p) for p in g.geoms)


# ----------------------------------------------------------------------------- statistics

def plain_stats(values, stats):
    out = {}
    v = np.array(values, dtype=float)
    n = int(v.size)
    if n:
        u, counts = np.unique(v, return_counts=True)
    for s in stats:
        if s == "count":
            out[s] = n
        elif s == "density":
            out[s] = None  # filled in by the caller
        elif s == "unique":
            out[s] = [num(x) for x in u] if n else []
        elif s == "freq_hist":
            out[s] = {js_string(x): int(c) for x, c in zip(u, counts)} if n else {}
        elif n == 0:
            out[s] = None
        elif s == "min":
            out[s] = num(v.min())
        elif s == "max":
            out[s] = num(v.max())
        elif s == "range":
            out[s] = num(v.max() - v.min())
        elif s == "mean":
            out[s] = num(math.fsum(v) / n)
        elif s == "sum":
            out[s] = num(math.fsum(v))
        elif s == "std":
            m = math.fsum(v) / n
            out[s] = num(math.sqrt(math.fsum((v - m) ** 2) / n))
        elif s == "median":
            out[s] = num(np.median(v))
        elif s.startswith("percentile_"):
            out[s] = num(np.percentile(v, float(s[len("percentile_"):])))
        elif s == "majority":
            out[s] = num(u[int(np.argmax(counts))])  # first = smallest value on ties
        elif s == "minority":
            out[s] = num(u[int(np.argmin(counts))])
        else:
            raise ValueError("statistic %s is not a vector statistic" % s)
    return out


def weighted_stats(values, weights, shares, stats, margins, sens):
    """values, weights (area or ratio), shares (intersection / feature area) of the counted features.

    `margins` gets how far each weighted decision (quantile, majority) is from flipping; `sens` the absolute
    change of mean / std / sum that per-feature area errors of AREA_EPS (relative) could cause."""
    out = {}
    v = np.array(values, dtype=float)
    w = np.array(weights, dtype=float)
    n = int(v.size)
    if n:
        u, inv = np.unique(v, return_inverse=True)
        wu = np.zeros(len(u))
        for i, k in enumerate(inv):
            wu[k] += w[i]
        total = math.fsum(w)
        cum = np.cumsum(wu)
        cum[-1] = total
    for s in stats:
        if s == "count":
            out[s] = n
        elif s == "density":
            out[s] = None
        elif s == "unique":
            out[s] = [num(x) for x in u] if n else []
        elif s == "freq_hist":
            out[s] = {js_string(x): num(c) for x, c in zip(u, wu)} if n else {}
        elif n == 0:
            out[s] = None
        elif s == "min":
            out[s] = num(v.min())
        elif s == "max":
            out[s] = num(v.max())
        elif s == "range":
            out[s] = num(v.max() - v.min())
        elif s == "mean":
            m = math.fsum(w * v) / total
            out[s] = num(m)
            # |d mean| when every weight is off by a relative AREA_EPS: sum w |v - mean| / W
            sens[s] = AREA_EPS * math.fsum(w * np.abs(v - m)) / total
        elif s == "sum":
            sh = np.array(shares, dtype=float)
            out[s] = num(math.fsum(v * sh))
            sens[s] = 2 * AREA_EPS * math.fsum(np.abs(v) * sh)  # a share is a ratio of two areas
        elif s == "std":
            m = math.fsum(w * v) / total
            var = max(0.0, math.fsum(w * (v - m) ** 2) / total)
            out[s] = num(math.sqrt(var))
            dvar = AREA_EPS * math.fsum(w * np.abs((v - m) ** 2 - var)) / total
            sens[s] = dvar / (2 * math.sqrt(var)) if var > 0 else 0.0
        elif s == "median" or s.startswith("percentile_"):
            q = 50.0 if s == "median" else float(s[len("percentile_"):])
            target = q / 100.0 * total
            idx = int(np.argmax(cum >= target)) if q < 100 else len(u) - 1
            out[s] = num(u[idx])
            inner = cum[:-1]
            if inner.size:
                margins[s] = sig(float(np.min(np.abs(inner - target))) / total)
                if margins[s] < AMBIGUITY:
                    raise ValueError("%s: the cumulative weight is within %.2g of q/100 of the total" % (s, margins[s]))
        elif s in ("majority", "minority"):
            pick = np.argmax(wu) if s == "majority" else np.argmin(wu)
            best = wu[pick]
            # ties -> smallest value: argmax/argmin return the first (smallest) value; refuse near-ties
            others = np.delete(wu, pick)
            if others.size:
                gap = float(np.min(np.abs(others - best))) / max(best, 1e-300)
                margins[s] = sig(gap)
                if 0 < gap < 1e-6:
                    raise ValueError("%s: two weights within %.2g of each other" % (s, gap))
                if gap == 0 and np.flatnonzero(wu == best)[0] != pick:
                    raise ValueError("%s: tie handling" % s)
            out[s] = num(u[pick])
        else:
            raise ValueError("statistic %s is not a vector statistic" % s)
    return out


def empty_stats(stats, point):
    out = plain_stats([], stats)
    if "density" in out:
        out["density"] = None if point else 0
    return out


# ----------------------------------------------------------------------------- the case

def evaluate(ds, body, circle_vertices=CIRCLE_VERTICES, circle_scale=1.0, shift=None):
    """-> (response, info) for one request body; `shift` moves every feature (datum-shift check)."""
    stats = body.get("stats", DEFAULT_STATS)
    method = body.get("weighting_method", "area")
    gcol = ds.geometry_column(body.get("geometry_column"))
    geoms, repaired, reasons = ds.geometries(gcol)
    if shift is not None:
        geoms = [None if g is None else shapely.ops.transform(shift, g) for g in geoms]
    cols = []
    for c in body["columns"]:
        name, fld = ds.column(c)
        if not fld["numeric"]:
            continue  # text, binary, boolean, nested: skipped silently
        if name not in [n for n, _ in cols]:
            cols.append((name, fld))
    if not cols:
        raise ValueError("no numeric column (the service answers 422)")
    kind, aoi, raw, crossing = aoi_parts(body["aoi"], circle_vertices, circle_scale)
    info = {"geometry_column": gcol, "repaired": repaired, "repair_reasons": reasons, "crossing": crossing}
    point = kind == "point"
    counted = []  # (row, weight, share, intersection geometry or None)
    if point:
        aoi_area = 0.0
        for i, g in enumerate(geoms):
            if g is not None and g.intersects(aoi):
                counted.append((i, 1.0, 1.0, None, "touches" if g.touches(aoi) else "inside"))
        data_dims = max((dims(g) for g in geoms if g is not None), default=2)
    else:
        aoi_area = area_m2(raw, AOI_MIN_PIECES)
        split_area = area_m2(aoi, AOI_MIN_PIECES)
        if abs(split_area - aoi_area) > 1e-9 * aoi_area:
            raise ValueError("AOI area changes when cut at the antimeridian: %r vs %r" % (aoi_area, split_area))
        info["aoi_area_geodesic_edges"] = area_geodesic_edges(raw)
        minx, miny, maxx, maxy = aoi.bounds
        data_dims = max((dims(g) for g in geoms if g is not None), default=2)
        for i, g in enumerate(geoms):
            if g is None:
                continue
            gx0, gy0, gx1, gy1 = g.bounds
            if gx1 < minx or gx0 > maxx or gy1 < miny or gy0 > maxy:
                continue
            if dims(g) < 2:
                if g.intersects(aoi):
                    counted.append((i, 1.0, 1.0, None, "intersects"))
                    if dims(g) == 0:  # a point this close to an edge would make the case fragile
                        d = g.distance(aoi.boundary)
                        key = "min_counted_point_to_aoi_edge_deg"
                        info[key] = min(info.get(key, d), d)
                else:
                    d = g.distance(aoi)
                    key = "min_uncounted_feature_to_aoi_deg"
                    info[key] = min(info.get(key, d), d)
                continue
            if aoi.contains(g):
                inter = polygonal(g)
                fa = area_m2(g)
                counted.append((i, fa if method == "area" else 1.0, 1.0, inter, fa, fa))
                continue
            inter = polygonal(g.intersection(aoi))
            if inter.is_empty or inter.area <= 0:
                continue
            ia = area_m2(inter)
            fa = area_m2(g)
            counted.append((i, ia if method == "area" else ia / fa, ia / fa, inter, ia, fa))
    info["counted_rows"] = [c[0] for c in counted]
    info["point_data"] = data_dims < 2
    response = {}
    margins = {}
    sensitivity = {}
    unions = {}
    for name, fld in cols:
        vals = ds.values(name)
        sel = [c for c in counted if vals[c[0]] is not None]
        if not sel:
            out = empty_stats(stats, point)
            data_area = 0.0
        elif point or data_dims < 2:
            out = plain_stats([vals[c[0]] for c in sel], stats)
            data_area = 0.0
            if "density" in out:
                out["density"] = None if point else num(len(sel) / (aoi_area / 1e6))
        else:
            m, sens = {}, {}
            out = weighted_stats([vals[c[0]] for c in sel], [c[1] for c in sel], [c[2] for c in sel], stats, m, sens)
            for k, x in m.items():
                margins[k] = min(margins.get(k, x), x)
            for k, x in sens.items():
                rel = x / max(1.0, abs(out[k]))
                sensitivity[k] = max(sensitivity.get(k, 0.0), rel)
            rows = tuple(c[0] for c in sel)  # columns counting the same rows share one union (same result)
            if rows not in unions:
                unions[rows] = area_m2(unary_union([c[3] for c in sel]))
            data_area = unions[rows]
            summed = math.fsum(c[4] for c in sel)
            if abs(summed - data_area) > 1e-9 * summed:
                info.setdefault("data_area_summed", {})[name] = summed
            if "density" in out:
                out["density"] = num(len(sel) / (aoi_area / 1e6))
        out["aoi_area"] = num(aoi_area)
        out["data_area"] = num(data_area)
        response[name] = out
    info["margins"] = margins
    info["sensitivity"] = sensitivity
    info["counted"] = counted
    return response, info


def rel_diff(a, b):
    if a is None or b is None:
        return 0.0 if a is b else float("inf")
    if isinstance(a, dict):
        if set(a) != set(b):
            return float("inf")
        return max([rel_diff(a[k], b[k]) for k in a] or [0.0])
    if isinstance(a, list):
        if len(a) != len(b):
            return float("inf")
        return max([rel_diff(x, y) for x, y in zip(a, b)] or [0.0])
    return abs(a - b) / max(1.0, abs(a))


CONTINUOUS = ("mean", "std", "sum", "density", "aoi_area", "data_area", "freq_hist")


def run_case(req):
    if req.get("endpoint") != "vector":
        raise ValueError("only vector cases are handled")
    ds = dataset(req["file"])
    body = req["body"]
    response, info = evaluate(ds, body)
    gcol = info["geometry_column"]
    crs_name, crs = ds.crs(gcol)
    kind = "point" if body["aoi"]["type"] == "Point" and not body["aoi"].get("radius") else "area"
    checks = {
        "geometry_column": gcol,
        "crs": crs_name,
        "features_in_file": ds.rows,
        "features_counted": len(info["counted"]),
        "repaired_with_make_valid": info["repaired"],
    }
    if info["repair_reasons"]:
        checks["repair_reasons"] = sorted(set(info["repair_reasons"]))[:10]
    if info["crossing"]:
        checks["aoi_crosses_antimeridian"] = True
    label_col = next((n for n in ("NAME", "name_long", "name", "label", "id", "k", "c") if n in ds.fields), None)
    rows = []
    for c in info["counted"][:60]:
        row = {"row": c[0]}
        if label_col:
            row[label_col] = ds.raw["columns"][label_col][c[0]]
        if kind == "point" or info["point_data"]:
            row["how"] = c[4]
        else:
            row["intersection_m2"] = c[4]
            row["feature_m2"] = c[5]
            row["ratio"] = c[2]
        rows.append(row)
    checks["counted"] = rows
    if info["margins"]:
        checks["weighted_decision_margins"] = info["margins"]
    for key in ("min_counted_point_to_aoi_edge_deg", "min_uncounted_feature_to_aoi_deg"):
        if key in info:
            checks[key] = sig(info[key])
            if info[key] < 1e-6:
                raise ValueError("%s = %g: too close to call" % (key, info[key]))
    if "data_area_summed" in info:
        checks["data_area_summed"] = info["data_area_summed"]
        checks["data_area_note"] = "features overlap: data_area is the area of the union, data_area_summed the plain sum"
    if kind == "area":
        checks["aoi_area_geodesic_edges"] = info["aoi_area_geodesic_edges"]
    twin = gpkg_twin_check(ds, gcol)
    if twin:
        checks["gpkg_twin"] = twin

    tolerance = {"default": 1e-9}
    reasons = {}
    circle = body["aoi"]["type"] == "Point" and bool(body["aoi"].get("radius"))
    polygon_data = not info["point_data"]
    if kind == "area":
        for s in CONTINUOUS:
            tolerance[s] = POLY_TOL
        reasons["aoi_area"] = (
            "areas are ellipsoidal (WGS84) areas of regions whose edges are straight lines in lon/lat: every edge "
            "is cut into >= 64 pieces of <= 0.001 degree and the geodesic area of that "
            "outline taken (pyproj Geod); the pieces follow the straight line to < 1e-8 of the area (checked "
            "against the closed formula on squares.parquet); 1e-7 leaves room for any other faithful method. "
            "checks.aoi_area_geodesic_edges is the other reading of the edges (geodesics), for information")
        if polygon_data:
            reasons["freq_hist"] = reasons["data_area"] = (
                "computed from intersection and feature areas, each with the accuracy of aoi_area")
            reasons["mean"] = reasons["std"] = reasons["sum"] = (
                "computed from intersection and feature areas, each with the accuracy of aoi_area; where values of "
                "very different size nearly cancel, widened to admit per-feature area errors of %g (relative), "
                "twice the change that would cause (checks.area_error_sensitivity)" % AREA_EPS)
            for k, x in info["sensitivity"].items():
                if x > 0:
                    checks.setdefault("area_error_sensitivity", {})[k] = sig(x)
                    tolerance[k] = max(tolerance[k], sig_up(2 * x))
        reasons["density"] = "count / (aoi_area / 1e6): as aoi_area"
    if circle:
        lon, lat = body["aoi"]["coordinates"][:2]
        alts = {}
        for label, n, scale in (("inscribed_%d" % COARSE_CIRCLE_VERTICES, COARSE_CIRCLE_VERTICES, 1.0),
                                ("circumscribed_%d" % COARSE_CIRCLE_VERTICES, COARSE_CIRCLE_VERTICES,
                                 1.0 / math.cos(math.pi / COARSE_CIRCLE_VERTICES))):
            alt, alt_info = evaluate(ds, body, n, scale)
            if [c[0] for c in alt_info["counted"]] != info["counted_rows"]:
                raise ValueError("a %s-vertex circle counts other features: move the circle" % label)
            alts[label] = alt
        diffs = {}
        for col, out in response.items():
            for s, val in out.items():
                d = max(rel_diff(val, alt[col][s]) for alt in alts.values())
                diffs[s] = max(diffs.get(s, 0.0), d)
        for s, d in diffs.items():
            if s in CONTINUOUS:
                tolerance[s] = max(POLY_TOL, sig(1.5 * d, 1) if d > 0 else 0.0)
                if s == "aoi_area" or s == "density":
                    tolerance[s] = max(tolerance[s], 1e-3)
            elif d > 1e-12:
                raise ValueError("%s changes with the circle's vertex count (%g): move the circle" % (s, d))
        checks["circle_polygonization_rel_diff"] = {s: sig(d) for s, d in diffs.items() if d > 0}
        reasons["aoi_area"] = (
            "circle: the oracle draws the geodesic circle with %d vertices; the service may use fewer (the contract "
            "section 3 asks for 0.1 %% of the true circle's area), so aoi_area and density get 1e-3" % CIRCLE_VERTICES)
        reasons["density"] = "count / (aoi_area / 1e6): as aoi_area"
        for s in ("mean", "std", "sum", "data_area", "freq_hist"):
            if s in tolerance:
                reasons[s] = ("1.5 x the largest change seen when the circle is drawn with %d vertices on the circle or "
                              "%d vertices around it (checks.circle_polygonization_rel_diff); the counted features, "
                              "min, max, median, percentiles, majority, minority and unique do not change"
                              % (COARSE_CIRCLE_VERTICES, COARSE_CIRCLE_VERTICES))
    if crs is not None and crs.to_epsg() != 4326 and crs.name != "WGS 84":
        checks["datum_shift"] = datum_shift_check(ds, body, crs, response, info["counted_rows"])
        reasons["datum"] = (
            "the file's %s lon/lat are compared with the AOI as they are (no datum shift); checks.datum_shift says "
            "what shifting the features to WGS 84 would change (not admitted by the tolerances)" % crs.name)
    for k in list(tolerance):
        if k != "default" and not any(k in out or k in ("aoi_area", "data_area") for out in response.values()):
            del tolerance[k]
    for k in list(reasons):
        if k not in tolerance and k != "datum":
            del reasons[k]
    return {"oracle": ORACLE, "tolerance": tolerance, "tolerance_reason": reasons, "checks": checks,
            "response": response}


def datum_shift_check(ds, body, crs, response, counted_rows):
    # the first transformation PROJ lists that needs no grid file (NAD27: a Helmert / 3-parameter shift)
    tr = pyproj.transformer.TransformerGroup(crs, "EPSG:4326", always_xy=True).transformers[0]
    alt, alt_info = evaluate(ds, body, shift=lambda x, y, z=None: tr.transform(x, y))
    out = {"transformation": tr.description,
           "same_features_counted": alt_info["counted_rows"] == counted_rows}
    diffs = {}
    for col, o in response.items():
        for s, val in o.items():
            d = rel_diff(val, alt[col][s])
            diffs[s] = sig(max(diffs.get(s, 0.0), d)) if math.isfinite(d) else "differs"
    out["rel_diff_if_shifted"] = {s: d for s, d in diffs.items() if d != 0}
    if not out["same_features_counted"]:
        out["features_counted_if_shifted"] = len(alt_info["counted"])
    return out


def main(argv):
    names = argv[1:]
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
            print("%-34s FAILED: %s: %s" % (name, type(e).__name__, e))
            continue
        with open(os.path.join(CASES, name + ".expected.json"), "w") as fh:
            json.dump(result, fh, indent=2, ensure_ascii=False, allow_nan=False)
            fh.write("\n")
        first_name, first = next(iter(result["response"].items()))
        print("%-34s %s: count=%s mean=%s sum=%s aoi_area=%s data_area=%s" % (
            name, first_name, first.get("count"), first.get("mean"), first.get("sum"), first.get("aoi_area"),
            first.get("data_area")))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
