#!/usr/bin/env python3
"""GDAL anchor of the Sentinel-2 tile benchmark (bench/codecs/s2.mts): one tile decoded by ReadBlock.

For the tiles given (tx,ty of the 1024 x 1024 blocks of a single-band COG, e.g. bench/data/s2_B04.tif):
1 warm-up pass, then RUNS timed passes. Each pass opens the dataset (not timed), reads one block that is
not measured (not timed: GDAL's first read after open also loads the tile index), then times
`band.ReadBlock(tx, ty, buf_obj=buf)` for each tile in turn, into one preallocated buffer (as GDAL's C API
ReadBlock writes into the caller's buffer), and closes the dataset. ReadBlock does not go through GDAL's
block cache (GDALRasterBand::ReadBlock calls the driver's IReadBlock: read the tile's bytes, inflate,
undo the predictor), and the dataset is reopened each pass, so every timed call decodes the tile.
Single-threaded: GDAL_NUM_THREADS=1.

Prints one JSON object: {"gdal": version, "tiles": [[tx, ty], ...], "runs_ms": [[ms per tile] per pass]}.
With --dump FILE, writes the tiles' decoded samples there (tile after tile, native order) for the check.

Usage: GDAL_NUM_THREADS=1 python3 gdal_s2.py [--runs N] [--dump FILE] --tiles 1,1;5,5 file.tif
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
from osgeo import gdal

gdal.UseExceptions()
gdal.SetConfigOption('GDAL_NUM_THREADS', os.environ.get('GDAL_NUM_THREADS', '1'))
gdal.SetCacheMax(int(os.environ.get('GDAL_CACHEMAX', '16')) * 1024 * 1024)


def one_pass(path: str, tiles: list, buf: bytearray, dump=None) -> list:
    ds = gdal.Open(path)
    band = ds.GetRasterBand(1)
    across = (ds.RasterXSize + band.GetBlockSize()[0] - 1) // band.GetBlockSize()[0]
    down = (ds.RasterYSize + band.GetBlockSize()[1] - 1) // band.GetBlockSize()[1]
    spare = next((across - 1 - i, down - 1 - i) for i in range(min(across, down)) if [across - 1 - i, down - 1 - i] not in tiles)
    band.ReadBlock(spare[0], spare[1], buf_obj=buf)  # not timed: the first read after open
    times = []
    for tx, ty in tiles:
        t0 = time.perf_counter()
        band.ReadBlock(tx, ty, buf_obj=buf)
        times.append((time.perf_counter() - t0) * 1000)
        if dump is not None:
            dump.write(buf)
    band = ds = None
    return times


def main() -> None:
    args = sys.argv[1:]
    runs, dump, tiles, path = 5, None, [], None
    while args:
        a = args.pop(0)
        if a == '--runs':
            runs = int(args.pop(0))
        elif a == '--dump':
            dump = args.pop(0)
        elif a == '--tiles':
            tiles = [[int(v) for v in t.split(',')] for t in args.pop(0).split(';') if t]
        else:
            path = a
    ds = gdal.Open(path)
    band = ds.GetRasterBand(1)
    bw, bh = band.GetBlockSize()
    buf = bytearray(bw * bh * gdal.GetDataTypeSize(band.DataType) // 8)
    band = ds = None
    if dump:
        with open(dump, 'wb') as f:
            one_pass(path, tiles, buf, f)  # the warm-up pass
    else:
        one_pass(path, tiles, buf)
    out = [one_pass(path, tiles, buf) for _ in range(runs)]
    print(json.dumps({'gdal': gdal.__version__, 'tiles': tiles, 'runs_ms': out}))


if __name__ == '__main__':
    main()
