#!/usr/bin/env python3
"""GDAL anchor of the codec benchmark: decodes level 0 of each file with GDAL, single-threaded.

For each file given: 1 warm-up and RUNS timed reads. Each read opens the file (not timed), reads every
band with one dataset-level ReadAsArray() (timed: pixel-interleaved files decode each tile once), and
closes it, so no decoded block survives from one read to the next (GDAL_CACHEMAX is small as well).
Prints one JSON object: {name: {"runs_ms": [...], "bands": [{"sum": ..., "bits_sum": ...}], ...}}.
With --serve it answers requests instead, one a line on stdin: {"path": ..., "runs": n, "stats": bool} ->
one JSON line {"runs_ms": [...], ...(with stats) "bands", "dtype", "shape"}: bench.mts keeps it running and
alternates GDAL's runs of a file with the service's, so both see the same load on a shared machine.
"bits_sum" (float bands only) is the sum of the float32 bit patterns as integers: an exact checksum.
With --dump DIR, the decoded pixels of each file are written to DIR/<name>.gdal.bin (band-sequential,
native order) for the pixel-by-pixel comparison of lossy files.

Usage: GDAL_NUM_THREADS=1 GDAL_CACHEMAX=16 python3 gdal_decode.py [--runs N] [--dump DIR] --lossy a,b file.tif ...
       GDAL_NUM_THREADS=1 GDAL_CACHEMAX=16 python3 gdal_decode.py --serve [--dump DIR] --lossy a,b
"""
import os
import sys

if __name__ == '__main__':
    try:
        from osgeo import gdal  # noqa: F401
    except ImportError:
        if sys.executable != '/usr/bin/python3' and os.path.exists('/usr/bin/python3'):
            os.execv('/usr/bin/python3', ['/usr/bin/python3', *sys.argv])
        raise

import json
import math
import time
import numpy as np
from osgeo import gdal

gdal.UseExceptions()
gdal.SetConfigOption('GDAL_NUM_THREADS', os.environ.get('GDAL_NUM_THREADS', '1'))
gdal.SetCacheMax(int(os.environ.get('GDAL_CACHEMAX', '16')) * 1024 * 1024)


def read(path: str):
    ds = gdal.Open(path)
    t0 = time.perf_counter()
    arr = ds.ReadAsArray()
    ms = (time.perf_counter() - t0) * 1000
    ds = None
    return ms, arr


def measure(path: str, runs: int, stats: bool, dump, lossy) -> dict:
    """1 warm-up and `runs` timed reads of one file; with `stats`, its band sums (and pixels of a lossy file)."""
    name = os.path.basename(path).removesuffix('.tif')
    read(path)  # warm-up
    times = []
    for _ in range(runs):
        ms, arr = read(path)
        times.append(ms)
    out = {'runs_ms': times, 'gdal': gdal.__version__}
    if not stats:
        return out
    if arr.ndim == 2:
        arr = arr[None]
    bands = []
    for b in arr:
        if b.dtype.kind == 'f':
            bands.append({'sum': math.fsum(b.astype(np.float64).ravel()),
                          'bits_sum': int(b.view(np.uint32).astype(np.uint64).sum())})
        else:
            bands.append({'sum': int(b.astype(np.int64).sum())})
    if dump and name in lossy:
        np.ascontiguousarray(arr).tofile(os.path.join(dump, f'{name}.gdal.bin'))
    out.update({'dtype': str(arr.dtype), 'shape': list(arr.shape), 'bands': bands})
    return out


def main() -> None:
    args = sys.argv[1:]
    runs, dump, lossy, files, serve = 5, None, set(), [], False
    while args:
        a = args.pop(0)
        if a == '--runs':
            runs = int(args.pop(0))
        elif a == '--dump':
            dump = args.pop(0)
        elif a == '--lossy':
            lossy = set(filter(None, args.pop(0).split(',')))
        elif a == '--serve':
            serve = True
        else:
            files.append(a)
    if serve:
        # One JSON request a line on stdin, {"path": ..., "runs": n, "stats": bool}; one JSON answer a line.
        for line in iter(sys.stdin.readline, ''):
            req = json.loads(line)
            print(json.dumps(measure(req['path'], int(req['runs']), bool(req.get('stats')), dump, lossy)), flush=True)
        return
    out = {}
    for path in files:
        name = os.path.basename(path).removesuffix('.tif')
        out[name] = measure(path, runs, True, dump, lossy)
        times = out[name]['runs_ms']
        print(f'gdal {name}: {sorted(times)[len(times) // 2]:.1f} ms', file=sys.stderr)
    print(json.dumps(out))


if __name__ == '__main__':
    main()
