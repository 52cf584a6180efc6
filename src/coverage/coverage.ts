/**
 * Pixel selection (exactextract's seam): which cells of a grid an AOI selects and with what weight.
 * Coverage never sees pixel values; statistics never see geometry. Pure.
 *
 * Geometry is given in *pixel coordinates of the full grid* (x = column, y = row, fractional; see
 * geometry/grid.ts toPixel), so every rule works on a unit grid and is testable by hand on 3×3 grids.
 */
import type { PixelWindow } from '../geometry/grid.ts';
import type { MultiPolygonCoords } from '../geometry/types.ts';

export type PixelRule = 'center' | 'all_touched' | 'fractional';

/**
 * Weights of the cells of `window`, row-major (index = (row - window.row0) * window.width + (col - window.col0)).
 * 0 = not selected; (0, 1] = selected with that weight (1 for center / all_touched).
 */
export interface Coverage {
  readonly window: PixelWindow;
  readonly weights: Float64Array;
  /**
   * Sparse: the cells of `window` selected (row-major indexes, ascending), `weights[k]` that of `cells[k]`
   * (a zone of a zones raster among many in one window).
   */
  readonly cells?: Int32Array;
}

/** Geometry in pixel coordinates of the full grid. */
export type PixelGeometry = MultiPolygonCoords;
