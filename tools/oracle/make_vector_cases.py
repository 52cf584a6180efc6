#!/usr/bin/env python3
"""Write the request files fixtures/cases-vector/<NAME>.request.json (dev-only, plain Python).

    /usr/bin/python3 tools/oracle/make_vector_cases.py     # then: /usr/bin/python3 tools/oracle/vector_oracle.py

Each request is {"endpoint": "vector", "file": "vector/<file>.parquet", "note": "...", "body": {...}}: `body`
is the request body as the API takes it, without `url` (the test adds the URL of `file`, relative to
fixtures/). Coordinates are written as the shortest decimal of the double meant (Python repr), so a
point given as a county-boundary vertex is that vertex exactly.

The hand derivations in the squares notes use the closed form of the area of a lon/lat rectangle on the
WGS84 ellipsoid (a = 6378137, f = 1/298.257223563, e² = f(2 - f), b = a(1 - f)):
    area([l1, l2] x [p1, p2]) = (b² / 2) · (l2 - l1) · π/180 · (g(p2) - g(p1)),
    g(p) = sin p / (1 - e² sin² p) + atanh(e sin p) / e.
Only differences of g matter; near the equator g(p2) - g(p1) ≈ 2 (sin p2 - sin p1) · (1 + small).
"""
import json
import math
import os

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CASES = os.path.join(ROOT, "fixtures", "cases-vector")

ALL_STATS = ["count", "min", "max", "mean", "sum", "std", "median", "percentile_10", "percentile_90", "range",
             "majority", "minority", "unique", "freq_hist", "density"]

A_WGS84 = 6378137.0
F_WGS84 = 1 / 298.257223563
E2 = F_WGS84 * (2 - F_WGS84)
B_WGS84 = A_WGS84 * (1 - F_WGS84)


def g(lat):
    s = math.sin(math.radians(lat))
    e = math.sqrt(E2)
    return s / (1 - E2 * s * s) + math.atanh(e * s) / e


def rect_area(l1, p1, l2, p2):
    """Closed-form area (m2) of the lon/lat rectangle [l1, l2] x [p1, p2] on WGS84."""
    return B_WGS84 ** 2 / 2 * math.radians(l2 - l1) * (g(p2) - g(p1))


def rect(x0, y0, x1, y1):
    return {"type": "Polygon", "coordinates": [[[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]]}


def poly(*pts):
    ring = [list(p) for p in pts]
    ring.append(list(pts[0]))
    return {"type": "Polygon", "coordinates": [ring]}


cases = []


def case(name, file, note, aoi, columns, stats=None, **extra):
    body = {"aoi": aoi, "columns": columns}
    if stats is not None:
        body["stats"] = stats
    body.update(extra)
    cases.append((name, {"endpoint": "vector", "file": "vector/" + file, "note": note, "body": body}))


def squares_notes():
    """Hand derivation of the squares cases (numbers printed with the closed form above)."""
    a_half = rect_area(1, 0, 2, 2)  # A ∩ AOI
    a_full = rect_area(0, 0, 2, 2)  # A
    b = rect_area(3, 0, 4, 1)  # B, wholly inside
    aoi = rect_area(1, -1, 5, 3)
    mean_area = (10 * a_half + 30 * b) / (a_half + b)
    std_area = math.sqrt((a_half * (10 - mean_area) ** 2 + b * (30 - mean_area) ** 2) / (a_half + b))
    pmean_area = (1000 * a_half + 200 * b) / (a_half + b)
    common = (
        "squares.parquet, AOI = lon/lat rectangle [1, 5] x [-1, 3]. Counted: A = [0, 2] x [0, 2] (pop 1000, "
        "value 10) cut in half by the AOI's west edge (A ∩ AOI = [1, 2] x [0, 2]), and B = [3, 4] x [0, 1] (pop "
        "200, value 30) wholly inside. D = [5, 6] x [0, 1] (pop 50, value 50) shares only the AOI's east edge: "
        "intersection area 0, not counted. C and the rest are far away. `name` is text: skipped, not in the "
        "response. Areas (closed form, m2): |A ∩ AOI| = %.6f, |A| = %.6f, |B| = %.6f, |AOI| = %.6f. "
        "Share |A ∩ AOI| / |A| = 1/2 exactly (a rectangle's area is proportional to its width in longitude). "
        "sum (both methods) = 1000 * 1/2 + 200 * 1 = 700 for pop and 10 * 1/2 + 30 * 1 = 35 for value. "
        "data_area = |A ∩ AOI| + |B| = %.6f; density = 2 / (|AOI| / 1e6) = %.12g per km2. "
        % (a_half, a_full, b, aoi, a_half + b, 2 / (aoi / 1e6)))
    area_note = common + (
        "AREA weights w_A = |A ∩ AOI|, w_B = |B| (w_A / w_B = %.9f, about 2): value mean = (10 w_A + 30 w_B) / "
        "(w_A + w_B) = %.12g, std = %.12g, pop mean = %.12g; weighted median: cumulative weight of the "
        "smaller value (10, w_A = %.4f of the total) reaches 1/2 -> median 10 (pop: 200 has w_B = %.4f of "
        "the total, below 1/2, then 1000 -> median 1000); percentile_10 = smallest value, percentile_90 = "
        "largest; majority = value of A (10; pop 1000), minority = value of B (30; pop 200); freq_hist "
        "{\"10\": w_A, \"30\": w_B}." % (a_half / b, mean_area, std_area, pmean_area, a_half / (a_half + b),
                                       b / (a_half + b)))
    ratio_note = common + (
        "RATIO weights w_A = 1/2, w_B = 1 (total 3/2): value mean = (10 * 1/2 + 30 * 1) / (3/2) = 23.333…, "
        "std = sqrt((1/2 * 13.333…² + 1 * 6.666…²) / (3/2)) = 9.428090…; pop mean = (1000/2 + 200) / (3/2) = "
        "466.666…; weighted median: 10 (value) has 1/3 of the weight, below 1/2 -> median 30 (pop: 200 has "
        "2/3 -> median 200); majority 30 (pop 200), minority 10 (pop 1000); freq_hist {\"10\": 0.5, \"30\": 1} "
        "and {\"200\": 1, \"1000\": 0.5}. The area and ratio answers differ in mean, std, median, majority, "
        "minority and freq_hist, and agree in count, sum, min, max, unique, data_area, density.")
    return area_note, ratio_note


def geoarrow_cases():
    """GeoParquet 1.1 native (GeoArrow) encodings: one case per fixtures/vector/geoarrow_*.parquet."""
    pt_stats = ["count", "sum", "mean", "min", "max", "density"]
    case("geoarrow_point", "geoarrow_point.parquet",
         "encoding point (struct {x, y}). AOI [0, 1]^2 holds points 1 (0.25, 0.25; value 1.5) and 2 (0.75, 0.5; "
         "2.5); 3 (1.5, 1.5) and 5 (3, 3) are outside, 4 is a null geometry and 6 an empty point (NaN, NaN): no "
         "feature. Plain statistics: count 2, sum 4, mean 2, min 1.5, max 2.5, data_area 0.",
         rect(0, 0, 1, 1), ["value"], pt_stats)
    case("geoarrow_linestring", "geoarrow_linestring.parquet",
         "encoding linestring (list<vertices: struct {x, y}>). AOI [0, 2] x [0, 1]: line 1 (-1, 0.5) -> (3, 0.5) "
         "crosses it (value 1.5), line 2 is inside (2.5), line 3 is far; 4 is an empty list and 5 a null "
         "geometry. count 2, sum 4, mean 2, data_area 0.",
         rect(0, 0, 2, 1), ["value"], pt_stats)
    p1 = rect_area(0, 0, 2, 2) - rect_area(0.5, 0.5, 1, 1)
    p1_in = rect_area(0.75, 0, 2, 1.5) - rect_area(0.75, 0.5, 1, 1)
    p2_in = rect_area(3, 0, 3.5, 1)
    s1 = p1_in / p1
    poly_note = (
        "AOI [0.75, 3.5] x [-0.5, 1.5]. Polygon 1 = [0, 2]^2 with the hole [0.5, 1]^2 (value 10): AOI ∩ 1 = "
        "[0.75, 2] x [0, 1.5] minus [0.75, 1] x [0.5, 1] = %.6f m2 of |1| = %.6f m2 (share %.12g); polygon 2 = "
        "[3, 4] x [0, 1] (value 20) cut in half (%.6f m2, share 1/2 exactly); the triangle 3 (x >= 5) is outside "
        "and 4 is a null geometry. sum = 10 x %.9g + 20 x 1/2 = %.9g; area-weighted mean = (10 w1 + 20 w2) / "
        "(w1 + w2) = %.12g; median 10 (w1 is %.4f of the weight); data_area = %.6f m2 (closed form)."
        % (p1_in, p1, s1, p2_in, s1, 10 * s1 + 10, (10 * p1_in + 20 * p2_in) / (p1_in + p2_in),
           p1_in / (p1_in + p2_in), p1_in + p2_in))
    poly_stats = ["count", "sum", "mean", "median", "min", "max", "std", "density"]
    case("geoarrow_polygon", "geoarrow_polygon.parquet",
         "encoding polygon (list<rings: list<vertices: struct {x, y}>>). " + poly_note,
         rect(0.75, -0.5, 3.5, 1.5), ["value"], poly_stats)
    case("geoarrow_polygon_interleaved", "geoarrow_polygon_interleaved.parquet",
         "encoding polygon, interleaved coordinates (list<rings: list<vertices: fixed_size_list<xy: double>[2]>>, "
         "stored in Parquet as a plain list of doubles): the same polygons and AOI as geoarrow_polygon, so the same "
         "numbers. " + poly_note,
         rect(0.75, -0.5, 3.5, 1.5), ["value"], poly_stats)
    case("geoarrow_multipoint", "geoarrow_multipoint.parquet",
         "encoding multipoint (list<points: struct {x, y}>). AOI [0, 1]^2: multipoint 1 has (0.25, 0.25) inside "
         "(value 1), 3 is (0.5, 0.75) (value 3), 5 is an empty point (NaN, NaN) plus (0.75, 0.25) (value 5); 2 "
         "lies outside and 4 is an empty list. count 3, sum 9, mean 3, data_area 0.",
         rect(0, 0, 1, 1), ["value"], pt_stats)
    case("geoarrow_multilinestring", "geoarrow_multilinestring.parquet",
         "encoding multilinestring with z (list<linestrings: list<vertices: struct {x, y, z}>>; z is dropped). AOI "
         "[0, 2] x [0, 1]: multilinestring 1 enters with its first part (-1, 0.5) -> (0.5, 0.5) (value 10), 3 is "
         "inside (30), 2 is far and 4 is a null geometry. count 2, sum 40, mean 20, data_area 0.",
         rect(0, 0, 2, 1), ["value"], pt_stats)
    m1 = rect_area(0, 0, 1, 1) + rect_area(2, 0, 3, 1) - rect_area(2.25, 0.25, 2.75, 0.75)
    m1_in = rect_area(0.5, 0, 1, 1) + rect_area(2, 0, 3, 1) - rect_area(2.25, 0.25, 2.75, 0.75)
    m2_in = rect_area(4, 0, 4.5, 1)
    sm = m1_in / m1
    case("geoarrow_multipolygon", "geoarrow_multipolygon.parquet",
         "encoding multipolygon (list<polygons: list<rings: list<vertices: struct {x, y}>>>). AOI [0.5, 4.5] x "
         "[-0.5, 1.5]. Multipolygon 1 (value 100) = [0, 1]^2 + [2, 3] x [0, 1] with the hole [2.25, 2.75] x "
         "[0.25, 0.75]: the AOI takes the east half of its first part and all of its second, %.6f m2 of |1| = "
         "%.6f m2 (share %.12g); multipolygon 2 (value 200) = [4, 5] x [0, 1] + [6, 7] x [0, 1]: the AOI takes "
         "[4, 4.5] x [0, 1], %.6f m2, share 1/4 exactly (half of one of two equal parts); 3 lies outside, 4 is an "
         "empty list. sum = 100 x %.9g + 200 x 1/4 = %.9g; area-weighted mean = %.12g; data_area = %.6f m2."
         % (m1_in, m1, sm, m2_in, sm, 100 * sm + 50, (100 * m1_in + 200 * m2_in) / (m1_in + m2_in), m1_in + m2_in),
         rect(0.5, -0.5, 4.5, 1.5), ["value"], poly_stats)


def main():
    os.makedirs(CASES, exist_ok=True)
    area_note, ratio_note = squares_notes()
    sq = rect(1, -1, 5, 3)
    case("squares_area", "squares.parquet", area_note, sq, ["pop", "value", "name"], ALL_STATS)
    case("squares_ratio", "squares.parquet", ratio_note, sq, ["pop", "value", "name"], ALL_STATS,
         weighting_method="ratio")
    e_f = rect_area(7, 0.5, 7.5, 1)
    case("squares_overlap", "squares.parquet",
         "AOI [6, 9] x [-1, 2]: E = [6.5, 7.5] x [0.5, 1.5] (pop 300, value 20) and F = [7, 8] x [0, 1] (pop 400, "
         "value 40) are wholly inside and overlap on [7, 7.5] x [0.5, 1]; D = [5, 6] x [0, 1] touches the AOI's west "
         "edge only (not counted). data_area is the area of the UNION: |E| + |F| - |E ∩ F| = %.6f + %.6f - %.6f m2 "
         "(the plain sum would count the overlap twice); sum of pop = 700, of value = 60 (each share 1)."
         % (rect_area(6.5, 0.5, 7.5, 1.5), rect_area(7, 0, 8, 1), e_f),
         rect(6, -1, 9, 2), ["pop", "value"], ["count", "sum", "mean", "min", "max", "density"])
    g_in = rect_area(-3.5, -3.5, -1, -1) - rect_area(-3, -3, -2, -2)
    g_full = rect_area(-4, -4, -1, -1) - rect_area(-3, -3, -2, -2)
    case("squares_hole", "squares.parquet",
         "G = [-4, -1] x [-4, -1] with a hole [-3, -2] x [-3, -2] (pop 600, value 60); AOI [-3.5, -0.5] x "
         "[-3.5, -0.5]. G ∩ AOI = [-3.5, -1] x [-3.5, -1] minus the hole = %.6f m2 (data_area), |G| = %.6f m2 "
         "(outer minus hole), share = %.12g, so sum of pop = 600 x share = %.9g. One feature: mean = 600, "
         "median = 600." % (g_in, g_full, g_in / g_full, 600 * g_in / g_full),
         rect(-3.5, -3.5, -0.5, -0.5), ["pop", "value"], ["count", "sum", "mean", "median", "min", "max"])
    case("squares_point_overlap", "squares.parquet",
         "bare point (7.25, 0.75) inside both E (value 20, pop 300) and F (value 40, pop 400): touch mode, plain "
         "statistics: count 2, mean 30, median 30 (mean of the two), sum 60, std 10; aoi_area = data_area = 0, "
         "density null.",
         {"type": "Point", "coordinates": [7.25, 0.75]}, ["value", "pop"],
         ["count", "min", "max", "mean", "sum", "std", "median", "majority", "minority", "unique", "freq_hist",
          "density"])
    case("squares_point_edge", "squares.parquet",
         "bare point (2, 1) on A's east edge: A touches it, nothing else does: count 1, value 10.",
         {"type": "Point", "coordinates": [2, 1], "radius": 0}, ["value"], ["count", "mean", "density"])

    # ---- nc (NAD27 lon/lat, compared as they are)
    nc_cols = ["BIR74", "SID74", "AREA", "NAME"]
    nc_poly = poly((-79.21, 35.61), (-78.41, 35.49), (-78.27, 36.03), (-78.83, 36.21), (-79.33, 35.93))
    case("nc_polygon_area", "nc.parquet",
         "pentagon over the Raleigh-Durham area (Wake, Durham, Orange, Chatham, Johnston, … partly): area "
         "weighting (the default, not given); NAME is text and skipped silently",
         nc_poly, nc_cols, ALL_STATS)
    case("nc_polygon_ratio", "nc.parquet", "same pentagon, weighting_method ratio", nc_poly, nc_cols, ALL_STATS,
         weighting_method="ratio")
    case("nc_point_inside", "nc.parquet", "bare point in Wake County (Raleigh): touch mode, one county",
         {"type": "Point", "coordinates": [-78.64, 35.78]}, nc_cols, ALL_STATS)
    case("nc_point_border", "nc.parquet",
         "bare point exactly on the boundary vertex shared by Forsyth, Guilford, Rockingham and Stokes (the "
         "file's coordinate, float32-valued): touch mode counts the 4 counties; plain statistics",
         {"type": "Point", "coordinates": [-80.02567291259766, 36.2502326965332]}, nc_cols, ALL_STATS)
    case("nc_circle_20km", "nc.parquet",
         "geodesic circle of 20 km around Charlotte (Mecklenburg): several counties, part of the circle in South "
         "Carolina (no data there, so data_area < aoi_area)",
         {"type": "Point", "coordinates": [-80.84, 35.23], "radius": 20000}, nc_cols, ALL_STATS)

    # ---- world (CRS84)
    w_cols = ["pop", "lifeExp", "gdpPercap", "area_km2", "name_long"]
    case("world_polygon_europe", "world.parquet",
         "polygon over western Europe (Belgium, Netherlands, Luxembourg, Germany, Switzerland, France, …): France "
         "has null pop, lifeExp and gdpPercap, so those columns count one feature fewer than area_km2 (nulls "
         "ignored per column: count, density and data_area of a column take only its non-null features)",
         poly((1.5, 46.5), (11.5, 46.0), (13.0, 52.5), (4.5, 53.5), (0.5, 50.5)), w_cols,
         ["count", "min", "max", "mean", "sum", "std", "median", "percentile_75", "majority", "minority", "unique",
          "density"])
    case("world_antimeridian_fiji", "world.parquet",
         "ring from 177.5 to 181 degrees longitude: crosses the antimeridian (read as 177.5 … 180 and -180 … -179). "
         "Fiji is 3 polygons: Viti Levu (177.3 … 178.7), Vanua Levu (178.6 … 179.99999) and Taveuni's east side "
         "(-180 … -179.79); the AOI takes part of Viti Levu and Vanua Levu and the part east of -180",
         poly((177.5, -18.5), (181.0, -18.5), (181.0, -15.5), (177.5, -15.5)), w_cols,
         ["count", "mean", "sum", "min", "max", "density"])
    case("world_antimeridian_chukotka", "world.parquet",
         "ring from 170 to 190 degrees longitude, 62 … 70 N: crosses the antimeridian over Chukotka (Russia has "
         "parts on both sides) and takes a little of Alaska (west of -170: the USA); ratio weighting",
         poly((170.0, 62.0), (190.0, 62.0), (190.0, 70.0), (170.0, 70.0)), ["pop", "area_km2", "name_long"],
         ["count", "mean", "sum", "min", "max", "median", "majority", "freq_hist", "density"],
         weighting_method="ratio")
    case("world_empty_pacific", "world.parquet",
         "AOI in the open Pacific: no feature. count 0, unique [], freq_hist {}, density 0, data_area 0, every "
         "other statistic null",
         rect(-150, -30, -140, -20), ["pop", "lifeExp"], ALL_STATS)

    # ---- synthetic files
    case("points_polygon", "points.parquet",
         "points every 0.5 degree (10 x 5 grid from (0, 0); v = 10 lon + lat, k = row index): a polygon whose edges "
         "pass no closer than 0.11 degree to any point; points are counted unweighted, data_area 0",
         poly((0.25, 0.25), (2.75, 0.25), (2.75, 1.25), (0.75, 2.25), (0.25, 2.25)), ["v", "k"], ALL_STATS)
    case("points_bare_point", "points.parquet",
         "bare point exactly on the point feature (1.5, 0.5): k = 13, v = 15.5",
         {"type": "Point", "coordinates": [1.5, 0.5]}, ["v", "k"], ["count", "mean", "min", "max", "density"])
    case("lines_polygon", "lines.parquet",
         "AOI [0, 2] x [0, 1]: lines c = 1, 3 (cross it), 2, 7 (inside) and 6 (enters from the north) are counted; "
         "5 goes round it, 4 and 8 are far; w of line 7 is null (count 4 for w, 5 for c); unweighted, data_area 0",
         rect(0, 0, 2, 1), ["c", "w"], ALL_STATS)
    case("types_all", "types.parquet",
         "every numeric Parquet type (int8/16/32/64, uint8/16/32/64, float, double, decimal(9,2) as INT32, "
         "decimal(18,4) as INT64, decimal(24,3) as FIXED_LEN_BYTE_ARRAY) with nulls; flag (boolean) and label "
         "(string) are skipped. 7 squares of widths 1, 1.125, … 1.75 degrees, all wholly inside the AOI, so each "
         "share is 1 and sum is the plain sum; weights (areas) all differ. Traps: uint64 18446744073709551615 "
         "and 9223372036854775808 (negative if read as signed), uint32 4294967295, int64 9007199254740993 "
         "(2^53 + 1, nearest double 9007199254740992), decimal 1234567.89 (correctly rounded: dividing the "
         "unscaled integer by 100, not multiplying by 0.01, which gives 1234567.8900000001)",
         rect(-0.5, -0.5, 11.5, 1.5),
         ["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f32", "f64", "dec9_2", "dec18_4", "dec24_3",
          "flag", "label"], ALL_STATS)
    case("no_geo", "no_geo.parquet",
         "no `geo` metadata: geometry found by name (`the_geom`), CRS84 assumed; columns asked as SCORE and N, "
         "answered as the file spells them (score, n); score null on feature 3, n null on feature 4",
         rect(20.25, -0.5, 25.5, 0.75), ["SCORE", "N"], ["count", "sum", "mean", "min", "max", "median", "density"])
    many_aoi = rect(10 + 65.4 / 32, 40 + 55.5 / 32, 10 + 68.6 / 32, 40 + 58.3 / 32)
    case("many_groups_small", "many_groups.parquet",
         "small AOI inside block (bx 3, by 2) = row group 19 of 40 (500 rows each): grid columns 65 … 68 and rows "
         "55 … 58 (16 squares, 4 wholly inside); only row group 19's bbox statistics intersect the AOI, so a "
         "pruning reader fetches one row group of 40",
         many_aoi, ["value", "pop"], ["count", "sum", "mean", "min", "max", "median", "density"])
    case("geom_named_primary", "geom_named.parquet",
         "no geometry_column: primary_column `geom`. AOI [40.5, 41.75] x [-0.5, 1.5] takes half of p (v 1) and a "
         "quarter of q (v 2); `other_geom` lies 10 degrees east (nothing there)",
         rect(40.5, -0.5, 41.75, 1.5), ["v"], ["count", "sum", "mean", "density"])
    case("geom_named_other", "geom_named.parquet",
         "geometry_column OTHER_GEOM (matched case-insensitively to `other_geom`, which has no bbox covering "
         "column: geom_bbox belongs to `geom` and must not be used to prune): the same AOI 10 degrees east, so "
         "the same numbers as geom_named_primary",
         rect(50.5, -0.5, 51.75, 1.5), ["v"], ["count", "sum", "mean", "density"], geometry_column="OTHER_GEOM")

    # ---- overlapping features: data_area is the area of the union (each overlap counted once)
    ov_stats = ["count", "sum", "mean", "min", "max"]
    case("overlap10_area", "overlap_10.parquet",
         "overlap_10.parquet (10 polygons near 10 E, 45 N that overlap in every way: nested, partial, a hole filled "
         "exactly by another polygon, a shared edge, three-way overlaps, a 1/8192-degree sliver of overlap, a needle "
         "triangle, an exact duplicate; see fixtures/README.md). A pentagon with oblique edges cuts outer, nested, "
         "duplicate, partial, holed, hole_fill, edge, tri3 and sliver; needle lies outside. data_area is the "
         "ellipsoidal area of the UNION of the counted intersections (checks.data_area_summed is the plain sum, "
         "larger by the overlaps); sum = value x intersection / feature area summed.",
         poly((10.0345, 44.9853), (10.1686, 45.0329), (10.1467, 45.1161), (10.0827, 45.1282), (10.0282, 45.0863)),
         ["value", "n", "name"], ov_stats)
    case("overlap10_inside", "overlap_10.parquet",
         "AOI containing all 10 polygons of overlap_10.parquet: every share is 1, so sum = the plain sum (value "
         "58.875, n 55); data_area = area of the union of the 10 polygons (the duplicate, the nested square, the "
         "three-way and sliver overlaps counted once; hole_fill fills holed's hole, sharing only its boundary).",
         rect(9.995, 44.995, 10.205, 45.205), ["value", "n"], ov_stats)
    case("overlap100k_part", "overlap_100k.parquet",
         "overlap_100k.parquet (100,000 jittered rectangles and triangles, half of them larger than the grid pitch "
         "and overlapping their neighbours; 10 row groups): a pentagon with oblique edges over about 41 % of them "
         "(about 40,000 wholly inside, about 950 cut by its edges). data_area is the area of the union of tens of "
         "thousands of overlapping intersections (checks.data_area_summed: the plain sum, far larger).",
         poly((20.1037, 50.1213), (20.9271, 50.0589), (21.2236, 50.5117), (20.7413, 50.8861), (20.2158, 50.6342)),
         ["value", "n"], ov_stats)
    case("overlap100k_all", "overlap_100k.parquet",
         "AOI containing all 100,000 polygons of overlap_100k.parquet: every share is 1 (sum = plain sum); "
         "data_area = area of the union of all 100,000 (checks.data_area_summed: the plain sum, far larger).",
         rect(19.99, 49.99, 21.58, 50.99), ["value", "n"], ov_stats)

    geoarrow_cases()

    for name, req in cases:
        with open(os.path.join(CASES, name + ".request.json"), "w") as fh:
            json.dump(req, fh, indent=2, ensure_ascii=False)
            fh.write("\n")
    print("wrote %d requests to %s" % (len(cases), os.path.relpath(CASES, ROOT)))


if __name__ == "__main__":
    main()
