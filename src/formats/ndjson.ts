/**
 * NDJSON: one line per zone (or zone × Item row), written as each zone is answered, in input order. A
 * failure of the request after the first lines ends the stream with a line `{"error": …}`.
 */
import type { StatsResponse, ZoneError, ZoneOutcome, ZoneRows } from '../zonal/model.ts';
import { isRows, rowAt } from '../zonal/rows.ts';
import type { Format } from './format.ts';

/** One NDJSON line: `{"index", "id", "properties", "statistics" | "error"}`. */
interface ZoneLine {
  index: number;
  id: string | number | null;
  properties: Record<string, unknown> | null;
  /** zones × time: the row's STAC Item (null: a zone's row without one). */
  item_id?: string | null;
  datetime?: string | null;
  /** A mosaic's row: the Items merged into it, in search order. */
  item_ids?: string[];
  /** A cube's row: the coordinate of each iterated dimension (`time`, `level`, …). */
  [dimension: string]: unknown;
  statistics?: StatsResponse;
  error?: ZoneError;
}

/** The NDJSON line of a zone. */
function zoneLine(o: ZoneOutcome): ZoneLine {
  const base: ZoneLine = { index: o.zone.index, id: o.zone.id, properties: o.zone.properties };
  if (o.item !== undefined) {
    base.item_id = o.item?.id ?? null;
    base.datetime = o.item?.datetime ?? null;
    if (o.item?.item_ids) base.item_ids = o.item.item_ids;
  }
  const line = o.coords ? { ...base, ...o.coords } : base;
  return o.error ? { ...line, error: o.error } : { ...line, statistics: o.statistics as StatsResponse };
}

/** A zone's line up to its coordinates (`{"index":…,"properties":…`), once per zone: a cube writes a line per zone and step. */
const prefixes = new WeakMap<ZoneOutcome['zone'], string>();
/** A step's coordinates as members (`,"time":"…"`), once per coordinates object (cube.ts shares one per step). */
const members = new WeakMap<object, string>();
const BASE_KEYS = new Set(['index', 'id', 'properties', 'statistics']);

/** A zone's line up to its coordinates. */
function prefixOf(zone: ZoneOutcome['zone']): string {
  let prefix = prefixes.get(zone);
  if (prefix === undefined) {
    prefix = JSON.stringify({ index: zone.index, id: zone.id, properties: zone.properties }).slice(0, -1);
    prefixes.set(zone, prefix);
  }
  return prefix;
}

/** A step's coordinates as members; null where a dimension is named like a line's own member (zoneLine's spread takes its place). */
function coordsText(coords: Record<string, string | number>): string | null {
  const known = members.get(coords);
  if (known !== undefined) return known;
  if (Object.keys(coords).some((k) => BASE_KEYS.has(k))) return null;
  const json = JSON.stringify(coords);
  const text = json === '{}' ? '' : `,${json.slice(1, -1)}`;
  members.set(coords, text);
  return text;
}

/** The JSON of zoneLine(o), from the zone's and the step's cached parts where it has no Item and no error. */
function lineOf(o: ZoneOutcome): string {
  if (o.item !== undefined || o.error || o.statistics === undefined) return JSON.stringify(zoneLine(o));
  const coords = o.coords ? coordsText(o.coords) : '';
  if (coords === null) return JSON.stringify(zoneLine(o));
  return `${prefixOf(o.zone)}${coords},"statistics":${JSON.stringify(o.statistics)}}`;
}

/** Rows of packed rows per piece: a zone's 8,760 steps go out in pieces of ~130 kB, the event loop turning between them. */
const ROWS_PER_PIECE = 512;

/** `,"statistics":{"<key>":{` and each name's `"<name>":` (with its comma), once per table. */
const heads = new WeakMap<ZoneRows['rows'], { open: string; names: string[] }>();

/** A number as JSON.stringify writes it (null for NaN and the infinities). */
const numberText = (v: number): string => (Number.isFinite(v) ? String(v) : 'null');

/** The lines of rows [from, to) of a zone's packed rows: the same bytes as each row's lineOf, without an object a row. */
function rowsText(z: ZoneRows, from: number, to: number): string {
  const r = z.rows;
  let head = heads.get(r);
  if (head === undefined) {
    head = { open: `,"statistics":{${JSON.stringify(r.key)}:{`, names: r.names.map((n, k) => `${k === 0 ? '' : ','}${JSON.stringify(n)}:`) };
    heads.set(r, head);
  }
  const { open, names } = head;
  const n = names.length;
  // Each column's last number and its text: counts and areas repeat from step to step.
  const last = new Float64Array(n).fill(Number.NaN);
  const lastText: string[] = names.map(() => 'null');
  let text = '';
  for (let i = from; i < to; i++) {
    const coords = r.coords(i);
    const members = coordsText(coords);
    if (members === null) {
      text += `${lineOf(rowAt(z, i))}\n`;
      continue;
    }
    let line = `${prefixOf(z.zone)}${members}${open}`;
    const more = r.extra?.[i] ?? null;
    for (let k = 0; k < n; k++) {
      const name = r.names[k] as string;
      let value: string;
      if (more !== null && name in more) value = JSON.stringify(more[name]);
      else {
        const v = r.values[i * n + k] as number;
        // Equal numbers have one text (0 and -0 both "0"; NaN is never equal, and writes null).
        if (v !== last[k]) {
          last[k] = v;
          lastText[k] = numberText(v);
        }
        value = lastText[k] as string;
      }
      line += `${names[k] as string}${value}`;
    }
    text += `${line}}}}\n`;
  }
  return text;
}

export const ndjson: Format = {
  name: 'ndjson',
  mediaType: 'application/x-ndjson; charset=utf-8',
  accepts: ['application/x-ndjson', 'application/ndjson'],
  extensions: ['ndjson', 'jsonl'],
  streams: true,
  async *write(outcomes) {
    for await (const o of outcomes) {
      if (!isRows(o)) yield `${lineOf(o)}\n`;
      else for (let i = 0; i < o.rows.count; i += ROWS_PER_PIECE) yield rowsText(o, i, Math.min(o.rows.count, i + ROWS_PER_PIECE));
    }
  },
  failure: (error) => `${JSON.stringify({ error })}\n`,
};
