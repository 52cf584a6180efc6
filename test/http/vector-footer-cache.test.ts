/** The parsed GeoParquet footer is reused while the file is unchanged: a second query reads no footer. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, FIXTURES } from '../helpers/build-app.ts';
import { startRangeServer, type RangeServer } from '../helpers/range-server.ts';

describe('GeoParquet footer cache', () => {
  let app: FastifyInstance;
  let web: RangeServer;
  beforeAll(async () => {
    app = await buildTestApp();
    web = await startRangeServer({ root: FIXTURES });
  });
  afterAll(async () => {
    await app.close();
    await web.close();
  });

  it('the second query of an unchanged file fetches no byte of its footer, and answers the same', async () => {
    const bytes = readFileSync(new URL('../../fixtures/vector/many_groups.parquet', import.meta.url));
    const footerLength = bytes.readUInt32LE(bytes.length - 8);
    const footerStart = bytes.length - 8 - footerLength;
    const body = {
      url: web.url('/vector/many_groups.parquet'),
      aoi: {
        type: 'Polygon',
        coordinates: [
          [
            [0.01, 0.01],
            [0.05, 0.01],
            [0.05, 0.05],
            [0.01, 0.05],
            [0.01, 0.01],
          ],
        ],
      },
      columns: ['value'],
      stats: ['count', 'sum'],
    };
    const ask = async () => {
      const before = web.requests.length;
      const res = await app.inject({ method: 'POST', url: '/api/v1/zonal-stats/vector', payload: body });
      expect(res.statusCode, res.body).toBe(200);
      const ranges = web.requests
        .slice(before)
        .map((r) => /bytes=(\d+)-(\d+)/.exec(r.range ?? ''))
        .filter((m) => m !== null)
        .map((m) => [Number(m![1]), Number(m![2])]);
      return { json: res.json(), ranges };
    };
    const first = await ask();
    const second = await ask();
    expect(first.ranges.some(([, end]) => (end as number) >= footerStart)).toBe(true);
    expect(second.ranges.every(([start, end]) => (end as number) < footerStart || (start as number) === 0)).toBe(true);
    expect(second.json).toEqual(first.json);
  });
});
