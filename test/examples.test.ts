/**
 * Every example of the README and of /docs ("Try it out"), run as written against the bundled demo data and
 * a service with the default configuration (issue 12: first contact). The only rewrites are addresses: the
 * service and the demo STAC server listen on free ports here instead of 3000 and 8001, and CLI outputs go
 * to a temporary folder. Examples that read a public STAC API need the internet: offline they must still be
 * accepted (a 502/504 from the upstream, never a 4xx about the request).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { startRangeServer, type RangeServer } from './helpers/range-server.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const run = promisify(execFile);

const STAC_SERVER_LINE = '(cd fixtures/demo && python3 -m http.server 8001 --bind 127.0.0.1 &)';
const LOOPBACK_START_LINE = 'ZONAL_ALLOW_PRIVATE_NETWORKS=127.0.0.1/32 npm start &';
const PUBLIC = /https:\/\/earth-search\.aws\.element84\.com/;

interface Example {
  line: number;
  /** Set-up lines the README asks for before the command. */
  needsStacServer: boolean;
  allowLoopback: boolean;
  command: string;
}

/** The first line of the README's jobs walk-through, run whole as a script. */
const JOB_WALK = '# A job:';

/** The README's sh blocks: `[line, text]`. */
function shBlocks(): Array<[number, string]> {
  const out: Array<[number, string]> = [];
  const re = /^```sh\n([\s\S]*?)^```/gm;
  for (let m = re.exec(README); m !== null; m = re.exec(README)) out.push([README.slice(0, m.index).split('\n').length, m[1]!]);
  return out;
}

function curlExamples(): Example[] {
  const out: Example[] = [];
  for (const [line, text] of shBlocks()) {
    if (!text.includes('curl ') || text.startsWith(JOB_WALK)) continue;
    const lines = text.split('\n');
    const setup = lines.filter((l) => l.trim() !== '' && !l.startsWith('curl') && !/^\s|^["}]/.test(l));
    for (const l of setup)
      if (l !== STAC_SERVER_LINE && l !== LOOPBACK_START_LINE) throw new Error(`README line ${line}: a set-up line this test does not know: ${l}`);
    const command = lines.slice(lines.findIndex((l) => l.startsWith('curl'))).join('\n');
    out.push({ line, needsStacServer: setup.includes(STAC_SERVER_LINE), allowLoopback: setup.includes(LOOPBACK_START_LINE), command });
  }
  return out;
}

/** CLI commands of the README (continuation lines joined, comments dropped). */
function cliExamples(): Array<{ line: number; command: string }> {
  const out: Array<{ line: number; command: string }> = [];
  for (const [line, text] of shBlocks()) {
    if (!text.includes('node bin/zonal.mjs')) continue;
    const joined = text
      .replace(/\\\n\s*/g, ' ')
      .split('\n')
      .filter((l) => l.startsWith('node bin/zonal.mjs'));
    for (const command of joined) out.push({ line, command });
  }
  return out;
}

async function listen(env: Record<string, string>): Promise<{ app: FastifyInstance; origin: string }> {
  // loadConfig as `npm start` reads the environment: the default data root is the bundled demo folder.
  const app = await buildApp({ ...loadConfig(env), workers: 1, upstreamTimeoutMs: 5000 }, { logger: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  return { app, origin: `http://127.0.0.1:${address.port}` };
}

/** Runs a README curl command with bash in the project folder; answers the body and the status curl saw. */
async function curl(command: string, service: string, stac: string): Promise<{ status: number; body: string }> {
  const rewritten = command
    .replaceAll('localhost:3000', service.replace('http://', ''))
    .replaceAll('http://127.0.0.1:8001', stac)
    .replace(/^curl -s /, "curl -s -w '\\n%{http_code}' ");
  const { stdout } = await run('bash', ['-c', rewritten], { cwd: ROOT, env: { ...process.env, PWD: ROOT } });
  const cut = stdout.lastIndexOf('\n');
  return { status: Number(stdout.slice(cut + 1)), body: stdout.slice(0, cut) };
}

/** Offline, a public example is accepted and only reaching the public host fails (no DNS, no route, timeout). */
function expectOffline(body: string): void {
  const problem = JSON.parse(body) as { code: string; detail: string };
  if (problem.code === 'source_not_found') expect(problem.detail).toContain('earth-search.aws.element84.com');
  else expect(['upstream_failed', 'upstream_timeout'], body).toContain(problem.code);
}

describe('README and /docs examples, as written, against the bundled demo data', () => {
  let plain: { app: FastifyInstance; origin: string };
  let loopback: { app: FastifyInstance; origin: string };
  let stac: RangeServer;
  beforeAll(async () => {
    plain = await listen({});
    loopback = await listen({ ZONAL_ALLOW_PRIVATE_NETWORKS: '127.0.0.1/32' });
    stac = await startRangeServer({ root: join(ROOT, 'fixtures/demo') });
  });
  afterAll(async () => {
    await Promise.all([plain.app.close(), loopback.app.close(), stac.close()]);
  });

  it('finds the examples (a README edit that hides them fails here)', () => {
    expect(curlExamples().length).toBeGreaterThanOrEqual(9);
    expect(cliExamples().length).toBe(5);
  });

  it.each(curlExamples().map((e) => [e.line, e] as const))('README curl example at line %i', async (_line, example) => {
    const service = example.allowLoopback ? loopback : plain;
    const { status, body } = await curl(example.command, service.origin, stac.origin);
    if (PUBLIC.test(example.command) && status !== 200) {
      expectOffline(body);
      return;
    }
    expect(status, body).toBe(200);
    if (body.startsWith('index,')) {
      const rows = parse(body, { columns: true }) as Array<Record<string, string>>;
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) expect(row['error_code'], body).toBe('');
    } else expect(body).not.toContain('"error"');
  });

  it('the jobs walk-through: submit, poll, then the first rows of the results, each with its statistics', async () => {
    const walk = shBlocks().find(([, text]) => text.startsWith(JOB_WALK));
    expect(walk, 'the README has its jobs walk-through').toBeDefined();
    const script = walk![1].replaceAll('localhost:3000', plain.origin.replace('http://', ''));
    // A job that never ends fails here rather than hanging the suite.
    const { stdout } = await run('timeout', ['120', 'bash', '-c', script], { cwd: ROOT, env: { ...process.env, PWD: ROOT } });
    const rows = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { index: number; statistics?: Record<string, { sum: number; count: number }>; error?: unknown });
    expect(rows.map((r) => r.index)).toEqual([0, 1, 2]);
    for (const r of rows) {
      expect(r.error ?? null).toBeNull();
      expect(r.statistics?.['BIR74']?.count).toBeGreaterThan(0);
    }
  });

  it('the first example answers what the README prints, which is what GDAL computes', async () => {
    const first = curlExamples()[0]!;
    const { body } = await curl(first.command, plain.origin, stac.origin);
    const printed = /The demo request above answers:\n\n```json\n([\s\S]*?)```/.exec(README);
    expect(printed).not.toBeNull();
    expect(JSON.parse(body)).toEqual(JSON.parse(printed![1]!));
    // And both are GDAL's numbers (fixtures/cases/readme_demo_polygon, by tools/oracle/raster_oracle.py).
    const oracle = JSON.parse(readFileSync(join(ROOT, 'fixtures/cases/readme_demo_polygon.expected.json'), 'utf8')).response.band_1 as Record<string, number>;
    const got = JSON.parse(body).band_1 as Record<string, number>;
    for (const stat of ['count', 'min', 'max', 'mean', 'median', 'nodata'])
      expect(Math.abs(got[stat]! - oracle[stat]!), stat).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(oracle[stat]!)));
  });

  it.each(cliExamples().map((e) => [e.line, e.command.split(' ').slice(0, 3).join(' '), e] as const))(
    'README CLI example at line %i (%s)',
    async (_line, _name, example) => {
      const out = mkdtempSync(join(tmpdir(), 'zonal-readme-'));
      const command = example.command
        .replaceAll('http://localhost:3000', plain.origin)
        .replace(/(--output|-o) (\S+)/, (_m, flag: string, file: string) => `${flag} ${join(out, file)}`);
      // elev-zones.geojson holds one zone that cannot be answered on purpose: exit 1, named on stderr.
      const result = await run('bash', ['-c', command], { cwd: ROOT }).catch((e: { code: number; stdout: string; stderr: string }) => e);
      const written = /(?:--output|-o) (\S+)/.exec(command)?.[1];
      if (command.includes('elev-zones.geojson')) {
        expect(result.stderr).toContain('1 of 7 zones could not be answered');
        expect(existsSync(written!)).toBe(true);
        if (written!.endsWith('.csv')) expect(readFileSync(written!, 'utf8').trim().split('\n')).toHaveLength(8);
      } else {
        expect('code' in result ? result.code : 0, result.stderr).toBe(0);
        const lines = result.stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l));
        // nc-zones.csv names two cities; the job over nc.parquet's own rows answers each of its 100 counties.
        if (command.includes('--zones-href')) expect(lines.map((l) => l.index)).toEqual([...Array(100).keys()]);
        else expect(lines.map((l) => l.id)).toEqual(['raleigh', 'charlotte']);
        for (const l of lines) expect(l.statistics.BIR74.count).toBeGreaterThan(0);
      }
    },
    60_000,
  );

  it('every /docs "Try it out" example runs as written (the demo folder of this instance; the bundled STAC Items over http)', async () => {
    const doc = (await plain.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    let n = 0;
    for (const [path, item] of Object.entries<
      Record<string, { requestBody?: { content: Record<string, { example?: unknown; examples?: Record<string, { value: unknown }> }> } }>
    >(doc.paths)) {
      const media = item['post']?.requestBody?.content['application/json'];
      if (media === undefined) continue;
      const examples = media.examples ? Object.values(media.examples).map((e) => e.value) : [media.example];
      for (const example of examples) {
        n++;
        const text = JSON.stringify(example);
        expect(text, `${path}: an example names a source that cannot exist`).not.toMatch(/example\.com|my-bucket/);
        const usesStac = text.includes('http://127.0.0.1:8001');
        const res = await fetch(`${(usesStac ? loopback : plain).origin}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: text.replaceAll('http://127.0.0.1:8001', stac.origin),
        });
        const body = await res.text();
        // A job's execution answers 201 and its status document at once (offline, a public source fails the job later); its rows are checked in test/jobs.
        const ok = path.startsWith('/processes/') ? 201 : 200;
        if (PUBLIC.test(text) && res.status !== ok) {
          expectOffline(body);
          continue;
        }
        expect(res.status, `${path}: ${body}`).toBe(ok);
        expect(body, path).not.toContain('"error"');
      }
    }
    expect(n).toBeGreaterThanOrEqual(8);
  }, 60_000);
});
