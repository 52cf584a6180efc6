/**
 * A `zonal worker` killed mid-task (SIGKILL: no chance to let go of its task) on the real Redis at
 * 127.0.0.1:6379 (database 10, a key prefix of its own, removed after): an API process that takes no task
 * itself, two `zonal worker` child processes (bin/zonal.mjs, the command a user runs) with a short task lock.
 * Once both workers hold a task, one is killed; its task must be taken again by the other once the lock
 * lapses (BullMQ's stalled check), and the job must end successful with every row exactly once, equal to
 * what the service's own many-zones request answers for the same zones. No time is asserted: every wait polls.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { buildTestApp, fixtureUrl, FIXTURES, testConfig } from '../helpers/build-app.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const REDIS = 'redis://127.0.0.1:6379/10';
const ELEV = fixtureUrl('raster/elev.cog.tif');
const TASK_ZONES = 200;
const STATS = ['count', 'mean', 'min', 'max', 'median', 'std'];

/** 60 × 50 squares of 0.012° over elev.cog.tif, ids and properties kept. */
function zones() {
  const features: unknown[] = [];
  for (let i = 0; i < 60; i++) {
    for (let j = 0; j < 50; j++) {
      const x = 5.8 + i * 0.0125;
      const y = 49.5 + j * 0.0125;
      const ring = [
        [x, y],
        [x + 0.012, y],
        [x + 0.012, y + 0.012],
        [x, y + 0.012],
        [x, y],
      ];
      features.push({ type: 'Feature', id: `z${i}-${j}`, properties: { i, j }, geometry: { type: 'Polygon', coordinates: [ring] } });
    }
  }
  return features;
}

function lines(body: string): Array<Record<string, unknown>> {
  return body
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Worker {
  child: ChildProcess;
  stderr: () => string;
  started: Promise<void>;
  exited: Promise<number | null>;
}

describe('zonal worker killed mid-task', { timeout: 180_000 }, () => {
  const prefix = `zonal-kill-${randomUUID()}:`;
  let folder: string;
  let app: FastifyInstance;
  const workers: Worker[] = [];

  function startWorker(): Worker {
    const env: Record<string, string | undefined> = {
      ...process.env,
      ZONAL_REDIS_URL: REDIS,
      ZONAL_REDIS_PREFIX: prefix,
      ZONAL_RESULTS_URL: pathToFileURL(folder).href,
      ZONAL_JOB_LOCK_MS: '2000',
      ZONAL_JOB_TASK_ZONES: String(TASK_ZONES),
      ZONAL_DATA_ROOTS: FIXTURES,
      ZONAL_WORKERS: '1',
    };
    delete env['ZONAL_CLI_CWD'];
    const child = spawn(process.execPath, [`${ROOT}bin/zonal.mjs`, 'worker'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    const started = new Promise<void>((resolve, reject) => {
      child.stderr?.setEncoding('utf8').on('data', (d: string) => {
        stderr += d;
        if (/zonal: worker \d+: taking tasks from redis:\/\/127\.0\.0\.1:6379\/10 /.test(stderr)) resolve();
      });
      child.on('close', (code) => reject(new Error(`the worker exited (${code}) before it started: ${stderr}`)));
    });
    started.catch(() => undefined);
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const w = { child, stderr: () => stderr, started, exited };
    workers.push(w);
    return w;
  }

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'zonal-kill-'));
    app = await buildTestApp({
      jobs: {
        ...testConfig().jobs,
        redisUrl: REDIS,
        redisPrefix: prefix,
        resultsUrl: pathToFileURL(folder).href,
        worker: false,
        lockMs: 2_000,
        taskZones: TASK_ZONES,
      },
    });
  });

  afterAll(async () => {
    for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
    await Promise.all(workers.map((w) => w.exited));
    await app.close();
    rmSync(folder, { recursive: true, force: true });
    const redis = new Redis(REDIS);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('the killed worker’s task is taken again by the other: the job ends successful, every row once, as the direct request answers', async () => {
    const features = zones();
    const [a, b] = [startWorker(), startWorker()];
    await Promise.all([a.started, b.started]);

    const submitted = await app.inject({
      method: 'POST',
      url: '/processes/zonal-stats-raster/execution',
      payload: { inputs: { url: ELEV, stats: STATS, aoi: { type: 'FeatureCollection', features } } },
    });
    expect(submitted.statusCode, submitted.body).toBe(201);
    const id = (submitted.json() as { jobID: string }).jobID;

    // Both workers hold a task (each takes one at a time): the one killed is surely mid-task.
    const redis = new Redis(REDIS);
    const activeKey = `${prefix}bull:zonal-tasks:active`;
    let held: string[] = [];
    while (held.length < 2) {
      held = await redis.lrange(activeKey, 0, -1);
      if (held.length < 2) await sleep(20);
    }
    a.child.kill('SIGKILL');
    await a.exited;

    let status: Record<string, unknown>;
    for (;;) {
      status = (await app.inject({ method: 'GET', url: `/jobs/${id}` })).json() as Record<string, unknown>;
      if (['successful', 'failed', 'dismissed'].includes(status['status'] as string)) break;
      await sleep(200);
    }
    expect(status, String(status['message'])).toMatchObject({ status: 'successful', zones: features.length, failedZones: 0, progress: 100 });

    // The lock of the killed worker's task lapsed and BullMQ's stalled check put it back for the other worker.
    const events = await redis.xrange(`${prefix}bull:zonal-tasks:events`, '-', '+');
    const stalled = events
      .map(([, fields]) => fields)
      .filter((f) => f[1] === 'stalled')
      .map((f) => f[3]);
    expect(stalled.some((jobId) => held.includes(jobId as string))).toBe(true);
    await redis.quit();

    const results = await app.inject({ method: 'GET', url: `/jobs/${id}/results`, headers: { accept: 'application/x-ndjson' } });
    expect(results.statusCode).toBe(200);
    const rows = lines(results.body);
    expect(rows).toHaveLength(features.length);
    expect(rows.map((r) => r['index'])).toEqual(features.map((_, k) => k));

    // The same zones asked directly, in slices under the request limit, indexes put back in the whole numbering.
    const direct: Array<Record<string, unknown>> = [];
    for (let start = 0; start < features.length; start += 1_000) {
      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/zonal-stats/raster',
        headers: { accept: 'application/x-ndjson' },
        payload: { url: ELEV, stats: STATS, aoi: { type: 'FeatureCollection', features: features.slice(start, start + 1_000) } },
      });
      expect(res.statusCode).toBe(200);
      direct.push(...lines(res.body).map((r) => ({ ...r, index: (r['index'] as number) + start })));
    }
    expect(rows).toEqual(direct);

    // The other worker stops on SIGTERM once its task (if any) is done, exit 0.
    b.child.kill('SIGTERM');
    expect(await b.exited).toBe(0);
    expect(b.stderr()).toMatch(/worker \d+: stopped/);
  });
});
