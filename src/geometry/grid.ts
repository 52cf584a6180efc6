/**
 * A raster's pixel grid (pure): GDAL's affine geotransform
 *   x = x0 + col·dx + row·rx,   y = y0 + col·ry + row·dy
 * (rx, ry are GDAL's gt[2] and gt[4]: zero for north-up and south-up grids, non-zero when rotated).
 * Pixel (col,row) covers [col, col+1) × [row, row+1) in pixel units; its centre is (col + 0.5, row + 0.5).
 * The origin is the corner of pixel (0,0) as GDAL reports it (PixelIsPoint files are shifted by half a
 * pixel when the header is read, as GDAL does).
 */

export interface Grid {
  /** World x of the corner of pixel (0,0). */
  readonly x0: number;
  /** World y of the corner of pixel (0,0). */
  readonly y0: number;
  /** x step per column (GDAL gt[1]). */
  readonly dx: number;
  /** y step per row (GDAL gt[5]; < 0 for north-up, > 0 for south-up). */
  readonly dy: number;
  /** x step per row (GDAL gt[2]); 0 unless rotated. */
  readonly rx?: number;
  /** y step per column (GDAL gt[4]); 0 unless rotated. */
  readonly ry?: number;
  readonly width: number;
  readonly height: number;
  /**
   * A rectilinear axis (a cube's axis whose `bounds` give cells of unequal size, as Gaussian latitudes):
   * its width + 1 (height + 1) edges, monotonic, edge 0 at x0 (y0) and the last at x0 + width·dx. Then
   * column (row) i spans edges i … i + 1 and maps onto pixel coordinates [i, i + 1] linearly: x0/dx (y0/dy)
   * are the mean cell, right for the extent only. Never with rotation terms.
   */
  readonly xEdges?: Float64Array;
  readonly yEdges?: Float64Array;
}

/** A rectangle of whole pixels: columns [col0, col0+width), rows [row0, row0+height). */
export interface PixelWindow {
  readonly col0: number;
  readonly row0: number;
  readonly width: number;
  readonly height: number;
}

/** World → fractional pixel coordinates (column, row) on the grid. */
export function toPixel(grid: Grid, x: number, y: number): [number, number] {
  if (grid.xEdges || grid.yEdges) {
    return [grid.xEdges ? edgeIndex(grid.xEdges, x) : (x - grid.x0) / grid.dx, grid.yEdges ? edgeIndex(grid.yEdges, y) : (y - grid.y0) / grid.dy];
  }
  const rx = grid.rx ?? 0;
  const ry = grid.ry ?? 0;
  if (rx === 0 && ry === 0) return [(x - grid.x0) / grid.dx, (y - grid.y0) / grid.dy];
  const det = grid.dx * grid.dy - rx * ry;
  const u = x - grid.x0;
  const v = y - grid.y0;
  return [(grid.dy * u - rx * v) / det, (grid.dx * v - ry * u) / det];
}

/** Fractional pixel coordinates → world. */
export function toWorld(grid: Grid, col: number, row: number): [number, number] {
  if (grid.xEdges || grid.yEdges) {
    return [grid.xEdges ? edgeValue(grid.xEdges, col) : grid.x0 + col * grid.dx, grid.yEdges ? edgeValue(grid.yEdges, row) : grid.y0 + row * grid.dy];
  }
  return [grid.x0 + col * grid.dx + row * (grid.rx ?? 0), grid.y0 + col * (grid.ry ?? 0) + row * grid.dy];
}

/** Whether an axis's cells differ in size (rectilinear: the grid's xEdges or yEdges). */
export function isRectilinear(grid: Grid): boolean {
  return grid.xEdges !== undefined || grid.yEdges !== undefined;
}

const edgeKeys = new WeakMap<Grid, string>();
/** A rectilinear grid's edges as text, for keys of caches by grid ('' on a regular grid; joined once per grid object). */
export function edgesKey(grid: Grid): string {
  if (!isRectilinear(grid)) return '';
  let key = edgeKeys.get(grid);
  if (key === undefined) edgeKeys.set(grid, (key = `${grid.xEdges?.join(',') ?? ''};${grid.yEdges?.join(',') ?? ''}`));
  return key;
}

/**
 * The fractional index of `v` on monotonic edges: i + (v − e[i]) / (e[i+1] − e[i]) in cell i; beyond the
 * ends, the end cell's scale continued (no cell is there, but pixel-space geometry stays straight).
 */
export function edgeIndex(edges: Float64Array, v: number): number {
  const n = edges.length - 1;
  const up = (edges[n] as number) > (edges[0] as number);
  let lo = 0;
  let hi = n - 1;
  // The last cell i whose first edge is at or before v (along the axis's direction).
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    const e = edges[mid] as number;
    if (up ? e <= v : e >= v) lo = mid;
    else hi = mid - 1;
  }
  const a = edges[lo] as number;
  const b = edges[lo + 1] as number;
  return lo + (v - a) / (b - a);
}

/** The world coordinate of fractional index `i` on monotonic edges (edgeIndex's inverse). */
export function edgeValue(edges: Float64Array, i: number): number {
  const n = edges.length - 1;
  if (Number.isInteger(i) && i >= 0 && i <= n) return edges[i] as number;
  const k = Math.min(n - 1, Math.max(0, Math.floor(i)));
  const a = edges[k] as number;
  return a + (i - k) * ((edges[k + 1] as number) - a);
}

/** Whether two grids are the same cells: geotransform, size and (rectilinear) edges. */
export function sameGrid(g: Grid, h: Grid): boolean {
  const edges = (e?: Float64Array, f?: Float64Array): boolean =>
    e === f || (e !== undefined && f !== undefined && e.length === f.length && e.every((v, i) => v === f[i]));
  return (
    g.x0 === h.x0 &&
    g.y0 === h.y0 &&
    g.dx === h.dx &&
    g.dy === h.dy &&
    (g.rx ?? 0) === (h.rx ?? 0) &&
    (g.ry ?? 0) === (h.ry ?? 0) &&
    g.width === h.width &&
    g.height === h.height &&
    edges(g.xEdges, h.xEdges) &&
    edges(g.yEdges, h.yEdges)
  );
}

/** Whether the grid has rotation terms. */
export function isRotated(grid: Grid): boolean {
  return (grid.rx ?? 0) !== 0 || (grid.ry ?? 0) !== 0;
}

/** Length in CRS units of a pixel's side along a row and along a column. */
export function pixelSize(grid: Grid): { alongRow: number; alongColumn: number } {
  return { alongRow: Math.hypot(grid.dx, grid.ry ?? 0), alongColumn: Math.hypot(grid.rx ?? 0, grid.dy) };
}

/** Pixel count of a window. */
export function windowSize(w: PixelWindow): number {
  return w.width * w.height;
}

/** Intersection of two windows, or null when they do not overlap. */
export function intersectWindows(a: PixelWindow, b: PixelWindow): PixelWindow | null {
  const c0 = Math.max(a.col0, b.col0);
  const r0 = Math.max(a.row0, b.row0);
  const c1 = Math.min(a.col0 + a.width, b.col0 + b.width);
  const r1 = Math.min(a.row0 + a.height, b.row0 + b.height);
  if (c1 <= c0 || r1 <= r0) return null;
  return { col0: c0, row0: r0, width: c1 - c0, height: r1 - r0 };
}

/** The smallest window holding both (`a` null: `b`). */
export function unionWindows(a: PixelWindow | null, b: PixelWindow): PixelWindow {
  if (a === null) return b;
  const c0 = Math.min(a.col0, b.col0);
  const r0 = Math.min(a.row0, b.row0);
  return { col0: c0, row0: r0, width: Math.max(a.col0 + a.width, b.col0 + b.width) - c0, height: Math.max(a.row0 + a.height, b.row0 + b.height) - r0 };
}
