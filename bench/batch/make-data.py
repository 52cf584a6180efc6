#!/usr/bin/env python3
"""Writes the batch benchmark's data (bench-only dev tool: Debian gdal-bin, python3-gdal, python3-numpy).

bench/data/batch_10k.cog.tif
    10000 x 10000 Float32, EPSG:32633 (WGS 84 / UTM 33N), 10 m pixels, 100 km x 100 km (top-left corner
    x = 450000, y = 5200000: 14.3-15.7 E, 46.0-46.9 N, on the zone's central meridian), GDAL COG driver:
    512 px tiles (20 x 20 = 400 tiles), DEFLATE, predictor 3 (floating point), internal overviews,
    nodata -9999.
    Values: a smooth terrain (separable sin/cos waves of 0.2 to 40 km wavelength, about 300 to 2100 m) plus
    a deterministic +-0.1 m hash noise, so the low mantissa bits compress like a real float DEM's. About
    7 % of the pixels are nodata (-9999), in "lakes" of a few km drawn from a second smooth field, so some
    zones are partly nodata and a few wholly.

bench/data/batch_zones_1k.geojson, batch_zones_10k.geojson
    1,000 (seed 1) and 10,000 (seed 2) random 1 km x 1 km squares, axis-aligned in UTM with corners at
    random (non grid-aligned) positions at least 100 m inside the raster, each given as a WGS84 lon/lat
    Polygon: the four UTM corners transformed with osr (EPSG:32633 -> EPSG:4326, lon/lat order). A
    FeatureCollection; feature i has "id": "z<i>" and "properties": {"n": i, "utm_x0": ..., "utm_y0": ...}
    (its lower-left UTM corner, for reference).

bench/data/batch_points_1k.json
    1,000 random lon/lat points (seed 3) at least 600 m inside the raster: the centres of the 1 km circles
    of the throughput part; the first one is the bare point.

bench/data/batch_s2_zones_1k.geojson, batch_s2_zones_10k.geojson, batch_s2_points_1k.json
    The same (seeds 1, 2 and 3, the same margins) inside the Sentinel-2-layout tile of bench/lib/s2_data.py
    (bench/data/s2_B04.tif: 10980 x 10980 UInt16, 10 m, EPSG:32633, top-left x = 399960, y = 5200020,
    109.8 km x 109.8 km): the benchmark's main data since issue 21. That COG is written by
    bench/lib/s2_data.py (run.sh runs it when the file is missing), not here.

Deterministic: the same seeds give the same files. Each file is skipped when it exists (--force rewrites).
Usage: /usr/bin/python3 bench/batch/make-data.py [--force]   (--no-old: only the S2 zones and points)
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
import time

import numpy as np
from osgeo import gdal, osr

gdal.UseExceptions()

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.normpath(os.path.join(HERE, '..', 'data'))
COG = os.path.join(DATA, 'batch_10k.cog.tif')
SIZE = 10_000
PIXEL = 10.0
X0, Y0 = 450_000.0, 5_200_000.0
BLOCK = 512
NODATA = -9999.0
SIDE = 1000.0  # zone side, metres
FORCE = '--force' in sys.argv
# The Sentinel-2-layout tile (bench/lib/s2_data.py: X0, Y0, SIZE10, PIX10).
S2_X0, S2_Y0, S2_SPAN = 399_960.0, 5_200_020.0, 10_980 * 10.0


def noise(rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Hash of (row, col) -> uniform in [-0.5, 0.5), uint32 arithmetic (wraps)."""
    r = rows.astype(np.uint32)[:, None]
    c = cols.astype(np.uint32)[None, :]
    with np.errstate(over='ignore'):
        h = (c * np.uint32(73856093)) ^ (r * np.uint32(19349663)) ^ np.uint32(0x9E3779B9)
        h ^= h >> np.uint32(16)
        h *= np.uint32(0x7FEB352D)
        h ^= h >> np.uint32(15)
        h *= np.uint32(0x846CA68B)
        h ^= h >> np.uint32(16)
    return h.astype(np.float64) / 4294967296.0 - 0.5


def waves(x: np.ndarray, y: np.ndarray, terms) -> np.ndarray:
    z = np.zeros((y.size, x.size))
    for a, wx, wy, p in terms:
        z += a * np.outer(np.cos(y * 2 * np.pi / wy), np.sin(x * 2 * np.pi / wx + p))
    return z


def field(row0: int, nrows: int) -> np.ndarray:
    """Rows row0 .. row0+nrows-1 as float32, nodata where the lake field is high."""
    rows = np.arange(row0, row0 + nrows)
    cols = np.arange(SIZE)
    x = cols * PIXEL
    y = rows * PIXEL
    z = 1200.0 + waves(x, y, [(520, 41_000, 33_000, 0.3), (230, 13_000, 17_000, 1.1), (110, 4_100, 5_300, 2.0),
                              (40, 1_300, 1_700, 0.7), (12, 430, 570, 1.9), (4, 170, 230, 0.2)])
    w = 2 * np.pi / 23_000  # a diagonal ridge, sin((x + y) / w) as separable products
    z += 150 * (np.outer(np.cos(y * w), np.sin(x * w)) + np.outer(np.sin(y * w), np.cos(x * w)))
    z += 0.2 * noise(rows, cols)
    lakes = waves(x, y, [(1.0, 9_700, 8_300, 0.4), (0.6, 5_900, 7_100, 1.3), (0.35, 2_900, 3_700, 2.2)])
    out = z.astype(np.float32)
    out[lakes > 0.92] = NODATA
    return out


def write_cog() -> None:
    if os.path.exists(COG) and not FORCE:
        print(f'{COG} exists (use --force to rewrite)')
        return
    t = time.time()
    mem = gdal.GetDriverByName('MEM').Create('', SIZE, SIZE, 1, gdal.GDT_Float32)
    mem.SetGeoTransform((X0, PIXEL, 0.0, Y0, 0.0, -PIXEL))
    srs = osr.SpatialReference()
    srs.ImportFromEPSG(32633)
    mem.SetProjection(srs.ExportToWkt())
    band = mem.GetRasterBand(1)
    band.SetNoDataValue(NODATA)
    nodata = 0
    for row0 in range(0, SIZE, BLOCK):
        n = min(BLOCK, SIZE - row0)
        block = field(row0, n)
        nodata += int((block == NODATA).sum())
        band.WriteArray(block, 0, row0)
    print(f'field computed in {time.time() - t:.1f} s; nodata pixels {nodata:,} ({100 * nodata / SIZE / SIZE:.1f} %)')
    tmp = COG + '.tmp'
    gdal.GetDriverByName('COG').CreateCopy(tmp, mem, options=[
        'COMPRESS=DEFLATE', 'PREDICTOR=YES', 'BLOCKSIZE=512', 'OVERVIEWS=AUTO', 'RESAMPLING=AVERAGE',
        'NUM_THREADS=ALL_CPUS', 'BIGTIFF=NO',
    ])
    os.replace(tmp, COG)
    print(f'wrote {COG} ({os.path.getsize(COG):,} bytes) in {time.time() - t:.1f} s')


def to_lonlat() -> osr.CoordinateTransformation:
    utm = osr.SpatialReference()
    utm.ImportFromEPSG(32633)
    wgs = osr.SpatialReference()
    wgs.ImportFromEPSG(4326)
    wgs.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    return osr.CoordinateTransformation(utm, wgs)


def write_zones(n: int, seed: int, prefix: str = 'batch', x0: float = X0, y0: float = Y0, extent: float = SIZE * PIXEL) -> None:
    """n random SIDE x SIDE squares inside the raster whose top-left corner is (x0, y0) and side `extent` metres."""
    path = os.path.join(DATA, f'{prefix}_zones_{n // 1000}k.geojson')
    if os.path.exists(path) and not FORCE:
        print(f'{path} exists (use --force to rewrite)')
        return
    rng = np.random.default_rng(seed)
    margin = 100.0
    span = extent - SIDE - 2 * margin
    xs = x0 + margin + rng.random(n) * span
    ys = y0 - extent + margin + rng.random(n) * span
    ct = to_lonlat()
    features = []
    for i, (x, y) in enumerate(zip(xs.tolist(), ys.tolist())):
        corners = [(x, y), (x + SIDE, y), (x + SIDE, y + SIDE), (x, y + SIDE)]
        ring = [list(ct.TransformPoint(cx, cy)[:2]) for cx, cy in corners]
        ring.append(list(ring[0]))
        features.append({'type': 'Feature', 'id': f'z{i}', 'properties': {'n': i, 'utm_x0': x, 'utm_y0': y},
                         'geometry': {'type': 'Polygon', 'coordinates': [ring]}})
    tmp = path + '.tmp'
    with open(tmp, 'w') as f:
        json.dump({'type': 'FeatureCollection', 'features': features}, f, separators=(',', ':'))
    os.replace(tmp, path)
    print(f'wrote {path} ({n:,} zones, {os.path.getsize(path):,} bytes)')


def write_points(n: int, seed: int, prefix: str = 'batch', x0: float = X0, y0: float = Y0, extent: float = SIZE * PIXEL) -> None:
    path = os.path.join(DATA, f'{prefix}_points_1k.json')
    if os.path.exists(path) and not FORCE:
        print(f'{path} exists (use --force to rewrite)')
        return
    rng = np.random.default_rng(seed)
    margin = 600.0
    span = extent - 2 * margin
    xs = x0 + margin + rng.random(n) * span
    ys = y0 - extent + margin + rng.random(n) * span
    ct = to_lonlat()
    pts = [list(ct.TransformPoint(x, y)[:2]) for x, y in zip(xs.tolist(), ys.tolist())]
    with open(path, 'w') as f:
        json.dump(pts, f)
    print(f'wrote {path} ({n:,} points)')


def main() -> None:
    os.makedirs(DATA, exist_ok=True)
    if '--no-old' not in sys.argv:  # the old Float32 COG and its zones (the second row of the 1,000-zone table)
        write_cog()
        write_zones(1_000, 1)
        write_zones(10_000, 2)
        write_points(1_000, 3)
    s2 = {'prefix': 'batch_s2', 'x0': S2_X0, 'y0': S2_Y0, 'extent': S2_SPAN}
    write_zones(1_000, 1, **s2)
    write_zones(10_000, 2, **s2)
    write_points(1_000, 3, **s2)


if __name__ == '__main__':
    main()
