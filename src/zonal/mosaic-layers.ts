/**
 * The other Items of a mosaic (zones × time, `mosaic: "day"`) as a raster answer holds them once opened,
 * and what a fold task reads of them: for each, the blocks under the task's pixels (raster/fold-mosaic.ts
 * takes the cell under each pixel's centre), reprojected pixel centres bounding them where its CRS differs.
 */
import { toPixel, toWorld, type Grid, type PixelWindow } from '../geometry/grid.ts';
import { makeTransformer } from '../geometry/reproject.ts';
import type { RasterLevel, RasterReader } from '../raster/reader.ts';
import { blocksOf, cellsUnder } from '../raster/plan.ts';
import type { FoldBand, FoldMosaic, MosaicLayer } from '../raster/fold-types.ts';

/** An Item's raster in a mosaic, opened. */
export interface OpenLayer {
  reader: RasterReader;
  level: RasterLevel;
  /** The bands read (1-based), those of the answered raster. */
  bands: number[];
  foldBands: FoldBand[];
  /** The proj4 definitions of the answered raster and of this one when they differ. */
  crs?: { from: string; to: string };
}

/** A raster answer's mosaic (RasterContext.mosaic): see FoldMosaic, with the rasters opened rather than read. */
export interface MosaicSources {
  rasters: (OpenLayer | null)[][];
  own: FoldBand[][];
  classes?: OpenLayer[];
}

/** Cells of `other` under the pixel centres of `win` through a reprojection: the centres' bounds, one cell of margin. */
function cellsReprojected(grid: Grid, win: PixelWindow, other: Grid, crs: { from: string; to: string }): PixelWindow | null {
  const forward = makeTransformer(crs.from, crs.to).forward;
  const centres = (all: boolean): [number, number][] => {
    const out: [number, number][] = [];
    for (let r = 0; r < win.height; r++)
      for (let c = 0; c < win.width; c++)
        if (all || r === 0 || c === 0 || r === win.height - 1 || c === win.width - 1) out.push(forward(toWorld(grid, win.col0 + c + 0.5, win.row0 + r + 0.5)));
    return out;
  };
  const finite = ([x, y]: [number, number]): boolean => Number.isFinite(x) && Number.isFinite(y);
  // A smooth map takes the window's inside within the bounds of its edge; an edge off the projection's domain: every centre.
  let cells = centres(false);
  if (!cells.every(finite)) cells = centres(true).filter(finite);
  if (cells.length === 0) return null;
  const px = cells.map(([x, y]) => toPixel(other, x, y));
  const c0 = Math.max(0, Math.floor(Math.min(...px.map((p) => p[0]))) - 1);
  const c1 = Math.min(other.width - 1, Math.floor(Math.max(...px.map((p) => p[0]))) + 1);
  const r0 = Math.max(0, Math.floor(Math.min(...px.map((p) => p[1]))) - 1);
  const r1 = Math.min(other.height - 1, Math.floor(Math.max(...px.map((p) => p[1]))) + 1);
  return c1 < c0 || r1 < r0 ? null : { col0: c0, row0: r0, width: c1 - c0 + 1, height: r1 - r0 + 1 };
}

/** The blocks of a layer under the needed windows of a task. */
function blocksFor(layer: OpenLayer, grid: Grid, needs: readonly PixelWindow[]): number[] {
  const out = new Set<number>();
  for (const need of needs) {
    const cells = layer.crs ? cellsReprojected(grid, need, layer.level.grid, layer.crs) : cellsUnder(grid, need, layer.level.grid);
    if (cells) for (const b of blocksOf(layer.level, cells)) out.add(b);
  }
  return [...out].sort((a, b) => a - b);
}

/** What a fold task on `grid` carries of a mosaic: each layer's blocks under its needed windows, read. */
export async function readMosaic(m: MosaicSources, grid: Grid, needs: readonly PixelWindow[], signal?: AbortSignal): Promise<FoldMosaic> {
  const read = async (l: OpenLayer): Promise<MosaicLayer> => {
    const { level } = l;
    const blocks = await l.reader.readBlocks(level, blocksFor(l, grid, needs), l.bands, signal);
    return {
      source: {
        format: l.reader.blockFormat(level, l.bands),
        grid: level.grid,
        blockWidth: level.blockWidth,
        blockHeight: level.blockHeight,
        across: Math.ceil(level.grid.width / level.blockWidth),
        blocks,
        nodata: null,
      },
      bands: l.foldBands,
      ...(l.crs ? { crs: l.crs } : {}),
    };
  };
  const [rasters, classes] = await Promise.all([
    Promise.all(m.rasters.map((layers) => Promise.all(layers.map((l) => (l === null ? null : read(l)))))),
    m.classes ? Promise.all(m.classes.map(read)) : undefined,
  ]);
  return { rasters, own: m.own, ...(classes ? { classes } : {}) };
}
