/**
 * packRun, reset, writePacked and mergePacked (the cube's fast fold and merge) against the cell-by-cell
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

/**
 * A cell of a run of raw samples (packRun): its place (−1: masked), its raw sample (some NaN, some the nodata
 * value, some outside a valid range), its weight and its area.
 */
const sampleCell = fc.record({
  masked: fc.boolean(),
  raw: fc.oneof(fc.integer({ min: -40, max: 40 }), fc.constant(-99), fc.constant(Number.NaN), fc.double({ min: -1e4, max: 1e4, noNaN: true })),
  weight: fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), fc.constant(1), fc.constant(0)),
  area: fc.double({ min: 0, max: 1e9, noNaN: true }),
  id: fc.integer({ min: 0, max: 1000 }),
});

describe.each([
  ['weighted', true],
  ['unweighted', false],
])('packRun, %s', (_name, weighted) => {
  it("packs what reset, add and addNodata cell by cell pack, to the bit, and sums the valid cells' weighted areas", () => {
    fc.assert(
      fc.property(
        fc.array(sampleCell, { maxLength: 60 }),
        fc.record({
          scale: fc.oneof(fc.constant(1), fc.constant(0.002), fc.double({ min: -10, max: 10, noNaN: true })),
          offset: fc.oneof(fc.constant(0), fc.constant(265), fc.double({ min: -1e3, max: 1e3, noNaN: true })),
          nodata: fc.oneof(fc.constant(-99), fc.constant(null)),
          valid: fc.boolean(),
          sparse: fc.oneof(fc.constant(null), fc.constant(-99), fc.constant(7)),
          withAreas: fc.boolean(),
        }),
        fc.constantFrom(PLAIN, ['count', 'mean'] as StatName[], ['min', 'max'] as StatName[]),
        (cells, o, names) => {
          // The samples lie in a longer array, each at its place after `first`; a sparse block has none.
          const first = 5;
          const raw = new Float64Array(first + cells.length);
          cells.forEach((c, k) => (raw[first + k] = c.raw));
          const invalid = o.valid ? (r: number) => r < -30 || r > 30 : null;
          const sample = (c: (typeof cells)[number]): number => (c.masked ? Number.NaN : o.sparse === null ? c.raw : o.sparse);
          const expected = createAccumulator({ names, weighted });
          expected.add(1, 1, 1); // not fresh: packRun must not read the state
          expected.reset();
          let area = 0;
          for (const c of cells) {
            const r = sample(c);
            const value = r !== r || r === o.nodata || (invalid !== null && invalid(r)) ? Number.NaN : r * o.scale + o.offset;
            if (o.withAreas && value === value) area += c.weight * c.area;
            if (value !== value) expected.addNodata(c.weight);
            else expected.add(value, c.weight, c.id);
          }
          const acc = createAccumulator({ names, weighted });
          acc.add(3, 0.5, 2);
          const before = numbers(acc);
          const out = new Float64Array(PACKED_FIELDS + 4).fill(42);
          const got = acc.packRun(
            {
              raw: o.sparse === null ? raw : undefined,
              first,
              absent: o.sparse ?? 0,
              at: Int32Array.from(cells, (c, k) => (c.masked ? -1 : k)),
              nodata: o.nodata,
              invalid,
              scale: o.scale,
              offset: o.offset,
              weights: Float64Array.from(cells, (c) => c.weight),
              cells: Int32Array.from(cells, (c) => c.id),
              areas: o.withAreas ? Float64Array.from(cells, (c) => c.area) : null,
              n: cells.length,
            },
            out,
            2,
          );
          expect(Array.from(out.subarray(2, 2 + PACKED_FIELDS))).toEqual(numbers(expected));
          expect([out[0], out[1], out[2 + PACKED_FIELDS]]).toEqual([42, 42, 42]);
          expect(got).toBe(o.withAreas ? area : 0);
          expect(numbers(acc)).toEqual(before);
        },
      ),
    );
  });
});

it('packs() says when the numbers are the whole state', () => {
  expect(createAccumulator({ names: PLAIN, weighted: true }).packs()).toBe(true);
  expect(createAccumulator({ names: ['median'], weighted: true }).packs()).toBe(false);
  expect(createAccumulator({ names: ['mean'], weighted: true, keepValues: true }).packs()).toBe(false);
  expect(createAccumulator({ names: ['coverage'], weighted: true }).packs()).toBe(false);
});
