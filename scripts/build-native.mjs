#!/usr/bin/env node
/**
 * Builds the optional native addons with node-gyp (npm's own copy; the machine's Node headers, never
 * downloaded): native/inflate/ (a Node-API binding of libdeflate, the library GDAL links) and native/fold/
 * (a cube's plain fold in C, no library). Where one cannot be built (no compiler, no libdeflate-dev, no Node
 * headers) it says why in one line and exits 0: the service then inflates with node:zlib (the same bytes,
 * whole tiles only, ~1.25× slower; src/codecs/deflate.ts) or folds in JavaScript (the same numbers, slower;
 * src/raster/fold-native.ts).
 *
 *   node scripts/build-native.mjs [--if-stale]   build (only those missing or older than their sources)
 */
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Each addon: its folder, its build, its sources, and what the service does without it. */
const ADDONS = [
  {
    dir: 'inflate',
    file: 'zonal_inflate.node',
    sources: ['inflate.c', 'binding.gyp'],
    built: 'native/inflate (libdeflate)',
    without: 'DEFLATE tiles inflate with node:zlib (same results, slower)',
  },
  {
    dir: 'fold',
    file: 'zonal_fold.node',
    sources: ['fold.c', 'binding.gyp'],
    built: 'native/fold',
    without: "a cube's steps fold in JavaScript (same results, slower)",
  },
];

const addonPath = (a) => join(ROOT, 'native', a.dir, 'build', 'Release', a.file);

/** Whether an addon is built and newer than its sources (true without the sources: the image ships it built). */
function isFresh(a) {
  const dir = join(ROOT, 'native', a.dir);
  if (!existsSync(addonPath(a))) return !existsSync(join(dir, 'binding.gyp'));
  const built = statSync(addonPath(a)).mtimeMs;
  return a.sources.every((f) => !existsSync(join(dir, f)) || statSync(join(dir, f)).mtimeMs <= built);
}

/** Whether every addon is built and newer than its sources. */
export function nativeIsFresh() {
  return ADDONS.every(isFresh);
}

/** npm's bundled node-gyp: named by npm in scripts, else beside this Node's npm. */
function nodeGyp() {
  const candidates = [
    process.env.npm_config_node_gyp,
    join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
    join(dirname(process.execPath), 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
  ];
  return candidates.find((c) => c && existsSync(c)) ?? null;
}

/** Builds one addon; returns null when built, else the reason it could not be. */
function buildOne(a) {
  const dir = join(ROOT, 'native', a.dir);
  if (!existsSync(join(dir, 'binding.gyp'))) return 'its sources are not here';
  const gyp = nodeGyp();
  if (gyp === null) return 'node-gyp was not found (it comes with npm)';
  // This Node's own headers (nodedir), so that node-gyp never tries to download them.
  const nodedir = join(dirname(process.execPath), '..');
  if (!existsSync(join(nodedir, 'include', 'node', 'node_api.h'))) return `this Node's headers are not in ${join(nodedir, 'include', 'node')}`;
  try {
    execFileSync(process.execPath, [gyp, 'rebuild', `--nodedir=${nodedir}`, '--jobs=2'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    return null;
  } catch (e) {
    const text = `${e.stdout ?? ''}${e.stderr ?? ''}`;
    if (/libdeflate\.h/.test(text)) return 'libdeflate.h is missing (apt-get install libdeflate-dev)';
    if (/not found: (make|g\+\+|cc|python)|No such file or directory.*(make|cc|g\+\+)|gyp ERR! find Python/.test(text))
      return 'no C compiler, make or Python for node-gyp';
    return `node-gyp failed: ${text.split('\n').filter((l) => /error|ERR!/.test(l))[0] ?? 'see `npm run build:native`'}`;
  }
}

/**
 * Builds the addons (with `ifStale`, only those missing or older than their sources); returns one line for
 * each that could not be built, saying why and what the service does instead (empty: all built).
 */
export function buildNative(ifStale = false) {
  const problems = [];
  for (const a of ADDONS) {
    if (ifStale && isFresh(a)) continue;
    const why = buildOne(a);
    if (why === null) process.stderr.write(`built ${a.built}\n`);
    else problems.push(`${a.built} not built: ${why}; ${a.without}`);
  }
  return problems;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const line of buildNative(process.argv.includes('--if-stale'))) process.stderr.write(`${line}\n`);
}
