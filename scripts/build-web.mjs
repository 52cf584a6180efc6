#!/usr/bin/env node
/**
 * Builds the browser page (web/) into DIR (default dist/web):
 *   DIR/index.html            web/index.html with the hashed asset names
 *   DIR/assets/app-HASH.js    web/src/main.ts bundled by esbuild (MapLibre, terra-draw, Chart.js inside)
 *   DIR/assets/app-HASH.css   web/src/styles.css + maplibre-gl.css
 *   DIR/assets/maplibre-gl-worker-HASH.js, favicon-HASH.svg   copied with a content hash
 *   DIR/assets/*.br, *.gz     precompressed copies of each of them
 * The service serves DIR/index.html at / and DIR/assets at /ui/assets/ (immutable: every name is hashed).
 * Usage: node scripts/build-web.mjs [--out DIR]; or import { buildWeb } and await buildWeb(dir).
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants as zlibConstants, gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const WEB = join(ROOT, 'web');
const PUBLIC_PREFIX = '/ui/assets/';
const require = createRequire(import.meta.url);

/** name-HASH.ext, the hash taken from the content (like esbuild's [name]-[hash]). */
function hashedName(name, content) {
  const hash = createHash('sha256').update(content).digest('base64url').replace(/[-_]/g, '').slice(0, 10).toUpperCase();
  return `${basename(name, extname(name))}-${hash}${extname(name)}`;
}

async function copyHashed(from, assetsDir, name = basename(from)) {
  const content = await readFile(from);
  const file = hashedName(name, content);
  await writeFile(join(assetsDir, file), content);
  return file;
}

/**
 * Builds the page into outDir (emptied first). Returns the written asset names (relative to outDir/assets).
 * @param {string} [outDir]
 * @returns {Promise<{ outDir: string, assets: { js: string, css: string, worker: string, icon: string } }>}
 */
export async function buildWeb(outDir = join(ROOT, 'dist', 'web')) {
  outDir = resolve(outDir);
  const assetsDir = join(outDir, 'assets');
  await rm(outDir, { recursive: true, force: true });
  await mkdir(assetsDir, { recursive: true });

  // MapLibre's worker is a separate module file: copied as is, its hashed name compiled into the app.
  const worker = await copyHashed(require.resolve('maplibre-gl/dist/maplibre-gl-worker.mjs'), assetsDir, 'maplibre-gl-worker.js');
  const icon = await copyHashed(join(WEB, 'favicon.svg'), assetsDir);

  const result = await esbuild.build({
    entryPoints: { app: join(WEB, 'src', 'main.ts') },
    outdir: assetsDir,
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022', 'chrome111', 'firefox115', 'safari16.4'],
    minify: true,
    legalComments: 'linked',
    metafile: true,
    logLevel: 'silent',
    define: { __MAPLIBRE_WORKER__: JSON.stringify(worker) },
    tsconfig: join(WEB, 'tsconfig.json'),
  });
  if (result.warnings.length > 0) {
    const text = await esbuild.formatMessages(result.warnings, { kind: 'warning' });
    process.stderr.write(text.join(''));
  }

  const outputs = Object.keys(result.metafile.outputs).map((p) => basename(p));
  const js = outputs.find((f) => /^app-.*\.js$/.test(f));
  const css = outputs.find((f) => /^app-.*\.css$/.test(f));
  if (!js || !css) throw new Error(`build-web: esbuild wrote no app js/css (${outputs.join(', ')})`);

  const template = await readFile(join(WEB, 'index.html'), 'utf8');
  const replacements = { 'app.js': js, 'app.css': css, 'favicon.svg': icon };
  let html = template;
  for (const [from, to] of Object.entries(replacements)) {
    const needle = `${PUBLIC_PREFIX}${from}"`;
    if (!html.includes(needle)) throw new Error(`build-web: web/index.html does not reference ${PUBLIC_PREFIX}${from}`);
    html = html.replace(needle, `${PUBLIC_PREFIX}${to}"`);
  }
  await writeFile(join(outDir, 'index.html'), html);
  // Brotli and gzip copies beside each text asset: @fastify/static sends them to clients that accept
  // them (preCompressed), so the first visit moves ~0.5 MB rather than ~1.9 MB and no CPU is spent per request.
  for (const file of [js, css, worker, icon]) {
    const content = await readFile(join(assetsDir, file));
    await writeFile(
      join(assetsDir, `${file}.br`),
      brotliCompressSync(content, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 11, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: content.length } }),
    );
    await writeFile(join(assetsDir, `${file}.gz`), gzipSync(content, { level: 9 }));
  }
  return { outDir, assets: { js, css, worker, icon } };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--out');
  if (at >= 0 && !args[at + 1]) {
    process.stderr.write('usage: node scripts/build-web.mjs [--out DIR]\n');
    process.exit(2);
  }
  const started = performance.now();
  const { outDir, assets } = await buildWeb(at >= 0 ? args[at + 1] : undefined);
  process.stderr.write(`web page built in ${Math.round(performance.now() - started)} ms: ${outDir} (${Object.values(assets).join(', ')})\n`);
}
