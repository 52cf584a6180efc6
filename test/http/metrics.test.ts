/** GET /metrics (issue 12): Prometheus text with the service's own counts, after real requests over HTTP. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, FIXTURES } from '../helpers/build-app.ts';
import { startRangeServer, type RangeServer } from '../helpers/range-server.ts';
import { inflateBackend } from '../../src/codecs/deflate.ts';

/** The value of the sample `name{labels}` (labels in the order prom-client writes them), or undefined. */
function sample(text: string, name: string, labels = ''): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ''} `));
  return line === undefined ? undefined : Number(line.split(' ').pop());
}

describe('/metrics', () => {
  let app: FastifyInstance;
  let web: RangeServer;
  beforeAll(async () => {
    web = await startRangeServer({ root: FIXTURES });
    app = await buildTestApp({ workers: 1, tileCacheBytes: 16 * 1024 * 1024 });
  });
  afterAll(async () => {
    await app.close();
    await web.close();
  });

  it('counts requests by route and status, upstream reads by scheme, errors by reason, caches, the pool, pixels, features and zones', async () => {
    const aoi = {
      type: 'Polygon',
      coordinates: [
        [
          [5.8, 49.5],
          [6.4, 49.5],
          [6.4, 50.1],
          [5.8, 50.1],
          [5.8, 49.5],
        ],
      ],
    };
    const raster = () => app.inject({ method: 'POST', url: '/api/v1/zonal-stats/raster', payload: { url: web.url('/raster/elev.cog.tif'), aoi } });
    // Three times: the second keeps the tiles it decodes (the cache's doorkeeper), the third takes them.
    expect((await raster()).statusCode).toBe(200);
    expect((await raster()).statusCode).toBe(200);
    expect((await raster()).statusCode).toBe(200);
    const missing = await app.inject({ method: 'POST', url: '/api/v1/zonal-stats/raster', payload: { url: web.url('/raster/none.tif'), aoi } });
    expect(missing.statusCode).toBe(422);
    const vector = await app.inject({
      method: 'POST',
      url: '/api/v1/zonal-stats/vector',
      payload: {
        url: web.url('/vector/nc.parquet'),
        aoi: {
          type: 'Polygon',
          coordinates: [
            [
              [-80, 35],
              [-78, 35],
              [-78, 36.5],
              [-80, 36.5],
              [-80, 35],
            ],
          ],
        },
        columns: ['BIR74'],
      },
    });
    expect(vector.statusCode, vector.body).toBe(200);

    const res = await app.inject({ url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = res.body;
    expect(sample(text, 'zonal_http_request_duration_seconds_count', 'route="/api/v1/zonal-stats/raster",method="POST",status="200"')).toBe(3);
    expect(sample(text, 'zonal_http_request_duration_seconds_count', 'route="/api/v1/zonal-stats/raster",method="POST",status="422"')).toBe(1);
    expect(sample(text, 'zonal_upstream_requests_total', 'scheme="http"')).toBeGreaterThanOrEqual(3);
    expect(sample(text, 'zonal_upstream_bytes_total', 'scheme="http"')).toBeGreaterThan(1000);
    expect(sample(text, 'zonal_upstream_errors_total', 'scheme="http",reason="not_found"')).toBeGreaterThanOrEqual(1);
    // The later raster requests found the header parsed, and the third the tiles decoded.
    expect(sample(text, 'zonal_cache_hits_total', 'cache="cog_headers"')).toBeGreaterThanOrEqual(1);
    // The vector request's footer was parsed (a miss of the footer cache, counted by its memo).
    expect(sample(text, 'zonal_cache_misses_total', 'cache="parquet_footers"')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'zonal_cache_hits_total', 'cache="decoded_tiles"')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'zonal_cache_misses_total', 'cache="decoded_tiles"')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'zonal_cache_bytes', 'cache="decoded_tiles"')).toBeGreaterThan(0);
    expect(sample(text, 'zonal_worker_queue_tasks')).toBe(0);
    expect(sample(text, 'zonal_worker_utilization')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'zonal_pixels_total')).toBeGreaterThan(1000);
    expect(sample(text, 'zonal_features_total')).toBeGreaterThan(0);
    expect(sample(text, 'zonal_zones_total')).toBeGreaterThanOrEqual(3);
    // The first raster request decoded its tiles in a worker: tasks, planes and the phases are counted.
    expect(sample(text, 'zonal_fold_tasks_total')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'zonal_fold_planes_total')).toBeGreaterThanOrEqual(1);
    for (const phase of ['inflate', 'samples', 'coverage', 'fold', 'worker', 'fetch', 'run']) {
      expect(sample(text, 'zonal_fold_phase_seconds_total', `phase="${phase}"`), phase).toBeGreaterThan(0);
    }
    // Exactly one inflater is named, and it is the one this thread loads too (the workers load the same build).
    const backends = text.split('\n').filter((l) => l.startsWith('zonal_inflate_backend{'));
    expect(backends).toEqual([`zonal_inflate_backend{backend="${inflateBackend().backend}"} 1`]);
    expect(text).toMatch(/^zonal_process_resident_memory_bytes \d+/m);
  });
});
