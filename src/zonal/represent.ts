/**
 * Pure: the representations of many zones' outcomes (CONTRACT §8), shared by the HTTP answer
 * (http/zones.ts) and the command line (cli/): the NDJSON line of a zone, its GeoJSON Feature, and the CSV
 * table of one row per zone and band (or column).
 */
import type { StatsResponse } from '../schemas/response.ts';
import type { ZoneError, ZoneOutcome } from './zones.ts';

/** One NDJSON line: `{"index", "id", "properties", "statistics" | "error"}`. */
export interface ZoneLine {
  index: number;
  id: string | number | null;
  properties: Record<string, unknown> | null;
  /** zones × time: the row's STAC Item (null: a zone's row without one). */
  item_id?: string | null;
  datetime?: string | null;
  statistics?: StatsResponse;
  error?: ZoneError;
}

/** The NDJSON line of a zone. */
export function zoneLine(o: ZoneOutcome): ZoneLine {
  const base: ZoneLine = { index: o.zone.index, id: o.zone.id, properties: o.zone.properties };
  if (o.item !== undefined) {
    base.item_id = o.item?.id ?? null;
    base.datetime = o.item?.datetime ?? null;
  }
  return o.error ? { ...base, error: o.error } : { ...base, statistics: o.statistics as StatsResponse };
}

/** The GeoJSON Feature of a zone: its properties plus `statistics` or `error`; its geometry only when asked. */
export function zoneFeature(o: ZoneOutcome, includeGeometry: boolean): Record<string, unknown> {
  const item = o.item === undefined ? {} : { item_id: o.item?.id ?? null, datetime: o.item?.datetime ?? null };
  const properties = { ...(o.zone.properties ?? {}), ...item, ...(o.error ? { error: o.error } : { statistics: o.statistics }) };
  return { type: 'Feature', id: o.zone.id, geometry: includeGeometry ? (o.zone.geometry ?? null) : null, properties };
}

/** RFC 4180 field: quoted when it holds a comma, quote or line break. */
function csvField(v: unknown): string {
  if (v === null || v === undefined) return '';
  const text = typeof v === 'object' ? JSON.stringify(v) : String(v);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** CSV: index, id, the input property columns, band/column, the statistics, areas, error. */
export function toCsv(outcomes: readonly ZoneOutcome[], keyName: 'band' | 'column'): string {
  const props: string[] = [];
  const stats: string[] = [];
  const seenProps = new Set<string>();
  const seenStats = new Set<string>(['aoi_area', 'data_area']);
  for (const o of outcomes) {
    for (const k of Object.keys(o.zone.properties ?? {})) {
      if (!seenProps.has(k)) {
        seenProps.add(k);
        props.push(k);
      }
    }
    for (const s of Object.values(o.statistics ?? {})) {
      for (const k of Object.keys(s)) {
        if (!seenStats.has(k)) {
          seenStats.add(k);
          stats.push(k);
        }
      }
    }
  }
  // zones × time: each row's Item after the zone's own columns.
  const items = outcomes.some((o) => o.item !== undefined);
  const header = ['index', 'id', ...props, ...(items ? ['item_id', 'datetime'] : []), keyName, ...stats, 'aoi_area', 'data_area', 'error_code', 'error_detail'];
  const rows = [header.map(csvField).join(',')];
  for (const o of outcomes) {
    const lead = [o.zone.index, o.zone.id, ...props.map((p) => o.zone.properties?.[p]), ...(items ? [o.item?.id, o.item?.datetime] : [])];
    if (o.error) {
      rows.push([...lead, '', ...stats.map(() => ''), '', '', o.error.code, o.error.detail].map(csvField).join(','));
      continue;
    }
    for (const [key, s] of Object.entries(o.statistics ?? {})) {
      const rec = s as Record<string, unknown>;
      const name = keyName === 'band' ? key.replace(/^band_/, '') : key;
      rows.push([...lead, name, ...stats.map((k) => rec[k]), rec['aoi_area'], rec['data_area'], '', ''].map(csvField).join(','));
    }
  }
  return `${rows.join('\r\n')}\r\n`;
}
