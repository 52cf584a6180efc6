#!/usr/bin/env python3
"""GDAL side of the raster benchmark (bench-only dev tool: Debian gdal-bin, python3-gdal, python3-numpy).

  prep  --aois bench/out/aois.json --cog bench/data/dem_10k.cog.tif --out bench/out/prep.json
        For each AOI: its pixel window, the pixels it selects (GDAL's rasterizer, pixel-centre rule), the
        full-resolution tiles that hold at least one of them and their compressed bytes (TileByteCounts, read with
        GetMetadataItem('BLOCK_SIZE_x_y', 'TIFF')); plus the whole full-resolution tile table, so the
        driver can tell which logged byte ranges were tiles holding AOI pixels.

  run   --aois … --name AOI --src PATH_OR_/vsicurl/URL --runs N [--log URL]
        The GDAL floor: open the raster, project the AOI (OGR), read the AOI window (ReadAsArray),
        rasterize the AOI into a mask (MEM), numpy count / min / max / mean / std (population) of the
        selected valid pixels. One unmeasured warm-up run first (PROJ, drivers). For /vsicurl/ every
        run starts cold (VSICurlClearCache, fresh open); with --warm, /vsicurl/'s caches (file size,
        downloaded regions) are kept between runs, as in a long-running GDAL process that trusts what it
        has read: a repeated query then re-opens the dataset from cached bytes. With
        --log, the range server's log is reset before and read after each run (outside the timing).
        Prints one JSON object: times_ms, stats, requests / bytes per run, peak RSS.

  seq   --aois … --names A0,A1,…,AN --src PATH_OR_/vsicurl/URL [--warmup K] [--log URL]
        The GDAL floor over a sequence of AOIs (the "new place" mode: each AOI somewhere else): the first K
        (default 1) are unmeasured warm-up runs (PROJ, drivers), then one measured run per remaining AOI, in
        order, each as `run` does (for /vsicurl/: VSICurlClearCache and a fresh open before every run).
        Prints one JSON object: names, times_ms, stats (one per measured AOI), requests / bytes per run, peak RSS.
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
import urllib.request

import numpy as np
from osgeo import gdal, ogr, osr

gdal.UseExceptions()
# What one sets for COGs over HTTP: no directory listing, no sidecar probes.
gdal.SetConfigOption('GDAL_DISABLE_READDIR_ON_OPEN', 'EMPTY_DIR')
gdal.SetConfigOption('CPL_VSIL_CURL_ALLOWED_EXTENSIONS', '.tif')


def wgs84() -> osr.SpatialReference:
    s = osr.SpatialReference()
    s.ImportFromEPSG(4326)
    s.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    return s


def projected(geojson: dict, ds) -> ogr.Geometry:
    dst = osr.SpatialReference()
    dst.ImportFromWkt(ds.GetProjection())
    dst.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    g = ogr.CreateGeometryFromJson(json.dumps(geojson))
    g.Transform(osr.CoordinateTransformation(wgs84(), dst))
    return g


def window_of(g: ogr.Geometry, gt, width: int, height: int):
    minx, maxx, miny, maxy = g.GetEnvelope()
    c0 = max(0, math.floor((minx - gt[0]) / gt[1]))
    c1 = min(width, math.ceil((maxx - gt[0]) / gt[1]))
    r0 = max(0, math.floor((maxy - gt[3]) / gt[5]))
    r1 = min(height, math.ceil((miny - gt[3]) / gt[5]))
    return c0, r0, c1 - c0, r1 - r0


def mask_of(g: ogr.Geometry, ds, win) -> np.ndarray:
    c0, r0, w, h = win
    gt = ds.GetGeoTransform()
    mem = gdal.GetDriverByName('MEM').Create('', w, h, 1, gdal.GDT_Byte)
    mem.SetGeoTransform((gt[0] + c0 * gt[1], gt[1], 0.0, gt[3] + r0 * gt[5], 0.0, gt[5]))
    mem.SetProjection(ds.GetProjection())
    vds = ogr.GetDriverByName('Memory').CreateDataSource('')
    srs = osr.SpatialReference()
    srs.ImportFromWkt(ds.GetProjection())
    layer = vds.CreateLayer('aoi', srs, ogr.wkbPolygon)
    feat = ogr.Feature(layer.GetLayerDefn())
    feat.SetGeometry(g)
    layer.CreateFeature(feat)
    gdal.RasterizeLayer(mem, [1], layer, burn_values=[1])  # pixel-centre rule (no ALL_TOUCHED)
    return mem.GetRasterBand(1).ReadAsArray().astype(bool)


def zonal(src: str, geojson: dict) -> dict:
    """The floor itself: everything a zonal-stats query needs, from opening the file to the numbers."""
    ds = gdal.Open(src)
    band = ds.GetRasterBand(1)
    g = projected(geojson, ds)
    win = window_of(g, ds.GetGeoTransform(), ds.RasterXSize, ds.RasterYSize)
    values = band.ReadAsArray(*win)
    mask = mask_of(g, ds, win)
    nodata = band.GetNoDataValue()
    sel = values[mask]
    valid = sel[~np.isnan(sel)] if nodata is None else sel[(sel != nodata) & ~np.isnan(sel)]
    v = valid.astype(np.float64)
    return {
        'count': int(v.size),
        'min': float(v.min()) if v.size else None,
        'max': float(v.max()) if v.size else None,
        'mean': float(v.mean()) if v.size else None,
        'std': float(v.std()) if v.size else None,
        'window': list(win),
    }


def fetch_log(url: str, reset: bool) -> list:
    with urllib.request.urlopen(url + ('?reset=1' if reset else '')) as r:
        return json.loads(r.read())


def cmd_prep(args) -> None:
    aois = json.load(open(args.aois))
    ds = gdal.Open(args.cog)
    band = ds.GetRasterBand(1)
    bw, bh = band.GetBlockSize()
    across, down = math.ceil(ds.RasterXSize / bw), math.ceil(ds.RasterYSize / bh)
    tiles = []
    for ty in range(down):
        for tx in range(across):
            off = int(band.GetMetadataItem(f'BLOCK_OFFSET_{tx}_{ty}', 'TIFF') or 0)
            size = int(band.GetMetadataItem(f'BLOCK_SIZE_{tx}_{ty}', 'TIFF') or 0)
            tiles.append([tx, ty, off, size])
    out = {
        'file_bytes': os.path.getsize(args.cog),
        'width': ds.RasterXSize, 'height': ds.RasterYSize, 'tile': [bw, bh],
        'overviews': [[band.GetOverview(i).XSize, band.GetOverview(i).YSize] for i in range(band.GetOverviewCount())],
        'tiles': tiles,
        'aois': {},
    }
    for name, a in aois.items():
        g = projected(a['polygon'], ds)
        win = window_of(g, ds.GetGeoTransform(), ds.RasterXSize, ds.RasterYSize)
        mask = mask_of(g, ds, win)
        c0, r0, w, h = win
        rows, cols = np.nonzero(mask)
        ids = set(np.unique(((rows + r0) // bh) * across + (cols + c0) // bw).tolist())
        held = [t for t in tiles if t[1] * across + t[0] in ids]
        tc0, tr0 = c0 // bw, r0 // bh
        tc1, tr1 = (c0 + w - 1) // bw, (r0 + h - 1) // bh
        out['aois'][name] = {
            'window': [c0, r0, w, h],
            'pixels': int(mask.sum()),
            'area_m2_projected': g.GetArea(),
            'tiles_holding': [[t[0], t[1]] for t in held],
            'tile_bytes_holding': sum(t[3] for t in held),
            'tiles_in_window': (tc1 - tc0 + 1) * (tr1 - tr0 + 1),
        }
    json.dump(out, open(args.out, 'w'))
    for name, a in out['aois'].items():
        print(f"  {name}: {a['pixels']:,} px, window {a['window'][2]}x{a['window'][3]}, "
              f"{len(a['tiles_holding'])} tiles hold AOI pixels ({a['tile_bytes_holding']:,} B)")
    print(json.dumps({'ok': True}))


def cmd_run(args) -> None:
    aoi = json.load(open(args.aois))[args.name]['polygon']
    times, reqs, nbytes, result = [], [], [], None
    zonal(args.src, aoi)  # warm-up, not measured: PROJ database, GDAL drivers, numpy (one-time per process)
    for _ in range(args.runs):
        if args.src.startswith('/vsicurl/') and not args.warm:
            gdal.VSICurlClearCache()
        if args.log:
            fetch_log(args.log, True)
        t = time.perf_counter()
        result = zonal(args.src, aoi)
        times.append((time.perf_counter() - t) * 1000)
        if args.log:
            log = fetch_log(args.log, True)
            reqs.append(len(log))
            nbytes.append(sum(e[5] for e in log))
    print(json.dumps({'times_ms': times, 'stats': result, 'requests': reqs, 'bytes': nbytes,
                      'peak_rss_kib': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                      'gdal': gdal.__version__}))


def cmd_seq(args) -> None:
    aois = json.load(open(args.aois))
    names = args.names.split(',')
    for name in names[:args.warmup]:  # warm-up, not measured
        if args.src.startswith('/vsicurl/'):
            gdal.VSICurlClearCache()
        zonal(args.src, aois[name]['polygon'])
    times, reqs, nbytes, stats = [], [], [], []
    for name in names[args.warmup:]:
        if args.src.startswith('/vsicurl/'):
            gdal.VSICurlClearCache()
        if args.log:
            fetch_log(args.log, True)
        t = time.perf_counter()
        result = zonal(args.src, aois[name]['polygon'])
        times.append((time.perf_counter() - t) * 1000)
        stats.append(result)
        if args.log:
            log = fetch_log(args.log, True)
            reqs.append(len(log))
            nbytes.append(sum(e[5] for e in log))
    print(json.dumps({'names': names[args.warmup:], 'times_ms': times, 'stats': stats, 'requests': reqs, 'bytes': nbytes,
                      'peak_rss_kib': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, 'gdal': gdal.__version__}))


def main() -> None:
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest='cmd', required=True)
    a = sub.add_parser('prep')
    a.add_argument('--aois', required=True)
    a.add_argument('--cog', required=True)
    a.add_argument('--out', required=True)
    b = sub.add_parser('run')
    b.add_argument('--aois', required=True)
    b.add_argument('--name', required=True)
    b.add_argument('--src', required=True)
    b.add_argument('--runs', type=int, default=1)
    b.add_argument('--log')
    b.add_argument('--warm', action='store_true')
    c = sub.add_parser('seq')
    c.add_argument('--aois', required=True)
    c.add_argument('--names', required=True)
    c.add_argument('--src', required=True)
    c.add_argument('--warmup', type=int, default=1)
    c.add_argument('--log')
    args = p.parse_args()
    {'prep': cmd_prep, 'run': cmd_run, 'seq': cmd_seq}[args.cmd](args)


if __name__ == '__main__':
    main()
