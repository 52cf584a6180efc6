/**
 * A plain GeoTIFF of 5000 one-row strips (fixtures/raster/strips/rows_5000.tif, tools/fixtures/make_strips.py)
 * over the loopback Range server: a window of 2000 strips is read in a few merged requests, with exactly
 * the strips' bytes (they lie end to end in the file), and answers as GDAL does
 * (fixtures/cases/strips_rows_window.expected.json, tools/oracle/raster_oracle.py). Many zones over it
 * stream: the first NDJSON line leaves before most of the file has been read, and a client that goes away
 * stops the reading.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import proj4 from 'proj4';
import { buildTestApp, FIXTURES } from '../helpers/build-app.ts';
import { blockIndex } from '../helpers/tiff-index.ts';
import { startRangeServer, type RangeServer } from '../helpers/range-server.ts';

const PATH = '/raster/strips/rows_5000.tif';
const BYTES = new Uint8Array(readFileSync(join(FIXTURES, PATH)));
const CASE = JSON.parse(readFileSync(join(FIXTURES, 'cases/strips_rows_window.request.json'), 'utf8')) as { body: Record<string, unknown> };
const EXPECTED = JSON.parse(readFileSync(join(FIXTURES, 'cases/strips_rows_window.expected.json'), 'utf8')) as { response: { band_1: Record<string, number> } };

const stripIndex = (bytes: Uint8Array) => blockIndex(bytes, 273, 279);

const UTM = '+proj=utm +zone=33 +datum=WGS84 +units=m +no_defs';
/** A zone over rows [row0, row1) and columns [col0, col1) of the file (10 m pixels from x 500000, y 5100000), inset by 3 m. */
function rowsZone(row0: number, row1: number, col0 = 0, col1 = 5000): [number, number][] {
  const x0 = 500000 + 10 * col0 + 3;
  const x1 = 500000 + 10 * col1 - 3;
  const y0 = 5100000 - 10 * row1 + 3;
  const y1 = 5100000 - 10 * row0 - 3;
  const ring = [
    [x0, y0],
    [x1, y0],
    [x1, y1],
    [x0, y1],
    [x0, y0],
  ] as [number, number][];
  return ring.map((p) => proj4(UTM, 'WGS84', p) as [number, number]);
}

describe('one-row strips over the Range server', () => {
  let app: FastifyInstance;
  let web: RangeServer;
  let base: string;
  const index = stripIndex(BYTES);
  beforeAll(async () => {
    web = await startRangeServer({ root: FIXTURES });
    app = await buildTestApp();
    base = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await app.close();
    await web.close();
  });

  it('the file is what the test expects: 5000 strips end to end', () => {
    expect(index.offsets).toHaveLength(5000);
    for (let i = 1; i < 5000; i++) expect(index.offsets[i]).toBe((index.offsets[i - 1] as number) + (index.counts[i - 1] as number));
  });

  it('a window of 2000 strips costs a few merged requests, exactly its strips’ bytes, and GDAL’s numbers', async () => {
    const before = web.requests.length;
    const res = await app.inject({ method: 'POST', url: '/api/v1/zonal-stats/raster', payload: { ...CASE.body, url: web.url(PATH) } });
    expect(res.statusCode, res.body).toBe(200);
    const got = res.json() as { band_1: Record<string, number> };
    // The pixel statistics exactly (test/cases.test.ts checks the areas too, with the oracle's tolerances).
    for (const k of ['count', 'nodata', 'min', 'max', 'sum', 'median']) expect(got.band_1[k], k).toBe(EXPECTED.response.band_1[k]);
    expect(got.band_1['mean']).toBeCloseTo(EXPECTED.response.band_1['mean'] as number, 9);
    const log = web.requests.slice(before);
    const header = log.filter((r) => /^bytes=0-/.test(r.range ?? ''));
    const strips = log.filter((r) => !/^bytes=0-/.test(r.range ?? ''));
    // Rows 1000–2999; 2000 requests before merged reads.
    expect(strips.length).toBeGreaterThan(0);
    expect(strips.length).toBeLessThanOrEqual(20);
    let wanted = 0;
    for (let row = 1000; row < 3000; row++) wanted += index.counts[row] as number;
    const headerEnd = header.reduce((m, r) => Math.max(m, Number(/-(\d+)$/.exec(r.range ?? '')?.[1] ?? 0) + 1), 0);
    // Strips inside the header read come from it; every other byte read is a wanted strip's.
    let fromHeader = 0;
    for (let row = 1000; row < 3000; row++)
      if ((index.offsets[row] as number) + (index.counts[row] as number) <= headerEnd) fromHeader += index.counts[row] as number;
    expect(strips.reduce((n, r) => n + r.bytesSent, 0)).toBe(wanted - fromHeader);
  });

  it('many zones stream: the first line leaves when a small part of the file has been read', async () => {
    const zones = Array.from({ length: 200 }, (_, i) => ({
      type: 'Feature',
      id: i,
      properties: {},
      geometry: { type: 'Polygon', coordinates: [rowsZone(25 * i, 25 * i + 20)] },
    }));
    const before = web.requests.length;
    const sent = () => web.requests.slice(before).reduce((n, r) => n + r.bytesSent, 0);
    const res = await fetch(`${base}/api/v1/zonal-stats/raster`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/x-ndjson' },
      body: JSON.stringify({ url: web.url(PATH), aoi: { type: 'FeatureCollection', features: zones }, stats: ['count'] }),
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    const atFirst = sent();
    let text = new TextDecoder().decode(first.value);
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    const lines = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { index: number; statistics: { band_1: { count: number } } });
    expect(lines.map((l) => l.index)).toEqual(zones.map((_, i) => i));
    // Each zone: about 20 rows × 5000 columns (its lon/lat edges bow a little in UTM), less the nodata band.
    for (const l of lines) expect(l.statistics.band_1.count).toBeGreaterThan(90_000);
    for (const l of lines) expect(l.statistics.band_1.count).toBeLessThanOrEqual(100_000);
    expect(atFirst).toBeLessThan(sent() / 2);
  });

  it('a client that disconnects stops the work', async () => {
    // 2400 zones of 2 rows each: 4800 strips, all the file but its last rows.
    const zones = Array.from({ length: 2400 }, (_, i) => ({
      type: 'Feature',
      properties: {},
      geometry: { type: 'Polygon', coordinates: [rowsZone(2 * i, 2 * i + 2)] },
    }));
    const body = JSON.stringify({ url: web.url(PATH), aoi: { type: 'FeatureCollection', features: zones }, stats: ['count'] });
    const before = web.requests.length;
    const sent = () => web.requests.slice(before).reduce((n, r) => n + r.bytesSent, 0);
    const url = new URL(base);
    // node:http, so that the socket really closes when the client gives up (fetch's abort may keep it).
    await new Promise<void>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: '/api/v1/zonal-stats/raster',
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/x-ndjson', 'content-length': Buffer.byteLength(body) },
        },
        (res) => res.once('data', () => (req.destroy(), resolve())),
      );
      req.on('error', (e) => (e.message === 'socket hang up' ? undefined : reject(e)));
      req.end(body);
    });
    await new Promise((r) => setTimeout(r, 300));
    const settled = sent();
    await new Promise((r) => setTimeout(r, 700));
    expect(sent()).toBe(settled);
    let all = 0;
    for (let row = 0; row < 4800; row++) all += index.counts[row] as number;
    expect(settled).toBeLessThan(all / 2);
  });
});
