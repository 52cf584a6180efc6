/** The shapes of a zones file read by reference: its format, the options, a reader of slices and a slice. */
import type { ZoneInput as Zone } from '../zonal/model.ts';

export type ZonesFormat = 'geojson' | 'geoparquet' | 'csv';

export interface ZonesFile {
  /** In file order; each zone's `index` is its position in the whole file. */
  zones: Zone[];
  /** Why a zone's geometry could not be read (by zone index): reported as that zone's error detail. */
  unreadable: Map<number, string>;
}

export interface ZonesOptions {
  /** CSV: the geometry column (default `geometry`, else `wkt`, any case); GeoParquet: default the primary column. */
  geometryColumn?: string;
  /** The column whose value is the zone's `id` (CSV default: `id` when there is one; GeoParquet: numeric columns only). */
  idColumn?: string;
  /** Default: by the file's extension, else by its first bytes. */
  format?: ZonesFormat;
}

/** An opened zones file: its format, how many zones it has, and any slice of them. */
export interface ZonesReader {
  format: ZonesFormat;
  count: number;
  /** Zones [start, end) of the file (end clamped to `count`), numbered by their position in the whole file. */
  read(start: number, end: number): Promise<ZonesFile>;
}

/** [start, end) checked (whole numbers, 0 ≤ start ≤ end) and clamped to the file's `count`. */
export function sliceBounds(start: number, end: number, count: number): [number, number] {
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
    throw new RangeError(`read(${start}, ${end}): start and end must be whole numbers with 0 ≤ start ≤ end`);
  }
  return [Math.min(start, count), Math.min(end, count)];
}
