/**
 * The worker-thread pool (piscina) that runs zonal/fold.ts. With `workers: 0` the fold runs inline on
 * the calling thread (unit tests of the use case; never in production).
 */
import { Piscina } from 'piscina';
import { foldTiles, type FoldTask, type FoldResult } from '../zonal/fold.ts';
import { unionArea } from './fold-worker.ts';
import { preloadImageCodecs } from '../raster/codecs/image.ts';
import type { MultiPolygonCoords } from '../geometry/types.ts';

export interface FoldRunner {
  run(task: FoldTask, signal?: AbortSignal): Promise<FoldResult>;
  /** Area in m² of the union of polygons (vector data_area), null when the union fails. */
  unionArea(pieces: MultiPolygonCoords[], signal?: AbortSignal): Promise<number | null>;
  /** Tasks queued or running, for load shedding. */
  readonly pending: number;
  close(): Promise<void>;
}

export function createFoldRunner(workers: number): FoldRunner {
  if (workers <= 0) {
    let pending = 0;
    return {
      async run(task) {
        pending++;
        try {
          return await foldTiles(task);
        } finally {
          pending--;
        }
      },
      async unionArea(pieces) {
        return unionArea(pieces);
      },
      get pending() {
        return pending;
      },
      async close() {},
    };
  }
  // sharp's native libraries must be loaded by the main thread before any worker loads them (glibc).
  // A failure here resurfaces as a decode error of the first JPEG or WebP tile, not as a crash.
  const preload = preloadImageCodecs().catch(() => undefined);
  const self = new URL(import.meta.url);
  const isTs = self.pathname.endsWith('.ts');
  const pool = new Piscina({
    filename: new URL(isTs ? './fold-worker.ts' : './fold-worker.js', self).href,
    minThreads: 1,
    maxThreads: workers,
    idleTimeout: 60_000,
    // Source files are TypeScript: load the same tsx loader the main thread runs with.
    execArgv: isTs ? ['--import', 'tsx'] : [],
  });
  let pending = 0;
  return {
    async run(task, signal) {
      pending++;
      try {
        await preload;
        return (await pool.run(task, signal ? { signal } : {})) as FoldResult;
      } finally {
        pending--;
      }
    },
    async unionArea(pieces, signal) {
      pending++;
      try {
        return (await pool.run(pieces, { name: 'unionArea', ...(signal ? { signal } : {}) })) as number | null;
      } finally {
        pending--;
      }
    },
    get pending() {
      return pending;
    },
    async close() {
      await pool.destroy();
    },
  };
}
