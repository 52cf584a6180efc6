/**
 * `zonal --server URL --job`: the zones as one job of a real listening service (its in-process jobs engine,
 * results in a real folder, 3 zones per task so a job has several parts). What the CLI writes must be what
 * the same run writes in process (checked against the oracles elsewhere), for NDJSON and CSV, with the zones
 * inline or as a zones file the service reads by reference; exit codes 0, 1 (a zone with an error) and 2 (a
 * failed job, a usage error); Ctrl-C dismisses the job.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, testConfig } from '../helpers/build-app.ts';
import { startHangServer } from '../helpers/hang-server.ts';
import { ndjson, readJson, ROOT, STACK, zonal } from './helpers.ts';

const ELEV = 'fixtures/raster/elev.cog.tif';
const ZONES = 'fixtures/cli/elev-zones.geojson';
const STATS = 'count,mean,min,max,median,unique';
const ARGS = ['raster', ELEV, '--zones', ZONES, '--radius', '1500', '--stats', STATS];
const JOB_LINE = /^zonal: job ([0-9a-f-]{36}) submitted; poll (http:\/\/127\.0\.0\.1:\d+\/jobs\/[0-9a-f-]{36})$/m;

// Each CLI run starts a Node process (a few seconds under tsx).
describe('zonal --server --job', { timeout: 120_000 }, () => {
  let app: FastifyInstance;
  let base: string;
  let results: string;
  let tmp: string;
  let inProcess: string;

  beforeAll(async () => {
    results = mkdtempSync(join(tmpdir(), 'zonal-job-results-'));
    tmp = mkdtempSync(join(tmpdir(), 'zonal-job-cli-'));
    app = await buildTestApp({ jobs: { ...testConfig().jobs, redisUrl: null, resultsUrl: pathToFileURL(results).href, taskZones: 3 } });
    base = await app.listen({ host: '127.0.0.1', port: 0 });
    const local = await zonal([...ARGS, '-f', 'ndjson']);
    expect(local.code).toBe(1);
    inProcess = local.stdout;
  });

  afterAll(async () => {
    await app.close();
    rmSync(results, { recursive: true, force: true });
    rmSync(tmp, { recursive: true, force: true });
  });

  it('NDJSON: one job, its rows as the in-process run writes them; the job id printed at once; exit 1 for the bad zone', async () => {
    const r = await zonal([...ARGS, '-f', 'ndjson', '--server', base, '--job']);
    expect(r.stderr).not.toMatch(STACK);
    expect(r.code).toBe(1);
    const [, id, poll] = JOB_LINE.exec(r.stderr) ?? [];
    expect(poll).toBe(`${base}/jobs/${id}`);
    expect(r.stderr).toMatch(/^zonal: 1 of 7 zones could not be answered; each has its error in the output/m);
    const rows = ndjson(r.stdout);
    expect(rows).toHaveLength(7);
    expect(rows).toEqual(ndjson(inProcess));
    // One job, cut into tasks of 3 zones, finished.
    const status = (await app.inject({ method: 'GET', url: `/jobs/${id}` })).json() as Record<string, unknown>;
    expect(status).toMatchObject({ status: 'successful', zones: 7, failedZones: 1, progress: 100 });
  });

  it('CSV to a file: byte for byte the in-process file', async () => {
    const [local, job] = [join(tmp, 'local.csv'), join(tmp, 'job.csv')];
    expect((await zonal([...ARGS, '-o', local])).code).toBe(1);
    const r = await zonal([...ARGS, '-o', job, '--server', base, '--job']);
    expect(r.code).toBe(1);
    expect(readFileSync(job, 'utf8')).toBe(readFileSync(local, 'utf8'));
    expect(readFileSync(job, 'utf8').split('\n').length).toBeGreaterThan(7);
  });

  it('--zones-href: a file:// zones file the service reads itself, the same rows (GeoJSON, and CSV with WKT)', async () => {
    const href = pathToFileURL(join(ROOT, ZONES)).href;
    const r = await zonal(['raster', ELEV, '--zones-href', href, '--radius', '1500', '--stats', STATS, '-f', 'ndjson', '--server', base, '--job']);
    expect(r.stderr).not.toMatch(STACK);
    expect(r.code).toBe(1);
    expect(ndjson(r.stdout)).toEqual(ndjson(inProcess));

    const csv = 'fixtures/cli/elev-zones.csv';
    const local = await zonal(['raster', ELEV, '--zones', csv, '--radius', '1500', '--stats', STATS, '-f', 'ndjson']);
    const job = await zonal([
      'raster',
      ELEV,
      '--zones-href',
      pathToFileURL(join(ROOT, csv)).href,
      '--zones-format',
      'csv',
      '--radius',
      '1500',
      '--stats',
      STATS,
      '-f',
      'ndjson',
      '--server',
      base,
      '--job',
    ]);
    expect(job.code).toBe(local.code);
    expect(ndjson(job.stdout)).toEqual(ndjson(local.stdout));
  });

  it('exit 0 when every zone is answered', async () => {
    const fc = readJson<{ type: string; features: Array<{ id?: unknown }> }>(ZONES);
    const good = join(tmp, 'good.geojson');
    writeFileSync(good, JSON.stringify({ ...fc, features: fc.features.filter((f) => f.id !== 'bad' && f.id !== 'outside') }));
    const local = await zonal(['raster', ELEV, '--zones', good, '--radius', '1500', '--stats', STATS, '-f', 'ndjson']);
    const r = await zonal(['raster', ELEV, '--zones', good, '--radius', '1500', '--stats', STATS, '-f', 'ndjson', '--server', base, '--job']);
    expect(local.code).toBe(0);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(/could not be answered/);
    expect(ndjson(r.stdout)).toHaveLength(5);
    expect(ndjson(r.stdout)).toEqual(ndjson(local.stdout));
  });

  it("exit 2: a failed job (its message printed), a refused submission, usage errors; in the user's words", async () => {
    const failed = await zonal([...ARGS, '--bands', '3', '-f', 'ndjson', '--server', base, '--job']);
    expect(failed.code).toBe(2);
    expect(failed.stderr).toMatch(JOB_LINE);
    expect(failed.stderr).toMatch(/^zonal: Job [0-9a-f-]{36} failed: Every task of the job failed: Band 3 does not exist/m);
    expect(failed.stdout).toBe('');

    const outside = await zonal(['raster', 'file:///etc/passwd.tif', '--zones-href', '/etc/hosts', '--server', base, '--job', '-f', 'ndjson']);
    expect(outside.code).toBe(2);
    expect(outside.stderr).toMatch(/^zonal: The server http:\/\/127\.0\.0\.1:\d+ refused the job \(403\)/m);

    const cases: [string[], RegExp][] = [
      [[...ARGS, '--job'], /^zonal: --job sends the zones to a service: name it with --server URL\.$/m],
      [['raster', ELEV, '--zones-href', 'http://x/z.geojson'], /^zonal: --job sends|^zonal: --zones-href is read by the service/m],
      [
        ['raster', ELEV, '--zones-href', 'http://x/z.geojson', '--server', base],
        /^zonal: --zones-href is read by the service: it goes with --server URL --job\.$/m,
      ],
      [[...ARGS, '--zones-href', 'http://x/z.geojson', '--server', base, '--job'], /^zonal: --zones and --zones-href both name the zones/m],
      [[...ARGS, '--server', base, '--job', '--format', 'geoparquet'], /^zonal: --format geoparquet writes a file: name it with --output/m],
    ];
    const runs = await Promise.all(cases.map(([args]) => zonal(args)));
    for (const [k, [args, message]] of cases.entries()) {
      const r = runs[k] as Awaited<ReturnType<typeof zonal>>;
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(message);
      expect(r.stderr, args.join(' ')).not.toMatch(STACK);
    }
  });

  it('zonal worker without ZONAL_REDIS_URL: exit 2, in one sentence', async () => {
    const r = await zonal(['worker'], { bin: true, env: { ZONAL_REDIS_URL: '' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('zonal: zonal worker takes tasks from Redis: set ZONAL_REDIS_URL.\n');
  });

  it('Ctrl-C while the job runs: the job is dismissed (its task stops), then the CLI stops', async () => {
    const hang = await startHangServer();
    try {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', `${ROOT}src/cli/main.ts`, 'raster', hang.url('/x.tif'), '--zones', ZONES, '-f', 'ndjson', '--server', base, '--job'],
        { cwd: ROOT, env: { ...process.env, ZONAL_WORKERS: '1' }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stderr = '';
      const submitted = new Promise<string>((resolve) => {
        child.stderr.setEncoding('utf8').on('data', (d: string) => {
          stderr += d;
          const id = JOB_LINE.exec(stderr)?.[1];
          if (id) resolve(id);
        });
      });
      const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
      const id = await submitted;
      // The job's task is reading the source (which never answers).
      await hang.received(1);
      child.kill('SIGINT');
      const code = await closed;
      expect(stderr).toMatch(new RegExp(`^zonal: job ${id} dismissed$`, 'm'));
      expect(code).toBe(130);
      const status = (await app.inject({ method: 'GET', url: `/jobs/${id}` })).json() as Record<string, unknown>;
      expect(status['status']).toBe('dismissed');
      await hang.closedByClient(1);
    } finally {
      await hang.close();
    }
  });
});
