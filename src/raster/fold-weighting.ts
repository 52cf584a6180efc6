/**
 * exactextract's weighting arguments in the fold (stats/weighting.ts): which of a zone's cells a channel
 * counts and with what weight cᵢ. Pure.
 */
import type { Grid } from '../geometry/grid.ts';
import type { StatsAccumulator } from '../stats/accumulator.ts';
import type { Weighting } from '../stats/weighting.ts';

/** exactextract's sphere (src/raster_area.h). */
const EARTH_RADIUS = 6378137;
const PI_180 = Math.PI / 180;

/**
 * The area factor of each row of a window (rows `row0` … of the level grid) under an area coverage weight,
 * as exactextract computes it: the cell's x and y steps multiplied (area_cartesian), or R²·π/180·|sin φ₁ −
 * sin φ₂|·Δλ from the cell's edges in degrees (area_spherical_*). Null when the weight is no area.
 */
export function rowAreas(w: Weighting, grid: Grid, row0: number, rows: number): Float64Array | null {
  if (w.coverage === 'fraction' || w.coverage === 'none') return null;
  const out = new Float64Array(rows);
  const dx = Math.abs(grid.dx);
  const dy = Math.abs(grid.dy);
  const ys = grid.yEdges;
  if (ys !== undefined) return rectilinearRowAreas(w, ys, dx, row0, out);
  if (w.coverage === 'area_cartesian') return out.fill(dx * dy);
  const factor = w.coverage === 'area_spherical_km2' ? 1e-6 : 1;
  for (let r = 0; r < rows; r++) {
    const y = grid.y0 + (row0 + r + 0.5) * grid.dy;
    out[r] = sphericalArea(y - 0.5 * dy, y + 0.5 * dy, dx, factor);
  }
  return out;
}

/** exactextract's cell area on the sphere between latitudes `a` and `b`, `dx` degrees wide, times `factor`. */
const sphericalArea = (a: number, b: number, dx: number, factor: number): number =>
  EARTH_RADIUS * EARTH_RADIUS * PI_180 * Math.abs(Math.sin(a * PI_180) - Math.sin(b * PI_180)) * dx * factor;

/** rowAreas on rows of unequal heights (a rectilinear grid's y edges; its x steps are equal: see cube.ts). */
function rectilinearRowAreas(w: Weighting, ys: Float64Array, dx: number, row0: number, out: Float64Array): Float64Array {
  const factor = w.coverage === 'area_spherical_km2' ? 1e-6 : 1;
  for (let r = 0; r < out.length; r++) {
    const a = ys[row0 + r] as number;
    const b = ys[row0 + r + 1] as number;
    out[r] = w.coverage === 'area_cartesian' ? dx * Math.abs(b - a) : sphericalArea(a, b, dx, factor);
  }
  return out;
}

/**
 * One covered cell (covered fraction `f` > 0; 1 where a centre or all-touched rule selects it) into a channel:
 * left out below min_coverage_frac; a nodata cell (`value` NaN) takes default_value or counts as nodata;
 * cᵢ = f, 1, or f × the cell's area (`area`), times the weighting raster's `weight` (NaN: none there) in a
 * weighted channel. `cell`: its id on the level's grid (row × width + column). False when a weighted channel
 * counts the cell without a weight (none, no default_weight, or a negative one): its answers are then undefined.
 */
export function addCell(acc: StatsAccumulator, w: Weighting, f: number, value: number, area: number, cell: number, weight: number): boolean {
  if (f < w.minFrac) return true;
  const c = w.coverage === 'fraction' ? f : w.coverage === 'none' ? 1 : f * area;
  let x = value;
  if (x !== x) {
    if (w.defaultValue === null) {
      acc.addNodata(c);
      return true;
    }
    x = w.defaultValue;
  }
  if (!w.byWeights) {
    acc.add(x, c, cell);
    return true;
  }
  const wi = weight === weight ? weight : (w.defaultWeight ?? Number.NaN);
  if (!(wi >= 0)) return false;
  // A weight of 0 still names its value (weighted_frac lists it at 0, as exactextract): the least weight a
  // double has, which no sum it joins can tell from 0.
  acc.add(x, wi === 0 || c * wi === 0 ? Number.MIN_VALUE : c * wi, cell, wi);
  return true;
}
