/**
 * A cube's NDJSON answer to a client that reads slowly: the workers' pieces are freed by the stream once its
 * socket has taken them (http/zones.ts), so a piece still queued behind a full socket must never be freed.
 * Over a real loopback socket, a client that stops reading for a while and then reads with pauses gets the
 * very bytes a client that reads at once gets, every line whole. Pieces here are ~110 kB (each zone carries
 * 2 kB of properties on each of its 48 rows), so each goes out on its own, as a year of hourly steps does.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildTestApp } from '../helpers/build-app.ts';
import { startRangeServer, type RangeServer } from '../helpers/range-server.ts';

const ROOT = new URL('../../fixtures/cube/', import.meta.url).pathname;
const ZONES = 150;

/** Zone i: a 5° box inside the era5 fixture's grid, with 2 kB of properties that each of its rows repeats. */
const zones = {
  type: 'FeatureCollection',
  features: Array.from({ length: ZONES }, (_, i) => {
    const x0 = -170 + (i % 30) * 11;
    const y0 = -60 + Math.floor(i / 30) * 22;
    return {
      type: 'Feature',
      id: `z${i}`,
      properties: { note: `zone ${i} `.padEnd(2000, '.') },
      geometry: {
        type: 'Polygon',
        coordinates: [
          [
            [x0, y0],
            [x0 + 5, y0],
            [x0 + 5, y0 + 5],
            [x0, y0 + 5],
            [x0, y0],
          ],
        ],
      },
    };
  }),
};

let app: FastifyInstance;
let files: RangeServer;
let base: URL;

beforeAll(async () => {
  files = await startRangeServer({ root: ROOT });
  app = await buildTestApp();
  base = new URL(await app.listen({ host: '127.0.0.1', port: 0 }));
});
afterAll(async () => {
  await app.close();
  await files.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The answer's bytes; `slow`: nothing read for 300 ms, then a pause every 16 reads, so the server's socket fills. */
async function fetchRows(slow: boolean): Promise<Buffer> {
  const body = JSON.stringify({ url: files.url('/era5.zarr'), variable: 't2m', stats: ['mean', 'count'], aoi: zones });
  const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
    const headers = { 'content-type': 'application/json', accept: 'application/x-ndjson' };
    http.request(new URL('/api/v1/zonal-stats/cube', base), { method: 'POST', headers }, resolve).on('error', reject).end(body);
  });
  // Unread, the response stays paused: its buffer fills, then the socket's, then the server's.
  if (slow) await sleep(300);
  const chunks: Buffer[] = [];
  for await (const c of res) {
    chunks.push(c as Buffer);
    if (slow && chunks.length % 16 === 0) await sleep(20);
  }
  return Buffer.concat(chunks);
}

describe('cube NDJSON to a slow client', () => {
  it('gets every byte a fast client gets, each of the 150 × 48 rows whole', async () => {
    const fast = await fetchRows(false);
    const slow = await fetchRows(true);
    const lines = fast.toString('utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(ZONES * 48);
    // Several MB: more than loopback's socket buffers hold, so the slow client's stream waited on its socket.
    expect(fast.byteLength).toBeGreaterThan(10_000_000);
    expect(slow.equals(fast)).toBe(true);
    const first = JSON.parse(lines[0] as string) as { id: string; time: string; statistics: { t2m: { mean: number; count: number } } };
    expect(first).toMatchObject({ id: 'z0', time: '2020-01-01T00:00:00Z' });
    expect(first.statistics.t2m.count).toBeGreaterThan(0);
    const last = JSON.parse(lines.at(-1) as string) as { id: string; time: string };
    expect(last).toMatchObject({ id: `z${ZONES - 1}`, time: '2020-01-02T23:00:00Z' });
  });
});
