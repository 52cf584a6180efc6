#!/usr/bin/env python3
"""Writes the STAC benchmark's data into bench/data/ (bench-only dev tool: Debian python3-gdal, python3-numpy,
python3-pyproj).

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
    DEFLATE, no overviews, no nodata. Scene classes {3, 4, 5, 6, 8, 9, 10} drawn by thresholds of smooth
    fields (waves of 2 to 25 km) with a small hash noise on the cloud field so class edges are ragged:
    9 cloud high probability (cloud cores), 8 cloud medium probability (around them), 3 cloud shadow (the
    cloud field shifted by about 1.5 km to the south-east, where there is no cloud), 10 thin cirrus (a
    second, banded field), and on the clear ground 6 water, 5 bare soil, 4 vegetation from a land field.
    Classes 3, 8, 9 and 10 together cover about 30 % of the tile (printed).

bench/data/stac_zones_100.geojson
    100 random (numpy default_rng(7)) 1 km x 1 km squares, axis-aligned in UTM with corners at random
    (non grid-aligned) positions at least 200 m inside the tile, each a WGS84 lon/lat Polygon: its four UTM
    corners transformed with pyproj (EPSG:32633 -> EPSG:4326, always_xy=True), ring closed. A
    FeatureCollection; feature i has "id": "z<i>" and "properties": {"n": i}.

bench/data/stac_tiles.json
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
import math
import resource
import time

import numpy as np
from osgeo import gdal, ogr, osr
from pyproj import Transformer

gdal.UseExceptions()
ogr.UseExceptions()
osr.UseExceptions()

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.normpath(os.path.join(HERE, '..', 'data'))
B04 = os.path.join(DATA, 'stac_B04.tif')
B08 = os.path.join(DATA, 'stac_B08.tif')
SCL = os.path.join(DATA, 'stac_SCL.tif')
ZONES = os.path.join(DATA, 'stac_zones_100.geojson')
TILES = os.path.join(DATA, 'stac_tiles.json')

EPSG = 32633
X0, Y0 = 399_960.0, 5_200_020.0  # top-left corner of the tile
SIZE10, PIX10 = 10_980, 10.0
SIZE20, PIX20 = 5_490, 20.0
BLOCK = 512
STRIP = 1_098  # rows per computed strip (10 strips for the 10 m bands)
NODATA_BLOCK = (3000, 3200, 7000, 7200)  # rows r0:r1, cols c0:c1 set to 0 in B04
N_ZONES, ZONE_SEED, SIDE, MARGIN = 100, 7, 1000.0, 200.0
FORCE = '--force' in sys.argv


def utm() -> osr.SpatialReference:
    s = osr.SpatialReference()
    s.ImportFromEPSG(EPSG)
    s.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    return s


def wgs84() -> osr.SpatialReference:
    s = osr.SpatialReference()
    s.ImportFromEPSG(4326)
    s.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    return s


def hash32(rows: np.ndarray, cols: np.ndarray, salt: int) -> np.ndarray:
    """Hash of (row, col, salt) -> uint32 (rows x cols), uint32 arithmetic (wraps)."""
    r = rows.astype(np.uint32)[:, None]
    c = cols.astype(np.uint32)[None, :]
    with np.errstate(over='ignore'):
        h = (c * np.uint32(73856093)) ^ (r * np.uint32(19349663)) ^ np.uint32(salt)
        h ^= h >> np.uint32(16)
        h *= np.uint32(0x7FEB352D)
        h ^= h >> np.uint32(15)
        h *= np.uint32(0x846CA68B)
        h ^= h >> np.uint32(16)
    return h


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


def scl_field(rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Scene classes of SCL rows x cols (20 m pixels)."""
    y = rows.astype(np.float64)[:, None] * PIX20  # metres from the top-left corner
    x = cols.astype(np.float64)[None, :] * PIX20
    tau = 2 * np.pi

    def cloud(xm, ym):
        return (0.55 * np.sin(xm * tau / 23_000 + 0.4) * np.cos(ym * tau / 19_000 + 1.1)
                + 0.30 * np.sin(xm * tau / 7_300 + 2.0) * np.sin(ym * tau / 8_900 + 0.3)
                + 0.15 * np.cos(xm * tau / 2_300 + 1.7) * np.cos(ym * tau / 2_900 + 0.9))

    rag = (hash32(rows, cols, 0x27D4EB2F).astype(np.float64) / 4294967296.0 - 0.5) * 0.06  # ragged edges
    c = cloud(x, y) + rag
    shadow = cloud(x - 1_100.0, y - 1_100.0) + rag  # the cloud field 1.5 km to the south-east (y grows down)
    cirrus = (np.sin((x + 0.6 * y) * tau / 11_000 + 0.5) * np.cos((x - y) * tau / 31_000 + 0.2)
              + 0.08 * np.sin(x * tau / 1_700) * np.sin(y * tau / 1_300))
    land = (np.sin(x * tau / 17_000 + 1.3) * np.cos(y * tau / 13_000 + 0.6)
            + 0.5 * np.cos(x * tau / 4_100 + 0.2) * np.sin(y * tau / 5_300 + 2.4)
            + 0.2 * np.sin(x * tau / 900 + y * tau / 1_100))
    out = np.full(c.shape, 4, np.uint8)  # vegetation
    out[land < -0.35] = 5  # bare soil
    out[land < -0.95] = 6  # water
    out[cirrus > 0.80] = 10  # thin cirrus
    out[(shadow > T8) & (c <= T8)] = 3  # cloud shadow
    out[c > T8] = 8  # cloud medium probability
    out[c > T9] = 9  # cloud high probability
    return out


T8, T9 = 0.30, 0.48  # cloud field thresholds of classes 8 and 9


def timed(label: str, t0: float, path: str) -> None:
    print(f'wrote {path} ({os.path.getsize(path):,} bytes) in {time.time() - t0:.1f} s  [{label}]', flush=True)


def to_cog(tmp: str, path: str, options: list) -> None:
    part = path + '.part'
    gdal.Translate(part, tmp, format='COG', creationOptions=options)
    os.replace(part, path)
    gdal.GetDriverByName('GTiff').Delete(tmp)


def create_tmp(tmp: str, size: int, pix: float, dtype: int):
    """An uncompressed tiled GTiff on the tile's grid (to be written in strips, then made a COG)."""
    ds = gdal.GetDriverByName('GTiff').Create(tmp, size, size, 1, dtype, options=[
        'TILED=YES', 'BLOCKXSIZE=512', 'BLOCKYSIZE=512', 'COMPRESS=NONE'])
    ds.SetGeoTransform((X0, pix, 0.0, Y0, 0.0, -pix))
    ds.SetProjection(utm().ExportToWkt())
    return ds, ds.GetRasterBand(1)


def write_band(name: str, path: str) -> None:
    if os.path.exists(path) and not FORCE:
        print(f'{path} exists ({os.path.getsize(path):,} bytes; --force rewrites)')
        return
    t0 = time.time()
    tmp = path + '.tmp.tif'
    ds, band = create_tmp(tmp, SIZE10, PIX10, gdal.GDT_UInt16)
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


def write_scl() -> None:
    if os.path.exists(SCL) and not FORCE:
        print(f'{SCL} exists ({os.path.getsize(SCL):,} bytes; --force rewrites)')
        return
    t0 = time.time()
    tmp = SCL + '.tmp.tif'
    ds, band = create_tmp(tmp, SIZE20, PIX20, gdal.GDT_Byte)
    hist = np.zeros(256, np.int64)
    cols = np.arange(SIZE20)
    for row0 in range(0, SIZE20, STRIP):
        n = min(STRIP, SIZE20 - row0)
        a = scl_field(np.arange(row0, row0 + n), cols)
        hist += np.bincount(a.ravel(), minlength=256)
        band.WriteArray(a, 0, row0)
    ds = band = None
    total = SIZE20 * SIZE20
    shares = ', '.join(f'{k}: {100 * hist[k] / total:.1f} %' for k in np.nonzero(hist)[0])
    masked = sum(int(hist[k]) for k in (3, 8, 9, 10))
    print(f'SCL classes {shares}; 3+8+9+10: {100 * masked / total:.1f} %', flush=True)
    to_cog(tmp, SCL, ['COMPRESS=DEFLATE', 'BLOCKSIZE=512', 'OVERVIEWS=NONE', 'NUM_THREADS=ALL_CPUS',
                      'BIGTIFF=NO'])
    timed('SCL', t0, SCL)


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


def selected_pixels(zone: dict, ct: osr.CoordinateTransformation):
    """(rows, cols) on the 10 m grid of the pixels whose centre lies inside the zone (GDAL's rasterizer)."""
    g = ogr.CreateGeometryFromJson(json.dumps(zone['geometry']))
    g.Transform(ct)
    minx, maxx, miny, maxy = g.GetEnvelope()
    c0 = max(0, math.floor((minx - X0) / PIX10))
    c1 = min(SIZE10, math.ceil((maxx - X0) / PIX10))
    r0 = max(0, math.floor((Y0 - maxy) / PIX10))
    r1 = min(SIZE10, math.ceil((Y0 - miny) / PIX10))
    w, h = c1 - c0, r1 - r0
    mem = gdal.GetDriverByName('MEM').Create('', w, h, 1, gdal.GDT_Byte)
    mem.SetGeoTransform((X0 + c0 * PIX10, PIX10, 0.0, Y0 - r0 * PIX10, 0.0, -PIX10))
    mem.SetProjection(utm().ExportToWkt())
    vds = ogr.GetDriverByName('Memory').CreateDataSource('')
    layer = vds.CreateLayer('zone', utm(), ogr.wkbPolygon)
    feat = ogr.Feature(layer.GetLayerDefn())
    feat.SetGeometry(g)
    layer.CreateFeature(feat)
    gdal.RasterizeLayer(mem, [1], layer, burn_values=[1])  # pixel-centre rule (no ALL_TOUCHED)
    rows, cols = np.nonzero(mem.GetRasterBand(1).ReadAsArray())
    return rows + r0, cols + c0


def tile_table(path: str):
    ds = gdal.Open(path)
    band = ds.GetRasterBand(1)
    bw, bh = band.GetBlockSize()
    across, down = math.ceil(ds.RasterXSize / bw), math.ceil(ds.RasterYSize / bh)
    sizes, offsets = {}, []
    for ty in range(down):
        for tx in range(across):
            sizes[(tx, ty)] = int(band.GetMetadataItem(f'BLOCK_SIZE_{tx}_{ty}', 'TIFF') or 0)
            offsets.append(int(band.GetMetadataItem(f'BLOCK_OFFSET_{tx}_{ty}', 'TIFF') or 0))
    first = min(o for o in offsets if o > 0)
    return sizes, (across, down), first, os.path.getsize(path)


def write_tiles() -> None:
    inputs = [B04, B08, SCL, ZONES]
    if os.path.exists(TILES) and not FORCE and all(os.path.getmtime(p) <= os.path.getmtime(TILES) for p in inputs):
        print(f'{TILES} exists and is newer than its inputs (--force rewrites)')
        return
    t0 = time.time()
    zones = json.load(open(ZONES))['features']
    ct = osr.CoordinateTransformation(wgs84(), utm())
    tiles10, tiles20, total, per_zone = set(), set(), 0, []
    for z in zones:
        rows, cols = selected_pixels(z, ct)
        total += rows.size
        per_zone.append(int(rows.size))
        tiles10.update(zip((cols // BLOCK).tolist(), (rows // BLOCK).tolist()))
        tiles20.update(zip((cols // 2 // BLOCK).tolist(), (rows // 2 // BLOCK).tolist()))
    out = {}
    for name, path, held in (('B04', B04, tiles10), ('B08', B08, tiles10), ('SCL', SCL, tiles20)):
        sizes, grid, first, fsize = tile_table(path)
        lst = sorted(held, key=lambda t: (t[1], t[0]))
        tb = [[tx, ty, sizes[(tx, ty)]] for tx, ty in lst]
        out[name] = {
            'tiles': len(tb),
            'bytes': sum(t[2] for t in tb),
            'tile_grid': list(grid),
            'file_bytes': fsize,
            'all_tiles_bytes': sum(sizes.values()),
            'header_bytes': first,
            'tile_bytes': tb,
        }
    out['zones'] = len(zones)
    out['zones_pixels'] = total
    out['zone_pixels_min_max'] = [min(per_zone), max(per_zone)]
    out['per_file_header_bytes_note'] = (
        '"bytes" sums only the TileByteCounts of the tiles that hold zone pixels (GDAL BLOCK_SIZE_x_y); a '
        'reader also needs each file\'s header: the TIFF header, the COG ghost area and the IFD with its '
        'TileOffsets / TileByteCounts arrays, all before the first tile ("header_bytes" = the offset of the '
        'first tile\'s data, which GDAL\'s /vsicurl/ gets in its first 16 KiB read). The COG driver also '
        'writes a 4-byte leader (tile size) before and a 4-byte trailer (last 4 bytes repeated) after each '
        'tile, not counted here. Selected pixels: pixel centre inside the zone (gdal.RasterizeLayer, no '
        'ALL_TOUCHED) on the 10 m grid; the SCL tile is that of the 20 m pixel holding each selected 10 m '
        'pixel\'s centre (col10 // 2, row10 // 2). B04 and B08 share the same tiles.')
    tmp = TILES + '.part'
    with open(tmp, 'w') as f:
        json.dump(out, f, indent=1)
    os.replace(tmp, TILES)
    print(f'wrote {TILES} in {time.time() - t0:.1f} s: ' + ', '.join(
        f"{k} {out[k]['tiles']} tiles {out[k]['bytes']:,} B" for k in ('B04', 'B08', 'SCL'))
        + f', {total:,} zone pixels')


def main() -> None:
    t0 = time.time()
    os.makedirs(DATA, exist_ok=True)
    write_band('B04', B04)
    write_band('B08', B08)
    write_scl()
    write_zones()
    write_tiles()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f'done in {time.time() - t0:.1f} s, peak RSS {rss:.0f} MiB')


if __name__ == '__main__':
    main()
