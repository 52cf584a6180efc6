/**
 * Zones given as a raster (issue 24), in the fold: the zone of every part of a value cell, and a zone's
 * coverage of a window from it. A zones raster lies cell on cell over the value raster (zonal/raster-
 * aligned.ts): each value cell lies in one zone cell, or holds nx × ny of them when the zones are finer.
 * Also the scan that finds which zones there are and where (zoneScan), before any value is read.
 */
import { decodeBlock, spanOf, type BlockFormat, type DecodedBlock, type DecodeTimes, type EncodedBlock } from './decode.ts';
import { toPixel, toWorld, type Grid, type PixelWindow } from '../geometry/grid.ts';
import type { Coverage, PixelRule } from '../coverage/coverage.ts';
import { keptRows, pixelAreaRows, type PixelAreaRows, type PixelAreaSpec } from './pixel-area.ts';
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
function subCellTable(grid: Grid, zgrid: Grid, start: number, count: number, n: number, axis: 0 | 1, only?: number): Int32Array {
  const per = only === undefined ? n : 1;
  const out = new Int32Array(count * per);
  for (let k = 0; k < count * per; k++) {
    // Every part's centre, or (`only`) that of the one part of each cell.
    const at = only === undefined ? start + (k + 0.5) / n : start + k + (only + 0.5) / n;
    const p = axis === 0 ? toPixel(zgrid, ...toWorld(grid, at, 0.5))[0] : toPixel(zgrid, ...toWorld(grid, 0.5, at))[1];
    out[k] = Math.floor(p);
  }
  return out;
}

/** The zone blocks under the cells of the tables (the rows' × the columns' zone cells), decoded. */
async function blocksUnderTables(zs: ZoneSource, cols: Int32Array, rows: Int32Array, blockOf: (index: number) => Promise<DecodedBlock | null>) {
  // The block rows of the rows' cells × the block columns of the columns' cells.
  const down = new Set<number>();
  const across = new Set<number>();
  for (const mr of rows) if (mr >= 0 && mr < zs.grid.height) down.add(Math.floor(mr / zs.blockHeight));
  for (const mc of cols) if (mc >= 0 && mc < zs.grid.width) across.add(Math.floor(mc / zs.blockWidth));
  const needed = [...down].flatMap((by) => [...across].map((bx) => by * zs.across + bx));
  const blocks = new Map<number, DecodedBlock | null>();
  for (const index of needed) blocks.set(index, await blockOf(index));
  return blocks;
}

/**
 * Each cell of `win`'s one zone (by its centre part: the cell's own zone cell unless the zones are finer), as
 * an index into `values` (−1: none). Rows are read in runs of cells of one zone block, straight from its
 * samples; a zone value is looked up only where it changes along a row.
 */
async function zoneIds(zs: ZoneSource, grid: Grid, win: PixelWindow, blockOf: (index: number) => Promise<DecodedBlock | null>) {
  const cols = subCellTable(grid, zs.grid, win.col0, win.width, zs.nx, 0, Math.floor(zs.nx / 2));
  const rows = subCellTable(grid, zs.grid, win.row0, win.height, zs.ny, 1, Math.floor(zs.ny / 2));
  const blocks = await blocksUnderTables(zs, cols, rows, blockOf);
  const ids = new Int32Array(win.width * win.height).fill(-1);
  const values: number[] = [];
  const index = new Map<number, number>();
  const { nodata } = zs;
  const fill = zs.format.fill;
  for (let r = 0; r < win.height; r++) {
    const mr = rows[r] as number;
    if (mr < 0 || mr >= zs.grid.height) continue;
    const out = r * win.width;
    let lo = 0;
    let hi = -1;
    let arr: ArrayLike<number | bigint> | null = null;
    let valid: Uint8Array | null = null;
    let base = 0;
    let vbase = 0;
    let step = 1;
    let none = true;
    let last = Number.NaN;
    let lastId = -1;
    for (let c = 0; c < win.width; c++) {
      const mc = cols[c] as number;
      if (mc < 0 || mc >= zs.grid.width) continue;
      if (mc < lo || mc >= hi) {
        const b = blocks.get(Math.floor(mr / zs.blockHeight) * zs.across + Math.floor(mc / zs.blockWidth)) ?? null;
        none = b === null;
        lo = b ? b.window.col0 : mc;
        hi = b ? lo + b.window.width : mc + 1;
        if (b) {
          const sv = b.bands[0];
          arr = sv?.values ?? null;
          step = sv?.step ?? 1;
          base = (mr - b.window.row0) * (sv?.rowStride ?? 0) + (sv?.offset ?? 0) - lo * step;
          valid = b.valid;
          vbase = (mr - b.window.row0) * b.maskStride - lo;
        }
      }
      if (none || (valid !== null && valid[vbase + mc] === 0)) continue;
      const v = arr === null ? fill : (arr[base + mc * step] as number);
      if (v !== last) {
        last = v;
        if (v !== v || v === nodata) lastId = -1;
        else {
          let id = index.get(v);
          if (id === undefined) {
            index.set(v, (id = values.length));
            values.push(v);
          }
          lastId = id;
        }
      }
      ids[out + c] = lastId;
    }
  }
  return { ids, values };
}

/**
 * The zone value of every sub-cell of `win` (a window of the value level): (win.height·ny) rows of
 * (win.width·nx), NaN where no zone. The zone blocks come decoded from `blockOf` (null: not in the file).
 * Each row is read in runs of cells of one zone block, straight from its samples.
 */
async function zonePlane(zs: ZoneSource, grid: Grid, win: PixelWindow, blockOf: (index: number) => Promise<DecodedBlock | null>): Promise<Float64Array> {
  const cols = subCellTable(grid, zs.grid, win.col0, win.width, zs.nx, 0);
  const rows = subCellTable(grid, zs.grid, win.row0, win.height, zs.ny, 1);
  const width = cols.length;
  const plane = new Float64Array(width * rows.length).fill(Number.NaN);
  const blocks = await blocksUnderTables(zs, cols, rows, blockOf);
  const { nodata } = zs;
  const fill = zs.format.fill;
  for (let r = 0; r < rows.length; r++) {
    const mr = rows[r] as number;
    if (mr < 0 || mr >= zs.grid.height) continue;
    const out = r * width;
    // The zone block of the current run of cells: its columns, samples and mask at this row.
    let lo = 0;
    let hi = -1;
    let b: DecodedBlock | null = null;
    for (let c = 0; c < width; c++) {
      const mc = cols[c] as number;
      if (mc < 0 || mc >= zs.grid.width) continue;
      if (mc < lo || mc >= hi) {
        b = blocks.get(Math.floor(mr / zs.blockHeight) * zs.across + Math.floor(mc / zs.blockWidth)) ?? null;
        lo = b ? b.window.col0 : mc;
        hi = b ? lo + b.window.width : mc + 1;
      }
      if (b === null) continue;
      const tr = mr - b.window.row0;
      const tc = mc - lo;
      if (b.valid && b.valid[tr * b.maskStride + tc] === 0) continue;
      const sv = b.bands[0];
      const v = sv?.values ? (sv.values[tr * sv.rowStride + tc * sv.step + sv.offset] as number) : fill;
      if (v !== nodata) plane[out + c] = v;
    }
  }
  return plane;
}

/** Each zone's cells of a window, sparse: indexes into the window (row-major, ascending) and their coverage. */
export type ZoneCells = Map<number, { cells: Int32Array; weights: Float64Array }>;

/** Each zone's cells where every cell has one zone (ids into `values`, −1 none): counted, then placed in order. */
function cellsOfIds(ids: Int32Array, values: readonly number[]): ZoneCells {
  const counts = new Int32Array(values.length);
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i] as number;
    if (id >= 0) counts[id] = (counts[id] as number) + 1;
  }
  const lists = values.map((_, id) => new Int32Array(counts[id] as number));
  const at = new Int32Array(values.length);
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i] as number;
    if (id < 0) continue;
    (lists[id] as Int32Array)[at[id] as number] = i;
    at[id] = (at[id] as number) + 1;
  }
  // Every cell counts whole: one array of ones serves every zone (a coverage reads weights[k] for k < cells.length).
  const ones = new Float64Array(Math.max(0, ...counts)).fill(1);
  return new Map(values.map((v, id) => [v, { cells: lists[id] as Int32Array, weights: ones }]));
}

/**
 * Every zone's cells of `pwin` (the window of `plane`, zones finer than the values: fractional or
 * all_touched), each cell given to each zone among its parts, at the share of its parts (fractional) or whole.
 */
function partsCells(plane: Float64Array, pwin: PixelWindow, zs: { nx: number; ny: number }, rule: PixelRule): ZoneCells {
  const { nx, ny } = zs;
  const stride = pwin.width * nx;
  const n = pwin.width * pwin.height;
  const out: ZoneCells = new Map();
  const lists = new Map<number, { cells: number[]; weights: number[] }>();
  const parts = nx * ny;
  const seen: number[] = [];
  const tally: number[] = [];
  for (let i = 0; i < n; i++) {
    const first = ((i / pwin.width) | 0) * ny * stride + (i % pwin.width) * nx;
    seen.length = 0;
    tally.length = 0;
    for (let j = 0; j < ny; j++) {
      for (let q = 0; q < nx; q++) {
        const v = plane[first + j * stride + q] as number;
        if (v !== v) continue;
        const at = seen.indexOf(v);
        if (at < 0) {
          seen.push(v);
          tally.push(1);
        } else tally[at] = (tally[at] as number) + 1;
      }
    }
    for (let t = 0; t < seen.length; t++) {
      const v = seen[t] as number;
      let l = lists.get(v);
      if (!l) lists.set(v, (l = { cells: [], weights: [] }));
      l.cells.push(i);
      l.weights.push(rule === 'all_touched' ? 1 : (tally[t] as number) / parts);
    }
  }
  for (const [v, l] of lists) out.set(v, { cells: Int32Array.from(l.cells), weights: Float64Array.from(l.weights) });
  return out;
}

/**
 * A block's zones of a zones raster: the zones under its cells (`pwin`, the part the task needs) worked out on
 * the first zone's call, then each zone's sparse coverage; the cells' ground areas, shared by its zones.
 */
export function zoneBlock(zs: ZoneSource, area: PixelAreaSpec, pwin: PixelWindow, blockOf: (index: number) => Promise<DecodedBlock | null>) {
  let byZone: ZoneCells | null = null;
  let areas: PixelAreaRows | null = null;
  return {
    async coverage(value: number, rule: PixelRule): Promise<Coverage | null> {
      // One zone a cell (its zone cell, or its centre part's): ids; finer zones shared by parts: the plane of parts.
      if (byZone === null) {
        if ((zs.nx === 1 && zs.ny === 1) || rule === 'center') {
          const { ids, values } = await zoneIds(zs, area.grid, pwin, blockOf);
          byZone = cellsOfIds(ids, values);
        } else byZone = partsCells(await zonePlane(zs, area.grid, pwin, blockOf), pwin, zs, rule);
      }
      const mine = byZone.get(value);
      return mine ? { window: pwin, ...mine } : null;
    },
    get areas(): PixelAreaRows {
      return (areas ??= keptRows(pixelAreaRows(area, pwin)));
    },
  };
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
