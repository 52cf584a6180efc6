/**
 * The worker-thread pool (piscina) that runs raster/fold.ts. With `workers: 0` the fold runs inline on
 * the calling thread (unit tests of the use case; never in production).
 */
import { Piscina } from './piscina.ts';
import { foldTiles, type FoldTask, type FoldResult } from '../raster/fold.ts';
import { blockBuffers, ndjsonRowsHere, overlapGroups, taskBuffers, unionAreas, vectorGroup, vectorGroupZones } from './fold-worker.ts';
import type { RowsPiece } from './ndjson-rows.ts';
import type { VectorGroupTask, VectorGroupResult, VectorGroupZonesTask } from '../vector/tally.ts';
import type { UnionJob } from '../vector/data-area.ts';
import { preloadImageCodecs } from '../raster/codecs/image.ts';
import { previewGrid, type PreviewGrid, type PreviewTask } from '../raster/preview.ts';
import { zoneScan, type ZoneScanResult, type ZoneScanTask } from '../raster/fold-zones.ts';
import { inflateBackend, type InflateInfo } from '../codecs/deflate.ts';

export type { InflateInfo };

export interface FoldRunner {
  run(task: FoldTask, signal?: AbortSignal): Promise<FoldResult>;
  /** A fetched row group: decoded, selected and tallied in a worker. */
  vectorGroup(task: VectorGroupTask, signal?: AbortSignal): Promise<VectorGroupResult>;
  /** A fetched row group decoded once for several zones, each tallied on its own. */
  vectorGroupZones(task: VectorGroupZonesTask, signal?: AbortSignal): Promise<VectorGroupResult[]>;
  /** Groups of overlapping boxes (vector data_area's sweep). */
  overlapGroups(boxes: Float64Array, signal?: AbortSignal): Promise<number[][]>;
  /** Areas in m² of union jobs (vector data_area), spread over the workers. */
  unionAreas(jobs: UnionJob[], signal?: AbortSignal): Promise<number[]>;
  /** A coarse grid of a level's band 1 (sources/info's preview): its blocks decoded in a worker. */
  preview(task: PreviewTask, signal?: AbortSignal): Promise<PreviewGrid>;
  /** Blocks of a zones raster: the zone values in each and the value cells they touch (zones given as a raster). */
  zoneScan(task: ZoneScanTask, signal?: AbortSignal): Promise<ZoneScanResult>;
  /** A piece of a zone's packed rows written as NDJSON (workers/ndjson-rows.ts): a buffer of its own, the caller's alone. */
  ndjsonRows(piece: RowsPiece, signal?: AbortSignal): Promise<Uint8Array>;
  /** Tasks queued or running, for load shedding. */
  readonly pending: number;
  /** Share of the worker threads' time spent on tasks since start, 0..1 (0 inline). */
  readonly utilization: number;
  /** The inflater the threads use (libdeflate, or node:zlib and why), once they have started. */
  readonly inflate: Promise<InflateInfo>;
  close(): Promise<void>;
}

const WORKER_YOUNG_GENERATION_MB = 16;
const WORKER_OLD_GENERATION_MB = 1024;

/** A count of the tasks queued or running, and a wrapper that counts one while it runs (load shedding reads `pending`). */
function taskCounter(): { readonly pending: number; count<T>(work: () => Promise<T>): Promise<T> } {
  let pending = 0;
  return {
    get pending() {
      return pending;
    },
    async count<T>(work: () => Promise<T>): Promise<T> {
      pending++;
      try {
        return await work();
      } finally {
        pending--;
      }
    },
  };
}

/** `workers: 0`: every task runs inline on the calling thread, counted as the pool counts its tasks. */
function inlineRunner(): FoldRunner {
  const tasks = taskCounter();
  return {
    run: (task) => tasks.count(() => foldTiles(task)),
    vectorGroup: (task) => tasks.count(() => vectorGroup(task)),
    vectorGroupZones: (task) => tasks.count(() => vectorGroupZones(task)),
    async unionAreas(jobs) {
      return unionAreas(jobs);
    },
    preview: (task) => tasks.count(() => previewGrid(task)),
    zoneScan: (task) => tasks.count(() => zoneScan(task)),
    ndjsonRows: async (piece) => ndjsonRowsHere(piece),
    async overlapGroups(boxes) {
      return overlapGroups(boxes);
    },
    get pending() {
      return tasks.pending;
    },
    utilization: 0,
    inflate: Promise.resolve(inflateBackend()),
    async close() {},
  };
}

/** The piscina pool of fold-worker threads, all started at boot, with the heap limits and loader they need. */
function startPool(workers: number): Piscina {
  const self = new URL(import.meta.url);
  const isTs = self.pathname.endsWith('.ts');
  return new Piscina({
    filename: new URL(isTs ? './fold-worker.ts' : './fold-worker.js', self).href,
    // Every thread starts at boot and loads its modules and WASM at once (the first request after a start
    // used to wait ~0.6 s for them).
    minThreads: workers,
    maxThreads: workers,
    idleTimeout: 60_000,
    // Heap limits below V8's defaults for this machine: workers make much short-lived garbage (decoded row
    // groups, tiles), and V8 sizes its collections from the limits; with the defaults a 160,000-feature
    // vector request took ~600 MiB of RSS, with these ~400 MiB at the same speed (bench/vector, issue 9).
    // The request limits (pixels, features) keep a task's live data far below 1 GiB. A process-wide
    // --max-semi-space-size (npm start gives 4) wins over the young generation's limit here (bench/cube).
    resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB, maxOldGenerationSizeMb: WORKER_OLD_GENERATION_MB },
    // Source files are TypeScript: load the same tsx loader the main thread runs with. V8's CPU profiler
    // (node --cpu-prof) profiles the threads too (bench/stac's per-tile profile).
    execArgv: [...(isTs ? ['--import', 'tsx'] : []), ...process.execArgv.filter((a) => a.startsWith('--cpu-prof'))],
  });
}

/** Warms every thread; the first answer tells the threads' inflater (a thread that fails to warm is replaced by piscina). */
function warmThreads(pool: Piscina, workers: number): Promise<InflateInfo> {
  const warmed = Array.from({ length: workers }, () => pool.run(null, { name: 'warm' }) as Promise<InflateInfo>);
  const inflate = Promise.any(warmed).catch(() => inflateBackend());
  for (const w of warmed) w.catch(() => undefined);
  return inflate;
}

interface UnionBatch {
  jobs: UnionJob[];
  /** Each job's index in the caller's list. */
  at: number[];
  size: number;
}

/** Union jobs dealt by size into one batch per worker (at most), so the unions run side by side. */
function unionBatches(jobs: UnionJob[], workers: number): UnionBatch[] {
  const batches: UnionBatch[] = Array.from({ length: Math.min(workers, jobs.length) }, () => ({
    jobs: [],
    at: [],
    size: 0,
  }));
  jobs
    .map((j, k) => ({ j, k, size: j.pieces.reduce((n, p) => n + p.length, 0) }))
    .sort((a, b) => b.size - a.size)
    .forEach(({ j, k, size }) => {
      const b = batches.reduce((m, x) => (x.size < m.size ? x : m));
      b.jobs.push(j);
      b.at.push(k);
      b.size += size;
    });
  return batches;
}

/** Areas of union jobs, a batch per worker on the pool, put back in the jobs' order. */
async function poolUnionAreas(pool: Piscina, workers: number, jobs: UnionJob[], signal?: AbortSignal): Promise<number[]> {
  const batches = unionBatches(jobs, workers);
  const out = new Array<number>(jobs.length).fill(0);
  await Promise.all(
    batches.map(async (b) => {
      const areas = (await pool.run(b.jobs, { name: 'unionAreas', ...(signal ? { signal } : {}) })) as number[];
      areas.forEach((a, i) => (out[b.at[i] as number] = a));
    }),
  );
  return out;
}

/**
 * Share of the threads' time spent on tasks, 0..1. piscina 5.3's own `utilization` divides the mean run
 * time, already in milliseconds, by 1000 again (two workers busy 1 s of 1.03 s read 0.001): the same
 * formula from its public figures, in ms.
 */
function poolUtilization(pool: Piscina, workers: number): number {
  const mean = pool.histogram.runTime?.mean ?? 0;
  const capacity = pool.duration * workers;
  return capacity > 0 ? Math.min(1, (mean * pool.completed) / capacity) : 0;
}

/** The tasks run on a pool of `workers` threads, their buffers moved (not copied) to the thread. */
function poolRunner(workers: number): FoldRunner {
  // sharp's native libraries must be loaded by the main thread before any worker loads them (glibc).
  // A failure here resurfaces as a decode error of the first JPEG or WebP tile, not as a crash.
  const preload = preloadImageCodecs().catch(() => undefined);
  const pool = startPool(workers);
  const inflate = warmThreads(pool, workers);
  const tasks = taskCounter();
  /** One task on the pool (`name`: the worker's export; the default export folds tiles), counted while queued or running. */
  const send = <T>(name: string | undefined, task: unknown, transferList: ArrayBuffer[], signal?: AbortSignal): Promise<T> =>
    tasks.count(async () => {
      await preload;
      return (await pool.run(task, { ...(name ? { name } : {}), transferList, ...(signal ? { signal } : {}) })) as T;
    });
  return {
    run: (task, signal) => send<FoldResult>(undefined, task, taskBuffers(task), signal),
    vectorGroup: (task, signal) =>
      send<VectorGroupResult>(
        'vectorGroup',
        task,
        task.group.ranges.map((r) => r.bytes),
        signal,
      ),
    vectorGroupZones: (task, signal) =>
      send<VectorGroupResult[]>(
        'vectorGroupZones',
        task,
        task.group.ranges.map((r) => r.bytes),
        signal,
      ),
    preview: (task, signal) => send<PreviewGrid>('preview', task, blockBuffers(task.blocks), signal),
    zoneScan: (task, signal) => send<ZoneScanResult>('zoneScan', task, blockBuffers(task.blocks), signal),
    // The piece's numbers are its own copy (formats/ndjson.ts pieceOf): moved, not cloned.
    ndjsonRows: (piece, signal) => send<Uint8Array>('ndjsonRows', piece, [piece.values.buffer as ArrayBuffer], signal),
    overlapGroups: (boxes, signal) => send<number[][]>('overlapGroups', boxes, [boxes.buffer as ArrayBuffer], signal),
    unionAreas: (jobs, signal) => tasks.count(() => poolUnionAreas(pool, workers, jobs, signal)),
    get pending() {
      return tasks.pending;
    },
    get utilization() {
      return poolUtilization(pool, workers);
    },
    inflate,
    async close() {
      await pool.destroy();
    },
  };
}

/** The worker pool with `workers` threads, or the inline runner with `workers: 0` (tests only). */
export function createFoldRunner(workers: number): FoldRunner {
  return workers <= 0 ? inlineRunner() : poolRunner(workers);
}
