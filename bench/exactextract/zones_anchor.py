#!/usr/bin/env python3
"""numpy's answer for part 3 of bench/exactextract (zones given as a raster): per zone count, sum, mean, min, max.

    /usr/bin/python3 bench/exactextract/zones_anchor.py VALUES.tif ZONES.tif

Reads band 1 of both rasters whole with GDAL. The zones raster lies on the value raster's grid with cells a whole
factor k larger (same CRS, same top-left corner): each value cell takes the zone cell under it, by repeating every
zone cell k times along both axes (np.repeat) and cropping to the value raster; value cells beyond the zones raster
belong to no zone. A value cell counts when it is not the value raster's nodata and its zone cell is not the zones
raster's nodata. Every zone value found over the value raster (its nodata aside) is a zone, with count 0 when all
its values are nodata.

The sums go by bands of ROWS rows of the whole arrays (no 8-byte-a-cell temporaries over the whole raster).
count and sum come from np.bincount (sum in float64, exact here: integers below 2^53). min and max come from a
joint histogram of (zone, value) with np.bincount when the values are integers of at most 16 bits (the smallest
and the largest value with a non-zero count); otherwise from np.minimum.at / np.maximum.at, which numpy 1.24 runs
about ten times slower. An empty zone has sum, mean, min and max null, as the service answers it.

Prints one JSON line: {"zones": [{"zone", "count", "sum", "mean", "min", "max"}, ...] (ascending), "cells",
"factor", "nodata": {"values", "zones"}, "read_s", "compute_s"}.
"""
import json
import sys
import time

import numpy as np
from osgeo import gdal

gdal.UseExceptions()

# Rows of value cells per band of the sums (~11 M cells of the S2 tile).
ROWS = 1024


def factor_of(vds, zds):
    """The whole factor k of zones cells over value cells; stops on another layout."""
    vgt, zgt = vds.GetGeoTransform(), zds.GetGeoTransform()
    if vgt[2] or vgt[4] or zgt[2] or zgt[4]:
        sys.exit('rotated grids are not handled')
    fx, fy = zgt[1] / vgt[1], zgt[5] / vgt[5]
    k = round(fx)
    if k < 1 or abs(fx - k) > 1e-9 or abs(fy - k) > 1e-9:
        sys.exit(f'zones cells are not a whole multiple of the value cells: {zgt[1]} x {zgt[5]} over {vgt[1]} x {vgt[5]}')
    if abs(zgt[0] - vgt[0]) > 1e-6 * abs(vgt[1]) or abs(zgt[3] - vgt[3]) > 1e-6 * abs(vgt[5]):
        sys.exit('the zones raster does not start at the value raster\'s top-left corner')
    if not vds.GetSpatialRef().IsSame(zds.GetSpatialRef()):
        sys.exit('the two rasters have different CRSs')
    return k


def main():
    values_path, zones_path = sys.argv[1], sys.argv[2]
    t0 = time.perf_counter()
    vds, zds = gdal.Open(values_path), gdal.Open(zones_path)
    k = factor_of(vds, zds)
    vband, zband = vds.GetRasterBand(1), zds.GetRasterBand(1)
    v = vband.ReadAsArray()
    z = zband.ReadAsArray()
    t1 = time.perf_counter()

    vnd, znd = vband.GetNoDataValue(), zband.GetNoDataValue()
    h, w = min(v.shape[0], z.shape[0] * k), min(v.shape[1], z.shape[1] * k)
    # The zones: every value of the zone cells under the value raster (those the repeat below keeps), nodata aside.
    zin = z[: -(-h // k), : -(-w // k)].ravel()
    if znd is not None:
        zin = zin[zin != z.dtype.type(znd)]
    integer_zones = np.issubdtype(z.dtype, np.integer)
    if integer_zones:
        zmin = int(zin.min())
        present = np.bincount((zin - zmin).astype(np.intp)) > 0
        zone_values = np.flatnonzero(present) + zmin
        at = zone_values - zmin
        n = present.size
    else:
        zone_values = np.unique(zin)
        at = np.arange(zone_values.size)
        n = zone_values.size
    # Each value cell's zone cell: every zone cell repeated k times along both axes, cropped to the value raster.
    z = np.repeat(np.repeat(z, k, axis=0), k, axis=1)[:h, :w]
    v = v[:h, :w]

    integer_values = np.issubdtype(v.dtype, np.integer)
    joint_minmax = integer_values and v.dtype.itemsize <= 2 and n * 65536 <= 50_000_000
    count = np.zeros(n, np.int64)
    total = np.zeros(n, np.float64)
    if joint_minmax:
        lo = int(np.iinfo(v.dtype).min)
        span = int(np.iinfo(v.dtype).max) - lo + 1
        joint = np.zeros(n * span, np.int64)
    else:
        mins = np.full(n, np.inf)
        maxs = np.full(n, -np.inf)
    # By bands of rows: the same sums, without arrays of 8 bytes a cell over the whole raster.
    for r0 in range(0, h, ROWS):
        zb, vb = z[r0 : r0 + ROWS].ravel(), v[r0 : r0 + ROWS].ravel()
        valid = None
        if znd is not None:
            valid = zb != z.dtype.type(znd)
        if vnd is not None:
            vv = vb != v.dtype.type(vnd)
            valid = vv if valid is None else valid & vv
        if valid is not None:
            zb, vb = zb[valid], vb[valid]
        zi = (zb - zmin).astype(np.intp) if integer_zones else np.searchsorted(zone_values, zb)
        count += np.bincount(zi, minlength=n)
        total += np.bincount(zi, weights=vb, minlength=n)
        if joint_minmax:
            zi *= span
            zi += vb
            if lo:
                zi -= lo
            joint += np.bincount(zi, minlength=n * span)
        else:
            np.minimum.at(mins, zi, vb)
            np.maximum.at(maxs, zi, vb)
    if joint_minmax:
        seen = joint.reshape(n, span) > 0
        mins = seen.argmax(axis=1) + lo
        maxs = span - 1 - seen[:, ::-1].argmax(axis=1) + lo
    t2 = time.perf_counter()

    number = int if integer_values else float
    rows = []
    for zone, j in zip(zone_values.tolist(), at.tolist()):
        c = int(count[j])
        rows.append({
            'zone': zone,
            'count': c,
            'sum': float(total[j]) if c else None,
            'mean': float(total[j]) / c if c else None,
            'min': number(mins[j]) if c else None,
            'max': number(maxs[j]) if c else None,
        })
    print(json.dumps({
        'zones': rows,
        'cells': int(count.sum()),
        'factor': k,
        'nodata': {'values': vnd, 'zones': znd},
        'read_s': round(t1 - t0, 3),
        'compute_s': round(t2 - t1, 3),
    }))


if __name__ == '__main__':
    main()
