/** The page: wires the source, the zones, the options and the results to the map and the service. */
import 'maplibre-gl/dist/maplibre-gl.css';
import './styles.css';
import type { Point, Polygon } from 'geojson';
import {
  curlCommand,
  getAssetInfo,
  getConfig,
  getInfo,
  getItemInfo,
  postStats,
  ProblemError,
  statsPath,
  type Outgoing,
  type SourceInfo,
  type StacItemInfo,
  type StacSource,
  type UiConfig,
} from './api.ts';
import { byId, h } from './dom.ts';
import { Drawing, type DrawMode } from './draw.ts';
import { OptionsForm } from './form.ts';
import { ZonalMap } from './map.ts';
import { formatNumber, keyNameOf, resultTable } from './table.ts';
import { RequestEditor } from './request-editor.ts';
import { ResultsView } from './results.ts';
import { describeZone, displayZones, parseZones, type Zone } from './zones.ts';

const state = {
  info: null as SourceInfo | null,
  /** The STAC Item loaded, when the source is one of its assets. */
  item: null as StacItemInfo | null,
  zones: [] as Zone[],
  selectedZone: null as number | null,
  /** The results are of the form's zones (a request sent as JSON has its own: none is shown selected). */
  resultsOfForm: true,
  running: null as AbortController | null,
  loading: null as AbortController | null,
};

const els = {
  sourceForm: byId<HTMLFormElement>('source-form'),
  sourceUrl: byId<HTMLInputElement>('source-url'),
  sourceInfo: byId('source-info'),
  sourceStac: byId<HTMLInputElement>('source-stac'),
  sourceAsset: byId<HTMLSelectElement>('source-asset'),
  sourceAssetLabel: byId('source-asset-label'),
  demoList: byId('demo-list'),
  zonesList: byId<HTMLOListElement>('zones-list'),
  zonesText: byId<HTMLTextAreaElement>('zones-geojson'),
  zonesFile: byId<HTMLInputElement>('zones-file'),
  radius: byId<HTMLInputElement>('point-radius'),
  run: byId<HTMLButtonElement>('run'),
  runHint: byId('run-hint'),
  curl: byId<HTMLTextAreaElement>('curl'),
  copyStatus: byId('copy-status'),
  status: byId('status'),
  error: byId('error'),
  legend: byId('legend'),
};

let zmap: ZonalMap | null = null;
let drawing: Drawing | null = null;
const form = new OptionsForm(() => updateRequest());
const results = new ResultsView((zone) => {
  state.selectedZone = state.resultsOfForm ? zone : null;
  showZones();
});
const editor = new RequestEditor(
  (request) => void send(request, false),
  () => {
    const built = form.request(state.zones);
    return 'missing' in built ? built.missing : { path: statsPath(built.request), body: built.request.body };
  },
);

function showError(message: string | null): void {
  els.error.hidden = message === null;
  els.error.textContent = message ?? '';
}

function setStatus(text: string): void {
  els.status.textContent = text;
}

// ---- source ----------------------------------------------------------------------------------------------

function renderDemos(config: UiConfig): void {
  els.demoList.replaceChildren(
    ...config.demo.map((d, i) =>
      h(
        'button',
        { type: 'button', class: 'demo', 'data-testid': `demo-${i}`, 'data-kind': d.kind, 'data-url': d.url, title: d.url },
        h('span', { class: `kind kind-${d.kind}` }, d.kind),
        ` ${d.label}`,
      ),
    ),
  );
  els.demoList.addEventListener('click', (e) => {
    const button = (e.target as HTMLElement).closest<HTMLButtonElement>('button.demo');
    if (!button?.dataset['url']) return;
    els.sourceUrl.value = button.dataset['url'];
    els.sourceStac.checked = false;
    void loadSource(button.dataset['url']);
  });
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return '';
  }
}

function isJsonPath(url: string): boolean {
  return /\.json$/i.test(pathOf(url));
}

/** STAC Item URLs as APIs and catalogues spell them: …/items/<id> or a .json file. */
function looksLikeStacItem(url: string): boolean {
  return /\/items\/[^/]+\/?$/.test(pathOf(url)) || isJsonPath(url);
}

async function loadSource(url: string): Promise<void> {
  state.loading?.abort();
  const controller = (state.loading = new AbortController());
  showError(null);
  setStatus('Reading the source…');
  for (const b of els.demoList.querySelectorAll<HTMLButtonElement>('button.demo')) b.setAttribute('aria-pressed', String(b.dataset['url'] === url));
  if (looksLikeStacItem(url)) els.sourceStac.checked = true;
  showAssets(null);
  try {
    if (els.sourceStac.checked) {
      const item = await getItemInfo(url, controller.signal);
      if (controller.signal.aborted) return;
      const readable = item.assets.filter((a) => a.kind !== null);
      if (readable.length === 0)
        throw new ProblemError(`The STAC Item has no GeoTIFF or GeoParquet asset (its assets: ${item.assets.map((a) => a.key).join(', ')}).`, 422, null);
      showAssets(item);
      await loadAsset({ item: url, asset: (readable[0] as { key: string }).key }, controller);
      return;
    }
    await loadPlain(url, controller);
  } catch (err) {
    if (controller.signal.aborted) return;
    // A .json URL ticks "STAC Item", but a kerchunk reference file ends in .json too: read it as one.
    if (els.sourceStac.checked && isJsonPath(url) && (await loadPlain(url, controller, true).catch(() => false))) return;
    if (controller.signal.aborted) return;
    setSource(null);
    setStatus('');
    showError(err instanceof ProblemError ? err.message : String(err));
  }
}

/** The source as sources/info reads it without `stac`; `onlyCube`: nothing set (false) unless it is a cube with variables. */
async function loadPlain(url: string, controller: AbortController, onlyCube = false): Promise<boolean> {
  const info = await getInfo(url, controller.signal);
  if (controller.signal.aborted || (onlyCube && (info.kind !== 'cube' || info.variables.length === 0))) return false;
  if (onlyCube) {
    els.sourceStac.checked = false;
    showAssets(null);
    showError(null);
  }
  setSource(info);
  setStatus('');
  return true;
}

/** The asset picker of a loaded STAC Item (hidden without one). */
function showAssets(item: StacItemInfo | null): void {
  state.item = item;
  els.sourceAsset.hidden = item === null;
  els.sourceAssetLabel.hidden = item === null;
  els.sourceAsset.replaceChildren(
    ...(item?.assets ?? []).map((a) => {
      const option = h('option', { value: a.key }, `${a.key}${a.title ? ` — ${a.title}` : ''}${a.kind ? ` (${a.kind})` : ''}`);
      option.disabled = a.kind === null;
      return option;
    }),
  );
}

async function loadAsset(source: StacSource, controller: AbortController): Promise<void> {
  els.sourceAsset.value = source.asset;
  const info = await getAssetInfo(source, controller.signal);
  if (controller.signal.aborted) return;
  setSource(info, source);
  setStatus('');
}

function setSource(info: SourceInfo | null, stac: StacSource | null = null): void {
  state.info = info;
  form.setSource(info, stac);
  results.clear();
  showSourceOnMap();
  const preview = info?.kind === 'raster' ? info.preview : null;
  els.legend.hidden = !preview || preview.min === null || preview.max === null;
  if (preview && preview.min !== null && preview.max !== null) {
    byId('legend-min').textContent = formatNumber(preview.min);
    byId('legend-max').textContent = formatNumber(preview.max);
  }
  els.sourceInfo.textContent = info ? sourceText(info) : '';
  if (info && stac) els.sourceInfo.textContent = `${state.item?.id ?? 'STAC Item'}, asset ${stac.asset}: ${els.sourceInfo.textContent}`;
  els.sourceInfo.dataset['kind'] = info?.kind ?? '';
  updateRequest();
}

function sourceText(info: SourceInfo): string {
  if (info.kind === 'raster')
    return `Raster ${info.width} × ${info.height}, ${info.bands.length} band${info.bands.length === 1 ? '' : 's'} (${info.bands[0]?.data_type ?? '?'}), ${info.crs ?? 'CRS unknown'}`;
  if (info.kind === 'vector') return `Vector, ${info.rows.toLocaleString('en')} rows, ${info.columns.filter((c) => c.numeric).length} numeric columns`;
  const n = info.variables.length;
  return `Data cube (${info.store === 'zarr' ? 'Zarr store' : 'kerchunk references'}), ${n} variable${n === 1 ? '' : 's'}${info.note ? `. ${info.note}` : ''}`;
}

function showSourceOnMap(): void {
  const info = state.info;
  zmap?.showSource(info?.footprint ?? null, info?.bounds ?? null, info?.kind === 'raster' ? (info.preview ?? null) : null);
}

// ---- zones -----------------------------------------------------------------------------------------------

function addZones(zones: Zone[], fit: boolean): void {
  state.zones.push(...zones);
  renderZones();
  if (fit && zmap) zmap.fitTo(displayZones(zones, null));
}

function renderZones(): void {
  els.zonesList.replaceChildren(
    ...state.zones.map((z, i) =>
      h(
        'li',
        { 'data-zone': String(i) },
        h('span', {}, describeZone(z)),
        h('button', { type: 'button', class: 'icon', 'data-remove': String(i), 'aria-label': `Remove zone ${i}`, title: 'Remove' }, '×'),
      ),
    ),
  );
  state.selectedZone = null;
  showZones();
  updateRequest();
}

function showZones(): void {
  zmap?.setZones(displayZones(state.zones, state.selectedZone));
}

function addZonesFromText(text: string): void {
  try {
    addZones(parseZones(text), true);
    showError(null);
    return;
  } catch (err) {
    showError(`Zones: ${(err as Error).message}`);
  }
}

async function addZonesFromFiles(files: FileList | null): Promise<void> {
  for (const file of Array.from(files ?? [])) addZonesFromText(await file.text());
}

function onDrawn(geometry: Polygon | Point): void {
  if (geometry.type === 'Point') {
    const r = Number(els.radius.value);
    if (els.radius.value !== '' && Number.isFinite(r) && r > 0) (geometry as Point & { radius?: number }).radius = r;
  }
  addZones([{ type: 'Feature', properties: {}, geometry }], false);
}

// ---- request and results ---------------------------------------------------------------------------------

function updateRequest(): void {
  const built = form.request(state.zones);
  if ('missing' in built) {
    els.curl.value = '';
    els.runHint.textContent = built.missing;
    els.run.disabled = true;
    return;
  }
  els.runHint.textContent = '';
  els.curl.value = curlCommand(location.origin, { path: statsPath(built.request), body: built.request.body });
  els.run.disabled = state.running !== null;
}

async function run(): Promise<void> {
  const built = form.request(state.zones);
  if ('missing' in built) return;
  await send({ path: statsPath(built.request), body: built.request.body }, true);
}

/** Sends a statistics request (the form's, or one written as JSON) and shows its answer. */
async function send(request: Outgoing, ofForm: boolean): Promise<void> {
  state.running?.abort();
  const controller = (state.running = new AbortController());
  els.run.disabled = true;
  showError(null);
  setStatus('Computing…');
  const started = performance.now();
  try {
    const lines = await postStats(request, controller.signal);
    const table = resultTable(keyNameOf(request.path), lines);
    state.resultsOfForm = ofForm;
    results.show(table);
    const zones = new Set(lines.map((l) => l.index)).size;
    const failed = lines.filter((l) => l.error);
    const ms = Math.round(performance.now() - started);
    setStatus(
      `${zones} zone${zones === 1 ? '' : 's'}, ${table.rows.length} row${table.rows.length === 1 ? '' : 's'} in ${ms} ms${failed.length ? `; ${failed.length} failed` : ''}`,
    );
    const first = failed[0];
    if (first) showError(`Zone ${first.index}: ${first.error!.detail}${failed.length > 1 ? ` (and ${failed.length - 1} more, see the table)` : ''}`);
  } catch (err) {
    if (controller.signal.aborted) return;
    results.clear();
    setStatus('');
    showError(err instanceof ProblemError ? err.message : String(err));
  } finally {
    if (state.running === controller) state.running = null;
    updateRequest();
  }
}

async function copyCurl(): Promise<void> {
  const text = els.curl.value;
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // Not a secure context, or no permission: select the text and let the browser copy it.
    els.curl.select();
    document.execCommand('copy');
  }
  els.copyStatus.textContent = 'Copied.';
  setTimeout(() => (els.copyStatus.textContent = ''), 2000);
}

// ---- wiring ----------------------------------------------------------------------------------------------

function wire(): void {
  els.sourceForm.addEventListener('submit', (e) => {
    e.preventDefault();
    const url = els.sourceUrl.value.trim();
    if (url) void loadSource(url);
  });
  // A URL that looks like a STAC Item ticks the box; the user can untick it before Load.
  els.sourceUrl.addEventListener('input', () => {
    els.sourceStac.checked = looksLikeStacItem(els.sourceUrl.value.trim());
  });
  els.sourceAsset.addEventListener('change', () => {
    const item = state.item;
    if (!item) return;
    state.loading?.abort();
    const controller = (state.loading = new AbortController());
    showError(null);
    setStatus('Reading the asset…');
    loadAsset({ item: item.url, asset: els.sourceAsset.value }, controller).catch((err: unknown) => {
      if (controller.signal.aborted) return;
      setSource(null);
      setStatus('');
      showError(err instanceof ProblemError ? err.message : String(err));
    });
  });
  byId('zones-add').addEventListener('click', () => {
    if (els.zonesText.value.trim() === '') return;
    addZonesFromText(els.zonesText.value);
  });
  els.zonesFile.addEventListener('change', () => {
    void addZonesFromFiles(els.zonesFile.files).then(() => (els.zonesFile.value = ''));
  });
  byId('zones-clear').addEventListener('click', () => {
    state.zones = [];
    drawing?.clear();
    results.clear();
    renderZones();
  });
  els.zonesList.addEventListener('click', (e) => {
    const button = (e.target as HTMLElement).closest<HTMLButtonElement>('button[data-remove]');
    if (!button) return;
    state.zones.splice(Number(button.dataset['remove']), 1);
    results.clear();
    renderZones();
  });
  els.run.addEventListener('click', () => void run());
  byId('curl-copy').addEventListener('click', () => void copyCurl());

  const modeButtons = Array.from(document.querySelectorAll<HTMLButtonElement>('.draw-tools button[data-mode]'));
  for (const button of modeButtons) {
    button.addEventListener('click', () => {
      if (!drawing) return;
      drawing.setMode(button.dataset['mode'] as DrawMode);
      for (const b of modeButtons) b.setAttribute('aria-pressed', String(b === button));
    });
    button.disabled = true; // until the map and terra-draw are ready
  }

  // Drop a .geojson/.json file anywhere on the page.
  document.addEventListener('dragover', (e) => {
    if (!e.dataTransfer?.types.includes('Files')) return;
    e.preventDefault();
    document.body.classList.add('dropping');
  });
  document.addEventListener('dragleave', (e) => {
    if (e.relatedTarget === null) document.body.classList.remove('dropping');
  });
  document.addEventListener('drop', (e) => {
    if (!e.dataTransfer?.files.length) return;
    e.preventDefault();
    document.body.classList.remove('dropping');
    void addZonesFromFiles(e.dataTransfer.files);
  });
}

async function start(): Promise<void> {
  wire();
  let config: UiConfig = { basemap: null, demo: [] };
  try {
    config = await getConfig();
  } catch (err) {
    showError(`Could not read the page configuration: ${(err as Error).message}`);
  }
  renderDemos(config);
  void editor.load();
  try {
    zmap = await ZonalMap.create(byId('map'), config.basemap);
    drawing = new Drawing(zmap.map, onDrawn);
    for (const b of document.querySelectorAll<HTMLButtonElement>('.draw-tools button')) b.disabled = false;
    // A source or zones chosen while the map was starting.
    showSourceOnMap();
    showZones();
  } catch (err) {
    showError(`The map could not start (WebGL?): ${(err as Error).message}`);
  }
  updateRequest();
  const first = config.demo[0];
  if (first && state.info === null && state.loading === null) {
    els.sourceUrl.value = first.url;
    await loadSource(first.url);
  }
  // Tests wait for this: the map, the drawing tools and the first source are ready.
  document.body.dataset['ready'] = 'true';
}

void start();
