#!/usr/bin/env node
/**
 * Steady load for deploy/smoke.sh: CONCURRENCY clients for DURATION_S seconds, each POSTing raster
 * requests (bare points, 1 km circles, polygons over the demo elevation) to URL; then one JSON line:
 * requests sent, failed (any answer but 200, or no answer), p50/p99 latency in ms.
 */
const url = process.env.URL ?? 'http://127.0.0.1:8080';
const seconds = Number(process.env.DURATION_S ?? 20);
const concurrency = Number(process.env.CONCURRENCY ?? 8);
const cog = process.env.COG;
const bodies = [
  { aoi: { type: 'Point', coordinates: [6.13, 49.61] } },
  { aoi: { type: 'Point', coordinates: [6.0, 49.8], radius: 1000 } },
  {
    aoi: {
      type: 'Polygon',
      coordinates: [
        [
          [5.9, 49.6],
          [6.2, 49.6],
          [6.2, 49.9],
          [5.9, 49.9],
          [5.9, 49.6],
        ],
      ],
    },
    stats: ['count', 'mean', 'median'],
  },
].map((b) => JSON.stringify({ url: cog, stats: ['count', 'mean'], ...b }));
const latencies = [];
let sent = 0;
let failed = 0;
const failures = {};
const end = Date.now() + seconds * 1000;
await Promise.all(
  Array.from({ length: concurrency }, async (_, w) => {
    for (let i = w; Date.now() < end; i++) {
      const t = performance.now();
      sent++;
      try {
        const res = await fetch(`${url}/api/v1/zonal-stats/raster`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: bodies[i % bodies.length],
        });
        await res.text();
        if (res.status !== 200) {
          failed++;
          failures[res.status] = (failures[res.status] ?? 0) + 1;
        }
      } catch (e) {
        failed++;
        failures[e.cause?.code ?? e.message] = (failures[e.cause?.code ?? e.message] ?? 0) + 1;
      }
      latencies.push(performance.now() - t);
    }
  }),
);
latencies.sort((a, b) => a - b);
const q = (p) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0);
console.log(JSON.stringify({ sent, failed, failures, p50_ms: q(0.5), p99_ms: q(0.99) }));
