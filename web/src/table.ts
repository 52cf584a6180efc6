/**
 * The answer as a table: one row per zone (or zone and time/coordinates, where the endpoint answers several
 * rows per zone) and band (raster), column (vector) or variable (cube); the same cells as CSV.
 */
import type { AnswerLine, StatValue, ZoneError } from './api.ts';

/** A row's coordinate: `datetime` "2024-01-15T10:00:00Z", a cube's `time` or `level` 850; null where it has none. */
export type Coordinate = string | number | null;

export interface ResultRow {
  /** the zone's index in the request's aoi */
  zone: number;
  id: string | number | null;
  /** where the endpoint answers several rows per zone: this row's (item_id, datetime; a cube's dimensions) */
  coords: Record<string, Coordinate>;
  /** `band_1`, the column name or the variable; '' for a row that failed */
  key: string;
  values: Record<string, StatValue>;
  error: ZoneError | null;
}

export type KeyName = 'band' | 'column' | 'variable';

export interface ResultTable {
  keyName: KeyName;
  /** every coordinate any row has, in first-seen order */
  coordNames: string[];
  /** every statistic any row has, in first-seen order (the service answers them in request order) */
  statNames: string[];
  rows: ResultRow[];
  hasErrors: boolean;
}

/** What the statistics are keyed by at this endpoint: bands (raster…), columns (vector…), else a cube's variables. */
export function keyNameOf(path: string): KeyName {
  return /\/zonal-stats\/raster(\/|$)/.test(path) ? 'band' : /\/zonal-stats\/vector(\/|$)/.test(path) ? 'column' : 'variable';
}

const LINE_FIELDS = new Set(['index', 'id', 'properties', 'statistics', 'error']);

function coordinate(v: unknown): Coordinate {
  return v === null || v === undefined || typeof v === 'string' || typeof v === 'number' ? (v ?? null) : JSON.stringify(v);
}

/**
 * A line's coordinates: what it carries beside the zone and its answer (item_id, datetime, a cube's dimensions),
 * and the properties that differ between two lines of its zone (a zone's own properties are the same on each).
 */
function coordinatesOf(lines: readonly AnswerLine[]): Record<string, Coordinate>[] {
  const first = new Map<number, Record<string, unknown>>();
  const varying = new Set<string>();
  for (const line of lines) {
    const props = line.properties ?? {};
    const seen = first.get(line.index);
    if (!seen) first.set(line.index, props);
    else for (const k of new Set([...Object.keys(seen), ...Object.keys(props)])) if (JSON.stringify(seen[k]) !== JSON.stringify(props[k])) varying.add(k);
  }
  return lines.map((line) => {
    const coords: Record<string, Coordinate> = {};
    for (const [k, v] of Object.entries(line)) if (!LINE_FIELDS.has(k)) coords[k] = coordinate(v);
    for (const k of varying) if (!(k in coords)) coords[k] = coordinate(line.properties?.[k]);
    return coords;
  });
}

export function resultTable(keyName: KeyName, lines: readonly AnswerLine[]): ResultTable {
  const statNames: string[] = [];
  const coordNames: string[] = [];
  const rows: ResultRow[] = [];
  const coords = coordinatesOf(lines);
  lines.forEach((line, i) => {
    const id = typeof line.id === 'string' || typeof line.id === 'number' ? line.id : null;
    const c = coords[i]!;
    for (const name of Object.keys(c)) if (!coordNames.includes(name)) coordNames.push(name);
    if (line.error) {
      rows.push({ zone: line.index, id, coords: c, key: '', values: {}, error: line.error });
      return;
    }
    for (const [key, values] of Object.entries(line.statistics ?? {})) {
      for (const name of Object.keys(values)) if (!statNames.includes(name)) statNames.push(name);
      rows.push({ zone: line.index, id, coords: c, key, values, error: null });
    }
  });
  return { keyName, coordNames, statNames, rows, hasErrors: rows.some((r) => r.error !== null) };
}

/** The header row: zone, id, the coordinates, band|column|variable, the statistics, then error when a row failed. */
export function headerCells(table: ResultTable): string[] {
  return ['zone', 'id', ...table.coordNames, table.keyName, ...table.statNames, ...(table.hasErrors ? ['error'] : [])];
}

/** A row's cells as exact text: numbers as JavaScript writes them, lists and maps as JSON, null as ''. */
export function rowCells(table: ResultTable, row: ResultRow): string[] {
  const key = table.keyName === 'band' ? row.key.replace(/^band_/, '') : row.key;
  const coords = table.coordNames.map((n) => rawText(row.coords[n]));
  const cells = [String(row.zone), row.id === null ? '' : String(row.id), ...coords, key, ...table.statNames.map((n) => rawText(row.values[n]))];
  if (table.hasErrors) cells.push(row.error ? `${row.error.code}: ${row.error.detail}` : '');
  return cells;
}

function rawText(v: StatValue | undefined): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number' || typeof v === 'string') return String(v);
  return JSON.stringify(v);
}

/** What a cell shows (the exact value stays in its data-value and title). */
export function displayText(v: StatValue | undefined): string {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return formatNumber(v);
  if (Array.isArray(v)) return `${v.length} value${v.length === 1 ? '' : 's'}`;
  if ('edges' in v && 'counts' in v && Array.isArray(v.counts)) return `${v.counts.length} bins`;
  const n = Object.keys(v).length;
  return `${n} value${n === 1 ? '' : 's'}`;
}

export function formatNumber(v: number): string {
  if (!Number.isFinite(v) || Number.isInteger(v)) return String(v);
  const a = Math.abs(v);
  if (a >= 1e15 || a < 1e-4) return v.toPrecision(4);
  if (a >= 1000) return v.toFixed(1);
  return String(Number(v.toPrecision(6)));
}

/** RFC 4180: fields with a comma, quote, CR or LF are quoted, quotes doubled; lines end with CRLF. */
function toCsv(rows: readonly (readonly string[])[]): string {
  const field = (s: string) => (/[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
  return rows.map((r) => r.map(field).join(',')).join('\r\n') + '\r\n';
}

/**
 * A text cell a spreadsheet would run as a formula (=, +, -, @, tab, CR first) gets a leading apostrophe
 * (OWASP's CSV injection advice); numbers and JSON cells are left as they are.
 */
function spreadsheetSafe(cell: string): string {
  return /^[=+\-@\t\r]/.test(cell) && !Number.isFinite(Number(cell)) ? `'${cell}` : cell;
}

export function tableCsv(table: ResultTable): string {
  return toCsv([headerCells(table), ...table.rows.map((r) => rowCells(table, r).map(spreadsheetSafe))]);
}

/** A bin edge for an axis label: 4 significant digits. */
function short(v: number | undefined): string {
  return v === undefined ? '?' : Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(4)));
}

/** Bars for a row: its `histogram` ({edges, counts}) when asked, else its `freq_hist` (value → count). */
export function histogramBars(row: ResultRow): { labels: string[]; counts: number[]; source: 'histogram' | 'freq_hist' } | null {
  const h = row.values['histogram'];
  if (h && typeof h === 'object' && !Array.isArray(h) && 'edges' in h && Array.isArray(h.edges) && Array.isArray(h.counts)) {
    const edges = h.edges;
    return { labels: h.counts.map((_, i) => `${short(edges[i])}–${short(edges[i + 1])}`), counts: h.counts.slice(), source: 'histogram' };
  }
  const f = row.values['freq_hist'];
  if (f && typeof f === 'object' && !Array.isArray(f)) {
    const entries = Object.entries(f as Record<string, number>).sort((a, b) => Number(a[0]) - Number(b[0]));
    return { labels: entries.map(([k]) => k), counts: entries.map(([, c]) => c), source: 'freq_hist' };
  }
  return null;
}
