/**
 * Data-driven: every fixtures/cases/NAME.request.json through the API over the loopback Range server,
 * compared with NAME.expected.json, which an independent oracle wrote (tools/oracle, GDAL + numpy +
 * pyproj), never our code. Tolerances are relative, as each expected file states.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, FIXTURES } from './helpers/build-app.ts';
import { startRangeServer, type RangeServer } from './helpers/range-server.ts';

interface CaseRequest {
  endpoint: 'raster' | 'vector';
  file: string;
  body: Record<string, unknown>;
}
interface CaseExpected {
  tolerance: Record<string, number>;
  response: Record<string, Record<string, unknown>>;
}

const dirs = ['cases', 'cases-vector', 'cases-conformance'].map((d) => new URL(`../fixtures/${d}/`, import.meta.url));
const names = dirs
  .flatMap((dir) =>
    readdirSync(dir)
      .filter((f) => f.endsWith('.request.json'))
      .map((f) => `${dir.pathname.split('/').at(-2)}/${f.replace(/\.request\.json$/, '')}`),
  )
  .sort();

function close(got: unknown, want: unknown, tol: number, path: string): void {
  if (typeof want === 'number') {
    expect(typeof got, path).toBe('number');
    const err = Math.abs((got as number) - want);
    expect(err, `${path}: got ${String(got)}, want ${want}`).toBeLessThanOrEqual(tol * Math.max(1, Math.abs(want)));
  } else if (Array.isArray(want)) {
    expect(Array.isArray(got), path).toBe(true);
    expect((got as unknown[]).length, `${path} length`).toBe(want.length);
    want.forEach((w, i) => close((got as unknown[])[i], w, tol, `${path}[${i}]`));
  } else if (want !== null && typeof want === 'object') {
    expect(got !== null && typeof got === 'object', path).toBe(true);
    expect(Object.keys(got as object).sort(), `${path} keys`).toEqual(Object.keys(want).sort());
    for (const [k, w] of Object.entries(want)) close((got as Record<string, unknown>)[k], w, tol, `${path}.${k}`);
  } else {
    expect(got, path).toEqual(want);
  }
}

describe('oracle cases (fixtures/cases, fixtures/cases-vector, fixtures/cases-conformance)', () => {
  let app: FastifyInstance;
  let server: RangeServer;
  beforeAll(async () => {
    app = await buildTestApp();
    server = await startRangeServer({ root: FIXTURES });
  });
  afterAll(async () => {
    await app.close();
    await server.close();
  });

  it('has cases', () => {
    expect(names.filter((n) => n.startsWith('cases/')).length).toBeGreaterThanOrEqual(15);
    expect(names.filter((n) => n.startsWith('cases-vector/')).length).toBeGreaterThanOrEqual(15);
    expect(names.filter((n) => n.startsWith('cases-conformance/')).length).toBeGreaterThanOrEqual(80);
  });

  it.each(names)('%s', async (name) => {
    const fixtures = new URL('../fixtures/', import.meta.url);
    const request = JSON.parse(readFileSync(new URL(`${name}.request.json`, fixtures), 'utf8')) as CaseRequest;
    const expected = JSON.parse(readFileSync(new URL(`${name}.expected.json`, fixtures), 'utf8')) as CaseExpected;
    const res = await app.inject({
      method: 'POST',
      url: `/api/v1/zonal-stats/${request.endpoint}`,
      payload: { ...request.body, url: server.url(`/${request.file}`) },
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as Record<string, Record<string, unknown>>;
    expect(Object.keys(body)).toEqual(Object.keys(expected.response));
    for (const [band, stats] of Object.entries(expected.response)) {
      expect(Object.keys(body[band] ?? {}).sort(), `${band} keys`).toEqual(Object.keys(stats).sort());
      for (const [stat, want] of Object.entries(stats)) {
        const tol = expected.tolerance[stat] ?? expected.tolerance['default'] ?? 1e-9;
        close(body[band]?.[stat], want, tol, `${band}.${stat}`);
      }
    }
  });
});
