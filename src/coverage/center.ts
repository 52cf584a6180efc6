/**
 * The pixel-centre rule (contract §5 "Raster rules"; GDAL / rasterstats): a cell is selected, weight 1, when
 * its centre lies inside the (multi)polygon. Pure.
 *
 * Edge rule, the one GDAL's rasterizer (`GDALdllImageFilledPolygon`) uses, written so that two polygons sharing
 * an edge never both take a cell and never both miss it:
 * - a ring edge from (x0, y0) to (x1, y1) with y0 < y1 (endpoints ordered by y; horizontal edges are skipped)
 *   crosses the centre line y = row + 0.5 when y0 ≤ y < y1 (half-open, so a vertex on the line is
 *   counted once by a ring passing through it and 0 or 2 times at a local extremum);
 * - the crossing's x is (y − y0)·(x1 − x0)/(y1 − y0) + x0, computed from the y-ordered endpoints, so both
 *   polygons sharing an edge get the same bit-identical x;
 * - with the crossings of one polygon sorted, x_0 ≤ x_1 ≤ …, cell `col` is inside when x_2k < col + 0.5 ≤ x_2k+1
 *   (even-odd fill: holes are excluded, a centre on a vertical-ish edge belongs to the polygon on its left).
 *   In other words: on a shared edge, the centre goes to the polygon on its left (smaller x) and, on a shared
 *   horizontal edge, to the polygon below it (larger row).
 * - The parts of a multipolygon are filled one by one and their union taken (overlapping parts are not
 *   cancelled by even-odd, unlike GDAL, which only matters for invalid input).
 * - Not copied from GDAL: its extra burn of centres lying exactly on a horizontal edge traversed right-to-left,
 *   which depends on ring orientation and can give a shared cell to both polygons.
 */
import { ZonalError } from '../errors.ts';
import type { PixelWindow } from '../geometry/grid.ts';
import type { Coverage, PixelGeometry } from './coverage.ts';
import type { PolygonCoords } from '../geometry/types.ts';

/** Smallest integer k with k + 0.5 ≥ t (the first row whose centre line is at or below t). */
function firstCentreAtOrAfter(t: number): number {
  let k = Math.ceil(t - 0.5);
  if (k + 0.5 < t) k++;
  else if (k - 0.5 >= t) k--;
  return k;
}

/** Smallest integer k with k + 0.5 > t (the first column whose centre is strictly right of t). */
function firstCentreAfter(t: number): number {
  let k = Math.floor(t + 0.5);
  if (k + 0.5 <= t) k++;
  else if (k - 0.5 > t) k--;
  return k;
}

/** Growable scratch space shared by the polygons of one call. */
interface Scratch {
  x0: Float64Array;
  y0: Float64Array;
  x1: Float64Array;
  y1: Float64Array;
  rowStart: Int32Array;
  rowEnd: Int32Array;
  order: Int32Array;
  active: Int32Array;
  xs: Float64Array;
}

function scratchFor(s: Scratch | null, edges: number): Scratch {
  if (s !== null && s.x0.length >= edges) return s;
  return {
    x0: new Float64Array(edges),
    y0: new Float64Array(edges),
    x1: new Float64Array(edges),
    y1: new Float64Array(edges),
    rowStart: new Int32Array(edges),
    rowEnd: new Int32Array(edges),
    order: new Int32Array(edges),
    active: new Int32Array(edges),
    xs: new Float64Array(edges),
  };
}

function sortCrossings(xs: Float64Array, k: number): void {
  if (k > 24) {
    xs.subarray(0, k).sort();
    return;
  }
  for (let i = 1; i < k; i++) {
    const v = xs[i] as number;
    let j = i - 1;
    while (j >= 0 && (xs[j] as number) > v) {
      xs[j + 1] = xs[j] as number;
      j--;
    }
    xs[j + 1] = v;
  }
}

/** Edge table of one polygon clipped to the window's rows; returns the number of edges kept. */
function buildEdges(polygon: PolygonCoords, rowLo: number, rowHi: number, s: Scratch): number {
  let n = 0;
  for (const ring of polygon) {
    const len = ring.length;
    if (len < 2) continue;
    const first = ring[0] as [number, number];
    const last = ring[len - 1] as [number, number];
    // Closed rings repeat the first position; an open ring is closed implicitly.
    const edgeCount = first[0] === last[0] && first[1] === last[1] ? len - 1 : len;
    for (let i = 0; i < edgeCount; i++) {
      const p = ring[i] as [number, number];
      const q = ring[i + 1 === len ? 0 : i + 1] as [number, number];
      let ax = p[0];
      let ay = p[1];
      let bx = q[0];
      let by = q[1];
      if (!(Number.isFinite(ax) && Number.isFinite(ay) && Number.isFinite(bx) && Number.isFinite(by))) {
        throw new ZonalError('invalid_geometry', 'The AOI could not be placed on the raster grid (a coordinate is not finite).');
      }
      if (ay === by) continue;
      if (ay > by) {
        [ax, bx] = [bx, ax];
        [ay, by] = [by, ay];
      }
      const r0 = Math.max(firstCentreAtOrAfter(ay), rowLo);
      const r1 = Math.min(firstCentreAtOrAfter(by), rowHi);
      if (r0 >= r1) continue;
      s.x0[n] = ax;
      s.y0[n] = ay;
      s.x1[n] = bx;
      s.y1[n] = by;
      s.rowStart[n] = r0;
      s.rowEnd[n] = r1;
      n++;
    }
  }
  return n;
}

/**
 * The scanline of one polygon over `window`: `span(row, c0, c1)` for each run of cells [c0, c1) of a row whose
 * centres are inside; a `span` that returns true stops the scan (and scan returns true).
 */
function scan(polygon: PolygonCoords, window: PixelWindow, scratch: Scratch, span: (row: number, c0: number, c1: number) => boolean): boolean {
  const { col0, row0, height } = window;
  const rowHi = row0 + height;
  const colHi = col0 + window.width;
  const n = buildEdges(polygon, row0, rowHi, scratch);
  if (n < 2) return false;
  const { x0, y0, x1, y1, rowStart, rowEnd, order, active, xs } = scratch;

  // Bucket the edges by first row (counting sort), so each row touches only its active edges.
  let minRow = rowHi;
  let maxRow = row0;
  for (let e = 0; e < n; e++) {
    if ((rowStart[e] as number) < minRow) minRow = rowStart[e] as number;
    if ((rowEnd[e] as number) > maxRow) maxRow = rowEnd[e] as number;
  }
  const rows = maxRow - minRow;
  const bucket = new Int32Array(rows + 1);
  for (let e = 0; e < n; e++) bucket[(rowStart[e] as number) - minRow + 1]!++;
  for (let r = 0; r < rows; r++) bucket[r + 1]! += bucket[r] as number;
  const next = bucket.slice(0, rows);
  for (let e = 0; e < n; e++) order[next[(rowStart[e] as number) - minRow]!++] = e;

  let nActive = 0;
  let cursor = 0;
  for (let row = minRow; row < maxRow; row++) {
    // Drop finished edges, then add the edges starting on this row.
    let keep = 0;
    for (let a = 0; a < nActive; a++) {
      const e = active[a] as number;
      if ((rowEnd[e] as number) > row) active[keep++] = e;
    }
    nActive = keep;
    const end = bucket[row - minRow + 1] as number;
    while (cursor < end) active[nActive++] = order[cursor++] as number;
    if (nActive < 2) continue;

    const y = row + 0.5;
    for (let a = 0; a < nActive; a++) {
      const e = active[a] as number;
      const ey0 = y0[e] as number;
      const ex0 = x0[e] as number;
      xs[a] = ((y - ey0) * ((x1[e] as number) - ex0)) / ((y1[e] as number) - ey0) + ex0;
    }
    sortCrossings(xs, nActive);
    for (let a = 0; a + 1 < nActive; a += 2) {
      const c0 = Math.max(firstCentreAfter(xs[a] as number), col0);
      const c1 = Math.min(firstCentreAfter(xs[a + 1] as number), colHi);
      if (c0 < c1 && span(row, c0, c1)) return true;
    }
  }
  return false;
}

function fillPolygon(polygon: PolygonCoords, window: PixelWindow, weights: Float64Array, scratch: Scratch): void {
  const { col0, row0, width } = window;
  scan(polygon, window, scratch, (row, c0, c1) => {
    const base = (row - row0) * width - col0;
    weights.fill(1, base + c0, base + c1);
    return false;
  });
}

/**
 * Cells of `window` whose centre lies inside `geometry` (weight 1), others 0; see the module comment for the
 * exact rule on edges. `geometry` is in pixel coordinates of the full grid (x = column, y = row) and may extend
 * past the window on any side; only the window's cells are computed. Cost: O(E log E + rows × crossings + cells).
 *
 * @throws ZonalError `invalid_geometry` when a coordinate is NaN or infinite
 */
export function centerCoverage(geometry: PixelGeometry, window: PixelWindow): Coverage {
  const cells = Math.max(0, window.width) * Math.max(0, window.height);
  const weights = new Float64Array(cells);
  if (cells === 0) return { window, weights };
  let scratch: Scratch | null = null;
  for (const polygon of geometry) {
    let edges = 0;
    for (const ring of polygon) edges += ring.length;
    scratch = scratchFor(scratch, edges);
    fillPolygon(polygon, window, weights, scratch);
  }
  return { window, weights };
}

/**
 * Whether the centre of some cell of `window` lies inside `geometry` (the rule of centerCoverage), stopping
 * at the first: planning asks it of the blocks a zone's edge only clips (raster/plan.ts).
 */
export function anyCentreInside(geometry: PixelGeometry, window: PixelWindow): boolean {
  if (window.width <= 0 || window.height <= 0) return false;
  let scratch: Scratch | null = null;
  for (const polygon of geometry) {
    let edges = 0;
    for (const ring of polygon) edges += ring.length;
    scratch = scratchFor(scratch, edges);
    if (scan(polygon, window, scratch, () => true)) return true;
  }
  return false;
}

/** Number of selected cells (weight > 0) of a coverage. */
export function countSelected(coverage: Coverage): number {
  const w = coverage.weights;
  let n = 0;
  for (let i = 0; i < w.length; i++) if ((w[i] as number) > 0) n++;
  return n;
}
