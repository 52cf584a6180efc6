/**
 * The all-touched rule (contract §5 "Raster rules", `pixels: "all_touched"`; GDAL's ALL_TOUCHED): every cell
 * that the polygon's interior or boundary touches is selected with weight 1. Pure.
 *
 * The rule, exactly: cell (c, r) is selected when its CLOSED square [c, c+1] × [r, r+1] meets the closed
 * (multi)polygon, i.e. when
 * - a ring edge meets the closed square (crossing it, running along one of its sides, or touching one of its
 *   corners), or
 * - its centre is inside the polygon (centre rule of center.ts; a cell no edge meets is wholly inside or
 *   wholly outside, so its centre decides).
 * Ties are therefore symmetric and independent of ring orientation: an edge lying on the grid line x = c
 * selects the cells on both sides of it (columns c − 1 and c), an edge passing through the corner (c, r)
 * selects all four cells around the corner, and a pixel-aligned square [1, 3]² selects the 4 × 4 cells
 * columns 0–3 × rows 0–3. The tests of "touches" use a tolerance of TOUCH_TOLERANCE pixels (a cell whose
 * closed square is within 1e-9 px of an edge counts as touched), so float noise in the cut points cannot
 * decide a tie.
 *
 * GDAL 3.6's rasterizer (gdal.Rasterize, ALL_TOUCHED=TRUE) is not symmetric on these ties: for a pixel-aligned
 * square it burns only the 2 × 2 cells inside, for a rectangle with a side on a row line it burns the cells of
 * that line's end vertices but not those in between, and for the diamond (2,0) (4,2) (2,4) (0,2) it takes
 * (3, 3) but not its mirror (0, 3). Off ties (no vertex on a grid corner, no edge on a grid line) both rules
 * select the same cells; on ties ours is a superset of GDAL's.
 *
 * Relation to the other rules (tested): center ⊆ all_touched; {fractional > 0} ⊆ all_touched; and
 * all_touched \ {fractional > 0} is exactly the set of cells touched only on their boundary (the polygon meets
 * the closed square, within the tolerance, but covers at most FRACTION_SNAP of its area).
 */
import type { PixelWindow } from '../geometry/grid.ts';
import type { Position } from '../geometry/types.ts';
import type { Coverage, PixelGeometry } from './coverage.ts';
import { centerCoverage } from './center.ts';
import { ringEdgeCount } from './fractional.ts';

/** Distance (in pixels) within which a cell's closed square counts as touched by an edge. */
export const TOUCH_TOLERANCE = 1e-9;

/**
 * Marks (weight 1) every cell of the window whose closed square, grown by TOUCH_TOLERANCE, meets the segment
 * (x0, y0)–(x1, y1) (window-relative coordinates).
 */
function markSegment(weights: Float64Array, width: number, height: number, x0: number, y0: number, x1: number, y1: number): void {
  const e = TOUCH_TOLERANCE;
  // y-ordered end points, so both polygons sharing an edge compute the same x values
  let xa = x0;
  let ya = y0;
  let xb = x1;
  let yb = y1;
  if (ya > yb) {
    xa = x1;
    ya = y1;
    xb = x0;
    yb = y0;
  }
  // rows r with [r − e, r + 1 + e] ∩ [ya, yb] ≠ ∅
  const r0 = Math.max(0, Math.ceil(ya - e - 1));
  const r1 = Math.min(height - 1, Math.floor(yb + e));
  const horizontal = ya === yb;
  for (let r = r0; r <= r1; r++) {
    let lo: number;
    let hi: number;
    if (horizontal) {
      lo = Math.min(xa, xb);
      hi = Math.max(xa, xb);
    } else {
      // the part of the segment inside the grown row band
      const yl = Math.max(ya, r - e);
      const yh = Math.min(yb, r + 1 + e);
      const p = yl <= ya ? xa : ((yl - ya) * (xb - xa)) / (yb - ya) + xa;
      const q = yh >= yb ? xb : ((yh - ya) * (xb - xa)) / (yb - ya) + xa;
      lo = Math.min(p, q);
      hi = Math.max(p, q);
    }
    // columns c with [c − e, c + 1 + e] ∩ [lo, hi] ≠ ∅
    const c0 = Math.max(0, Math.ceil(lo - e - 1));
    const c1 = Math.min(width - 1, Math.floor(hi + e));
    if (c0 <= c1) weights.fill(1, r * width + c0, r * width + c1 + 1);
  }
}

/**
 * Cells of `window` that the (multi)polygon touches, weight 1, others 0 (see the module comment for the exact
 * rule). `geometry` is in pixel coordinates of the full grid (x = column, y = row) and may extend past the
 * window on any side. Cost: that of centerCoverage plus O(Σ cells touched by the edges).
 *
 * @throws ZonalError `invalid_geometry` when a coordinate is NaN or infinite
 */
export function allTouchedCoverage(geometry: PixelGeometry, window: PixelWindow): Coverage {
  const inside = centerCoverage(geometry, window); // validates the coordinates too
  const { weights } = inside;
  const width = Math.max(0, window.width);
  const height = Math.max(0, window.height);
  if (weights.length === 0) return { window, weights };
  const { col0, row0 } = window;
  for (const polygon of geometry) {
    for (const ring of polygon) {
      const n = ringEdgeCount(ring);
      const len = ring.length;
      if (n === 1) {
        // a ring of one distinct position: the point itself
        const p = ring[0] as Position;
        markSegment(weights, width, height, p[0] - col0, p[1] - row0, p[0] - col0, p[1] - row0);
        continue;
      }
      for (let i = 0; i < n; i++) {
        const p = ring[i] as Position;
        const q = ring[i + 1 === len ? 0 : i + 1] as Position;
        markSegment(weights, width, height, p[0] - col0, p[1] - row0, q[0] - col0, q[1] - row0);
      }
    }
  }
  return { window, weights };
}
