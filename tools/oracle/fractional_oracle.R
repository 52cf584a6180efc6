# Independent oracle for exact fractional coverage (issue 5, `pixels: "fractional"`).
#
# Dev-only tool: R's terra from Debian (r-cran-terra), no code shared with the TypeScript service; the test
# suite never runs it. Run it through the wrapper, which installs terra when it is missing:
#
#     bash tools/oracle/fractional_oracle.sh            # every case below
#     bash tools/oracle/fractional_oracle.sh NAME ...    # only these cases
#
# For each case it writes fixtures/cases-fractional/<NAME>.json:
#   file, band, polygon (WKT and GeoJSON-style coordinates, both in the raster's own CRS, so both sides use
#   identical geometry: nothing is reprojected), grid (origin, pixel size, size, as terra reads it),
#   expected       {weighted_mean, sum_fraction, count_cells, ...}   terra::extract(r, vect(polygon), exact=TRUE)
#   expected_planar the same with the CRS removed from raster and polygon (see below)
#   cells / cells_planar: terra's [cell index (1-based, row-major from the top-left), fraction] lists
#   oracle, tolerance, reason.
#
# What terra computes (terra 1.7, SpatRaster::rasterizeCellsExact): the cells that GDAL's ALL_TOUCHED
# rasterization selects are turned into square polygons, intersected with the AOI (GEOS), and each cell's
# fraction is area(cell ∩ AOI) / area(cell), both measured with expanse(…, "m", transform = TRUE): on a projected
# raster the areas are geodesic areas after transforming to lon/lat, on a lon/lat raster they are ellipsoidal
# areas. That is not exactly the planar fraction of the issue's definition ("area of pixel ∩ polygon / pixel
# area in the raster's CRS"), so each case holds two references:
#   - `cells` (terra as a user runs it, with the CRS):
#       projected (L7_ETMs, 28.5 m cells, ~210 km from the UTM central meridian): the map scale factor varies by
#       ~1.5e-7 across a cell, so these are the planar fractions to ~1e-8 → cells, Σ fraction and mean to 1e-6;
#       lon/lat (elev, 30" cells near 50° N): cos φ varies by tan φ · Δφ ≈ 1.7e-4 across a cell, so a partial
#       cell's ellipsoidal fraction differs from its planar fraction by up to ≈ tan φ · Δφ / 8 ≈ 2.2e-5, plus up
#       to ~2e-5 because terra measures every piece's edges as geodesics, not as straight lines in degrees →
#       cells to 5e-5; Σ fraction and the weighted mean to 1e-5 (relative), as the issue says.
#   - `cells_planar` (the CRS removed from raster and polygon: terra then measures plain planar areas in CRS
#       units, which IS the issue's definition):
#       lon/lat: the 1e-6 per-cell reference (degree coordinates are small, GEOS areas are exact to ~1e-12);
#       projected: GEOS computes the planar areas from absolute UTM coordinates (x · y ≈ 2.6e12 m², one ulp ≈
#       5e-4 m², i.e. 6e-7 of an 812 m² cell), so these are noisier than the geodesic ones: 2e-6 per cell, 5e-6 Σ.
#
# Weighted mean = Σ value × fraction / Σ fraction over cells whose value is not nodata (terra gives NA there);
# sum_fraction = Σ fraction over all cells; sum_fraction_valid over the non-nodata cells; count_cells = cells
# with fraction > 0.

suppressPackageStartupMessages(library(terra))

args <- commandArgs(trailingOnly = FALSE)
script <- sub("^--file=", "", args[grep("^--file=", args)])
ROOT <- normalizePath(file.path(dirname(script), "..", ".."))
OUT <- file.path(ROOT, "fixtures", "cases-fractional")
ORACLE <- sprintf("terra %s exact=TRUE (GEOS %s, GDAL %s)", as.character(packageVersion("terra")),
                  terra::gdal(lib = "geos"), terra::gdal())

# ------------------------------------------------------------------------------------------- geometry helpers

ring_close <- function(m) rbind(m, m[1, , drop = FALSE])

# circle polygon with n vertices (CCW), as a closed ring matrix
circle_ring <- function(cx, cy, r, n, rx = r, ry = r) {
  a <- 2 * pi * (0:(n - 1)) / n
  ring_close(cbind(cx + rx * cos(a), cy + ry * sin(a)))
}

rect_ring <- function(x0, y0, x1, y1) ring_close(rbind(c(x0, y0), c(x1, y0), c(x1, y1), c(x0, y1)))

# a polygon = list of closed ring matrices (exterior first); a geometry = list of polygons
# shortest of 15, 16 or 17 significant digits that reads back as the same double
fmt1 <- function(x) {
  if (is.na(x)) return("null")
  for (d in 15:17) {
    s <- sprintf(paste0("%.", d, "g"), x)
    if (as.numeric(s) == x) return(s)
  }
  s
}
fmt <- function(x) vapply(x, fmt1, "")

ring_wkt <- function(m) paste0("(", paste(fmt(m[, 1]), fmt(m[, 2]), collapse = ", "), ")")
poly_wkt <- function(p) paste0("(", paste(vapply(p, ring_wkt, ""), collapse = ", "), ")")
geom_wkt <- function(g) {
  if (length(g) == 1) paste0("POLYGON ", poly_wkt(g[[1]]))
  else paste0("MULTIPOLYGON (", paste(vapply(g, poly_wkt, ""), collapse = ", "), ")")
}

ring_json <- function(m) paste0("[", paste0("[", fmt(m[, 1]), ", ", fmt(m[, 2]), "]", collapse = ", "), "]")
poly_json <- function(p) paste0("[", paste(vapply(p, ring_json, ""), collapse = ", "), "]")
geom_json <- function(g) paste0("[", paste(vapply(g, poly_json, ""), collapse = ",\n    "), "]")

json_str <- function(s) paste0("\"", gsub("\"", "\\\\\"", s), "\"")

# ------------------------------------------------------------------------------------------- the cases
# Polygons are given in the raster's CRS. L7_ETMs: EPSG:31985, x 288776.25 … 298722.75, y 9110728.75 …
# 9120760.75, 28.5 m cells. elev: EPSG:4326, lon 5.7417 … 6.5333, lat 49.4417 … 50.1917, 1/120° cells.

L7 <- "raster/L7_ETMs.cog.tif"
ELEV <- "raster/elev.cog.tif"
# a pixel corner of L7 (col 175, row 176) — exactly as the grid puts it
l7_corner <- function(col, row) c(288776.25000080315 + col * 28.49999999927454, 9120760.750028737 - row * 28.49999999927454)

cases <- list(
  list(name = "l7_pentagon", file = L7, band = 1,
       what = "irregular pentagon in the middle of the scene (~1.5 km), a few thousand cells",
       geometry = list(list(ring_close(rbind(c(293100.3, 9115302.7), c(294210.9, 9115057.4), c(294584.2, 9116047.6),
                                             c(293848.5, 9116724.1), c(292946.8, 9116140.9)))))),
  list(name = "l7_triangle_small", file = L7, band = 4,
       what = "triangle with ~40 m sides: a handful of partial cells",
       geometry = list(list(ring_close(rbind(c(293001.7, 9115003.1), c(293043.9, 9114996.2), c(293019.4, 9115041.8)))))),
  list(name = "l7_subpixel_corner", file = L7, band = 1,
       what = "a 10 m × 8 m quadrilateral smaller than a pixel, straddling a pixel corner: four small pieces",
       geometry = local({
         k <- l7_corner(175, 176)
         list(list(ring_close(rbind(k + c(-4.1, -3.3), k + c(5.9, -2.8), k + c(6.2, 4.7), k + c(-3.7, 4.9)))))
       })),
  list(name = "l7_subpixel_inside", file = L7, band = 4,
       what = "a triangle inside one pixel: one cell, fraction = its area / 812.25 m²",
       geometry = local({
         k <- l7_corner(100, 200)
         list(list(ring_close(rbind(k + c(3.3, -5.1), k + c(21.7, -9.4), k + c(11.2, -24.6)))))
       })),
  list(name = "l7_hole", file = L7, band = 4,
       what = "rectangle with a diamond hole (hole edges cross cells diagonally)",
       geometry = list(list(rect_ring(290012.4, 9112015.9, 291000.6, 9112900.3),
                            ring_close(rbind(c(290500.5, 9112200.2), c(290800.7, 9112450.1), c(290500.5, 9112700.4),
                                             c(290200.3, 9112450.1)))))),
  list(name = "l7_multipolygon", file = L7, band = 1,
       what = "two parts: a quadrilateral and a triangle 3 km apart",
       geometry = list(list(ring_close(rbind(c(289500.2, 9118500.7), c(290100.6, 9118420.3), c(290230.1, 9119010.9),
                                             c(289610.4, 9119100.2)))),
                       list(ring_close(rbind(c(293400.8, 9118700.1), c(293900.3, 9118800.6), c(293550.9, 9119300.4)))))),
  list(name = "l7_circle_300m", file = L7, band = 4,
       what = "300 m circle as a 256-gon (the issue's example geometry, here over 28.5 m pixels)",
       geometry = list(list(circle_ring(296013.37, 9113987.61, 300, 256)))),
  list(name = "l7_overhang_east", file = L7, band = 1,
       what = "polygon crossing the raster's east edge: only cells inside the raster count",
       geometry = list(list(ring_close(rbind(c(298100.4, 9116000.3), c(299400.2, 9116200.8), c(299300.6, 9117100.1),
                                             c(298300.9, 9116950.7)))))),
  list(name = "l7_sliver", file = L7, band = 4,
       what = "a 0.5 m wide sliver 2 km long at an angle: every cell it crosses gets a tiny fraction",
       geometry = list(list(ring_close(rbind(c(290500.1, 9111500.3), c(292300.7, 9112400.9), c(292300.7, 9112401.4),
                                             c(290500.1, 9111500.8)))))),
  list(name = "l7_grid_aligned", file = L7, band = 1,
       what = "vertices on pixel corners: edges along grid lines and diagonals through corners (ties)",
       geometry = list(list(ring_close(rbind(l7_corner(60, 60), l7_corner(70, 60), l7_corner(76, 66), l7_corner(76, 72),
                                             l7_corner(64, 72), l7_corner(60, 68)))))),
  list(name = "elev_polygon_nodata", file = ELEV, band = 1,
       what = "quadrilateral over the edge of the data (part nodata); nodata excluded from the mean",
       geometry = list(list(ring_close(rbind(c(5.8012, 49.6034), c(6.0433, 49.5371), c(6.0999, 49.7967), c(5.9401, 49.8302)))))),
  list(name = "elev_inside", file = ELEV, band = 1,
       what = "pentagon inside the data area",
       geometry = list(list(ring_close(rbind(c(6.0012, 49.9034), c(6.0833, 49.8871), c(6.0999, 49.9567), c(6.0401, 49.9702),
                                             c(5.9890, 49.9420)))))),
  list(name = "elev_hole", file = ELEV, band = 1,
       what = "rectangle with a triangular hole",
       geometry = list(list(rect_ring(5.9021, 49.7013, 6.0589, 49.8127),
                            ring_close(rbind(c(5.9512, 49.7301), c(6.0203, 49.7399), c(5.9788, 49.7898)))))),
  list(name = "elev_subpixel", file = ELEV, band = 1,
       what = "a 0.004° × 0.003° box smaller than a pixel, across a pixel corner",
       geometry = local({
         x <- 5.741666666666666 + 40 * 0.008333333333333337
         y <- 50.19166666666666 - 30 * 0.008333333333333333
         list(list(rect_ring(x - 0.0013, y - 0.0011, x + 0.0027, y + 0.0019)))
       })),
  list(name = "elev_ellipse", file = ELEV, band = 1,
       what = "ellipse (0.05° × 0.03°) as a 128-gon",
       geometry = list(list(circle_ring(6.1513, 49.6208, 0, 128, rx = 0.05, ry = 0.03))))
)

# ------------------------------------------------------------------------------------------- oracle

summarise <- function(x, band_name) {
  v <- x[[band_name]]
  f <- x$fraction
  ok <- !is.na(v)
  list(weighted_mean = if (any(ok)) sum(v[ok] * f[ok]) / sum(f[ok]) else NA,
       sum_fraction = sum(f), sum_fraction_valid = sum(f[ok]),
       count_cells = sum(f > 0), count_valid = sum(f[ok] > 0))
}

summary_json <- function(s) {
  paste0("{\"weighted_mean\": ", fmt(s$weighted_mean), ", \"sum_fraction\": ", fmt(s$sum_fraction),
         ", \"sum_fraction_valid\": ", fmt(s$sum_fraction_valid), ", \"count_cells\": ", s$count_cells,
         ", \"count_valid\": ", s$count_valid, "}")
}

cells_json <- function(x) {
  o <- order(x$cell)
  paste0("[", paste0("[", x$cell[o], ", ", fmt(x$fraction[o]), "]", collapse = ",\n    "), "]")
}

run_case <- function(cs) {
  r <- rast(file.path(ROOT, "fixtures", cs$file))[[cs$band]]
  band_name <- names(r)
  wkt <- geom_wkt(cs$geometry)
  v <- vect(wkt, crs = crs(r))
  x <- extract(r, v, exact = TRUE, cells = TRUE)
  x <- x[!is.na(x$cell), ]
  # planar: the same geometry and grid without a CRS, so terra measures plain planar areas in CRS units
  rp <- r
  crs(rp) <- ""
  vp <- vect(wkt)
  xp <- suppressWarnings(extract(rp, vp, exact = TRUE, cells = TRUE))
  xp <- xp[!is.na(xp$cell), ]

  e <- as.vector(ext(r))
  lonlat <- is.lonlat(r)
  tol <- if (lonlat) {
    list(sum = 1e-5, mean = 1e-5, cell = 5e-5, planar_cell = 1e-6, planar_sum = 1e-6)
  } else {
    list(sum = 1e-6, mean = 1e-6, cell = 1e-6, planar_cell = 2e-6, planar_sum = 5e-6)
  }
  reason <- if (lonlat) {
    paste("lon/lat raster: terra measures areas on the WGS84 ellipsoid, so its fraction of a partial 30\" cell near",
          "50° N differs from the planar fraction (the issue's definition) by up to ~tan(lat)·Δlat/8 ≈ 2.2e-5, plus up",
          "to ~2e-5 from measuring piece edges as geodesics: cells to 5e-5, Σ fraction and the weighted mean to 1e-5",
          "(relative); terra without a CRS (planar areas in degrees) is the 1e-6 per-cell reference")
  } else {
    paste("projected raster: terra measures geodesic areas after transforming to lon/lat; the UTM scale factor varies",
          "by ~1.5e-7 across a 28.5 m cell, so its fractions are the planar ones to ~1e-8: cells, Σ fraction and mean",
          "to 1e-6; terra without a CRS computes planar areas from absolute UTM coordinates (one ulp of x·y ≈ 6e-7",
          "of a cell), so that list is compared to 2e-6 per cell and 5e-6 for Σ")
  }
  out <- paste0(
    "{\n",
    "  \"name\": ", json_str(cs$name), ",\n",
    "  \"what\": ", json_str(cs$what), ",\n",
    "  \"file\": ", json_str(cs$file), ",\n",
    "  \"band\": ", cs$band, ",\n",
    "  \"crs\": ", json_str(if (lonlat) "EPSG:4326 (lon/lat)" else paste0("EPSG:", crs(r, describe = TRUE)$code)), ",\n",
    "  \"lonlat\": ", if (lonlat) "true" else "false", ",\n",
    "  \"grid\": {\"x0\": ", fmt(e[["xmin"]]), ", \"y0\": ", fmt(e[["ymax"]]),
    ", \"dx\": ", fmt((e[["xmax"]] - e[["xmin"]]) / ncol(r)), ", \"dy\": ", fmt(-(e[["ymax"]] - e[["ymin"]]) / nrow(r)),
    ", \"width\": ", ncol(r), ", \"height\": ", nrow(r), "},\n",
    "  \"polygon_wkt\": ", json_str(wkt), ",\n",
    "  \"polygon\": ", geom_json(cs$geometry), ",\n",
    "  \"oracle\": ", json_str(ORACLE), ",\n",
    "  \"command\": \"bash tools/oracle/fractional_oracle.sh ", cs$name, "\",\n",
    "  \"tolerance\": {\"sum_fraction\": ", fmt(tol$sum), ", \"weighted_mean\": ", fmt(tol$mean),
    ", \"cell\": ", fmt(tol$cell), ", \"planar_cell\": ", fmt(tol$planar_cell), ", \"planar_sum_fraction\": ", fmt(tol$planar_sum), "},\n",
    "  \"reason\": ", json_str(reason), ",\n",
    "  \"expected\": ", summary_json(summarise(x, band_name)), ",\n",
    "  \"expected_planar\": ", summary_json(summarise(xp, band_name)), ",\n",
    "  \"cells\": ", cells_json(x), ",\n",
    "  \"cells_planar\": ", cells_json(xp), "\n",
    "}\n")
  dir.create(OUT, showWarnings = FALSE, recursive = TRUE)
  writeLines(out, file.path(OUT, paste0(cs$name, ".json")), sep = "")
  cat(sprintf("%-22s cells %4d  Σf %.10f  planar Σf %.10f  mean %.6f\n", cs$name, nrow(x), sum(x$fraction),
              sum(xp$fraction), summarise(x, band_name)$weighted_mean))
}

wanted <- commandArgs(trailingOnly = TRUE)
for (cs in cases) {
  if (length(wanted) == 0 || cs$name %in% wanted) run_case(cs)
}
