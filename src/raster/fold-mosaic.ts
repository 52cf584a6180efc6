/**
 * A mosaic of STAC Items in the fold (zones × time, `mosaic: "day"`): before a block's zones are folded,
 * each raster of the task becomes, pixel by pixel, the first valid value in search order among the Items'
 * rasters under the pixel's centre (the first-valid mosaic of GDAL's VRTs and titiler, by nearest
 * neighbour; a raster in another CRS has each pixel centre reprojected). Values come out scaled, an
 * invalid pixel as NaN, so the fold reads them as plain values (FoldTask.bands: no nodata, scale 1).
 */
import { recycle, sample64At, sampleAt, type DecodedBlock } from './decode.ts';
import { lookupBlocks, type Lookup } from './fold-lookup.ts';
import { intersectWindows, toPixel, toWorld, type Grid, type PixelWindow } from '../geometry/grid.ts';
import { makeTransformer } from '../geometry/reproject.ts';
import { cellUnder } from './plan.ts';
import type { FoldBand, FoldMosaic, FoldTimes, MosaicLayer } from './fold-types.ts';

/** A layer as the fold reads it: its blocks decoded on first use, and the cell under a pixel's centre. */
interface LayerReader {
  layer: MosaicLayer;
  get: (index: number) => Promise<DecodedBlock | null>;
  all: Map<number, Promise<DecodedBlock>>;
  /** The layer's cell under the centre of pixel (col, row) of the task's grid, or null off its grid. */
  cell: (col: number, row: number) => [number, number] | null;
}

function readerOf(layer: MosaicLayer, grid: Grid, times: FoldTimes): LayerReader {
  const g = layer.source.grid;
  const inside = (c: number, r: number): [number, number] | null => (c >= 0 && r >= 0 && c < g.width && r < g.height ? [c, r] : null);
  let cell: LayerReader['cell'];
  if (layer.crs === undefined) {
    cell = (col, row) => inside(...cellUnder(grid, g, col, row));
  } else {
    const forward = makeTransformer(layer.crs.from, layer.crs.to).forward;
    cell = (col, row) => {
      const [x, y] = forward(toWorld(grid, col + 0.5, row + 0.5));
      if (!Number.isFinite(x) || !Number.isFinite(y)) return null;
      const [c, r] = toPixel(g, x, y);
      return inside(Math.floor(c), Math.floor(r));
    };
  }
  return { layer, ...lookupBlocks(layer.source, times), cell };
}

/** Where values are written: per band, row-major over `target` (a block's window on the level). */
interface Canvas {
  values: Float64Array[];
  target: PixelWindow;
  /** The pixels to fill (the block's needed part), and per band which of them still wait for a valid value. */
  part: PixelWindow;
  pending: Uint8Array[];
  left: number;
}

function canvasOf(bands: number, target: PixelWindow, need: PixelWindow): Canvas {
  const part = intersectWindows(target, need);
  const size = part ? part.width * part.height : 0;
  return {
    values: Array.from({ length: bands }, () => new Float64Array(target.width * target.height).fill(Number.NaN)),
    target,
    part: part ?? { col0: target.col0, row0: target.row0, width: 0, height: 0 },
    pending: Array.from({ length: bands }, () => new Uint8Array(size).fill(1)),
    left: bands * size,
  };
}

/** A sample as a value: NaN where the mask, NaN or the band's nodata says invalid, else scaled. */
function valueAt(block: DecodedBlock, b: number, tr: number, tc: number, fill: number, band: FoldBand): number {
  if (block.valid && block.valid[tr * block.maskStride + tc] === 0) return Number.NaN;
  const raw = band.nodata64 == null ? sampleAt(block, b, tr, tc, fill) : sample64At(block, b, tr, tc, band.nodata64);
  return raw !== raw || raw === band.nodata ? Number.NaN : raw * band.scale + band.offset;
}

/** Writes `at(b, col, row)` where a band still waits and the value is valid. */
function take(canvas: Canvas, at: (b: number, col: number, row: number, k: number) => number): void {
  const { part, target, pending, values } = canvas;
  for (let r = 0, k = 0; r < part.height; r++) {
    const row = part.row0 + r;
    for (let c = 0; c < part.width; c++, k++) {
      const col = part.col0 + c;
      for (let b = 0; b < values.length; b++) {
        if ((pending[b] as Uint8Array)[k] === 0) continue;
        const v = at(b, col, row, k);
        if (v !== v) continue;
        (values[b] as Float64Array)[(row - target.row0) * target.width + col - target.col0] = v;
        (pending[b] as Uint8Array)[k] = 0;
        canvas.left--;
      }
    }
  }
}

/** The layer's values where a band still waits: the cells under the waiting pixels first, their blocks decoded, then the values. */
async function takeLayer(canvas: Canvas, reader: LayerReader): Promise<void> {
  const { part, pending } = canvas;
  const src = reader.layer.source;
  const cells = new Int32Array(part.width * part.height * 2).fill(-1);
  const wanted = new Set<number>();
  for (let r = 0, k = 0; r < part.height; r++) {
    for (let c = 0; c < part.width; c++, k++) {
      if (!pending.some((p) => p[k] === 1)) continue;
      const cell = reader.cell(part.col0 + c, part.row0 + r);
      if (cell === null) continue;
      cells[2 * k] = cell[0];
      cells[2 * k + 1] = cell[1];
      wanted.add(Math.floor(cell[1] / src.blockHeight) * src.across + Math.floor(cell[0] / src.blockWidth));
    }
  }
  const blocks = new Map<number, DecodedBlock>();
  await Promise.all(
    [...wanted].map(async (index) => {
      const block = await reader.get(index);
      // The main thread reads every block under the task's pixels: a missing one would silently be nodata.
      if (block === null) throw new Error(`mosaic block ${index} was not read`);
      blocks.set(index, block);
    }),
  );
  const fill = src.format.fill;
  take(canvas, (b, _col, _row, k) => {
    const mc = cells[2 * k] as number;
    if (mc < 0) return Number.NaN;
    const mr = cells[2 * k + 1] as number;
    const block = blocks.get(Math.floor(mr / src.blockHeight) * src.across + Math.floor(mc / src.blockWidth)) as DecodedBlock;
    return valueAt(block, b, mr - block.window.row0, mc - block.window.col0, fill, reader.layer.bands[b] as FoldBand);
  });
}

/** Fills a canvas from its layers in order (null: the task's own block), stopping when no pixel waits. */
async function fillCanvas(
  canvas: Canvas,
  layers: readonly (LayerReader | null)[],
  own?: { block: DecodedBlock; bands: FoldBand[]; fill: number },
): Promise<void> {
  for (const layer of layers) {
    if (canvas.left === 0) return;
    if (layer !== null) await takeLayer(canvas, layer);
    else if (own) {
      const { block, bands, fill } = own;
      const { row0, col0 } = block.window;
      take(canvas, (b, col, row) => valueAt(block, b, row - row0, col - col0, fill, bands[b] as FoldBand));
    }
  }
}

/** A block of plain values (scaled, NaN where invalid) on `window`. */
function blockOf(values: Float64Array[], window: PixelWindow): DecodedBlock {
  return {
    window,
    bands: values.map((v) => ({ values: v, isBig: false, rowStride: window.width, step: 1, offset: 0 })),
    valid: null,
    maskStride: window.width,
    fresh: [],
  };
}

/** A task's mosaic: `apply` turns a block's decoded rasters into the mosaic's (the primary, all of them, the mosaic's classes). */
export function mosaicOf(
  m: FoldMosaic,
  grid: Grid,
  fills: readonly number[],
  times: FoldTimes,
): { apply: (rasters: DecodedBlock[], need: PixelWindow) => Promise<[DecodedBlock, DecodedBlock[], Lookup | null]>; close: () => Promise<void> } {
  // A layer's blocks are decoded on first use: one that no waiting pixel reaches is never decoded.
  const rasters = m.rasters.map((layers) => layers.map((l) => (l === null ? null : readerOf(l, grid, times))));
  const classes = m.classes?.map((l) => readerOf(l, grid, times)) ?? null;
  return {
    apply: async (decoded, need) => {
      const out: DecodedBlock[] = [];
      for (let r = 0; r < decoded.length; r++) {
        const block = decoded[r] as DecodedBlock;
        const own = m.own[r] as FoldBand[];
        const canvas = canvasOf(own.length, block.window, need);
        await fillCanvas(canvas, rasters[r] ?? [], { block, bands: own, fill: fills[r] ?? 0 });
        out.push(blockOf(canvas.values, block.window));
        recycle(block);
      }
      let classAt: Lookup | null = null;
      if (classes) {
        const w = (decoded[0] as DecodedBlock).window;
        const canvas = canvasOf(1, w, need);
        await fillCanvas(canvas, classes);
        const values = canvas.values[0] as Float64Array;
        classAt = (col, row) => {
          const c = col - w.col0;
          const r = row - w.row0;
          return c < 0 || r < 0 || c >= w.width || r >= w.height ? Number.NaN : (values[r * w.width + c] as number);
        };
      }
      return [out[0] as DecodedBlock, out, classAt];
    },
    close: async () => {
      for (const reader of [...rasters.flat(), ...(classes ?? [])]) if (reader) for (const b of reader.all.values()) recycle(await b);
    },
  };
}
