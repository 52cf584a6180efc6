/**
 * Packed partials (raster/fold-packed.ts): a zone's plain band partials travel back from a worker as one
 * Float64Array, and must merge to exactly the bits their own snapshots would give; anything a packed band
 * cannot hold (kept values, channels) travels as it is.
 */
import { describe, expect, it } from 'vitest';
import { createAccumulator, mergeSnapshot } from '../../src/stats/accumulator.ts';
import { mergePackedBand, packBands } from '../../src/raster/fold-packed.ts';
import type { BandPartial } from '../../src/raster/fold-types.ts';
import type { StatName } from '../../src/stats/names.ts';

const names = ['count', 'sum', 'mean', 'min', 'max', 'std'] as StatName[];

/** Band partials of a zone on one block: awkward weights and values (long fractions, one band empty). */
function partials(seed: number, keep = false): BandPartial[] {
  let x = seed;
  const rand = (): number => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
  return [0, 1, 2].map((b) => {
    const acc = createAccumulator({ names, weighted: true, keepValues: keep });
    if (b !== 1) for (let i = 0; i < 57; i++) acc.add(280 + 10 * rand() + 1e-9 * i, rand() < 0.3 ? 1 : rand(), -1);
    acc.addNodata(0.25 * b);
    return { acc: acc.snapshot(), dataAreaM2: 1e9 * rand() };
  });
}

describe('packed partials', () => {
  it('merge to the same bits as the snapshots, with the same data areas', () => {
    const blocks = [partials(7), partials(11), partials(13)];
    const direct = [0, 1, 2].map(() => createAccumulator({ names, weighted: true }));
    const packed = [0, 1, 2].map(() => createAccumulator({ names, weighted: true }));
    const areas = [0, 0, 0];
    for (const bands of blocks) {
      bands.forEach((p, b) => mergeSnapshot(direct[b]!, p.acc));
      const p = packBands(bands);
      expect('packed' in p).toBe(true);
      if ('packed' in p) [0, 1, 2].forEach((b) => (areas[b] = areas[b]! + mergePackedBand(packed[b]!, p, b)));
    }
    [0, 1, 2].forEach((b) => {
      expect(packed[b]!.result()).toEqual(direct[b]!.result());
      expect(Object.is(packed[b]!.result()['sum'], direct[b]!.result()['sum'])).toBe(true);
      expect(areas[b]).toBe(blocks.reduce((s, bands) => s + bands[b]!.dataAreaM2, 0));
    });
    expect(direct[0]!.result()['count']).toBeGreaterThan(0);
    expect(direct[1]!.result()['count']).toBe(0);
  });

  it('leaves partials that keep values (a median) or carry classes as they are', () => {
    const kept = partials(5, true);
    expect(packBands(kept)).toBe(kept);
    const classes = partials(3).map((p) => ({ ...p, classAreas: { values: [1], areas: [2] } }));
    expect(packBands(classes)).toBe(classes);
  });
});
