/**
 * The worker pool's utilisation gauge (/metrics zonal_worker_utilization): the share of the threads' time
 * spent on tasks. piscina 5.3's own figure is 1000× too low (a unit divided twice); the pool's must be the
 * share itself: one thread kept busy back to back for a second must read a good part of 1, never above it.
 */
import { describe, expect, it } from 'vitest';
import { createFoldRunner } from '../../src/workers/pool.ts';

describe('worker pool', () => {
  it("utilisation is a share of the threads' time (busy back to back: far above 0.001, at most 1)", async () => {
    const runner = createFoldRunner(1);
    try {
      await runner.inflate;
      // Boxes that all overlap: the overlap sweep (vector data_area) is a few milliseconds of work a task.
      const boxes = new Float64Array(4 * 20_000);
      for (let i = 0; i < 20_000; i++) boxes.set([i * 1e-3, 0, i * 1e-3 + 5, 1], 4 * i);
      const until = performance.now() + 1000;
      let tasks = 0;
      while (performance.now() < until) {
        await runner.overlapGroups(boxes.slice());
        tasks++;
      }
      expect(tasks).toBeGreaterThan(0);
      // The thread was busy most of the pool's life (its start-up aside): the share, not a thousandth of it.
      expect(runner.utilization).toBeGreaterThan(0.05);
      expect(runner.utilization).toBeLessThanOrEqual(1);
    } finally {
      await runner.close();
    }
  });
});
