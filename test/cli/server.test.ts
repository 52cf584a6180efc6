/**
 * `zonal --server`: the zones sent in chunks to a real listening service (and to a flaky proxy and a dead
 * address in front of it). The output must be what the in-process run writes (zone indexes renumbered
 * across chunks); 502/503/504 and dropped connections are retried on the next server; a refused request
 * and exhausted retries exit 2.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildTestApp } from '../helpers/build-app.ts';
import { ask, ELEV, ELEV_URL, NC, ndjson, readJson, STACK, zonal } from './helpers.ts';

const ZONES = 'fixtures/cli/elev-zones.geojson';
const STATS = 'count,mean,max,unique';

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

/** A proxy to `target` whose first requests fail as `failures` says (503 with a problem body, or a dropped connection). */
function flakyProxy(target: () => string, failures: ('503' | 'drop' | '502')[], always?: '503'): { server: Server; requests: () => number } {
  let n = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const mode = always ?? failures[n];
      n++;
      if (mode === 'drop') {
        req.socket.destroy();
        return;
      }
      if (mode === '503' || mode === '502') {
        res.writeHead(Number(mode), { 'content-type': 'application/problem+json' });
        res.end(JSON.stringify({ status: Number(mode), code: 'overloaded', detail: 'Busy, try again.' }));
        return;
      }
      fetch(`${target()}${req.url}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: String(req.headers['accept']) },
        body: Buffer.concat(chunks),
      })
        .then(async (r) => {
          res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'text/plain' });
          res.end(await r.text());
        })
        .catch(() => req.socket.destroy());
    });
  });
  return { server, requests: () => n };
}

describe('zonal --server', () => {
  let app: FastifyInstance;
  let base: string;
  let inProcess: string;
  beforeAll(async () => {
    app = await buildTestApp();
    base = await app.listen({ host: '127.0.0.1', port: 0 });
    inProcess = (await zonal(['raster', ELEV, '--zones', ZONES, '--radius', '1500', '--stats', STATS, '-f', 'ndjson'])).stdout;
  });
  afterAll(async () => app.close());

  it('chunks of 2 zones, 2 requests in flight: the in-process output, indexes renumbered, exit 1 for the bad zone', async () => {
    const r = await zonal([
      'raster',
      ELEV,
      '--zones',
      ZONES,
      '--radius',
      '1500',
      '--stats',
      STATS,
      '-f',
      'ndjson',
      '--server',
      base,
      '--chunk',
      '2',
      '--concurrency',
      '2',
    ]);
    expect(r.code).toBe(1);
    const lines = ndjson(r.stdout);
    expect(lines).toEqual(ndjson(inProcess));
    expect(lines.map((l) => l['index'])).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(lines[4]).toMatchObject({ index: 4, id: 'bad', error: { code: 'validation_failed' } });
    // And what the service answers for the whole collection at once.
    const fc = readJson<Record<string, unknown>>(ZONES);
    expect(lines).toEqual(ndjson(await ask(app, 'raster', { url: ELEV_URL, aoi: fc, radius: 1500, stats: STATS.split(',') }, 'application/x-ndjson')));
  });

  it("CSV and GeoJSON outputs as in process; a CSV zones file's unreadable geometries keep their reason", async () => {
    for (const format of ['csv', 'geojson']) {
      const local = await zonal(['raster', ELEV, '--zones', 'fixtures/cli/elev-zones-geojson.csv', '--id-column', 'site', '-f', format]);
      const remote = await zonal([
        'raster',
        ELEV,
        '--zones',
        'fixtures/cli/elev-zones-geojson.csv',
        '--id-column',
        'site',
        '-f',
        format,
        '--server',
        base,
        '--chunk',
        '3',
      ]);
      expect(remote.code, format).toBe(1);
      expect(remote.stdout, format).toBe(local.stdout);
      expect(remote.stdout).toContain('its WKT could not be read (Expected geometry type)');
    }
  });

  it('several servers in turn: a dead one and a flaky one (503, dropped connection) are retried on the next', async () => {
    const dead = createServer();
    const deadUrl = await listen(dead);
    await new Promise((r) => dead.close(r));
    const flaky = flakyProxy(() => base, ['503', 'drop']);
    const flakyUrl = await listen(flaky.server);
    try {
      const r = await zonal([
        'raster',
        ELEV,
        '--zones',
        ZONES,
        '--radius',
        '1500',
        '--stats',
        STATS,
        '-f',
        'ndjson',
        '--server',
        deadUrl,
        '--server',
        flakyUrl,
        '--chunk',
        '1',
        '--concurrency',
        '3',
        '--retries',
        '5',
        '--retry-delay',
        '10',
      ]);
      expect(r.stderr).toMatch(/^zonal: 1 of 7 zones could not be answered/);
      expect(r.code).toBe(1);
      expect(ndjson(r.stdout)).toEqual(ndjson(inProcess));
      // 7 chunks answered through the proxy, after its 2 failures.
      expect(flaky.requests()).toBe(9);
    } finally {
      await new Promise((r) => flaky.server.close(r));
    }
  });

  it("exit 2 when the retries run out, or when the service refuses the request, in the user's words", async () => {
    const busy = flakyProxy(() => base, [], '503');
    const busyUrl = await listen(busy.server);
    try {
      const r = await zonal(['raster', ELEV, '--zones', ZONES, '--server', busyUrl, '--chunk', '4', '--retries', '1', '--retry-delay', '10', '-f', 'ndjson']);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^zonal: Zones (0–3|4–6) were not answered after 2 tries: http:\/\/127\.0\.0\.1:\d+ answered 503: Busy, try again\.\n$/);
      expect(r.stderr).not.toMatch(STACK);
    } finally {
      await new Promise((res) => busy.server.close(res));
    }
    const refused = await zonal(['raster', ELEV, '--zones', ZONES, '--bands', '3', '--server', base]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /^zonal: The server http:\/\/127\.0\.0\.1:\d+ refused the request \(422\): Band 3 does not exist: the raster has 1 band\.\n$/,
    );
    const bad = await zonal(['raster', ELEV, '--zones', ZONES, '--server', 'ftp://example.com']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('zonal: --server ftp://example.com must be an http or https URL.\n');
  });

  it("vector: nc.parquet's counties in chunks of 30 as the in-process run answers them", async () => {
    const args = ['vector', NC, '--zones', NC, '--columns', 'BIR74,SID74', '--stats', 'count,sum', '-f', 'ndjson'];
    const local = await zonal(args);
    const remote = await zonal([...args, '--server', base, '--chunk', '30', '--concurrency', '2']);
    expect(remote.code).toBe(0);
    expect(ndjson(remote.stdout)).toHaveLength(100);
    expect(ndjson(remote.stdout)).toEqual(ndjson(local.stdout));
  });
});
