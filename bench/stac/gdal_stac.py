#!/usr/bin/env python3
"""The GDAL anchor of the zones x time benchmark (bench/stac): the work the service does for request A, in
GDAL + numpy, on one core (bench-only dev tool: Debian python3-gdal, python3-numpy).

For each of the Items (their assets are the same three files under the directory links
bench/data/stac_items/i<k> -> ..; each Item's files are opened through that Item's own path, afresh, and
closed after the Item, so no decoded block is shared between Items: GDAL's block cache is per dataset), for
each zone:
  - the zone (WGS84 lon/lat GeoJSON) is transformed to the raster's CRS with OGR and rasterized onto its
    bounding-box window of the 10 m grid with gdal.RasterizeLayer (pixel-centre rule, no ALL_TOUCHED) into
    a MEM mask;
  - red and nir are read over that window (ReadAsArray), and the scene classification (20 m) over the
    window of the 20 m pixels under it: each 10 m pixel takes the class of the 20 m pixel holding its
    centre (col // 2, row // 2 here);
  - as the service's fold (src/zonal/fold.ts, foldProgram): a selected pixel whose class is in the exclude
    list is `masked` (counted apart, never nodata); of the others, a pixel whose red or nir is nodata (raw
    0) or whose expression (nir - red) / (nir + red), with red and nir scaled by * 0.0001 - 0.1 (L2A's
    raster:bands scale and offset), is not finite counts as `nodata`; the rest give count (pixels: the
    centre rule is unweighted), mean (math.fsum / count), min and max (null when count is 0).

Output: a summary line, then one JSON line (the last line of stdout):
    {"mode": "local" | "vsicurl", "seconds": s, "items": n, "zones": m, "phases": {...},
     "rows": [[zone, item, count, nodata, masked, mean, min, max], ...]}
`seconds` runs from the first Item's open to the last zone's statistics; it leaves out Python's start-up
and one warm-up zone read through a separate handle (the Item path i<items>, which no Item uses).

Settings: GDAL_NUM_THREADS=1 (one core), GDAL's default block cache. With --vsicurl <base-url> (e.g.
http://127.0.0.1:PORT/d20, the bench's range server with 20 ms per request) the same files are read through
/vsicurl/<base-url>/stac_items/i<k>/<file> with GDAL's default vsicurl settings plus
GDAL_DISABLE_READDIR_ON_OPEN=EMPTY_DIR and CPL_VSIL_CURL_ALLOWED_EXTENSIONS=.tif (no directory listings).

Usage: /usr/bin/python3 bench/stac/gdal_stac.py [--data bench/data] [--prefix s2_] [--zones FILE]
       [--items 24] [--vsicurl BASE_URL]
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

import argparse
import json
import math
import time

import numpy as np
from osgeo import gdal, ogr, osr

gdal.UseExceptions()
ogr.UseExceptions()
osr.UseExceptions()

HERE = os.path.dirname(os.path.abspath(__file__))
EXCLUDE = [3, 8, 9, 10]  # SCL classes masked: cloud shadow, cloud medium and high probability, thin cirrus
SCALE, OFFSET, NODATA = 0.0001, -0.1, 0  # red and nir raster:bands (L2A baseline 04.00)


def srs(epsg_or_wkt) -> osr.SpatialReference:
    s = osr.SpatialReference()
    if isinstance(epsg_or_wkt, int):
        s.ImportFromEPSG(epsg_or_wkt)
    else:
        s.ImportFromWkt(epsg_or_wkt)
    s.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)  # x = lon / easting, y = lat / northing
    return s


class Item:
    """One Item's three assets, opened through its own path."""

    def __init__(self, base: str, prefix: str) -> None:
        self.red = gdal.Open(f'{base}/{prefix}B04.tif')
        self.nir = gdal.Open(f'{base}/{prefix}B08.tif')
        self.scl = gdal.Open(f'{base}/{prefix}SCL.tif')
        self.gt = self.red.GetGeoTransform()
        self.gt_scl = self.scl.GetGeoTransform()
        self.wkt = self.red.GetProjection()
        self.crs = srs(self.wkt)

    def close(self) -> None:
        # Dropping the datasets frees their blocks from GDAL's cache.
        self.red = self.nir = self.scl = None


def zone_stats(item: Item, geometry: dict, ct: osr.CoordinateTransformation, phases: dict) -> list:
    """[count, nodata, masked, mean, min, max] of one zone on one Item."""
    t = time.perf_counter()
    g = ogr.CreateGeometryFromJson(json.dumps(geometry))
    g.Transform(ct)
    x0, px, _, y0, _, py = item.gt  # north-up: py < 0
    width, height = item.red.RasterXSize, item.red.RasterYSize
    minx, maxx, miny, maxy = g.GetEnvelope()
    c0 = max(0, math.floor((minx - x0) / px))
    c1 = min(width, math.ceil((maxx - x0) / px))
    r0 = max(0, math.floor((maxy - y0) / py))
    r1 = min(height, math.ceil((miny - y0) / py))
    w, h = c1 - c0, r1 - r0
    mem = gdal.GetDriverByName('MEM').Create('', w, h, 1, gdal.GDT_Byte)
    mem.SetGeoTransform((x0 + c0 * px, px, 0.0, y0 + r0 * py, 0.0, py))
    mem.SetProjection(item.wkt)
    vds = ogr.GetDriverByName('Memory').CreateDataSource('')
    layer = vds.CreateLayer('zone', item.crs, ogr.wkbPolygon)
    feat = ogr.Feature(layer.GetLayerDefn())
    feat.SetGeometry(g)
    layer.CreateFeature(feat)
    gdal.RasterizeLayer(mem, [1], layer, burn_values=[1])  # pixel-centre rule (no ALL_TOUCHED)
    rows, cols = np.nonzero(mem.GetRasterBand(1).ReadAsArray())
    t1 = time.perf_counter()
    phases['rasterize'] += t1 - t

    # The 20 m pixel holding each selected 10 m pixel's centre, and the 20 m window that holds them all.
    sx0, spx, _, sy0, _, spy = item.gt_scl
    scol = np.floor((x0 + (cols + c0 + 0.5) * px - sx0) / spx).astype(np.int64)
    srow = np.floor((y0 + (rows + r0 + 0.5) * py - sy0) / spy).astype(np.int64)
    red = item.red.GetRasterBand(1).ReadAsArray(c0, r0, w, h)
    nir = item.nir.GetRasterBand(1).ReadAsArray(c0, r0, w, h)
    if rows.size:
        sc0, sr0 = int(scol.min()), int(srow.min())
        scl = item.scl.GetRasterBand(1).ReadAsArray(sc0, sr0, int(scol.max()) - sc0 + 1, int(srow.max()) - sr0 + 1)
        cls = scl[srow - sr0, scol - sc0]
    else:
        cls = np.zeros(0, np.uint8)
    t2 = time.perf_counter()
    phases['read'] += t2 - t1

    masked = np.isin(cls, EXCLUDE)
    keep = ~masked
    r_raw = red[rows, cols][keep]
    n_raw = nir[rows, cols][keep]
    r_val = r_raw.astype(np.float64) * SCALE + OFFSET  # raw * scale + offset, as the service (same doubles)
    n_val = n_raw.astype(np.float64) * SCALE + OFFSET
    with np.errstate(divide='ignore', invalid='ignore'):
        v = (n_val - r_val) / (n_val + r_val)
    good = (r_raw != NODATA) & (n_raw != NODATA) & np.isfinite(v)
    vals = v[good]
    count = int(vals.size)
    out = [count, int(good.size - count), int(masked.sum())]
    if count:
        out += [math.fsum(vals.tolist()) / count, float(vals.min()), float(vals.max())]
    else:
        out += [None, None, None]
    phases['stats'] += time.perf_counter() - t2
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--data', default=os.path.normpath(os.path.join(HERE, '..', 'data')))
    ap.add_argument('--prefix', default='s2_')
    ap.add_argument('--zones', default=None, help='default: <data>/<prefix>zones_100.geojson')
    ap.add_argument('--items', type=int, default=24)
    ap.add_argument('--vsicurl', default=None, help='base URL of the files (the folder holding stac_items/)')
    args = ap.parse_args()

    gdal.SetConfigOption('GDAL_NUM_THREADS', '1')
    if args.vsicurl:
        gdal.SetConfigOption('GDAL_DISABLE_READDIR_ON_OPEN', 'EMPTY_DIR')
        gdal.SetConfigOption('CPL_VSIL_CURL_ALLOWED_EXTENSIONS', '.tif')
        root = '/vsicurl/' + args.vsicurl.rstrip('/')
    else:
        root = os.path.abspath(args.data)
        # The Items' folders: links to the data folder (bench.ts makes them too).
        os.makedirs(os.path.join(root, 'stac_items'), exist_ok=True)
        for k in range(args.items + 1):
            link = os.path.join(root, 'stac_items', f'i{k}')
            if not os.path.lexists(link):
                os.symlink('..', link)
    zones_path = args.zones or os.path.join(args.data, f'{args.prefix}zones_100.geojson')
    with open(zones_path) as f:
        zones = [z['geometry'] for z in json.load(f)['features']]
    lonlat = srs(4326)

    def base(k: int) -> str:
        return f'{root}/stac_items/i{k}'

    # Warm-up (imports, GDAL's drivers and PROJ's database): one zone through a path no Item uses.
    scratch = {'rasterize': 0.0, 'read': 0.0, 'stats': 0.0, 'open': 0.0}
    warm = Item(base(args.items), args.prefix)
    zone_stats(warm, zones[0], osr.CoordinateTransformation(lonlat, warm.crs), scratch)
    warm.close()

    phases = {'open': 0.0, 'rasterize': 0.0, 'read': 0.0, 'stats': 0.0}
    rows = []
    t0 = time.perf_counter()
    for k in range(args.items):
        t = time.perf_counter()
        item = Item(base(k), args.prefix)
        ct = osr.CoordinateTransformation(lonlat, item.crs)
        phases['open'] += time.perf_counter() - t
        for z, geometry in enumerate(zones):
            rows.append([z, k, *zone_stats(item, geometry, ct, phases)])
        item.close()
    seconds = time.perf_counter() - t0

    mode = 'vsicurl' if args.vsicurl else 'local'
    print(f'GDAL {gdal.__version__} {mode}: {len(zones)} zones x {args.items} Items in {seconds:.2f} s '
          f'(open {phases["open"]:.2f}, rasterize {phases["rasterize"]:.2f}, read {phases["read"]:.2f}, '
          f'stats {phases["stats"]:.2f})', flush=True)
    print(json.dumps({'mode': mode, 'seconds': seconds, 'items': args.items, 'zones': len(zones),
                      'gdal': gdal.__version__, 'phases': phases, 'rows': rows}, separators=(',', ':')))


if __name__ == '__main__':
    main()
