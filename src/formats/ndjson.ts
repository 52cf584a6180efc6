/**
 * NDJSON: one line per zone (or zone × Item row), written as each zone is answered, in input order. A
 * failure of the request after the first lines ends the stream with a line `{"error": …}`.
 */
import type { StatsResponse, ZoneError, ZoneOutcome } from '../zonal/model.ts';
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

/** The JSON of zoneLine(o), from the zone's and the step's cached parts where it has no Item and no error. */
function lineOf(o: ZoneOutcome): string {
  if (o.item !== undefined || o.error || o.statistics === undefined) return JSON.stringify(zoneLine(o));
  let prefix = prefixes.get(o.zone);
  if (prefix === undefined) {
    prefix = JSON.stringify({ index: o.zone.index, id: o.zone.id, properties: o.zone.properties }).slice(0, -1);
    prefixes.set(o.zone, prefix);
  }
  let coords = '';
  if (o.coords) {
    const known = members.get(o.coords);
    if (known !== undefined) coords = known;
    else {
      // A dimension named like a line's own member takes its place (zoneLine's spread): not cached here.
      if (Object.keys(o.coords).some((k) => BASE_KEYS.has(k))) return JSON.stringify(zoneLine(o));
      const json = JSON.stringify(o.coords);
      coords = json === '{}' ? '' : `,${json.slice(1, -1)}`;
      members.set(o.coords, coords);
    }
  }
  return `${prefix}${coords},"statistics":${JSON.stringify(o.statistics)}}`;
}

export const ndjson: Format = {
  name: 'ndjson',
  mediaType: 'application/x-ndjson; charset=utf-8',
  accepts: ['application/x-ndjson', 'application/ndjson'],
  extensions: ['ndjson', 'jsonl'],
  streams: true,
  async *write(outcomes) {
    for await (const o of outcomes) yield `${lineOf(o)}\n`;
  },
  failure: (error) => `${JSON.stringify({ error })}\n`,
};
