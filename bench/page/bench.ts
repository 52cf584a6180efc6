/**
 * The web page's cost, in one run (bench/page/README.md): what a first visit transfers (with and without
 * compression), how long until the page is ready (map, drawing tools, demo source with its preview), and
 * what a Run adds over the API itself (the anchor: the same request sent with fetch from the same page).
 *
 *     npx tsx bench/page/bench.ts [runs=10]      (needs /usr/bin/chromium or CHROMIUM_PATH)
 */
import type { Page } from 'playwright-core';
import { servePage } from '../../tools/web/page-server.ts';

const RUNS = Number(process.argv[2] ?? 10);
const ZONES = {
  type: 'FeatureCollection',
  features: Array.from({ length: 20 }, (_, i) => ({
    type: 'Feature',
    id: `z${i}`,
    properties: {},
    geometry: { type: 'Point', coordinates: [5.85 + (i % 5) * 0.15, 49.55 + Math.floor(i / 5) * 0.12], radius: 3000 },
  })),
};
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

const { base, browser, close } = await servePage(2);

async function visit(compressed: boolean): Promise<{ page: Page; bytes: number; readyMs: number }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, extraHTTPHeaders: compressed ? {} : { 'accept-encoding': 'identity' } });
  const page = await context.newPage();
  let bytes = 0;
  page.on('response', (r) => {
    void r
      .request()
      .sizes()
      .then((s) => (bytes += s.responseBodySize + s.responseHeadersSize))
      .catch(() => undefined);
  });
  const t0 = performance.now();
  await page.goto(`${base}/`);
  await page.locator('body[data-ready="true"]').waitFor();
  await page.locator('[data-testid="source-info"][data-kind="raster"]').waitFor();
  const readyMs = performance.now() - t0;
  await page.waitForTimeout(300);
  return { page, bytes, readyMs };
}

try {
  const cold: number[] = [];
  let bytesBr = 0;
  let bytesPlain = 0;
  for (let i = 0; i < RUNS; i++) {
    const v = await visit(true);
    cold.push(v.readyMs);
    bytesBr = v.bytes;
    await v.page.context().close();
  }
  const plain = await visit(false);
  bytesPlain = plain.bytes;
  await plain.page.context().close();

  const { page } = await visit(true);
  await page.locator('#zones-geojson').fill(JSON.stringify(ZONES));
  await page.locator('#zones-add').click();
  const viaPage: number[] = [];
  const viaFetch: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    // The click sets the status to "Computing…" before it sends; once the table and chart are drawn it says
    // "20 zones, 20 rows in N ms", N timed by the page itself from the click (no driver round trips in it).
    await page.locator('#run').click();
    const status = page.locator('#status', { hasText: /^20 zones/ });
    await status.waitFor();
    viaPage.push(Number(/in (\d+) ms/.exec((await status.textContent()) ?? '')?.[1]));
    const body = (await page.locator('#curl').inputValue())
      .replace(/^[\s\S]*?-d '/, '')
      .replace(/'$/, '')
      .replace(/'\\''/g, "'");
    const ms = await page.evaluate(async (b) => {
      const t = performance.now();
      const r = await fetch('/api/v1/zonal-stats/raster', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/x-ndjson' },
        body: b,
      });
      for (const line of (await r.text()).split('\n')) if (line !== '') JSON.parse(line);
      return performance.now() - t;
    }, body);
    viaFetch.push(ms);
  }
  const result = {
    first_visit_bytes_compressed: bytesBr,
    first_visit_bytes_uncompressed: bytesPlain,
    ready_ms_median: Math.round(median(cold)),
    run_20_zones_page_ms_median: Math.round(median(viaPage)),
    run_20_zones_fetch_ms_median: Math.round(median(viaFetch)),
    page_over_api: Number((median(viaPage) / median(viaFetch)).toFixed(2)),
  };
  console.log(JSON.stringify(result));
} finally {
  await close();
}
