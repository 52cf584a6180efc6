/**
 * One chunk of features against the AOI (contract §5 vector rules), as a worker runs it: the features'
 * WKB and values in, per-column partial accumulators and the counted pieces (for data_area) out. Chunks
 * merge like the raster fold's: accumulators merge, and the pieces of all chunks go to data-area.ts.
 *
 * Features arrive already in lon/lat. Polygon features in intersect mode are tested against the prepared
 * AOI: a feature wholly inside counts with its full area and is never clipped; only features that the
 * AOI boundary crosses are intersected. Areas are on the WGS84 ellipsoid, edges straight in lon/lat.
 */
import type { StatName } from '../stats/names.ts';
import { createAccumulator, type AccumulatorSnapshot } from '../stats/accumulator.ts';
import type { PreparedAoi } from '../geometry/geos.ts';
import { wkbBBox, wkbKind, wkbPolygonalAreaM2, wkbToShape } from '../geometry/wkb.ts';
import { touchesPoint } from './touch.ts';
import type { GroupBytes } from './reader.ts';
import { overlapGroups, type PieceSet } from './data-area.ts';
import type { BBox } from '../geometry/types.ts';

export type ChunkAoi = { kind: 'area'; wkb: Uint8Array } | { kind: 'point'; lon: number; lat: number };

export interface VectorChunkTask {
  aoi: ChunkAoi;
  /** Area-weighted accumulators (polygon features in intersect mode); one choice for every chunk. */
  weighted: boolean;
  /** weighting_method "area" (true) or "ratio". */
  byArea: boolean;
  names: StatName[];
  /** Feature i is bytes[offsets[i], offsets[i + 1]) (lon/lat WKB; empty for a null geometry). */
  bytes: Uint8Array;
  offsets: Uint32Array;
  /** Per requested column, per feature: the value, NaN for null. */
  values: Float64Array[];
}

interface ColumnPartial {
  acc: AccumulatorSnapshot;
  /** Features counted (value not null). */
  n: number;
  /** Σ value × (intersection area / feature area): the contract's `sum`. */
  share: number;
}

export interface VectorChunkResult {
  columns: ColumnPartial[];
  pieces: PieceSet;
}

/** A fetched row group to decode, select and tally in a worker (workers/fold-worker.ts vectorGroup). */
export interface VectorGroupTask {
  group: GroupBytes;
  aoi: ChunkAoi;
  /** The AOI's boxes in the file's CRS. */
  boxes: BBox[];
  /** The file's proj4 definition when projected (rows are moved to lon/lat), null for lon/lat files. */
  fileCrs: string | null;
  /** Weighted statistics or not; null: this group decides, from the first row it keeps. */
  weighted: boolean | null;
  byArea: boolean;
  names: StatName[];
}

/** A group's partials; `weighted` is null (and there are no partials) when no row of the group can meet the AOI. */
export interface VectorGroupResult {
  weighted: boolean | null;
  result: VectorChunkResult | null;
}

/**
 * A fetched row group for several zones at once (a request over many zones): decoded once, then each zone
 * selects and tallies its rows. Each zone's weighting is decided as VectorGroupTask's `weighted: null`.
 */
export interface VectorGroupZonesTask {
  group: GroupBytes;
  zones: { aoi: ChunkAoi; boxes: BBox[] }[];
  fileCrs: string | null;
  byArea: boolean;
  names: StatName[];
}

export interface FeatureOverlap {
  /** Area of feature ∩ AOI, m². */
  interAreaM2: number;
  /** Area of the feature (made valid when it is not), m². */
  featureAreaM2: number;
  /** feature ∩ AOI (the feature itself when wholly inside), WKB. */
  piece: Uint8Array;
}

/** Overlap of a polygonal feature with the AOI; null when the intersection has no area. */
export function featureOverlap(aoi: PreparedAoi, wkb: Uint8Array): FeatureOverlap | null {
  const ov = aoi.overlay(wkb);
  if (ov.relation === 'outside') return null;
  const featureAreaM2 = wkbPolygonalAreaM2(ov.feature);
  if (ov.relation === 'inside') return featureAreaM2 > 0 ? { interAreaM2: featureAreaM2, featureAreaM2, piece: ov.feature } : null;
  const piece = ov.piece as Uint8Array;
  const interAreaM2 = wkbPolygonalAreaM2(piece);
  if (!(interAreaM2 > 0)) return null;
  // Rounding can make a clipped piece a hair larger than its feature.
  return { interAreaM2, featureAreaM2: Math.max(featureAreaM2, interAreaM2), piece };
}

/** Growable piece storage. */
class Pieces {
  bytes = new Uint8Array(64 * 1024);
  used = 0;
  offsets: number[] = [0];
  boxes: number[] = [];
  areas: number[] = [];
  present: number[] = [];

  add(wkb: Uint8Array, area: number, present: readonly boolean[]): void {
    if (this.used + wkb.length > this.bytes.length) {
      const grown = new Uint8Array(Math.max(2 * this.bytes.length, this.used + wkb.length));
      grown.set(this.bytes.subarray(0, this.used));
      this.bytes = grown;
    }
    this.bytes.set(wkb, this.used);
    this.used += wkb.length;
    this.offsets.push(this.used);
    const b = wkbBBox(wkb) ?? [0, 0, 0, 0];
    this.boxes.push(b[0], b[1], b[2], b[3]);
    this.areas.push(area);
    for (const p of present) this.present.push(p ? 1 : 0);
  }

  done(): PieceSet {
    const boxes = Float64Array.from(this.boxes);
    // Which pieces overlap another of this chunk (the chunk's share of data_area's sweep, done here in the worker).
    const linked = new Uint8Array(this.areas.length);
    for (const g of overlapGroups(boxes)) for (const i of g) linked[i] = 1;
    return {
      bytes: this.bytes.slice(0, this.used),
      offsets: Uint32Array.from(this.offsets),
      boxes,
      areas: Float64Array.from(this.areas),
      present: Uint8Array.from(this.present),
      linked,
    };
  }
}

/**
 * The chunk's partials. `aoi` is the prepared AOI for an area AOI (unused for a bare point, whose touch
 * test is exact arithmetic in touch.ts).
 */
export function tallyChunk(task: VectorChunkTask, aoi: PreparedAoi | null): VectorChunkResult {
  const { names, weighted, byArea, bytes, offsets, values } = task;
  const columns = values.map(() => ({ acc: createAccumulator({ names, weighted, countItems: true }), n: 0, share: 0 }));
  const pieces = new Pieces();
  const present = values.map(() => false);
  const features = offsets.length - 1;
  for (let i = 0; i < features; i++) {
    const start = offsets[i] as number;
    const end = offsets[i + 1] as number;
    if (end <= start) continue;
    const wkb = bytes.subarray(start, end);
    let weight = 1;
    let share = 1;
    let piece: FeatureOverlap | null = null;
    if (task.aoi.kind === 'point') {
      const shape = wkbToShape(wkb);
      if (shape === null || !touchesPoint(shape, task.aoi.lon, task.aoi.lat)) continue;
    } else {
      const kind = wkbKind(wkb);
      if (kind === null) continue;
      if (kind === 'polygon') {
        piece = featureOverlap(aoi as PreparedAoi, wkb);
        if (piece === null) continue;
        share = piece.interAreaM2 / piece.featureAreaM2;
        weight = byArea ? piece.interAreaM2 : share;
      } else if (!(aoi as PreparedAoi).meets(wkb)) {
        continue;
      }
    }
    let any = false;
    for (let c = 0; c < values.length; c++) {
      const v = (values[c] as Float64Array)[i] as number;
      present[c] = !Number.isNaN(v);
      if (!present[c]) continue;
      any = true;
      const col = columns[c] as (typeof columns)[number];
      col.acc.add(v, weight);
      col.n += 1;
      col.share += v * share;
    }
    if (piece !== null && any) pieces.add(piece.piece, piece.interAreaM2, present);
  }
  return { columns: columns.map((c) => ({ acc: c.acc.snapshot(), n: c.n, share: c.share })), pieces: pieces.done() };
}
