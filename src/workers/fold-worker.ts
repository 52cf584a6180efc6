/** Piscina worker entry: decoding and pixel loops run here, off the event loop (issue 2 §9). */
import { foldTiles, type FoldTask, type FoldResult } from '../zonal/fold.ts';

export default function fold(task: FoldTask): Promise<FoldResult> {
  return foldTiles(task);
}
