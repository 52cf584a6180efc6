/**
 * A zone's accumulators on one window of a block (raster/fold.ts): the main one with the request's weighting,
 * and one per further channel (exactextract's arguments of an operation, its weights). Weights finer than the
 * values are laid as exactextract lays them: a weighted channel counts each nx × ny part of a value cell on
 * the weights' grid, at the part's own coverage (fractional polygons) or the cell's, with the part's weight.
 */
import type { Coverage } from '../coverage/coverage.ts';
import { fractionalCoverage } from '../coverage/fractional.ts';
import type { Grid, PixelWindow } from '../geometry/grid.ts';
import type { PixelGeometry } from '../coverage/coverage.ts';
import { createAccumulator, type StatsAccumulator } from '../stats/accumulator.ts';
import { channelWeighted, isDefaultWeighting } from '../stats/weighting.ts';
import { addCell, rowAreas } from './fold-weighting.ts';
import { zoneGeometry } from './fold-geometry.ts';
import { rowLookup, type RowLookup } from './fold-lookup.ts';
import type { DecodedBlock } from './decode.ts';
import type { FoldTask, FoldZone } from './fold-types.ts';

/** A zone's accumulators for one band or output: the main one, and one per further channel with its count of unweighed cells. */
export interface ChannelSet {
  acc: StatsAccumulator;
  more: StatsAccumulator[] | null;
  missing: number[];
}

/** The grid of the parts of a grid's cells, nx × ny to a cell (the finer weights' grid). */
function partsGrid(grid: Grid, nx: number, ny: number): Grid {
  return { ...grid, dx: grid.dx / nx, dy: grid.dy / ny, width: grid.width * nx, height: grid.height * ny };
}

/** The weights row by row under a window of the value level; finer weights on their own grid, the parts of its cells. */
export function weightsLookup(
  ws: NonNullable<FoldTask['weights']>,
  grid: Grid,
  win: PixelWindow,
  blockOf: (index: number) => Promise<DecodedBlock | null>,
): Promise<RowLookup> {
  const [nx, ny] = [ws.nx ?? 1, ws.ny ?? 1];
  const parts = { col0: win.col0 * nx, row0: win.row0 * ny, width: win.width * nx, height: win.height * ny };
  return rowLookup(ws, partsGrid(grid, nx, ny), parts, blockOf, ws);
}

/** Each thread's polygons scaled to the parts' pixels, per zone (the same zone meets many blocks). */
const scaled = new WeakMap<FoldZone, PixelGeometry>();

/** The coverage of each part of the window's cells (fractional polygons); null where a part takes its cell's. */
function partsCoverage(zone: FoldZone, cov: Coverage, nx: number, ny: number): Float64Array | null {
  const sel = zone.selection;
  if (sel.kind !== 'polygon' || sel.rule !== 'fractional') return null;
  let geometry = scaled.get(zone);
  if (!geometry)
    scaled.set(zone, (geometry = zoneGeometry(zone).map((poly) => poly.map((ring) => ring.map(([x, y]) => [x * nx, y * ny] as [number, number])))));
  const w = cov.window;
  return fractionalCoverage(geometry, { col0: w.col0 * nx, row0: w.row0 * ny, width: w.width * nx, height: w.height * ny }).weights;
}

export function channelsFor(task: FoldTask, zone: FoldZone, cov: Coverage, weightsRow: RowLookup | null) {
  const cw = cov.window;
  const main = task.weighting && !isDefaultWeighting(task.weighting) ? task.weighting : null;
  const extra = task.channels ?? [];
  const grid = task.area.grid;
  const width = task.format.levelWidth;
  const mainAreas = main ? rowAreas(main, grid, cw.row0, cw.height) : null;
  const weighs = extra.some((c) => c.weighting.byWeights) && weightsRow !== null;
  const nx = weighs ? (task.weights?.nx ?? 1) : 1;
  const ny = weighs ? (task.weights?.ny ?? 1) : 1;
  const parts = nx > 1 || ny > 1;
  // A weighted channel's areas are its parts' (the weights' cells) where the weights are finer.
  const extraAreas = extra.map((c) =>
    parts && c.weighting.byWeights
      ? rowAreas(c.weighting, partsGrid(grid, nx, ny), cw.row0 * ny, cw.height * ny)
      : rowAreas(c.weighting, grid, cw.row0, cw.height),
  );
  const pw = cw.width * nx;
  const partCov = parts ? partsCoverage(zone, cov, nx, ny) : null;
  // The weights under the window's current row (each row of its parts), looked up once per row.
  const wrows = weighs ? Array.from({ length: ny }, () => new Float64Array(pw)) : null;
  let filled = -1;
  const fill = (r: number): void => {
    for (let j = 0; j < ny; j++) (weightsRow as RowLookup)((cw.row0 + r) * ny + j, cw.col0 * nx, pw, wrows?.[j] as Float64Array);
    filled = r;
  };
  /** A weighted channel over the parts of cell (r, c): each part at its coverage (or the cell's `f`), area and weight. */
  const addParts = (acc: StatsAccumulator, k: number, f: number, value: number, r: number, c: number): boolean => {
    const weighting = (extra[k] as (typeof extra)[number]).weighting;
    const areas = extraAreas[k];
    let ok = true;
    for (let j = 0; j < ny; j++) {
      const pr = r * ny + j;
      const row = wrows?.[j] as Float64Array;
      for (let i = 0; i < nx; i++) {
        const pc = c * nx + i;
        const fp = partCov ? (partCov[pr * pw + pc] as number) : f;
        if (fp <= 0) continue;
        const cell = ((cw.row0 + r) * ny + j) * width * nx + (cw.col0 + c) * nx + i;
        ok = addCell(acc, weighting, fp, value, areas ? (areas[pr] as number) : 1, cell, row[pc] as number) && ok;
      }
    }
    return ok;
  };
  return {
    /** No weighting of its own and no further channel: a cell goes into the main accumulator alone. */
    plain: main === null && extra.length === 0,
    accumulators: (): ChannelSet => ({
      acc: createAccumulator({ names: task.names, weighted: main ? channelWeighted(main, zone.weighted) : zone.weighted, keepValues: task.keepValues }),
      more: extra.length === 0 ? null : extra.map((c) => createAccumulator({ names: c.names, weighted: channelWeighted(c.weighting, zone.weighted) })),
      missing: extra.map(() => 0),
    }),
    /** A cell of row `r` covered `f` (value NaN where nodata) into the main accumulator and every further channel. */
    add(set: ChannelSet, f: number, value: number, r: number, c: number): void {
      const cell = (cw.row0 + r) * width + cw.col0 + c;
      const { acc, more } = set;
      if (more !== null) {
        if (wrows !== null && r !== filled) fill(r);
        const wi = wrows !== null ? ((wrows[0] as Float64Array)[c] as number) : Number.NaN;
        for (let k = 0; k < more.length; k++) {
          const into = more[k] as StatsAccumulator;
          const weighting = (extra[k] as (typeof extra)[number]).weighting;
          const areas = extraAreas[k];
          const ok =
            parts && weighting.byWeights ? addParts(into, k, f, value, r, c) : addCell(into, weighting, f, value, areas ? (areas[r] as number) : 1, cell, wi);
          if (!ok) set.missing[k] = (set.missing[k] as number) + 1;
        }
      }
      if (main !== null) addCell(acc, main, f, value, mainAreas ? (mainAreas[r] as number) : 1, cell, Number.NaN);
      else if (value !== value) acc.addNodata(f);
      else acc.add(value, f, cell);
    },
  };
}
