#!/usr/bin/env python3
"""Writes the cube benchmark's data (bench-only dev tool: Debian python3-xarray, python3-zarr 2.13,
python3-numcodecs, python3-numpy, python3-pandas, python3-scipy, python3-shapely). ~2.5 min on 2 cores.

bench/data/cube/era5_t2m.zarr
    A regional, ERA5-like Zarr v2 store as xarray writes it (to_zarr, consolidated metadata `.zmetadata`):
      - t2m (time, latitude, longitude): 2 m temperature, int16 packed with scale_factor 0.002 and
        add_offset 265.0 (K; 199.5..330.5 K representable), `_FillValue` -32767 (the Zarr fill_value, as
        xarray stores it), units "K", long_name "2 metre temperature"; chunks (24, 100, 100); Blosc lz4,
        clevel 5, byte shuffle (the compressor of the ERA5 stores on the cloud that use Blosc).
      - time: 8,760 hourly steps of 2021 (2021-01-01T00 .. 2021-12-31T23), int32 "hours since 1900-01-01",
        calendar "gregorian" (ERA5's own encoding), one chunk.
      - latitude: 250 cells, float32, DESCENDING 62.0 .. -0.25 by 0.25 (ERA5's order), degrees_north.
      - longitude: 250 cells, float32, 230.0 .. 292.25 by 0.25 in the 0..360 convention (-130 .. -67.75 E:
        North America), degrees_east.
      250 x 250 cells = 3 x 3 spatial chunks (100, 100, 50), 365 x 9 = 3,285 chunk objects.
    Texture (float64, then packed as xarray packs it: round((x - offset) / scale)):
      - a climatology: 300 K at the equator to 270 K at 60 N, a smooth "terrain" term (sinusoids of 2-9 deg
        waves) and a west-east step;
      - a seasonal cycle (amplitude growing with latitude, coldest mid-January) and a diurnal cycle (local
        solar time, amplitude 3-7 K, warmest at 15 h local);
      - weather: travelling synoptic waves (3 waves of 15-35 deg, periods of 3-9 days) and an AR(1) field
        (hourly correlation 0.97, std 0.8 K) on a 27 x 27 grid interpolated to the cells (cubic), plus 0.03 K of
        white noise: about 1.25:1 with lz4 + shuffle (packed at 0.002 K, the low byte is noise);
      - missing values (encoded as _FillValue, as ERA5-Land masks the sea): a "lake" of 23 cells that is
        missing at every step (under parts of a few districts), and a block of cells missing for 6 hours
        (2021-03-10 06:00-11:00) that covers one small district wholly (its rows are count 0, mean, min,
        max null for those hours) and crosses a chunk edge.
    Written month by month (xarray append along time), one month in memory at a time.

bench/data/cube/districts.geojson
    100 "districts": a FeatureCollection in WGS84 lon/lat (-180..180: the zones' convention differs from the
    store's 0..360, as for a user of ERA5 with administrative boundaries), feature i has "id": "d<iii>" and
    "properties": {"n": i, "name": ...}. A Voronoi partition of the box -113..-97 E x 29..45 N (seeds: 70 spread
    out, >= 1.2 deg apart, and 30 around 4 "cities", >= 0.5 deg apart), clipped to the box, every edge densified
    to <= 0.04 deg and the whole partition warped by a smooth displacement (< 0.05 deg), so the districts are
    irregular polygons of 73-282 vertices, 0.68-2.85 deg across (sqrt of the area), that still tile the box.
    The box crosses the store's chunk edges (longitude -105.125, latitude 37.125): 24 districts cross one
    (printed). No vertex lies on a cell edge (checked).

Deterministic (seeded numpy): the same files every run. Each file is skipped when it exists (--force rewrites).
Usage: /usr/bin/python3 bench/cube/make-data.py [--force]
"""
import os
import sys

if __name__ == '__main__':
    try:
        import xarray  # noqa: F401
        import zarr  # noqa: F401
        import shapely  # noqa: F401
    except ImportError:  # a pyenv python3 first on the PATH lacks the Debian packages
        if sys.executable != '/usr/bin/python3' and os.path.exists('/usr/bin/python3'):
            os.execv('/usr/bin/python3', ['/usr/bin/python3', *sys.argv])
        raise

import json
import math
import shutil
import time

import numpy as np
import pandas as pd
import xarray as xr
import zarr
from numcodecs import Blosc
from scipy.ndimage import zoom
from shapely.geometry import Polygon, box

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.normpath(os.path.join(HERE, '..', 'data', 'cube'))
STORE = os.path.join(DATA, 'era5_t2m.zarr')
DISTRICTS = os.path.join(DATA, 'districts.geojson')
FORCE = '--force' in sys.argv

# The grid (ERA5's 0.25 deg, latitude descending, longitude 0..360).
RES = 0.25
NLAT = NLON = 250
LAT0 = 62.0    # first (northernmost) latitude
LON0 = 230.0   # first longitude (-130 E)
LAT = (LAT0 - RES * np.arange(NLAT)).astype(np.float32)
LON = (LON0 + RES * np.arange(NLON)).astype(np.float32)
CHUNKS = (24, 100, 100)
SCALE, OFFSET, FILL = 0.002, 265.0, -32767
TIMES = pd.date_range('2021-01-01T00:00', '2021-12-31T23:00', freq='h')
assert len(TIMES) == 8760

# The districts' box (WGS84, -180..180) and the chunk edges it crosses.
BOX = (-113.0, 29.0, -97.0, 45.0)
N_UNIFORM, N_CLUSTERED = 70, 30
MIN_UNIFORM, MIN_CLUSTERED = 1.2, 0.5
CITIES = [(-104.9, 39.7, 0.6), (-98.6, 35.5, 0.6), (-111.0, 33.4, 0.6), (-99.5, 30.6, 0.6)]
DENSIFY = 0.04
SEED = 25

# Missing cells: the "lake" (every step) and the 6-hour gap (filled in by the districts' step).
LAKE = (-101.6, 43.2, 0.9, 0.55)  # centre lon, lat, half-axes (deg): an ellipse of cells
# The weather noise: an AR(1) field on a coarse grid (~2.3 deg), interpolated to the cells.
NOISE_GRID = 27
GAP_HOURS = pd.date_range('2021-03-10T06:00', '2021-03-10T11:00', freq='h')


# ------------------------------------------------------------------------------------------------ districts

def warp(x, y):
    """A smooth displacement of the plane (|gradient| < 0.5, so it folds nothing): the same for every
    district, so neighbours keep their shared edges."""
    dx = 0.022 * np.sin(2 * math.pi * y / 1.1 + 0.7) + 0.012 * np.sin(2 * math.pi * (x + y) / 0.53 + 2.1) \
        + 0.006 * np.sin(2 * math.pi * x / 0.29 + 4.0)
    dy = 0.022 * np.sin(2 * math.pi * x / 1.3 + 1.9) + 0.012 * np.sin(2 * math.pi * (x - y) / 0.61 + 0.3) \
        + 0.006 * np.sin(2 * math.pi * y / 0.31 + 5.2)
    return x + dx, y + dy


def densify(coords, step):
    out = []
    for (x0, y0), (x1, y1) in zip(coords[:-1], coords[1:]):
        n = max(1, math.ceil(math.hypot(x1 - x0, y1 - y0) / step))
        for k in range(n):
            out.append((x0 + (x1 - x0) * k / n, y0 + (y1 - y0) * k / n))
    out.append(coords[-1])
    return out


def voronoi_cell(i, pts, frame):
    """Seed i's Voronoi cell inside `frame`: the frame cut by the half-plane nearer i than j, for every other seed j
    (shapely 1.8's voronoi_diagram crashes with Debian's GEOS)."""
    xi, yi = pts[i]
    cell = frame
    for j, (xj, yj) in enumerate(pts):
        if j == i:
            continue
        mx, my = (xi + xj) / 2, (yi + yj) / 2
        nx, ny = xi - xj, yi - yj  # the side of i
        n = math.hypot(nx, ny)
        nx, ny = nx / n, ny / n
        tx, ty = -ny, nx
        big = 100.0
        half = Polygon([(mx + tx * big, my + ty * big), (mx + tx * big + nx * big, my + ty * big + ny * big),
                        (mx - tx * big + nx * big, my - ty * big + ny * big), (mx - tx * big, my - ty * big)])
        cell = cell.intersection(half)
    return cell


def on_cell_edge(v):
    """Whether a coordinate lies within 1e-9 deg of a 0.25 deg cell edge (edges at .125 + k * .25)."""
    r = (v - 0.125) / RES
    return abs(r - round(r)) * RES < 1e-9


def make_districts():
    rng = np.random.default_rng(SEED)
    x0, y0, x1, y1 = BOX
    pts = []

    def far(px, py, d):
        return all(math.hypot(px - qx, py - qy) >= d for qx, qy in pts)

    while len(pts) < N_UNIFORM:  # spread out: no two seeds closer than MIN_UNIFORM
        px, py = rng.uniform(x0 + 0.6, x1 - 0.6), rng.uniform(y0 + 0.6, y1 - 0.6)
        if far(px, py, MIN_UNIFORM):
            pts.append((px, py))
    while len(pts) < N_UNIFORM + N_CLUSTERED:  # denser around the cities, never closer than MIN_CLUSTERED
        cx, cy, s = CITIES[len(pts) % len(CITIES)]
        px, py = rng.normal(cx, s), rng.normal(cy, s)
        if x0 + 0.4 < px < x1 - 0.4 and y0 + 0.4 < py < y1 - 0.4 and far(px, py, MIN_CLUSTERED):
            pts.append((px, py))
    frame = box(*BOX)
    by_seed = [voronoi_cell(i, pts, frame) for i in range(len(pts))]
    feats = []
    for i, poly in enumerate(by_seed):
        assert poly.geom_type == 'Polygon' and not poly.interiors, poly.geom_type
        ring = densify(list(poly.exterior.coords), DENSIFY)
        xs, ys = warp(np.array([c[0] for c in ring]), np.array([c[1] for c in ring]))
        xs, ys = np.round(xs, 9), np.round(ys, 9)  # 9 decimals (~0.1 mm): as GeoJSON writers round
        ring = list(zip(xs.tolist(), ys.tolist()))
        ring[-1] = ring[0]
        g = Polygon(ring)
        if not g.exterior.is_ccw:
            ring = ring[::-1]
            g = Polygon(ring)
        assert g.is_valid, f'district {i} is not valid'
        assert not any(on_cell_edge(x) or on_cell_edge(y) for x, y in ring), f'district {i} has a vertex on a cell edge'
        feats.append({'type': 'Feature', 'id': f'd{i:03d}', 'properties': {'n': i, 'name': f'District {i}'},
                      'geometry': {'type': 'Polygon', 'coordinates': [[[x, y] for x, y in ring]]}})
    return feats


def describe(feats):
    from shapely.geometry import shape
    geoms = [shape(f['geometry']) for f in feats]
    across = [math.sqrt(g.area) for g in geoms]
    verts = [len(f['geometry']['coordinates'][0]) - 1 for f in feats]
    # chunk edges (cell edges between rows/cols 99|100 and 199|200), in -180..180
    lon_edges = [float(LON0) - 360 + RES * (k - 0.5) for k in (100, 200)]
    lat_edges = [float(LAT0) - RES * (k - 0.5) for k in (100, 200)]
    crossing = sum(1 for g in geoms if any(g.bounds[0] < e < g.bounds[2] for e in lon_edges)
                   or any(g.bounds[1] < e < g.bounds[3] for e in lat_edges))
    print(f'  100 districts: sqrt(area) {min(across):.2f}-{max(across):.2f} deg (median {np.median(across):.2f}), '
          f'bbox {min(max(g.bounds[2] - g.bounds[0], g.bounds[3] - g.bounds[1]) for g in geoms):.2f}-'
          f'{max(max(g.bounds[2] - g.bounds[0], g.bounds[3] - g.bounds[1]) for g in geoms):.2f} deg across, '
          f'{min(verts)}-{max(verts)} vertices, {crossing} cross a chunk edge (lon {lon_edges[0]}, lat {lat_edges[0]})')
    return geoms


# ------------------------------------------------------------------------------------------------ the field

def cell_index(lon, lat):
    """Row and column of the cell holding (lon -180..180, lat)."""
    return int(round((LAT0 - lat) / RES)), int(round((lon + 360 - LON0) / RES))


def missing_masks(geoms):
    """The lake (every step) and the gap block (GAP_HOURS): boolean (NLAT, NLON) masks."""
    lon2 = (LON.astype(np.float64) - 360)[None, :]
    lat2 = LAT.astype(np.float64)[:, None]
    cx, cy, ax, ay = LAKE
    lake = ((lon2 - cx) / ax) ** 2 + ((lat2 - cy) / ay) ** 2 <= 1.0
    # the gap: the cells of the smallest district that crosses a chunk edge, plus one cell around
    lon_e, lat_e = float(LON0) - 360 + RES * 99.5, float(LAT0) - RES * 99.5
    crossing = [i for i, g in enumerate(geoms) if g.bounds[0] < lon_e < g.bounds[2] or g.bounds[1] < lat_e < g.bounds[3]]
    small = min(crossing, key=lambda i: geoms[i].area)
    x0, y0, x1, y1 = geoms[small].bounds
    r0, c0 = cell_index(x0, y1)
    r1, c1 = cell_index(x1, y0)
    gap = np.zeros((NLAT, NLON), bool)
    gap[r0 - 1:r1 + 2, c0 - 1:c1 + 2] = True
    print(f'  missing: lake of {lake.sum()} cells (every step); a {r1 - r0 + 3} x {c1 - c0 + 3} cell block for '
          f'{len(GAP_HOURS)} hours from {GAP_HOURS[0]} (rows {r0 - 1}-{r1 + 1}, cols {c0 - 1}-{c1 + 1}), holding '
          f'district d{small:03d} wholly')
    return lake, gap


def climatology():
    rng = np.random.default_rng(SEED + 1)
    lon = (LON.astype(np.float64) - 360)[None, :]
    lat = LAT.astype(np.float64)[:, None]
    base = 300.0 - 30.0 * (lat / 60.0) ** 2 + 1.5 * np.tanh((lon + 95.0) / 8.0)
    for _ in range(8):  # "terrain": waves of 2-9 degrees
        wl, ang, ph, amp = rng.uniform(2, 9), rng.uniform(0, math.pi), rng.uniform(0, 2 * math.pi), rng.uniform(0.3, 0.9)
        base = base + amp * np.sin(2 * math.pi * (lon * math.cos(ang) + lat * math.sin(ang)) / wl + ph)
    season_amp = 6.0 + 0.35 * np.clip(lat - 20.0, 0, None)
    diurnal_amp = 3.0 + 4.0 * (0.5 + 0.5 * np.sin(2 * math.pi * lon / 17.0))
    return base, season_amp, diurnal_amp


def write_store(geoms):
    if os.path.exists(os.path.join(STORE, '.zmetadata')) and not FORCE:
        print(f'{STORE} exists (--force rewrites)')
        return
    if os.path.exists(STORE):
        shutil.rmtree(STORE)
    t = time.time()
    lake, gap = missing_masks(geoms)
    base, season_amp, diurnal_amp = climatology()
    rng = np.random.default_rng(SEED + 2)
    waves = [(rng.uniform(15, 35), rng.uniform(0, math.pi), rng.uniform(0, 2 * math.pi), rng.uniform(3, 9) * 24,
              rng.uniform(1.2, 2.0)) for _ in range(3)]
    lon = (LON.astype(np.float64) - 360)[None, :]
    lat = LAT.astype(np.float64)[:, None]
    rho, sigma, white = 0.97, 0.8, 0.03
    noise = rng.normal(0, sigma, (NOISE_GRID, NOISE_GRID))
    hours0 = (TIMES - pd.Timestamp('2021-01-01')) / pd.Timedelta(hours=1)
    encoding = {
        't2m': {'dtype': 'int16', 'scale_factor': SCALE, 'add_offset': OFFSET, '_FillValue': FILL, 'chunks': CHUNKS,
                'compressor': Blosc(cname='lz4', clevel=5, shuffle=Blosc.SHUFFLE)},
        'time': {'units': 'hours since 1900-01-01', 'calendar': 'gregorian', 'dtype': 'int32', 'chunks': (len(TIMES),)},
        'latitude': {'_FillValue': None},
        'longitude': {'_FillValue': None},
    }
    months = sorted(set(TIMES.month))
    for m in months:
        idx = np.nonzero(TIMES.month == m)[0]
        vals = np.empty((len(idx), NLAT, NLON), np.float64)
        for k, i in enumerate(idx):
            h = hours0[i]
            doy = h / 24.0
            season = -season_amp * np.cos(2 * math.pi * (doy - 15.0) / 365.0)
            local = (TIMES[i].hour + lon / 15.0) % 24.0
            diurnal = diurnal_amp * np.cos(2 * math.pi * (local - 15.0) / 24.0)
            weather = 0.0
            for wl, ang, ph, period, amp in waves:
                weather = weather + amp * np.sin(2 * math.pi * ((lon * math.cos(ang) + lat * math.sin(ang)) / wl - h / period) + ph)
            noise = rho * noise + math.sqrt(1 - rho * rho) * rng.normal(0, sigma, (NOISE_GRID, NOISE_GRID))
            local_weather = zoom(noise, NLAT / NOISE_GRID * 1.0001, order=3)[:NLAT, :NLON]
            v = base + season + diurnal + weather + local_weather + rng.normal(0, white, (NLAT, NLON))
            v[lake] = np.nan
            if TIMES[i] in GAP_HOURS:
                v[gap] = np.nan
            vals[k] = v
        lo, hi = OFFSET + SCALE * -32766, OFFSET + SCALE * 32767
        assert np.nanmin(vals) > lo and np.nanmax(vals) < hi, (np.nanmin(vals), np.nanmax(vals))
        ds = xr.Dataset(
            {'t2m': (('time', 'latitude', 'longitude'), vals,
                     {'units': 'K', 'long_name': '2 metre temperature', 'standard_name': 'air_temperature'})},
            coords={
                'time': ('time', TIMES[idx].values, {'long_name': 'time', 'standard_name': 'time', 'axis': 'T'}),
                'latitude': ('latitude', LAT, {'units': 'degrees_north', 'standard_name': 'latitude', 'long_name': 'latitude', 'axis': 'Y'}),
                'longitude': ('longitude', LON, {'units': 'degrees_east', 'standard_name': 'longitude', 'long_name': 'longitude', 'axis': 'X'}),
            },
            attrs={'Conventions': 'CF-1.6', 'title': 'ERA5-like 2 m temperature (synthetic, regional)',
                   'source': 'bench/cube/make-data.py', 'history': 'synthetic, made for the cube benchmark'},
        )
        if m == months[0]:
            ds.to_zarr(STORE, mode='w', encoding=encoding, consolidated=True)
        else:
            ds.to_zarr(STORE, append_dim='time', consolidated=True)
        print(f'  {STORE}: month {m} written ({time.time() - t:.0f} s)', flush=True)
    zarr.consolidate_metadata(STORE)
    raw = 8760 * NLAT * NLON * 2
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(os.path.join(STORE, 't2m')) for f in fs)
    print(f'wrote {STORE}: t2m {size:,} bytes for {raw:,} raw ({raw / size:.2f}:1), '
          f'{len(os.listdir(os.path.join(STORE, "t2m"))) - 2} chunk objects, {time.time() - t:.0f} s')


def check_store():
    ds = xr.open_zarr(STORE, consolidated=True)
    v = ds['t2m']
    assert v.dims == ('time', 'latitude', 'longitude') and v.shape == (8760, NLAT, NLON), (v.dims, v.shape)
    assert v.encoding['chunks'] == CHUNKS and v.encoding['dtype'] == np.int16, v.encoding
    assert str(ds['time'].values[0])[:19] == '2021-01-01T00:00:00' and str(ds['time'].values[-1])[:19] == '2021-12-31T23:00:00'
    assert ds['time'].encoding['units'] == 'hours since 1900-01-01' and ds['time'].encoding['calendar'] == 'gregorian'
    assert float(ds['latitude'][0]) == LAT0 and float(ds['longitude'][0]) == LON0
    assert ds['time'].encoding['chunks'] == (len(TIMES),), ds['time'].encoding


def main():
    os.makedirs(DATA, exist_ok=True)
    if os.path.exists(DISTRICTS) and not FORCE:
        print(f'{DISTRICTS} exists (--force rewrites)')
        feats = json.load(open(DISTRICTS))['features']
    else:
        feats = make_districts()
        with open(DISTRICTS, 'w') as f:
            json.dump({'type': 'FeatureCollection', 'features': feats}, f)
        print(f'wrote {DISTRICTS} ({os.path.getsize(DISTRICTS):,} bytes)')
    geoms = describe(feats)
    write_store(geoms)
    check_store()


if __name__ == '__main__':
    main()
