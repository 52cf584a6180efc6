#!/usr/bin/env python3
"""The cube benchmark's anchor: xarray + shapely coverage weights + numpy, ONE core, on the local store.

    /usr/bin/python3 bench/cube/anchor.py STORE DISTRICTS OUT.ndjson [--steps N]

What a climate user's script does for "the districts' hourly mean of t2m over a year" (the fastest known
pattern: each district's cell weights once, then one weighted sum per step over the decoded values):

  1. open: xr.open_zarr(STORE, consolidated=True, chunks=None) (no dask: xarray's lazy backend arrays, read
     by zarr 2.13 and numcodecs' Blosc on one thread), times decoded by xarray (cftime rules, "hours since
     1900-01-01", gregorian). The values are CF-decoded here, in float64: raw == _FillValue -> NaN, then
     raw * scale_factor + add_offset, the formula of xarray's CFScaleOffsetCoder. (Debian's xarray 2023.01
     decodes int16 + scale_factor + add_offset to float32 (its `has_offset` test runs after add_offset was
     popped from the attributes): float32 moves a value by up to 6e-8 relative here, and a district's mean by
     ~1e-8, above the 1e-9 the rows are compared to; the service decodes in float64.)
  2. weights: per district, the coverage fraction of every cell of its bounding window: area(district ∩ cell)
     / area(cell) with shapely, in plane lon/lat degrees (1 where the cell lies wholly inside, found with a
     prepared geometry). The store's longitudes (0..360) are taken as lon - 360 where above 180, so the
     districts (-180..180) meet them. Cells are the 0.25 deg boxes centred on the coordinates.
  3. stats, per block of 720 steps (30 chunks along time; the union window of all districts read once per
     block): per district, the cells with a weight > 0 as a (steps, cells) matrix; valid = not NaN;
     count = valid @ w (the summed coverage of the valid cells), sum = where(valid, v, 0) @ w,
     mean = sum / count, min / max over the valid cells; a step with no valid cell: count 0, the rest null.
  4. the rows written as NDJSON in the service's shape and order (zone by zone in input order, each zone's
     steps in time order): {"index", "id", "time": "YYYY-MM-DDTHH:MM:SSZ", "statistics": {"t2m": {"mean",
     "count", "min", "max"}}}.

One core: OMP/OpenBLAS/MKL/numexpr threads set to 1 before numpy is imported, Blosc's threads off.
Prints one JSON line last: the phases' seconds (open, weights, read + decode, stats, compute = 1 + 2 + 3,
write), its CPU seconds, peak RSS (ru_maxrss) and threads, rows and cells.
"""
import os
import sys
import time

T0 = time.perf_counter()
for var in ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS', 'NUMEXPR_NUM_THREADS', 'BLIS_NUM_THREADS',
            'VECLIB_MAXIMUM_THREADS', 'BLOSC_NTHREADS'):
    os.environ[var] = '1'

try:
    import numcodecs.blosc
    import numpy as np
    import xarray as xr
    from shapely.geometry import box, shape
    from shapely.prepared import prep
except ImportError:  # a pyenv python3 first on the PATH lacks the Debian packages
    if sys.executable != '/usr/bin/python3' and os.path.exists('/usr/bin/python3'):
        os.execv('/usr/bin/python3', ['/usr/bin/python3', *sys.argv])
    raise

import argparse
import json
import resource

numcodecs.blosc.set_nthreads(1)
numcodecs.blosc.use_threads = False

VARIABLE = 't2m'
BLOCK = 720


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('store')
    ap.add_argument('districts')
    ap.add_argument('out')
    ap.add_argument('--steps', type=int, default=None, help='only the first N steps (a quick check)')
    a = ap.parse_args()
    store, districts_path, out_path, steps_limit = a.store, a.districts, a.out, a.steps
    t_imports = time.perf_counter() - T0
    c0 = time.process_time()

    # 1. open
    t = time.perf_counter()
    ds = xr.open_zarr(store, consolidated=True, chunks=None, mask_and_scale=False)
    var = ds[VARIABLE]
    assert var.dims == ('time', 'latitude', 'longitude'), var.dims
    fill = var.attrs.get('_FillValue', var.encoding.get('_FillValue'))
    scale = float(var.attrs.get('scale_factor', 1.0))
    offset = float(var.attrs.get('add_offset', 0.0))
    times = ds['time'].values
    if steps_limit is not None:
        times = times[:steps_limit]
    lat = ds['latitude'].values.astype(np.float64)
    lon = ds['longitude'].values.astype(np.float64)
    lon = np.where(lon > 180, lon - 360, lon)
    assert np.all(np.diff(lon) > 0), 'the anchor takes a regional store whose longitudes do not wrap'
    dx, dy = float(lon[1] - lon[0]), float(lat[0] - lat[1])  # latitude descending
    assert dy > 0
    t_open = time.perf_counter() - t

    # 2. weights
    t = time.perf_counter()
    fc = json.load(open(districts_path))
    zones = []
    cell_area = dx * dy
    for i, f in enumerate(fc['features']):
        g = shape(f['geometry'])
        p = prep(g)
        x0, y0, x1, y1 = g.bounds
        # columns whose cell [lon - dx/2, lon + dx/2] meets [x0, x1]; rows likewise (latitude descending)
        cols = np.nonzero((lon + dx / 2 > x0) & (lon - dx / 2 < x1))[0]
        rows = np.nonzero((lat + dy / 2 > y0) & (lat - dy / 2 < y1))[0]
        r0, r1, c0_, c1 = int(rows[0]), int(rows[-1]) + 1, int(cols[0]), int(cols[-1]) + 1
        w = np.zeros((r1 - r0, c1 - c0_))
        for r in range(r0, r1):
            for c in range(c0_, c1):
                cell = box(lon[c] - dx / 2, lat[r] - dy / 2, lon[c] + dx / 2, lat[r] + dy / 2)
                if p.contains(cell):
                    w[r - r0, c - c0_] = 1.0
                elif p.intersects(cell):
                    w[r - r0, c - c0_] = g.intersection(cell).area / cell_area
        flat = w.ravel()
        idx = np.nonzero(flat > 0)[0]
        zones.append({'id': f.get('id', i), 'win': (r0, r1, c0_, c1), 'idx': idx, 'w': flat[idx]})
    R0 = min(z['win'][0] for z in zones)
    R1 = max(z['win'][1] for z in zones)
    C0 = min(z['win'][2] for z in zones)
    C1 = max(z['win'][3] for z in zones)
    t_weights = time.perf_counter() - t

    # 3. read + decode, and the statistics, block by block
    n_steps, n_zones = len(times), len(zones)
    mean = np.full((n_zones, n_steps), np.nan)
    count = np.zeros((n_zones, n_steps))
    vmin = np.full((n_zones, n_steps), np.nan)
    vmax = np.full((n_zones, n_steps), np.nan)
    t_read = t_stats = 0.0
    for b0 in range(0, n_steps, BLOCK):
        b1 = min(n_steps, b0 + BLOCK)
        t = time.perf_counter()
        raw = var.isel(time=slice(b0, b1), latitude=slice(R0, R1), longitude=slice(C0, C1)).values
        v = raw.astype(np.float64)
        v *= scale
        v += offset
        if fill is not None:
            v[raw == fill] = np.nan
        del raw
        t_read += time.perf_counter() - t
        t = time.perf_counter()
        for k, z in enumerate(zones):
            r0, r1, c0_, c1 = z['win']
            sub = v[:, r0 - R0:r1 - R0, c0_ - C0:c1 - C0].reshape(b1 - b0, -1)[:, z['idx']]
            valid = ~np.isnan(sub)
            cnt = valid.astype(np.float64) @ z['w']
            s = np.where(valid, sub, 0.0) @ z['w']
            some = cnt > 0
            with np.errstate(invalid='ignore', divide='ignore'):
                mean[k, b0:b1] = np.where(some, s / cnt, np.nan)
            count[k, b0:b1] = cnt
            vmin[k, b0:b1] = np.where(some, np.where(valid, sub, np.inf).min(axis=1), np.nan)
            vmax[k, b0:b1] = np.where(some, np.where(valid, sub, -np.inf).max(axis=1), np.nan)
        t_stats += time.perf_counter() - t
    del v
    t_compute = t_open + t_weights + t_read + t_stats
    cpu_compute = time.process_time() - c0

    # 4. NDJSON rows
    t = time.perf_counter()
    stamps = [s + 'Z' for s in np.datetime_as_string(times, unit='s').tolist()]

    def num(x):
        return 'null' if x != x else repr(x)

    with open(out_path, 'w') as out:
        for k, z in enumerate(zones):
            head = f'{{"index":{k},"id":{json.dumps(z["id"])},"time":"'
            m, c, lo, hi = mean[k].tolist(), count[k].tolist(), vmin[k].tolist(), vmax[k].tolist()
            out.write(''.join(
                f'{head}{stamps[j]}","statistics":{{"{VARIABLE}":{{"mean":{num(m[j])},"count":{repr(c[j])},'
                f'"min":{num(lo[j])},"max":{num(hi[j])}}}}}}}\n' for j in range(n_steps)))
    t_write = time.perf_counter() - t

    with open('/proc/self/status') as f:
        threads = int(next(l for l in f if l.startswith('Threads:')).split()[1])
    print(json.dumps({
        'imports_s': t_imports, 'open_s': t_open, 'weights_s': t_weights, 'read_decode_s': t_read, 'stats_s': t_stats,
        'compute_s': t_compute, 'compute_cpu_s': cpu_compute, 'write_s': t_write, 'cpu_s': time.process_time(),
        'peak_rss_mib': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 'threads': threads,
        'rows': n_zones * n_steps, 'zones': n_zones, 'steps': n_steps,
        'cells': int(sum(len(z['idx']) for z in zones)), 'window': [R0, R1, C0, C1],
        'versions': f'xarray {xr.__version__ if xr.__version__ != "999" else "2023.01 (Debian)"}, '
                    f'zarr {__import__("zarr").__version__}, numcodecs {numcodecs.__version__}, numpy {np.__version__}, '
                    f'shapely {__import__("shapely").__version__}',
    }))


if __name__ == '__main__':
    main()
