#!/usr/bin/env python3
"""Writes the STAC benchmark's OLD data into bench/data/ (bench-only dev tool: Debian python3-gdal, python3-numpy,
python3-pyproj): the smooth, easy layout of issue 11 (512 px tiles, values compressing ~4.4:1, 1 km squares),
kept as a second row of the benchmark. Its default data, laid out like the public Sentinel-2 L2A COGs, is
written by bench/lib/s2_data.py, which also holds the helpers shared with this script (the tile's grid, the
scene classification field scl_field, the COG writer, the zone rasterizer and the tile accounting).

One synthetic Sentinel-2 L2A tile (the footprint of a real one: EPSG:32633, WGS 84 / UTM 33N, top-left corner
x = 399960, y = 5200020, 109.8 km x 109.8 km, about 13.7-15.1 E, 45.9-46.9 N):

bench/data/stac_B04.tif, stac_B08.tif
    10980 x 10980 UInt16, 10 m pixels, north-up, GDAL COG driver: 512 px tiles (22 x 22 = 484), DEFLATE,
    predictor 2 (horizontal differencing), no overviews, nodata 0. Values are smooth "reflectances" in
    500..5000 (x, y in pixels: col, row):
        B04 (red) = 1500 + 700 sin(x/2100) cos(y/1700) + 300 sin(x/230 + y/370) + n
        B08 (nir) = 3000 + 1500 cos(x/2600) sin(y/1900) + 400 cos(x/310 - y/190) + n
    rounded, plus n, a deterministic integer hash noise in -3..+3 (a different hash per band), clipped to
    500..5000 (only B04's few deepest troughs are touched, by at most 3), so the tiles compress about like
    real ones. No pixel is 0 except one 200 x 200 block of nodata in B04:
    rows 3000-3199, cols 7000-7199. Built in strips of 1098 rows into a temporary tiled GTiff (memory stays
    a few hundred MB), then gdal.Translate -> COG; the temporary is removed.

bench/data/stac_SCL.tif
    5490 x 5490 Byte, 20 m pixels, same CRS and top-left corner, COG driver, 512 px tiles (11 x 11 = 121),
    DEFLATE, no overviews, no nodata. Scene classes {3, 4, 5, 6, 8, 9, 10} (s2_data.scl_field) drawn by
    thresholds of smooth fields (waves of 2 to 25 km) with a small hash noise on the cloud field so class
    edges are ragged: 9 cloud high probability (cloud cores), 8 cloud medium probability (around them),
    3 cloud shadow (the cloud field shifted by about 1.5 km to the south-east, where there is no cloud),
    10 thin cirrus (a second, banded field), and on the clear ground 6 water, 5 bare soil, 4 vegetation
    from a land field.
    Classes 3, 8, 9 and 10 together cover about 30 % of the tile (printed).

bench/data/stac_zones_100.geojson
    100 random (numpy default_rng(7)) 1 km x 1 km squares, axis-aligned in UTM with corners at random
    (non grid-aligned) positions at least 200 m inside the tile, each a WGS84 lon/lat Polygon: its four UTM
    corners transformed with pyproj (EPSG:32633 -> EPSG:4326, always_xy=True), ring closed. A
    FeatureCollection; feature i has "id": "z<i>" and "properties": {"n": i}.

bench/data/stac_tiles.json (s2_data.write_tiles_file)
    GDAL's accounting of "the bytes of the tiles that hold zone pixels". Each zone of stac_zones_100.geojson
    is read back, transformed to EPSG:32633 with OGR and rasterized onto the 10 m grid with
    gdal.RasterizeLayer (pixel-centre rule, no ALL_TOUCHED); those are its selected pixels. For B04 and
    B08, a 512 x 512 tile holds zone pixels when it contains a selected pixel of any zone; for SCL, the
    tile of the 20 m pixel that contains each selected 10 m pixel's centre (SCL col = col10 // 2,
    row = row10 // 2). Tile byte counts are GDAL's (band.GetMetadataItem('BLOCK_SIZE_<tx>_<ty>', 'TIFF'):
    the TIFF TileByteCounts, without the COG driver's 4-byte leader / trailer). Written as
        {"B04": {"tiles": n, "bytes": total, "tile_bytes": [[tx, ty, bytes], ...], ...}, "B08": {...},
         "SCL": {...}, "zones": 100, "zones_pixels": total selected 10 m pixels over all zones, ...,
         "per_file_header_bytes_note": "..."}

Deterministic: the same script writes the same files. Each file is skipped when it exists (stac_tiles.json
is rewritten when one of the rasters or the zones is newer); --force rewrites everything.
Usage: /usr/bin/python3 bench/stac/make-data.py [--force]   (~1-2 min the first time, 2 cores)
"""
import os
import sys

if __name__ == '__main__':
    try:
        from osgeo import gdal  # noqa: F401
    except ImportError:  # a pyenv python3 first on the PATH lacks the Debian bindings
        if sys.executable != '/usr/bin/python3' and os.path.exists('/usr/bin/python3'):
            os.execv('/usr/bin/python3', ['/usr/bin/python3', *sys.argv])
        raise

import json
import resource
import time

import numpy as np
from osgeo import gdal
from pyproj import Transformer

# The shared Sentinel-2 tile helpers (grid, scene classification, COG writer, tile accounting); no
# __pycache__ left in the repository.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from s2_data import (DATA, EPSG, PIX10, SIZE10, X0, Y0, create_tmp, hash32, timed, to_cog,  # noqa: E402
                     write_scl_file, write_tiles_file)

B04 = os.path.join(DATA, 'stac_B04.tif')
B08 = os.path.join(DATA, 'stac_B08.tif')
SCL = os.path.join(DATA, 'stac_SCL.tif')
ZONES = os.path.join(DATA, 'stac_zones_100.geojson')
TILES = os.path.join(DATA, 'stac_tiles.json')

BLOCK = 512
STRIP = 1_098  # rows per computed strip (10 strips for the 10 m bands)
NODATA_BLOCK = (3000, 3200, 7000, 7200)  # rows r0:r1, cols c0:c1 set to 0 in B04
N_ZONES, ZONE_SEED, SIDE, MARGIN = 100, 7, 1000.0, 200.0
FORCE = '--force' in sys.argv


def int_noise(rows, cols, salt: int) -> np.ndarray:
    """Deterministic integers in -3..+3."""
    return (hash32(rows, cols, salt) % np.uint32(7)).astype(np.int32) - 3


def band_strip(name: str, row0: int, nrows: int) -> np.ndarray:
    y = np.arange(row0, row0 + nrows, dtype=np.float64)[:, None]
    x = np.arange(SIZE10, dtype=np.float64)[None, :]
    if name == 'B04':
        v = 1500 + 700 * np.sin(x / 2100) * np.cos(y / 1700) + 300 * np.sin(x / 230 + y / 370)
        salt = 0x9E3779B9
    else:
        v = 3000 + 1500 * np.cos(x / 2600) * np.sin(y / 1900) + 400 * np.cos(x / 310 - y / 190)
        salt = 0x85EBCA6B
    v = np.clip(np.rint(v) + int_noise(y[:, 0], x[0], salt), 500, 5000)
    out = v.astype(np.uint16)
    if name == 'B04':
        r0, r1, c0, c1 = NODATA_BLOCK
        a, b = max(r0, row0), min(r1, row0 + nrows)
        if a < b:
            out[a - row0:b - row0, c0:c1] = 0
    return out


def write_band(name: str, path: str) -> None:
    if os.path.exists(path) and not FORCE:
        print(f'{path} exists ({os.path.getsize(path):,} bytes; --force rewrites)')
        return
    t0 = time.time()
    tmp = path + '.tmp.tif'
    ds, band = create_tmp(tmp, SIZE10, PIX10, gdal.GDT_UInt16, BLOCK)
    band.SetNoDataValue(0)
    lo, hi, zeros = 65535, 0, 0
    for row0 in range(0, SIZE10, STRIP):
        n = min(STRIP, SIZE10 - row0)
        a = band_strip(name, row0, n)
        nz = a[a > 0]
        lo, hi, zeros = min(lo, int(nz.min())), max(hi, int(nz.max())), zeros + int(a.size - nz.size)
        band.WriteArray(a, 0, row0)
    ds = band = None
    print(f'{name}: values {lo}..{hi}, {zeros:,} nodata pixels; strips written in {time.time() - t0:.1f} s',
          flush=True)
    to_cog(tmp, path, ['COMPRESS=DEFLATE', 'PREDICTOR=2', 'BLOCKSIZE=512', 'OVERVIEWS=NONE',
                       'NUM_THREADS=ALL_CPUS', 'BIGTIFF=NO'])
    timed(name, t0, path)


def write_zones() -> None:
    if os.path.exists(ZONES) and not FORCE:
        print(f'{ZONES} exists ({os.path.getsize(ZONES):,} bytes; --force rewrites)')
        return
    rng = np.random.default_rng(ZONE_SEED)
    span = SIZE10 * PIX10 - SIDE - 2 * MARGIN
    xs = X0 + MARGIN + rng.random(N_ZONES) * span
    ys = Y0 - SIZE10 * PIX10 + MARGIN + rng.random(N_ZONES) * span  # lower-left corners
    tr = Transformer.from_crs(EPSG, 4326, always_xy=True)
    features = []
    for i, (x, y) in enumerate(zip(xs.tolist(), ys.tolist())):
        cx = [x, x + SIDE, x + SIDE, x, x]
        cy = [y, y, y + SIDE, y + SIDE, y]
        lon, lat = tr.transform(cx, cy)
        ring = [[float(a), float(b)] for a, b in zip(lon, lat)]
        ring[-1] = list(ring[0])
        features.append({'type': 'Feature', 'id': f'z{i}', 'properties': {'n': i},
                         'geometry': {'type': 'Polygon', 'coordinates': [ring]}})
    tmp = ZONES + '.part'
    with open(tmp, 'w') as f:
        json.dump({'type': 'FeatureCollection', 'features': features}, f, separators=(',', ':'))
    os.replace(tmp, ZONES)
    print(f'wrote {ZONES} ({N_ZONES} zones, {os.path.getsize(ZONES):,} bytes)')


def main() -> None:
    t0 = time.time()
    os.makedirs(DATA, exist_ok=True)
    write_band('B04', B04)
    write_band('B08', B08)
    write_scl_file(SCL, BLOCK, FORCE)
    write_zones()
    write_tiles_file(TILES, B04, B08, SCL, ZONES, FORCE)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f'done in {time.time() - t0:.1f} s, peak RSS {rss:.0f} MiB')


if __name__ == '__main__':
    main()
