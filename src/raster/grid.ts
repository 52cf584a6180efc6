/**
 * A raster's pixel grid (pure). North-up affine only: x = x0 + col·dx, y = y0 + row·dy with dy < 0 for
 * the usual top-left origin. Pixel (col,row) covers [col, col+1) × [row, row+1) in pixel units; its
 * centre is (col + 0.5, row + 0.5). No half-pixel shifts anywhere (PixelIsArea).
 */

export interface Grid {
  /** World x of the left edge of column 0. */
  readonly x0: number;
  /** World y of the top edge of row 0. */
  readonly y0: number;
  /** Pixel width in CRS units (> 0). */
  readonly dx: number;
  /** Pixel height in CRS units (< 0 for north-up). */
  readonly dy: number;
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
  return [(x - grid.x0) / grid.dx, (y - grid.y0) / grid.dy];
}

/** Fractional pixel coordinates → world. */
export function toWorld(grid: Grid, col: number, row: number): [number, number] {
  return [grid.x0 + col * grid.dx, grid.y0 + row * grid.dy];
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

/** The whole grid as a window. */
export function fullWindow(grid: Pick<Grid, 'width' | 'height'>): PixelWindow {
  return { col0: 0, row0: 0, width: grid.width, height: grid.height };
}
