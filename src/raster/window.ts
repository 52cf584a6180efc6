/**
 * Pure planning, decided before any pixel is read: the AOI's pixel window, the resolution level for
 * approx_stats, and the tiles that the AOI touches (the only tiles fetched).
 */
import type { Grid, PixelWindow } from '../geometry/grid.ts';
import { isRectilinear, toPixel } from '../geometry/grid.ts';
import type { MultiPolygonCoords, Position } from '../geometry/types.ts';
import { centerCoverage } from '../coverage/center.ts';

/** Projected AOI polygons → pixel coordinates of `grid`. */
export function toPixelGeometry(grid: Grid, polygons: MultiPolygonCoords): MultiPolygonCoords {
  if (isRectilinear(grid)) return polygons.map((poly) => poly.map((ring) => rectilinearRing(grid, ring)));
  return polygons.map((poly) => poly.map((ring) => ring.map(([x, y]) => toPixel(grid, x, y))));
}

/**
 * A ring onto a rectilinear grid's pixels. The map is affine inside each cell only, so each edge gets a
 * vertex wherever it crosses a cell edge first: each piece then lies in one cell, maps to a straight piece,
 * and a cell's covered fraction in pixel units is its fraction in world units, exactly as on a regular grid.
 */
function rectilinearRing(grid: Grid, ring: readonly Position[]): Position[] {
  const out: Position[] = [];
  const cuts: [number, number, number][] = [];
  for (let i = 0; i < ring.length; i++) {
    const [ax, ay] = ring[i] as Position;
    const pa = toPixel(grid, ax, ay);
    out.push(pa);
    const next = ring[i + 1];
    if (next === undefined) break;
    const [bx, by] = next;
    const pb = toPixel(grid, bx, by);
    cuts.length = 0;
    // [t along the edge, which axis, the edge index] of every cell edge strictly between the ends.
    const cross = (edges: Float64Array | undefined, a: number, b: number, fa: number, fb: number, axis: number): void => {
      if (edges === undefined || a === b) return;
      const k0 = Math.max(0, Math.floor(Math.min(fa, fb)) + 1);
      const k1 = Math.min(edges.length - 1, Math.ceil(Math.max(fa, fb)) - 1);
      for (let k = k0; k <= k1; k++) {
        const t = ((edges[k] as number) - a) / (b - a);
        if (t > 0 && t < 1) cuts.push([t, axis, k]);
      }
    };
    cross(grid.xEdges, ax, bx, pa[0], pb[0], 0);
    cross(grid.yEdges, ay, by, pa[1], pb[1], 1);
    cuts.sort((p, q) => p[0] - q[0]);
    for (const [t, axis, k] of cuts) {
      const [cx, cy] = toPixel(grid, ax + t * (bx - ax), ay + t * (by - ay));
      // On the crossed edge the pixel coordinate is the edge's index, exactly.
      out.push(axis === 0 ? [k, cy] : [cx, k]);
    }
  }
  return out;
}

/** Whole-pixel window around pixel-space geometry, clipped to the grid; null when it misses the grid. */
export function windowOf(geometry: MultiPolygonCoords, grid: Pick<Grid, 'width' | 'height'>): PixelWindow | null {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const poly of geometry) {
    for (const [x, y] of poly[0] ?? []) {
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
      if (y < minY) minY = y;
      if (y > maxY) maxY = y;
    }
  }
  const col0 = Math.max(0, Math.floor(minX));
  const row0 = Math.max(0, Math.floor(minY));
  const col1 = Math.min(grid.width, Math.ceil(maxX));
  const row1 = Math.min(grid.height, Math.ceil(maxY));
  if (!(col1 > col0 && row1 > row0)) return null;
  return { col0, row0, width: col1 - col0, height: row1 - row0 };
}

export interface TileLayout {
  tileWidth: number;
  tileHeight: number;
  /** Tiles across and down the level. */
  across: number;
  down: number;
}

/**
 * Tiles that the AOI touches inside `window`: those an AOI edge passes through (`edge: true`) plus
 * those whose centre lies inside the AOI (then the whole tile is inside).
 */
export function tilesTouched(geometry: MultiPolygonCoords, window: PixelWindow, layout: TileLayout): { tx: number; ty: number; edge: boolean }[] {
  const tc0 = Math.floor(window.col0 / layout.tileWidth);
  const tr0 = Math.floor(window.row0 / layout.tileHeight);
  const tc1 = Math.min(layout.across, Math.ceil((window.col0 + window.width) / layout.tileWidth));
  const tr1 = Math.min(layout.down, Math.ceil((window.row0 + window.height) / layout.tileHeight));
  const w = tc1 - tc0;
  const h = tr1 - tr0;
  if (w <= 0 || h <= 0) return [];
  const marked = new Uint8Array(w * h);
  // 1: an AOI edge crosses the tile; 2: the tile's centre is inside the AOI.
  const mark = (tx: number, ty: number) => {
    const i = tx - tc0;
    const j = ty - tr0;
    if (i >= 0 && j >= 0 && i < w && j < h) marked[j * w + i] = 1;
  };
  const inTiles = geometry.map((poly) => poly.map((ring) => ring.map(([x, y]): Position => [x / layout.tileWidth, y / layout.tileHeight])));
  for (const poly of inTiles) {
    for (const ring of poly) {
      for (let k = 0; k + 1 < ring.length; k++) walkSegment(ring[k] as Position, ring[k + 1] as Position, mark);
    }
  }
  const inside = centerCoverage(inTiles, { col0: tc0, row0: tr0, width: w, height: h });
  for (let k = 0; k < inside.weights.length; k++) if ((inside.weights[k] as number) > 0) marked[k] = 2;
  const out: { tx: number; ty: number; edge: boolean }[] = [];
  for (let j = 0; j < h; j++) for (let i = 0; i < w; i++) if (marked[j * w + i]) out.push({ tx: tc0 + i, ty: tr0 + j, edge: marked[j * w + i] === 1 });
  return out;
}

/** Every unit cell a segment passes through (Amanatides & Woo traversal). */
function walkSegment(a: Position, b: Position, visit: (x: number, y: number) => void): void {
  let x = Math.floor(a[0]);
  let y = Math.floor(a[1]);
  const xEnd = Math.floor(b[0]);
  const yEnd = Math.floor(b[1]);
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  const stepX = dx > 0 ? 1 : dx < 0 ? -1 : 0;
  const stepY = dy > 0 ? 1 : dy < 0 ? -1 : 0;
  const tDeltaX = stepX !== 0 ? Math.abs(1 / dx) : Infinity;
  const tDeltaY = stepY !== 0 ? Math.abs(1 / dy) : Infinity;
  let tMaxX = stepX > 0 ? (x + 1 - a[0]) / dx : stepX < 0 ? (a[0] - x) / -dx : Infinity;
  let tMaxY = stepY > 0 ? (y + 1 - a[1]) / dy : stepY < 0 ? (a[1] - y) / -dy : Infinity;
  visit(x, y);
  // Bounded: a segment crosses at most |Δcol| + |Δrow| cell borders.
  let guard = Math.abs(xEnd - x) + Math.abs(yEnd - y) + 2;
  while ((x !== xEnd || y !== yEnd) && guard-- > 0) {
    if (tMaxX < tMaxY) {
      x += stepX;
      tMaxX += tDeltaX;
    } else {
      y += stepY;
      tMaxY += tDeltaY;
    }
    visit(x, y);
  }
}

/**
 * approx_stats (contract §5): the coarsest level at which the AOI still covers at least `minPixels`
 * pixels; full resolution when it covers fewer. `pixelsAt(level)` counts the AOI window at a level.
 */
export function chooseLevel(levelCount: number, pixelsAt: (level: number) => number, minPixels: number): number {
  for (let level = levelCount - 1; level > 0; level--) {
    if (pixelsAt(level) >= minPixels) return level;
  }
  return 0;
}
