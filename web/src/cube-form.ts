/** The cube's part of the options form: the variable (units, long name) and, per dimension, its extent and steps. */
import type { CubeInfo, CubeSel } from './api.ts';
import { defaultVariable, extentText, selOf, variableDimensions, type CubeDimension, type StepPick } from './cube.ts';
import { byId, h } from './dom.ts';

export class CubeOptions {
  private readonly box = byId<HTMLFieldSetElement>('cube-options');
  private readonly variable = byId<HTMLSelectElement>('cube-variable');
  private readonly about = byId('cube-variable-about');
  private readonly dimsBox = byId('cube-dims');
  private info: CubeInfo | null = null;
  private dims: CubeDimension[] = [];
  /** By dimension name, kept when another variable of the same store is picked. */
  private picks: Record<string, StepPick> = {};

  constructor() {
    // Before the form's own listener (the form is an ancestor): the request is built from the new rows.
    this.variable.addEventListener('change', () => this.render());
    this.dimsBox.addEventListener('change', (e) => {
      const t = e.target as HTMLElement;
      if (t instanceof HTMLSelectElement && t.dataset['dim']) this.showRange(t.dataset['dim'], t.value === 'range');
    });
    this.dimsBox.addEventListener('input', () => this.readPicks());
  }

  setSource(info: CubeInfo | null): void {
    this.info = info;
    this.picks = {};
    this.box.hidden = info === null;
    const first = info ? defaultVariable(info) : null;
    this.variable.replaceChildren(
      ...(info?.variables ?? []).map((v) =>
        h('option', { value: v.name }, `${v.name}${v.long_name ? ` — ${v.long_name}` : ''}${v.units ? ` (${v.units})` : ''}`),
      ),
    );
    if (first !== null) this.variable.value = first;
    this.render();
  }

  /** The variable and its steps, or why there is no request. */
  value(): { variable: string; sel: CubeSel | undefined } | { missing: string } {
    if (!this.info || this.variable.value === '') return { missing: 'The store has no data variable to read.' };
    this.readPicks();
    return { variable: this.variable.value, sel: selOf(this.dims, this.picks) };
  }

  private render(): void {
    const info = this.info;
    const v = info?.variables.find((x) => x.name === this.variable.value);
    this.dims = info && v ? variableDimensions(info, v.name) : [];
    this.about.textContent = v
      ? [v.long_name, v.units].filter((t) => t).join(', ') + `${v.long_name || v.units ? '; ' : ''}${v.data_type}, ${v.shape.join(' × ')}`
      : (info?.note ?? (info ? 'No data variable found.' : ''));
    this.dimsBox.replaceChildren(...this.dims.map((d) => this.row(d)));
  }

  private row(d: CubeDimension): HTMLElement {
    const extent = h('span', { class: 'cube-extent', 'data-testid': `cube-extent-${d.name}` }, extentText(d));
    if (d.spatial) return h('div', { class: 'cube-dim', 'data-dim': d.name }, h('div', { class: 'row' }, extent, h('span', { class: 'hint' }, 'grid axis')));
    const pick = (this.picks[d.name] ??= { all: true, start: text(d.first), end: text(d.last) });
    const steps = h(
      'select',
      { 'data-dim': d.name, 'data-testid': `cube-steps-${d.name}`, 'aria-label': `${d.name}: steps` },
      h('option', { value: 'all' }, `all ${d.size} steps`),
      h('option', { value: 'range' }, 'from … to'),
    );
    steps.value = pick.all ? 'all' : 'range';
    const end = (which: 'start' | 'end') => {
      const input = h('input', {
        type: 'text',
        'data-end': which,
        'data-testid': `cube-${which}-${d.name}`,
        'aria-label': `${d.name} ${which}`,
        spellcheck: 'false',
      });
      input.value = pick[which];
      return input;
    };
    const range = h('div', { class: 'row cube-range' }, end('start'), '…', end('end'));
    range.hidden = pick.all;
    return h('div', { class: 'cube-dim', 'data-dim': d.name }, h('div', { class: 'row' }, extent, steps), range);
  }

  private showRange(name: string, on: boolean): void {
    const row = this.dimsBox.querySelector<HTMLElement>(`.cube-dim[data-dim="${CSS.escape(name)}"] .cube-range`);
    if (row) row.hidden = !on;
    this.readPicks();
  }

  /** The picks as the rows show them. */
  private readPicks(): void {
    for (const row of this.dimsBox.querySelectorAll<HTMLElement>('.cube-dim')) {
      const steps = row.querySelector<HTMLSelectElement>('select[data-dim]');
      if (!steps) continue;
      const input = (which: string) => row.querySelector<HTMLInputElement>(`input[data-end="${which}"]`)?.value ?? '';
      this.picks[row.dataset['dim']!] = { all: steps.value !== 'range', start: input('start'), end: input('end') };
    }
  }
}

function text(c: string | number | null): string {
  return c === null ? '' : String(c);
}
