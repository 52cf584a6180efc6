/**
 * NDJSON: one line per zone (or zone × Item row), written as each zone is answered, in input order. A
 * failure of the request after the first lines ends the stream with a line `{"error": …}`.
 */
import type { Answered, StatsResponse, ZoneError, ZoneOutcome, ZoneRows } from '../zonal/model.ts';
import { isRows, rowAt } from '../zonal/rows.ts';
import type { Format } from './format.ts';
import { rowsPieceBytes, type RowsPiece } from '../workers/ndjson-rows.ts';

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
/** Rows per piece written by a worker (FormatOptions.rowsText): ~1 MB, few enough tasks that their round trips do not count. */
const ROWS_PER_TASK = 4096;
/** Pieces written by the workers ahead of the one being sent. */
const TASKS_AHEAD = 8;

/** `,"statistics":{"<key>":{` and each name's `"<name>":` (with its comma), once per table. */
const heads = new WeakMap<ZoneRows['rows'], { open: string; heads: string[] }>();

/**
 * Rows [from, to) of a zone's packed rows as a piece of plain data (workers/ndjson-rows.ts); null where a row's
 * coordinates cannot be members of its line (a dimension named like one: lineOf's object then).
 */
function pieceOf(z: ZoneRows, from: number, to: number, own: boolean): RowsPiece | null {
  const r = z.rows;
  let head = heads.get(r);
  if (head === undefined) {
    head = { open: `,"statistics":{${JSON.stringify(r.key)}:{`, heads: r.names.map((n, k) => `${k === 0 ? '' : ','}${JSON.stringify(n)}:`) };
    heads.set(r, head);
  }
  // The rows' coordinates as one text (one string to send, not one a row) and where each row's ends.
  let coords = '';
  const coordEnds = new Int32Array(to - from);
  for (let i = from; i < to; i++) {
    const members = coordsText(r.coords(i));
    if (members === null) return null;
    coords += members;
    coordEnds[i - from] = coords.length;
  }
  const n = r.names.length;
  // For a worker, a copy of the rows' numbers: a view would take the whole table's buffer along.
  const values = own ? r.values.slice(from * n, to * n) : r.values.subarray(from * n, to * n);
  return {
    prefix: prefixOf(z.zone),
    coords,
    coordEnds,
    open: head.open,
    heads: head.heads,
    names: r.names as string[],
    values,
    extra: r.extra?.slice(from, to) ?? null,
  };
}

/** The lines of rows [from, to) of a zone's packed rows: the same bytes as each row's lineOf, without an object a row. */
function rowsText(z: ZoneRows, from: number, to: number): string | Uint8Array {
  const piece = pieceOf(z, from, to, false);
  return piece !== null ? rowsPieceBytes(piece) : objectLines(z, from, to);
}

/** The lines of rows [from, to) through each row's object (a dimension named like a line's own member). */
function objectLines(z: ZoneRows, from: number, to: number): string {
  let text = '';
  for (let i = from; i < to; i++) text += `${lineOf(rowAt(z, i))}\n`;
  return text;
}

/** The outcomes' pieces, packed rows written by `render` (a worker) up to TASKS_AHEAD pieces ahead of the one sent. */
async function* rendered(outcomes: AsyncIterable<Answered>, render: (piece: RowsPiece) => Promise<Uint8Array>): AsyncGenerator<string | Uint8Array> {
  const it = outcomes[Symbol.asyncIterator]();
  const queue: Promise<string | Uint8Array>[] = [];
  const push = (p: Promise<string | Uint8Array>): void => {
    // Awaited in turn; one left behind when the client goes must not be an unhandled rejection.
    p.catch(() => undefined);
    queue.push(p);
  };
  let done = false;
  // The zone whose rows are being handed out, and its next row: pieces are made as the queue has room, so that
  // a zone of a million steps holds TASKS_AHEAD pieces at a time too.
  let zone: ZoneRows | null = null;
  let row = 0;
  try {
    for (;;) {
      while (queue.length < TASKS_AHEAD) {
        if (zone !== null && row < zone.rows.count) {
          const to = Math.min(zone.rows.count, row + ROWS_PER_TASK);
          const piece = pieceOf(zone, row, to, true);
          push(piece === null ? Promise.resolve(objectLines(zone, row, to)) : render(piece));
          row = to;
          continue;
        }
        if (done) break;
        const next = await it.next();
        if (next.done === true) done = true;
        else if (!isRows(next.value)) push(Promise.resolve(`${lineOf(next.value)}\n`));
        else [zone, row] = [next.value, 0];
      }
      const first = queue.shift();
      if (first === undefined) return;
      yield await first;
    }
  } finally {
    if (!done) await it.return?.();
  }
}

export const ndjson: Format = {
  name: 'ndjson',
  mediaType: 'application/x-ndjson; charset=utf-8',
  accepts: ['application/x-ndjson', 'application/ndjson'],
  extensions: ['ndjson', 'jsonl'],
  streams: true,
  async *write(outcomes, options) {
    if (options.rowsText) {
      yield* rendered(outcomes, options.rowsText);
      return;
    }
    for await (const o of outcomes) {
      if (!isRows(o)) yield `${lineOf(o)}\n`;
      else for (let i = 0; i < o.rows.count; i += ROWS_PER_PIECE) yield rowsText(o, i, Math.min(o.rows.count, i + ROWS_PER_PIECE));
    }
  },
  failure: (error) => `${JSON.stringify({ error })}\n`,
};
