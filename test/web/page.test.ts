/**
 * The browser page (web/) in headless Chromium, served by the service itself: a polygon drawn with the mouse
 * gives the same numbers as the API for that polygon, pasted zones give one row each, a bad source URL shows
 * the problem's detail, the CSV download is the table, a zones × time answer (raster/stac/search, sent as JSON)
 * is drawn as one line per zone, a data cube's time range gives one row per zone and step charted as the API
 * answers it, and nothing is logged as an error (CSP violations included). Skipped, saying why, when there is
 * no Chromium.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { parse } from 'csv-parse/sync';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, FIXTURES } from '../helpers/build-app.ts';
import { startRangeServer } from '../helpers/range-server.ts';
import { startStacApi, type Item } from '../helpers/stac-api.ts';

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const chromiumPath = existsSync(CHROMIUM) ? CHROMIUM : null;
if (!chromiumPath) console.warn(`browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);

type BuildWeb = (outDir?: string) => Promise<{ outDir: string; assets: Record<string, string> }>;
// A JavaScript build script: imported by URL, typed here.
const buildWebUrl = new URL('../../scripts/build-web.mjs', import.meta.url).href;

/** An NDJSON line of a statistics answer (zones × time: with the row's Item). */
interface AnswerLine {
  index: number;
  id: string | number | null;
  item_id?: string | null;
  datetime?: string | null;
  /** a cube's row: its step */
  time?: string;
  statistics?: Record<string, Record<string, number>>;
  error?: { code: string; detail: string };
}

/** What the page gave Chart.js for its lines (the series canvas's data-series). */
interface ChartedSeries {
  labels: string[];
  lines: { name: string; zone: number; points: { x: string; y: number | null }[] }[];
}

interface ZoneAnswer {
  id: string | number | null;
  properties: { statistics?: Record<string, Record<string, unknown>>; error?: { detail: string } };
}

/** A two-zone FeatureCollection over the demo raster (Luxembourg). */
const TWO_ZONES = {
  type: 'FeatureCollection',
  features: [
    {
      type: 'Feature',
      id: 'north',
      properties: { name: 'north, "quoted"' },
      geometry: {
        type: 'Polygon',
        coordinates: [
          [
            [6.0, 49.9],
            [6.2, 49.9],
            [6.2, 50.05],
            [6.0, 50.05],
            [6.0, 49.9],
          ],
        ],
      },
    },
    { type: 'Feature', id: 'south', properties: {}, geometry: { type: 'Point', coordinates: [6.13, 49.61], radius: 3000 } },
  ],
};

/** The request body shown in the curl box (`-d '<json>'`, single quotes escaped as '\''). */
function bodyFromCurl(curl: string): { url: string; aoi: { features: { geometry: { type: string; coordinates: number[][][] } }[] } } {
  const m = /-d '([\s\S]*)'$/.exec(curl.trim());
  if (!m) throw new Error(`no -d '…' in ${curl}`);
  return JSON.parse(m[1]!.replace(/'\\''/g, "'"));
}

describe.skipIf(!chromiumPath)('web page (Chromium)', () => {
  let webDir = '';
  let app: FastifyInstance;
  let base = '';
  let browser: Browser;
  let page: Page;
  /** console errors and uncaught exceptions of the current page */
  let errors: string[] = [];

  beforeAll(async () => {
    webDir = await mkdtemp(join(tmpdir(), 'zonal-web-'));
    const { buildWeb } = (await import(buildWebUrl)) as { buildWeb: BuildWeb };
    await buildWeb(webDir);
    app = await buildTestApp({ webDir });
    await app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath: chromiumPath!, args: ['--no-sandbox'] });
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    if (webDir) await rm(webDir, { recursive: true, force: true });
  });

  beforeEach(async () => {
    errors = [];
    page = await browser.newPage({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    await page.goto(`${base}/`);
    await page.locator('body[data-ready="true"]').waitFor();
  });

  afterEach(async () => {
    await page.close();
  });

  async function postStats(kind: 'raster' | 'vector' | 'raster/stac', body: unknown): Promise<ZoneAnswer[]> {
    const res = await fetch(`${base}/api/v1/zonal-stats/${kind}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { features: ZoneAnswer[] }).features;
  }

  async function pickDemoRaster(): Promise<void> {
    await page.locator('[data-testid^="demo-"][data-kind="raster"]').first().click();
    await page.locator('[data-testid="source-info"][data-kind="raster"]').waitFor();
  }

  /** The service's own answer, as NDJSON lines (they name each row's zone by index). */
  async function postLines(path: string, body: unknown): Promise<AnswerLine[]> {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/x-ndjson' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    return (await res.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as AnswerLine);
  }

  async function chartedSeries(): Promise<ChartedSeries | null> {
    const json = await page.locator('#series').getAttribute('data-series');
    return json === null ? null : (JSON.parse(json) as ChartedSeries);
  }

  /** Each body row as {data-stat: data-value}. */
  async function tableRows(): Promise<Record<string, string>[]> {
    const rows = page.locator('#results-table tbody tr');
    const out: Record<string, string>[] = [];
    for (const row of await rows.all()) {
      const cells: Record<string, string> = {};
      for (const td of await row.locator('td').all()) cells[(await td.getAttribute('data-stat'))!] = (await td.getAttribute('data-value'))!;
      out.push(cells);
    }
    return out;
  }

  async function run(rows: number): Promise<void> {
    await page.locator('#run').click();
    await expect.poll(() => page.locator('#results-table tbody tr').count()).toBe(rows);
  }

  async function pasteTwoZones(): Promise<void> {
    await page.locator('#zones-clear').click();
    await page.locator('#zones-geojson').fill(JSON.stringify(TWO_ZONES));
    await page.locator('#zones-add').click();
    await expect.poll(() => page.locator('#zones-list li').count()).toBe(2);
  }

  it('a polygon drawn with the mouse gives the numbers the API gives for it', async () => {
    await pickDemoRaster();
    await page.locator('#mode-polygon').click();
    const box = (await page.locator('#map canvas.maplibregl-canvas').boundingBox())!;
    const cx = box.x + box.width / 2;
    const cy = box.y + box.height / 2;
    const corners: [number, number][] = [
      [-90, -60],
      [80, -70],
      [100, 60],
      [-70, 80],
    ];
    for (const [dx, dy] of corners) {
      await page.mouse.click(cx + dx, cy + dy);
      await page.waitForTimeout(100);
    }
    await page.mouse.click(cx + corners[0]![0], cy + corners[0]![1]); // on the first corner: closes the ring
    await expect.poll(() => page.locator('#zones-list li').count()).toBe(1);

    await run(1);
    const body = bodyFromCurl(await page.locator('#curl').inputValue());
    expect(body.aoi.features).toHaveLength(1);
    expect(body.aoi.features[0]!.geometry.type).toBe('Polygon');
    expect(body.aoi.features[0]!.geometry.coordinates[0]!.length).toBe(5);

    const [answer] = await postStats('raster', body);
    const expected = answer!.properties.statistics!['band_1']!;
    expect(expected['count']).toBeGreaterThan(100);
    const [row] = await tableRows();
    expect(row!['zone']).toBe('0');
    expect(row!['band']).toBe('1');
    for (const stat of ['count', 'min', 'max', 'mean']) expect(Number(row![stat]), stat).toBe(expected[stat]);
    // The histogram chart has drawn something.
    await expect.poll(() => page.locator('#chart-title').textContent()).toContain('Zone 0');
    expect(errors).toEqual([]);
  });

  it('pasted GeoJSON zones give one row each, with their ids, and the CSV download is the table', async () => {
    await pickDemoRaster();
    await pasteTwoZones();
    await page.locator('#stats input[value="freq_hist"]').check();
    await page.locator('#histogram-bins').fill('8');
    await run(2);
    const rows = await tableRows();
    expect(rows.map((r) => [r['zone'], r['id']])).toEqual([
      ['0', 'north'],
      ['1', 'south'],
    ]);
    const answers = await postStats('raster', bodyFromCurl(await page.locator('#curl').inputValue()));
    rows.forEach((r, i) => expect(Number(r['mean'])).toBe(answers[i]!.properties.statistics!['band_1']!['mean']));
    await expect.poll(() => page.locator('#chart-title').textContent()).toContain('histogram');
    // One row per zone: the histogram, no lines.
    expect(await page.locator('#series-box').isHidden()).toBe(true);
    expect(await chartedSeries()).toBeNull();

    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#csv-download').click()]);
    expect(download.suggestedFilename()).toBe('zonal-stats.csv');
    const csv = parse(await readFile((await download.path())!, 'utf8')) as string[][];
    const header = await page.locator('#results-table thead th').allTextContents();
    expect(csv[0]).toEqual(header);
    expect(csv.slice(1)).toEqual(rows.map((r) => header.map((h) => r[h])));
    // freq_hist and histogram are JSON with commas and quotes: quoted fields survived the round trip.
    expect(JSON.parse(csv[1]![header.indexOf('freq_hist')]!)).toEqual(answers[0]!.properties.statistics!['band_1']!['freq_hist']);

    const shot = join(webDir, 'page.png');
    await page.screenshot({ path: shot });
    const png = await readFile(shot);
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(png.length).toBeGreaterThan(10_000);
    expect(errors).toEqual([]);
  });

  it('the vector demo: columns from its info, one row per zone and column, the numbers the API gives', async () => {
    await page.locator('[data-testid^="demo-"][data-kind="vector"]').first().click();
    await page.locator('[data-testid="source-info"][data-kind="vector"]').waitFor();
    await page.locator('#columns input[value="BIR74"]').check();
    await page.locator('#columns input[value="SID74"]').check();
    await page.locator('#weighting').selectOption('ratio');
    await page.locator('#zones-clear').click();
    const zones = {
      type: 'FeatureCollection',
      features: [
        { type: 'Feature', id: 'raleigh', properties: {}, geometry: { type: 'Point', coordinates: [-78.64, 35.78], radius: 20000 } },
        {
          type: 'Feature',
          id: 'charlotte',
          properties: {},
          geometry: {
            type: 'Polygon',
            coordinates: [
              [
                [-81.0, 35.1],
                [-80.7, 35.1],
                [-80.7, 35.4],
                [-81.0, 35.4],
                [-81.0, 35.1],
              ],
            ],
          },
        },
      ],
    };
    await page.locator('#zones-geojson').fill(JSON.stringify(zones));
    await page.locator('#zones-add').click();
    await page.locator('#run').click();
    await expect.poll(async () => (await tableRows()).filter((r) => r['column'] === 'SID74').length).toBe(2);
    const body = bodyFromCurl(await page.locator('#curl').inputValue()) as unknown as { weighting_method: string; columns: string[] };
    expect(body.weighting_method).toBe('ratio');
    expect(body.columns).toEqual(expect.arrayContaining(['BIR74', 'SID74']));
    const answers = await postStats('vector', body);
    const rows = await tableRows();
    for (const [i, id] of ['raleigh', 'charlotte'].entries()) {
      for (const column of ['BIR74', 'SID74']) {
        const row = rows.find((r) => r['id'] === id && r['column'] === column)!;
        const expected = answers[i]!.properties.statistics![column]!;
        for (const stat of ['count', 'mean']) expect(Number(row[stat]), `${id} ${column} ${stat}`).toBe(expected[stat]);
      }
    }
    expect(errors).toEqual([]);
  });

  it('a STAC Item URL: its assets offered, statistics through raster/stac equal to the API', async () => {
    const stac = await startRangeServer({ root: join(FIXTURES, 'demo') });
    try {
      const itemUrl = stac.url('/stac/elev-item.json');
      await page.locator('#source-url').fill(itemUrl);
      expect(await page.locator('#source-stac').isChecked()).toBe(true);
      await page.locator('#source-load').click();
      // The Item's asset loaded (not the previous test's source, still shown until the new one is read).
      await expect.poll(() => page.locator('[data-testid="source-info"]').textContent(), { timeout: 30_000 }).toContain('asset elevation');
      await page.locator('[data-testid="source-info"][data-kind="raster"]').waitFor();
      expect(await page.locator('#source-asset').inputValue()).toBe('elevation');
      await pasteTwoZones();
      await run(2);
      const curl = await page.locator('#curl').inputValue();
      expect(curl).toContain('/api/v1/zonal-stats/raster/stac ');
      const body = bodyFromCurl(curl) as unknown as { url: string; asset: string };
      expect(body).toMatchObject({ url: itemUrl, asset: 'elevation' });
      const answers = await postStats('raster/stac', body);
      const rows = await tableRows();
      rows.forEach((r, i) => {
        for (const stat of ['count', 'min', 'max', 'mean']) expect(Number(r[stat]), stat).toBe(answers[i]!.properties.statistics!['band_1']![stat]);
      });
      // The same numbers as the demo file itself (the Item's asset is that file).
      const direct = await postStats('raster', { ...body, url: pathToFileURL(join(FIXTURES, 'demo/elev.cog.tif')).href, asset: undefined });
      expect(answers.map((a) => a.properties.statistics)).toEqual(direct.map((a) => a.properties.statistics));
      expect(errors).toEqual([]);
    } finally {
      await stac.close();
    }
  });

  it('a source the service refuses shows the problem detail', async () => {
    const url = 'file:///nope/x.tif';
    const res = await fetch(`${base}/api/v1/sources/info`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url }) });
    expect(res.status).toBeGreaterThanOrEqual(400);
    const problem = (await res.json()) as { detail: string; status: number };
    await page.locator('#source-url').fill(url);
    await page.locator('#source-load').click();
    await expect.poll(() => page.locator('[data-testid="error"]').textContent()).toContain(problem.detail);
    expect(await page.locator('#run').isDisabled()).toBe(true);
    // The browser logs the failed fetch itself; nothing else.
    expect(errors.filter((e) => !e.includes(`the server responded with a status of ${problem.status}`))).toEqual([]);
  });

  it('a zone the service cannot answer shows its own error detail in its row', async () => {
    await pickDemoRaster();
    await page.locator('#zones-clear').click();
    const bowtie = {
      type: 'Polygon',
      coordinates: [
        [
          [6.0, 49.6],
          [6.2, 49.8],
          [6.2, 49.6],
          [6.0, 49.8],
          [6.0, 49.6],
        ],
      ],
    };
    // Its id would be a formula in a spreadsheet: the CSV gives it a leading apostrophe.
    await page
      .locator('#zones-geojson')
      .fill(
        JSON.stringify({ type: 'FeatureCollection', features: [TWO_ZONES.features[0], { type: 'Feature', id: '=1+2', properties: {}, geometry: bowtie }] }),
      );
    await page.locator('#zones-add').click();
    await run(2);
    const answers = await postStats('raster', bodyFromCurl(await page.locator('#curl').inputValue()));
    const detail = answers[1]!.properties.error!.detail;
    const rows = await tableRows();
    expect(rows[1]!['error']).toContain(detail);
    await expect.poll(() => page.locator('[data-testid="error"]').textContent()).toContain(detail);
    expect(rows[1]!['id']).toBe('=1+2');
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#csv-download').click()]);
    const csv = parse(await readFile((await download.path())!, 'utf8')) as string[][];
    expect(csv[2]![1]).toBe("'=1+2");
    expect(csv[1]![1]).toBe('north');
    expect(errors).toEqual([]);
  });

  it('zones × time (raster/stac/search, sent as JSON from the form’s request): one line per zone, the answer’s numbers in time order', async () => {
    const files = await startRangeServer({ root: join(FIXTURES, 'demo') });
    // Three Items of the demo raster, listed out of time order, each with its own scale: every time its own numbers.
    const item = (id: string, datetime: string, scale: number): Item => ({
      type: 'Feature',
      stac_version: '1.0.0',
      id,
      collection: 'demo',
      bbox: [5.7416667, 49.4416667, 6.5333333, 50.1916667],
      geometry: null,
      properties: { datetime },
      links: [],
      assets: { elevation: { href: files.url('/elev.cog.tif'), type: 'image/tiff; application=geotiff', roles: ['data'], 'raster:bands': [{ scale }] } },
    });
    const api = await startStacApi([item('mar', '2024-03-15T10:00:00Z', 0.5), item('jan', '2024-01-15T10:00:00Z', 2), item('feb', '2024-02-15T10:00:00Z', 1)]);
    try {
      await pickDemoRaster();
      await pasteTwoZones();
      await page.locator('#stats input[value="max"]').check();
      await page.locator('#json-request summary').click();
      await page.locator('#json-from-form').click();
      const formBody = JSON.parse(await page.locator('#json-body').inputValue()) as Record<string, unknown> & { aoi: { features: Record<string, unknown>[] } };
      expect(await page.locator('#json-endpoint').inputValue()).toBe('/api/v1/zonal-stats/raster');
      // The form's request made a search: the zones (the second without its id, a third no Item covers), over the API's Items.
      const { url: _url, ...rest } = formBody;
      const [north, south] = formBody.aoi.features;
      const { id: _id, ...southWithoutId } = south!;
      const sea = { type: 'Feature', id: 'sea', properties: {}, geometry: { type: 'Point', coordinates: [0, 0] } };
      const body = { ...rest, stac: { url: api.url('/') }, asset: 'elevation', aoi: { type: 'FeatureCollection', features: [north, southWithoutId, sea] } };
      const path = '/api/v1/zonal-stats/raster/stac/search';
      await page.locator('#json-endpoint').selectOption(path);
      await page.locator('#json-body').fill(JSON.stringify(body, null, 2));
      await page.locator('#json-send').click();
      await expect.poll(() => page.locator('#results-table tbody tr').count()).toBe(7);

      const answer = await postLines(path, body);
      const rows = await tableRows();
      expect(rows.map((r) => [r['zone'], r['id'], r['item_id'], r['error'] ? 'error' : r['mean']])).toEqual(
        answer.map((l) => [String(l.index), l.id === null ? '' : String(l.id), l.item_id ?? '', l.error ? 'error' : String(l.statistics!['band_1']!['mean'])]),
      );
      expect(rows[6]!['error']).toContain(answer[6]!.error!.detail);
      const times = ['2024-01-15T10:00:00Z', '2024-02-15T10:00:00Z', '2024-03-15T10:00:00Z'];
      const expected = (stat: string) =>
        [0, 1].map((zone) => ({
          name: zone === 0 ? 'north' : 'zone 1',
          zone,
          points: times.map((x) => ({ x, y: answer.find((l) => l.index === zone && l.datetime === x)!.statistics!['band_1']![stat]! })),
        }));
      // Every time its own mean (the scales differ), so a line out of time order would not match.
      const means = expected('mean')[0]!.points.map((p) => p.y);
      expect(new Set(means).size).toBe(3);
      expect(await page.locator('#histogram-box').isHidden()).toBe(true);
      await expect.poll(() => page.locator('#chart-title').textContent()).toContain('mean of band 1 by datetime');
      expect(await chartedSeries()).toEqual({ labels: times, lines: expected('mean') });
      // The statistics offered are the answer's numeric ones; another one redraws the lines.
      const offered = await page.locator('#series-stat option').allTextContents();
      expect(offered).toEqual(expect.arrayContaining(['count', 'mean', 'max']));
      expect(await page.locator('#series-key-label').isHidden()).toBe(true);
      await page.locator('#series-stat').selectOption('max');
      await expect.poll(async () => (await chartedSeries())?.lines).toEqual(expected('max'));
      expect(errors).toEqual([]);
    } finally {
      await api.close();
      await files.close();
    }
  });

  it('a data cube (the ERA5 demo store): its variables and extents, a time range, one row per zone and step, lines equal to the API’s NDJSON', async () => {
    await page.locator('[data-testid^="demo-"][data-kind="cube"]').click();
    await page.locator('[data-testid="source-info"][data-kind="cube"]').waitFor();
    const url = pathToFileURL(join(FIXTURES, 'demo/era5.zarr')).href;
    const res = await fetch(`${base}/api/v1/sources/info`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url }) });
    const info = (await res.json()) as {
      variables: { name: string; units: string; long_name: string }[];
      dimensions: { name: string; size: number; first: string | number; last: string | number }[];
    };
    expect(await page.locator('#cube-variable option').allTextContents()).toEqual(info.variables.map((v) => `${v.name} — ${v.long_name} (${v.units})`));
    expect(await page.locator('#cube-variable').inputValue()).toBe('t2m');
    for (const d of info.dimensions)
      expect(await page.locator(`[data-testid="cube-extent-${d.name}"]`).textContent()).toBe(`${d.name} ${d.first} … ${d.last} (${d.size})`);
    expect(await page.locator('[data-testid="cube-extent-time"]').textContent()).toBe('time 2020-01-01T00:00:00Z … 2020-01-02T23:00:00Z (48)');
    // Steps for time only (the grid's axes are the zones' cells); no bands, no approx_stats.
    expect(await page.locator('#cube-dims select').count()).toBe(1);
    expect(await page.locator('#approx-stats').isVisible()).toBe(false);
    expect(await page.locator('#pixels').isVisible()).toBe(true);

    const box = (w: number, s: number, e: number, n: number) => [
      [
        [w, s],
        [e, s],
        [e, n],
        [w, n],
        [w, s],
      ],
    ];
    const zones = {
      type: 'FeatureCollection',
      features: [
        { type: 'Feature', id: 'iberia', properties: {}, geometry: { type: 'Polygon', coordinates: box(-9, 37, 3, 43) } },
        { type: 'Feature', properties: {}, geometry: { type: 'Point', coordinates: [10, 46.5], radius: 300_000 } },
      ],
    };
    await page.locator('#zones-clear').click();
    await page.locator('#zones-geojson').fill(JSON.stringify(zones));
    await page.locator('#zones-add').click();
    await page.locator('#pixels').selectOption('fractional');
    await page.locator('[data-testid="cube-steps-time"]').selectOption('range');
    expect(await page.locator('[data-testid="cube-start-time"]').inputValue()).toBe('2020-01-01T00:00:00Z');
    expect(await page.locator('[data-testid="cube-end-time"]').inputValue()).toBe('2020-01-02T23:00:00Z');
    await page.locator('[data-testid="cube-start-time"]').fill('2020-01-01T21:00:00Z');
    await page.locator('[data-testid="cube-end-time"]').fill('2020-01-02T01:00:00Z');
    // Another variable of the store keeps the range typed.
    await page.locator('#cube-variable').selectOption('t2m_f');
    expect(await page.locator('[data-testid="cube-variable-about"]').textContent()).toContain('2 metre temperature (float32, unpacked), K');
    expect(await page.locator('[data-testid="cube-start-time"]').inputValue()).toBe('2020-01-01T21:00:00Z');
    await run(2 * 5);

    const curl = await page.locator('#curl').inputValue();
    expect(curl).toContain('/api/v1/zonal-stats/cube ');
    const body = bodyFromCurl(curl) as unknown as Record<string, unknown>;
    expect(body).toMatchObject({ url, variable: 't2m_f', sel: { time: { start: '2020-01-01T21:00:00Z', end: '2020-01-02T01:00:00Z' } }, pixels: 'fractional' });
    for (const key of ['bands', 'approx_stats', 'asset']) expect(body).not.toHaveProperty(key);
    const answer = await postLines('/api/v1/zonal-stats/cube', body);
    const times = ['2020-01-01T21:00:00Z', '2020-01-01T22:00:00Z', '2020-01-01T23:00:00Z', '2020-01-02T00:00:00Z', '2020-01-02T01:00:00Z'];
    expect(answer.map((l) => [l.index, l.time])).toEqual([0, 1].flatMap((i) => times.map((t) => [i, t])));
    const rows = await tableRows();
    expect(rows.map((r) => [r['zone'], r['id'], r['time'], r['variable'], r['mean']])).toEqual(
      answer.map((l) => [String(l.index), l.id === null ? '' : String(l.id), l.time, 't2m_f', String(l.statistics!['t2m_f']!['mean'])]),
    );
    const expected = [0, 1].map((zone) => ({
      name: zone === 0 ? 'iberia' : 'zone 1',
      zone,
      points: times.map((x) => ({ x, y: answer.find((l) => l.index === zone && l.time === x)!.statistics!['t2m_f']!['mean']! })),
    }));
    // The steps' means differ, so points out of order would not match.
    expect(new Set(expected[0]!.points.map((p) => p.y)).size).toBe(times.length);
    await expect.poll(() => page.locator('#chart-title').textContent()).toContain('mean of t2m_f by time');
    expect(await chartedSeries()).toEqual({ labels: times, lines: expected });
    expect(errors).toEqual([]);
  });

  it('a kerchunk reference file typed (a .json URL, so "STAC Item" ticks): read as a cube once the STAC reading fails', async () => {
    const url = pathToFileURL(join(FIXTURES, 'cube/cmip6_noleap.json')).href;
    await page.locator('#source-url').fill(url);
    expect(await page.locator('#source-stac').isChecked()).toBe(true);
    await page.locator('#source-load').click();
    await page.locator('[data-testid="source-info"][data-kind="cube"]').waitFor();
    expect(await page.locator('[data-testid="source-info"]').textContent()).toContain('kerchunk references');
    expect(await page.locator('#source-stac').isChecked()).toBe(false);
    expect(await page.locator('[data-testid="error"]').isHidden()).toBe(true);
    // The variable offered first is the one whose dimensions sources/info describes (not its bounds arrays).
    expect(await page.locator('#cube-variable').inputValue()).toBe('tas');
    expect(await page.locator('[data-testid="cube-extent-time"]').textContent()).toBe('time 2014-01-16T12:00:00 … 2015-12-16T12:00:00 (24)');
    await pasteTwoZones();
    const body = bodyFromCurl(await page.locator('#curl').inputValue()) as unknown as Record<string, unknown>;
    expect(body).toMatchObject({ url, variable: 'tas' });
    expect(body).not.toHaveProperty('sel');
    // The browser logs the STAC reading's 422 itself; nothing else.
    expect(errors.filter((e) => !e.includes('the server responded with a status of 422'))).toEqual([]);
  });
});
