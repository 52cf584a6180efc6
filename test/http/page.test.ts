/**
 * The web page's serving (issue 13), without a browser: / negotiates between the page and the JSON index,
 * assets are cached for a year under their content-hashed names, every page answer carries the CSP, and
 * /ui/config.json offers the bundled demo sources and the configured basemap. test/web/ drives the page.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, FIXTURES } from '../helpers/build-app.ts';
import { contentSecurityPolicy } from '../../src/http/page.ts';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

function webDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'zonal-web-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>zonal</title><script type="module" src="/ui/assets/app-ABC123.js"></script>');
  writeFileSync(join(dir, 'assets', 'app-ABC123.js'), 'console.log(1);\n');
  writeFileSync(join(dir, 'assets', 'app-ABC123.js.br'), brotliCompressSync('console.log(1);\n'));
  return dir;
}

describe('the web page at /', () => {
  let app: FastifyInstance;
  let bare: FastifyInstance;
  beforeAll(async () => {
    app = await buildTestApp(
      { webDir: webDir(), basemap: { tiles: 'https://tiles.example.org/{z}/{x}/{y}.png', attribution: '© Example' } },
      { demoDir: join(FIXTURES, 'demo') },
    );
    // Its data root is the test fixtures' raster folder: the demo folder lies outside.
    bare = await buildTestApp({ webDir: join(tmpdir(), 'no-such-web-dir'), dataRoots: [join(FIXTURES, 'raster')] });
  });
  afterAll(async () => Promise.all([app.close(), bare.close()]));

  it('a browser gets the page with a strict CSP; curl, API clients and JSON askers get the index', async () => {
    const page = await app.inject({ method: 'GET', url: '/', headers: { accept: BROWSER_ACCEPT } });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('/ui/assets/app-ABC123.js');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    // The basemap's origin only, for its tiles.
    expect(csp).toContain("img-src 'self' data: blob: https://tiles.example.org");
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(String(page.headers['vary'])).toMatch(/accept/i);
    for (const accept of [undefined, '*/*', 'application/json', 'application/json, text/html;q=0.5']) {
      const res = await app.inject({ method: 'GET', url: '/', headers: accept === undefined ? {} : { accept } });
      expect(res.statusCode, String(accept)).toBe(200);
      expect(res.json().endpoints.raster, String(accept)).toBe('/api/v1/zonal-stats/raster');
    }
  });

  it('serves the content-hashed assets for a year, and nothing outside them', async () => {
    const js = await app.inject({ method: 'GET', url: '/ui/assets/app-ABC123.js' });
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toMatch(/javascript/);
    expect(js.headers['cache-control']).toMatch(/max-age=31536000.*immutable|immutable.*max-age=31536000/);
    expect(js.headers['content-security-policy']).toBeDefined();
    // The build's precompressed copy, to a client that takes it; the plain file to one that does not.
    const br = await app.inject({ method: 'GET', url: '/ui/assets/app-ABC123.js', headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe('console.log(1);\n');
    expect(js.headers['content-encoding']).toBeUndefined();
    expect(js.body).toBe('console.log(1);\n');
    const paths = [
      '/ui/assets/nope.js',
      '/ui/assets/../index.html',
      '/ui/assets/%2e%2e/index.html',
      '/ui/assets/..%2f..%2fpackage.json',
      '/ui/assets/%00',
      '/ui/assets/..%5c..%5cindex.html',
      `/ui/assets/${'a'.repeat(5000)}.js`,
      '/docs/static/..%2f..%2fpackage.json',
    ];
    for (const url of paths) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type'], url).toMatch(/problem\+json/);
    }
  });

  it('/ui/config.json offers the bundled demo sources (readable under the default data root) and the basemap', async () => {
    const res = await app.inject({ method: 'GET', url: '/ui/config.json' });
    expect(res.statusCode).toBe(200);
    const config = res.json();
    expect(config.basemap).toEqual({ tiles: 'https://tiles.example.org/{z}/{x}/{y}.png', attribution: '© Example' });
    expect(config.demo.map((d: { kind: string }) => d.kind)).toEqual(['raster', 'vector', 'cube']);
    for (const d of config.demo) {
      const info = await app.inject({ method: 'POST', url: '/api/v1/sources/info', payload: { url: d.url } });
      expect(info.statusCode, info.body).toBe(200);
      expect(info.json().kind).toBe(d.kind);
    }
  });

  it('/ui/config.json offers no demo source this instance may not read (data roots without the demo folder)', async () => {
    const res = await bare.inject({ method: 'GET', url: '/ui/config.json' });
    expect(res.json().demo).toEqual([]);
  });

  it('without a built page, / answers JSON to everyone (and says nothing of a page)', async () => {
    const res = await bare.inject({ method: 'GET', url: '/', headers: { accept: BROWSER_ACCEPT } });
    expect(res.statusCode).toBe(200);
    expect(res.json().name).toBe('zonal-stats-service');
  });

  it('the CSP with no basemap allows this origin only', () => {
    const csp = contentSecurityPolicy(null);
    expect(csp.match(/https?:\/\//g)).toBeNull();
  });
});
