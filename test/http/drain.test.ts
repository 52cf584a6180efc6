/**
 * Liveness, readiness and the drain on SIGTERM (issue 12), with the real server process (src/server.ts):
 * readiness fails at once, new connections stop after ZONAL_DRAIN_DELAY_MS, the request in flight
 * finishes whole (no 500 from a worker pool torn down under it), its keep-alive socket is closed after it,
 * and the process exits 0.
 */
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import proj4 from 'proj4';
import { FIXTURES, buildTestApp } from '../helpers/build-app.ts';

const UTM = '+proj=utm +zone=33 +datum=WGS84 +units=m +no_defs';
/** A zone over rows [r0, r1) of fixtures/raster/strips/rows_5000.tif (full width). */
const rows = (r0: number, r1: number) =>
  [
    [500003, 5100000 - 10 * r1 + 3],
    [549997, 5100000 - 10 * r1 + 3],
    [549997, 5100000 - 10 * r0 - 3],
    [500003, 5100000 - 10 * r0 - 3],
    [500003, 5100000 - 10 * r1 + 3],
  ].map((p) => proj4(UTM, 'WGS84', p));

function get(base: string, path: string): Promise<{ status: number; body: string; connection: string | undefined }> {
  return new Promise((resolve, reject) => {
    request(`${base}${path}`, { agent: false }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, connection: res.headers.connection }));
    })
      .on('error', reject)
      .end();
  });
}

describe('health probes', () => {
  it('/health/live and /health/ready answer 200; a draining instance is not ready', async () => {
    const app = await buildTestApp();
    try {
      expect((await app.inject({ url: '/health/live' })).json()).toEqual({ status: 'ok' });
      expect((await app.inject({ url: '/health/ready' })).json()).toEqual({ status: 'ready' });
      app.startDrain();
      const res = await app.inject({ url: '/health/ready' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ code: 'draining' });
      expect((await app.inject({ url: '/health/live' })).statusCode).toBe(200);
      expect((await app.inject({ url: '/health' })).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });
});

describe('drain on SIGTERM (the real process)', () => {
  it('not ready at once, no new connections after the delay, the request in flight whole, exit 0', async () => {
    const proc = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      cwd: new URL('../..', import.meta.url).pathname,
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        ZONAL_DATA_ROOTS: FIXTURES,
        ZONAL_DRAIN_DELAY_MS: '400',
        ZONAL_DRAIN_GRACE_MS: '20000',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
    const base = await new Promise<string>((resolve) => {
      createInterface({ input: proc.stdout! }).on('line', (line) => {
        const m = /"msg":"Server listening at (http:\/\/127\.0\.0\.1:\d+)"/.exec(line);
        if (m) resolve(m[1] as string);
      });
    });
    expect((await get(base, '/health/ready')).status).toBe(200);

    // A request of a few seconds: 2,400 zones over the 5000-strip file, streamed.
    const zones = Array.from({ length: 2400 }, (_, i) => ({
      type: 'Feature',
      properties: {},
      geometry: { type: 'Polygon', coordinates: [rows(2 * i, 2 * i + 2)] },
    }));
    const payload = JSON.stringify({
      url: `file://${FIXTURES}raster/strips/rows_5000.tif`,
      aoi: { type: 'FeatureCollection', features: zones },
      stats: ['count', 'mean'],
    });
    const inFlight = new Promise<{ status: number; lines: number; connection: string | undefined; at: number }>((resolve, reject) => {
      const req = request(
        `${base}/api/v1/zonal-stats/raster`,
        {
          method: 'POST',
          agent: false,
          headers: { 'content-type': 'application/json', accept: 'application/x-ndjson', 'content-length': Buffer.byteLength(payload) },
        },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, lines: text.trim().split('\n').length, connection: res.headers.connection, at: Date.now() }),
          );
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
    await new Promise((r) => setTimeout(r, 300));
    proc.kill('SIGTERM');
    const sigterm = Date.now();
    await new Promise((r) => setTimeout(r, 100));
    const ready = await get(base, '/health/ready');
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.body)).toMatchObject({ code: 'draining' });
    expect(ready.connection).toBe('close');
    await new Promise((r) => setTimeout(r, 700));
    await expect(get(base, '/health/live')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    const done = await inFlight;
    expect(done.status).toBe(200);
    expect(done.lines).toBe(2400);
    // It was still running when new connections stopped: the close waited for it.
    expect(done.at - sigterm).toBeGreaterThan(400);
    expect(await exited).toBe(0);
  }, 30_000);
});
