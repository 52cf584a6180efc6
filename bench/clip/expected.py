#!/usr/bin/python3
"""Dev oracle for bench/clip: shapely's answers, written to bench/clip/expected.json.

Run: /usr/bin/python3 bench/clip/expected.py   (Debian python3-shapely; ~15 s)

It writes
  - the two AOIs (a 0.6 x 0.4 degree rectangle and a 256-vertex circle; the circle's vertices come from
    here because libm's cos/sin and V8's may differ in the last bit),
  - checksums of the generated workloads (bench.mts regenerates them with the same PRNG and arithmetic and
    refuses to run if a checksum differs),
  - shapely's area of every one of the 2 x 2,000 clips, the counts of the 'inside' test, the areas of the
    two unions,
  - the robustness cases, each with its inputs and shapely's answer.
Areas are planar, in square degrees (what every engine computes on lon/lat).
"""
import json
import math
import os
import sys
import time

import shapely
import shapely.geos
from shapely.geometry import MultiPolygon, Polygon, shape
from shapely.ops import unary_union
from shapely.prepared import prep
from shapely.validation import explain_validity, make_valid

HERE = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------------------------------------------
# Workload generation. bench.mts has the same code line for line: only + - * / and sqrt, which IEEE 754
# rounds the same in Python and JavaScript, so both sides get bit-identical coordinates.


class Rng:
    """Park-Miller minimal standard (48271): s * 48271 < 2^47 is exact in a double, so JS matches."""

    def __init__(self, seed):
        self.s = seed

    def __call__(self):
        self.s = (self.s * 48271) % 2147483647
        return self.s / 2147483647


HALF = 0.00375  # 0.0075 degree squares
JITTER = 0.0019  # corners moved by (u - 0.5) * JITTER: less than 0.001 degree


def quad(rng, cx, cy):
    ring = []
    for dx, dy in ((-HALF, -HALF), (HALF, -HALF), (HALF, HALF), (-HALF, HALF)):
        x = cx + dx + (rng() - 0.5) * JITTER
        y = cy + dy + (rng() - 0.5) * JITTER
        ring.append([x, y])
    ring.append(ring[0])
    return [ring]


def clip_set(aoi_ring, seed, n):
    """n quads, each centred within 0.002 degree of a random point of the AOI's boundary: the edge crosses it."""
    rng = Rng(seed)
    out = []
    edges = len(aoi_ring) - 1
    for _ in range(n):
        k = int(rng() * edges)
        t = rng()
        s = (rng() - 0.5) * 0.004
        ax, ay = aoi_ring[k]
        bx, by = aoi_ring[k + 1]
        dx = bx - ax
        dy = by - ay
        length = math.sqrt(dx * dx + dy * dy)
        px = ax + t * dx
        py = ay + t * dy
        out.append(quad(rng, px + s * dy / length, py - s * dx / length))
    return out


def inside_set(aoi_ring, seed, n):
    """n quads scattered over the AOI's bounding box grown by 10 % on each side."""
    rng = Rng(seed)
    xs = [p[0] for p in aoi_ring]
    ys = [p[1] for p in aoi_ring]
    w = max(xs) - min(xs)
    h = max(ys) - min(ys)
    x0 = min(xs) - 0.1 * w
    y0 = min(ys) - 0.1 * h
    out = []
    for _ in range(n):
        cx = x0 + rng() * (1.2 * w)
        cy = y0 + rng() * (1.2 * h)
        out.append(quad(rng, cx, cy))
    return out


SIDE = 0.0075
PITCH = 0.006  # < SIDE: every square overlaps its 8 neighbours (by >= 0.0005 degree after jitter)


def union_set(cols, rows, seed):
    rng = Rng(seed)
    out = []
    for r in range(rows):
        for c in range(cols):
            x = 10.0 + c * PITCH + (rng() - 0.5) * 0.001
            y = 50.0 + r * PITCH + (rng() - 0.5) * 0.001
            out.append([[[x, y], [x + SIDE, y], [x + SIDE, y + SIDE], [x, y + SIDE], [x, y]]])
    return out


def checksum(polys):
    """Sum of all coordinates in order (same order of additions as bench.mts)."""
    s = 0.0
    for poly in polys:
        for ring in poly:
            for x, y in ring:
                s += x
                s += y
    return s


RECT = [[10.0, 50.0], [10.6, 50.0], [10.6, 50.4], [10.0, 50.4], [10.0, 50.0]]
CIRCLE = [[10.3 + 0.2 * math.cos(2 * math.pi * i / 256), 50.2 + 0.2 * math.sin(2 * math.pi * i / 256)] for i in range(256)]
CIRCLE.append(CIRCLE[0])

SEEDS = {"clip_rect": 11, "clip_circle": 12, "inside_rect": 21, "inside_circle": 22, "union_1000": 31, "union_20000": 32}
N_CLIP = 2000
N_INSIDE = 100_000
UNION_GRIDS = {"1000": (40, 25), "20000": (200, 100)}


def poly_of(coords):
    """Polygon coords ([shell, *holes]) or MultiPolygon coords ([[shell, *holes], ...]) → shapely."""
    if isinstance(coords[0][0][0], (int, float)):
        return Polygon(coords[0], coords[1:])
    return MultiPolygon([Polygon(p[0], p[1:]) for p in coords])


def rel(a, b):
    return abs(a - b) / abs(b) if b else abs(a)


# ---------------------------------------------------------------------------------------------------
# Robustness cases: each a feature and an AOI (polygon coords), shapely's intersection area, and for
# some the union area and the shape of the union. bench.mts compares areas to relative 1e-9 (a case's
# "tolerance" overrides that; none does now).


def robustness_cases():
    c = []
    rect = [RECT]
    circle = [CIRCLE]

    # A bow tie (figure 8): two triangles meeting at (10.595, 50.2); the AOI's right edge x = 10.6 cuts
    # the right-hand one. make_valid gives the two triangles.
    c.append({
        "name": "bowtie",
        "what": "self-crossing ring (bow tie) cut by the AOI edge; expected = make_valid(feature) ∩ AOI",
        "feature": [[[10.585, 50.19], [10.605, 50.21], [10.605, 50.19], [10.585, 50.21], [10.585, 50.19]]],
        "aoi": rect,
        "repair": True,
    })
    # A horizontal sliver 5e-10 degree thin (0.06 mm) across the AOI's right edge: crossing points are
    # exact in floating point, so every engine that keeps the sliver gets shapely's area exactly.
    y = 50.2
    c.append({
        "name": "sliver",
        "what": "sliver 5e-10° thin, axis-parallel, across the AOI edge",
        "feature": [[[10.595, y], [10.605, y], [10.605, y + 5e-10], [10.595, y + 5e-10], [10.595, y]]],
        "aoi": rect,
    })
    # The same sliver tilted (slope 0.01): its crossing points with x = 10.6 are now computed, not copied.
    y = 50.25
    c.append({
        "name": "sliver-tilted",
        "what": "sliver 5e-10° thin, slope 0.01, across the AOI edge",
        "feature": [[[10.595, y], [10.605, y + 0.0001], [10.605, y + 0.0001 + 5e-10], [10.595, y + 5e-10], [10.595, y]]],
        "aoi": rect,
    })
    # Two jittered quads sharing a slanted edge, both inside the AOI: the union has to dissolve that edge.
    a = [[10.1, 50.1], [10.10731, 50.10093], [10.10817, 50.10702], [10.10052, 50.1079], [10.1, 50.1]]
    b = [[10.10731, 50.10093], [10.11489, 50.10021], [10.11502, 50.10811], [10.10817, 50.10702], [10.10731, 50.10093]]
    c.append({
        "name": "shared-edge",
        "what": "two features sharing a slanted edge: union must be one ring, area exact; intersection = both",
        "feature": [[a], [b]],
        "aoi": rect,
        "union": True,
    })
    # A shell whose hole touches it at one point (valid, OGC), the hole also cut by the AOI's right edge.
    shell = [[10.59, 50.3], [10.61, 50.3], [10.61, 50.32], [10.59, 50.32], [10.59, 50.3]]
    hole = [[10.59, 50.31], [10.603, 50.314], [10.598, 50.306], [10.59, 50.31]]
    c.append({
        "name": "touching-rings",
        "what": "hole touching the shell at a point (inside the AOI), the hole cut by the AOI edge",
        "feature": [shell, hole],
        "aoi": rect,
    })
    # Two holes: one wholly inside the AOI, one cut by the AOI's right edge.
    shell = [[10.58, 50.35], [10.62, 50.35], [10.62, 50.37], [10.58, 50.37], [10.58, 50.35]]
    h1 = [[10.585, 50.355], [10.585, 50.365], [10.592, 50.365], [10.592, 50.355], [10.585, 50.355]]
    h2 = [[10.597, 50.353], [10.597, 50.367], [10.606, 50.362], [10.606, 50.356], [10.597, 50.353]]
    c.append({
        "name": "two-holes",
        "what": "polygon with two holes, the AOI edge cutting through one hole",
        "feature": [shell, h1, h2],
        "aoi": rect,
    })
    # An edge on the AOI's top edge (y = 50.4), the feature also crossing the right edge at the corner.
    c.append({
        "name": "collinear-axis",
        "what": "feature edge collinear with (part of) the AOI's top edge, feature across the AOI corner",
        "feature": [[[10.595, 50.39], [10.605, 50.39], [10.605, 50.4], [10.595, 50.4], [10.595, 50.39]]],
        "aoi": rect,
    })
    # On the circle: a feature whose edge IS one circle edge (v_k → v_k+1), lying inside the AOI, plus one
    # whose edge runs from v_k to the rounded midpoint of that edge (collinear up to rounding).
    k = 40
    (ax, ay), (bx, by) = CIRCLE[k], CIRCLE[k + 1]
    cx, cy = 10.3, 50.2
    inner = lambda x, y, f: [cx + (x - cx) * f, cy + (y - cy) * f]  # noqa: E731
    c.append({
        "name": "collinear-slanted",
        "what": "feature edge identical to a slanted AOI edge (circle), feature inside",
        "feature": [[[ax, ay], [bx, by], inner(bx, by, 0.97), inner(ax, ay, 0.97), [ax, ay]]],
        "aoi": circle,
    })
    mx, my = ax + 0.5 * (bx - ax), ay + 0.5 * (by - ay)
    c.append({
        "name": "collinear-midpoint",
        "what": "feature edge from an AOI vertex to the rounded midpoint of that AOI edge, feature inside",
        "feature": [[[ax, ay], [mx, my], inner(mx, my, 0.97), inner(ax, ay, 0.97), [ax, ay]]],
        "aoi": circle,
    })
    # Vertices 1e-12 degree apart (0.1 nm): inside the feature's own ring, and next to an AOI corner.
    e = 1e-12
    c.append({
        "name": "near-vertices",
        "what": "feature ring with two vertices 1e-12° apart (not collinear), across the AOI edge",
        "feature": [[[10.595, 50.15], [10.605, 50.15], [10.605, 50.16], [10.605 - e, 50.16 + e], [10.595, 50.16], [10.595, 50.15]]],
        "aoi": rect,
    })
    c.append({
        "name": "near-aoi-corner",
        "what": "feature vertex 1e-12° from the AOI corner (10.6, 50.4), feature across both edges",
        "feature": [[[10.595, 50.395], [10.6 + e, 50.395], [10.6 + e, 50.4 - e], [10.6 - e, 50.4 + e], [10.595, 50.405], [10.595, 50.395]]],
        "aoi": rect,
    })
    c.append({
        "name": "identical",
        "what": "feature identical to the AOI (256-vertex circle): intersection and union = the AOI",
        "feature": circle,
        "aoi": circle,
        "union": True,
    })
    return c


def evaluate_case(case):
    f = poly_of(case["feature"])
    aoi = poly_of(case["aoi"])
    out = {"feature_valid": f.is_valid, "feature_validity": explain_validity(f), "feature_area": f.area}
    try:
        raw = f.intersection(aoi)
        out["shapely_raw_intersection_area"] = raw.area
    except Exception as ex:  # shapely 1.8 raises TopologyException on some invalid inputs
        out["shapely_raw_intersection_area"] = None
        out["shapely_raw_error"] = f"{type(ex).__name__}: {ex}".split(" <shapely")[0]
    g = make_valid(f) if case.get("repair") else f
    if case.get("repair"):
        out["make_valid_area"] = g.area
        out["make_valid_wkt"] = g.wkt
    inter = g.intersection(aoi)
    out["intersection_area"] = inter.area
    if case.get("union"):
        parts = [Polygon(p[0], p[1:]) for p in case["feature"]] if not isinstance(case["feature"][0][0][0], (int, float)) else [f]
        u = unary_union(parts + ([aoi] if case["name"] == "identical" else []))
        polys = list(u.geoms) if u.geom_type == "MultiPolygon" else [u]
        out["union_area"] = u.area
        out["union_polygons"] = len(polys)
        out["union_rings"] = sum(1 + len(p.interiors) for p in polys)
    return out


def main():
    t0 = time.time()
    out = {
        "generated_by": "bench/clip/expected.py",
        "shapely": shapely.__version__,
        "geos": shapely.geos.geos_version_string,
        "python": sys.version.split()[0],
        "aois": {"rect": [RECT], "circle": [CIRCLE]},
        "seeds": SEEDS,
        "n_clip": N_CLIP,
        "n_inside": N_INSIDE,
        "union_grids": UNION_GRIDS,
        "checksums": {},
        "clip": {},
        "inside": {},
        "union": {},
        "cases": [],
    }
    aoi_rings = {"rect": RECT, "circle": CIRCLE}
    for name, ring in aoi_rings.items():
        aoi = Polygon(ring)
        out["aois_area_" + name] = aoi.area
        feats = clip_set(ring, SEEDS["clip_" + name], N_CLIP)
        out["checksums"]["clip_" + name] = checksum(feats)
        areas = []
        for fc in feats:
            p = poly_of(fc)
            assert p.is_valid and p.boundary.intersects(aoi.boundary)
            areas.append(p.intersection(aoi).area)
        out["clip"][name] = {"areas": areas, "total": math.fsum(areas)}

        feats = inside_set(ring, SEEDS["inside_" + name], N_INSIDE)
        out["checksums"]["inside_" + name] = checksum(feats)
        pa = prep(aoi)
        cp = sum(1 for fc in feats if pa.contains_properly(poly_of(fc)))
        it = sum(1 for fc in feats if pa.intersects(poly_of(fc)))
        out["inside"][name] = {"contains_properly": cp, "intersects": it}

    for key, (cols, rows) in UNION_GRIDS.items():
        feats = union_set(cols, rows, SEEDS["union_" + key])
        out["checksums"]["union_" + key] = checksum(feats)
        u = unary_union([poly_of(fc) for fc in feats])
        polys = list(u.geoms) if u.geom_type == "MultiPolygon" else [u]
        out["union"][key] = {
            "area": u.area,
            "polygons": len(polys),
            "holes": sum(len(p.interiors) for p in polys),
            "vertices": sum(len(p.exterior.coords) + sum(len(r.coords) for r in p.interiors) for p in polys),
        }

    for case in robustness_cases():
        case["expected"] = evaluate_case(case)
        out["cases"].append(case)

    path = os.path.join(HERE, "expected.json")
    with open(path, "w") as fh:
        json.dump(out, fh, indent=1)
        fh.write("\n")
    print(f"wrote {path} in {time.time() - t0:.1f} s (shapely {shapely.__version__}, GEOS {shapely.geos.geos_version_string})")
    for case in out["cases"]:
        e = case["expected"]
        print(f"  {case['name']:<20} valid={e['feature_valid']!s:<5} ∩ {e['intersection_area']:.17g}"
              + (f"  ∪ {e['union_area']:.17g} ({e['union_polygons']} poly, {e['union_rings']} rings)" if "union_area" in e else "")
              + (f"  raw: {e.get('shapely_raw_error') or e['shapely_raw_intersection_area']}" if case.get("repair") else ""))


if __name__ == "__main__":
    main()
