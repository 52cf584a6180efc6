/**
 * docs/screenshot.png, the page with results (README): the page built into a temporary folder, the
 * service with its default configuration (the bundled demo data), Debian's Chromium at 1280 × 800.
 *
 *     npx tsx tools/web/screenshot.ts          (needs /usr/bin/chromium, or CHROMIUM_PATH)
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { servePage } from './page-server.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const ZONES = {
  type: 'FeatureCollection',
  features: [
    {
      type: 'Feature',
      id: 'north',
      properties: { name: 'Clervaux' },
      geometry: {
        type: 'Polygon',
        coordinates: [
          [
            [5.95, 49.98],
            [6.12, 49.98],
            [6.12, 50.1],
            [5.95, 50.1],
            [5.95, 49.98],
          ],
        ],
      },
    },
    { type: 'Feature', id: 'city', properties: { name: 'Luxembourg' }, geometry: { type: 'Point', coordinates: [6.13, 49.61], radius: 4000 } },
    {
      type: 'Feature',
      id: 'moselle',
      properties: { name: 'Moselle' },
      geometry: {
        type: 'Polygon',
        coordinates: [
          [
            [6.3, 49.5],
            [6.42, 49.52],
            [6.45, 49.65],
            [6.33, 49.68],
            [6.3, 49.5],
          ],
        ],
      },
    },
  ],
};

const { base, browser, close } = await servePage();
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
  await page.goto(`${base}/`);
  await page.locator('body[data-ready="true"]').waitFor();
  await page.locator('[data-testid^="demo-"][data-kind="raster"]').first().click();
  await page.locator('[data-testid="source-info"][data-kind="raster"]').waitFor();
  await page.locator('#zones-geojson').fill(JSON.stringify(ZONES));
  await page.locator('#zones-add').click();
  for (const stat of ['median', 'std']) await page.locator(`#stats input[value="${stat}"]`).check();
  await page.locator('#histogram-bins').fill('12');
  await page.locator('#run').click();
  await page.locator('#results-table tbody tr').nth(2).waitFor();
  await page.locator('#results-table tbody tr').first().click();
  await page.waitForTimeout(800);
  await page.screenshot({ path: join(ROOT, 'docs', 'screenshot.png') });
  console.log('wrote docs/screenshot.png');
} finally {
  await close();
}
