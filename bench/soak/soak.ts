/**
 * Soak (issue 12): SOAK_MINUTES (10) of mixed load on the compiled service — raster polygons, circles and
 * bare points (two COGs), vector requests (GeoParquet), many-zone FeatureCollections (NDJSON) — from
 * CONCURRENCY (6) clients, the service's RSS sampled every 5 s from /proc. After WARMUP_S (120) the RSS
 * must stay flat: its highest value in the last minute at most 10 % above its value at the end of the
 * warm-up. Writes bench/out/soak-results.md. Run: npx tsx bench/soak/soak.ts (after npm run build).
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
const MINUTES = Number(process.env['SOAK_MINUTES'] ?? 10);
const WARMUP_S = Number(process.env['WARMUP_S'] ?? 120);
const CONCURRENCY = Number(process.env['CONCURRENCY'] ?? 6);
const FIX = join(ROOT, 'fixtures');

const rssMiB = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

// A free port, then the service on it (its log stays at warn: no line per request).
const port = await new Promise<number>((resolve) => {
  const srv = createServer().listen(0, '127.0.0.1', () => {
    const p = (srv.address() as AddressInfo).port;
    srv.close(() => resolve(p));
  });
});
const proc = spawn(process.execPath, ['dist/server.js'], {
  cwd: ROOT,
  env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', ZONAL_DATA_ROOTS: FIX, LOG_LEVEL: 'warn', ZONAL_WORKERS: '2' },
  stdio: ['ignore', 'inherit', 'inherit'],
});
const base = `http://127.0.0.1:${port}`;
for (let i = 0; ; i++) {
  try {
    if ((await fetch(`${base}/health/ready`)).ok) break;
  } catch {
    // not listening yet
  }
  if (i > 200) throw new Error('the service did not start');
  await new Promise((r) => setTimeout(r, 100));
}
const l7 = `file://${FIX}/raster/L7_ETMs.cog.tif`;
const elev = `file://${FIX}/raster/elev.cog.tif`;
const nc = `file://${FIX}/vector/nc.parquet`;
const rnd = (a: number, b: number) => a + Math.random() * (b - a);
const jobs: (() => { path: string; body: unknown; accept?: string })[] = [
  () => ({
    path: 'raster',
    body: { url: elev, aoi: { type: 'Point', coordinates: [rnd(5.8, 6.4), rnd(49.5, 50.1)], radius: rnd(200, 5000) }, stats: ['count', 'mean', 'median'] },
  }),
  () => ({ path: 'raster', body: { url: elev, aoi: { type: 'Point', coordinates: [rnd(5.8, 6.4), rnd(49.5, 50.1)] } } }),
  () => ({
    path: 'raster',
    body: {
      url: l7,
      aoi: { type: 'Point', coordinates: [rnd(-34.9, -34.84), rnd(-8.03, -7.96)], radius: 400 },
      expression: '(b4 - b3) / (b4 + b3)',
      histogram: { bins: 8 },
    },
  }),
  () => {
    const x = rnd(5.8, 6.3);
    const y = rnd(49.5, 50.0);
    return {
      path: 'raster',
      body: {
        url: elev,
        aoi: {
          type: 'Polygon',
          coordinates: [
            [
              [x, y],
              [x + 0.1, y],
              [x + 0.1, y + 0.1],
              [x, y + 0.1],
              [x, y],
            ],
          ],
        },
        pixels: 'fractional',
        stats: ['count', 'mean', 'std'],
      },
    };
  },
  () => ({
    path: 'vector',
    body: {
      url: nc,
      aoi: { type: 'Point', coordinates: [rnd(-82, -77), rnd(34.5, 36)], radius: 20000 },
      columns: ['BIR74', 'SID74'],
      stats: ['count', 'sum', 'mean'],
    },
  }),
  () => ({
    path: 'raster',
    accept: 'application/x-ndjson',
    body: {
      url: elev,
      aoi: {
        type: 'FeatureCollection',
        features: Array.from({ length: 50 }, () => ({
          type: 'Feature',
          properties: {},
          geometry: { type: 'Point', coordinates: [rnd(5.8, 6.4), rnd(49.5, 50.1)], radius: 1500 },
        })),
      },
      stats: ['count', 'mean'],
    },
  }),
];
const samples: { t: number; rss: number }[] = [];
const start = Date.now();
const timer = setInterval(() => samples.push({ t: (Date.now() - start) / 1000, rss: rssMiB(proc.pid!) }), 5000);
let sent = 0;
let failed = 0;
const end = start + MINUTES * 60_000;
await Promise.all(
  Array.from({ length: CONCURRENCY }, async (_, w) => {
    for (let i = w; Date.now() < end; i++) {
      const j = (jobs[i % jobs.length] as (typeof jobs)[number])();
      sent++;
      try {
        const res = await fetch(`${base}/api/v1/zonal-stats/${j.path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: j.accept ?? 'application/json' },
          body: JSON.stringify(j.body),
        });
        await res.text();
        if (res.status !== 200) failed++;
      } catch {
        failed++;
      }
    }
  }),
);
clearInterval(timer);
proc.kill('SIGTERM');
const atWarm = samples.filter((s) => s.t <= WARMUP_S).at(-1)?.rss ?? 0;
const lastMinute = samples.filter((s) => s.t >= MINUTES * 60 - 60).map((s) => s.rss);
const peakLate = Math.max(...lastMinute);
const growth = (peakLate - atWarm) / atWarm;
const lines = [
  `Soak ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC: ${MINUTES} min, ${CONCURRENCY} clients, ${sent} requests, ${failed} failed.`,
  '',
  `RSS (MiB): at ${WARMUP_S} s (end of warm-up) ${atWarm.toFixed(1)}; highest in the last minute ${peakLate.toFixed(1)}; growth ${(100 * growth).toFixed(1)} % (target ≤ 10 %): ${growth <= 0.1 && failed === 0 ? 'PASS' : '**FAIL**'}.`,
  '',
  'Samples (s: MiB): ' + samples.map((s) => `${Math.round(s.t)}: ${s.rss.toFixed(0)}`).join(', '),
];
mkdirSync(join(ROOT, 'bench', 'out'), { recursive: true });
writeFileSync(join(ROOT, 'bench', 'out', 'soak-results.md'), `${lines.join('\n')}\n`);
console.log(lines.join('\n'));
