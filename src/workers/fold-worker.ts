/** Piscina worker entry: decoding, pixel loops, vector clipping and polygon unions run here, off the event loop. */
import { foldTiles, type FoldTask, type FoldResult } from '../zonal/fold.ts';
import { geometryEngine } from '../geometry/geos.ts';
import { tallyChunk, type VectorChunkTask, type VectorChunkResult } from '../vector/tally.ts';
import { wkbPolygonalAreaM2 } from '../geometry/wkb.ts';
import type { UnionJob } from '../vector/data-area.ts';

/** One chunk of vector features (see vector/tally.ts). */
export async function vectorChunk(task: VectorChunkTask): Promise<VectorChunkResult> {
  const engine = await geometryEngine();
  const aoi = task.aoi.kind === 'area' ? engine.prepare(task.aoi.wkb) : null;
  try {
    return tallyChunk(task, aoi);
  } finally {
    aoi?.dispose();
  }
}

/** Area in m² of each union job (vector data_area). */
export async function unionAreas(jobs: UnionJob[]): Promise<number[]> {
  const engine = await geometryEngine();
  return jobs.map((j) => wkbPolygonalAreaM2(j.rect ? engine.union(j.pieces, j.rect) : engine.union(j.pieces)));
}

export default function fold(task: FoldTask): Promise<FoldResult> {
  return foldTiles(task);
}
