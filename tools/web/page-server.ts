/**
 * For dev scripts that look at the page (tools/web/screenshot.ts, bench/page/bench.ts): the page built into
 * a temporary folder, the service with its default configuration (the bundled demo data) on loopback, and
 * Debian's Chromium (or CHROMIUM_PATH). `close()` stops all three.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';

export async function servePage(workers = 1): Promise<{ base: string; browser: Browser; close(): Promise<void> }> {
  const { buildWeb } = (await import(new URL('../../scripts/build-web.mjs', import.meta.url).href)) as { buildWeb: (dir: string) => Promise<unknown> };
  const webDir = await mkdtemp(join(tmpdir(), 'zonal-page-'));
  await buildWeb(webDir);
  const app = await buildApp({ ...loadConfig({}), webDir, workers }, { logger: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const browser = await chromium.launch({ executablePath: process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
  return {
    base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    browser,
    async close() {
      await browser.close();
      await app.close();
      await rm(webDir, { recursive: true, force: true });
    },
  };
}
