/**
 * The web page (web/, built by scripts/build-web.mjs into config.webDir): index.html at / for browsers
 * (routes/meta.ts asks `pageHtml`), its content-hashed assets under /ui/assets/ (cached for a year), and
 * /ui/config.json (the basemap and the bundled demo sources). Everything the page does goes through the
 * public API, so this plugin only serves files, under a strict Content-Security-Policy.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import fastifyStatic from '@fastify/static';
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Config } from '../config.ts';
import { FileSource } from '../source/file.ts';

const DEMO = [
  { file: 'elev.cog.tif', kind: 'raster', label: 'Elevation of Luxembourg (COG)' },
  { file: 'nc.parquet', kind: 'vector', label: 'North Carolina counties (GeoParquet)' },
  // A store is a folder: offered when its metadata is readable.
  { file: 'era5.zarr', probe: 'era5.zarr/.zmetadata', kind: 'cube', label: 'ERA5-like 2 m temperature, 48 hours (Zarr)' },
] as const;

/** Only this origin's scripts, styles and data; images also from data:/blob: (the preview, the map). */
export function contentSecurityPolicy(basemap: Config['basemap']): string {
  const tiles = basemap === null ? '' : ` ${new URL(basemap.tiles.replace(/[{}]/g, '')).origin}`;
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src 'self' data: blob:${tiles}`,
    `connect-src 'self'${tiles}`,
    // MapLibre's worker is our own file (/ui/assets/, set with setWorkerUrl): no blob: workers.
    "worker-src 'self'",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "form-action 'none'",
  ].join('; ');
}

/** The headers every answer of the page (its HTML and its assets) carries. */
function securityHeaders(csp: string): Record<string, string> {
  return {
    'content-security-policy': csp,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Sends the page when it is built; false when it is not (then / answers JSON). */
    sendPage(reply: FastifyReply): boolean;
  }
}

export const pagePlugin = fp(async (app: FastifyInstance, opts: { config: Config; demoDir: string }) => {
  const { webDir, basemap } = opts.config;
  const headers = securityHeaders(contentSecurityPolicy(basemap));
  const indexPath = join(webDir, 'index.html');
  // Read once: the build replaces the whole folder, and a restart picks up a new page.
  const html = existsSync(indexPath) ? readFileSync(indexPath) : null;
  if (html === null) app.log.info({ webDir }, 'the web page is not built (npm run build): / answers JSON only');

  app.decorate('sendPage', (reply: FastifyReply) => {
    if (html === null) return false;
    void reply.headers(headers).header('cache-control', 'no-cache').header('vary', 'accept').type('text/html; charset=utf-8').send(html);
    return true;
  });

  if (existsSync(join(webDir, 'assets'))) {
    await app.register(fastifyStatic, {
      root: join(webDir, 'assets'),
      prefix: '/ui/assets/',
      // @fastify/swagger-ui registers its own copy: no reply decorators from this one.
      decorateReply: false,
      // Names carry their content hash: a changed file is a new name.
      immutable: true,
      maxAge: '365d',
      index: false,
      // scripts/build-web.mjs writes .br and .gz beside each asset; sent by Accept-Encoding.
      preCompressed: true,
      dotfiles: 'deny',
      setHeaders: (reply) => {
        void reply.headers(headers);
      },
      schemaHide: true,
    });
  }

  // Offered only when this instance may read them (an operator's ZONAL_DATA_ROOTS may leave them out): the
  // same check a request for them gets.
  const demo: { label: string; kind: string; url: string }[] = [];
  for (const d of DEMO) {
    const url = pathToFileURL(join(opts.demoDir, d.file));
    const readable = await FileSource.open(pathToFileURL(join(opts.demoDir, 'probe' in d ? d.probe : d.file)), opts.config.dataRoots).then(
      () => true,
      () => false,
    );
    if (readable) demo.push({ label: d.label, kind: d.kind, url: url.href });
  }
  app.get('/ui/config.json', { schema: { hide: true } }, async (_request, reply) => {
    void reply.header('cache-control', 'no-cache');
    return { basemap, demo };
  });
});
