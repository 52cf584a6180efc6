import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { FastifyInstance } from 'fastify';
import { buildTestApp } from '../helpers/build-app.ts';

describe('OpenAPI document', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    // The committed document names the demo data as the container sees it (as `npm run openapi` writes it).
    app = await buildTestApp({}, { demoDir: '/app/fixtures/demo/' });
  });
  afterAll(async () => app.close());

  it('the committed openapi.yaml equals what /openapi.json serves (run `npm run openapi` after a schema change)', async () => {
    const res = await app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const committed = parse(readFileSync(new URL('../../openapi.yaml', import.meta.url), 'utf8'));
    expect(committed).toEqual(res.json());
  });

  it('documents the raster endpoint with its request schema and problem responses', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const op = doc.paths['/api/v1/zonal-stats/raster'].post;
    const body = op.requestBody.content['application/json'].schema;
    // The zones: `aoi`, or `zones` (a zones raster); which one is checked with the user's words (test/zonal/raster-zones.test.ts).
    expect(body.required).toEqual(['url']);
    expect(Object.keys(body.properties)).toEqual(expect.arrayContaining(['aoi', 'zones']));
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '403', '415', '422', '502', '504']));
  });

  it('serves interactive docs at /docs', async () => {
    const res = await app.inject({ method: 'GET', url: '/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
  });
});
