/**
 * The request log (one JSON line per request, issue 2 §10) and the 500 path (contract §6: the request
 * id of a 500's detail is also in the log). The pino logger writes to a stream the test captures,
 * through `buildApp(config, { logger: { level, stream } })`.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp, type BuildOptions } from '../../src/app.ts';
import { FIXTURES, fixtureUrl, testConfig } from '../helpers/build-app.ts';
import { startRangeServer, type RangeServer } from '../helpers/range-server.ts';

const RASTER = '/api/v1/zonal-stats/raster';
const TINY = fixtureUrl('raster/synthetic/tiny_int16.tif');
const AOI = {
  type: 'Polygon',
  coordinates: [
    [
      [14.9994, 45.1523],
      [15.0014, 45.1523],
      [15.0014, 45.1543],
      [14.9994, 45.1543],
      [14.9994, 45.1523],
    ],
  ],
};

type LogLine = Record<string, unknown> & { msg?: string; reqId?: string; level?: number };

/** A writable that keeps every line pino writes. */
function captureStream(): { stream: Writable; lines: () => LogLine[]; raw: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer | string, _enc, cb) {
      text += chunk.toString();
      cb();
    },
  });
  return {
    stream,
    raw: () => text,
    lines: () =>
      text
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as LogLine),
  };
}

/**
 * Waits until `pred` holds (the onResponse hook logs after the reply is sent). No deadline of its own: on a
 * loaded machine the line may take a while, and one that never comes fails through the test's timeout.
 */
async function until(pred: () => boolean): Promise<void> {
  while (!pred()) await new Promise((r) => setTimeout(r, 10));
}

async function appWithLog(options: BuildOptions = {}) {
  const cap = captureStream();
  const app = await buildApp(testConfig(), { logger: { level: 'info', stream: cap.stream }, ...options });
  await app.ready();
  return { app, ...cap };
}

describe('request logging', () => {
  let app: FastifyInstance;
  let lines: () => LogLine[];
  let raw: () => string;
  let web: RangeServer;
  beforeAll(async () => {
    ({ app, lines, raw } = await appWithLog());
    web = await startRangeServer({ root: FIXTURES });
  });
  afterAll(async () => {
    await app.close();
    await web.close();
  });

  const requestLines = (reqId: string) => lines().filter((l) => l.msg === 'request' && l.reqId === reqId);

  it('a raster request (file://) logs exactly one JSON `request` line with id, route, status, duration and source I/O', async () => {
    const res = await app.inject({ method: 'POST', url: RASTER, payload: { url: TINY, aoi: AOI, stats: ['count'] } });
    expect(res.statusCode, res.body).toBe(200);
    const id = String(res.headers['x-request-id']);
    await until(() => requestLines(id).length > 0);
    const mine = requestLines(id);
    expect(mine).toHaveLength(1);
    const line = mine[0]!;
    expect(line).toMatchObject({ level: 30, reqId: id, route: RASTER, status: 200, method: 'POST' });
    expect(typeof line['durationMs']).toBe('number');
    expect(line['durationMs'] as number).toBeGreaterThanOrEqual(0);
    expect(line['sourceRequests'] as number).toBeGreaterThan(0);
    expect(line['sourceBytes'] as number).toBeGreaterThan(0);
    // The source's host, never its path: a local file is "file".
    expect(line['sourceHosts']).toEqual(['file']);
    // Every line is JSON and no line of this request is the default "incoming request" pair.
    expect(lines().filter((l) => l.reqId === id && /incoming request|request completed/.test(String(l.msg)))).toEqual([]);
  });

  it('over http the counted bytes equal what the range server sent', async () => {
    const before = web.requests.length;
    const res = await app.inject({ method: 'POST', url: RASTER, payload: { url: web.url('/raster/synthetic/tiny_int16.tif'), aoi: AOI, stats: ['count'] } });
    expect(res.statusCode, res.body).toBe(200);
    const id = String(res.headers['x-request-id']);
    await until(() => requestLines(id).length > 0);
    const line = requestLines(id)[0]!;
    const sent = web.requests.slice(before).reduce((n, r) => n + r.bytesSent, 0);
    expect(line['sourceBytes'] as number).toBeGreaterThan(0);
    // Every byte sent is counted, and nothing else (the header read also learns the size).
    expect(line['sourceBytes']).toBe(sent);
    expect(line['sourceRequests']).toBe(web.requests.length - before);
    expect(line['sourceHosts']).toEqual([new URL(web.url('/')).host]);
  });

  it('a refused request (422) logs one `request` line with its status and no source I/O', async () => {
    const res = await app.inject({ method: 'POST', url: RASTER, payload: { url: TINY, aoi: AOI, stats: ['avg'] } });
    expect(res.statusCode).toBe(422);
    const id = String(res.headers['x-request-id']);
    await until(() => requestLines(id).length > 0);
    expect(requestLines(id)).toHaveLength(1);
    expect(requestLines(id)[0]).toMatchObject({ status: 422, route: RASTER, sourceRequests: 0, sourceBytes: 0 });
  });

  it('an unknown route logs one `request` line too', async () => {
    const res = await app.inject({ method: 'GET', url: '/nowhere' });
    expect(res.statusCode).toBe(404);
    const id = String(res.headers['x-request-id']);
    await until(() => requestLines(id).length > 0);
    expect(requestLines(id)).toHaveLength(1);
    expect(requestLines(id)[0]).toMatchObject({ status: 404 });
  });

  it('n requests → n `request` lines with n distinct ids', async () => {
    const before = lines().filter((l) => l.msg === 'request').length;
    const answers = await Promise.all(Array.from({ length: 5 }, () => app.inject({ method: 'GET', url: '/health' })));
    const ids = answers.map((a) => String(a.headers['x-request-id']));
    expect(new Set(ids).size).toBe(5);
    await until(() => lines().filter((l) => l.msg === 'request').length >= before + 5);
    expect(lines().filter((l) => l.msg === 'request').length).toBe(before + 5);
    for (const id of ids) expect(requestLines(id)).toHaveLength(1);
  });

  it('the log never holds the raw body of a request', async () => {
    const marker = 'SECRET-MARKER-7f3a';
    const res = await app.inject({ method: 'POST', url: RASTER, payload: { url: TINY, aoi: AOI, [marker]: 1 } });
    // Everything this request logs is written by the time its `request` line is (the last one).
    const id = String(res.headers['x-request-id']);
    await until(() => requestLines(id).length > 0);
    expect(raw()).not.toContain(marker);
  });
});

describe('a 500 is logged with the request id of the response', () => {
  let app: FastifyInstance;
  let lines: () => LogLine[];
  beforeAll(async () => {
    ({ app, lines } = await appWithLog({
      openSource: async () => {
        throw new Error('boom /secret/path');
      },
    }));
  });
  afterAll(async () => app.close());

  it('error line (level ≥ 50) with the same reqId as the x-request-id header, the error itself, and the request line', async () => {
    const res = await app.inject({ method: 'POST', url: RASTER, payload: { url: TINY, aoi: AOI } });
    expect(res.statusCode).toBe(500);
    const id = String(res.headers['x-request-id']);
    expect((res.json() as { detail: string }).detail).toContain(id);
    await until(() => lines().some((l) => l.msg === 'request' && l.reqId === id));
    const errors = lines().filter((l) => (l.level ?? 0) >= 50);
    expect(errors).toHaveLength(1);
    const err = errors[0]!;
    expect(err.reqId).toBe(id);
    // The log (not the client) gets the real error, with its stack, for whoever debugs it.
    expect(JSON.stringify(err)).toContain('boom /secret/path');
    expect((err['err'] as { stack?: string } | undefined)?.stack).toMatch(/boom/);
    const req = lines().filter((l) => l.msg === 'request' && l.reqId === id);
    expect(req).toHaveLength(1);
    expect(req[0]).toMatchObject({ status: 500, route: RASTER });
  });
});
