/**
 * A coarse grid of one band from a level's blocks (POST /api/v1/sources/info's preview): every `step`-th
 * pixel (nearest), scale and offset applied, null where invalid (nodata, NaN, masked). Runs in a worker
 * (workers/fold-worker.ts), as every decode does.
 */
import { decodeBlock, sampleAt, type BlockFormat, type EncodedBlock } from './decode.ts';
import type { PixelWindow } from '../geometry/grid.ts';

export interface PreviewTask {
  format: BlockFormat;
  /** The level's blocks (band 1's planes and the mask) with each block's window on the level. */
  blocks: EncodedBlock[];
  windows: PixelWindow[];
  step: number;
  width: number;
  height: number;
  nodata: number | null;
  scale: number;
  offset: number;
}

export interface PreviewGrid {
  values: (number | null)[];
  min: number | null;
  max: number | null;
}

export async function previewGrid(task: PreviewTask): Promise<PreviewGrid> {
  const { format, step, width, nodata, scale, offset } = task;
  const values: (number | null)[] = new Array<number | null>(width * task.height).fill(null);
  let min = Infinity;
  let max = -Infinity;
  for (let k = 0; k < task.blocks.length; k++) {
    const decoded = await decodeBlock(format, task.blocks[k] as EncodedBlock, false);
    const win = task.windows[k] as PixelWindow;
    if (decoded.bands[0] === undefined) continue;
    const r0 = Math.ceil(win.row0 / step) * step;
    const c0 = Math.ceil(win.col0 / step) * step;
    for (let row = r0; row < win.row0 + win.height; row += step) {
      for (let col = c0; col < win.col0 + win.width; col += step) {
        const r = row - win.row0;
        const c = col - win.col0;
        if (decoded.valid !== null && decoded.valid[r * decoded.maskStride + c] === 0) continue;
        const raw = sampleAt(decoded, 0, r, c, format.fill);
        if (Number.isNaN(raw) || (nodata !== null && raw === nodata)) continue;
        // To look at, not to compute with: 7 significant digits keep the JSON small.
        const v = Number((raw * scale + offset).toPrecision(7));
        values[(row / step) * width + col / step] = v;
        if (v < min) min = v;
        if (v > max) max = v;
      }
    }
  }
  return { values, min: Number.isFinite(min) ? min : null, max: Number.isFinite(max) ? max : null };
}
