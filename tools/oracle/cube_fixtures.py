#!/usr/bin/env python3
"""The data cubes of `POST /api/v1/zonal-stats/cube`'s tests: small synthetic Zarr v2, Zarr v3 and
NetCDF4 (+ kerchunk reference) stores, and the cases the oracle answers.

Dev-only tool (the test suite never runs it). Debian's Python and packages, no PyPI:

    apt-get install -y python3-xarray python3-zarr python3-numcodecs python3-netcdf4 python3-h5py \
                       python3-cftime python3-numpy python3-pyproj python3-crcmod
    /usr/bin/python3 tools/oracle/cube_fixtures.py     # rewrites the stores and fixtures/cube/cases.json
    /usr/bin/python3 tools/oracle/cube_oracle.py       # then the expected rows, fixtures/cube/oracle/*.json

What it writes under fixtures/cube/ (see fixtures/cube/README.md):

  era5.zarr            Zarr v2, consolidated, written by xarray's to_zarr: an ERA5-like global 2.5 degree
                       grid (latitude 90 -> -90, longitude 0 -> 357.5), 48 hourly steps, `t2m` int16
                       packed (scale_factor 0.002, add_offset 265, fill -32767 as the .zarray fill_value,
                       as xarray writes it), chunks (24, 36, 36), Blosc lz4 + shuffle; `t2m_f` the same
                       values unpacked to float32 (NaN where t2m is fill), Zlib. For: packing, 0..360
                       longitudes (zones straddling 0), descending latitude, zones across chunk edges,
                       fill cells, time selection.
  codecs.zarr          Zarr v2, consolidated: one small float32 field (values multiples of 1/64, so every
                       codec and filter round-trips it exactly) stored once per codec / filter / layout:
                       v_zlib, v_gzip, v_zstd, v_lz4, v_bz2, v_blosc_lz4_shuffle,
                       v_blosc_zstd_bitshuffle, v_blosc_zlib_noshuffle, v_none, v_delta (float32
                       Delta), v_delta_i4 (int32 copy, Delta, scale_factor 1/64), v_fixedscaleoffset
                       (float64 copy, FixedScaleOffset filter), v_bigendian, v_fortran, v_dimsep
                       (dimension_separator "/"), and v_missing_chunks (two chunk files never written,
                       fill_value = _FillValue = -9999, so they read as nodata). Every variable but
                       v_missing_chunks decodes to identical values.
  era5_v3.zarr         Zarr v3 written by hand (numpy + numcodecs + crcmod) from the v3.0 core spec:
                       t2m (bytes + zstd), t2m_gzip, t2m_zstd_be (big-endian bytes), t2m_transpose
                       (transpose [2,1,0] + bytes + blosc), t2m_sharded (sharding_indexed, some inner
                       chunks left out: they read as fill_value), t2m_crc (bytes + zstd + crc32c), t2m_blosc
                       (bytes + blosc lz4 shuffle), t2m_blosc_be (big-endian bytes + blosc lz4); all
                       the same int16 values as era5.zarr's t2m. No consolidated metadata.
  cmip6_noleap.nc      NetCDF4 (netCDF4-python), `tas` float32 with _FillValue = missing_value = 1e20,
                       calendar noleap, 24 monthly steps 2014-2015, lat/lon with lat_bnds/lon_bnds, chunks
                       (6, 16, 16), HDF5 shuffle + deflate 4.
  cmip6_noleap.json    its kerchunk reference, version 0 ({key: value}), relative url "cmip6_noleap.nc"
  cmip6_noleap.v1.json the same as version 1 ({"version": 1, "templates": {"u": ...}, "refs": ...})
  cmip6_360day.nc/.json  the same kind of file, calendar 360_day, 7 steps over 2001-02-27 .. 2001-03-02
                       (so 2001-02-29 and 2001-02-30 occur), no bounds variables; v0 reference.
  polar.zarr           Zarr v2, NOT consolidated: sea-ice concentration `sic` uint8 (_FillValue 255,
                       valid_range [0, 100], flag values 120..250 that must be nodata) on a 40 x 40 grid
                       of 25 km cells of a CF polar_stereographic grid_mapping (= EPSG:3413), y descending,
                       6 daily steps; scalar `crs` variable with the CF attributes and crs_wkt.
  levels.zarr          Zarr v2, consolidated: `t` float32 (time 3, level 4, lat, lon), level in hPa.
  gaussian.zarr        Zarr v2, consolidated: `pr` float32 on a T21-like Gaussian grid (32 latitudes at the
                       Gauss-Legendre nodes, lat_bnds from the Gaussian weights: unequal heights, centres not
                       half-way between the bounds; 64 longitudes 0..360 with lon_bnds), 4 daily steps.
  stretched.zarr       Zarr v2, consolidated: `pr` float32 on a regional grid whose cells grow eastwards and
                       northwards (unequal lon_bnds and lat_bnds), 3 daily steps.
  cases.json           the cases: request + AOI (FeatureCollection of WGS84 zones, each with an id).

The kerchunk references are made here with h5py (chunk byte offsets from dset.id.get_chunk_info), laid
out as kerchunk's HDF5 translator lays them (see kerchunk_refs below); the script checks that every
chunk decodes, through the references, to the values netCDF4 reads.

Deterministic: fixed seeds, formulas; gzip headers get mtime 0; PYTHONHASHSEED 0 (xarray's "coordinates"
attributes); the Gaussian grid's latitudes rounded to 1e-11 degrees (arcsin's last bit varies by CPU); two runs
give identical bytes, on any machine (the NetCDF files included: netCDF-C does not record times in them). Synthetic data, made here.
"""
import base64
import json
import os
import shutil
import struct
import sys

# xarray writes a variable's "coordinates" attribute from a set of names, whose order follows Python's string
# hashes, salted per process unless PYTHONHASHSEED is set: one seed, one order, the same bytes every run.
if os.environ.get("PYTHONHASHSEED") != "0":
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, [sys.executable, *sys.argv])

try:
    import cftime
    import crcmod.predefined
    import h5py
    import netCDF4
    import numcodecs
    import numpy as np
    import pyproj
    import xarray as xr
    import zarr
    from numcodecs import BZ2, LZ4, Blosc, Delta, FixedScaleOffset, GZip, Zlib, Zstd
except ImportError:  # a pyenv python3 first on PATH: re-run under Debian's interpreter
    if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3", *sys.argv])
    raise

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, "fixtures", "cube")

crc32c = crcmod.predefined.mkCrcFun("crc-32c")
assert crc32c(b"123456789") == 0xE3069283

ERA5_FILL = -32767
ERA5_SCALE = 0.002
ERA5_OFFSET = 265.0


class GZipNoTime(GZip):
    """numcodecs' GZip with the header's MTIME set to 0 (the header is not under any checksum), so that
    two runs write the same bytes. Its config is GZip's: {"id": "gzip", "level": n}. (zarr 2 re-makes its
    codecs from their config, so codecs.zarr/v_gzip's chunk files get the same fix afterwards.)"""

    def encode(self, buf):
        out = bytearray(super().encode(buf))
        out[4:8] = b"\0\0\0\0"
        return bytes(out)


def rmtree(path):
    if os.path.isdir(path):
        shutil.rmtree(path)
    elif os.path.exists(path):
        os.remove(path)


def write_json(path, obj, indent=2):
    with open(path, "w") as f:
        json.dump(obj, f, indent=indent)
        f.write("\n")


# ------------------------------------------------------------------------------------------------ era5

def era5_grid():
    lat = np.linspace(90.0, -90.0, 73).astype(np.float32)
    lon = (np.arange(144) * 2.5).astype(np.float32)
    hours0 = 1051896  # 2020-01-01T00:00 in hours since 1900-01-01 (checked below with cftime)
    assert cftime.date2num(cftime.DatetimeGregorian(2020, 1, 1), "hours since 1900-01-01 00:00:00.0", "gregorian") == hours0
    time = hours0 + np.arange(48)
    return time, lat, lon


def era5_raw():
    """t2m as packed int16 (time, latitude, longitude). A texture S(lat, lon) (zonal climatology, waves,
    smoothed noise) carried east one cell per hour, plus a warm blob over Europe on the second day, so
    that each step differs and each zone's values change with time; a chunk's consecutive steps share
    most of their bytes, which keeps the stores small."""
    time, lat, lon = era5_grid()
    rng = np.random.default_rng(20240501)
    la, lo = np.meshgrid(np.radians(lat.astype(np.float64)), np.radians(lon.astype(np.float64)), indexing="ij")
    s = 240 + 60 * np.cos(la) ** 2 - 8 * np.sin(la) ** 3 + 6 * np.sin(2 * lo) * np.cos(la) + 4 * np.cos(3 * lo + 1) * np.cos(2 * la)
    tex = rng.normal(0, 1, (75, 146))
    tex = sum(tex[i:i + 73, j:j + 144] for i in range(3) for j in range(3)) / 3
    s = s + 0.8 * tex + rng.normal(0, 0.3, s.shape)
    dlon = (lon.astype(np.float64)[None, :] - 20 + 180) % 360 - 180
    blob = 3.0 * np.exp(-((lat.astype(np.float64)[:, None] - 45) ** 2 / 60 + dlon ** 2 / 200))
    out = np.empty((48, 73, 144))
    for t in range(48):
        out[t] = np.roll(s, t, axis=1) + (blob if t >= 24 else 0)
    raw = np.round((out - ERA5_OFFSET) / ERA5_SCALE).astype(np.int16)
    # Fill cells.
    raw[:, 20, 100] = ERA5_FILL         # lat 40, lon 250 (-110): always fill (zone "rockies")
    raw[5:10, 21, 101] = ERA5_FILL      # lat 37.5, lon 252.5: fill at steps 5..9
    raw[10:13, 16, 6] = ERA5_FILL       # lat 50, lon 15: the one cell of zone "one_cell", fill at steps 10..12
    raw[36:48, 54:72, 126:144] = ERA5_FILL  # one whole inner chunk of era5_v3.zarr/t2m_sharded (left out there)
    return raw


def era5_cf_attrs():
    return {
        "time": {"standard_name": "time", "long_name": "time", "axis": "T"},
        "latitude": {"standard_name": "latitude", "long_name": "latitude", "units": "degrees_north", "axis": "Y"},
        "longitude": {"standard_name": "longitude", "long_name": "longitude", "units": "degrees_east", "axis": "X"},
        "t2m": {"standard_name": "air_temperature", "long_name": "2 metre temperature", "units": "K"},
    }


def write_era5(raw):
    path = os.path.join(OUT, "era5.zarr")
    rmtree(path)
    time, lat, lon = era5_grid()
    attrs = era5_cf_attrs()
    decoded = np.where(raw == ERA5_FILL, np.nan, raw.astype(np.float64) * ERA5_SCALE + ERA5_OFFSET)
    ds = xr.Dataset(
        {
            "t2m": (("time", "latitude", "longitude"), decoded, attrs["t2m"]),
            "t2m_f": (("time", "latitude", "longitude"), decoded.astype(np.float32),
                      dict(attrs["t2m"], long_name="2 metre temperature (float32, unpacked)")),
        },
        coords={
            # time given as its stored int32 numbers with units/calendar attributes, so that xarray writes them
            # as they are (encoding datetimes, it would rewrite the units as "hours since 1900-01-01")
            "time": ("time", time.astype(np.int32),
                     dict(attrs["time"], units="hours since 1900-01-01 00:00:00.0", calendar="gregorian")),
            "latitude": ("latitude", lat, attrs["latitude"]),
            "longitude": ("longitude", lon, attrs["longitude"]),
        },
        attrs={"Conventions": "CF-1.6", "title": "ERA5-like 2 m temperature (synthetic)",
               "source": "tools/oracle/cube_fixtures.py", "history": "synthetic, made for the tests"},
    )
    enc = {
        "t2m": {"dtype": "int16", "scale_factor": ERA5_SCALE, "add_offset": ERA5_OFFSET, "_FillValue": ERA5_FILL,
                "chunks": (24, 36, 36), "compressor": Blosc(cname="lz4", clevel=5, shuffle=Blosc.SHUFFLE)},
        "t2m_f": {"dtype": "float32", "_FillValue": np.float32(np.nan), "chunks": (24, 36, 36), "compressor": Zlib(level=5)},
        "time": {"dtype": "int32"},
        "latitude": {"dtype": "float32"},
        "longitude": {"dtype": "float32"},
    }
    ds.to_zarr(path, mode="w", encoding=enc, consolidated=True)
    z = zarr.open_group(path, mode="r")
    assert np.array_equal(z["t2m"][:], raw), "xarray did not write the intended packed values"
    assert np.array_equal(z["time"][:], time)
    return path


# ------------------------------------------------------------------------------------------------ codecs

def codecs_field():
    """(time 4, lat 20 ascending, lon 30) float32, every value a multiple of 1/64 in 280..310."""
    rng = np.random.default_rng(7)
    lat = np.arange(-9.5, 10, 1.0)
    lon = np.arange(0.5, 30, 1.0)
    la, lo = np.meshgrid(np.radians(lat), np.radians(lon), indexing="ij")
    v = np.empty((4, 20, 30))
    noise = rng.normal(0, 0.6, (4, 20, 30))
    for t in range(4):
        v[t] = 295 + 8 * np.cos(3 * la) * np.sin(4 * lo + 0.7 * t) + 3 * np.sin(9 * la + lo) + noise[t]
    v = np.round(v * 64) / 64
    return lat, lon, v.astype(np.float32)


def zattrs(path, attrs):
    write_json(os.path.join(path, ".zattrs"), attrs, indent=4)


def write_codecs():
    path = os.path.join(OUT, "codecs.zarr")
    rmtree(path)
    lat, lon, v = codecs_field()
    g = zarr.open_group(zarr.DirectoryStore(path), mode="w")
    g.attrs.update({"Conventions": "CF-1.8", "title": "one field, once per codec (synthetic)"})
    time = np.array([0.0, 6.0, 12.0, 18.0])

    def arr(name, data, dims, attrs, **kw):
        a = g.create_dataset(name, shape=data.shape, chunks=kw.pop("chunks", data.shape), dtype=kw.pop("dtype", data.dtype), **kw)
        a[...] = data
        a.attrs.update(dict(attrs, _ARRAY_DIMENSIONS=list(dims)))
        return a

    arr("time", time, ["time"], {"standard_name": "time", "units": "hours since 2022-03-01 00:00:00", "calendar": "standard", "axis": "T"},
        fill_value=None, compressor=None)
    arr("lat", lat, ["lat"], {"standard_name": "latitude", "units": "degrees_north", "axis": "Y"}, fill_value=None, compressor=None)
    arr("lon", lon, ["lon"], {"standard_name": "longitude", "units": "degrees_east", "axis": "X"}, fill_value=None, compressor=None)

    dims = ["time", "lat", "lon"]
    base = {"standard_name": "air_temperature", "units": "K"}
    ch = (2, 10, 10)
    nan = float("nan")
    variants = [
        ("v_zlib", v, dict(compressor=Zlib(level=5), fill_value=nan)),
        ("v_gzip", v, dict(compressor=GZip(level=5), fill_value=nan)),
        ("v_zstd", v, dict(compressor=Zstd(level=3), fill_value=nan)),
        ("v_lz4", v, dict(compressor=LZ4(acceleration=1), fill_value=nan)),
        ("v_bz2", v, dict(compressor=BZ2(level=9), fill_value=nan)),
        ("v_blosc_lz4_shuffle", v, dict(compressor=Blosc(cname="lz4", clevel=5, shuffle=Blosc.SHUFFLE), fill_value=nan)),
        ("v_blosc_zstd_bitshuffle", v, dict(compressor=Blosc(cname="zstd", clevel=5, shuffle=Blosc.BITSHUFFLE), fill_value=nan)),
        ("v_blosc_zlib_noshuffle", v, dict(compressor=Blosc(cname="zlib", clevel=5, shuffle=Blosc.NOSHUFFLE), fill_value=nan)),
        ("v_none", v, dict(compressor=None, fill_value=nan)),
        ("v_delta", v, dict(filters=[Delta(dtype="<f4")], compressor=Zlib(level=5), fill_value=nan)),
        ("v_delta_i4", np.round(v.astype(np.float64) * 64).astype(np.int32),
         dict(filters=[Delta(dtype="<i4")], compressor=Zlib(level=5), fill_value=None, attrs={"scale_factor": 1 / 64})),
        ("v_fixedscaleoffset", v.astype(np.float64),
         dict(filters=[FixedScaleOffset(offset=295, scale=64, dtype="<f8", astype="<i4")], compressor=Zlib(level=5), fill_value=nan)),
        ("v_bigendian", v.astype(">f4"), dict(compressor=Zlib(level=5), fill_value=nan, dtype=">f4")),
        ("v_fortran", v, dict(compressor=Zlib(level=5), fill_value=nan, order="F")),
        ("v_dimsep", v, dict(compressor=Zlib(level=5), fill_value=nan, dimension_separator="/")),
    ]
    for name, data, kw in variants:
        attrs = dict(base, **kw.pop("attrs", {}))
        a = arr(name, data, dims, attrs, chunks=ch, **kw)
        back = a[:]
        if "scale_factor" in attrs:
            back = back * attrs["scale_factor"]
        assert np.array_equal(back.astype(np.float64), v.astype(np.float64)), name
    for key in sorted(os.listdir(os.path.join(path, "v_gzip"))):
        if not key.startswith("."):
            with open(os.path.join(path, "v_gzip", key), "r+b") as f:
                assert f.read(4) == b"\x1f\x8b\x08\x00"  # gzip, deflate, no flags
                f.write(b"\0\0\0\0")  # MTIME
    assert np.array_equal(zarr.open_array(os.path.join(path, "v_gzip"), mode="r")[:], v)
    # v_missing_chunks: two chunk files never written (they read as fill_value -9999 = _FillValue: nodata),
    # and a few cells set to -9999 in written chunks.
    mc = v.copy()
    mc[0, 3, 4] = -9999.0
    mc[1:3, 12, 14] = -9999.0
    arr("v_missing_chunks", mc, dims, dict(base, _FillValue=-9999.0), chunks=ch, compressor=Zlib(level=5), fill_value=-9999.0)
    for key in ("0.1.1", "1.0.2"):  # (time 0-1, lat 10-19, lon 10-19) and (time 2-3, lat 0-9, lon 20-29)
        os.remove(os.path.join(path, "v_missing_chunks", key))
    zarr.consolidate_metadata(zarr.DirectoryStore(path))
    return path


# ------------------------------------------------------------------------------------------------ era5_v3 (by hand)

def v3_encode(a, codecs, fill):
    """Encode one chunk (a numpy array of the chunk's shape) through a v3 codec chain."""
    data = a
    for c in codecs:
        name, conf = c["name"], c.get("configuration", {})
        if name == "transpose":
            data = np.ascontiguousarray(np.transpose(data, conf["order"]))
        elif name == "bytes":
            data = np.ascontiguousarray(data).astype(data.dtype.newbyteorder("<" if conf["endian"] == "little" else ">")).tobytes()
        elif name == "sharding_indexed":
            data = v3_encode_shard(data, conf, fill)
        elif name == "gzip":
            data = GZipNoTime(level=conf["level"]).encode(data)
        elif name == "zstd":
            assert conf.get("checksum") is False
            data = Zstd(level=conf["level"]).encode(data)
        elif name == "blosc":
            shuffle = {"noshuffle": Blosc.NOSHUFFLE, "shuffle": Blosc.SHUFFLE, "bitshuffle": Blosc.BITSHUFFLE}[conf["shuffle"]]
            typed = np.frombuffer(data, dtype="<u%d" % conf["typesize"])  # numcodecs takes typesize from the buffer's itemsize
            data = Blosc(cname=conf["cname"], clevel=conf["clevel"], shuffle=shuffle, blocksize=conf["blocksize"]).encode(typed)
            assert data[3] == conf["typesize"]
        elif name == "crc32c":
            data = bytes(data) + struct.pack("<I", crc32c(bytes(data)))
        else:
            raise ValueError(name)
    return bytes(data)


def v3_encode_shard(shard, conf, fill):
    """sharding_indexed: inner chunks (C order of the inner grid) then the index (uint64 offset, nbytes per
    inner chunk, shape inner grid + [2]) encoded by index_codecs, at the end. An inner chunk that is all
    fill_value is left out (offset = nbytes = 2^64 - 1)."""
    inner = conf["chunk_shape"]
    grid = [s // c for s, c in zip(shard.shape, inner)]
    index = np.full(grid + [2], np.iinfo(np.uint64).max, dtype=np.uint64)
    body = bytearray()
    for idx in np.ndindex(*grid):
        sl = tuple(slice(i * c, (i + 1) * c) for i, c in zip(idx, inner))
        part = shard[sl]
        if np.all(part == fill):
            continue
        enc = v3_encode(part, conf["codecs"], fill)
        index[idx] = (len(body), len(enc))
        body += enc
    assert conf["index_location"] == "end"
    return bytes(body) + v3_encode(index, conf["index_codecs"], None)


def v3_array(root, name, data, chunk_shape, codecs, fill_value, attributes, dims, data_type):
    path = os.path.join(root, name)
    os.makedirs(path)
    meta = {
        "zarr_format": 3,
        "node_type": "array",
        "shape": list(data.shape),
        "data_type": data_type,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(chunk_shape)}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": fill_value,
        "codecs": codecs,
        "attributes": attributes,
        "dimension_names": dims,
    }
    write_json(os.path.join(path, "zarr.json"), meta)
    fill = np.array(float("nan") if fill_value == "NaN" else fill_value).astype(data.dtype)
    grid = [-(-s // c) for s, c in zip(data.shape, chunk_shape)]
    for idx in np.ndindex(*grid):
        chunk = np.full(chunk_shape, fill, dtype=data.dtype)  # edge chunks padded with fill_value
        sl = tuple(slice(i * c, min((i + 1) * c, s)) for i, c, s in zip(idx, chunk_shape, data.shape))
        part = data[sl]
        chunk[tuple(slice(0, n) for n in part.shape)] = part
        if np.all(chunk == fill) and fill_value != "NaN":
            continue  # an all-fill chunk is not written
        key = os.path.join(path, "c", *[str(i) for i in idx])
        os.makedirs(os.path.dirname(key), exist_ok=True)
        with open(key, "wb") as f:
            f.write(v3_encode(chunk, codecs, fill))


def write_era5_v3(raw):
    path = os.path.join(OUT, "era5_v3.zarr")
    rmtree(path)
    os.makedirs(path)
    time, lat, lon = era5_grid()
    cf = era5_cf_attrs()
    write_json(os.path.join(path, "zarr.json"), {
        "zarr_format": 3, "node_type": "group",
        "attributes": {"Conventions": "CF-1.6", "title": "ERA5-like 2 m temperature, Zarr v3 (synthetic)",
                       "source": "tools/oracle/cube_fixtures.py"}})
    le = {"name": "bytes", "configuration": {"endian": "little"}}
    be = {"name": "bytes", "configuration": {"endian": "big"}}
    zstd = {"name": "zstd", "configuration": {"level": 3, "checksum": False}}
    gzip = {"name": "gzip", "configuration": {"level": 5}}
    crc = {"name": "crc32c"}
    v3_array(path, "time", time.astype(np.int64), [48], [le], 0,
             dict(cf["time"], units="hours since 1900-01-01 00:00:00.0", calendar="gregorian"), ["time"], "int64")
    v3_array(path, "latitude", lat, [73], [le, zstd], "NaN", cf["latitude"], ["latitude"], "float32")
    v3_array(path, "longitude", lon, [144], [le, gzip], "NaN", cf["longitude"], ["longitude"], "float32")
    t_attrs = dict(cf["t2m"], scale_factor=ERA5_SCALE, add_offset=ERA5_OFFSET, _FillValue=ERA5_FILL)
    dims = ["time", "latitude", "longitude"]
    blosc = {"name": "blosc", "configuration": {"cname": "zstd", "clevel": 5, "shuffle": "shuffle", "typesize": 2, "blocksize": 0}}
    blosc_lz4 = {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": 2, "blocksize": 0}}
    shard = {"name": "sharding_indexed", "configuration": {
        "chunk_shape": [12, 18, 18],
        "codecs": [le, zstd],
        "index_codecs": [le, crc],
        "index_location": "end"}}
    variants = [
        ("t2m", [le, zstd]),
        ("t2m_gzip", [le, gzip]),
        ("t2m_zstd_be", [be, zstd]),
        ("t2m_transpose", [{"name": "transpose", "configuration": {"order": [2, 1, 0]}}, le, blosc]),
        ("t2m_sharded", [shard]),
        ("t2m_crc", [le, zstd, crc]),
        ("t2m_blosc", [le, blosc_lz4]),
        ("t2m_blosc_be", [be, blosc_lz4]),
    ]
    for name, codecs in variants:
        v3_array(path, name, raw, [24, 36, 36], codecs, ERA5_FILL, t_attrs, dims, "int16")
    return path


# ------------------------------------------------------------------------------------------------ NetCDF + kerchunk

def cmip_grid():
    lat = np.arange(49) * 1.25 - 30.0          # -30 .. 30, centres
    lon = np.arange(48) * 1.25 + 0.625         # 0.625 .. 59.375, cells 0 .. 60
    return lat, lon


def cmip_values(nt, seed, months):
    lat, lon = cmip_grid()
    rng = np.random.default_rng(seed)
    la, lo = np.meshgrid(np.radians(lat), np.radians(lon), indexing="ij")
    s = 300 - 25 * np.sin(la) ** 2 + 2.5 * np.sin(3 * lo) * np.cos(2 * la)
    tex = rng.normal(0, 1, (51, 50))
    tex = sum(tex[i:i + 49, j:j + 48] for i in range(3) for j in range(3)) / 3
    s = s + 0.7 * tex
    v = np.empty((nt, 49, 48))
    for t in range(nt):
        v[t] = np.roll(s, t, axis=1) + 6 * np.sin(2 * np.pi * (months[t] - 4) / 12) * np.sin(la)
    return (np.round(v * 256) / 256).astype(np.float32)


def write_nc(path, calendar, units, tvals, tas, bounds, title):
    rmtree(path)
    lat, lon = cmip_grid()
    ds = netCDF4.Dataset(path, "w", format="NETCDF4")
    ds.setncatts({"Conventions": "CF-1.7 CMIP-6.2", "title": title, "source": "tools/oracle/cube_fixtures.py",
                  "license": "synthetic data, made for the tests"})
    ds.createDimension("time", len(tvals))
    ds.createDimension("lat", 49)
    ds.createDimension("lon", 48)
    if bounds:
        ds.createDimension("bnds", 2)
    t = ds.createVariable("time", "f8", ("time",), contiguous=True)
    t.setncatts({"units": units, "calendar": calendar, "standard_name": "time", "long_name": "time", "axis": "T"})
    t[:] = tvals
    y = ds.createVariable("lat", "f8", ("lat",), contiguous=True)
    y.setncatts({"units": "degrees_north", "standard_name": "latitude", "long_name": "Latitude", "axis": "Y"})
    x = ds.createVariable("lon", "f8", ("lon",), contiguous=True)
    x.setncatts({"units": "degrees_east", "standard_name": "longitude", "long_name": "Longitude", "axis": "X"})
    y[:] = lat
    x[:] = lon
    if bounds:
        y.bounds = "lat_bnds"
        x.bounds = "lon_bnds"
        yb = ds.createVariable("lat_bnds", "f8", ("lat", "bnds"), contiguous=True)
        xb = ds.createVariable("lon_bnds", "f8", ("lon", "bnds"), contiguous=True)
        yb[:] = np.stack([lat - 0.625, lat + 0.625], axis=1)
        xb[:] = np.stack([lon - 0.625, lon + 0.625], axis=1)
    h = ds.createVariable("height", "f8", ())
    h.setncatts({"units": "m", "axis": "Z", "positive": "up", "long_name": "height", "standard_name": "height"})
    h[...] = 2.0
    v = ds.createVariable("tas", "f4", ("time", "lat", "lon"), zlib=True, complevel=4, shuffle=True,
                          chunksizes=(6, 16, 16), fill_value=np.float32(1e20))
    v.setncatts({"standard_name": "air_temperature", "long_name": "Near-Surface Air Temperature", "units": "K",
                 "cell_methods": "area: time: mean", "coordinates": "height", "missing_value": np.float32(1e20)})
    v[:] = tas
    ds.close()


def kerchunk_refs(nc_path, url, inline_threshold=400):
    """The reference set kerchunk's SingleHdf5ToZarr (kerchunk/hdf.py) makes for a NetCDF4 file, made here
    with h5py: .zgroup/.zattrs at the root; per variable .zarray (compressor null, the HDF5 pipeline as
    filters: shuffle then zlib; fill_value the _FillValue attribute, else null for netCDF variables),
    .zattrs (the attributes without _FillValue and the HDF5/netCDF internals, plus _ARRAY_DIMENSIONS), and
    one [url, offset, length] per stored chunk; chunks smaller than inline_threshold bytes are inlined
    (as text when the bytes are valid UTF-8, else "base64:..."). Dimension scales with no storage
    (the `bnds` dimension) are left out, as kerchunk does."""
    hidden = {"REFERENCE_LIST", "CLASS", "DIMENSION_LIST", "NAME", "_Netcdf4Dimid", "_Netcdf4Coordinates",
              "_nc3_strict", "_NCProperties"}
    refs = {}

    def attrs_of(obj):
        out = {}
        for n, v in obj.attrs.items():
            if n in hidden or n == "_FillValue":
                continue
            if isinstance(v, bytes):
                v = v.decode("utf-8")
            elif isinstance(v, (np.ndarray, np.number)):
                v = v.flatten()[0].item() if v.size == 1 else v.tolist()
            out[n] = v
        return out

    def js(obj):
        return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=True)

    raw = open(nc_path, "rb").read()
    with h5py.File(nc_path, "r") as f:
        refs[".zgroup"] = js({"zarr_format": 2})
        refs[".zattrs"] = js(attrs_of(f))
        names = []
        f.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
        for name in sorted(names):
            d = f[name]
            layout = d.id.get_create_plist().get_layout()
            chunks = {}
            if layout == h5py.h5d.COMPACT:
                chunks[(0,) * max(d.ndim, 1)] = np.ascontiguousarray(d[()]).astype(d.dtype.newbyteorder("<")).tobytes()
            elif d.chunks is None:
                if d.id.get_offset() is not None:
                    chunks[(0,) * max(d.ndim, 1)] = (d.id.get_offset(), d.id.get_storage_size())
            else:
                for i in range(d.id.get_num_chunks()):
                    info = d.id.get_chunk_info(i)
                    assert info.filter_mask == 0
                    chunks[tuple(o // c for o, c in zip(info.chunk_offset, d.chunks))] = (info.byte_offset, info.size)
            if h5py.h5ds.is_scale(d.id) and not chunks:
                continue  # a netCDF dimension without a variable
            filters = []
            if d.shuffle:
                filters.append({"id": "shuffle", "elementsize": d.dtype.itemsize})
            if d.compression == "gzip":
                filters.append({"id": "zlib", "level": d.compression_opts})
            assert d.compression in (None, "gzip")
            fill = None
            if "_FillValue" in d.attrs:
                fv = d.attrs["_FillValue"]
                fill = np.asarray(fv).astype(d.dtype).flatten()[0].item()
            zarray = {"chunks": list(d.chunks or d.shape), "compressor": None, "dtype": d.dtype.str,
                      "fill_value": fill, "filters": filters or None, "order": "C", "shape": list(d.shape),
                      "zarr_format": 2}
            dims = []
            for n in range(d.ndim):
                scales = d.dims[n]
                dims.append(scales[0].name.lstrip("/") if len(scales) == 1 else name)
            za = dict(attrs_of(d), _ARRAY_DIMENSIONS=dims)
            refs[name + "/.zarray"] = js(zarray)
            refs[name + "/.zattrs"] = js(za)
            for key, where in sorted(chunks.items()):
                k = name + "/" + ".".join(str(i) for i in key)
                if isinstance(where, bytes):
                    data = where
                elif where[1] < inline_threshold:
                    data = raw[where[0]:where[0] + where[1]]
                else:
                    refs[k] = [url, int(where[0]), int(where[1])]
                    continue
                try:
                    refs[k] = data.decode("utf-8")
                except UnicodeDecodeError:
                    refs[k] = "base64:" + base64.b64encode(data).decode()
    return refs


def check_refs(refs, nc_path, ref_dir):
    """Decode every array through the references (numcodecs) and compare with netCDF4's values."""
    ds = netCDF4.Dataset(nc_path)
    ds.set_auto_maskandscale(False)
    files = {}
    for key in [k for k in refs if k.endswith("/.zarray")]:
        name = key[:-len("/.zarray")]
        za = json.loads(refs[key])
        dt = np.dtype(za["dtype"])
        shape, chunks = za["shape"], za["chunks"]
        out = np.zeros(shape, dtype=dt)
        grid = [-(-s // c) for s, c in zip(shape, chunks)] if shape else [1]
        for idx in np.ndindex(*grid):
            v = refs.get(name + "/" + ".".join(str(i) for i in idx))
            if v is None:
                raise AssertionError("missing chunk %s %s" % (name, idx))
            if isinstance(v, list):
                u = v[0].replace("{{u}}", refs.get("__u__", ""))
                p = os.path.join(ref_dir, u)
                if p not in files:
                    files[p] = open(p, "rb").read()
                buf = files[p][v[1]:v[1] + v[2]]
            elif v.startswith("base64:"):
                buf = base64.b64decode(v[7:])
            else:
                buf = v.encode("utf-8")
            for flt in reversed(za["filters"] or []):
                buf = numcodecs.get_codec(flt).decode(buf)
            chunk = np.frombuffer(bytes(buf), dtype=dt).reshape(chunks if shape else ())
            if not shape:
                out = chunk.copy()
                continue
            sl = tuple(slice(i * c, min((i + 1) * c, s)) for i, c, s in zip(idx, chunks, shape))
            out[sl] = chunk[tuple(slice(0, x.stop - x.start) for x in sl)]
        want = ds[name][...]
        assert np.array_equal(np.asarray(want), out), name
    ds.close()


def write_refs_v0(refs, path):
    write_json(path, refs, indent=1)


def write_refs_v1(refs, path, url):
    r = {}
    for k, v in refs.items():
        r[k] = ["{{u}}", v[1], v[2]] if isinstance(v, list) else v
    write_json(path, {"version": 1, "templates": {"u": url}, "refs": r}, indent=1)


def write_cmip6():
    # noleap: 24 mid-month steps of 2014-2015 (days since 1850-01-01; 1850-01-01 .. 2014-01-01 = 164 * 365 days)
    mid = np.array([15.5, 45.0, 74.5, 105.0, 135.5, 166.0, 196.5, 227.5, 258.0, 288.5, 319.0, 349.5])
    tvals = np.concatenate([164 * 365 + mid, 165 * 365 + mid])
    tas = cmip_values(24, 2014, list(range(1, 13)) * 2)
    tas[3, 24, 24] = 1e20           # lat 0, lon 30.625, April 2014
    tas[10:14, 25, 23] = 1e20       # lat 1.25, lon 29.375, 2014-11 .. 2015-02
    tas[:, 23, 25] = 1e20           # lat -1.25, lon 31.875, always
    tas[13, 2, 40] = 1e20           # lat -27.5, lon 50.625, 2015-02
    nc = os.path.join(OUT, "cmip6_noleap.nc")
    write_nc(nc, "noleap", "days since 1850-01-01", tvals, tas, True, "CMIP6-like tas, noleap calendar (synthetic)")
    refs = kerchunk_refs(nc, "cmip6_noleap.nc")
    check_refs(refs, nc, OUT)
    write_refs_v0(refs, os.path.join(OUT, "cmip6_noleap.json"))
    write_refs_v1(refs, os.path.join(OUT, "cmip6_noleap.v1.json"), "cmip6_noleap.nc")
    v1 = json.load(open(os.path.join(OUT, "cmip6_noleap.v1.json")))
    check_refs(dict(v1["refs"], __u__=v1["templates"]["u"]), nc, OUT)

    # 360_day: 2001-02-27 .. 2001-03-02 (days since 2001-01-01; 2001-02-27 is day 30 + 26)
    tvals = np.array([56.0, 57.0, 58.0, 59.0, 59.5, 60.0, 61.0])
    tas = cmip_values(7, 2001, [2, 2, 2, 2, 2, 3, 3])
    tas[2, 24, 24] = 1e20           # 2001-02-29, lat 0, lon 30.625
    tas[:, 23, 25] = 1e20
    nc = os.path.join(OUT, "cmip6_360day.nc")
    write_nc(nc, "360_day", "days since 2001-01-01 00:00:00", tvals, tas, False, "CMIP6-like tas, 360_day calendar (synthetic)")
    refs = kerchunk_refs(nc, "cmip6_360day.nc")
    check_refs(refs, nc, OUT)
    write_refs_v0(refs, os.path.join(OUT, "cmip6_360day.json"))


# ------------------------------------------------------------------------------------------------ polar

POLAR_CF = {
    "grid_mapping_name": "polar_stereographic",
    "straight_vertical_longitude_from_pole": -45.0,
    "latitude_of_projection_origin": 90.0,
    "standard_parallel": 70.0,
    "false_easting": 0.0,
    "false_northing": 0.0,
    "semi_major_axis": 6378137.0,
    "inverse_flattening": 298.257223563,
}


def polar_grid():
    x = -487500.0 + 25000.0 * np.arange(40)      # cells -500 km .. 500 km
    y = -1012500.0 - 25000.0 * np.arange(40)     # descending; cells -1000 km .. -2000 km
    return x, y


def write_polar():
    path = os.path.join(OUT, "polar.zarr")
    rmtree(path)
    x, y = polar_grid()
    X, Y = np.meshgrid(x, y)
    # Synthetic "land": an ellipse (fill 255), a coast ring of flag values 120..250 (outside valid_range),
    # sea ice elsewhere, 0..100 %, retreating a little each day.
    d = np.sqrt(((X - 50e3) / 330e3) ** 2 + ((Y + 1550e3) / 420e3) ** 2)
    rng = np.random.default_rng(3413)
    noise = rng.integers(-6, 7, (6, 40, 40))
    sic = np.empty((6, 40, 40), dtype=np.uint8)
    for t in range(6):
        ice = 100 - np.maximum(0, (d - 1.15) * 140) + 10 * np.sin(X / 90e3 + 0.4 * t) - 3 * t + noise[t]
        v = np.clip(np.round(ice), 0, 100)
        v = np.where(d < 1.0, 255, v)
        coast = (d >= 1.0) & (d < 1.12)
        flags = 120 + (np.arange(40)[:, None] * 7 + np.arange(40)[None, :] * 13 + t) % 131
        v = np.where(coast, flags, v)
        sic[t] = v.astype(np.uint8)
    g = zarr.open_group(zarr.DirectoryStore(path), mode="w")
    g.attrs.update({"Conventions": "CF-1.8", "title": "sea ice concentration on EPSG:3413 (synthetic)",
                    "source": "tools/oracle/cube_fixtures.py"})

    def arr(name, data, dims, attrs, **kw):
        a = g.create_dataset(name, shape=data.shape, chunks=kw.pop("chunks", data.shape) or (), dtype=data.dtype, **kw)
        a[...] = data
        a.attrs.update(dict(attrs, _ARRAY_DIMENSIONS=list(dims)))

    arr("time", np.arange(6, dtype=np.int32), ["time"],
        {"standard_name": "time", "units": "days since 2020-01-01", "calendar": "standard", "axis": "T"}, fill_value=None, compressor=Zlib(level=5))
    arr("x", x, ["x"], {"standard_name": "projection_x_coordinate", "units": "m", "axis": "X", "long_name": "x"}, fill_value=None, compressor=Zlib(level=5))
    arr("y", y, ["y"], {"standard_name": "projection_y_coordinate", "units": "m", "axis": "Y", "long_name": "y"}, fill_value=None, compressor=Zlib(level=5))
    crs_attrs = dict(POLAR_CF, crs_wkt=pyproj.CRS.from_epsg(3413).to_wkt(version="WKT1_GDAL"),
                     long_name="NSIDC Sea Ice Polar Stereographic North")
    arr("crs", np.array(0, dtype=np.int32), [], crs_attrs, fill_value=None, compressor=None)
    arr("sic", sic, ["time", "y", "x"],
        {"standard_name": "sea_ice_area_fraction", "long_name": "sea ice concentration", "units": "percent",
         "grid_mapping": "crs", "_FillValue": 255, "valid_range": [0, 100],
         "flag_meanings": "coast_and_other_flags", "comment": "values 120..250 are flags, outside valid_range"},
        chunks=(3, 20, 20), fill_value=255, compressor=Zlib(level=5))
    # the CF attributes and EPSG:3413 are the same projection
    a = pyproj.Transformer.from_crs("EPSG:4326", pyproj.CRS.from_cf(POLAR_CF), always_xy=True)
    b = pyproj.Transformer.from_crs("EPSG:4326", "EPSG:3413", always_xy=True)
    for lon, lat in [(-45, 75), (-70, 72), (-20, 80)]:
        pa, pb = a.transform(lon, lat), b.transform(lon, lat)
        assert abs(pa[0] - pb[0]) < 1e-3 and abs(pa[1] - pb[1]) < 1e-3
    return path


# ------------------------------------------------------------------------------------------------ levels

def write_levels():
    path = os.path.join(OUT, "levels.zarr")
    rmtree(path)
    lat = np.arange(59.0, 30.0, -2.0)   # 15, descending, cells 60 .. 30
    lon = np.arange(-19.0, 20.0, 2.0)   # 20, cells -20 .. 20 (a -180..180 grid)
    level = np.array([1000, 850, 500, 250], dtype=np.int32)
    time = np.array([0.0, 6.0, 12.0])
    rng = np.random.default_rng(850)
    la, lo = np.meshgrid(np.radians(lat), np.radians(lon), indexing="ij")
    t = np.empty((3, 4, 15, 20))
    for i in range(3):
        for k, p in enumerate(level):
            z = 44330.0 * (1 - (p / 1013.25) ** 0.1903)  # standard-atmosphere height, m
            t[i, k] = 288.15 - 0.0065 * z - 12 * np.sin(la) ** 2 + 2 * np.sin(5 * lo + i) * np.cos(3 * la) + rng.normal(0, 0.4, (15, 20))
    t = (np.round(t * 256) / 256).astype(np.float32)
    t[1, 1, 7, 10] = np.nan   # 850 hPa, lat 45, lon 1, second step
    g = zarr.open_group(zarr.DirectoryStore(path), mode="w")
    g.attrs.update({"Conventions": "CF-1.8", "title": "temperature on pressure levels (synthetic)"})

    def arr(name, data, dims, attrs, **kw):
        a = g.create_dataset(name, shape=data.shape, chunks=kw.pop("chunks", data.shape), dtype=data.dtype, **kw)
        a[...] = data
        a.attrs.update(dict(attrs, _ARRAY_DIMENSIONS=list(dims)))

    arr("time", time, ["time"], {"standard_name": "time", "units": "hours since 2021-06-01 00:00:00", "calendar": "proleptic_gregorian", "axis": "T"},
        fill_value=None, compressor=None)
    arr("level", level, ["level"], {"standard_name": "air_pressure", "long_name": "pressure level", "units": "hPa", "positive": "down", "axis": "Z"},
        fill_value=None, compressor=None)
    arr("lat", lat, ["lat"], {"standard_name": "latitude", "units": "degrees_north", "axis": "Y"}, fill_value=None, compressor=None)
    arr("lon", lon, ["lon"], {"standard_name": "longitude", "units": "degrees_east", "axis": "X"}, fill_value=None, compressor=None)
    arr("t", t, ["time", "level", "lat", "lon"], {"standard_name": "air_temperature", "units": "K"},
        chunks=(2, 2, 8, 10), fill_value=float("nan"), compressor=Zstd(level=3))
    zarr.consolidate_metadata(zarr.DirectoryStore(path))
    return path


# ------------------------------------------------------------------------------------------------ rectilinear

def gaussian_grid():
    """A T21-like Gaussian grid: 32 latitudes north to south at the Gauss-Legendre nodes, each cell's
    bounds where the cumulative Gaussian weights put them (unequal heights, centres not half-way between
    the bounds); 64 longitudes 0 .. 354.375 with equal bounds."""
    nodes, weights = np.polynomial.legendre.leggauss(32)
    # Rounded to 1e-11 degrees: numpy's arcsin (and LAPACK under leggauss) differ in the last bit from one
    # CPU to another (AVX2, AVX-512), and the fixture's bytes must not.
    lat = np.round(np.degrees(np.arcsin(nodes))[::-1], 11)       # north to south
    sin_edges = 1.0 - np.concatenate([[0.0], np.cumsum(weights[::-1])])
    lat_edges = np.round(np.degrees(np.arcsin(np.clip(sin_edges, -1.0, 1.0))), 11)
    lat_edges[0], lat_edges[-1] = 90.0, -90.0
    lon = np.arange(64) * 5.625
    lon_edges = np.arange(65) * 5.625 - 2.8125
    return lat, lat_edges, lon, lon_edges


def stretched_grid():
    """Cells of unequal widths and heights (a stretched regional grid): longitudes -20 .. 40 with widths
    growing eastwards, latitudes 30 .. 60 ascending with heights growing northwards; centres half-way."""
    wx = 1.0 + 0.08 * np.arange(24)
    lon_edges = -20.0 + np.concatenate([[0.0], np.cumsum(wx)]) * (60.0 / wx.sum())
    wy = 1.0 + 0.1 * np.arange(18)
    lat_edges = 30.0 + np.concatenate([[0.0], np.cumsum(wy)]) * (30.0 / wy.sum())
    return lat_edges, lon_edges


def write_rectilinear(path, lat, lat_edges, lon, lon_edges, values, chunks, title, lon_attrs):
    rmtree(path)
    nt = values.shape[0]
    ds = xr.Dataset(
        {"pr": (("time", "lat", "lon"), values, {"standard_name": "precipitation_flux", "units": "kg m-2 s-1"})},
        coords={
            "time": ("time", np.arange(nt, dtype=np.float64), {"standard_name": "time", "units": "days since 2000-01-01",
                                                            "calendar": "proleptic_gregorian", "axis": "T"}),
            "lat": ("lat", lat, {"standard_name": "latitude", "units": "degrees_north", "axis": "Y", "bounds": "lat_bnds"}),
            "lon": ("lon", lon, dict(lon_attrs, bounds="lon_bnds")),
            "lat_bnds": (("lat", "bnds"), np.stack([lat_edges[:-1], lat_edges[1:]], axis=1)),
            "lon_bnds": (("lon", "bnds"), np.stack([lon_edges[:-1], lon_edges[1:]], axis=1)),
        },
        attrs={"Conventions": "CF-1.8", "title": title, "source": "tools/oracle/cube_fixtures.py"},
    )
    enc = {"pr": {"dtype": "float32", "_FillValue": np.float32(np.nan), "chunks": chunks, "compressor": Zlib(level=5)},
           "time": {"dtype": "float64"}}
    ds.to_zarr(path, mode="w", encoding=enc, consolidated=True)
    return path


def rect_values(lat, lon, nt, seed):
    rng = np.random.default_rng(seed)
    la, lo = np.meshgrid(np.radians(lat), np.radians(lon), indexing="ij")
    v = np.empty((nt, len(lat), len(lon)))
    for t in range(nt):
        v[t] = 3 + 2 * np.cos(la) ** 2 + np.sin(2 * lo + 0.7 * t) * np.cos(la) + rng.normal(0, 0.3, la.shape)
    v = np.round(v * 256) / 256
    return v.astype(np.float32)


def write_gaussian():
    lat, lat_edges, lon, lon_edges = gaussian_grid()
    v = rect_values(lat, lon, 4, 2121)
    v[1, 5, 10] = np.nan      # lat ~62.0 N, lon 56.25, second step
    v[2, 15:17, 0:2] = np.nan  # near the equator, lon 0 .. 5.6, third step
    return write_rectilinear(os.path.join(OUT, "gaussian.zarr"), lat, lat_edges, lon, lon_edges, v, (2, 16, 32),
                             "a Gaussian (T21-like) grid: unequal latitude bounds (synthetic)",
                             {"standard_name": "longitude", "units": "degrees_east", "axis": "X"})


def write_stretched():
    lat_edges, lon_edges = stretched_grid()
    lat = (lat_edges[:-1] + lat_edges[1:]) / 2
    lon = (lon_edges[:-1] + lon_edges[1:]) / 2
    v = rect_values(lat, lon, 3, 3131)
    v[0, 9, 12] = np.nan
    return write_rectilinear(os.path.join(OUT, "stretched.zarr"), lat, lat_edges, lon, lon_edges, v, (3, 9, 12),
                             "a stretched regional grid: unequal latitude and longitude bounds (synthetic)",
                             {"standard_name": "longitude", "units": "degrees_east", "axis": "X"})


# ------------------------------------------------------------------------------------------------ cases

def feature(fid, geometry, name):
    return {"type": "Feature", "id": fid, "properties": {"name": name}, "geometry": geometry}


def poly(*rings):
    return {"type": "Polygon", "coordinates": [[list(p) for p in r] + [list(r[0])] for r in rings]}


def subdivided(geometry, step):
    """A Polygon with each edge cut into pieces of at most `step` degrees (vertices on the straight lon/lat
    line, rounded to 1e-6 degrees): the same zone, but with edges short enough that any implementation's
    projection of them agrees to well under 1/100 of a 25 km cell."""
    rings = []
    for r in geometry["coordinates"]:
        out = []
        for (x0, y0), (x1, y1) in zip(r[:-1], r[1:]):
            n = max(1, int(np.ceil(max(abs(x1 - x0), abs(y1 - y0)) / step)))
            out += [[round(x0 + (x1 - x0) * k / n, 6), round(y0 + (y1 - y0) * k / n, 6)] for k in range(n)]
        rings.append(out + [out[0]])
    return {"type": "Polygon", "coordinates": rings}


def multipoly(*polys):
    return {"type": "MultiPolygon", "coordinates": [p["coordinates"] for p in polys]}


def fc(*features):
    return {"type": "FeatureCollection", "features": list(features)}


ERA5_ZONES = fc(
    feature("straddle_0", poly([(-7.13, 40.21), (8.37, 41.06), (7.81, 49.32), (1.07, 51.71), (-6.44, 48.86)]),
            "west Europe, -7.13..8.37 E: cells from both ends of the 0..360 grid"),
    feature("chunk_corner", poly([(80.54, 0.97), (88.2, -9.6), (98.15, 0.49), (89.11, 12.56)],
                                 [(87.78, 0.44), (90.13, 0.51), (89.71, 2.46), (88.11, 2.08)]),
            "a diamond with a hole around lon 88.75 / lat 1.25, where four chunks meet"),
    feature("rockies", poly([(-114.51, 34.17), (-104.11, 34.96), (-104.98, 44.57), (-113.52, 43.71)]),
            "negative longitudes on a 0..360 grid, over the always-fill cell (lat 40, lon 250)"),
    feature("one_cell", poly([(14.62, 49.71), (15.41, 49.71), (15.41, 50.33), (14.62, 50.33)]),
            "small, inside the cell (lat 50, lon 15) and around its centre; that cell is fill at steps 10..12"),
    feature("south_atlantic", poly([(-52.31, -63.4), (6.49, -61.93), (4.33, -38.27), (-49.07, -40.53)]),
            "straddles lon 0 in the south; its western part lies in the region that is fill at steps 36..47"),
)

CODECS_ZONES = fc(
    feature("holed", poly([(3.29, -6.54), (24.88, -7.95), (26.31, 5.52), (11.94, 8.59), (4.51, 3.21)],
                          [(12.2, -2.08), (17.74, -3.0), (16.75, 2.46), (11.91, 1.55)]),
            "a polygon with a hole over chunk edges (lat 0, lon 10, lon 20)"),
    feature("two_parts", multipoly(poly([(-3.37, -12.23), (6.37, -12.61), (2.13, -4.21)]),
                                   poly([(25.17, 6.26), (33.49, 5.92), (32.81, 12.35), (26.01, 11.25)])),
            "a MultiPolygon whose two parts both stick out of the grid"),
)

CMIP_ZONES = fc(
    feature("straddle_0", poly([(-4.17, -3.16), (6.14, -4.78), (5.12, 6.07), (-3.71, 4.3)]),
            "across lon 0; the grid is 0..60 E, so only the eastern part has cells"),
    feature("missing", poly([(26.14, -3.45), (35.0, -2.62), (33.16, 4.22), (27.36, 3.6)]),
            "over the cells with missing values (1e20)"),
    feature("south_edge", poly([(44.25, -33.75), (56.75, -31.78), (52.99, -22.41), (45.92, -24.26)]),
            "across chunk edges and out over the grid's south edge (-30.625)"),
)

POLAR_ZONES = fc(
    feature("baffin", subdivided(poly([(-75.31, 74.31), (-60.37, 73.49), (-58.79, 78.9), (-70.29, 79.58)]), 0.25),
            "west of the synthetic land; partly outside the grid; edges given as steps of <= 0.25 degrees"),
    feature("east_coast", subdivided(poly([(-32.33, 72.4), (-16.07, 73.32), (-13.74, 79.82), (-28.68, 80.34)]), 0.25),
            "east; across the grid's east edge; edges given as steps of <= 0.25 degrees"),
    feature("interior", poly([(-50.58, 74.49), (-38.27, 74.8), (-30.49, 79.6)]),
            "mostly over the land (fill 255) and coast flags (120..250), a few valid cells at its north-east "
            "tip; three long edges: its area in EPSG:3413 is 20 % off unless the edges are densified"),
)

LEVEL_ZONES = fc(
    feature("france", poly([(-5.14, 40.41), (6.95, 41.75), (6.39, 49.87), (-4.34, 48.38)]), "inside, across lon 0"),
    feature("north_east", poly([(15.25, 54.94), (24.41, 56.24), (22.76, 63.43), (14.05, 61.9)]), "partly outside (east and north)"),
)

GAUSSIAN_ZONES = fc(
    feature("straddle_0", poly([(-13.37, 18.21), (12.91, 21.64), (9.48, 46.13), (-11.02, 43.87)]),
            "across lon 0 of the 0..360 grid, over cells of several heights"),
    feature("polar", poly([(20.11, 71.37), (118.73, 69.52), (101.4, 88.61), (31.6, 86.95)]),
            "up to the last cell before the pole, where the Gaussian cells are least alike"),
    feature("tropics_holed", poly([(40.17, -12.64), (71.83, -9.02), (68.35, 13.77), (43.09, 11.41)],
                                  [(50.21, -3.3), (61.72, -2.18), (59.86, 4.93), (52.02, 3.6)]),
            "a polygon with a hole across the equator"),
)

STRETCHED_ZONES = fc(
    feature("west", poly([(-18.63, 31.28), (-4.11, 33.5), (-6.72, 44.91), (-17.05, 42.3)]), "the narrow cells"),
    feature("east_out", poly([(27.33, 47.86), (44.9, 49.15), (43.17, 63.72), (25.81, 58.64)]),
            "the wide cells, out over the east and north edges"),
    feature("across", poly([(-9.61, 38.07), (31.54, 36.92), (14.2, 55.81)]), "a triangle over most of the grid"),
)

ALL = ["count", "sum", "mean", "min", "max"]
CODEC_VARS = ["v_zlib", "v_gzip", "v_zstd", "v_lz4", "v_bz2", "v_blosc_lz4_shuffle", "v_blosc_zstd_bitshuffle",
              "v_blosc_zlib_noshuffle", "v_none", "v_delta", "v_delta_i4", "v_fixedscaleoffset", "v_bigendian",
              "v_fortran", "v_dimsep", "v_missing_chunks"]
V3_VARS = ["t2m", "t2m_gzip", "t2m_zstd_be", "t2m_transpose", "t2m_sharded", "t2m_crc", "t2m_blosc", "t2m_blosc_be"]


def case(name, url, variable, aoi, note, pixels="fractional", sel=None, stats=ALL, **extra):
    req = {"url": url}
    if variable is not None:
        req["variable"] = variable
    if sel is not None:
        req["sel"] = sel
    req["stats"] = stats
    req["pixels"] = pixels
    req.update(extra)
    return {"name": name, "note": note, "request": req, "aoi": aoi}


def cases():
    out = [
        case("era5_t2m_fractional", "era5.zarr", "t2m", ERA5_ZONES, "all 48 steps, coverage-weighted"),
        case("era5_t2m_center", "era5.zarr", "t2m", ERA5_ZONES, "all 48 steps, cells whose centre is inside", pixels="center"),
        case("era5_t2m_fractional_range", "era5.zarr", "t2m", ERA5_ZONES, "an inclusive time range: 7 steps",
             sel={"time": {"start": "2020-01-01T06:00:00Z", "end": "2020-01-01T12:00:00Z"}}),
        case("era5_t2m_center_dateend", "era5.zarr", "t2m", ERA5_ZONES, "a date-only end takes its whole day: steps 18..23",
             pixels="center", sel={"time": {"start": "2020-01-01T18:00:00Z", "end": "2020-01-01"}}),
        case("era5_t2m_list", "era5.zarr", "t2m", ERA5_ZONES, "a list of times, given out of order: rows in axis order",
             sel={"time": ["2020-01-02T23:00:00Z", "2020-01-01T00:00:00Z", "2020-01-01T11:00:00Z"]}),
        case("era5_t2m_pin", "era5.zarr", "t2m", ERA5_ZONES, "a single time pins the dimension: one row per zone, coords {}",
             sel={"time": "2020-01-01T12:00:00Z"}),
        case("era5_t2m_spherical_mean", "era5.zarr", "t2m", ERA5_ZONES,
             "weights = coverage x the cell's area on the sphere R = 6378137 m", stats=["mean"], coverage_weight="area_spherical_m2"),
        case("era5_t2m_f_day2", "era5.zarr", "t2m_f", ERA5_ZONES, "float32 with NaN; date-only start and end: the whole second day",
             sel={"time": {"start": "2020-01-02", "end": "2020-01-02"}}),
    ]
    for v in CODEC_VARS:
        out.append(case("codecs_" + v, "codecs.zarr", v, CODECS_ZONES,
                        "the same values as every other codecs.zarr variable" if v != "v_missing_chunks"
                        else "two chunk files missing (read as fill_value = _FillValue: nodata), plus three -9999 cells"))
    out.append(case("codecs_v_zlib_center", "codecs.zarr", "v_zlib", CODECS_ZONES, "centre rule", pixels="center"))
    for v in V3_VARS:
        out.append(case("era5_v3_" + v, "era5_v3.zarr", v, ERA5_ZONES, "Zarr v3; the same rows as era5_t2m_fractional"))
    out += [
        case("cmip6_noleap_v0", "cmip6_noleap.json", "tas", CMIP_ZONES, "kerchunk v0 reference to a NetCDF4 file, noleap calendar"),
        case("cmip6_noleap_v1", "cmip6_noleap.v1.json", "tas", CMIP_ZONES, "the same through a version 1 reference (templates)"),
        case("cmip6_noleap_v1_feb", "cmip6_noleap.v1.json", "tas", CMIP_ZONES,
             "a range across February; the date-only end takes 2015-03-16T12:00:00", pixels="center",
             sel={"time": {"start": "2014-12-01", "end": "2015-03-16"}}),
        case("cmip6_360day", "cmip6_360day.json", "tas", CMIP_ZONES, "360_day calendar: 2001-02-29 and 2001-02-30 exist"),
        case("cmip6_360day_feb30", "cmip6_360day.json", "tas", CMIP_ZONES, "range 2001-02-29 .. 2001-02-30 (date-only end: 3 steps)",
             pixels="center", sel={"time": {"start": "2001-02-29", "end": "2001-02-30"}}),
        case("polar_sic_fractional", "polar.zarr", "sic", POLAR_ZONES,
             "EPSG:3413 grid from CF grid_mapping; coverage in metres of the reprojected zones; valid_range masks 120..250"),
        case("polar_sic_center", "polar.zarr", "sic", POLAR_ZONES, "centre rule on the projected grid", pixels="center"),
        case("levels_t_850", "levels.zarr", "t", LEVEL_ZONES, "level pinned to 850: rows per time", sel={"level": 850}),
        case("levels_t_all", "levels.zarr", "t", LEVEL_ZONES, "time and level iterated: time outermost, then level"),
        case("era5_expression", "era5.zarr", "t2m", ERA5_ZONES, "an expression over two variables of one grid and chunking, per step",
             sel={"time": {"start": "2020-01-01T20:00:00Z", "end": "2020-01-02T03:00:00Z"}}, expression="(t2m_f - t2m) * 1000 + t2m / 2"),
        case("gaussian_fractional", "gaussian.zarr", "pr", GAUSSIAN_ZONES,
             "a rectilinear latitude axis (its bounds): coverage on cells of unequal heights"),
        case("gaussian_center", "gaussian.zarr", "pr", GAUSSIAN_ZONES,
             "centre rule: a cell's centre is the middle of its bounds, not its (Gaussian) coordinate", pixels="center"),
        case("gaussian_spherical_mean", "gaussian.zarr", "pr", GAUSSIAN_ZONES,
             "weights = coverage x the cell's area on the sphere, from its bounds", stats=["mean", "sum"],
             coverage_weight="area_spherical_m2"),
        case("stretched_fractional", "stretched.zarr", "pr", STRETCHED_ZONES,
             "unequal widths and heights: both axes rectilinear"),
        case("stretched_center", "stretched.zarr", "pr", STRETCHED_ZONES, "centre rule on both rectilinear axes",
             pixels="center"),
        case("codecs_expression", "codecs.zarr", None, CODECS_ZONES, "an expression without `variable`: the first it names gives the grid; "
             "v_missing_chunks' absent chunks are nodata in the result", expression="v_zlib * 2 - v_missing_chunks"),
    ]
    return out


def write_cases(path, cs):
    """cases.json: a list; each case's name, note and request on lines of their own, its AOI on one line."""
    parts = []
    for c in cs:
        lines = ["  {"]
        for k in ("name", "note", "request"):
            lines.append("    %s: %s," % (json.dumps(k), json.dumps(c[k])))
        lines.append('    "aoi": %s' % json.dumps(c["aoi"]))
        lines.append("  }")
        parts.append("\n".join(lines))
    with open(path, "w") as f:
        f.write("[\n" + ",\n".join(parts) + "\n]\n")
    assert json.load(open(path)) == cs


def main():
    os.makedirs(OUT, exist_ok=True)
    raw = era5_raw()
    write_era5(raw)
    write_codecs()
    write_era5_v3(raw)
    write_cmip6()
    write_polar()
    write_levels()
    write_gaussian()
    write_stretched()
    write_cases(os.path.join(OUT, "cases.json"), cases())
    total = 0
    for dirpath, _, files in os.walk(OUT):
        for f in files:
            total += os.path.getsize(os.path.join(dirpath, f))
    print("fixtures/cube: %d bytes" % total)


if __name__ == "__main__":
    main()
