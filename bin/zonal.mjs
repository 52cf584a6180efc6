#!/usr/bin/env node
// `zonal`: runs the compiled CLI (dist/cli/main.js) when the build is up to date with src/, else
// src/cli/main.ts through tsx (development), as `npm start` / `npm run dev` run the server.
import { fileURLToPath } from 'node:url';
import { distIsFresh } from '../scripts/build.mjs';

// The worker threads load tsx by its package name (src/workers/pool.ts) when they run TypeScript, which
// resolves from the working directory: run from the project's folder, and tell the CLI the user's folder.
process.env.ZONAL_CLI_CWD ??= process.cwd();
process.chdir(fileURLToPath(new URL('..', import.meta.url)));
if (distIsFresh()) {
  await import('../dist/cli/main.js');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
}
