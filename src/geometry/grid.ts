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
  return [grid.x0 + col * grid.dx + row * (grid.rx ?? 0), grid.y0 + col * (grid.ry ?? 0) + row * grid.dy];
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
