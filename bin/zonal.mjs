#!/usr/bin/env node
// `zonal`: runs src/cli/main.ts through tsx, as `npm start` runs the server.
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

// The worker threads load tsx by its package name (src/workers/pool.ts), which resolves from the working
// directory: run from the project's folder, and tell the CLI the user's folder for relative paths.
process.env.ZONAL_CLI_CWD ??= process.cwd();
process.chdir(fileURLToPath(new URL('..', import.meta.url)));
register();
await import('../src/cli/main.ts');
