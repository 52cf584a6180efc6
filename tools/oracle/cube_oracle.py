#!/usr/bin/env python3
"""Independent oracle for `POST /api/v1/zonal-stats/cube`: the expected rows of every case in
fixtures/cube/cases.json.

Dev-only tool (the test suite never runs it); nothing of the TypeScript service is used. Debian's Python:

    apt-get install -y python3-xarray python3-zarr python3-numcodecs python3-netcdf4 python3-h5py \
                       python3-cftime python3-shapely python3-pyproj python3-numpy python3-crcmod python3-fsspec
    /usr/bin/python3 tools/oracle/cube_fixtures.py      # the stores and cases.json (first)
    /usr/bin/python3 tools/oracle/cube_oracle.py        # every case -> fixtures/cube/oracle/<name>.json
    /usr/bin/python3 tools/oracle/cube_oracle.py NAME   # only these cases

How each source is read (raw, packed values; the CF rules are applied here, below):
  - Zarr v2 stores: xarray, `xr.open_zarr(path, consolidated=<.zmetadata exists>, mask_and_scale=False,
    decode_times=False)`. xarray puts a v2 array's fill_value into the `_FillValue` attribute (so a
    fill_value of null means no _FillValue), as it does when it decodes.
  - era5_v3.zarr (Zarr v3, which zarr 2.13 cannot read): decoded HERE with numpy + numcodecs + crcmod
    from the v3.0 core spec (see read_v3_array: chunk key encoding, transpose, bytes endian, blosc, gzip,
    zstd, crc32c, sharding_indexed with its index), then checked to be equal, value for value, to what
    xarray reads from era5.zarr's t2m (the same numbers written as Zarr v2).
  - kerchunk references (*.json): the NetCDF4 file they point at (the reference's url resolved against
    the reference file's own folder) is read with xarray (netCDF4 engine, mask_and_scale=False,
    decode_times=False); every array is also decoded through the references themselves, once here
    (numcodecs, filters in reverse) and once by xarray over fsspec's ReferenceFileSystem, and both must
    equal it.

Semantics (what the service implements; see fixtures/cube/README.md):
  - cells: the grid's two spatial axes; edges half-way between the coordinates (end edges half a step out),
    or the bounds variable's edges when the coordinate has `bounds`. A lon/lat grid's cells are taken at
    lon, lon - 360 and lon + 360, so a zone in -180..180 meets a 0..360 grid on both sides of 0.
  - fractional: c = area(zone ∩ cell) / area(cell) with shapely, in the grid's CRS coordinates (plane
    degrees on lon/lat grids; metres on the projected grid, the zone projected with pyproj after its
    edges were densified to steps of at most DENSIFY_DEG degrees). count = Σc over valid cells, sum =
    Σ c·v, mean = sum / count, min / max over valid cells with c > 0.
  - center: c = 1 for the cells whose centre is inside the zone (no centre is allowed within 1e-9 cell of
    a zone's edge: the case would be ambiguous), else 0.
  - coverage_weight "area_spherical_m2": w = c · R²·(π/180)·|sin φ1 − sin φ2|·|Δλ| (R = 6378137) from the
    cell's edges, and count = Σ w, sum = Σ w·v, mean = Σ w·v / Σ w (exactextract's coverage weights).
  - a cell's centre (the centre rule): its coordinates, or the middle of its bounds where the axis has bounds.
  - valid: not NaN, raw != _FillValue and != missing_value (compared in the variable's dtype), and within
    valid_min / valid_max / valid_range (packed units); then v = raw·scale_factor + add_offset (float64).
  - a zone/step with no valid cell: count 0, sum / mean / min / max null.
  - time coordinates: cftime.num2date(units, calendar); standard / gregorian / proleptic_gregorian as
    YYYY-MM-DDTHH:MM:SSZ, other calendars as the calendar's own date without Z. Other dims as numbers.
  - sel: {"start", "end"} inclusive (a date-only end takes its whole day, a date-only start its
    midnight), a list of values (rows in axis order), or one value (pins the dim: not in coords).
    A dim absent from sel is iterated whole.
  - rows: zone by zone in input order, each zone's steps in axis order (the variable's dims order).

Output fixtures/cube/oracle/<name>.json:
  {"oracle": "...", "case": name, "rows": [{"zone": i, "coords": {...}, "stats": {...}}], "checks": {...}}
Sums are exactly rounded (math.fsum).
"""
import base64
import itertools
import ast
import json
import math
import os
import re
import struct
import sys

try:
    import cftime
    import crcmod.predefined
    import fsspec
    import numcodecs
    import numpy as np
    import pyproj
    import shapely
    import shapely.affinity
    import shapely.geometry
    import xarray as xr
    from numcodecs import Blosc, GZip, Zstd
    from shapely.geometry import Point, box, shape
    from shapely.ops import transform as shp_transform
except ImportError:  # a pyenv python3 first on PATH: re-run under Debian's interpreter
    if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3", *sys.argv])
    raise

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CUBE = os.path.join(ROOT, "fixtures", "cube")
OUT = os.path.join(CUBE, "oracle")

R_SPHERE = 6378137.0
DENSIFY_DEG = 0.002
STANDARD_CALENDARS = {"standard", "gregorian", "proleptic_gregorian"}
ORACLE = "xarray %s + zarr + numcodecs %s + netCDF4/h5py + cftime %s + shapely %s + pyproj %s + numpy %s" % (
    xr.__version__ if xr.__version__ != "999" else "2023.01 (Debian)", numcodecs.__version__, cftime.__version__,
    shapely.__version__, pyproj.__version__, np.__version__)

crc32c = crcmod.predefined.mkCrcFun("crc-32c")


# ------------------------------------------------------------------------------------------------ sources

class Cube:
    """A variable's raw values, its dims, attributes, and its dims' coordinates (raw numbers + attrs)."""

    def __init__(self, data, dims, attrs, coords, coord_attrs, extra):
        self.data = data            # numpy array, raw (packed) values, dims order
        self.dims = list(dims)
        self.attrs = dict(attrs)
        self.coords = coords        # dim -> numpy array (raw numbers)
        self.coord_attrs = coord_attrs  # dim -> attrs
        self.extra = extra          # name -> (numpy array, attrs): bounds and grid-mapping variables


def read_zarr_v2(path, variable):
    consolidated = os.path.exists(os.path.join(path, ".zmetadata"))
    ds = xr.open_zarr(path, consolidated=consolidated, mask_and_scale=False, decode_times=False)
    cube = cube_from_dataset(ds, variable)
    # xarray's own CF decoding must agree with ours wherever ours says valid (xarray ignores valid_*).
    dec = xr.open_zarr(path, consolidated=consolidated, mask_and_scale=True, decode_times=False)[variable].values
    vals, valid = decode(cube.data, cube.attrs)
    assert np.all(~np.isnan(dec[valid])), "xarray masks a cell we keep"
    assert np.allclose(dec[valid], vals[valid], rtol=1e-6, atol=0), "xarray decodes differently"
    return cube


def cube_from_dataset(ds, variable):
    v = ds[variable]
    coords, coord_attrs, extra = {}, {}, {}
    for d in v.dims:
        if d in ds.variables:
            coords[d] = np.asarray(ds[d].values)
            coord_attrs[d] = dict(ds[d].attrs)
            b = ds[d].attrs.get("bounds")
            if b and b in ds.variables:
                extra[b] = (np.asarray(ds[b].values), dict(ds[b].attrs))
    gm = v.attrs.get("grid_mapping")
    if gm:
        extra[gm] = (np.asarray(ds[gm].values), dict(ds[gm].attrs))
    return Cube(np.asarray(v.values), v.dims, v.attrs, coords, coord_attrs, extra)


# --- Zarr v3, decoded here from the spec (https://zarr-specs.readthedocs.io/en/latest/v3/core/v3.0.html)

V3_DTYPES = {"int8": "i1", "int16": "i2", "int32": "i4", "int64": "i8", "uint8": "u1", "uint16": "u2",
             "uint32": "u4", "uint64": "u8", "float32": "f4", "float64": "f8"}


def v3_fill(value, dtype):
    if isinstance(value, str):  # "NaN", "Infinity", "-Infinity" or a hex bit pattern
        value = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}[value]
    return np.array(value).astype(dtype)


def v3_decode(buf, codecs, chunk_shape, dtype, fill):
    """One encoded chunk -> array of chunk_shape. The chain is array->array codecs, one array->bytes
    codec, then bytes->bytes codecs; decoding runs it backwards."""
    kinds = {"transpose": "aa", "bytes": "ab", "sharding_indexed": "ab", "gzip": "bb", "zstd": "bb",
             "blosc": "bb", "crc32c": "bb"}
    i_ab = [i for i, c in enumerate(codecs) if kinds[c["name"]] == "ab"]
    assert len(i_ab) == 1
    aa, ab, bb = codecs[:i_ab[0]], codecs[i_ab[0]], codecs[i_ab[0] + 1:]
    for c in reversed(bb):
        conf = c.get("configuration", {})
        if c["name"] == "crc32c":
            body, tail = buf[:-4], buf[-4:]
            assert struct.unpack("<I", tail)[0] == crc32c(body), "crc32c mismatch"
            buf = body
        elif c["name"] == "zstd":
            buf = bytes(Zstd().decode(buf))
        elif c["name"] == "gzip":
            buf = bytes(GZip().decode(buf))
        elif c["name"] == "blosc":
            buf = bytes(Blosc().decode(buf))
        else:
            raise ValueError(c["name"])
    # the shape the array->bytes codec sees: the chunk shape after the array->array codecs
    enc_shape = list(chunk_shape)
    for c in aa:
        enc_shape = [enc_shape[o] for o in c["configuration"]["order"]]
    if ab["name"] == "bytes":
        endian = ab.get("configuration", {}).get("endian", "little")
        arr = np.frombuffer(buf, dtype=np.dtype(dtype).newbyteorder("<" if endian == "little" else ">"))
        arr = arr.astype(np.dtype(dtype).newbyteorder("=")).reshape(enc_shape)
    else:
        arr = v3_decode_shard(buf, ab["configuration"], enc_shape, dtype, fill)
    for c in reversed(aa):
        arr = np.transpose(arr, np.argsort(c["configuration"]["order"]))
    return arr


def v3_decode_shard(buf, conf, shard_shape, dtype, fill):
    inner = conf["chunk_shape"]
    grid = [s // c for s, c in zip(shard_shape, inner)]
    n = int(np.prod(grid))
    index_len = 16 * n + sum(4 for c in conf["index_codecs"] if c["name"] == "crc32c")
    if conf.get("index_location", "end") == "end":
        ibuf = buf[-index_len:]
    else:
        ibuf = buf[:index_len]
    index = v3_decode(ibuf, conf["index_codecs"], grid + [2], "u8", None)
    out = np.empty(shard_shape, dtype=dtype)
    empty = np.iinfo(np.uint64).max
    for idx in np.ndindex(*grid):
        off, nbytes = int(index[idx + (0,)]), int(index[idx + (1,)])
        sl = tuple(slice(i * c, (i + 1) * c) for i, c in zip(idx, inner))
        if off == empty and nbytes == empty:
            out[sl] = fill  # inner chunk left out: fill_value
        else:
            out[sl] = v3_decode(buf[off:off + nbytes], conf["codecs"], inner, dtype, fill)
    return out


def read_v3_array(path):
    meta = json.load(open(os.path.join(path, "zarr.json")))
    assert meta["zarr_format"] == 3 and meta["node_type"] == "array"
    dtype = np.dtype(V3_DTYPES[meta["data_type"]])
    shape = meta["shape"]
    cs = meta["chunk_grid"]["configuration"]["chunk_shape"]
    cke = meta["chunk_key_encoding"]
    sep = cke.get("configuration", {}).get("separator", "/" if cke["name"] == "default" else ".")
    fill = v3_fill(meta["fill_value"], dtype)
    out = np.empty(shape, dtype=dtype)
    grid = [-(-s // c) for s, c in zip(shape, cs)]
    for idx in np.ndindex(*grid):
        key = ("c" + sep + sep.join(str(i) for i in idx)) if cke["name"] == "default" else sep.join(str(i) for i in idx)
        f = os.path.join(path, *key.split("/"))
        if os.path.exists(f):
            chunk = v3_decode(open(f, "rb").read(), meta["codecs"], cs, dtype, fill)
        else:
            chunk = np.full(cs, fill, dtype=dtype)
        sl = tuple(slice(i * c, min((i + 1) * c, s)) for i, c, s in zip(idx, cs, shape))
        out[sl] = chunk[tuple(slice(0, x.stop - x.start) for x in sl)]
    return out, meta


def read_zarr_v3(path, variable):
    data, meta = read_v3_array(os.path.join(path, variable))
    dims = meta["dimension_names"]
    coords, coord_attrs = {}, {}
    for d in dims:
        if os.path.exists(os.path.join(path, d, "zarr.json")):
            coords[d], m = read_v3_array(os.path.join(path, d))
            coord_attrs[d] = m.get("attributes", {})
    return Cube(data, dims, meta.get("attributes", {}), coords, coord_attrs, {})


# --- kerchunk references

def load_refs(path):
    doc = json.load(open(path))
    if doc.get("version") == 1:
        templates = doc.get("templates", {})
        refs = {}
        for k, v in doc["refs"].items():
            if isinstance(v, list):
                u = re.sub(r"\{\{(\w+)\}\}", lambda m: templates[m.group(1)], v[0])
                v = [u] + v[1:]
            refs[k] = v
        return refs
    return doc


def ref_bytes(v, ref_dir):
    if isinstance(v, list):
        with open(os.path.join(ref_dir, v[0]), "rb") as f:  # relative url: against the reference's folder
            if len(v) == 1:
                return f.read()
            f.seek(v[1])
            return f.read(v[2])
    if v.startswith("base64:"):
        return base64.b64decode(v[len("base64:"):])
    return v.encode("utf-8")


def read_ref_array(refs, name, ref_dir):
    za = json.loads(refs[name + "/.zarray"])
    assert za["compressor"] is None or isinstance(za["compressor"], dict)
    dt = np.dtype(za["dtype"])
    shape, cs = za["shape"], za["chunks"]
    fill = za["fill_value"]
    out = np.empty(shape, dtype=dt)
    if not shape:
        cs, shape_iter = [], [1]
    else:
        shape_iter = [-(-s // c) for s, c in zip(shape, cs)]
    for idx in np.ndindex(*shape_iter):
        key = name + "/" + ".".join(str(i) for i in idx)
        if key not in refs:
            chunk = np.full(cs, fill, dtype=dt)
        else:
            buf = ref_bytes(refs[key], ref_dir)
            if za["compressor"]:
                buf = numcodecs.get_codec(za["compressor"]).decode(buf)
            for flt in reversed(za["filters"] or []):
                buf = numcodecs.get_codec(flt).decode(buf)
            chunk = np.frombuffer(bytes(buf), dtype=dt).reshape(cs, order=za["order"])
        if not shape:
            out = chunk.reshape(())
            continue
        sl = tuple(slice(i * c, min((i + 1) * c, s)) for i, c, s in zip(idx, cs, shape))
        out[sl] = chunk[tuple(slice(0, x.stop - x.start) for x in sl)]
    return out


def read_reference(path, variable):
    refs = load_refs(path)
    ref_dir = os.path.dirname(path)
    urls = {v[0] for v in refs.values() if isinstance(v, list)}
    assert len(urls) == 1, urls
    nc = os.path.join(ref_dir, urls.pop())
    ds = xr.open_dataset(nc, engine="netcdf4", mask_and_scale=False, decode_times=False)
    # the references must decode to the file's values, every array
    for key in refs:
        if key.endswith("/.zarray"):
            name = key[:-len("/.zarray")]
            got = read_ref_array(refs, name, ref_dir)
            assert np.array_equal(got, ds[name].values), name
    # and xarray reading the references themselves (fsspec's ReferenceFileSystem, given the urls made
    # absolute here, since it does not resolve them against the reference file) agrees too
    doc = json.load(open(path))
    if doc.get("version") == 1:
        doc["templates"] = {k: os.path.join(ref_dir, v) for k, v in doc["templates"].items()}
    else:
        doc = {k: ([os.path.join(ref_dir, v[0])] + v[1:] if isinstance(v, list) else v) for k, v in doc.items()}
    via = xr.open_zarr(fsspec.get_mapper("reference://", fo=doc, remote_protocol="file"), consolidated=False,
                       mask_and_scale=False, decode_times=False)
    for name in ds.variables:
        assert np.array_equal(via[name].values, ds[name].values), name
    cube = cube_from_dataset(ds, variable)
    dec = xr.open_dataset(nc, engine="netcdf4", mask_and_scale=True, decode_times=False)[variable].values
    vals, valid = decode(cube.data, cube.attrs)
    assert np.all(~np.isnan(dec[valid])) and np.allclose(dec[valid], vals[valid], rtol=1e-6, atol=0)
    return cube


def read_source(url, variable):
    path = os.path.join(CUBE, url)
    if url.endswith(".json"):
        return read_reference(path, variable)
    if os.path.exists(os.path.join(path, "zarr.json")):
        cube = read_zarr_v3(path, variable)
        if url == "era5_v3.zarr":  # same numbers as era5.zarr's t2m, read by xarray
            ref = xr.open_zarr(os.path.join(CUBE, "era5.zarr"), consolidated=True, mask_and_scale=False, decode_times=False)
            assert np.array_equal(cube.data, ref["t2m"].values), variable
            for d in cube.dims:
                assert np.array_equal(cube.coords[d], ref[d].values), d
        return cube
    return read_zarr_v2(path, variable)


# ------------------------------------------------------------------------------------------------ CF decoding

def decode(raw, attrs):
    """(values float64, valid bool) from raw packed values and the CF attributes."""
    dt = raw.dtype
    valid = np.ones(raw.shape, dtype=bool)
    if dt.kind == "f":
        valid &= ~np.isnan(raw)

    def same(x):
        return np.asarray(x).astype(dt).ravel()

    for name in ("_FillValue", "missing_value"):
        if name in attrs and attrs[name] is not None:
            for f in same(attrs[name]):
                if not (dt.kind == "f" and np.isnan(f)):
                    valid &= raw != f
    if "valid_range" in attrs:
        lo, hi = same(attrs["valid_range"])
        valid &= (raw >= lo) & (raw <= hi)
    if "valid_min" in attrs:
        valid &= raw >= same(attrs["valid_min"])[0]
    if "valid_max" in attrs:
        valid &= raw <= same(attrs["valid_max"])[0]
    vals = raw.astype(np.float64)
    if "scale_factor" in attrs:
        vals = vals * float(attrs["scale_factor"])
    if "add_offset" in attrs:
        vals = vals + float(attrs["add_offset"])
    return vals, valid


# ------------------------------------------------------------------------------------------------ grid

def role(cube, d):
    a = cube.coord_attrs.get(d, {})
    sn, units, axis = a.get("standard_name", ""), a.get("units", ""), a.get("axis", "")
    if sn == "longitude" or units in ("degrees_east", "degree_east"):
        return "lon"
    if sn == "latitude" or units in ("degrees_north", "degree_north"):
        return "lat"
    if sn == "projection_x_coordinate" or axis == "X":
        return "x"
    if sn == "projection_y_coordinate" or axis == "Y":
        return "y"
    return None


def edges(cube, d):
    c = cube.coords[d].astype(np.float64)
    b = cube.coord_attrs.get(d, {}).get("bounds")
    if b and b in cube.extra:
        bnds = cube.extra[b][0].astype(np.float64)
        lo, hi = bnds[:, 0], bnds[:, 1]
        assert np.allclose(lo[1:], hi[:-1]) or np.allclose(hi[1:], lo[:-1]), "bounds not contiguous"
        return np.minimum(lo, hi), np.maximum(lo, hi)
    mid = (c[1:] + c[:-1]) / 2
    e = np.concatenate([[c[0] - (mid[0] - c[0])], mid, [c[-1] + (c[-1] - mid[-1])]])
    return np.minimum(e[:-1], e[1:]), np.maximum(e[:-1], e[1:])


class Grid:
    def __init__(self, cube):
        spatial = [d for d in cube.dims if role(cube, d) in ("lon", "lat", "x", "y")]
        assert len(spatial) == 2, spatial
        self.ydim, self.xdim = spatial
        rx, ry = role(cube, self.xdim), role(cube, self.ydim)
        assert (rx, ry) in (("lon", "lat"), ("x", "y")), (rx, ry)
        self.lonlat = rx == "lon"
        self.x0, self.x1 = edges(cube, self.xdim)
        self.y0, self.y1 = edges(cube, self.ydim)
        # A cell's centre: its coordinate, or the middle of its bounds where it has bounds (CF §7.1; the
        # centre rule uses it: a Gaussian latitude is not half-way between its cell's bounds).
        self.xc = self.centres(cube, self.xdim, self.x0, self.x1)
        self.yc = self.centres(cube, self.ydim, self.y0, self.y1)
        self.crs = None
        if not self.lonlat:
            gm = cube.attrs["grid_mapping"]
            self.crs = pyproj.CRS.from_cf(cube.extra[gm][1])
        self.shifts = (-360.0, 0.0, 360.0) if self.lonlat else (0.0,)

    @staticmethod
    def centres(cube, d, lo, hi):
        b = cube.coord_attrs.get(d, {}).get("bounds")
        if b and b in cube.extra:
            return (lo + hi) / 2
        return cube.coords[d].astype(np.float64)


def densify_lonlat(geom, step=DENSIFY_DEG):
    """Each edge cut into pieces of at most `step` degrees (in lon and in lat)."""
    def ring(coords):
        out = []
        pts = list(coords)
        for (x0, y0), (x1, y1) in zip(pts[:-1], pts[1:]):
            n = max(1, int(math.ceil(max(abs(x1 - x0), abs(y1 - y0)) / step)))
            for k in range(n):
                out.append((x0 + (x1 - x0) * k / n, y0 + (y1 - y0) * k / n))
        out.append(pts[-1])
        return out

    def poly(p):
        return shapely.geometry.Polygon(ring(p.exterior.coords), [ring(i.coords) for i in p.interiors])

    if geom.geom_type == "Polygon":
        return poly(geom)
    return shapely.geometry.MultiPolygon([poly(p) for p in geom.geoms])


def project_adaptive(geom, t, tol):
    """The zone projected with each edge cut in halves until the projected half-way point is within
    `tol` of the chord: what an implementation that densifies "to within tol" gets (for the checks)."""
    def edge(a, b, fa, fb, depth, out):
        m = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
        fm = t.transform(*m)
        if depth < 30 and math.hypot(fm[0] - (fa[0] + fb[0]) / 2, fm[1] - (fa[1] + fb[1]) / 2) > tol:
            edge(a, m, fa, fm, depth + 1, out)
            edge(m, b, fm, fb, depth + 1, out)
        else:
            out.append(fb)

    def ring(coords):
        pts = list(coords)
        out = [t.transform(*pts[0])]
        for a, b in zip(pts[:-1], pts[1:]):
            edge(a, b, t.transform(*a), t.transform(*b), 0, out)
        return out

    def poly(p):
        return shapely.geometry.Polygon(ring(p.exterior.coords), [ring(i.coords) for i in p.interiors])

    if geom.geom_type == "Polygon":
        return poly(geom)
    return shapely.geometry.MultiPolygon([poly(p) for p in geom.geoms])


def zone_in_grid_crs(geojson, grid, with_coarse=False):
    g = shape(geojson)
    assert g.is_valid, "invalid zone"
    if grid.lonlat:
        return (g, None, {}) if with_coarse else (g, {})
    t = pyproj.Transformer.from_crs("EPSG:4326", grid.crs, always_xy=True)
    dense = shp_transform(lambda x, y: t.transform(x, y), densify_lonlat(g))
    plain = shp_transform(lambda x, y: t.transform(x, y), g)
    assert dense.is_valid
    checks = {"area_m2": dense.area, "area_rel_change_without_densify": plain.area / dense.area - 1}
    if not with_coarse:
        return dense, checks
    cell = min(np.min(grid.x1 - grid.x0), np.min(grid.y1 - grid.y0))
    coarse = project_adaptive(g, t, 0.01 * cell)
    return dense, coarse, checks


def coverage(zone, grid, pixels):
    """(ny, nx) weights: fractions of each cell's area (fractional) or 0/1 (center); plus checks."""
    ny, nx = len(grid.yc), len(grid.xc)
    c = np.zeros((ny, nx))
    min_margin = math.inf
    for s in grid.shifts:
        z = shapely.affinity.translate(zone, xoff=s) if s else zone
        zx0, zy0, zx1, zy1 = z.bounds
        cols = np.nonzero((grid.x1 > zx0) & (grid.x0 < zx1))[0]
        rows = np.nonzero((grid.y1 > zy0) & (grid.y0 < zy1))[0]
        if not len(cols) or not len(rows):
            continue
        boundary = z.boundary
        for i in rows:
            for j in cols:
                w, h = grid.x1[j] - grid.x0[j], grid.y1[i] - grid.y0[i]
                if pixels == "fractional":
                    cell = box(grid.x0[j], grid.y0[i], grid.x1[j], grid.y1[i])
                    a = z.intersection(cell).area
                    if a > 0:
                        c[i, j] += a / (w * h)
                elif pixels == "center":
                    p = Point(grid.xc[j], grid.yc[i])
                    margin = boundary.distance(p) / min(w, h)
                    min_margin = min(min_margin, margin)
                    assert margin > 1e-9, "a cell centre on a zone's edge"
                    if z.contains(p):
                        c[i, j] += 1
                else:
                    raise ValueError(pixels)
    assert c.max() <= 1 + 1e-12
    checks = {}
    if pixels == "center" and min_margin < math.inf:
        checks["min_centre_to_edge_cells"] = min_margin
    return np.minimum(c, 1.0), checks


def spherical_area(grid):
    lat0, lat1 = np.radians(grid.y0), np.radians(grid.y1)
    dlat = np.abs(np.sin(lat1) - np.sin(lat0))
    dlon = np.abs(grid.x1 - grid.x0)
    return R_SPHERE ** 2 * (math.pi / 180) * dlat[:, None] * dlon[None, :]


# ------------------------------------------------------------------------------------------------ time & sel

def is_time(cube, d):
    return " since " in str(cube.coord_attrs.get(d, {}).get("units", ""))


def calendar_of(cube, d):
    return str(cube.coord_attrs[d].get("calendar", "standard")).lower()


def time_tuples(cube, d):
    a = cube.coord_attrs[d]
    dates = cftime.num2date(cube.coords[d], a["units"], calendar_of(cube, d), only_use_cftime_datetimes=True)
    return [(t.year, t.month, t.day, t.hour, t.minute, t.second, t.microsecond) for t in np.atleast_1d(dates)]


def time_string(tt, calendar):
    y, mo, d, h, mi, s, us = tt
    assert us == 0
    text = "%04d-%02d-%02dT%02d:%02d:%02d" % (y, mo, d, h, mi, s)
    return text + "Z" if calendar in STANDARD_CALENDARS else text


def parse_time(text):
    """-> (tuple, date_only)"""
    m = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?(Z)?", text)
    assert m, text
    y, mo, d = int(m.group(1)), int(m.group(2)), int(m.group(3))
    if m.group(4) is None:
        return (y, mo, d, 0, 0, 0, 0), True
    us = int((m.group(7) or "0").ljust(6, "0")[:6])
    return (y, mo, d, int(m.group(4)), int(m.group(5)), int(m.group(6) or 0), us), False


def select(cube, d, spec):
    """-> (indices in axis order, pinned)"""
    n = len(cube.coords[d])
    if spec is None:
        return list(range(n)), False
    if is_time(cube, d):
        tt = time_tuples(cube, d)

        def match(value):
            t, date_only = parse_time(value)
            hits = [i for i in range(n) if (tt[i][:3] == t[:3] if date_only else tt[i] == t)]
            assert len(hits) == 1, (d, value, hits)
            return hits[0]

        if isinstance(spec, dict):
            lo = parse_time(spec["start"])[0] if "start" in spec else None
            hi, hi_date = parse_time(spec["end"]) if "end" in spec else (None, False)
            out = []
            for i in range(n):
                if lo is not None and tt[i] < lo:
                    continue
                if hi is not None and ((tt[i][:3] > hi[:3]) if hi_date else (tt[i] > hi)):
                    continue
                out.append(i)
            return out, False
        if isinstance(spec, list):
            return sorted({match(v) for v in spec}), False
        return [match(spec)], True
    vals = cube.coords[d]

    def nmatch(value):
        hits = [i for i in range(n) if vals[i] == value]
        assert len(hits) == 1, (d, value)
        return hits[0]

    if isinstance(spec, dict):
        lo, hi = spec.get("start", -math.inf), spec.get("end", math.inf)
        return [i for i in range(n) if lo <= vals[i] <= hi], False
    if isinstance(spec, list):
        return sorted({nmatch(v) for v in spec}), False
    return [nmatch(spec)], True


def coord_value(cube, d, i):
    if is_time(cube, d):
        return time_string(time_tuples(cube, d)[i], calendar_of(cube, d))
    v = cube.coords[d][i]
    return int(v) if float(v).is_integer() else float(v)


# ------------------------------------------------------------------------------------------------ stats

def stats_of(vals, valid, c, weight_area, wanted):
    take = valid & (c > 0)
    out = {}
    if not take.any():
        for s in wanted:
            out[s] = 0 if s == "count" else None
        return out
    cv, vv = c[take], vals[take]
    count = math.fsum(cv.tolist())
    total = math.fsum((cv * vv).tolist())
    if weight_area is not None:
        # exactextract's coverage_weight: every cell's weight is its coverage times its area, in count and
        # sum as in mean (its test_coverage_area)
        w = cv * weight_area[take]
        count = math.fsum(w.tolist())
        total = math.fsum((w * vv).tolist())
        mean = total / count
    else:
        mean = total / count
    every = {"count": count, "sum": total, "mean": mean, "min": float(vv.min()), "max": float(vv.max())}
    for s in wanted:
        out[s] = every[s]
    return out


def expression_names(text):
    """The variables an expression names, in order of first use."""
    names = []
    for node in ast.walk(ast.parse(text, mode="eval")):
        if isinstance(node, ast.Name) and node.id not in names:
            names.append(node.id)
    return names


def decode_expression(req):
    """An expression over variables: each decoded, a cell valid where all are and the result is finite."""
    names = expression_names(req["expression"])
    first = req.get("variable", names[0])
    cubes = {n: read_source(req["url"], n) for n in [first] + [n for n in names if n != first]}
    values, valid = {}, None
    for n, c in cubes.items():
        v, ok = decode(c.data, c.attrs)
        values[n] = v
        valid = ok if valid is None else valid & ok
    with np.errstate(all="ignore"):
        vals = eval(compile(req["expression"], "<expression>", "eval"), {"__builtins__": {}}, values)
    valid &= np.isfinite(vals)
    return cubes[first], np.where(valid, vals, 0.0), valid


def run_case(case):
    req = case["request"]
    if "expression" in req:
        cube, vals, valid = decode_expression(req)
    else:
        cube = read_source(req["url"], req["variable"])
        vals, valid = decode(cube.data, cube.attrs)
    grid = Grid(cube)
    pixels = req.get("pixels", "fractional")
    area = spherical_area(grid) if req.get("coverage_weight") == "area_spherical_m2" else None
    if req.get("coverage_weight") not in (None, "area_spherical_m2"):
        raise ValueError(req["coverage_weight"])
    sel = req.get("sel", {})
    other = [d for d in cube.dims if d not in (grid.xdim, grid.ydim)]
    assert cube.dims.index(grid.ydim) == len(cube.dims) - 2 and cube.dims.index(grid.xdim) == len(cube.dims) - 1
    picks = {d: select(cube, d, sel.get(d)) for d in other}
    iterated = [d for d in other if not picks[d][1]]
    rows, checks = [], []
    for zi, feat in enumerate(case["aoi"]["features"]):
        zone, coarse, zchecks = zone_in_grid_crs(feat["geometry"], grid, with_coarse=True)
        c, cchecks = coverage(zone, grid, pixels)
        zchecks.update(cchecks)
        if coarse is not None:
            # how far the answer moves when the zone's edges are only densified to 1/100 of a cell
            # (each projected edge within 0.01 cell of the true curve): a tolerance hint for the tests
            c2, _ = coverage(coarse, grid, pixels)
            zchecks["coverage_max_abs_diff_at_0.01_cell_densify"] = float(np.abs(c2 - c).max())
            worst = {}
            for combo in itertools.product(*[picks[d][0] for d in other]):
                a = stats_of(vals[tuple(combo)], valid[tuple(combo)], c, area, req["stats"])
                b = stats_of(vals[tuple(combo)], valid[tuple(combo)], c2, area, req["stats"])
                for k in a:
                    if a[k] is not None and b[k] is not None:
                        worst[k] = max(worst.get(k, 0.0), abs(b[k] - a[k]) / max(1.0, abs(a[k])))
            zchecks["stats_max_rel_diff_at_0.01_cell_densify"] = worst
        zchecks["cells_with_weight"] = int((c > 0).sum())
        checks.append(zchecks)
        for combo in itertools.product(*[picks[d][0] for d in other]):
            idx = tuple(combo)
            coords = {d: coord_value(cube, d, i) for d, i in zip(other, combo) if d in iterated}
            st = stats_of(vals[idx], valid[idx], c, area, req["stats"])
            if pixels == "center" and st.get("count"):
                st["count"] = int(round(st["count"]))
            rows.append({"zone": zi, "coords": coords, "stats": st})
    return {"oracle": ORACLE, "case": case["name"], "rows": rows, "checks": {"zones": checks}}


def write_result(path, result):
    """One row a line, numbers as json.dump writes Python floats (repr: full float64 precision)."""
    with open(path, "w") as f:
        f.write('{"oracle": %s,\n "case": %s,\n "rows": [\n' % (json.dumps(result["oracle"]), json.dumps(result["case"])))
        f.write(",\n".join("  " + json.dumps(r) for r in result["rows"]))
        f.write('\n ],\n "checks": %s\n}\n' % json.dumps(result["checks"]))
    assert json.load(open(path)) == json.loads(json.dumps(result))


def same_rows(a, b):
    return [(r["zone"], r["coords"], r["stats"]) for r in a] == [(r["zone"], r["coords"], r["stats"]) for r in b]


def main(argv):
    cases = json.load(open(os.path.join(CUBE, "cases.json")))
    names = [c["name"] for c in cases]
    assert len(set(names)) == len(names)
    wanted = set(argv) if argv else set(names)
    os.makedirs(OUT, exist_ok=True)
    results = {}
    for case in cases:
        if case["name"] not in wanted:
            continue
        res = run_case(case)
        results[case["name"]] = res
        write_result(os.path.join(OUT, case["name"] + ".json"), res)
        print("%-32s %4d rows" % (case["name"], len(res["rows"])))
    # Variants of one content must agree exactly (each was decoded separately).
    groups = [
        ["codecs_" + v for v in ("v_zlib", "v_gzip", "v_zstd", "v_lz4", "v_bz2", "v_blosc_lz4_shuffle",
                                 "v_blosc_zstd_bitshuffle", "v_blosc_zlib_noshuffle", "v_none", "v_delta",
                                 "v_delta_i4", "v_fixedscaleoffset", "v_bigendian", "v_fortran", "v_dimsep")],
        ["era5_t2m_fractional"] + ["era5_v3_" + v for v in ("t2m", "t2m_gzip", "t2m_zstd_be", "t2m_transpose", "t2m_sharded", "t2m_crc", "t2m_blosc", "t2m_blosc_be")],
        ["cmip6_noleap_v0", "cmip6_noleap_v1"],
    ]
    for g in groups:
        have = [n for n in g if n in results]
        for n in have[1:]:
            assert same_rows(results[have[0]]["rows"], results[n]["rows"]), (have[0], n)


if __name__ == "__main__":
    main(sys.argv[1:])
