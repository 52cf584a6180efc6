/**
 * addRun, reset, writePacked and mergePacked (the cube's fast fold and merge) against the cell-by-cell
 * add, addNodata and merge they stand for: the same state to the bit, whatever the values and weights.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createAccumulator, PACKED_FIELDS, type StatsAccumulator } from '../../src/stats/accumulator.ts';
import type { StatName } from '../../src/stats/names.ts';

const PLAIN: StatName[] = ['count', 'sum', 'mean', 'std', 'min', 'max', 'nodata'];
const WITH_VALUES: StatName[] = ['mean', 'median', 'majority', 'min', 'max'];

/** A cell: its value (NaN: nodata), its weight (some ≤ 0: skipped) and its id. */
const cell = fc.record({
  value: fc.oneof(fc.double({ min: -1e6, max: 1e6, noNaN: true }), fc.constant(Number.NaN), fc.integer({ min: -3, max: 3 })),
  weight: fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), fc.constant(1), fc.constant(0), fc.constant(-0.5)),
  id: fc.integer({ min: 0, max: 1000 }),
});

function oneByOne(acc: StatsAccumulator, cells: readonly { value: number; weight: number; id: number }[]): StatsAccumulator {
  for (const c of cells) {
    if (c.value !== c.value) acc.addNodata(c.weight);
    else acc.add(c.value, c.weight, c.id);
  }
  return acc;
}

function byRun(acc: StatsAccumulator, cells: readonly { value: number; weight: number; id: number }[]): StatsAccumulator {
  acc.addRun(
    Float64Array.from(cells, (c) => c.value),
    Float64Array.from(cells, (c) => c.weight),
    Int32Array.from(cells, (c) => c.id),
    cells.length,
  );
  return acc;
}

/** The state's numbers as writePacked writes them (every field, -0 and NaN told apart by Object.is). */
function numbers(acc: StatsAccumulator): number[] {
  const out = new Float64Array(PACKED_FIELDS);
  acc.writePacked(out, 0);
  return Array.from(out);
}

describe.each([
  ['weighted', true],
  ['unweighted', false],
])('%s', (_name, weighted) => {
  it('addRun leaves the state add and addNodata leave, to the bit', () => {
    fc.assert(
      fc.property(fc.array(cell, { maxLength: 60 }), (cells) => {
        const a = oneByOne(createAccumulator({ names: PLAIN, weighted }), cells);
        const b = byRun(createAccumulator({ names: PLAIN, weighted }), cells);
        expect(numbers(b)).toEqual(numbers(a));
        expect(b.result()).toEqual(a.result());
      }),
    );
  });

  it('addRun keeps the values a median needs, as add does', () => {
    fc.assert(
      fc.property(fc.array(cell, { maxLength: 40 }), (cells) => {
        const a = oneByOne(createAccumulator({ names: WITH_VALUES, weighted }), cells);
        const b = byRun(createAccumulator({ names: WITH_VALUES, weighted }), cells);
        expect(b.result()).toEqual(a.result());
      }),
    );
  });

  it('a reset accumulator answers as a fresh one', () => {
    fc.assert(
      fc.property(fc.array(cell, { maxLength: 30 }), fc.array(cell, { maxLength: 30 }), (before, cells) => {
        for (const names of [PLAIN, WITH_VALUES, ['coverage'] as StatName[]]) {
          const reused = oneByOne(createAccumulator({ names, weighted }), before);
          reused.reset();
          oneByOne(reused, cells);
          expect(reused.result()).toEqual(oneByOne(createAccumulator({ names, weighted }), cells).result());
        }
      }),
    );
  });

  it('a result asked again after more cells (or after a reset) answers as a fresh accumulator: results share one state object', () => {
    fc.assert(
      fc.property(fc.array(cell, { maxLength: 30 }), fc.array(cell, { maxLength: 30 }), (before, more) => {
        for (const names of [PLAIN, WITH_VALUES]) {
          const acc = oneByOne(createAccumulator({ names, weighted }), before);
          const first = acc.result();
          expect(first).toEqual(oneByOne(createAccumulator({ names, weighted }), before).result());
          oneByOne(acc, more);
          const fresh = oneByOne(createAccumulator({ names, weighted }), [...before, ...more]);
          expect(acc.result()).toEqual(fresh.result());
          const a = new Float64Array(names.length + 1);
          const b = new Float64Array(names.length + 1);
          expect(acc.resultNumbers(a, 0)).toBe(fresh.resultNumbers(b, 0));
          expect(Array.from(a)).toEqual(Array.from(b));
          acc.reset();
          oneByOne(acc, more);
          expect(acc.result()).toEqual(oneByOne(createAccumulator({ names, weighted }), more).result());
        }
      }),
    );
  });

  it('mergePacked of writePacked merges as merge does, in any order of parts', () => {
    fc.assert(
      fc.property(fc.array(fc.array(cell, { maxLength: 20 }), { maxLength: 5 }), (parts) => {
        const accs = parts.map((p) => oneByOne(createAccumulator({ names: PLAIN, weighted }), p));
        const merged = createAccumulator({ names: PLAIN, weighted });
        for (const a of accs) merged.merge(a);
        const packed = new Float64Array(parts.length * PACKED_FIELDS + 3);
        accs.forEach((a, i) => a.writePacked(packed, 3 + i * PACKED_FIELDS));
        const fromPacked = createAccumulator({ names: PLAIN, weighted });
        accs.forEach((_, i) => fromPacked.mergePacked(packed, 3 + i * PACKED_FIELDS));
        expect(numbers(fromPacked)).toEqual(numbers(merged));
        expect(fromPacked.result()).toEqual(merged.result());
      }),
    );
  });
});

it('packs() says when the numbers are the whole state', () => {
  expect(createAccumulator({ names: PLAIN, weighted: true }).packs()).toBe(true);
  expect(createAccumulator({ names: ['median'], weighted: true }).packs()).toBe(false);
  expect(createAccumulator({ names: ['mean'], weighted: true, keepValues: true }).packs()).toBe(false);
  expect(createAccumulator({ names: ['coverage'], weighted: true }).packs()).toBe(false);
});
