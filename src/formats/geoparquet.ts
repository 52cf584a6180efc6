/**
 * GeoParquet 1.1: one row per zone (or zone × Item row): index, id, the properties, one column per
 * band/column and statistic, the error, and the zone's WKB geometry in lon/lat (OGC:CRS84). Written with
 * hyparquet-writer (the only file importing it) once every zone is in.
 */
import { geojsonToWkb, parquetWriteBuffer, schemaFromColumnData } from 'hyparquet-writer';
import type { ColumnSource } from 'hyparquet-writer';
import type { ZoneOutcome } from '../zonal/model.ts';
import { eachRow } from '../zonal/rows.ts';
import type { Format } from './format.ts';

/** Names the zone columns take; a property of the same name becomes `property_<name>`. */
const RESERVED = new Set(['index', 'id', 'item_id', 'datetime', 'item_ids', 'geometry', 'error_code', 'error_detail']);

/** A column of lists of numbers (unique, the per-cell statistics): Parquet's LIST of DOUBLE. */
interface ListColumn {
  list: true;
  name: string;
  data: (number[] | null)[];
}

/** Parquet's three-level LIST of optional DOUBLEs. */
function listSchema(name: string) {
  return [
    { name, repetition_type: 'OPTIONAL' as const, converted_type: 'LIST' as const, num_children: 1 },
    { name: 'list', repetition_type: 'REPEATED' as const, num_children: 1 },
    { name: 'element', type: 'DOUBLE' as const, repetition_type: 'OPTIONAL' as const },
  ];
}

/**
 * A column of plain values: DOUBLE when every value is a number, BOOLEAN when every one is a boolean, a LIST of
 * DOUBLE when every one is a list of numbers, else text (maps as JSON).
 */
function column(name: string, values: unknown[]): ColumnSource | ListColumn {
  const present = values.filter((v) => v !== null && v !== undefined);
  if (present.length > 0 && present.every((v) => Array.isArray(v) && v.every((x) => typeof x === 'number')))
    return { list: true, name, data: values.map((v) => (Array.isArray(v) ? (v as number[]) : null)) };
  if (present.length > 0 && present.every((v) => typeof v === 'number'))
    return { name, data: values.map((v) => (typeof v === 'number' ? v : null)), type: 'DOUBLE' };
  if (present.length > 0 && present.every((v) => typeof v === 'boolean'))
    return { name, data: values.map((v) => (typeof v === 'boolean' ? v : null)), type: 'BOOLEAN' };
  const text = values.map((v) => (v === null || v === undefined ? null : typeof v === 'object' ? JSON.stringify(v) : String(v)));
  return { name, data: text, type: 'STRING' };
}

const WKB_TYPES = new Set(['Point', 'MultiPoint', 'LineString', 'MultiLineString', 'Polygon', 'MultiPolygon']);

/** Each zone's WKB (null: none or unreadable), and the geometry types written. */
function geometries(outcomes: readonly ZoneOutcome[]): { wkb: (Uint8Array | null)[]; types: string[] } {
  const types = new Set<string>();
  const wkb = outcomes.map((o) => {
    const g = o.zone.geometry as { type?: unknown } | null;
    if (!g || typeof g !== 'object' || typeof g.type !== 'string' || !WKB_TYPES.has(g.type)) return null;
    try {
      const bytes = geojsonToWkb(g as Parameters<typeof geojsonToWkb>[0]);
      types.add(g.type);
      return bytes;
    } catch {
      return null;
    }
  });
  return { wkb, types: [...types].sort() };
}

function toGeoParquet(outcomes: readonly ZoneOutcome[]): Uint8Array {
  const props: string[] = [];
  const statColumns = new Map<string, { key: string; stat: string }>();
  for (const o of outcomes) {
    for (const k of Object.keys(o.zone.properties ?? {})) if (!props.includes(k)) props.push(k);
    for (const [key, s] of Object.entries(o.statistics ?? {})) for (const stat of Object.keys(s)) statColumns.set(`${key}_${stat}`, { key, stat });
  }
  const items = outcomes.some((o) => o.item !== undefined);
  const dims: string[] = [];
  for (const o of outcomes) for (const k of Object.keys(o.coords ?? {})) if (!dims.includes(k)) dims.push(k);
  const taken = new Set([...RESERVED, ...statColumns.keys()]);
  const { wkb, types } = geometries(outcomes);
  const columns: (ColumnSource | ListColumn)[] = [
    { name: 'index', data: outcomes.map((o) => o.zone.index), type: 'INT32' },
    column(
      'id',
      outcomes.map((o) => o.zone.id),
    ),
    ...props.map((p) =>
      column(
        taken.has(p) ? `property_${p}` : p,
        outcomes.map((o) => o.zone.properties?.[p]),
      ),
    ),
    ...(items
      ? [
          { name: 'item_id', data: outcomes.map((o) => o.item?.id ?? null), type: 'STRING' as const },
          { name: 'datetime', data: outcomes.map((o) => o.item?.datetime ?? null), type: 'STRING' as const },
        ]
      : []),
    // A mosaic's rows: the Items merged, as a JSON list.
    ...(outcomes.some((o) => o.item?.item_ids !== undefined)
      ? [
          column(
            'item_ids',
            outcomes.map((o) => o.item?.item_ids ?? null),
          ),
        ]
      : []),
    // A cube's rows: each iterated dimension's coordinate (time as text).
    ...dims.map((d) =>
      column(
        d,
        outcomes.map((o) => o.coords?.[d]),
      ),
    ),
    ...[...statColumns].map(([name, { key, stat }]) =>
      column(
        name,
        outcomes.map((o) => (o.statistics?.[key] as Record<string, unknown> | undefined)?.[stat]),
      ),
    ),
    { name: 'error_code', data: outcomes.map((o) => o.error?.code ?? null), type: 'STRING' },
    { name: 'error_detail', data: outcomes.map((o) => o.error?.detail ?? null), type: 'STRING' },
    { name: 'geometry', data: wkb, type: 'BYTE_ARRAY' },
  ];
  const geo = { version: '1.1.0', primary_column: 'geometry', columns: { geometry: { encoding: 'WKB', geometry_types: types } } };
  // The schema written out: each plain column's as the writer infers it, a list column's as a LIST of DOUBLE.
  const schema = [
    { name: 'root', num_children: columns.length },
    ...columns.flatMap((c) => ('list' in c ? listSchema(c.name) : schemaFromColumnData({ columnData: [c] }).slice(1))),
  ];
  // With an explicit schema the writer takes each column's data alone.
  const columnData = columns.map((c): ColumnSource => ({ name: c.name, data: c.data }));
  return new Uint8Array(parquetWriteBuffer({ columnData, schema, kvMetadata: [{ key: 'geo', value: JSON.stringify(geo) }] }));
}

export const geoparquet: Format = {
  name: 'geoparquet',
  mediaType: 'application/vnd.apache.parquet',
  accepts: ['application/vnd.apache.parquet', 'application/x-parquet'],
  extensions: ['parquet', 'geoparquet'],
  streams: false,
  binary: true,
  async *write(outcomes) {
    const all: ZoneOutcome[] = [];
    for await (const o of eachRow(outcomes)) all.push(o);
    yield toGeoParquet(all);
  },
};
