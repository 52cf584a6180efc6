#!/usr/bin/env python3
"""Independent oracle for POST /api/v1/sources/info on rasters (the web page's footprint and preview).

Dev-only tool: GDAL + numpy + pyproj from Debian, no code shared with the TypeScript service.

    /usr/bin/python3 tools/oracle/info_oracle.py

For each raster below it writes fixtures/cases-info/<name>.json: size, band count, nodata, the overview
sizes, the footprint (each edge of the full-resolution grid cut in 16 equal steps, every point moved to
WGS84 lon/lat with pyproj, always_xy, in -180..180), its RFC 7946 bounds (west > east across the
antimeridian) and the preview the service promises: band 1 of the finest level
(0 = full resolution, then each overview) of at most 1024 pixels a side, sampled every `step` pixels
(step = ceil(long side / 256)), scale and offset applied, null where nodata, NaN or masked.
"""
import json
import math
import os
import sys

try:
    from osgeo import gdal
    import numpy as np
    import pyproj
except ImportError:
    if sys.executable != '/usr/bin/python3':
        os.execv('/usr/bin/python3', ['/usr/bin/python3', *sys.argv])
    raise

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'fixtures')
FILES = {'elev': 'raster/elev.cog.tif', 'l7': 'raster/L7_ETMs.cog.tif', 'elev_scaled': 'raster/elev_scaled.cog.tif',
         'antimeridian': 'raster/antimeridian_utm60.tif'}


def rfc7946_bounds(ring):
    """[west, south, east, north] of a ring, RFC 7946 section 5.2: walk the ring, taking each step the short
    way round (|step| <= 180), then west > east when the span crosses the antimeridian."""
    lon = [ring[0][0]]
    for (x, _), (px, _) in zip(ring[1:], ring[:-1]):
        step = (x - px + 540.0) % 360.0 - 180.0
        lon.append(lon[-1] + step)
    w, e = min(lon), max(lon)
    s, n = min(p[1] for p in ring), max(p[1] for p in ring)
    if e - w >= 360:
        return [-180.0, s, 180.0, n]
    norm = lambda v: (v + 540.0) % 360.0 - 180.0
    if -180 <= w and e <= 180:
        return [w, s, e, n]
    east = norm(e)
    return [norm(w), s, 180.0 if east == -180.0 else east, n]


def main():
    gdal.UseExceptions()
    for name, rel in FILES.items():
        ds = gdal.Open(os.path.join(ROOT, rel))
        band = ds.GetRasterBand(1)
        gt = ds.GetGeoTransform()
        srs = ds.GetSpatialRef()
        to_wgs = pyproj.Transformer.from_crs(pyproj.CRS.from_wkt(srs.ExportToWkt()), 'EPSG:4326', always_xy=True)

        def world(col, row):
            return gt[0] + col * gt[1] + row * gt[2], gt[3] + col * gt[4] + row * gt[5]

        w, h = ds.RasterXSize, ds.RasterYSize
        ring = []
        for (u0, v0, u1, v1) in [(0, 0, 1, 0), (1, 0, 1, 1), (1, 1, 0, 1), (0, 1, 0, 0)]:
            for k in range(16):
                f = k / 16
                x, y = world((u0 + (u1 - u0) * f) * w, (v0 + (v1 - v0) * f) * h)
                ring.append(list(to_wgs.transform(x, y)))
        levels = [(0, band)] + [(i + 1, band.GetOverview(i)) for i in range(band.GetOverviewCount())]
        small = [(i, b) for i, b in levels if max(b.XSize, b.YSize) <= 1024]
        level, lb = max(small, key=lambda t: t[1].XSize)
        step = max(1, math.ceil(max(lb.XSize, lb.YSize) / 256))
        data = lb.ReadAsArray().astype('float64')
        nodata = band.GetNoDataValue()
        scale = band.GetScale() or 1.0
        offset = band.GetOffset() or 0.0
        valid = ~np.isnan(data)
        if nodata is not None:
            valid &= data != nodata
        mask_flags = band.GetMaskFlags()
        if not (mask_flags & gdal.GMF_ALL_VALID) and not (mask_flags & gdal.GMF_NODATA):
            valid &= lb.GetMaskBand().ReadAsArray() != 0
        sub = data[::step, ::step]
        subvalid = valid[::step, ::step]
        values = [None if not ok else float(v * scale + offset) for v, ok in zip(sub.ravel(), subvalid.ravel())]
        # The preview's cells are step pixels of the level: its corners are those of whole cells.
        lw, lh = lb.XSize, lb.YSize
        pw, ph = sub.shape[1], sub.shape[0]
        fx, fy = w / lw, h / lh

        def corner(col, row):
            return list(to_wgs.transform(*world(col * fx, row * fy)))
        out = {
            'oracle': f'GDAL {gdal.__version__}, numpy {np.__version__}, pyproj {pyproj.__version__}',
            'file': rel,
            'width': w, 'height': h, 'band_count': ds.RasterCount, 'nodata': nodata,
            'scale': scale, 'offset': offset,
            'levels': [[b.XSize, b.YSize] for _, b in levels],
            'footprint': ring,
            'bounds': rfc7946_bounds(ring),
            'preview': {'level': level, 'step': step, 'width': pw, 'height': ph,
                        'corners': [corner(0, 0), corner(pw * step, 0), corner(pw * step, ph * step), corner(0, ph * step)],
                        'values': values},
        }
        with open(os.path.join(ROOT, 'cases-info', f'{name}.json'), 'w') as f:
            json.dump(out, f)
        print(name, w, h, 'level', level, 'step', step, pw, ph)


main()
