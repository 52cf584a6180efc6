/**
 * The zones × units engine (zonal/engine.ts) with a plug-in written here: zones come out in input order with
 * the results of their units in order, each unit worked once; and a burst of zones that one work item
 * completes is answered one zone an event-loop turn, so that other callbacks (I/O, another request) get in
 * between.
 */
import { describe, expect, it } from 'vitest';
import { answerZones, type Planned, type Work } from '../../src/zonal/engine.ts';

async function all<T>(gen: AsyncGenerator<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of gen) out.push(x);
  return out;
}

describe('the zones × units engine', () => {
  it('each unit worked once; zones in input order, their results in unit order; a problem as it was planned', async () => {
    const planned: Planned<number>[] = [{ units: [3, 1] }, { error: 'bad' }, { units: [1, 2] }, { units: [] }];
    const worked: number[] = [];
    const work: Work<number, string, string> = {
      id: (k) => k,
      compare: (a, b) => a - b,
      run: async ([unit]) => {
        const { key, zones } = unit as { key: number; zones: number[] };
        worked.push(key);
        await new Promise((resolve) => setTimeout(resolve, 5 * (4 - key)));
        return zones.map((zone) => ({ zone, key, result: `u${key}` }));
      },
      answer: (zone, results) => `z${zone}:${results.join(',')}`,
    };
    expect(await all(answerZones(planned, work))).toEqual(['z0:u1,u3', { error: 'bad' }, 'z2:u1,u2', 'z3:']);
    expect(worked.sort()).toEqual([1, 2, 3]);
  });

  it('the zones one work item completes are answered one an event-loop turn', async () => {
    const zones = 50;
    const planned: Planned<number>[] = Array.from({ length: zones }, () => ({ units: [0] }));
    let answered = 0;
    let seenAt = -1;
    const work: Work<number, number, number> = {
      id: (k) => k,
      compare: (a, b) => a - b,
      run: async ([unit]) => (unit as { zones: number[] }).zones.map((zone) => ({ zone, key: 0, result: zone })),
      answer: (zone) => {
        // An immediate asked for while the first zone is answered runs before the last one is.
        if (zone === 0) setImmediate(() => (seenAt = answered));
        answered++;
        return zone;
      },
    };
    const out = await all(answerZones(planned, work));
    expect(out).toEqual(Array.from({ length: zones }, (_, z) => z));
    expect(seenAt).toBeGreaterThan(0);
    expect(seenAt).toBeLessThan(zones);
  });
});
