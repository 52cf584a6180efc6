/**
 * Zones given as a raster (issue 24), in the fold: the zone of every part of a value cell, and a zone's
 * coverage of a window from it. A zones raster lies cell on cell over the value raster (zonal/raster-
 * aligned.ts): each value cell lies in one zone cell, or holds nx × ny of them when the zones are finer.
 * Also the scan that finds which zones there are and where (zoneScan), before any value is read.
 */
import { decodeBlock, spanOf, type BlockFormat, type DecodedBlock, type DecodeTimes, type EncodedBlock } from './decode.ts';
import { toPixel, toWorld, type Grid, type PixelWindow } from '../geometry/grid.ts';
import type { Coverage, PixelRule } from '../coverage/coverage.ts';
import type { ClassSource } from './fold-types.ts';

/** A zones raster as a fold task carries it: its blocks under the task's cells, and how many of its cells lie in a value cell. */
export interface ZoneSource extends ClassSource {
  nx: number;
  ny: number;
}

/** The zone value at a cell of the zones grid in a decoded block: NaN for nodata, a masked cell, or none. */
function zoneAt(b: DecodedBlock, mc: number, mr: number, nodata: number | null, fill: number): number {
  const r = mr - b.window.row0;
  const c = mc - b.window.col0;
  if (b.valid && b.valid[r * b.maskStride + c] === 0) return Number.NaN;
  const s = b.bands[0];
  const v = s?.values ? (s.values[r * s.rowStride + c * s.step + s.offset] as number) : fill;
  return v === nodata ? Number.NaN : v;
}

/**
 * Per sub-cell column (and row) of a window, the zones grid's column (row) under its centre: on north-up
 * grids a column's zone column does not depend on the row. `n` sub-cells per value cell.
 */
function subCellTable(grid: Grid, zgrid: Grid, start: number, count: number, n: number, axis: 0 | 1): Int32Array {
  const out = new Int32Array(count * n);
  for (let k = 0; k < count * n; k++) {
    const at = start + (k + 0.5) / n;
    const p = axis === 0 ? toPixel(zgrid, ...toWorld(grid, at, 0.5))[0] : toPixel(zgrid, ...toWorld(grid, 0.5, at))[1];
    out[k] = Math.floor(p);
  }
  return out;
}

/**
 * The zone value of every sub-cell of `win` (a window of the value level): (win.height·ny) rows of
 * (win.width·nx), NaN where no zone. The zone blocks come decoded from `blockOf` (null: not in the file).
 */
export async function zonePlane(zs: ZoneSource, grid: Grid, win: PixelWindow, blockOf: (index: number) => Promise<DecodedBlock | null>): Promise<Float64Array> {
  const cols = subCellTable(grid, zs.grid, win.col0, win.width, zs.nx, 0);
  const rows = subCellTable(grid, zs.grid, win.row0, win.height, zs.ny, 1);
  const width = cols.length;
  const plane = new Float64Array(width * rows.length).fill(Number.NaN);
  const blocks = new Map<number, DecodedBlock | null>();
  const fill = zs.format.fill;
  for (let r = 0; r < rows.length; r++) {
    const mr = rows[r] as number;
    if (mr < 0 || mr >= zs.grid.height) continue;
    for (let c = 0; c < width; c++) {
      const mc = cols[c] as number;
      if (mc < 0 || mc >= zs.grid.width) continue;
      const index = Math.floor(mr / zs.blockHeight) * zs.across + Math.floor(mc / zs.blockWidth);
      let b = blocks.get(index);
      if (b === undefined) blocks.set(index, (b = await blockOf(index)));
      if (b !== null) plane[r * width + c] = zoneAt(b, mc, mr, zs.nodata, fill);
    }
  }
  return plane;
}

/**
 * Zone `value`'s coverage of `win` (inside `pwin`, the window of `plane`): the share of each value cell's
 * sub-cells in the zone (fractional), 1 where the sub-cell at its centre is (center) or any is
 * (all_touched); 1 or 0 whatever the rule when a value cell lies in one zone cell. Null: none.
 */
export function zoneCoverage(
  plane: Float64Array,
  pwin: PixelWindow,
  zs: { nx: number; ny: number },
  value: number,
  win: PixelWindow,
  rule: PixelRule,
): Coverage | null {
  const { nx, ny } = zs;
  const stride = pwin.width * nx;
  const weights = new Float64Array(win.width * win.height);
  const mid = Math.floor(ny / 2) * stride + Math.floor(nx / 2);
  let any = false;
  for (let r = 0; r < win.height; r++) {
    const base = (win.row0 - pwin.row0 + r) * ny * stride + (win.col0 - pwin.col0) * nx;
    for (let c = 0; c < win.width; c++) {
      const first = base + c * nx;
      let w: number;
      if (rule === 'center' || (nx === 1 && ny === 1)) w = plane[first + mid] === value ? 1 : 0;
      else {
        let n = 0;
        for (let j = 0; j < ny; j++) for (let i = 0; i < nx; i++) if (plane[first + j * stride + i] === value) n++;
        w = rule === 'all_touched' ? (n > 0 ? 1 : 0) : n / (nx * ny);
      }
      if (w > 0) {
        weights[r * win.width + c] = w;
        any = true;
      }
    }
  }
  return any ? { window: win, weights } : null;
}

/** Blocks of a zones raster to scan (its cells over the value raster), read on the main thread, decoded in a worker. */
export interface ZoneScanTask {
  format: BlockFormat;
  blocks: EncodedBlock[];
  /** Per block, its part over the value raster (on the zones grid). */
  needs: PixelWindow[];
  /** The zones grid and the value level's grid. */
  zgrid: Grid;
  grid: Grid;
  nodata: number | null;
  /** More distinct values than this in the task: it stops (the request has too many zones). */
  maxValues: number;
}

/** Per block of the task, each zone value found and the window of value cells its cells there touch (col0, row0, col1, row1, inclusive). */
export interface ZoneScanResult {
  found: { value: number; box: [number, number, number, number] }[];
  /** More distinct values than maxValues; or a block that could not be decoded. */
  tooMany?: boolean;
  failure?: string;
}

/** The value cells a box of zone cells covers (inclusive), clipped to the value grid; null when none. */
function valueCells(t: ZoneScanTask, c0: number, r0: number, c1: number, r1: number): [number, number, number, number] | null {
  const [x0, y0] = toPixel(t.grid, ...toWorld(t.zgrid, c0, r0));
  const [x1, y1] = toPixel(t.grid, ...toWorld(t.zgrid, c1 + 1, r1 + 1));
  // Edges fall on edges (checked when the zones were opened): a tolerance absorbs the rounding of the steps.
  const eps = 1e-6;
  const box: [number, number, number, number] = [
    Math.max(0, Math.floor(x0 + eps)),
    Math.max(0, Math.floor(y0 + eps)),
    Math.min(t.grid.width - 1, Math.ceil(x1 - eps) - 1),
    Math.min(t.grid.height - 1, Math.ceil(y1 - eps) - 1),
  ];
  return box[2] < box[0] || box[3] < box[1] ? null : box;
}

/** Decodes each block of a zones raster once and lists its zone values, each with the value cells it touches. */
export async function zoneScan(t: ZoneScanTask, times?: DecodeTimes): Promise<ZoneScanResult> {
  const found: ZoneScanResult['found'] = [];
  const seen = new Set<number>();
  for (let k = 0; k < t.blocks.length; k++) {
    const encoded = t.blocks[k] as EncodedBlock;
    const need = t.needs[k] as PixelWindow;
    let b: DecodedBlock;
    try {
      b = await decodeBlock(t.format, encoded, false, spanOf(need, encoded.col0, encoded.row0, t.format.codec.tileWidth, false), times);
    } catch (e) {
      return { found, failure: e instanceof Error ? e.message : String(e) };
    }
    const boxes = new Map<number, [number, number, number, number]>();
    let last = Number.NaN;
    let box: [number, number, number, number] | undefined;
    for (let mr = need.row0; mr < need.row0 + need.height; mr++) {
      for (let mc = need.col0; mc < need.col0 + need.width; mc++) {
        const v = zoneAt(b, mc, mr, t.nodata, t.format.fill);
        if (v !== v) continue;
        if (v !== last || box === undefined) {
          box = boxes.get(v);
          if (box === undefined) boxes.set(v, (box = [mc, mr, mc, mr]));
          last = v;
        }
        if (mc < box[0]) box[0] = mc;
        if (mc > box[2]) box[2] = mc;
        if (mr > box[3]) box[3] = mr;
      }
    }
    for (const [value, [c0, r0, c1, r1]] of boxes) {
      seen.add(value);
      if (seen.size > t.maxValues) return { found, tooMany: true };
      const cells = valueCells(t, c0, r0, c1, r1);
      if (cells) found.push({ value, box: cells });
    }
  }
  return { found };
}
