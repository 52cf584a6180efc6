/**
 * The results panel: the table (rows selectable), the CSV download, and the chart: the histogram of the
 * selected row, or, for an answer with several rows per zone, one line per zone (the selected row's thicker).
 */
import { Histogram } from './chart.ts';
import { byId, h } from './dom.ts';
import { SeriesView } from './series-view.ts';
import { displayText, headerCells, histogramBars, rowCells, tableCsv, type ResultTable } from './table.ts';

export class ResultsView {
  private readonly table = byId<HTMLTableElement>('results-table');
  private readonly empty = byId('results-empty');
  private readonly csvButton = byId<HTMLButtonElement>('csv-download');
  private readonly chartTitle = byId('chart-title');
  private readonly chartWrap = byId('chart-wrap');
  private readonly histogramBox = byId('histogram-box');
  private readonly histogram = new Histogram(byId<HTMLCanvasElement>('histogram'));
  private readonly series = new SeriesView((text) => (this.chartTitle.textContent = text));
  private isSeries = false;
  private current: ResultTable | null = null;
  private selected = 0;

  /** `onSelect` gets the zone index of the selected row. */
  constructor(private readonly onSelect: (zone: number | null) => void) {
    this.csvButton.addEventListener('click', () => this.download());
    const body = this.table.tBodies[0]!;
    body.addEventListener('click', (e) => {
      const tr = (e.target as HTMLElement).closest('tr');
      if (tr?.dataset['row']) this.select(Number(tr.dataset['row']));
    });
    body.addEventListener('keydown', (e) => {
      const tr = (e.target as HTMLElement).closest('tr');
      if (!tr?.dataset['row']) return;
      const i = Number(tr.dataset['row']);
      if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        this.select(i);
      } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        const next = body.rows[i + (e.key === 'ArrowDown' ? 1 : -1)];
        if (next) {
          next.focus();
          this.select(Number(next.dataset['row']));
        }
      }
    });
  }

  show(table: ResultTable): void {
    this.current = table;
    const head = headerCells(table);
    this.table.tHead!.replaceChildren(h('tr', {}, ...head.map((c) => h('th', { scope: 'col', 'data-stat': c }, c))));
    const rows = table.rows.map((row, i) => {
      const cells = rowCells(table, row);
      const tr = h('tr', { 'data-row': String(i), 'data-zone': String(row.zone), tabindex: '0', class: row.error ? 'failed' : undefined });
      cells.forEach((text, c) => {
        const name = head[c]!;
        const isStat = c >= 3 + table.coordNames.length && name !== 'error';
        const shown = isStat ? displayText(row.values[name]) : text;
        const td = h('td', { 'data-stat': name, 'data-value': text, class: name === 'error' ? 'error-cell' : isStat ? 'num' : undefined }, shown);
        if (shown !== text && text !== '') td.title = text.length > 500 ? `${text.slice(0, 500)}…` : text;
        tr.append(td);
      });
      return tr;
    });
    this.table.tBodies[0]!.replaceChildren(...rows);
    this.empty.hidden = rows.length > 0;
    this.csvButton.disabled = rows.length === 0;
    this.histogram.clear();
    this.isSeries = this.series.show(table);
    this.histogramBox.hidden = this.isSeries;
    this.chartWrap.classList.toggle('series', this.isSeries);
    const first = table.rows.findIndex((r) => !r.error);
    this.select(first >= 0 ? first : 0);
  }

  clear(): void {
    this.current = null;
    this.table.tHead!.replaceChildren();
    this.table.tBodies[0]!.replaceChildren();
    this.empty.hidden = false;
    this.csvButton.disabled = true;
    this.histogram.clear();
    this.series.clear();
    this.isSeries = false;
    this.histogramBox.hidden = false;
    this.chartWrap.classList.remove('series');
    this.chartTitle.textContent = 'Histogram';
  }

  private select(i: number): void {
    const table = this.current;
    const row = table?.rows[i];
    if (!table || !row) return;
    this.selected = i;
    for (const tr of Array.from(this.table.tBodies[0]!.rows)) tr.setAttribute('aria-selected', String(tr.dataset['row'] === String(i)));
    this.onSelect(row.zone);
    if (this.isSeries) {
      this.series.highlight(row.error ? null : row.zone);
      return;
    }
    const bars = histogramBars(row);
    const what = table.keyName === 'band' ? `band ${row.key.replace(/^band_/, '')}` : row.key;
    if (!bars) {
      this.histogram.clear();
      this.chartTitle.textContent = row.error ? `Zone ${row.zone}: failed` : `Zone ${row.zone}, ${what}: ask for histogram bins or freq_hist for a chart`;
      return;
    }
    this.chartTitle.textContent = `Zone ${row.zone}, ${what}: ${bars.source === 'histogram' ? 'histogram' : 'freq_hist'}`;
    this.histogram.show(bars.labels, bars.counts, bars.source === 'histogram' ? 'count' : table.keyName === 'column' ? 'weight' : 'count');
  }

  get selectedRow(): number {
    return this.selected;
  }

  private download(): void {
    if (!this.current) return;
    const blob = new Blob([tableCsv(this.current)], { type: 'text/csv;charset=utf-8' });
    const url = URL.createObjectURL(blob);
    const a = h('a', { href: url, download: 'zonal-stats.csv', class: 'visually-hidden' });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
}
