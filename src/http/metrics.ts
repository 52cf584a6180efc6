/**
 * GET /metrics in Prometheus' text format (issue 12), through prom-client (the only file importing it):
 * request durations by route, method and status; upstream requests, bytes and errors by scheme; hits,
 * misses and bytes of each cache; the worker pool's queue and utilisation; pixels, features and zones
 * processed. The counts themselves are kept, dependency-free, in observe.ts and the caches.
 */
import fp from 'fastify-plugin';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { FastifyInstance } from 'fastify';
import { tally } from '../observe.ts';
import type { Jobs } from '../jobs/jobs.ts';
import { decodedTiles } from '../raster/decode.ts';
import { currentReadCache } from '../source/cache.ts';
import type { FoldRunner } from '../workers/pool.ts';

type Read = () => [Record<string, string>, number][];

/** A counter whose value is read from a tally at scrape time. */
function counterFrom(registry: Registry, name: string, help: string, labels: string[], read: Read): Counter {
  return new Counter({
    name,
    help,
    labelNames: labels,
    registers: [registry],
    collect() {
      this.reset();
      for (const [l, v] of read()) this.inc(l, v);
    },
  });
}

/** Request durations, observed as each answer goes out. */
function requestDurations(app: FastifyInstance, registry: Registry): void {
  const duration = new Histogram({
    name: 'zonal_http_request_duration_seconds',
    help: 'Time from request to answer, by route, method and status.',
    labelNames: ['route', 'method', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  app.addHook('onResponse', async (request, reply) => {
    // The route's pattern, never the raw URL (bounded label values); unknown paths share one label.
    duration.observe({ route: request.routeOptions.url ?? 'unmatched', method: request.method, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
  });
}

/** Reads, bytes and failed reads from sources, by scheme. */
function upstreamMetrics(registry: Registry): void {
  counterFrom(registry, 'zonal_upstream_requests_total', 'Reads from sources, by scheme (cache hits are not reads).', ['scheme'], () =>
    [...tally.upstreamRequests].map(([k, v]) => [{ scheme: k }, v]),
  );
  counterFrom(registry, 'zonal_upstream_bytes_total', 'Bytes read from sources, by scheme.', ['scheme'], () =>
    [...tally.upstreamBytes].map(([k, v]) => [{ scheme: k }, v]),
  );
  counterFrom(registry, 'zonal_upstream_errors_total', 'Failed reads from sources, by scheme and reason.', ['scheme', 'reason'], () =>
    [...tally.upstreamErrors].map(([k, v]) => {
      const [scheme, reason] = k.split('\n');
      return [{ scheme: scheme ?? '', reason: reason ?? '' }, v];
    }),
  );
}

/** Hits, misses and bytes held of each cache. */
function cacheMetrics(registry: Registry): void {
  const caches = (): [string, number, number][] => [
    ...[...tally.cache].map(([name, [h, m]]): [string, number, number] => [name, h, m]),
    ['decoded_tiles', decodedTiles.hits, decodedTiles.misses],
  ];
  counterFrom(registry, 'zonal_cache_hits_total', 'Cache lookups that found what they asked for, by cache.', ['cache'], () =>
    caches().map(([c, h]) => [{ cache: c }, h]),
  );
  counterFrom(registry, 'zonal_cache_misses_total', 'Cache lookups that did not, by cache.', ['cache'], () => caches().map(([c, , m]) => [{ cache: c }, m]));
  new Gauge({
    name: 'zonal_cache_bytes',
    help: 'Bytes held, by cache.',
    labelNames: ['cache'],
    registers: [registry],
    collect() {
      this.set({ cache: 'source_bytes' }, currentReadCache()?.bytes ?? 0);
      this.set({ cache: 'decoded_tiles' }, decodedTiles.bytes);
    },
  });
}

/** The worker pool's queue, utilisation and inflater, read from the runner at scrape time. */
function workerMetrics(registry: Registry, runner: FoldRunner): void {
  new Gauge({
    name: 'zonal_worker_queue_tasks',
    help: 'Worker pool tasks queued or running.',
    registers: [registry],
    collect() {
      this.set(runner.pending);
    },
  });
  new Gauge({
    name: 'zonal_worker_utilization',
    help: "Share of the worker threads' time spent running tasks since start (0..1).",
    registers: [registry],
    collect() {
      this.set(runner.utilization);
    },
  });
  new Gauge({
    name: 'zonal_inflate_backend',
    help: 'The DEFLATE inflater the worker threads use: 1 for libdeflate (the native binding) or node:zlib (its fallback).',
    labelNames: ['backend'],
    registers: [registry],
    async collect() {
      const { backend } = await runner.inflate;
      this.reset();
      this.set({ backend }, 1);
    },
  });
}

/** Raster fold tasks' seconds per phase and work done, then pixels, features and zones processed. */
function workMetrics(registry: Registry): void {
  counterFrom(
    registry,
    'zonal_fold_phase_seconds_total',
    'Raster fold tasks: seconds per phase, summed over tasks (inflate, samples, coverage, fold, worker: in the worker threads; fetch, run: on the main thread).',
    ['phase'],
    () => [...tally.fold.phases].map(([k, v]) => [{ phase: k }, v / 1000]),
  );
  for (const [name, help, read] of [
    ['zonal_fold_tasks_total', 'Raster fold tasks run by the workers.', () => tally.fold.tasks],
    ['zonal_fold_planes_total', 'Block planes decoded by raster fold tasks.', () => tally.fold.planes],
    [
      'zonal_fold_decompressed_bytes_total',
      'Bytes the codecs produced for raster fold tasks (a decode that stops after the last row needed makes fewer).',
      () => tally.fold.bytes,
    ],
    [
      'zonal_fold_whole_bytes_total',
      'Bytes of the whole block planes raster fold tasks decoded (what whole decodes would have produced).',
      () => tally.fold.whole,
    ],
    ['zonal_fold_coverages_total', 'Coverages of a zone on a block worked out by raster fold tasks.', () => tally.fold.coverages],
    [
      'zonal_fold_coverages_reused_total',
      "Coverages of a zone on a block reused from a worker's cache (a zone over rasters of one grid).",
      () => tally.fold.reused,
    ],
    ['zonal_pixels_total', 'Pixels in the windows read for zones.', () => tally.pixels],
    ['zonal_features_total', 'Vector features considered for zones.', () => tally.features],
    ['zonal_zones_total', 'Zones answered (a single AOI counts one).', () => tally.zones],
  ] as const) {
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(read());
      },
    });
  }
}

/** Jobs: submitted, finished by status and tasks by outcome in this process; active jobs and queued tasks (all processes) at scrape time. */
function jobMetrics(registry: Registry, jobs: Jobs): void {
  const j = tally.jobs;
  counterFrom(registry, 'zonal_jobs_submitted_total', 'Jobs submitted to this process.', [], () => [[{}, j.submitted]]);
  counterFrom(registry, 'zonal_jobs_finished_total', 'Jobs this process saw finish, by status (successful, failed, dismissed).', ['status'], () =>
    [...j.finished].map(([status, n]) => [{ status }, n]),
  );
  counterFrom(registry, 'zonal_job_tasks_total', 'Tasks this process ran, by outcome (answered, failed for good).', ['outcome'], () =>
    [...j.tasks].map(([outcome, n]) => [{ outcome }, n]),
  );
  counterFrom(registry, 'zonal_job_task_retries_total', 'Task tries given up to try again (upstream failures).', [], () => [[{}, j.retries]]);
  const gauges = () => jobs.gauges().catch(() => ({ active: Number.NaN, depth: Number.NaN }));
  new Gauge({
    name: 'zonal_jobs_active',
    help: 'Jobs queued or running (every process; NaN while the job store is unreachable).',
    registers: [registry],
    async collect() {
      this.set((await gauges()).active);
    },
  });
  new Gauge({
    name: 'zonal_job_queue_depth',
    help: 'Tasks waiting or running (every process; NaN while the job store is unreachable).',
    registers: [registry],
    async collect() {
      this.set((await gauges()).depth);
    },
  });
}

export const metricsPlugin = fp<{ runner: FoldRunner; jobs: Jobs }>(async (app: FastifyInstance, opts) => {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'zonal_' });
  requestDurations(app, registry);
  upstreamMetrics(registry);
  cacheMetrics(registry);
  workerMetrics(registry, opts.runner);
  workMetrics(registry);
  jobMetrics(registry, opts.jobs);

  app.get('/metrics', { schema: { tags: ['meta'], summary: 'Prometheus metrics', hide: true } }, async (_request, reply) => {
    reply.type(registry.contentType);
    return registry.metrics();
  });
});
