#!/usr/bin/env python3
"""Writes the jobs benchmark's zones (bench-only dev tool: Debian gdal-bin, python3-gdal, python3-numpy).

Every zone lies inside the Sentinel-2-layout tile of bench/lib/s2_data.py (bench/data/s2_B04.tif: 10980 x
10980 UInt16, 10 m, EPSG:32633, top-left x = 399960, y = 5200020, 109.8 km x 109.8 km), in WGS84 lon/lat.

Squares: random 1 km x 1 km squares, axis-aligned in UTM, corners at random (not grid-aligned) positions at
least 100 m inside the raster, each a lon/lat Polygon of the four UTM corners transformed with osr
(EPSG:32633 -> EPSG:4326, lon/lat order), as bench/batch/make-data.py draws them. Points: random lon/lat
points at least 100 m inside the raster.

bench/data/jobs_zones_100k_<k>.geojson, k = 0..9
    The 100,000 squares (seed 23) as 10 FeatureCollections of 10,000: feature i (i = 0..99,999 over the
    ten files) has "id": "z<i>" and "properties": {"n": i}. The bodies of the anchor's ten requests.
bench/data/jobs_zones_100k.f64, jobs_zones_1m.f64 (seed 24), jobs_points_1m.f64 (seed 25)
    The same coordinates as raw little-endian float64, zone after zone: a square's 5 ring positions
    (lon, lat; the fifth repeats the first), a point's one position. make-parquet.mjs writes the GeoParquet
    zones files from them, so the GeoJSON and GeoParquet zones have the same doubles (json.dump writes the
    shortest repr, which JSON.parse reads back exactly).

Deterministic: the same seeds give the same files. Each file is skipped when it exists (--force rewrites).
Usage: /usr/bin/python3 bench/jobs/make-data.py [--force] [100k] [1m-squares] [1m-points]   (default: 100k)
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
from osgeo import osr

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.normpath(os.path.join(HERE, '..', 'data'))
FORCE = '--force' in sys.argv
# The Sentinel-2-layout tile (bench/lib/s2_data.py: X0, Y0, SIZE10, PIX10).
X0, Y0, SPAN = 399_960.0, 5_200_020.0, 10_980 * 10.0
SIDE = 1000.0  # a square's side, metres
MARGIN = 100.0
FILES_100K = 10
CHUNK = 100_000  # zones transformed at a time


def to_lonlat() -> osr.CoordinateTransformation:
    utm = osr.SpatialReference()
    utm.ImportFromEPSG(32633)
    wgs = osr.SpatialReference()
    wgs.ImportFromEPSG(4326)
    wgs.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    return osr.CoordinateTransformation(utm, wgs)


def squares(n: int, seed: int) -> np.ndarray:
    """n squares as an (n, 5, 2) array of lon/lat ring positions."""
    rng = np.random.default_rng(seed)
    span = SPAN - SIDE - 2 * MARGIN
    xs = X0 + MARGIN + rng.random(n) * span
    ys = Y0 - SPAN + MARGIN + rng.random(n) * span
    ct = to_lonlat()
    out = np.empty((n, 5, 2))
    dx = np.array([0.0, SIDE, SIDE, 0.0])
    dy = np.array([0.0, 0.0, SIDE, SIDE])
    for s in range(0, n, CHUNK):
        e = min(n, s + CHUNK)
        cx = (xs[s:e, None] + dx[None, :]).ravel()
        cy = (ys[s:e, None] + dy[None, :]).ravel()
        pts = np.array(ct.TransformPoints(np.stack([cx, cy], axis=1).tolist()))[:, :2]
        out[s:e, :4, :] = pts.reshape(e - s, 4, 2)
    out[:, 4, :] = out[:, 0, :]
    return out


def points(n: int, seed: int) -> np.ndarray:
    """n points as an (n, 1, 2) array of lon/lat positions."""
    rng = np.random.default_rng(seed)
    span = SPAN - 2 * MARGIN
    xs = X0 + MARGIN + rng.random(n) * span
    ys = Y0 - SPAN + MARGIN + rng.random(n) * span
    ct = to_lonlat()
    out = np.empty((n, 1, 2))
    for s in range(0, n, CHUNK):
        e = min(n, s + CHUNK)
        out[s:e, 0, :] = np.array(ct.TransformPoints(np.stack([xs[s:e], ys[s:e]], axis=1).tolist()))[:, :2]
    return out


def write_f64(path: str, coords: np.ndarray) -> None:
    tmp = path + '.tmp'
    coords.astype('<f8').tofile(tmp)
    os.replace(tmp, path)
    print(f'wrote {path} ({coords.shape[0]:,} zones, {os.path.getsize(path):,} bytes)')


def write_collections(coords: np.ndarray) -> None:
    per = coords.shape[0] // FILES_100K
    for k in range(FILES_100K):
        path = os.path.join(DATA, f'jobs_zones_100k_{k}.geojson')
        features = []
        for i in range(k * per, (k + 1) * per):
            ring = coords[i].tolist()
            features.append({'type': 'Feature', 'id': f'z{i}', 'properties': {'n': i},
                             'geometry': {'type': 'Polygon', 'coordinates': [ring]}})
        tmp = path + '.tmp'
        with open(tmp, 'w') as f:
            json.dump({'type': 'FeatureCollection', 'features': features}, f, separators=(',', ':'))
        os.replace(tmp, path)
    print(f'wrote bench/data/jobs_zones_100k_{{0..{FILES_100K - 1}}}.geojson ({per:,} zones each)')


def main() -> None:
    os.makedirs(DATA, exist_ok=True)
    sets = [a for a in sys.argv[1:] if not a.startswith('--')] or ['100k']
    t = time.time()
    if '100k' in sets:
        f64 = os.path.join(DATA, 'jobs_zones_100k.f64')
        last = os.path.join(DATA, f'jobs_zones_100k_{FILES_100K - 1}.geojson')
        if FORCE or not os.path.exists(f64) or not os.path.exists(last):
            coords = squares(100_000, 23)
            write_collections(coords)
            write_f64(f64, coords)
        else:
            print(f'{f64} and the GeoJSON files exist (use --force to rewrite)')
    for name, seed, fn in [('1m-squares', 24, squares), ('1m-points', 25, points)]:
        if name not in sets:
            continue
        path = os.path.join(DATA, 'jobs_zones_1m.f64' if fn is squares else 'jobs_points_1m.f64')
        if os.path.exists(path) and not FORCE:
            print(f'{path} exists (use --force to rewrite)')
            continue
        write_f64(path, fn(1_000_000, seed))
    print(f'zones ready in {time.time() - t:.1f} s')


if __name__ == '__main__':
    main()
