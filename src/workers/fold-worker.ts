/** Piscina worker entry: decoding, pixel loops and big polygon unions run here, off the event loop. */
import { foldTiles, type FoldTask, type FoldResult } from '../zonal/fold.ts';
import { unionAll } from '../geometry/clip.ts';
import { ellipsoidalAreaM2 } from '../geometry/geodesic.ts';
import type { MultiPolygonCoords } from '../geometry/types.ts';

/** Area in m² of the union of polygons; null when the union fails. */
export function unionArea(pieces: MultiPolygonCoords[]): number | null {
  const union = unionAll(pieces);
  return union === null ? null : ellipsoidalAreaM2(union);
}

export default function fold(task: FoldTask): Promise<FoldResult> {
  return foldTiles(task);
}
