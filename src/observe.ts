/**
 * What the service counts for /metrics (issue 12), as plain numbers: no dependency, so that any layer may
 * count without importing the metrics library (http/metrics.ts, its only adapter, reads these).
 */
export const tally = {
  /** Pixel windows read for zones (the AOI windows planned), and features considered, zones answered. */
  pixels: 0,
  features: 0,
  zones: 0,
  /** Upstream reads by scheme (http, https, s3, file), their bytes, and failures by scheme and reason. */
  upstreamRequests: new Map<string, number>(),
  upstreamBytes: new Map<string, number>(),
  upstreamErrors: new Map<string, number>(),
  /** Cache lookups by cache name: [hits, misses]. */
  cache: new Map<string, [number, number]>(),
  /**
   * Raster fold tasks: milliseconds per phase summed over tasks (the workers' own clocks for inflate,
   * samples (byte order and predictor), coverage, fold and their whole task; the main thread's for the
   * task's reads and its round trip to a worker), tasks run, planes decoded, bytes decompressed against
   * those of the whole planes, coverages worked out and reused (a zone over Items of one grid).
   */
  fold: { tasks: 0, planes: 0, bytes: 0, whole: 0, coverages: 0, reused: 0, phases: new Map<string, number>() },
  /**
   * Jobs this process saw: submitted here, finished here by status (successful, failed, dismissed), tasks
   * it ran by outcome (answered, failed), tries it gave up to try again.
   */
  jobs: { submitted: 0, finished: new Map<string, number>(), tasks: new Map<string, number>(), retries: 0 },
};

export function countJob(status: string): void {
  add(tally.jobs.finished, status, 1);
}

export function countTask(outcome: 'answered' | 'failed'): void {
  add(tally.jobs.tasks, outcome, 1);
}

function add(map: Map<string, number>, key: string, n: number): void {
  map.set(key, (map.get(key) ?? 0) + n);
}

export function countUpstream(scheme: string, bytes: number): void {
  add(tally.upstreamRequests, scheme, 1);
  add(tally.upstreamBytes, scheme, bytes);
}

export function countUpstreamError(scheme: string, reason: string): void {
  add(tally.upstreamErrors, `${scheme}\n${reason}`, 1);
}

export function countCache(name: string, hit: boolean): void {
  const c = tally.cache.get(name) ?? [0, 0];
  c[hit ? 0 : 1] += 1;
  tally.cache.set(name, c);
}

/** One raster fold task's phases (see tally.fold). */
export function countFold(
  times: {
    inflate: number;
    samples: number;
    bytes: number;
    whole: number;
    coverage: number;
    fold: number;
    total: number;
    planes: number;
    coverages: number;
    reused: number;
  },
  fetchMs: number,
  runMs: number,
): void {
  tally.fold.tasks += 1;
  tally.fold.planes += times.planes;
  tally.fold.bytes += times.bytes;
  tally.fold.whole += times.whole;
  tally.fold.coverages += times.coverages;
  tally.fold.reused += times.reused;
  const p = tally.fold.phases;
  add(p, 'inflate', times.inflate);
  add(p, 'samples', times.samples);
  add(p, 'coverage', times.coverage);
  add(p, 'fold', times.fold);
  add(p, 'worker', times.total);
  add(p, 'fetch', fetchMs);
  add(p, 'run', runMs);
}
