#!/usr/bin/env python3
"""Zones given as a raster over a multi-block raster (issue 24): band 1 of the Olinda Landsat 7 COG as the zones,
band 2 as the values (9 blocks of 128 x 128 each). Dev-only; numpy over GDAL's read of the two bands.

    /usr/bin/python3 tools/oracle/raster_zones_l7.py    # writes fixtures/exactextract/zones/l7_band1_zones.json

Per distinct band-1 value (the file has no nodata: every value is a zone): count, sum (math.fsum), min, max of the
band-2 values of its cells, and its first and last cell id (row-major). Deterministic.
"""
import json
import math
import os

from osgeo import gdal
import numpy as np

gdal.UseExceptions()
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SRC = "raster/L7_ETMs.cog.tif"
ds = gdal.Open(os.path.join(ROOT, "fixtures", SRC))
zones = ds.GetRasterBand(1).ReadAsArray()
values = ds.GetRasterBand(2).ReadAsArray().astype(np.float64)
assert ds.GetRasterBand(1).GetNoDataValue() is None and ds.GetRasterBand(2).GetNoDataValue() is None
rows = []
flat_z = zones.ravel()
flat_v = values.ravel()
for z in sorted(int(v) for v in np.unique(flat_z)):
    cells = np.flatnonzero(flat_z == z)
    v = flat_v[cells]
    rows.append({"zone": z, "count": int(cells.size), "sum": math.fsum(v.tolist()), "min": float(v.min()), "max": float(v.max()),
                 "first_cell": int(cells[0]), "last_cell": int(cells[-1])})
out = {"value_raster": SRC, "band": 2, "zones_raster": SRC, "zones_band": 1, "size": [ds.RasterXSize, ds.RasterYSize],
       "made_by": "tools/oracle/raster_zones_l7.py (GDAL 3.6.2 + numpy)", "rows": rows}
path = os.path.join(ROOT, "fixtures", "exactextract", "zones", "l7_band1_zones.json")
with open(path, "w") as f:
    json.dump(out, f, indent=None, separators=(",", ":"))
    f.write("\n")
print(f"wrote {path}: {len(rows)} zones, {sum(r['count'] for r in rows)} cells")
