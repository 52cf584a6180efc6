/**
 * Rasters read by nearest neighbour in the fold (a class raster, a weights raster, a zones raster): their
 * blocks decoded on first use, once per task, and a pixel's value looked up by the cell under its centre.
 */
import { decodeBlock, sampleAt, spanOf, type DecodedBlock, type EncodedBlock } from './decode.ts';
import { TileCache } from './tile-cache.ts';
import { isRotated, type Grid, type PixelWindow } from '../geometry/grid.ts';
import { blocksUnder, cellUnder } from './plan.ts';
import type { ClassSource, FoldTimes } from './fold-types.ts';

/** The value of a raster read by nearest neighbour at a pixel (col, row) of the level: NaN outside it. */
export type Lookup = (col: number, row: number) => number;

/**
 * Each thread's decoded blocks of rasters read by nearest neighbour: a coarser raster's block (a 20 m weights
 * tile under four 10 m tiles) serves the value blocks of several tasks, decoded once. Keys carry the URL, the
 * validator and the band.
 */
const kept = new TileCache<{ block: DecodedBlock; row1: number }>();
const KEPT_BYTES = 64 * 1024 * 1024;

function keyOf(src: ClassSource, block: EncodedBlock): string | null {
  if (block.keys.length === 0 || block.keys.some((k) => k === null)) return null;
  return `${block.keys.join('|')}@${src.format.bands.map((b) => `${b.plane}:${b.sample}`).join(',')}`;
}

function bytesOf(b: DecodedBlock): number {
  return b.bands.reduce((n, band) => n + (band.values?.byteLength ?? 0), 0) + (b.valid?.byteLength ?? 0);
}

/**
 * A raster read by nearest neighbour: its blocks decoded on first use, whole, and kept by the thread; only
 * the part the task needs where the source has no validator (`all`: those, to recycle).
 */
export function lookupBlocks(
  src: ClassSource,
  times: FoldTimes,
): { get: (index: number) => Promise<DecodedBlock | null>; all: Map<number, Promise<DecodedBlock>> } {
  const all = new Map<number, Promise<DecodedBlock>>();
  const mine = new Map<number, Promise<DecodedBlock>>();
  const encoded = new Map(src.blocks.map((b, i) => [b.index, { block: b, need: src.needs?.[i] }]));
  const get = async (index: number): Promise<DecodedBlock | null> => {
    const enc = encoded.get(index);
    if (!enc) return null;
    let p = mine.get(index);
    if (p) return p;
    const key = keyOf(src, enc.block);
    const tw = src.format.codec.tileWidth;
    if (key !== null) {
      // Kept blocks are decoded from their first row (as DEFLATE inflates anyway) to the last row needed.
      const span = enc.need ? spanOf(enc.need, enc.block.col0, enc.block.row0, tw, true) : undefined;
      const row1 = span?.row1 ?? Infinity;
      const hit = kept.get(key);
      if (hit && hit.row1 >= row1) return hit.block;
      p = decodeBlock(src.format, enc.block, false, span, times).then((block) => {
        kept.put(key, { block, row1 }, bytesOf(block), KEPT_BYTES);
        return block;
      });
    } else {
      const span = enc.need ? spanOf(enc.need, enc.block.col0, enc.block.row0, tw, false) : undefined;
      all.set(index, (p = decodeBlock(src.format, enc.block, false, span, times)));
    }
    mine.set(index, p);
    times.planes++;
    return p;
  };
  return { get, all };
}

/**
 * The class of each pixel of a data block, by nearest neighbour: the class pixel that holds the pixel's
 * centre (as GDAL's nearest resampling takes it); NaN outside the class raster. The class blocks the data
 * block's pixels fall in are decoded first. On north-up grids a column's class column does not depend on the
 * row (nor a row's on the column): both are tabled once per window, so a lookup is two reads and a sample.
 */
export async function classLookup(
  cs: ClassSource,
  grid: Grid,
  win: PixelWindow,
  classOf: (index: number) => Promise<DecodedBlock | null>,
): Promise<(col: number, row: number) => number> {
  const level = { index: 0, grid: cs.grid, blockWidth: cs.blockWidth, blockHeight: cs.blockHeight };
  const decoded = new Map<number, DecodedBlock | null>();
  await Promise.all(blocksUnder(grid, win, level).map(async (i) => decoded.set(i, await classOf(i))));
  const fill = cs.format.fill;
  const at = (mc: number, mr: number): number => {
    if (mc < 0 || mr < 0 || mc >= cs.grid.width || mr >= cs.grid.height) return Number.NaN;
    const b = decoded.get(Math.floor(mr / cs.blockHeight) * cs.across + Math.floor(mc / cs.blockWidth));
    if (!b) return Number.NaN;
    return sampleAt(b, 0, mr - b.window.row0, mc - b.window.col0, fill);
  };
  if (isRotated(grid) || isRotated(cs.grid)) {
    return (col, row) => {
      const [mc, mr] = cellUnder(grid, cs.grid, col, row);
      return at(mc, mr);
    };
  }
  const cols = new Int32Array(win.width);
  const rows = new Int32Array(win.height);
  for (let c = 0; c < win.width; c++) cols[c] = (cellUnder(grid, cs.grid, win.col0 + c, win.row0) as [number, number])[0];
  for (let r = 0; r < win.height; r++) rows[r] = (cellUnder(grid, cs.grid, win.col0, win.row0 + r) as [number, number])[1];
  // The last block found, kept: neighbouring pixels nearly always fall in the same one.
  let last: DecodedBlock | null = null;
  let lc0 = 0;
  let lr0 = 0;
  let lc1 = -1;
  let lr1 = -1;
  return (col, row) => {
    const c = col - win.col0;
    const r = row - win.row0;
    if (c < 0 || r < 0 || c >= win.width || r >= win.height) {
      const [mc, mr] = cellUnder(grid, cs.grid, col, row);
      return at(mc, mr);
    }
    const mc = cols[c] as number;
    const mr = rows[r] as number;
    if (last !== null && mc >= lc0 && mc < lc1 && mr >= lr0 && mr < lr1) return sampleAt(last, 0, mr - lr0, mc - lc0, fill);
    if (mc < 0 || mr < 0 || mc >= cs.grid.width || mr >= cs.grid.height) return Number.NaN;
    const b = decoded.get(Math.floor(mr / cs.blockHeight) * cs.across + Math.floor(mc / cs.blockWidth));
    if (!b) return Number.NaN;
    last = b;
    lc0 = b.window.col0;
    lr0 = b.window.row0;
    lc1 = lc0 + b.window.width;
    lr1 = lr0 + b.window.height;
    return sampleAt(b, 0, mr - lr0, mc - lc0, fill);
  };
}

/** Fills `out[0 … width)` with a raster's values under the pixels (col0 …, row) of the level: NaN where none. */
export type RowLookup = (row: number, col0: number, width: number, out: Float64Array) => void;

/**
 * A raster's values row by row under a data block's pixels (the weights): a row's cells looked up by the
 * column table, read straight from the decoded samples of the block they lie in, nodata made NaN and
 * scale/offset applied. Rotated grids, and pixels off the window, go through the cell lookup.
 */
export async function rowLookup(
  src: ClassSource,
  grid: Grid,
  win: PixelWindow,
  blockOf: (index: number) => Promise<DecodedBlock | null>,
  apply: { nodata: number | null; scale: number; offset: number },
): Promise<RowLookup> {
  const at = await classLookup(src, grid, win, blockOf);
  const { nodata, scale, offset } = apply;
  const value = (v: number): number => (v !== v || v === nodata ? Number.NaN : v * scale + offset);
  const slow: RowLookup = (row, col0, width, out) => {
    for (let c = 0; c < width; c++) out[c] = value(at(col0 + c, row));
  };
  if (isRotated(grid) || isRotated(src.grid)) return slow;
  const decoded = new Map<number, DecodedBlock | null>();
  await Promise.all(
    blocksUnder(grid, win, { index: 0, grid: src.grid, blockWidth: src.blockWidth, blockHeight: src.blockHeight }).map(async (i) =>
      decoded.set(i, await blockOf(i)),
    ),
  );
  const cols = new Int32Array(win.width);
  for (let c = 0; c < win.width; c++) cols[c] = (cellUnder(grid, src.grid, win.col0 + c, win.row0) as [number, number])[0];
  const fill = src.format.fill;
  return (row, col0, width, out) => {
    const r = row - win.row0;
    if (r < 0 || r >= win.height || col0 < win.col0 || col0 + width > win.col0 + win.width) return slow(row, col0, width, out);
    const mr = (cellUnder(grid, src.grid, win.col0, row) as [number, number])[1];
    if (mr < 0 || mr >= src.grid.height) return void out.fill(Number.NaN, 0, width);
    // The block of the current run of cells: its column range, samples and the row's start in them.
    let lo = 0;
    let hi = -1;
    let arr: ArrayLike<number | bigint> | null = null;
    let big = false;
    let base = 0;
    let step = 1;
    let valid: Uint8Array | null = null;
    let vbase = 0;
    let none = true;
    for (let c = 0; c < width; c++) {
      const mc = cols[col0 - win.col0 + c] as number;
      if (mc < lo || mc >= hi) {
        const b =
          mc < 0 || mc >= src.grid.width ? null : (decoded.get(Math.floor(mr / src.blockHeight) * src.across + Math.floor(mc / src.blockWidth)) ?? null);
        none = b === null;
        if (b === null) {
          lo = mc;
          hi = mc + 1;
        } else {
          const s = b.bands[0];
          lo = b.window.col0;
          hi = lo + b.window.width;
          arr = s?.values ?? null;
          big = s?.isBig ?? false;
          step = s?.step ?? 1;
          base = (mr - b.window.row0) * (s?.rowStride ?? 0) + (s?.offset ?? 0) - lo * step;
          valid = b.valid;
          vbase = (mr - b.window.row0) * b.maskStride - lo;
        }
      }
      if (none || (valid !== null && valid[vbase + mc] === 0)) out[c] = Number.NaN;
      else if (arr === null) out[c] = value(fill);
      else out[c] = value(big ? Number(arr[base + mc * step] as bigint) : (arr[base + mc * step] as number));
    }
  };
}
