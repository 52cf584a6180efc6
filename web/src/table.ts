/** The answer as a table: one row per zone and band (raster) or column (vector); the same cells as CSV. */
import type { StatValue, StatsAnswer, ZoneError } from './api.ts';

export interface ResultRow {
  zone: number;
  id: string | number | null;
  /** `band_1` or the column name; '' for a zone that failed */
  key: string;
  values: Record<string, StatValue>;
  error: ZoneError | null;
}

export interface ResultTable {
  kind: 'raster' | 'vector';
  /** every statistic any row has, in first-seen order (the service answers them in request order) */
  statNames: string[];
  rows: ResultRow[];
  hasErrors: boolean;
}

export function resultTable(kind: 'raster' | 'vector', answer: StatsAnswer): ResultTable {
  const statNames: string[] = [];
  const seen = new Set<string>();
  const rows: ResultRow[] = [];
  answer.features.forEach((feature, zone) => {
    const id = typeof feature.id === 'string' || typeof feature.id === 'number' ? feature.id : null;
    const props = feature.properties ?? {};
    if (props.error) {
      rows.push({ zone, id, key: '', values: {}, error: props.error });
      return;
    }
    for (const [key, values] of Object.entries(props.statistics ?? {})) {
      for (const name of Object.keys(values)) {
        if (!seen.has(name)) statNames.push(name);
        seen.add(name);
      }
      rows.push({ zone, id, key, values, error: null });
    }
  });
  return { kind, statNames, rows, hasErrors: rows.some((r) => r.error !== null) };
}

/** The header row: zone, id, band|column, the statistics, then error when a zone failed. */
export function headerCells(table: ResultTable): string[] {
  return ['zone', 'id', table.kind === 'raster' ? 'band' : 'column', ...table.statNames, ...(table.hasErrors ? ['error'] : [])];
}

/** A row's cells as exact text: numbers as JavaScript writes them, lists and maps as JSON, null as ''. */
export function rowCells(table: ResultTable, row: ResultRow): string[] {
  const key = table.kind === 'raster' ? row.key.replace(/^band_/, '') : row.key;
  const cells = [String(row.zone), row.id === null ? '' : String(row.id), key, ...table.statNames.map((n) => rawText(row.values[n]))];
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
