#!/usr/bin/env python3
"""GDAL batch floor of the batch benchmark (bench-only dev tool: Debian python3-gdal, python3-numpy).

rasterstats' algorithm without its Python overhead, one core, local file. Per zone:
  1. the lon/lat polygon (GeoJSON) -> OGR geometry -> transformed to the raster's CRS (osr, corners only:
     a 1 km lon/lat edge bends at most 2.1 cm in UTM here, under the service's densifying tolerance of 1/100 pixel);
  2. the zone's bbox window (floor / ceil of the envelope on the pixel grid, clipped to the raster),
     band.ReadAsArray of that window;
  3. gdal.RasterizeLayer of the polygon into a MEM byte mask of the window, default pixel-centre rule (no
     ALL_TOUCHED), as rasterio.features.rasterize does for rasterstats;
  4. numpy min / max / mean / count of the masked pixels that are not nodata (and not NaN).
Everything from opening the dataset to the last zone is timed, once per run. Each run opens the file
afresh, so GDAL's block cache starts empty and every tile is decoded at least once in every run; one zone
outside the runs, on its own dataset handle (closed before the first run), warms PROJ, the drivers and
numpy. GDAL_NUM_THREADS=1 (one decoding thread); the block cache is GDAL's default (5 % of RAM) unless
--cachemax MB is given (--cachemax 64: the same algorithm with a 64 MiB block cache, where zones sharing a
tile decode it again once it has been evicted).

Usage: gdal_batch.py --cog PATH --zones FC.geojson [--runs N] [--cachemax MB] [--out results.json]
Prints one JSON line: times_s (per run), zones, cachemax, gdal version, peak RSS; --out gets the
per-zone answers of the last run ([{count, min, max, mean} ...] in input order).
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
import resource
import time

import numpy as np
from osgeo import gdal, ogr, osr

gdal.UseExceptions()
gdal.SetConfigOption('GDAL_NUM_THREADS', '1')


def batch(cog: str, zones: list) -> list:
    """The floor: open, then for every zone project, read its window, rasterize, fold."""
    ds = gdal.Open(cog)
    band = ds.GetRasterBand(1)
    nodata = band.GetNoDataValue()
    gt = ds.GetGeoTransform()
    width, height = ds.RasterXSize, ds.RasterYSize
    wkt = ds.GetProjection()
    dst = osr.SpatialReference()
    dst.ImportFromWkt(wkt)
    dst.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    src = osr.SpatialReference()
    src.ImportFromEPSG(4326)
    src.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    ct = osr.CoordinateTransformation(src, dst)
    mem_drv = gdal.GetDriverByName('MEM')
    ogr_drv = ogr.GetDriverByName('Memory')
    out = []
    for z in zones:
        g = ogr.CreateGeometryFromJson(json.dumps(z['geometry']))
        g.Transform(ct)
        minx, maxx, miny, maxy = g.GetEnvelope()
        c0 = max(0, math.floor((minx - gt[0]) / gt[1]))
        c1 = min(width, math.ceil((maxx - gt[0]) / gt[1]))
        r0 = max(0, math.floor((maxy - gt[3]) / gt[5]))
        r1 = min(height, math.ceil((miny - gt[3]) / gt[5]))
        w, h = c1 - c0, r1 - r0
        if w <= 0 or h <= 0:
            out.append({'count': 0, 'min': None, 'max': None, 'mean': None})
            continue
        values = band.ReadAsArray(c0, r0, w, h)
        mem = mem_drv.Create('', w, h, 1, gdal.GDT_Byte)
        mem.SetGeoTransform((gt[0] + c0 * gt[1], gt[1], 0.0, gt[3] + r0 * gt[5], 0.0, gt[5]))
        mem.SetProjection(wkt)
        vds = ogr_drv.CreateDataSource('')
        layer = vds.CreateLayer('zone', dst, ogr.wkbPolygon)
        feat = ogr.Feature(layer.GetLayerDefn())
        feat.SetGeometry(g)
        layer.CreateFeature(feat)
        gdal.RasterizeLayer(mem, [1], layer, burn_values=[1])  # pixel-centre rule (no ALL_TOUCHED)
        mask = mem.GetRasterBand(1).ReadAsArray().astype(bool)
        sel = values[mask]
        ok = ~np.isnan(sel) if nodata is None else (sel != nodata) & ~np.isnan(sel)
        v = sel[ok].astype(np.float64)
        if v.size == 0:
            out.append({'count': 0, 'min': None, 'max': None, 'mean': None})
        else:
            out.append({'count': int(v.size), 'min': float(v.min()), 'max': float(v.max()), 'mean': float(v.mean())})
    return out


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument('--cog', required=True)
    p.add_argument('--zones', required=True)
    p.add_argument('--runs', type=int, default=3)
    p.add_argument('--cachemax', type=int, help='GDAL block cache, MiB (default: GDAL default)')
    p.add_argument('--out')
    args = p.parse_args()
    if args.cachemax is not None:
        gdal.SetCacheMax(args.cachemax * 1024 * 1024)
    zones = json.load(open(args.zones))['features']
    batch(args.cog, zones[:1])  # warm-up on its own handle: PROJ database, drivers, numpy
    times, result = [], []
    for _ in range(args.runs):
        t = time.perf_counter()
        result = batch(args.cog, zones)
        times.append(time.perf_counter() - t)
    if args.out:
        with open(args.out, 'w') as f:
            json.dump(result, f)
    print(json.dumps({'times_s': times, 'zones': len(zones), 'cachemax_bytes': gdal.GetCacheMax(),
                      'gdal': gdal.__version__, 'numpy': np.__version__,
                      'peak_rss_kib': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))


if __name__ == '__main__':
    main()
