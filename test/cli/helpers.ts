/** Runs the real `zonal` CLI as a child process, and asks the service the same zones over app.inject. */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const ELEV = 'fixtures/demo/elev.cog.tif';
export const NC = 'fixtures/demo/nc.parquet';
export const ELEV_URL = new URL(ELEV, `file://${ROOT}`).href;
export const NC_URL = new URL(NC, `file://${ROOT}`).href;

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `node --import tsx src/cli/main.ts ...args` in the project folder (or `bin/zonal.mjs` with `bin`). */
export function zonal(args: string[], options: { cwd?: string; bin?: boolean; env?: Record<string, string> } = {}): Promise<CliResult> {
  const entry = options.bin ? [`${ROOT}bin/zonal.mjs`] : ['--import', 'tsx', `${ROOT}src/cli/main.ts`];
  const env: Record<string, string | undefined> = { ...process.env, ZONAL_WORKERS: '1', ...options.env };
  delete env['ZONAL_CLI_CWD'];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...entry, ...args], { cwd: options.cwd ?? ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export function readJson<T = unknown>(relative: string): T {
  return JSON.parse(readFileSync(new URL(relative, `file://${ROOT}`), 'utf8')) as T;
}

export function ndjson(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** The service's answer for a FeatureCollection of zones, in the representation `accept` names. */
export async function ask(app: FastifyInstance, kind: 'raster' | 'vector', body: Record<string, unknown>, accept: string): Promise<string> {
  const res = await app.inject({ method: 'POST', url: `/api/v1/zonal-stats/${kind}`, payload: body, headers: { accept } });
  if (res.statusCode !== 200) throw new Error(`the service answered ${res.statusCode}: ${res.body}`);
  return res.body;
}

/** A stack trace's line. */
export const STACK = /\n\s+at [^\n]+\(/;
