/**
 * Jobs over HTTP (OGC API – Processes): the same suite against the in-process engine and against BullMQ on
 * the real Redis at 127.0.0.1:6379 (its own database and key prefix, removed after), with results in a real
 * folder and in a real S3-compatible server. A job's rows must equal, in order, the rows the direct
 * many-zones request answers for the same zones (those are checked against the oracles elsewhere).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { buildTestApp, fixtureUrl, testConfig } from '../helpers/build-app.ts';
import { startHangServer } from '../helpers/hang-server.ts';
import type { Config } from '../../src/config.ts';
import { startS3Server, useS3Env, type S3Server } from '../helpers/s3-server.ts';

const ELEV = fixtureUrl('raster/elev.cog.tif');
const NC = fixtureUrl('demo/nc.parquet');
const REDIS = 'redis://127.0.0.1:6379/9';

/** 30 squares of 0.1° over elev.cog.tif, then one zone outside it and one with a bad geometry. */
function zones() {
  const features: unknown[] = [];
  for (let i = 0; i < 6; i++) {
    for (let j = 0; j < 5; j++) {
      const x = 5.76 + i * 0.12;
      const y = 49.46 + j * 0.14;
      const ring = [
        [x, y],
        [x + 0.1, y],
        [x + 0.1, y + 0.1],
        [x, y + 0.1],
        [x, y],
      ];
      features.push({ type: 'Feature', id: `z${i}-${j}`, properties: { i, j }, geometry: { type: 'Polygon', coordinates: [ring] } });
    }
  }
  features.push({ type: 'Feature', id: 'far', properties: null, geometry: { type: 'Point', coordinates: [100, 0] } });
  features.push({ type: 'Feature', id: 'bad', properties: null, geometry: { type: 'Point', coordinates: [500, 0] } });
  return { type: 'FeatureCollection', features };
}

function lines(body: string): Array<Record<string, unknown>> {
  return body
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

interface Engine {
  name: string;
  results: 'file' | 's3';
  redis: boolean;
}

const ENGINES: Engine[] = [
  { name: 'in process, results in a folder', results: 'file', redis: false },
  { name: 'BullMQ on Redis, results in a folder', results: 'file', redis: true },
  { name: 'BullMQ on Redis, results in S3', results: 's3', redis: true },
];

describe.each(ENGINES)('jobs: $name', (engine) => {
  let app: FastifyInstance;
  let folder: string;
  let s3: S3Server | undefined;
  let restoreEnv: (() => void) | undefined;
  const prefix = `zonal-test-${randomUUID()}:`;
  let jobsConfig: Config['jobs'];

  async function waitFor(id: string): Promise<Record<string, unknown>> {
    for (;;) {
      const r = await app.inject({ method: 'GET', url: `/jobs/${id}` });
      const doc = r.json() as Record<string, unknown>;
      if (['successful', 'failed', 'dismissed'].includes(doc['status'] as string)) return doc;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async function submit(process: string, inputs: Record<string, unknown>, extra: Record<string, unknown> = {}) {
    return app.inject({ method: 'POST', url: `/processes/${process}/execution`, payload: { inputs, ...extra } });
  }

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'zonal-jobs-'));
    let resultsUrl = pathToFileURL(folder).href;
    if (engine.results === 's3') {
      s3 = await startS3Server({ bucket: 'results' });
      restoreEnv = useS3Env(s3);
      resultsUrl = `s3://results/jobs`;
    }
    jobsConfig = { ...testConfig().jobs, redisUrl: engine.redis ? REDIS : null, redisPrefix: prefix, resultsUrl, taskZones: 7, retryMs: 10, lockMs: 5_000 };
    app = await buildTestApp({ maxZones: 10, jobs: jobsConfig });
  });

  afterAll(async () => {
    await app.close();
    restoreEnv?.();
    await s3?.close();
    rmSync(folder, { recursive: true, force: true });
    if (engine.redis) {
      const redis = new Redis(REDIS);
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
    }
  });

  it('lists the processes, one per statistics endpoint, each described from its schema', async () => {
    const list = (await app.inject({ method: 'GET', url: '/processes' })).json() as { processes: Array<{ id: string; jobControlOptions: string[] }> };
    expect(list.processes.map((p) => p.id)).toEqual([
      'zonal-stats-raster',
      'zonal-stats-raster-stac',
      'zonal-stats-raster-stac-search',
      'zonal-stats-vector',
      'zonal-stats-vector-stac',
    ]);
    expect(list.processes.every((p) => p.jobControlOptions.join() === 'async-execute')).toBe(true);
    const one = (await app.inject({ method: 'GET', url: '/processes/zonal-stats-vector' })).json() as { inputs: Record<string, { minOccurs: number }> };
    expect(Object.keys(one.inputs)).toEqual(expect.arrayContaining(['aoi', 'url', 'columns', 'stats']));
    expect(one.inputs['url']?.minOccurs).toBe(1);
    const none = await app.inject({ method: 'GET', url: '/processes/nope' });
    expect(none.statusCode).toBe(404);
    expect(none.json()).toMatchObject({ type: 'http://www.opengis.net/def/exceptions/ogcapi-processes-1/1.0/no-such-process' });
  });

  it('runs a 32-zone raster job in 5 tasks: 201 and Location, then every row as the direct request answers it, in order', async () => {
    const fc = zones();
    const created = await submit('zonal-stats-raster', { aoi: fc, url: ELEV, stats: ['count', 'mean', 'min', 'max'] });
    expect(created.statusCode).toBe(201);
    const doc = created.json() as Record<string, unknown>;
    expect(created.headers['location']).toBe(`/jobs/${doc['jobID'] as string}`);
    expect(doc).toMatchObject({ processID: 'zonal-stats-raster', type: 'process', status: 'accepted', zones: 32 });
    expect(doc['jobID']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const done = await waitFor(doc['jobID'] as string);
    expect(done).toMatchObject({ status: 'successful', progress: 100 });
    expect((done['links'] as Array<{ rel: string }>).map((l) => l.rel)).toContain('http://www.opengis.net/def/rel/ogc/1.0/results');

    const rows = await app.inject({ method: 'GET', url: `/jobs/${doc['jobID'] as string}/results`, headers: { accept: 'application/x-ndjson' } });
    expect(rows.statusCode).toBe(200);
    // The direct request takes at most 10 zones here (maxZones): ask it in slices.
    const direct: Array<Record<string, unknown>> = [];
    for (let i = 0; i < fc.features.length; i += 10) {
      const r = await app.inject({
        method: 'POST',
        url: '/api/v1/zonal-stats/raster',
        headers: { accept: 'application/x-ndjson' },
        payload: { aoi: { type: 'FeatureCollection', features: fc.features.slice(i, i + 10) }, url: ELEV, stats: ['count', 'mean', 'min', 'max'] },
      });
      // A job's zones are numbered in the whole job, the slice's from 0: the same zone, the same message.
      const renumber = (e: { detail: string } | undefined) =>
        e && { ...e, detail: e.detail.replace(/^Zone (\d+)/, (_m, n: string) => `Zone ${Number(n) + i}`) };
      direct.push(
        ...lines(r.body).map((l) => ({
          ...l,
          index: (l['index'] as number) + i,
          ...(l['error'] ? { error: renumber(l['error'] as { detail: string }) } : {}),
        })),
      );
    }
    const got = lines(rows.body);
    expect(got).toHaveLength(32);
    expect(got).toEqual(direct);
    const failed = got.filter((l) => l['error'] !== undefined && l['error'] !== null).length;
    expect(failed).toBeGreaterThanOrEqual(1);
    expect(done['failedZones']).toBe(failed);

    const csv = await app.inject({ method: 'GET', url: `/jobs/${doc['jobID'] as string}/results`, headers: { accept: 'text/csv' } });
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.body.trim().split('\n')).toHaveLength(33);
  });

  it('reads the zones of a job from a GeoParquet reference under the source policy', async () => {
    const created = await submit('zonal-stats-vector', {
      aoi: { href: NC, type: 'application/vnd.apache.parquet' },
      url: NC,
      columns: ['AREA'],
      stats: ['sum', 'count'],
    });
    expect(created.statusCode).toBe(201);
    const id = (created.json() as { jobID: string }).jobID;
    expect((created.json() as { zones: number }).zones).toBe(100);
    const done = await waitFor(id);
    expect(done['status']).toBe('successful');
    const got = lines((await app.inject({ method: 'GET', url: `/jobs/${id}/results`, headers: { accept: 'application/x-ndjson' } })).body);
    expect(got).toHaveLength(100);
    expect(got.map((l) => l['index'])).toEqual([...Array(100).keys()]);
    // Each county over its own file: its own AREA comes back as the sum of the one row it covers most.
    expect(got.every((l) => typeof (l['statistics'] as Record<string, { count: number }> | undefined)?.['AREA']?.count === 'number')).toBe(true);

    const outside = await submit('zonal-stats-vector', { aoi: { href: 'file:///etc/passwd' }, url: NC, columns: ['AREA'] });
    expect(outside.statusCode).toBe(403);
  });

  it('pages the job list newest first, and answers the standard exceptions for unknown and unfinished jobs', async () => {
    const ids: string[] = [];
    for (let k = 0; k < 3; k++) {
      const r = await submit('zonal-stats-raster', { aoi: { type: 'Point', coordinates: [6, 50] }, url: ELEV });
      ids.push((r.json() as { jobID: string }).jobID);
    }
    const first = (await app.inject({ method: 'GET', url: '/jobs?limit=2' })).json() as {
      jobs: Array<{ jobID: string }>;
      links: Array<{ rel: string; href: string }>;
    };
    expect(first.jobs.map((j) => j.jobID)).toEqual([ids[2], ids[1]]);
    const next = first.links.find((l) => l.rel === 'next') as { href: string };
    const second = (await app.inject({ method: 'GET', url: new URL(next.href).pathname + new URL(next.href).search })).json() as {
      jobs: Array<{ jobID: string }>;
    };
    expect(second.jobs[0]?.jobID).toBe(ids[0]);
    for (const id of ids) await waitFor(id);

    const unknown = await app.inject({ method: 'GET', url: `/jobs/${randomUUID()}` });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ type: 'http://www.opengis.net/def/exceptions/ogcapi-processes-1/1.0/no-such-job' });
    expect((await app.inject({ method: 'GET', url: `/jobs/${randomUUID()}/results` })).statusCode).toBe(404);
  });

  it('dismisses a job: status dismissed, its results gone (410), and says so again when asked twice', async () => {
    const created = await submit('zonal-stats-raster', { aoi: zones(), url: ELEV });
    const id = (created.json() as { jobID: string }).jobID;
    await waitFor(id);
    const gone = await app.inject({ method: 'DELETE', url: `/jobs/${id}` });
    expect(gone.statusCode).toBe(200);
    expect(gone.json()).toMatchObject({ jobID: id, status: 'dismissed' });
    expect((await app.inject({ method: 'GET', url: `/jobs/${id}/results` })).statusCode).toBe(410);
    expect((await app.inject({ method: 'DELETE', url: `/jobs/${id}` })).json()).toMatchObject({ status: 'dismissed' });
    if (engine.results === 'file') expect(readdirSync(folder)).not.toContain(id);
  });

  it('dismisses a running job: its task stops (the upstream read it waits on is given up) and nothing of it is kept', async () => {
    const hang = await startHangServer();
    // Its own instance: an upstream timeout longer than the test, so only the dismissal can end the read.
    // Its own key prefix too, so that no other instance takes the task.
    const own = await buildTestApp({ upstreamTimeoutMs: 600_000, jobs: { ...jobsConfig, redisPrefix: `${prefix}own:` } });
    try {
      const r = await own.inject({
        method: 'POST',
        url: '/processes/zonal-stats-raster/execution',
        payload: { inputs: { aoi: { type: 'Point', coordinates: [6, 50] }, url: hang.url('/x.tif') } },
      });
      const id = (r.json() as { jobID: string }).jobID;
      await hang.received(1);
      const gone = await own.inject({ method: 'DELETE', url: `/jobs/${id}` });
      expect(gone.json()).toMatchObject({ status: 'dismissed' });
      await hang.closedByClient(1);
      expect((await own.inject({ method: 'GET', url: `/jobs/${id}` })).json()).toMatchObject({ status: 'dismissed' });
      if (engine.results === 'file') expect(readdirSync(folder)).not.toContain(id);
    } finally {
      await own.close();
      await hang.close();
    }
  }, 120_000);

  it.runIf(engine.redis)('goes on when the process that took the job is gone: another replica answers it', async () => {
    const submitter = await buildTestApp({ jobs: { ...jobsConfig, worker: false } });
    const r = await submitter.inject({ method: 'POST', url: '/processes/zonal-stats-raster/execution', payload: { inputs: { aoi: zones(), url: ELEV } } });
    const id = (r.json() as { jobID: string }).jobID;
    await submitter.close();
    // The suite's own instance takes tasks: the job, queued by a process that no longer runs, completes.
    const done = await waitFor(id);
    expect(done['status']).toBe('successful');
    const got = lines((await app.inject({ method: 'GET', url: `/jobs/${id}/results`, headers: { accept: 'application/x-ndjson' } })).body);
    expect(got.map((l) => l['index'])).toEqual([...Array(32).keys()]);
  });

  it('counts jobs and tasks in /metrics, with the active jobs and the queue depth', async () => {
    const r = await submit('zonal-stats-raster', { aoi: { type: 'Point', coordinates: [6, 50] }, url: ELEV });
    await waitFor((r.json() as { jobID: string }).jobID);
    const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
    expect(value('zonal_jobs_submitted_total')).toBeGreaterThan(0);
    expect(value('zonal_jobs_finished_total\\{status="successful"\\}')).toBeGreaterThan(0);
    expect(value('zonal_job_tasks_total\\{outcome="answered"\\}')).toBeGreaterThan(0);
    expect(value('zonal_jobs_active')).toBeGreaterThanOrEqual(0);
    expect(value('zonal_job_queue_depth')).toBeGreaterThanOrEqual(0);
  });

  it('refuses what it cannot run: a bad body (422 naming the field), too many zones (413)', async () => {
    const bad = await submit('zonal-stats-raster', { aoi: { type: 'Point', coordinates: [6, 50] } });
    expect(bad.statusCode).toBe(422);
    expect((bad.json() as { detail: string }).detail).toMatch(/url/);
    // An unknown statistic is refused at submission, as the endpoint refuses it, not after every task ran.
    const stat = await submit('zonal-stats-raster', { aoi: { type: 'Point', coordinates: [6, 50] }, url: ELEV, stats: ['stddev'] });
    expect(stat.statusCode).toBe(422);
    expect(stat.json()).toMatchObject({ code: 'unknown_stat' });
    const base = testConfig();
    const small = await buildTestApp({ jobs: { ...base.jobs, redisUrl: null, maxZones: 5, resultsUrl: pathToFileURL(folder).href } });
    try {
      const r = await small.inject({ method: 'POST', url: '/processes/zonal-stats-raster/execution', payload: { inputs: { aoi: zones(), url: ELEV } } });
      expect(r.statusCode).toBe(413);
      expect(r.json()).toMatchObject({ code: 'too_many_zones' });
    } finally {
      await small.close();
    }
  });

  it('fails a job whose every task fails for good, with the reason, after trying again', async () => {
    let calls = 0;
    const server: Server = createServer((_req, res) => {
      calls += 1;
      res.statusCode = 500;
      res.end('no');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x.tif`;
    try {
      const created = await submit('zonal-stats-raster', { aoi: { type: 'Point', coordinates: [6, 50] }, url });
      const done = await waitFor((created.json() as { jobID: string }).jobID);
      expect(done['status']).toBe('failed');
      expect(done['message']).toMatch(/Every task of the job failed/);
      expect(calls).toBeGreaterThanOrEqual(2);
    } finally {
      server.close();
    }
  });

  it('calls the subscriber with the status document when the job succeeds', async () => {
    const got: unknown[] = [];
    const server: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        got.push(JSON.parse(body));
        res.setHeader('content-type', 'application/json');
        res.end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const created = await submit(
        'zonal-stats-raster',
        { aoi: { type: 'Point', coordinates: [6, 50] }, url: ELEV },
        { subscriber: { successUri: `http://127.0.0.1:${port}/done` } },
      );
      const id = (created.json() as { jobID: string }).jobID;
      await waitFor(id);
      for (let k = 0; k < 100 && got.length === 0; k++) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(got).toEqual([expect.objectContaining({ jobID: id, status: 'successful' })]);
    } finally {
      server.close();
    }
  });
});

describe('jobs: Redis unreachable', () => {
  it('answers 503 with Retry-After to submissions and status reads, and keeps serving', async () => {
    const base = testConfig();
    const app = await buildTestApp({ jobs: { ...base.jobs, redisUrl: 'redis://127.0.0.1:1/0', resultsUrl: pathToFileURL(tmpdir()).href } });
    try {
      const r = await app.inject({
        method: 'POST',
        url: '/processes/zonal-stats-raster/execution',
        payload: { inputs: { aoi: { type: 'Point', coordinates: [6, 50] }, url: ELEV } },
      });
      expect(r.statusCode).toBe(503);
      expect(r.headers['retry-after']).toBe('5');
      expect(r.json()).toMatchObject({ code: 'jobs_unavailable' });
      const s = await app.inject({ method: 'GET', url: `/jobs/${randomUUID()}` });
      expect(s.statusCode).toBe(503);
      expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });
});

describe('jobs: ZONAL_JOB_LIST=0', () => {
  it('does not list the jobs, while a job is still reached by its id', async () => {
    const base = testConfig();
    const folder = mkdtempSync(join(tmpdir(), 'zonal-jobs-'));
    const app = await buildTestApp({ jobs: { ...base.jobs, list: false, redisUrl: null, resultsUrl: pathToFileURL(folder).href } });
    try {
      const r = await app.inject({
        method: 'POST',
        url: '/processes/zonal-stats-raster/execution',
        payload: { inputs: { aoi: { type: 'Point', coordinates: [6, 50] }, url: ELEV } },
      });
      const id = (r.json() as { jobID: string }).jobID;
      const list = await app.inject({ method: 'GET', url: '/jobs' });
      expect(list.statusCode).toBe(404);
      expect((list.json() as { detail: string }).detail).toMatch(/ZONAL_JOB_LIST/);
      expect((await app.inject({ method: 'GET', url: `/jobs/${id}` })).statusCode).toBe(200);
    } finally {
      await app.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
