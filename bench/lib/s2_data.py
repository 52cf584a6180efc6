#!/usr/bin/env python3
"""Sentinel-2 L2A-shaped benchmark data (bench-only dev tool: Debian python3-gdal, python3-numpy, python3-pyproj).

An importable module (bench/stac/make-data.py takes its shared helpers from here: the tile's grid, the scene
classification field, the COG writer, the zone rasterizer, the tile accounting) and a command:

    /usr/bin/python3 bench/lib/s2_data.py [--force]       # ~1.5 min on 2 cores the first time

One synthetic tile with the footprint and file layout of a public Sentinel-2 L2A scene (EPSG:32633,
WGS 84 / UTM 33N, top-left corner x = 399960, y = 5200020, 109.8 km x 109.8 km, about 13.7-15.1 E,
45.9-46.9 N), written into bench/data/:

bench/data/s2_B04.tif (red), s2_B08.tif (nir)
    10980 x 10980 UInt16, 10 m pixels, GDAL COG driver: 1024 px tiles (11 x 11 = 121), DEFLATE,
    PREDICTOR=2, no overviews, classic TIFF, nodata 0 declared: the layout of the public L2A COGs. The
    texture is made to compress like real L2A reflectance, about 2.2:1 (the ratio is printed):
      - a mosaic of agricultural parcels: a Voronoi partition of seeds on a jittered 32 px (320 m) grid
        (parcels of about 100-600 m), each parcel one land cover (green crop, ripe crop, bare soil,
        grass, forest, built-up, water) with its own red and nir level and a slight linear gradient
        across the field;
      - one-pixel field margins (hedgerows, tracks) where two parcels meet, and a few straight roads;
      - a smooth large-scale brightness variation (+-12 %, waves of 15-40 km);
      - within-field texture: Gaussian values (std 25 DN red, 30 DN nir) on an 8 px grid interpolated
        bilinearly, plus white noise of 3 DN per pixel. These set the compression ratio (the knobs
        TEX_* and NOISE_*): DEFLATE after predictor 2 sees pixel-to-pixel differences, and white noise
        of 20 DN alone would give only ~1.65:1.
    Values are DN = 1000 + 10000 x reflectance (L2A processing baseline 04.00's BOA_ADD_OFFSET; the
    Items' raster:bands scale 0.0001 and offset -0.1 give reflectance back): about 1000..3500 in red and
    1000..6300 in nir, nir high over vegetation, red low. Land reflectances have red + nir >= ~0.2 and
    calm water (little texture) red + nir in ~0.025..0.06, so the NDVI never divides by a near-zero sum.
    No pixel is 0 except one 100 x 100 block of nodata in B04 (rows 3000-3099, cols
    7000-7099), under a quarter of zone z0 (see the zones). Built in strips of 1024 rows into temporary
    tiled GTiffs (peak memory about 1 GB), then gdal.Translate -> COG; the temporaries are removed.

bench/data/s2_SCL.tif
    5490 x 5490 Byte, 20 m pixels, same CRS and corner, COG driver, 1024 px tiles (6 x 6 = 36), DEFLATE
    without predictor, no overviews, no nodata. Scene classes {3, 4, 5, 6, 8, 9, 10} from scl_field():
    thresholds of smooth fields with ragged edges; 3 + 8 + 9 + 10 about 30 % (printed).

bench/data/s2_zones_100.geojson
    100 field-sized zones: irregular simple polygons of 5-8 vertices (star-shaped around their centre,
    so always simple; convex or mildly concave), 1-25 ha (log-uniform), elongated up to 1.6:1 and rotated,
    about 100-650 m across, at random positions (numpy default_rng(ZONE_SEED)) whose bounding box stays
    at least 200 m inside the tile. Zone z0 is centred on the top-left corner of B04's nodata block, so
    about a quarter of its pixels are nodata. Edges are densified to <= 20 m in UTM, then every vertex is
    transformed to WGS84 lon/lat with pyproj (EPSG:32633 -> EPSG:4326, always_xy=True). A
    FeatureCollection; feature i has "id": "z<i>" and "properties": {"n": i}.

bench/data/s2_tiles.json
    GDAL's accounting of the tiles that hold zone pixels and their bytes, per band, as
    bench/data/stac_tiles.json (write_tiles(): the zones rasterized with gdal.RasterizeLayer, centre rule).

Deterministic: seeded numpy, the same bytes every run. Each file is skipped when it exists (s2_tiles.json
is rewritten when an input is newer); --force rewrites everything.
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

gdal.UseExceptions()
ogr.UseExceptions()
osr.UseExceptions()

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.normpath(os.path.join(HERE, '..', 'data'))

# The tile's grid (shared with bench/stac/make-data.py).
EPSG = 32633
X0, Y0 = 399_960.0, 5_200_020.0  # top-left corner of the tile
SIZE10, PIX10 = 10_980, 10.0
SIZE20, PIX20 = 5_490, 20.0

# This module's files.
B04 = os.path.join(DATA, 's2_B04.tif')
B08 = os.path.join(DATA, 's2_B08.tif')
SCL = os.path.join(DATA, 's2_SCL.tif')
ZONES = os.path.join(DATA, 's2_zones_100.geojson')
TILES = os.path.join(DATA, 's2_tiles.json')
BLOCK = 1024  # tile size of the public L2A COGs
STRIP = 1024  # rows per computed strip: tile-aligned writes into the temporary GTiff

# Texture knobs (see the docstring), tuned so both bands land at about 2.2:1 with DEFLATE + predictor 2.
# The ratio follows the pixel-to-pixel differences (what predictor 2 leaves to DEFLATE), so the within-
# field variation is mostly spatially correlated texture (std TEX_* DN, correlated over TEX_STEP px) with
# a little white noise (NOISE_* DN). White noise alone of 20 DN gives only ~1.65:1 (measured): DEFLATE
# codes the difference's low and high bytes with one Huffman table, a poor fit for 16-bit residuals.
CELL = 32  # Voronoi seed grid, px (320 m)
JITTER = 0.45  # seed offset within its cell, as a share of CELL
NOISE_RED, NOISE_NIR = 3.0, 3.0
TEX_STEP = 8  # px between the texture's grid values
TEX_RED, TEX_NIR = 25.0, 30.0  # std of the texture's grid values, DN
TEXTURE_SEED = 20_240_601
NODATA_BLOCK = (3000, 3100, 7000, 7100)  # rows r0:r1, cols c0:c1 set to 0 in B04

N_ZONES, ZONE_SEED, MARGIN = 100, 11, 200.0


# ---------------------------------------------------------------------------------------------------------
# Shared helpers (also used by bench/stac/make-data.py)
# ---------------------------------------------------------------------------------------------------------

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


T8, T9 = 0.30, 0.48  # cloud field thresholds of classes 8 and 9


def scl_field(rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Scene classes of SCL rows x cols (20 m pixels of the tile's grid).

    Thresholds of smooth fields (waves of 2 to 25 km) with a small hash noise on the cloud field so class
    edges are ragged: 9 cloud high probability (cloud cores), 8 cloud medium probability (around them),
    3 cloud shadow (the cloud field shifted by about 1.5 km to the south-east, where there is no cloud),
    10 thin cirrus (a second, banded field), and on the clear ground 6 water, 5 bare soil, 4 vegetation
    from a land field. Classes 3, 8, 9 and 10 together cover about 30 % of the tile.
    """
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


def timed(label: str, t0: float, path: str) -> None:
    print(f'wrote {path} ({os.path.getsize(path):,} bytes) in {time.time() - t0:.1f} s  [{label}]', flush=True)


def to_cog(tmp: str, path: str, options: list) -> None:
    """gdal.Translate of a temporary GTiff to a COG at `path` (written aside, then renamed); removes the temporary."""
    part = path + '.part'
    gdal.Translate(part, tmp, format='COG', creationOptions=options)
    os.replace(part, path)
    gdal.GetDriverByName('GTiff').Delete(tmp)


def create_tmp(tmp: str, size: int, pix: float, dtype: int, block: int = 512):
    """An uncompressed tiled GTiff on the tile's grid (to be written in strips, then made a COG)."""
    ds = gdal.GetDriverByName('GTiff').Create(tmp, size, size, 1, dtype, options=[
        'TILED=YES', f'BLOCKXSIZE={block}', f'BLOCKYSIZE={block}', 'COMPRESS=NONE'])
    ds.SetGeoTransform((X0, pix, 0.0, Y0, 0.0, -pix))
    ds.SetProjection(utm().ExportToWkt())
    return ds, ds.GetRasterBand(1)


def write_scl_file(path: str, block: int, force: bool) -> None:
    """The 20 m scene classification (scl_field) as a COG with `block` px tiles, DEFLATE, no predictor."""
    if os.path.exists(path) and not force:
        print(f'{path} exists ({os.path.getsize(path):,} bytes; --force rewrites)')
        return
    t0 = time.time()
    tmp = path + '.tmp.tif'
    ds, band = create_tmp(tmp, SIZE20, PIX20, gdal.GDT_Byte, block)
    hist = np.zeros(256, np.int64)
    cols = np.arange(SIZE20)
    strip = 1_098  # any strip height gives the same pixels (scl_field is per pixel)
    for row0 in range(0, SIZE20, strip):
        n = min(strip, SIZE20 - row0)
        a = scl_field(np.arange(row0, row0 + n), cols)
        hist += np.bincount(a.ravel(), minlength=256)
        band.WriteArray(a, 0, row0)
    ds = band = None
    total = SIZE20 * SIZE20
    shares = ', '.join(f'{k}: {100 * hist[k] / total:.1f} %' for k in np.nonzero(hist)[0])
    masked = sum(int(hist[k]) for k in (3, 8, 9, 10))
    print(f'SCL classes {shares}; 3+8+9+10: {100 * masked / total:.1f} %', flush=True)
    to_cog(tmp, path, ['COMPRESS=DEFLATE', f'BLOCKSIZE={block}', 'OVERVIEWS=NONE', 'NUM_THREADS=ALL_CPUS',
                       'BIGTIFF=NO'])
    timed('SCL', t0, path)


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
    """Per tile (tx, ty) its byte count (TIFF TileByteCounts via GDAL), the tile grid (across, down), the
    offset of the first tile's data and the file's size."""
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


def write_tiles_file(path: str, b04: str, b08: str, scl: str, zones_path: str, force: bool) -> dict:
    """GDAL's accounting of the tiles that hold zone pixels (see bench/stac/make-data.py's docstring for the format).

    Each zone is transformed to EPSG:32633 with OGR and rasterized onto the 10 m grid (centre rule); for
    B04 and B08 a tile holds zone pixels when it contains a selected pixel of any zone, for SCL the tile of
    the 20 m pixel holding each selected 10 m pixel's centre (col10 // 2, row10 // 2). Byte counts are the
    TIFF TileByteCounts (GDAL's BLOCK_SIZE_<tx>_<ty>). Returns the table (read back when up to date).
    """
    inputs = [b04, b08, scl, zones_path]
    if os.path.exists(path) and not force and all(os.path.getmtime(p) <= os.path.getmtime(path) for p in inputs):
        print(f'{path} exists and is newer than its inputs (--force rewrites)')
        with open(path) as f:
            return json.load(f)
    t0 = time.time()
    with open(zones_path) as f:
        zones = json.load(f)['features']
    ct = osr.CoordinateTransformation(wgs84(), utm())
    # The 10 m and 20 m tiles hold different numbers of pixels: each raster's own block size decides.
    bw10 = gdal.Open(b04).GetRasterBand(1).GetBlockSize()[0]
    bw20 = gdal.Open(scl).GetRasterBand(1).GetBlockSize()[0]
    tiles10, tiles20, total, per_zone = set(), set(), 0, []
    for z in zones:
        rows, cols = selected_pixels(z, ct)
        total += rows.size
        per_zone.append(int(rows.size))
        tiles10.update(zip((cols // bw10).tolist(), (rows // bw10).tolist()))
        tiles20.update(zip((cols // 2 // bw20).tolist(), (rows // 2 // bw20).tolist()))
    out = {}
    for name, p, held in (('B04', b04, tiles10), ('B08', b08, tiles10), ('SCL', scl, tiles20)):
        sizes, grid, first, fsize = tile_table(p)
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
    tmp = path + '.part'
    with open(tmp, 'w') as f:
        json.dump(out, f, indent=1)
    os.replace(tmp, path)
    print(f'wrote {path} in {time.time() - t0:.1f} s: ' + ', '.join(
        f"{k} {out[k]['tiles']} of {out[k]['tile_grid'][0] * out[k]['tile_grid'][1]} tiles {out[k]['bytes']:,} B"
        for k in ('B04', 'B08', 'SCL')) + f', {total:,} zone pixels', flush=True)
    return out


# ---------------------------------------------------------------------------------------------------------
# The Sentinel-2-shaped 10 m bands
# ---------------------------------------------------------------------------------------------------------

# Land covers of the parcels: (share, red range, nir range) as surface reflectance; a DN is
# BOA_ADD_OFFSET + 10000 x reflectance, as L2A processing baseline 04.00 writes it (the Items' raster:bands
# scale 0.0001 and offset -0.1 undo it).
COVERS = [
    (0.33, (0.020, 0.060), (0.30, 0.48)),  # green crop
    (0.14, (0.080, 0.130), (0.20, 0.28)),  # ripe / senescent crop
    (0.20, (0.120, 0.220), (0.18, 0.28)),  # bare soil
    (0.16, (0.040, 0.080), (0.24, 0.34)),  # grass
    (0.12, (0.015, 0.035), (0.22, 0.34)),  # forest
    (0.03, (0.120, 0.180), (0.15, 0.22)),  # built-up
    (0.02, (0.020, 0.040), (0.005, 0.020)),  # water (the last: calm, see Parcels)
]
BOA_ADD_OFFSET = 1000.0
MARGIN_RED, MARGIN_NIR = 600.0, 2500.0  # field margins (hedgerows, tracks), 10000 x reflectance
ROAD_RED, ROAD_NIR = 1400.0, 1700.0


class Parcels:
    """The Voronoi parcels: one seed per CELL x CELL grid cell (a ring of cells beyond the tile so edge
    pixels find their true nearest seed), and per parcel its land cover's red / nir level and gradient."""

    def __init__(self) -> None:
        rng = np.random.default_rng(TEXTURE_SEED)
        n = SIZE10 // CELL + 3  # cells across, with one extra cell before and after the tile
        self.n = n
        # Seed positions in pixel coordinates (col, row); cell k spans [(k - 1) * CELL, k * CELL).
        base = (np.arange(n, dtype=np.float64) - 1) * CELL + CELL / 2
        self.sx = (base[None, :] + (rng.random((n, n)) - 0.5) * 2 * JITTER * CELL).astype(np.float32)
        self.sy = (base[:, None] + (rng.random((n, n)) - 0.5) * 2 * JITTER * CELL).astype(np.float32)
        shares = np.array([c[0] for c in COVERS])
        cover = rng.choice(len(COVERS), size=(n, n), p=shares / shares.sum())
        u_red, u_nir = rng.random((n, n)), rng.random((n, n))
        red_lo = np.array([c[1][0] for c in COVERS])[cover]
        red_hi = np.array([c[1][1] for c in COVERS])[cover]
        nir_lo = np.array([c[2][0] for c in COVERS])[cover]
        nir_hi = np.array([c[2][1] for c in COVERS])[cover]
        # 10000 x reflectance (BOA_ADD_OFFSET is added after the large-scale brightness).
        self.red = (10_000 * (red_lo + u_red * (red_hi - red_lo))).astype(np.float32).ravel()
        self.nir = (10_000 * (nir_lo + u_nir * (nir_hi - nir_lo))).astype(np.float32).ravel()
        # Within-field gradient, DN per pixel (a field's level drifts by some tens of DN across it).
        self.red_g = (rng.normal(0, 0.6, (2, n * n))).astype(np.float32)
        self.nir_g = (rng.normal(0, 1.5, (2, n * n))).astype(np.float32)
        self.water = (cover.ravel() == len(COVERS) - 1)
        # Calm water: little drift or texture, so its red + nir reflectance (0.025..0.06) stays far from 0
        # and the NDVI never divides by a near-zero sum.
        self.red_g[:, self.water] *= 0.1
        self.nir_g[:, self.water] *= 0.1
        self.texture_amp = np.where(self.water, 0.15, 1.0).astype(np.float32)
        # Sub-field texture: a coarse grid of Gaussian values every TEX_STEP px per band, interpolated
        # bilinearly (spatially correlated, like crop rows, soil moisture, canopy).
        m = SIZE10 // TEX_STEP + 3
        self.texture = [rng.standard_normal((m, m), dtype=np.float32) * np.float32(TEX_RED),
                        rng.standard_normal((m, m), dtype=np.float32) * np.float32(TEX_NIR)]
        # A few straight roads: lines a*col + b*row = c (unit normal (a, b)), half-width in px.
        self.roads = []
        for _ in range(14):
            ang = rng.random() * np.pi
            a, b = math.cos(ang), math.sin(ang)
            c = (rng.random() * SIZE10) * (abs(a) + abs(b))
            self.roads.append((a, b, c, 0.5 + rng.random() * 0.7))

    def nearest(self, row0: int, nrows: int):
        """Per pixel of rows row0 .. row0+nrows (all columns): the parcel index and whether it lies on a margin."""
        pid = np.empty((nrows, SIZE10), np.int32)
        edge = np.empty((nrows, SIZE10), bool)
        cols = np.arange(SIZE10, dtype=np.float32) + 0.5
        ci = (np.arange(SIZE10) // CELL) + 1  # cell column of each pixel column (+1: the ring)
        r = row0
        while r < row0 + nrows:
            # The pixel rows of one cell row: their candidate seeds are the 3 x 3 cells around each pixel's cell.
            ri = r // CELL + 1
            r1 = min(row0 + nrows, (ri) * CELL)
            rows = (np.arange(r, r1, dtype=np.float32) + 0.5)[:, None]
            d1 = np.full((r1 - r, SIZE10), np.inf, np.float32)
            d2 = np.full((r1 - r, SIZE10), np.inf, np.float32)
            best = np.zeros((r1 - r, SIZE10), np.int32)
            for di in (-1, 0, 1):
                for dj in (-1, 0, 1):
                    cj = ci + dj
                    sx = self.sx[ri + di, cj][None, :]
                    sy = self.sy[ri + di, cj][None, :]
                    d = (cols[None, :] - sx) ** 2 + (rows - sy) ** 2
                    closer = d < d1
                    d2 = np.where(closer, d1, np.minimum(d2, d))
                    d1 = np.where(closer, d, d1)
                    best = np.where(closer, ((ri + di) * self.n + cj)[None, :].astype(np.int32), best)
            pid[r - row0:r1 - row0] = best
            # A margin pixel is about as close to a second seed as to its own (within ~1 px of the bisector).
            edge[r - row0:r1 - row0] = (np.sqrt(d2) - np.sqrt(d1)) < 1.1
            r = r1
        return pid, edge


def texture(grid: np.ndarray, row0: int, nrows: int) -> np.ndarray:
    """Rows row0 .. row0+nrows of `grid` (values every TEX_STEP px) interpolated bilinearly at the pixel centres."""
    fy = (np.arange(row0, row0 + nrows, dtype=np.float32) + 0.5) / TEX_STEP
    iy = np.floor(fy).astype(np.int64)
    wy = (fy - iy)[:, None]
    by_rows = grid[iy] * (1 - wy) + grid[iy + 1] * wy  # nrows x grid width
    fx = (np.arange(SIZE10, dtype=np.float32) + 0.5) / TEX_STEP
    ix = np.floor(fx).astype(np.int64)
    wx = (fx - ix)[None, :]
    return by_rows[:, ix] * (1 - wx) + by_rows[:, ix + 1] * wx


def bands_strip(parcels: Parcels, row0: int, nrows: int, strip_index: int):
    """Red and nir (UInt16) of rows row0 .. row0+nrows."""
    pid, edge = parcels.nearest(row0, nrows)
    cols = np.arange(SIZE10, dtype=np.float32)[None, :]
    rows = np.arange(row0, row0 + nrows, dtype=np.float32)[:, None]
    # Offsets from the parcel's seed, for its gradient.
    dx = cols - parcels.sx.ravel()[pid]
    dy = rows - parcels.sy.ravel()[pid]
    red = parcels.red[pid] + parcels.red_g[0][pid] * dx + parcels.red_g[1][pid] * dy
    nir = parcels.nir[pid] + parcels.nir_g[0][pid] * dx + parcels.nir_g[1][pid] * dy
    del dx, dy
    # Field margins, except along water.
    m = edge & ~parcels.water[pid]
    red[m] = MARGIN_RED
    nir[m] = MARGIN_NIR
    # Roads.
    for a, b, c, hw in parcels.roads:
        on = np.abs(cols * a + rows * b - c) < hw
        red[on] = ROAD_RED
        nir[on] = ROAD_NIR
    # Smooth large-scale brightness (+-12 %): terrain, atmosphere, phenology.
    xm, ym = cols * PIX10, rows * PIX10
    tau = 2 * np.pi
    f = (1 + 0.07 * np.sin(xm * tau / 37_000 + 0.3) * np.cos(ym * tau / 29_000 + 1.2)
         + 0.05 * np.cos(xm * tau / 15_000 + 2.1) * np.sin(ym * tau / 17_000 + 0.4)).astype(np.float32)
    red *= f
    nir *= f
    red += np.float32(BOA_ADD_OFFSET)
    nir += np.float32(BOA_ADD_OFFSET)
    # Sub-field texture (continuous across strips: one grid for the whole tile).
    amp = parcels.texture_amp[pid]
    red += texture(parcels.texture[0], row0, nrows) * amp
    nir += texture(parcels.texture[1], row0, nrows) * amp
    # Per-pixel noise (sensor): its own stream per band and strip.
    for arr, sigma, band in ((red, NOISE_RED, 0), (nir, NOISE_NIR, 1)):
        rng = np.random.default_rng([TEXTURE_SEED, band, strip_index])
        arr += rng.standard_normal(arr.shape, dtype=np.float32) * np.float32(sigma)
    out_red = np.clip(np.rint(red), 1, 10_000).astype(np.uint16)
    out_nir = np.clip(np.rint(nir), 1, 10_000).astype(np.uint16)
    r0, r1, c0, c1 = NODATA_BLOCK
    a, b = max(r0, row0), min(r1, row0 + nrows)
    if a < b:
        out_red[a - row0:b - row0, c0:c1] = 0
    return out_red, out_nir


def tile_bytes(path: str) -> int:
    sizes, _, _, _ = tile_table(path)
    return sum(sizes.values())


def write_bands(force: bool) -> None:
    if os.path.exists(B04) and os.path.exists(B08) and not force:
        print(f'{B04} and {B08} exist ({os.path.getsize(B04):,}, {os.path.getsize(B08):,} bytes; --force rewrites)')
        return
    t0 = time.time()
    parcels = Parcels()
    tmps = [B04 + '.tmp.tif', B08 + '.tmp.tif']
    dss = [create_tmp(t, SIZE10, PIX10, gdal.GDT_UInt16, BLOCK) for t in tmps]
    for ds in dss:
        ds[1].SetNoDataValue(0)
    stats = {'red': [65535, 0, 0], 'nir': [65535, 0, 0]}  # min, max (of non-zero), zeros
    for k, row0 in enumerate(range(0, SIZE10, STRIP)):
        n = min(STRIP, SIZE10 - row0)
        red, nir = bands_strip(parcels, row0, n, k)
        for name, a, ds in (('red', red, dss[0]), ('nir', nir, dss[1])):
            nz = a[a > 0]
            s = stats[name]
            s[0], s[1], s[2] = min(s[0], int(nz.min())), max(s[1], int(nz.max())), s[2] + int(a.size - nz.size)
            ds[1].WriteArray(a, 0, row0)
    ds = dss = None  # closes both temporaries (no band reference may outlive this)
    print('bands: ' + '; '.join(f'{k} {v[0]}..{v[1]}, {v[2]:,} nodata pixels' for k, v in stats.items())
          + f'; strips computed in {time.time() - t0:.1f} s', flush=True)
    raw = SIZE10 * SIZE10 * 2
    for name, tmp, path in (('B04', tmps[0], B04), ('B08', tmps[1], B08)):
        t1 = time.time()
        to_cog(tmp, path, ['COMPRESS=DEFLATE', 'PREDICTOR=2', f'BLOCKSIZE={BLOCK}', 'OVERVIEWS=NONE',
                           'NUM_THREADS=ALL_CPUS', 'BIGTIFF=NO'])
        tb = tile_bytes(path)
        print(f'{name}: compression {raw / tb:.2f}:1 (raw {raw:,} B / tiles {tb:,} B; '
              f'file {os.path.getsize(path):,} B) in {time.time() - t1:.1f} s', flush=True)
    timed('B04, B08', t0, B08)


# ---------------------------------------------------------------------------------------------------------
# The zones
# ---------------------------------------------------------------------------------------------------------

def zone_ring(rng: np.random.Generator, cx: float, cy: float) -> list:
    """One field-sized polygon around (cx, cy) in UTM metres: a closed ring, counter-clockwise."""
    area = math.exp(rng.uniform(math.log(10_000.0), math.log(250_000.0)))  # 1-25 ha, log-uniform
    n = int(rng.integers(5, 9))  # 5..8 vertices
    theta0 = rng.uniform(0, 2 * math.pi)
    # Angles evenly spaced with a jitter below half a step (so they stay increasing), radii +-25 %: a
    # star-shaped (hence simple) polygon, convex or mildly concave.
    ang = theta0 + (np.arange(n) + rng.uniform(-0.35, 0.35, n)) * (2 * math.pi / n)
    rad = 1.0 + rng.uniform(-0.25, 0.25, n)
    x, y = rad * np.cos(ang), rad * np.sin(ang)
    # Elongated up to 1.6:1 and rotated (an affine map keeps it star-shaped and counter-clockwise).
    e = math.sqrt(rng.uniform(1.0, 1.6))
    phi = rng.uniform(0, math.pi)
    x, y = x * e, y / e
    x, y = x * math.cos(phi) - y * math.sin(phi), x * math.sin(phi) + y * math.cos(phi)
    shoelace = 0.5 * float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))
    s = math.sqrt(area / shoelace)
    pts = [(cx + s * float(a), cy + s * float(b)) for a, b in zip(x, y)]
    return pts + [pts[0]]


def densify(ring: list, step: float) -> list:
    """The ring with points inserted so that no edge is longer than `step` metres."""
    out = []
    for (xa, ya), (xb, yb) in zip(ring[:-1], ring[1:]):
        k = max(1, math.ceil(math.hypot(xb - xa, yb - ya) / step))
        out.extend((xa + (xb - xa) * j / k, ya + (yb - ya) * j / k) for j in range(k))
    out.append(ring[-1])
    return out


def make_zones() -> list:
    """The 100 zones as UTM rings (zone 0 centred on the corner of B04's nodata block, the others random)."""
    rng = np.random.default_rng(ZONE_SEED)
    width = SIZE10 * PIX10
    rings = []
    for i in range(N_ZONES):
        if i == 0:
            r0, _, c0, _ = NODATA_BLOCK
            rings.append(zone_ring(rng, X0 + c0 * PIX10, Y0 - r0 * PIX10))
            continue
        # Shape first (centred at 0, 0), then a position that keeps its box >= MARGIN inside the tile.
        ring = zone_ring(rng, 0.0, 0.0)
        xs, ys = [p[0] for p in ring], [p[1] for p in ring]
        cx = rng.uniform(X0 + MARGIN - min(xs), X0 + width - MARGIN - max(xs))
        cy = rng.uniform(Y0 - width + MARGIN - min(ys), Y0 - MARGIN - max(ys))
        rings.append([(x + cx, y + cy) for x, y in ring])
    return rings


def write_zones(force: bool) -> None:
    if os.path.exists(ZONES) and not force:
        print(f'{ZONES} exists ({os.path.getsize(ZONES):,} bytes; --force rewrites)')
        return
    from pyproj import Transformer
    tr = Transformer.from_crs(EPSG, 4326, always_xy=True)
    features, areas, spans = [], [], []
    for i, ring in enumerate(make_zones()):
        xs, ys = [p[0] for p in ring], [p[1] for p in ring]
        areas.append(0.5 * abs(sum(xs[k] * ys[k + 1] - xs[k + 1] * ys[k] for k in range(len(ring) - 1))) / 10_000)
        spans.append(max(max(xs) - min(xs), max(ys) - min(ys)))
        dense = densify(ring, 20.0)
        lon, lat = tr.transform([p[0] for p in dense], [p[1] for p in dense])
        coords = [[float(a), float(b)] for a, b in zip(lon, lat)]
        coords[-1] = list(coords[0])  # closed exactly
        features.append({'type': 'Feature', 'id': f'z{i}', 'properties': {'n': i},
                         'geometry': {'type': 'Polygon', 'coordinates': [coords]}})
    tmp = ZONES + '.part'
    with open(tmp, 'w') as f:
        json.dump({'type': 'FeatureCollection', 'features': features}, f, separators=(',', ':'))
    os.replace(tmp, ZONES)
    print(f'wrote {ZONES} ({N_ZONES} zones, {os.path.getsize(ZONES):,} bytes): areas {min(areas):.1f}..'
          f'{max(areas):.1f} ha (median {float(np.median(areas)):.1f}), {min(spans):.0f}..{max(spans):.0f} m across',
          flush=True)


def main() -> None:
    force = '--force' in sys.argv
    t0 = time.time()
    os.makedirs(DATA, exist_ok=True)
    write_bands(force)
    write_scl_file(SCL, BLOCK, force)
    write_zones(force)
    write_tiles_file(TILES, B04, B08, SCL, ZONES, force)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f'done in {time.time() - t0:.1f} s, peak RSS {rss:.0f} MiB')


if __name__ == '__main__':
    main()
