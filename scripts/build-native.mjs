#!/usr/bin/env node
/**
 * Builds the optional native inflater (native/inflate/: a Node-API binding of libdeflate, the library GDAL
 * links) with node-gyp (npm's own copy; the machine's Node headers, never downloaded). Where it cannot be
 * built (no compiler, no libdeflate-dev, no Node headers) it says why in one line and exits 0: the service
 * then inflates with node:zlib, the same bytes, whole tiles only and ~1.25× slower (src/codecs/deflate.ts).
 *
 *   node scripts/build-native.mjs [--if-stale]   build (only when missing or older than its sources)
 */
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIR = join(ROOT, 'native', 'inflate');
export const ADDON = join(DIR, 'build', 'Release', 'zonal_inflate.node');

/** Whether the addon is built and newer than its sources (false without the sources: the image ships it built). */
export function nativeIsFresh() {
  if (!existsSync(ADDON)) return false;
  const built = statSync(ADDON).mtimeMs;
  return ['inflate.c', 'binding.gyp'].every((f) => !existsSync(join(DIR, f)) || statSync(join(DIR, f)).mtimeMs <= built);
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

/** Builds it; returns null when built, else the reason it could not be. */
export function buildNative() {
  if (!existsSync(join(DIR, 'binding.gyp'))) return 'its sources are not here';
  const gyp = nodeGyp();
  if (gyp === null) return 'node-gyp was not found (it comes with npm)';
  // This Node's own headers (nodedir), so that node-gyp never tries to download them.
  const nodedir = join(dirname(process.execPath), '..');
  if (!existsSync(join(nodedir, 'include', 'node', 'node_api.h'))) return `this Node's headers are not in ${join(nodedir, 'include', 'node')}`;
  try {
    execFileSync(process.execPath, [gyp, 'rebuild', `--nodedir=${nodedir}`, '--jobs=2'], { cwd: DIR, stdio: ['ignore', 'pipe', 'pipe'] });
    return null;
  } catch (e) {
    const text = `${e.stdout ?? ''}${e.stderr ?? ''}`;
    if (/libdeflate\.h/.test(text)) return 'libdeflate.h is missing (apt-get install libdeflate-dev)';
    if (/not found: (make|g\+\+|cc|python)|No such file or directory.*(make|cc|g\+\+)|gyp ERR! find Python/.test(text))
      return 'no C compiler, make or Python for node-gyp';
    return `node-gyp failed: ${text.split('\n').filter((l) => /error|ERR!/.test(l))[0] ?? 'see `npm run build:native`'}`;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv.includes('--if-stale') && nativeIsFresh()) process.exit(0);
  const why = buildNative();
  process.stderr.write(
    why === null ? 'built native/inflate (libdeflate)\n' : `native inflate not built: ${why}; DEFLATE tiles inflate with node:zlib (same results, slower)\n`,
  );
}
