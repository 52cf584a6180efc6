#!/usr/bin/env node
/**
 * The compiled build (dist/, tsc -p tsconfig.build.json; dist/web/, the page, scripts/build-web.mjs) and
 * whether it is up to date with src/ and web/. `npm start`
 * runs this first (`node scripts/build.mjs --if-stale`): it builds only when a source file is newer than the
 * last build, so `npm ci && npm start` works on a fresh machine and a restart costs nothing. Without src/
 * (the container image) the build is whatever dist/ holds.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildNative, nativeIsFresh } from './build-native.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const STAMP = join(ROOT, 'dist', '.built');

function newest(dir) {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

/** Whether dist/ holds a build at least as new as every file of src/ (and of the build's config). */
export function distIsFresh() {
  if (!existsSync(join(ROOT, 'src'))) return existsSync(join(ROOT, 'dist', 'server.js'));
  if (!existsSync(STAMP)) return false;
  const built = statSync(STAMP).mtimeMs;
  return (
    Math.max(newest(join(ROOT, 'src')), newest(join(ROOT, 'web'))) <= built &&
    statSync(join(ROOT, 'tsconfig.build.json')).mtimeMs <= built &&
    statSync(join(ROOT, 'tsconfig.json')).mtimeMs <= built
  );
}

export function build() {
  execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ROOT, 'tsconfig.build.json')], { stdio: 'inherit' });
  // The web page (web/ → dist/web/, esbuild), served at / to browsers.
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'build-web.mjs'), '--out', join(ROOT, 'dist', 'web')], { stdio: 'inherit' });
  writeFileSync(STAMP, `${new Date().toISOString()}\n`);
}

/** Runs `fn` holding .building (a directory: made atomically), so two builds never write dist/ at once. */
function locked(fn) {
  const lock = join(ROOT, '.building');
  const until = Date.now() + 120_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() > until) throw new Error('another build holds .building for 2 minutes');
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try {
    fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const ifStale = process.argv.includes('--if-stale');
  // The optional native addons (libdeflate's inflater, the cube's fold): built where they can be, else the
  // service says at start what it uses instead.
  if (!ifStale || !nativeIsFresh()) for (const line of buildNative(ifStale)) process.stderr.write(`${line}\n`);
  if (ifStale && distIsFresh()) process.exit(0);
  locked(() => {
    // Another process may have built it while this one waited.
    if (ifStale && distIsFresh()) return;
    process.stderr.write('building dist/ (tsc -p tsconfig.build.json, then the web page) …\n');
    build();
  });
}
