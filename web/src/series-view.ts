/** The chart of an answer with several rows per zone: its pickers (statistic, band/variable, x, other dimensions) and the lines. */
import { SeriesChart } from './chart.ts';
import { byId, h } from './dom.ts';
import { defaultChoice, holdAt, seriesData, seriesOptions, type SeriesChoice, type SeriesOptions } from './series.ts';
import type { ResultTable } from './table.ts';

export class SeriesView {
  private readonly controls = byId('series-controls');
  private readonly stat = byId<HTMLSelectElement>('series-stat');
  private readonly key = byId<HTMLSelectElement>('series-key');
  private readonly keyLabel = byId('series-key-label');
  private readonly x = byId<HTMLSelectElement>('series-x');
  private readonly xLabel = byId('series-x-label');
  private readonly at = byId('series-at');
  private readonly box = byId('series-box');
  private readonly chart = new SeriesChart(byId<HTMLCanvasElement>('series'));
  private table: ResultTable | null = null;
  private options: SeriesOptions | null = null;
  private choice: SeriesChoice | null = null;
  private zones: number[] = [];
  private selectedZone: number | null = null;

  constructor(private readonly onTitle: (text: string) => void) {
    this.controls.addEventListener('change', (e) => this.picked(e.target as HTMLSelectElement));
  }

  /** Draws the table's lines; false (and nothing shown) when it has at most one row per zone. */
  show(table: ResultTable): boolean {
    const options = seriesOptions(table);
    this.table = options ? table : null;
    this.options = options;
    this.controls.hidden = this.box.hidden = !options;
    if (!options) {
      this.chart.clear();
      return false;
    }
    this.choice = defaultChoice(options);
    const keyText = (k: string) => (table.keyName === 'band' ? k.replace(/^band_/, 'band ') : k);
    fill(this.key, options.keys, keyText);
    this.keyLabel.hidden = options.keys.length < 2;
    this.keyLabel.firstChild!.textContent = `${table.keyName[0]!.toUpperCase()}${table.keyName.slice(1)} `;
    fill(
      this.x,
      options.dims.map((d) => d.name),
      (n) => n,
    );
    this.xLabel.hidden = options.dims.length < 2;
    this.draw();
    return true;
  }

  /** The selected row's zone: its line drawn thicker. */
  highlight(zone: number | null): void {
    this.selectedZone = zone;
    this.chart.highlight(this.zones.indexOf(zone ?? -1));
  }

  clear(): void {
    this.table = this.options = this.choice = null;
    this.controls.hidden = this.box.hidden = true;
    this.chart.clear();
  }

  private picked(select: HTMLSelectElement): void {
    const { options, choice } = this;
    if (!options || !choice) return;
    if (select === this.key) {
      const stats = options.stats[select.value] ?? [];
      this.choice = { ...choice, key: select.value, stat: stats.includes(choice.stat) ? choice.stat : (stats[0] ?? '') };
    } else if (select === this.stat) this.choice = { ...choice, stat: select.value };
    else if (select === this.x) this.choice = { ...choice, x: select.value, at: holdAt(options, select.value, choice.at) };
    else if (select.dataset['dim']) this.choice = { ...choice, at: { ...choice.at, [select.dataset['dim']]: select.value } };
    this.draw();
  }

  private draw(): void {
    const { table, options, choice } = this;
    if (!table || !options || !choice) return;
    fill(this.stat, options.stats[choice.key] ?? [], (s) => s);
    this.stat.value = choice.stat;
    this.key.value = choice.key;
    this.x.value = choice.x;
    this.at.replaceChildren(
      ...Object.entries(choice.at).map(([name, value]) => {
        const select = h('select', { 'data-dim': name, 'aria-label': `${name} held at` });
        fill(select, options.dims.find((d) => d.name === name)?.values ?? [], (v) => v);
        select.value = value;
        return h('label', {}, `${name} `, select);
      }),
    );
    const data = seriesData(table, options, choice);
    this.zones = data.lines.map((l) => l.zone);
    const keyText = table.keyName === 'band' ? choice.key.replace(/^band_/, 'band ') : choice.key;
    const held = Object.entries(choice.at).map(([n, v]) => `, ${n} ${v}`);
    this.onTitle(`${choice.stat} of ${keyText} by ${choice.x}${held.join('')}: one line per zone (${data.lines.length})`);
    this.chart.show(data, { x: choice.x, y: choice.stat });
    this.highlight(this.selectedZone);
  }
}

/** A select's options, keeping none of the old ones. */
function fill(select: HTMLSelectElement, values: readonly string[], text: (v: string) => string): void {
  select.replaceChildren(...values.map((v) => h('option', { value: v }, text(v))));
}
