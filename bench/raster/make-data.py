#!/usr/bin/env python3
"""Writes the benchmark COG: bench/data/dem_10k.cog.tif (bench-only dev tool, Debian GDAL + numpy).

10000 x 10000 Float32, EPSG:32633 (WGS 84 / UTM 33N), 30 m pixels (300 km x 300 km, top-left corner
x = 350000, y = 5300000, around 15 E, 47 N), GDAL COG driver: 512 px tiles, DEFLATE, predictor 3
(floating point), internal overviews (AUTO, AVERAGE), nodata -9999 declared (no pixel has it).

Values: a smooth "terrain" (sums of separable sin/cos waves of 2 to 60 km wavelength, 300..2100 m) plus
a deterministic hash noise of +-0.1 m, so the low mantissa bits are noisy and DEFLATE compresses the
tiles about as well as it does a real DEM. Deterministic: two runs give the same pixels.

Usage: python3 bench/raster/make-data.py [--force]   (skips when the file exists)
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

import time
import numpy as np
from osgeo import gdal, osr

gdal.UseExceptions()

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.normpath(os.path.join(HERE, '..', 'data', 'dem_10k.cog.tif'))
SIZE = 10_000
PIXEL = 30.0
X0, Y0 = 350_000.0, 5_300_000.0
BLOCK = 512


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


def field(row0: int, nrows: int) -> np.ndarray:
    """Terrain of rows row0 .. row0+nrows-1 (float64), metres."""
    rows = np.arange(row0, row0 + nrows)
    cols = np.arange(SIZE)
    x = cols * PIXEL  # metres from the left edge
    y = rows * PIXEL
    z = np.full((nrows, SIZE), 1200.0)
    # (amplitude, wavelength x, wavelength y, phase): separable terms a*sin(x/wx+p)*cos(y/wy)
    for a, wx, wy, p in [(550, 61_000, 47_000, 0.3), (230, 17_000, 23_000, 1.1), (120, 6_100, 7_900, 2.0),
                         (45, 2_300, 1_900, 0.7), (12, 610, 830, 1.9), (4, 170, 230, 0.2)]:
        z += a * np.outer(np.cos(y * 2 * np.pi / wy), np.sin(x * 2 * np.pi / wx + p))
    # a ridge running diagonally: sin((x + y)/w) expanded into separable products
    w = 2 * np.pi / 29_000
    z += 150 * (np.outer(np.cos(y * w), np.sin(x * w)) + np.outer(np.sin(y * w), np.cos(x * w)))
    z += 0.2 * noise(rows, cols)
    return z


def main() -> None:
    if os.path.exists(OUT) and '--force' not in sys.argv:
        print(f'{OUT} exists (use --force to rewrite)')
        return
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    t = time.time()
    mem = gdal.GetDriverByName('MEM').Create('', SIZE, SIZE, 1, gdal.GDT_Float32)
    mem.SetGeoTransform((X0, PIXEL, 0.0, Y0, 0.0, -PIXEL))
    srs = osr.SpatialReference()
    srs.ImportFromEPSG(32633)
    mem.SetProjection(srs.ExportToWkt())
    band = mem.GetRasterBand(1)
    band.SetNoDataValue(-9999)
    for row0 in range(0, SIZE, BLOCK):
        n = min(BLOCK, SIZE - row0)
        band.WriteArray(field(row0, n).astype(np.float32), 0, row0)
    print(f'field computed in {time.time() - t:.1f} s')
    tmp = OUT + '.tmp'
    gdal.GetDriverByName('COG').CreateCopy(tmp, mem, options=[
        'COMPRESS=DEFLATE', 'PREDICTOR=YES', 'BLOCKSIZE=512', 'OVERVIEWS=AUTO', 'RESAMPLING=AVERAGE',
        'NUM_THREADS=ALL_CPUS', 'BIGTIFF=NO',
    ])
    os.replace(tmp, OUT)
    print(f'wrote {OUT} ({os.path.getsize(OUT):,} bytes) in {time.time() - t:.1f} s')


if __name__ == '__main__':
    main()
