/**
 * The bare-point rule (contract §5 "Raster rules"): the one cell that contains the point. Pure.
 */
import type { Coverage } from './coverage.ts';

/**
 * The cell (floor(x), floor(y)) as a 1×1 coverage of weight 1, or null when the point lies outside the raster,
 * i.e. outside [0, width) × [0, height). (x, y) are pixel coordinates of the full grid (x = column, y = row).
 * A point exactly on a cell boundary belongs to the cell to its right / below (floor rule), so a point on the
 * raster's right or bottom edge (x = width or y = height) is outside, and one on the left or top edge is inside.
 * NaN coordinates are outside.
 */
export function pointCoverage(x: number, y: number, grid: { readonly width: number; readonly height: number }): Coverage | null {
  if (!(x >= 0 && x < grid.width && y >= 0 && y < grid.height)) return null;
  // + 0 folds -0 (from x = -0) to 0.
  const col0 = Math.floor(x) + 0;
  const row0 = Math.floor(y) + 0;
  return { window: { col0, row0, width: 1, height: 1 }, weights: new Float64Array([1]) };
}
