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

export const ndjson: Format = {
  name: 'ndjson',
  mediaType: 'application/x-ndjson; charset=utf-8',
  accepts: ['application/x-ndjson', 'application/ndjson'],
  extensions: ['ndjson', 'jsonl'],
  streams: true,
  async *write(outcomes) {
    for await (const o of outcomes) yield `${JSON.stringify(zoneLine(o))}\n`;
  },
  failure: (error) => `${JSON.stringify({ error })}\n`,
};
