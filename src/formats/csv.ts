/**
 * CSV (RFC 4180): one row per zone and band (or column): index, id, the input property columns, the Item
 * (zones × time), band/column, the statistics, the areas, the error. Written once every zone is in: its
 * columns depend on all of them.
 */
import type { ZoneOutcome } from '../zonal/model.ts';
import { eachRow } from '../zonal/rows.ts';
import type { Format } from './format.ts';

/** RFC 4180 field: quoted when it holds a comma, quote or line break. */
function csvField(v: unknown): string {
  if (v === null || v === undefined) return '';
  const text = typeof v === 'object' ? JSON.stringify(v) : String(v);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Names in order of first appearance. */
function firstSeen(lists: Iterable<Iterable<string>>, skip: readonly string[] = []): string[] {
  const seen = new Set<string>(skip);
  const out: string[] = [];
  for (const list of lists) {
    for (const k of list) {
      if (seen.has(k)) continue;
      seen.add(k);
      out.push(k);
    }
  }
  return out;
}

function toCsv(outcomes: readonly ZoneOutcome[], keyName: 'band' | 'column' | 'variable'): string {
  const props = firstSeen(outcomes.map((o) => Object.keys(o.zone.properties ?? {})));
  const stats = firstSeen(
    outcomes.flatMap((o) => Object.values(o.statistics ?? {}).map((s) => Object.keys(s))),
    ['aoi_area', 'data_area'],
  );
  // zones × time: each row's Item after the zone's own columns.
  const items = outcomes.some((o) => o.item !== undefined);
  // A cube's rows: each iterated dimension's coordinate; a mosaic's rows: the Items merged, as a JSON list.
  const dims = firstSeen(outcomes.map((o) => Object.keys(o.coords ?? {})));
  const merged = outcomes.some((o) => o.item?.item_ids !== undefined);
  const itemColumns = items ? ['item_id', 'datetime', ...(merged ? ['item_ids'] : [])] : [];
  const header = ['index', 'id', ...props, ...itemColumns, ...dims, keyName, ...stats, 'aoi_area', 'data_area', 'error_code', 'error_detail'];
  const rows = [header.map(csvField).join(',')];
  for (const o of outcomes) {
    const lead = [
      o.zone.index,
      o.zone.id,
      ...props.map((p) => o.zone.properties?.[p]),
      ...(items ? [o.item?.id, o.item?.datetime] : []),
      ...(merged ? [o.item?.item_ids] : []),
      ...dims.map((d) => o.coords?.[d]),
    ];
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

export const csv: Format = {
  name: 'csv',
  mediaType: 'text/csv; charset=utf-8',
  accepts: ['text/csv'],
  extensions: ['csv'],
  streams: false,
  async *write(outcomes, options) {
    const all: ZoneOutcome[] = [];
    for await (const o of eachRow(outcomes)) all.push(o);
    yield toCsv(all, options.keyName);
  },
};
