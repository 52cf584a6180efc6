/**
 * Pure: `sel` on a cube's non-spatial dimensions. One value pins a dimension (exactly, or the nearest with
 * `sel_method: "nearest"`); an inclusive range or a list keeps those steps (in axis order, whatever the
 * list's order); a dimension not named is kept whole. A value not on the axis is a 422 naming the nearest.
 */
import { ZonalError } from '../errors.ts';
import { formatTime, parseDate, timeValue, type TimeAxis } from './cf-time.ts';

type SelValue = number | string;
export type Sel = SelValue | SelValue[] | { start?: SelValue; end?: SelValue };

/** A non-spatial dimension of the variable: its coordinate values (raw) and, for a time axis, how they read. */
export interface Dimension {
  name: string;
  values: ArrayLike<number>;
  time: TimeAxis | null;
}

/** The steps kept along one dimension: indexes into its axis, ascending; `pinned` when one value was asked (it is then not a row's coordinate). */
export interface Selected {
  indexes: number[];
  pinned: boolean;
}

/** A coordinate as the rows give it: time as ISO 8601 text, others as numbers. */
export function coordinateOf(dim: Dimension, i: number): string | number {
  const v = dim.values[i] as number;
  return dim.time ? formatTime(dim.time, v) : v;
}

function fail(path: string, detail: string): ZonalError {
  return new ZonalError('selection_not_found', detail, { errors: [{ path, message: detail }] });
}

/**
 * A requested value as a value of the axis. With `end`, a date-only time gives the start of the next day,
 * and `before` says the bound excludes it (the range takes that whole day).
 */
function boundOf(dim: Dimension, v: SelValue, path: string, end: boolean): { t: number; before: boolean } {
  const date = dim.time && end && typeof v === 'string' ? parseDate(v) : null;
  if (dim.time && date?.dateOnly) return { t: valueOf(dim, v, path) + 86400 / dim.time.unitSeconds, before: true };
  return { t: valueOf(dim, v, path), before: false };
}

/** A requested value as a value of the axis. */
function valueOf(dim: Dimension, v: SelValue, path: string): number {
  if (dim.time) {
    if (typeof v !== 'string') throw fail(path, `"${dim.name}" is a time axis: give its values as ISO 8601 dates (2020-01-31 or 2020-01-31T06:00:00Z).`);
    const date = parseDate(v);
    const t = date === null ? null : timeValue(dim.time, date);
    if (t === null) throw fail(path, `${JSON.stringify(v)} is not a date of the "${dim.name}" axis's calendar.`);
    return t;
  }
  if (typeof v !== 'number') throw fail(path, `"${dim.name}" takes numbers, not ${JSON.stringify(v)}.`);
  return v;
}

/** Whether two axis values are the same step (float coordinates written and read back). */
function same(a: number, b: number): boolean {
  return a === b || Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
}

/** The index of the value on the axis nearest to `t`. */
function nearest(values: ArrayLike<number>, t: number): number {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (Math.abs((values[i] as number) - t) < Math.abs((values[best] as number) - t)) best = i;
  return best;
}

function one(dim: Dimension, v: SelValue, path: string, method: 'exact' | 'nearest'): number {
  const t = valueOf(dim, v, path);
  const i = nearest(dim.values, t);
  if (method === 'nearest' || same(dim.values[i] as number, t)) return i;
  const below = [...Array(dim.values.length).keys()].filter((k) => (dim.values[k] as number) < t).pop();
  const above = [...Array(dim.values.length).keys()].find((k) => (dim.values[k] as number) > t);
  const near = [below, above].filter((k): k is number => k !== undefined).map((k) => JSON.stringify(coordinateOf(dim, k)));
  throw fail(
    path,
    `${JSON.stringify(v)} is not on the "${dim.name}" axis${near.length > 0 ? `: the nearest are ${near.join(' and ')}` : ''} (or ask with "sel_method": "nearest").`,
  );
}

/** The steps `sel` keeps along `dim` (all of them when it says nothing of it). */
export function selectDim(dim: Dimension, sel: Sel | undefined, method: 'exact' | 'nearest'): Selected {
  const n = dim.values.length;
  const path = `/sel/${dim.name}`;
  if (sel === undefined) return { indexes: [...Array(n).keys()], pinned: false };
  if (Array.isArray(sel)) {
    const picked = new Set(sel.map((v, k) => one(dim, v, `${path}/${k}`, method)));
    return { indexes: [...picked].sort((a, b) => a - b), pinned: false };
  }
  if (typeof sel === 'object') {
    const lo = sel.start === undefined ? -Infinity : valueOf(dim, sel.start, `${path}/start`);
    const hi = sel.end === undefined ? { t: Infinity, before: false } : boundOf(dim, sel.end, `${path}/end`, true);
    const indexes = [...Array(n).keys()].filter((i) => {
      const v = dim.values[i] as number;
      const upTo = hi.before ? v < hi.t && !same(v, hi.t) : v <= hi.t || same(v, hi.t);
      return (v >= lo || same(v, lo)) && upTo;
    });
    if (indexes.length === 0) {
      const first = JSON.stringify(coordinateOf(dim, 0));
      const last = JSON.stringify(coordinateOf(dim, n - 1));
      throw fail(path, `No step of "${dim.name}" lies in that range: the axis runs from ${first} to ${last}.`);
    }
    return { indexes, pinned: false };
  }
  return { indexes: [one(dim, sel, path, method)], pinned: true };
}
