#!/usr/bin/env python3
"""Writes the codec benchmark's COGs into bench/data/codecs/ (bench-only dev tool, Debian GDAL + numpy).

One 2048 x 2048 COG per compression, GDAL's COG driver, 256 px tiles, no overviews (only level 0 is
decoded), EPSG:32633, 30 m pixels. Deterministic: seeded numpy, two runs give the same pixels.

- dem: Int16 "terrain", sum of bilinearly upsampled seeded random grids (wavelengths 2048..8 px) plus
  +-1 m noise, 200..2600 m. DEFLATE/LZW/ZSTD with predictor 2, LZMA, PACKBITS, NONE, LERC and LERC_ZSTD
  (MAX_Z_ERROR=0, lossless).
- float: the same terrain as Float32 with centimetre noise, DEFLATE and ZSTD with predictor 3.
- rgb: 3-band Byte, smooth colour gradients plus a seeded texture: JPEG (YCbCr, QUALITY=90), WEBP lossy
  (QUALITY=90) and WEBP lossless (the COG driver's QUALITY=100).
- nbits4: 1-band Byte with NBITS=4 (classes 0..15 of the terrain), DEFLATE.

Usage: python3 bench/codecs/make-data.py [--force]   (skips files that exist)
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

import numpy as np
from osgeo import gdal, osr

gdal.UseExceptions()

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.normpath(os.path.join(HERE, '..', 'data', 'codecs'))
SIZE = 2048

# name -> (kind, COG creation options)
FILES = {
    'int16_deflate_p2': ('dem', ['COMPRESS=DEFLATE', 'PREDICTOR=2']),
    'int16_lzw_p2': ('dem', ['COMPRESS=LZW', 'PREDICTOR=2']),
    'int16_zstd_p2': ('dem', ['COMPRESS=ZSTD', 'PREDICTOR=2']),
    'int16_lzma': ('dem', ['COMPRESS=LZMA']),
    'int16_packbits': ('dem', ['COMPRESS=PACKBITS']),
    'int16_none': ('dem', ['COMPRESS=NONE']),
    'int16_lerc': ('dem', ['COMPRESS=LERC', 'MAX_Z_ERROR=0']),
    'int16_lerc_zstd': ('dem', ['COMPRESS=LERC_ZSTD', 'MAX_Z_ERROR=0']),
    'float32_deflate_p3': ('float', ['COMPRESS=DEFLATE', 'PREDICTOR=3']),
    'float32_zstd_p3': ('float', ['COMPRESS=ZSTD', 'PREDICTOR=3']),
    'rgb_jpeg_q90': ('rgb', ['COMPRESS=JPEG', 'QUALITY=90']),  # the COG driver writes YCbCr for 3-band JPEG
    'rgb_webp_q90': ('rgb', ['COMPRESS=WEBP', 'QUALITY=90']),
    'rgb_webp_lossless': ('rgb', ['COMPRESS=WEBP', 'QUALITY=100']),  # 100 = lossless in the COG driver
    'byte_nbits4_deflate': ('nbits4', ['COMPRESS=DEFLATE']),
}
LOSSY = {'rgb_jpeg_q90', 'rgb_webp_q90'}


def upsample(grid: np.ndarray, n: int) -> np.ndarray:
    """Bilinear upsampling of a (g+1) x (g+1) grid to n x n."""
    g = grid.shape[0] - 1
    t = np.arange(n) * (g / n)
    i = np.minimum(t.astype(np.int64), g - 1)
    f = t - i
    rows = grid[i] * (1 - f)[:, None] + grid[i + 1] * f[:, None]
    return rows[:, i] * (1 - f)[None, :] + rows[:, i + 1] * f[None, :]


def terrain(rng: np.random.Generator) -> np.ndarray:
    z = np.zeros((SIZE, SIZE))
    for octave in range(9):  # cells of 2048, 1024, ..., 8 px
        cells = 2 ** octave
        z += upsample(rng.standard_normal((cells + 1, cells + 1)), SIZE) * (0.55 ** octave)
    z = (z - z.min()) / (z.max() - z.min())
    return 200.0 + 2400.0 * z


def data(kind: str) -> np.ndarray:
    rng = np.random.default_rng(20261125)
    z = terrain(rng)
    if kind == 'dem':
        return np.round(z + rng.integers(-1, 2, z.shape)).astype(np.int16)[None]
    if kind == 'float':
        return (z + rng.normal(0, 0.01, z.shape)).astype(np.float32)[None]
    if kind == 'nbits4':
        return np.clip(((z - 200.0) / 2400.0 * 16).astype(np.int64), 0, 15).astype(np.uint8)[None]
    if kind == 'rgb':
        y, x = np.mgrid[0:SIZE, 0:SIZE] / (SIZE - 1)
        shade = (z - 200.0) / 2400.0
        texture = upsample(rng.standard_normal((513, 513)), SIZE) * 12 + rng.normal(0, 4, z.shape)
        r = 40 + 150 * x + 50 * shade + texture
        g = 60 + 120 * y + 60 * shade + texture
        b = 200 - 120 * x * y + 30 * shade + texture
        return np.clip(np.round(np.stack([r, g, b])), 0, 255).astype(np.uint8)
    raise ValueError(kind)


def write(name: str, kind: str, options: list, arr: np.ndarray) -> None:
    bands = arr.shape[0]
    gtype = {np.dtype(np.int16): gdal.GDT_Int16, np.dtype(np.float32): gdal.GDT_Float32,
             np.dtype(np.uint8): gdal.GDT_Byte}[arr.dtype]
    mem = gdal.GetDriverByName('MEM').Create('', SIZE, SIZE, bands, gtype)
    mem.SetGeoTransform((350000.0, 30.0, 0.0, 5300000.0, 0.0, -30.0))
    srs = osr.SpatialReference()
    srs.ImportFromEPSG(32633)
    mem.SetProjection(srs.ExportToWkt())
    for b in range(bands):
        mem.GetRasterBand(b + 1).WriteArray(arr[b])
        if kind == 'nbits4':  # the COG driver takes NBITS from the source band
            mem.GetRasterBand(b + 1).SetMetadataItem('NBITS', '4', 'IMAGE_STRUCTURE')
    if kind == 'rgb':
        for b, ci in enumerate((gdal.GCI_RedBand, gdal.GCI_GreenBand, gdal.GCI_BlueBand)):
            mem.GetRasterBand(b + 1).SetColorInterpretation(ci)
    path = os.path.join(OUT, f'{name}.tif')
    tmp = path + '.tmp'
    # Quiet: GDAL 3.6's COG driver warns that PACKBITS is not in its option list (it writes it all the
    # same) and that WEBP_LEVEL is ignored for lossless WebP.
    gdal.PushErrorHandler('CPLQuietErrorHandler')
    try:
        gdal.GetDriverByName('COG').CreateCopy(tmp, mem, options=options + ['BLOCKSIZE=256', 'OVERVIEWS=NONE'])
    finally:
        gdal.PopErrorHandler()
    os.replace(tmp, path)


def main() -> None:
    force = '--force' in sys.argv[1:]
    os.makedirs(OUT, exist_ok=True)
    cache = {}
    for name, (kind, options) in FILES.items():
        path = os.path.join(OUT, f'{name}.tif')
        if os.path.exists(path) and not force:
            continue
        if kind not in cache:
            cache[kind] = data(kind)
        write(name, kind, options, cache[kind])
        print(f'wrote {path} ({os.path.getsize(path) / 1e6:.2f} MB)')


if __name__ == '__main__':
    main()
