/**
 * The options form: bands or columns from the source's info (a cube's variable and steps), statistics, pixel
 * rule, weighting; → the request body.
 */
import type { SourceInfo, StacSource, StatsRequest } from './api.ts';
import { CubeOptions } from './cube-form.ts';
import { byId, checkbox, checkedValues, h } from './dom.ts';
import { statChoices, typedPercentiles } from './stat-choices.ts';
import { zonesCollection, type Zone } from './zones.ts';

const PIXELS = ['center', 'all_touched', 'fractional'] as const;

export class OptionsForm {
  private readonly form = byId<HTMLFormElement>('options-form');
  private readonly rasterBox = byId<HTMLFieldSetElement>('raster-options');
  private readonly rasterLegend = byId('raster-legend');
  private readonly approxLabel = byId('approx-stats-label');
  private readonly cube = new CubeOptions();
  private readonly vectorBox = byId<HTMLFieldSetElement>('vector-options');
  private readonly bands = byId('bands');
  private readonly columns = byId('columns');
  private readonly stats = byId('stats');
  private readonly pixels = byId<HTMLSelectElement>('pixels');
  private readonly approx = byId<HTMLInputElement>('approx-stats');
  private readonly bins = byId<HTMLInputElement>('histogram-bins');
  private readonly weighting = byId<HTMLSelectElement>('weighting');
  private readonly percentiles = byId<HTMLInputElement>('percentiles');
  /** Kept across sources, so switching between a raster and a vector keeps the user's picks. */
  private chosenStats = new Set([...statChoices('raster'), ...statChoices('vector')].flatMap((g) => g.choices).flatMap((c) => (c.checked ? [c.value] : [])));
  private info: SourceInfo | null = null;
  /** Set when the source is an asset of a STAC Item: requests then name the Item and the asset. */
  private stac: StacSource | null = null;

  constructor(onChange: () => void) {
    this.form.addEventListener('submit', (e) => e.preventDefault());
    this.form.addEventListener('input', () => onChange());
    this.form.addEventListener('change', (e) => {
      const t = e.target as HTMLInputElement;
      if (t.name === 'stat') {
        if (t.checked) this.chosenStats.add(t.value);
        else this.chosenStats.delete(t.value);
      }
      onChange();
    });
  }

  /** Shows the options that apply to this source (none when null). */
  setSource(info: SourceInfo | null, stac: StacSource | null = null): void {
    this.info = info;
    this.stac = info ? stac : null;
    // A cube's variable is read as a raster's bands are (one per step): the pixel rule and bins apply, not
    // bands or approx_stats.
    this.rasterBox.hidden = info?.kind !== 'raster' && info?.kind !== 'cube';
    this.rasterLegend.textContent = info?.kind === 'cube' ? 'Cells' : 'Raster';
    this.bands.hidden = this.approxLabel.hidden = info?.kind === 'cube';
    this.vectorBox.hidden = info?.kind !== 'vector';
    this.cube.setSource(info?.kind === 'cube' ? info : null);
    this.bands.replaceChildren();
    this.columns.replaceChildren();
    this.stats.replaceChildren();
    if (!info) return;
    if (info.kind === 'raster') {
      this.bands.append(...info.bands.map((b, i) => checkbox('band', String(b.band), `band ${b.band} (${b.data_type})`, i === 0)));
    } else if (info.kind === 'vector') {
      const numeric = info.columns.filter((c) => c.numeric);
      this.columns.append(...numeric.map((c, i) => checkbox('column', c.name, c.name, i === 0)));
    }
    const groups = statChoices(info.kind === 'vector' ? 'vector' : 'raster').map(({ label, choices }) => {
      const boxes = choices.map((c) => {
        const box = checkbox('stat', c.value, c.label, this.chosenStats.has(c.value));
        box.title = c.title;
        return box;
      });
      return h(
        'div',
        { class: 'stat-group', role: 'group', 'aria-label': label },
        h('span', { class: 'stat-group-label', 'aria-hidden': 'true' }, label),
        ...boxes,
      );
    });
    this.stats.append(...groups);
  }

  /** The request for these zones, or null (no source, no zones) with the reason. */
  request(zones: readonly Zone[]): { request: StatsRequest } | { missing: string } {
    const info = this.info;
    if (!info) return { missing: 'Load a source first.' };
    if (zones.length === 0) return { missing: 'Add at least one zone (draw, paste or drop GeoJSON).' };
    const stats = [...checkedValues(this.stats), ...typedPercentiles(this.percentiles.value)];
    const aoi = zonesCollection(zones);
    const stac = this.stac;
    const source = stac ? { url: stac.item, asset: stac.asset } : { url: info.url };
    const bins = Number(this.bins.value);
    const histogram = this.bins.value !== '' && Number.isInteger(bins) && bins > 0 ? { histogram: { bins } } : {};
    const pixels = PIXELS.find((p) => p === this.pixels.value) ?? 'center';
    if (info.kind === 'cube') {
      const picked = this.cube.value();
      if ('missing' in picked) return picked;
      const { variable, sel } = picked;
      return { request: { kind: 'cube', stac: false, body: { url: info.url, variable, ...(sel ? { sel } : {}), aoi, stats, pixels, ...histogram } } };
    }
    if (info.kind === 'raster') {
      const bands = checkedValues(this.bands).map(Number);
      if (bands.length === 0) return { missing: 'Pick at least one band.' };
      return {
        request: {
          kind: 'raster',
          stac: stac !== null,
          body: {
            ...source,
            aoi,
            stats,
            bands,
            pixels,
            approx_stats: this.approx.checked,
            ...histogram,
          },
        },
      };
    }
    const columns = checkedValues(this.columns);
    if (columns.length === 0) return { missing: 'Pick at least one numeric column.' };
    return {
      request: {
        kind: 'vector',
        stac: stac !== null,
        body: { ...source, aoi, columns, stats, weighting_method: this.weighting.value === 'ratio' ? 'ratio' : 'area' },
      },
    };
  }
}
