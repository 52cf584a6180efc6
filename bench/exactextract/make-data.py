#!/usr/bin/env python3
"""Writes the exactextract benchmark's data (bench-only dev tool: Debian gdal-bin, python3-gdal, python3-numpy).

Everything lies on the Sentinel-2-layout tile of bench/lib/s2_data.py (bench/data/s2_B04.tif, the values:
10980 x 10980 UInt16, 10 m, EPSG:32633, top-left x = 399960, y = 5200020, 109.8 km square, 1024 px tiles,
DEFLATE + predictor 2, nodata 0), which run.sh writes first when it is missing.

bench/data/weights_20m.tif
    The weights: s2_B08.tif (nir, the same layout) averaged over 2 x 2 cells: 5490 x 5490 Float32, 20 m
    cells, the same CRS and top-left corner (so every weights cell edge lies on a value cell edge and each
    value pixel lies in one weights cell), GDAL COG driver: 512 px tiles (11 x 11 = 121, each covering the
    ground of one 1024 px value tile), DEFLATE without predictor, no overviews, no nodata declared (every
    value pixel has a weight). Values 1000..6300 in steps of 0.25.

bench/data/ee_squares_1k.geojson, ee_squares_1k_utm.gpkg
    Part 1's zones: 1,000 random 1 km x 1 km squares (seed 1), axis-aligned in UTM, corners at random
    positions >= 100 m inside the tile, each a WGS84 lon/lat Polygon of the four UTM corners transformed
    with osr: the same squares as bench/batch's batch_s2_zones_1k.geojson (same seed, same draw). A
    FeatureCollection; feature i has "id": "z<i>" and "properties": {"n": i}. The .gpkg holds the same
    zones in EPSG:32633 for exactextract (which does not reproject): each lon/lat ring's points transformed
    back to UTM with osr, joined by straight UTM edges. That is the polygon the service measures: it
    densifies an AOI's lon/lat edges only where they bow by more than 1/100 of a pixel in the raster's CRS
    (README "AOI edges are straight lines in lon/lat"), and a 1 km edge here bows by ~2 cm, so its edges
    stay the chords. (Edges cut into 10 m pieces in lon/lat instead move a square's mean by ~2e-6 relative,
    above the 1e-6 the answers are compared to; exactextract's time is the same within 3 %.) Layer
    "zones", field "id" (z<i>).

bench/data/ee_fields_10k.geojson, ee_fields_10k_utm.gpkg
    Part 2's zones: 10,000 field-sized squares (seed 242), area uniform in 0.5..5 ha (side 70.7..223.6 m),
    axis-aligned in UTM, corners at random positions >= 100 m inside the tile; lon/lat and UTM as above.

Deterministic: the same seeds give the same files. Each file is skipped when it exists (--force rewrites).
Usage: /usr/bin/python3 bench/exactextract/make-data.py [--force]
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
from osgeo import gdal, ogr, osr

gdal.UseExceptions()
ogr.UseExceptions()

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.normpath(os.path.join(HERE, '..', 'data'))
FORCE = '--force' in sys.argv
# The Sentinel-2-layout tile (bench/lib/s2_data.py: X0, Y0, SIZE10, PIX10).
X0, Y0, SIZE10, PIX10 = 399_960.0, 5_200_020.0, 10_980, 10.0
SPAN = SIZE10 * PIX10
MARGIN = 100.0
B08 = os.path.join(DATA, 's2_B08.tif')
WEIGHTS = os.path.join(DATA, 'weights_20m.tif')


def srs(epsg: int) -> osr.SpatialReference:
    s = osr.SpatialReference()
    s.ImportFromEPSG(epsg)
    s.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    return s


def write_weights() -> None:
    if os.path.exists(WEIGHTS) and not FORCE:
        print(f'{WEIGHTS} exists ({os.path.getsize(WEIGHTS):,} bytes; --force rewrites)')
        return
    t = time.time()
    src = gdal.Open(B08)
    gt = src.GetGeoTransform()
    assert (gt[0], gt[3], gt[1], -gt[5]) == (X0, Y0, PIX10, PIX10), gt
    n = SIZE10 // 2
    tmp = WEIGHTS + '.tmp.tif'
    ds = gdal.GetDriverByName('GTiff').Create(tmp, n, n, 1, gdal.GDT_Float32, options=[
        'TILED=YES', 'BLOCKXSIZE=512', 'BLOCKYSIZE=512', 'COMPRESS=NONE'])
    ds.SetGeoTransform((X0, 2 * PIX10, 0.0, Y0, 0.0, -2 * PIX10))
    ds.SetProjection(src.GetProjection())
    band = ds.GetRasterBand(1)
    rows = 1024  # value rows per strip (even)
    for r0 in range(0, SIZE10, rows):
        k = min(rows, SIZE10 - r0)
        a = src.GetRasterBand(1).ReadAsArray(0, r0, SIZE10, k).astype(np.float64)
        w = a.reshape(k // 2, 2, n, 2).mean(axis=(1, 3)).astype(np.float32)
        band.WriteArray(w, 0, r0 // 2)
    band.FlushCache()
    ds = None
    part = WEIGHTS + '.part'
    gdal.Translate(part, tmp, format='COG', creationOptions=[
        'COMPRESS=DEFLATE', 'BLOCKSIZE=512', 'OVERVIEWS=NONE', 'NUM_THREADS=ALL_CPUS', 'BIGTIFF=NO'])
    os.replace(part, WEIGHTS)
    gdal.GetDriverByName('GTiff').Delete(tmp)
    print(f'wrote {WEIGHTS} ({os.path.getsize(WEIGHTS):,} bytes) in {time.time() - t:.1f} s')


def ring_to_utm(ring_ll: list, ct_back: osr.CoordinateTransformation) -> list:
    """A closed lon/lat ring's points in UTM (the edges between them straight in UTM: the chords)."""
    out = [tuple(p[:2]) for p in ct_back.TransformPoints([tuple(p) for p in ring_ll[:-1]])]
    out.append(out[0])
    return out


def write_zones(name: str, seed: int, sides) -> None:
    """Random axis-aligned UTM squares as a lon/lat FeatureCollection and an EPSG:32633 GeoPackage of the same rings."""
    fc_path = os.path.join(DATA, f'{name}.geojson')
    gpkg_path = os.path.join(DATA, f'{name}_utm.gpkg')
    if os.path.exists(fc_path) and os.path.exists(gpkg_path) and not FORCE:
        print(f'{fc_path} and {gpkg_path} exist (--force rewrites)')
        return
    t = time.time()
    rng = np.random.default_rng(seed)
    side = np.asarray(sides(rng) if callable(sides) else sides, dtype=float)
    n = side.size
    # bench/batch/make-data.py's draw for a fixed side: xs then ys, uniform over the span that keeps the margin.
    xs = X0 + MARGIN + rng.random(n) * (SPAN - side - 2 * MARGIN)
    ys = Y0 - SPAN + MARGIN + rng.random(n) * (SPAN - side - 2 * MARGIN)
    to_ll = osr.CoordinateTransformation(srs(32633), srs(4326))
    to_utm = osr.CoordinateTransformation(srs(4326), srs(32633))
    features = []
    gpkg_tmp = gpkg_path + '.part.gpkg'
    if os.path.exists(gpkg_tmp):
        os.remove(gpkg_tmp)
    ds = ogr.GetDriverByName('GPKG').CreateDataSource(gpkg_tmp)
    layer = ds.CreateLayer('zones', srs(32633), ogr.wkbPolygon)
    layer.CreateField(ogr.FieldDefn('id', ogr.OFTString))
    defn = layer.GetLayerDefn()
    layer.StartTransaction()
    for i, (x, y, s) in enumerate(zip(xs.tolist(), ys.tolist(), side.tolist())):
        corners = [(x, y), (x + s, y), (x + s, y + s), (x, y + s)]
        ring = [list(p[:2]) for p in to_ll.TransformPoints(corners)]
        ring.append(list(ring[0]))
        features.append({'type': 'Feature', 'id': f'z{i}', 'properties': {'n': i},
                         'geometry': {'type': 'Polygon', 'coordinates': [ring]}})
        utm_ring = ring_to_utm(ring, to_utm)
        lr = ogr.Geometry(ogr.wkbLinearRing)
        for px, py in utm_ring:
            lr.AddPoint_2D(px, py)
        poly = ogr.Geometry(ogr.wkbPolygon)
        poly.AddGeometry(lr)
        f = ogr.Feature(defn)
        f.SetField('id', f'z{i}')
        f.SetGeometry(poly)
        layer.CreateFeature(f)
    layer.CommitTransaction()
    ds = None
    os.replace(gpkg_tmp, gpkg_path)
    tmp = fc_path + '.part'
    with open(tmp, 'w') as f:
        json.dump({'type': 'FeatureCollection', 'features': features}, f, separators=(',', ':'))
    os.replace(tmp, fc_path)
    area = side * side / 10_000
    print(f'wrote {fc_path} ({n:,} zones, {os.path.getsize(fc_path):,} bytes; {area.min():.2f}..{area.max():.2f} ha) and '
          f'{gpkg_path} in {time.time() - t:.1f} s')


def main() -> None:
    os.makedirs(DATA, exist_ok=True)
    write_weights()
    write_zones('ee_squares_1k', 1, [1000.0] * 1_000)
    write_zones('ee_fields_10k', 242, lambda rng: np.sqrt(rng.uniform(0.5, 5.0, 10_000) * 10_000))


if __name__ == '__main__':
    main()
