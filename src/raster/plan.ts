/**
 * Planning, pure: an AOI in the raster's CRS → the level to read, what it selects there (pixel-space
 * geometry or a point), its window, the pixel limits, and the blocks (tiles or strips) whose bytes the
 * answer needs. The use case never sees TIFF tile indexes or layouts; the reader takes these block
 * indexes as they are.
 */
import { ZonalError } from '../errors.ts';
import type { MultiPolygonCoords } from '../geometry/types.ts';
import type { AoiInCrs } from '../geometry/place.ts';
import type { PixelGeometry, PixelRule } from '../coverage/coverage.ts';
import { anyCentreInside } from '../coverage/center.ts';
import { intersectWindows, toPixel, toWorld, windowSize, type Grid, type PixelWindow } from '../geometry/grid.ts';
import { chooseLevel, tilesTouched, toPixelGeometry, windowOf, type TileLayout } from './window.ts';

/** What an AOI selects on a level. */
export type Selection =
  | { kind: 'polygon'; geometry: PixelGeometry; rule: PixelRule }
  | { kind: 'point'; col: number; row: number }
  /** The cells of a zones raster that hold `value` (zones given as a raster; raster/fold-zones.ts). */
  | { kind: 'zone'; value: number; rule: PixelRule };

/** A level as planning needs it: its grid and its block size. */
export interface PlanLevel {
  readonly index: number;
  readonly grid: Grid;
  readonly blockWidth: number;
  readonly blockHeight: number;
}

export interface ZonePlan {
  level: number;
  selection: Selection;
  /** The AOI's window on the level grid, clipped to it; null when the AOI misses the raster. */
  window: PixelWindow | null;
  /** Pixels of the windows of the AOI's parts (what the pixel limits count; the parts may lie far apart). */
  pixels: number;
  /** Blocks of the level the answer needs (row-major block index: row × blocks across + column). */
  blocks: number[];
}

export interface PlanLimits {
  approx: boolean;
  /** Full-resolution window pixels allowed without approx_stats. */
  maxPixels: number;
  /** Pixels allowed at the level approx_stats chooses. */
  maxApproxPixels: number;
  /** approx_stats reads the coarsest level that still gives this many AOI pixels (contract §5). */
  approxMinPixels: number;
}

export function layoutOf(level: PlanLevel): TileLayout {
  return {
    tileWidth: level.blockWidth,
    tileHeight: level.blockHeight,
    across: Math.ceil(level.grid.width / level.blockWidth),
    down: Math.ceil(level.grid.height / level.blockHeight),
  };
}

/** The pixel window of a block on its level, clipped to the level (edge tiles, the last strip). */
export function blockWindow(level: PlanLevel, block: number): PixelWindow {
  const layout = layoutOf(level);
  const col0 = (block % layout.across) * layout.tileWidth;
  const row0 = Math.floor(block / layout.across) * layout.tileHeight;
  return { col0, row0, width: Math.min(layout.tileWidth, level.grid.width - col0), height: Math.min(layout.tileHeight, level.grid.height - row0) };
}

interface Placed {
  selection: Selection;
  window: PixelWindow | null;
  geometry: MultiPolygonCoords | null;
  pixels: number;
}

function placeOn(level: PlanLevel, aoi: AoiInCrs, rule: PixelRule): Placed {
  const { grid } = level;
  if ('point' in aoi) {
    const [col, row] = toPixel(grid, aoi.point[0], aoi.point[1]);
    const c = Math.floor(col);
    const r = Math.floor(row);
    const inside = c >= 0 && r >= 0 && c < grid.width && r < grid.height;
    return {
      selection: { kind: 'point', col, row },
      window: inside ? { col0: c, row0: r, width: 1, height: 1 } : null,
      geometry: null,
      pixels: inside ? 1 : 0,
    };
  }
  const geometry = toPixelGeometry(grid, aoi.polygons);
  const window = windowOf(geometry, grid);
  const parts = geometry.reduce((n, part) => {
    const w = windowOf([part], grid);
    return n + (w ? windowSize(w) : 0);
  }, 0);
  return { selection: { kind: 'polygon', geometry, rule }, window, geometry, pixels: window ? Math.min(parts, windowSize(window)) : 0 };
}

/**
 * The blocks an AOI needs: those it touches; under the pixel-centre rule a block that an AOI edge only
 * clips is kept only if it holds a selected pixel centre (its bytes would buy nothing).
 */
function blocksNeeded(level: PlanLevel, placed: Placed): number[] {
  const { window, geometry, selection } = placed;
  if (window === null) return [];
  const layout = layoutOf(level);
  if (geometry === null) return [Math.floor(window.row0 / layout.tileHeight) * layout.across + Math.floor(window.col0 / layout.tileWidth)];
  const rule = selection.kind === 'polygon' ? selection.rule : 'center';
  return tilesTouched(geometry, window, layout)
    .filter(({ tx, ty, edge }) => {
      if (!edge || rule !== 'center') return true;
      const tileWin = intersectWindows(
        { col0: tx * layout.tileWidth, row0: ty * layout.tileHeight, width: layout.tileWidth, height: layout.tileHeight },
        window,
      );
      return tileWin !== null && anyCentreInside(geometry, tileWin);
    })
    .map(({ tx, ty }) => ty * layout.across + tx);
}

/**
 * The plan of one AOI over a raster's levels (0 = full resolution): the level (approx_stats picks the
 * coarsest that keeps `approxMinPixels`), and the blocks to read. Throws ZonalError('too_many_pixels')
 * past the limits. `isArea` is false for a bare point (which always reads level 0).
 */
export function planZone(levels: readonly PlanLevel[], aoi: AoiInCrs, rule: PixelRule, limits: PlanLimits): ZonePlan {
  const base = placeOn(levels[0] as PlanLevel, aoi, rule);
  let level = levels[0] as PlanLevel;
  let placed = base;
  if (limits.approx && base.window && 'polygons' in aoi) {
    const all = levels.map((l) => (l.index === 0 ? base : placeOn(l, aoi, rule)));
    const chosen = chooseLevel(all.length, (i) => all[i]?.pixels ?? 0, limits.approxMinPixels);
    level = levels[chosen] as PlanLevel;
    placed = all[chosen] as Placed;
    if (placed.pixels > limits.maxApproxPixels) {
      throw new ZonalError(
        'too_many_pixels',
        `Even at its coarsest overview the area of interest covers ${placed.pixels.toLocaleString('en')} pixels, above the hard limit of ${limits.maxApproxPixels.toLocaleString('en')}.`,
        { limit_pixels: limits.maxApproxPixels },
      );
    }
  } else if (!limits.approx && base.pixels > limits.maxPixels) {
    throw new ZonalError(
      'too_many_pixels',
      `The area of interest covers a window of ${base.pixels.toLocaleString('en')} pixels, above the limit of ${limits.maxPixels.toLocaleString('en')} (use approx_stats to read an overview).`,
      { limit_pixels: limits.maxPixels, window_pixels: base.pixels },
    );
  }
  return { level: level.index, selection: placed.selection, window: placed.window, pixels: placed.pixels, blocks: blocksNeeded(level, placed) };
}

/** The pixel of grid `other` that holds the centre of pixel (col, row) of `grid` (nearest neighbour, as GDAL). */
export function cellUnder(grid: Grid, other: Grid, col: number, row: number): [number, number] {
  const [x, y] = toWorld(grid, col + 0.5, row + 0.5);
  const [c, r] = toPixel(other, x, y);
  return [Math.floor(c), Math.floor(r)];
}

/**
 * The pixels of `other` (a level of a raster in the same CRS, north-up like `grid`) that hold the centres
 * of the pixels of `win` on `grid`, as a window clipped to `other`; null when none lies on it. With `sub`
 * (nx × ny parts to a pixel, `other` that much finer), the centres of every part.
 */
export function cellsUnder(grid: Grid, win: PixelWindow, other: Grid, sub = { nx: 1, ny: 1 }): PixelWindow | null {
  const at = (x: number, y: number): [number, number] => {
    const [c, r] = toPixel(other, ...toWorld(grid, x, y));
    return [Math.floor(c), Math.floor(r)];
  };
  const first = { x: 0.5 / sub.nx, y: 0.5 / sub.ny };
  const last = { x: 1 - first.x, y: 1 - first.y };
  const corners = [
    at(win.col0 + first.x, win.row0 + first.y),
    at(win.col0 + win.width - 1 + last.x, win.row0 + first.y),
    at(win.col0 + first.x, win.row0 + win.height - 1 + last.y),
    at(win.col0 + win.width - 1 + last.x, win.row0 + win.height - 1 + last.y),
  ];
  const c0 = Math.max(0, Math.min(...corners.map((p) => p[0])));
  const c1 = Math.min(other.width - 1, Math.max(...corners.map((p) => p[0])));
  const r0 = Math.max(0, Math.min(...corners.map((p) => p[1])));
  const r1 = Math.min(other.height - 1, Math.max(...corners.map((p) => p[1])));
  return c1 < c0 || r1 < r0 ? null : { col0: c0, row0: r0, width: c1 - c0 + 1, height: r1 - r0 + 1 };
}

/**
 * The blocks of `other` (a level of a raster in the same CRS, north-up like `grid`) that hold the centres of
 * the pixels of `win` on `grid` (of their nx × ny parts with `sub`): what a class, weights or zones raster of
 * another resolution must read for that window.
 */
export function blocksUnder(grid: Grid, win: PixelWindow, other: PlanLevel, sub?: { nx: number; ny: number }): number[] {
  const cells = cellsUnder(grid, win, other.grid, sub);
  if (cells === null) return [];
  return blocksOf(other, cells);
}

/** The blocks of a level that hold the cells of a window of it. */
export function blocksOf(level: PlanLevel, cells: PixelWindow): number[] {
  const across = Math.ceil(level.grid.width / level.blockWidth);
  const out: number[] = [];
  for (let by = Math.floor(cells.row0 / level.blockHeight); by <= Math.floor((cells.row0 + cells.height - 1) / level.blockHeight); by++) {
    for (let bx = Math.floor(cells.col0 / level.blockWidth); bx <= Math.floor((cells.col0 + cells.width - 1) / level.blockWidth); bx++)
      out.push(by * across + bx);
  }
  return out;
}
