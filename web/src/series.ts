/**
 * An answer with several rows per zone (zones × time of raster/stac/search, a cube's dimensions) as lines:
 * one per zone, the chosen statistic of the chosen band/variable against one coordinate (the x axis), the other
 * coordinates held at a chosen value. No DOM: the page draws what this returns, tests read it.
 */
import type { Coordinate, ResultRow, ResultTable } from './table.ts';

/** A dimension the rows vary along: its name and its values as axis labels, in axis order. */
interface Dimension {
  name: string;
  values: string[];
}

export interface SeriesOptions {
  keys: string[];
  /** per key, the statistics that are a number on some row of it */
  stats: Record<string, string[]>;
  dims: Dimension[];
  /** the dimension drawn along x unless the user picks another: datetime or time, else a dimension of dates, else the first */
  x: string;
}

export interface SeriesChoice {
  key: string;
  stat: string;
  x: string;
  /** the value (label) each other dimension is held at */
  at: Record<string, string>;
}

interface SeriesLine {
  zone: number;
  /** the zone's id, else "zone <index>" */
  name: string;
  points: { x: string; y: number | null }[];
}

export interface SeriesData {
  labels: string[];
  lines: SeriesLine[];
}

/** Milliseconds of an ISO 8601 date or date-time of the real calendar; null otherwise (Date.parse takes 2001-02-30). */
export function isoTime(text: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/.exec(text);
  if (!m) return null;
  const [y, mo, d, h = 0, mi = 0, s = 0] = m.slice(1, 7).map((v) => (v === undefined ? undefined : Number(v)));
  const t = Date.UTC(y!, mo! - 1, d!, h, mi, s);
  const date = new Date(t);
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo! - 1 || date.getUTCDate() !== d || h > 23 || mi > 59 || s > 60) return null;
  const zone = m[8];
  const offset = zone && zone !== 'Z' ? (zone[0] === '-' ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(-2))) : 0;
  return t + Number(m[7] ?? 0) * 1000 - offset * 60_000;
}

/** A coordinate as an axis label (its exact text); null where the row has none. */
function label(c: Coordinate | undefined): string | null {
  return c === null || c === undefined ? null : String(c);
}

/** Labels in axis order: by time when every one is a date of the real calendar, else as the answer gives them. */
function axisOrder(labels: string[]): string[] {
  const times = labels.map(isoTime);
  if (times.every((t) => t !== null))
    return labels
      .map((l, i) => [l, times[i]!] as const)
      .sort((a, b) => a[1] - b[1])
      .map(([l]) => l);
  return labels;
}

function dimensionsOf(rows: readonly ResultRow[], names: readonly string[]): Dimension[] {
  const dims = names.map((name) => {
    const seen = new Set<string>();
    for (const r of rows) {
      const l = label(r.coords[name]);
      if (l !== null) seen.add(l);
    }
    return { name, values: axisOrder([...seen]) };
  });
  // An Item's id names the row's Item, not an axis: drawn along only when nothing else is.
  const axes = dims.filter((d) => d.values.length > 0 && d.name !== 'item_id');
  return axes.length > 0 ? axes : dims.filter((d) => d.values.length > 0);
}

/** What can be drawn, or null when no zone has more than one row (the histogram of a row is shown then). */
export function seriesOptions(table: ResultTable): SeriesOptions | null {
  const perZone = new Map<number, number>();
  const rows = table.rows.filter((r) => !r.error);
  for (const r of rows) perZone.set(r.zone, (perZone.get(r.zone) ?? 0) + (r.key === rows[0]?.key ? 1 : 0));
  if (![...perZone.values()].some((n) => n > 1)) return null;
  const dims = dimensionsOf(rows, table.coordNames);
  if (dims.length === 0) return null;
  const keys: string[] = [];
  const stats: Record<string, string[]> = {};
  for (const r of rows) {
    if (!keys.includes(r.key)) keys.push(r.key);
    const list = (stats[r.key] ??= []);
    for (const name of table.statNames) if (typeof r.values[name] === 'number' && !list.includes(name)) list.push(name);
  }
  const dated = dims.find((d) => d.values.every((v) => isoTime(v) !== null || /^\d{4}-\d{2}-\d{2}/.test(v)));
  const x = (dims.find((d) => d.name === 'datetime') ?? dims.find((d) => d.name === 'time') ?? dated ?? dims[0]!).name;
  return { keys, stats, dims, x };
}

/** The first choice: the first key, its mean (else its first statistic), x as offered, every other dimension at its first value. */
export function defaultChoice(options: SeriesOptions): SeriesChoice {
  const key = options.keys[0] ?? '';
  const stats = options.stats[key] ?? [];
  return { key, stat: stats.includes('mean') ? 'mean' : (stats[0] ?? ''), x: options.x, at: holdAt(options, options.x, {}) };
}

/** Each dimension other than x at its value in `at` if it has it, else at its first. */
export function holdAt(options: SeriesOptions, x: string, at: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of options.dims) if (d.name !== x) out[d.name] = at[d.name] !== undefined && d.values.includes(at[d.name]!) ? at[d.name]! : d.values[0]!;
  return out;
}

/** One line per zone with a row of the choice (rows that failed have no point); points in axis order. */
export function seriesData(table: ResultTable, options: SeriesOptions, choice: SeriesChoice): SeriesData {
  const labels = options.dims.find((d) => d.name === choice.x)?.values ?? [];
  const order = new Map(labels.map((l, i) => [l, i]));
  const lines = new Map<number, SeriesLine>();
  for (const r of table.rows) {
    if (r.error || r.key !== choice.key) continue;
    const x = label(r.coords[choice.x]);
    if (x === null || Object.entries(choice.at).some(([name, v]) => label(r.coords[name]) !== v)) continue;
    const v = r.values[choice.stat];
    let line = lines.get(r.zone);
    if (!line) lines.set(r.zone, (line = { zone: r.zone, name: r.id === null ? `zone ${r.zone}` : String(r.id), points: [] }));
    line.points.push({ x, y: typeof v === 'number' ? v : null });
  }
  for (const line of lines.values()) line.points.sort((a, b) => order.get(a.x)! - order.get(b.x)!);
  return { labels, lines: [...lines.values()] };
}
