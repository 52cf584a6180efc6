/**
 * The rows of a decoded row group that can meet the AOI, packed for vector/tally.ts: each row's box is
 * scanned from its WKB (no object is built for a row that misses) and compared with the AOI's boxes in
 * the file's CRS; rows kept are moved to lon/lat when the file's CRS is projected (edges densified).
 */
import Flatbush from 'flatbush';
import { ZonalError } from '../errors.ts';
import type { BBox } from '../geometry/types.ts';
import { bboxesIntersect } from '../geometry/bbox.ts';
import { makeTransformer, transformPolygons, type PointTransform } from '../geometry/reproject.ts';
import { wkbBBox, wkbFromShape, wkbKind, wkbToShape, type Shape, type ShapeKind } from '../geometry/wkb.ts';
import type { FeatureBatch } from './reader.ts';

const WGS84 = '+proj=longlat +datum=WGS84 +no_defs';

export interface Selected {
  bytes: Uint8Array;
  offsets: Uint32Array;
  values: Float64Array[];
  /** The kind of the first row kept (it decides weighted or plain statistics for the whole request). */
  firstKind: ShapeKind | null;
}

function toLonLat(shape: Shape, fwd: PointTransform): Shape {
  switch (shape.kind) {
    case 'polygon':
      return { kind: 'polygon', polygons: transformPolygons(shape.polygons, fwd, 1e-7) };
    case 'line':
      return { kind: 'line', lines: shape.lines.map((l) => l.map(fwd)) };
    case 'point':
      return { kind: 'point', points: shape.points.map(fwd) };
  }
}

function badWkb(): ZonalError {
  return new ZonalError('invalid_source', 'A feature geometry of the file is not valid WKB.');
}

/** The rows of a batch indexed by their WKB boxes (flatbush), for many zones over one row group. */
export interface RowIndex {
  /** Rows whose box meets any of `boxes`, ascending (the order a full scan keeps them in). */
  candidates(boxes: readonly BBox[]): number[];
}

export function indexRows(batch: FeatureBatch): RowIndex {
  const rows: number[] = [];
  const found: BBox[] = [];
  try {
    for (let i = 0; i < batch.wkb.length; i++) {
      const wkb = batch.wkb[i];
      const box = wkb ? wkbBBox(wkb) : null;
      if (box === null) continue;
      rows.push(i);
      found.push(box);
    }
  } catch (e) {
    if (e instanceof ZonalError) throw e;
    throw badWkb();
  }
  if (rows.length === 0) return { candidates: () => [] };
  const index = new Flatbush(rows.length);
  for (const [x0, y0, x1, y1] of found) index.add(x0, y0, x1, y1);
  index.finish();
  return {
    candidates(boxes) {
      const hits = new Set<number>();
      for (const [x0, y0, x1, y1] of boxes) for (const k of index.search(x0, y0, x1, y1)) hits.add(rows[k] as number);
      return [...hits].sort((a, b) => a - b);
    },
  };
}

/**
 * The rows whose box meets `boxes` (all rows, or only `candidates` from a RowIndex), moved to lon/lat.
 * `fileCrs`: the file's proj4 definition when it is projected, null for lon/lat.
 */
export function selectRows(
  batch: FeatureBatch,
  columns: readonly string[],
  boxes: readonly BBox[],
  fileCrs: string | null,
  candidates?: readonly number[],
): Selected | null {
  const toLonLatFn = fileCrs === null ? null : makeTransformer(fileCrs, WGS84).forward;
  const keep: number[] = [];
  const geoms: Uint8Array[] = [];
  let size = 0;
  let firstKind: ShapeKind | null = null;
  const count = candidates?.length ?? batch.wkb.length;
  try {
    for (let n = 0; n < count; n++) {
      const i = candidates === undefined ? n : (candidates[n] as number);
      let wkb = batch.wkb[i];
      if (!wkb) continue;
      const box = wkbBBox(wkb);
      if (box === null) continue;
      let meets = false;
      for (const b of boxes) if (bboxesIntersect(b, box)) meets = true;
      if (!meets) continue;
      if (toLonLatFn !== null) {
        const shape = wkbToShape(wkb);
        if (shape === null) continue;
        wkb = wkbFromShape(toLonLat(shape, toLonLatFn));
      }
      firstKind ??= wkbKind(wkb);
      keep.push(i);
      geoms.push(wkb);
      size += wkb.length;
    }
  } catch (e) {
    if (e instanceof ZonalError) throw e;
    throw badWkb();
  }
  if (keep.length === 0) return null;
  const bytes = new Uint8Array(size);
  const offsets = new Uint32Array(keep.length + 1);
  let o = 0;
  for (let k = 0; k < geoms.length; k++) {
    const g = geoms[k] as Uint8Array;
    bytes.set(g, o);
    o += g.length;
    offsets[k + 1] = o;
  }
  const values = columns.map((c) => {
    const all = batch.values.get(c) as Float64Array;
    const out = new Float64Array(keep.length);
    for (let k = 0; k < keep.length; k++) out[k] = all[keep[k] as number] as number;
    return out;
  });
  return { bytes, offsets, values, firstKind };
}
