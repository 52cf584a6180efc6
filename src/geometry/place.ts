/**
 * An AOI placed in a grid's CRS (pure): reprojected from WGS84 with edges densified to a hundredth of a
 * pixel, and on a lon/lat grid whose extent is any 360° window (0..360 like GFS or ERA5, −30..330, …) each
 * part placed at every whole-turn shift that meets the grid.
 */
import type { Aoi, MultiPolygonCoords, Position } from './types.ts';
import { pixelSize, toWorld, type Grid } from './grid.ts';
import { makeTransformer, transformPolygons } from './reproject.ts';

/** The AOI in a raster's CRS: a point, or polygons (already wrapped onto a lon/lat grid's extent). */
export type AoiInCrs = { point: [number, number] } | { polygons: MultiPolygonCoords };

/** The CRS facts placing needs. */
export interface CrsFacts {
  proj4: string;
  isGeographic: boolean;
}

const WGS84 = '+proj=longlat +datum=WGS84 +no_defs';

/** West and east edges (longitudes) of a geographic grid. */
function lonExtent(grid: Grid): [number, number] {
  const xs = [toWorld(grid, 0, 0)[0], toWorld(grid, grid.width, 0)[0], toWorld(grid, 0, grid.height)[0], toWorld(grid, grid.width, grid.height)[0]];
  return [Math.min(...xs), Math.max(...xs)];
}

/** Shifts by whole turns (−720 … 720) that bring longitudes [west, east] onto the grid's extent. */
function turnsOnto(west: number, east: number, grid: Grid): number[] {
  const [gw, ge] = lonExtent(grid);
  return [0, -360, 360, -720, 720].filter((s) => east + s > gw && west + s < ge);
}

/** Each part at every whole-turn shift that meets the grid (copies 360° apart never select the same pixel centre). */
function wrapPolygons(polygons: MultiPolygonCoords, grid: Grid): MultiPolygonCoords {
  const out: MultiPolygonCoords = [];
  for (const polygon of polygons) {
    let west = Infinity;
    let east = -Infinity;
    for (const [x] of polygon[0] ?? []) {
      if (x < west) west = x;
      if (x > east) east = x;
    }
    const shifts = turnsOnto(west, east, grid);
    if (shifts.length === 0) out.push(polygon);
    for (const s of shifts) out.push(s === 0 ? polygon : polygon.map((ring) => ring.map(([x, y]): Position => [x + s, y])));
  }
  return out;
}

/** The AOI in the CRS of `grid` (its full-resolution level). */
export function placeAoi(aoi: Aoi, crs: CrsFacts, grid: Grid): AoiInCrs {
  const toCrs = makeTransformer(WGS84, crs.proj4).forward;
  if (aoi.kind === 'point') {
    const p = toCrs([aoi.lon, aoi.lat]);
    if (!Number.isFinite(p[0]) || !Number.isFinite(p[1])) return { point: [Number.NaN, Number.NaN] };
    const shift = crs.isGeographic ? (turnsOnto(p[0], p[0], grid)[0] ?? 0) : 0;
    return { point: [p[0] + shift, p[1]] };
  }
  // Densify so that edges stay true to within 1/100 of a pixel in the raster's CRS.
  const { alongRow, alongColumn } = pixelSize(grid);
  const tolerance = Math.min(alongRow, alongColumn) / 100;
  const polygons = transformPolygons(aoi.polygons, toCrs, tolerance);
  return { polygons: crs.isGeographic ? wrapPolygons(polygons, grid) : polygons };
}
