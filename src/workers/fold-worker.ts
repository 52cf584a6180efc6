/** Piscina worker entry: decoding, pixel loops, vector clipping and polygon unions run here, off the event loop. */
import { foldTiles, type FoldTask, type FoldResult } from '../raster/fold.ts';
import { packBands } from '../raster/fold-packed.ts';
import { geometryEngine } from '../geometry/geos.ts';
import {
  tallyChunk,
  type VectorChunkTask,
  type VectorChunkResult,
  type VectorGroupTask,
  type VectorGroupResult,
  type VectorGroupZonesTask,
} from '../vector/tally.ts';
import { decodeGroup } from '../vector/reader.ts';
import { indexRows, selectRows } from '../vector/select.ts';
import { zstdDecoder } from '../codecs/zstd.ts';
import { inflateBackend, type InflateInfo } from '../codecs/deflate.ts';
import { wkbPolygonalAreaM2 } from '../geometry/wkb.ts';
import { overlapGroups as groupsOf, type UnionJob } from '../vector/data-area.ts';
export { previewGrid as preview } from '../raster/preview.ts';
export { zoneScan } from '../raster/fold-zones.ts';
import { rowsPieceBytes, type RowsPiece } from './ndjson-rows.ts';
import { release } from '../codecs/release.ts';
import { moved } from './piscina.ts';
import { useFoldKernel } from '../raster/fold-plain.ts';
import { foldKernel } from '../raster/fold-native.ts';

// The plain fold in C where it is built (raster/fold-native.ts): the same numbers as its JavaScript.
useFoldKernel(foldKernel());

type Blocks = readonly { planes: readonly (ArrayBuffer | null)[]; mask: ArrayBuffer | null }[];

/**
 * The blocks' bytes, moved to the worker (the reader hands out buffers of their own): no copy. Every raster
 * of a task counts: band math inputs and class blocks were once cloned, ~4 MB a task.
 */
export function blockBuffers(...groups: Blocks[]): ArrayBuffer[] {
  return [...new Set(groups.flatMap((blocks) => blocks.flatMap((b) => [...b.planes, b.mask])).filter((x): x is ArrayBuffer => x !== null))];
}

/** Every buffer of a fold task's rasters. */
export function taskBuffers(task: FoldTask): ArrayBuffer[] {
  return blockBuffers(
    task.blocks,
    ...(task.extras ?? []).map((e) => e.blocks),
    task.classes?.blocks ?? [],
    task.weights?.blocks ?? [],
    task.zoneRaster?.blocks ?? [],
  );
}

/** One chunk of vector features (see vector/tally.ts). */
async function vectorChunk(task: VectorChunkTask): Promise<VectorChunkResult> {
  const engine = await geometryEngine();
  const aoi = task.aoi.kind === 'area' ? engine.prepare(task.aoi.wkb) : null;
  try {
    return tallyChunk(task, aoi);
  } finally {
    aoi?.dispose();
  }
}

/** A fetched row group: decoded, its rows selected by box, then tallied (the main thread only fetched it). */
export async function vectorGroup(task: VectorGroupTask): Promise<VectorGroupResult> {
  const batch = await decodeGroup(task.group);
  const columns = task.group.columns;
  const chunk = selectRows(batch, columns, task.boxes, task.fileCrs);
  if (chunk === null) return { weighted: null, result: null };
  // Polygon datasets are weighted in intersect mode; points, lines and touch mode are not (contract §5).
  const weighted = task.weighted ?? (task.aoi.kind === 'area' && chunk.firstKind === 'polygon');
  const result = await vectorChunk({
    aoi: task.aoi,
    weighted,
    byArea: task.byArea,
    names: task.names,
    bytes: chunk.bytes,
    offsets: chunk.offsets,
    values: chunk.values,
  });
  return { weighted, result };
}

/** A fetched row group decoded once for several zones, each selecting and tallying its own rows. */
export async function vectorGroupZones(task: VectorGroupZonesTask): Promise<VectorGroupResult[]> {
  const batch = await decodeGroup(task.group);
  const columns = task.group.columns;
  // One index of the group's row boxes for all its zones, instead of every row's box per zone (one zone: its boxes alone).
  const index = task.zones.length > 1 ? indexRows(batch) : null;
  const out: VectorGroupResult[] = [];
  for (const zone of task.zones) {
    const chunk = selectRows(batch, columns, zone.boxes, task.fileCrs, index?.candidates(zone.boxes));
    if (chunk === null) {
      out.push({ weighted: null, result: null });
      continue;
    }
    const weighted = zone.aoi.kind === 'area' && chunk.firstKind === 'polygon';
    const result = await vectorChunk({
      aoi: zone.aoi,
      weighted,
      byArea: task.byArea,
      names: task.names,
      bytes: chunk.bytes,
      offsets: chunk.offsets,
      values: chunk.values,
    });
    out.push({ weighted, result });
  }
  return out;
}

/** Area in m² of each union job (vector data_area). */
export async function unionAreas(jobs: UnionJob[]): Promise<number[]> {
  const engine = await geometryEngine();
  return jobs.map((j) => wkbPolygonalAreaM2(j.rect ? engine.union(j.pieces, j.rect) : engine.union(j.pieces)));
}

/** vector/data-area.ts overlapGroups, off the event loop. */
export function overlapGroups(boxes: Float64Array): number[][] {
  return groupsOf(boxes);
}

/** A piece of a zone's packed rows as NDJSON bytes, on this thread; its numbers, moved here, freed. */
export function ndjsonRowsHere(piece: RowsPiece): Uint8Array {
  const bytes = rowsPieceBytes(piece);
  release(piece.values);
  return bytes;
}

/**
 * The same as a task: the bytes (a buffer of their own) move to the main thread instead of being copied twice
 * (into the message here, out of it there: 228 MB each way a cube request). The HTTP answer frees each piece
 * once its socket has taken it (http/zones.ts): a moved buffer is not counted as the main thread's new memory,
 * and one left to V8 waited for a later mark-compact (the peak 25–70 MiB higher, bench/cube).
 */
export function ndjsonRows(piece: RowsPiece): Uint8Array {
  const bytes = ndjsonRowsHere(piece);
  return moved(bytes, [bytes.buffer as ArrayBuffer]);
}

/** Loads what the first real task would otherwise wait for (GEOS, zstd's decoder), at boot; says which inflater this thread has. */
export async function warm(): Promise<InflateInfo> {
  await Promise.all([geometryEngine(), zstdDecoder()]);
  return inflateBackend();
}

/** The buffers of a result's packed partials that are wholly theirs (not shared, not views into a larger one). */
function packedBuffers(result: FoldResult): ArrayBuffer[] {
  const out = new Set<ArrayBuffer>();
  for (const p of result.partials) {
    if (!('packed' in p.bands)) continue;
    const { buffer, byteOffset, byteLength } = p.bands.values;
    if (buffer instanceof ArrayBuffer && byteOffset === 0 && byteLength === buffer.byteLength) out.add(buffer);
  }
  return [...out];
}

export default async function fold(task: FoldTask): Promise<FoldResult> {
  try {
    const result = await foldTiles(task);
    // Plain partials go back packed: one array a zone and block instead of an object a band (fold-packed.ts).
    for (const p of result.partials) if (!('packed' in p.bands)) p.bands = packBands(p.bands);
    // The packed numbers (each a buffer of its own, nothing else points to it) move back rather than being
    // copied here and again on the main thread (~128 MB a cube request).
    return moved(result, packedBuffers(result));
  } finally {
    // The task's bytes were moved to this thread and nothing in the result points into them: freed now.
    for (const b of taskBuffers(task)) release(b);
  }
}
