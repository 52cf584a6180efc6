/**
 * The native fold (native/fold/fold.c) against packRun in JavaScript, the fallback it must equal: every packed
 * field and the data area to the bit, on random runs of bands of every sample type it reads; and foldPlain
 * with and without it (runs of bands split where their array, strides, offsets or decoding differ).
 */
import { existsSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createAccumulator, PACKED_FIELDS, type ScaledRun } from '../../src/stats/accumulator.ts';
import type { StatName } from '../../src/stats/names.ts';
import { foldKernel, foldBackend } from '../../src/raster/fold-native.ts';
import { BAND_FIELDS, foldPlain, useFoldKernel, type PackKernel } from '../../src/raster/fold-plain.ts';
import type { FoldBand, FoldTask } from '../../src/raster/fold-types.ts';
import type { DecodedBlock } from '../../src/raster/decode.ts';
import type { Coverage } from '../../src/coverage/coverage.ts';
import type { CellList } from '../../src/raster/fold-cells.ts';

const kernel = foldKernel();
afterAll(() => useFoldKernel(kernel));

const TYPES = [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, Float32Array, Float64Array] as const;
/** Statistics whose accumulators take each combination of packRun's work: Σv·w, the spread, neither. */
const NAME_SETS: StatName[][] = [['count', 'sum', 'mean', 'std', 'min', 'max', 'nodata'], ['mean', 'count', 'min', 'max'], ['min', 'max'], ['count']];

/** Every field of a packed band, -0 and NaN told apart. */
const bits = (a: Float64Array): string[] => Array.from(a, (v) => (Object.is(v, -0) ? '-0' : String(v)));

describe('the native fold', () => {
  it('is built wherever a C compiler and Node headers are (CI must run it)', () => {
    const expected = process.env['ZONAL_EXPECT_FOLD'] ?? (existsSync('/usr/bin/cc') ? 'native' : undefined);
    if (expected === undefined) return;
    expect(foldBackend(), 'run `npm run build:native` (needs a C compiler)').toEqual({ backend: expected, reason: '' });
  });

  const cases = fc.record({
    type: fc.integer({ min: 0, max: TYPES.length - 1 }),
    names: fc.integer({ min: 0, max: NAME_SETS.length - 1 }),
    weighted: fc.boolean(),
    withAreas: fc.boolean(),
    bands: fc.integer({ min: 1, max: 5 }),
    plane: fc.integer({ min: 0, max: 40 }),
    first: fc.integer({ min: 0, max: 20 }),
    scale: fc.oneof(fc.constant(1), fc.constant(0.002), fc.constant(Number.POSITIVE_INFINITY), fc.double({ min: -10, max: 10, noNaN: true })),
    offset: fc.oneof(fc.constant(0), fc.constant(265), fc.constant(Number.NEGATIVE_INFINITY), fc.double({ min: -1e3, max: 1e3, noNaN: true })),
    nodata: fc.oneof(fc.constant(null), fc.constant(7), fc.constant(-3), fc.constant(0)),
    samples: fc.array(
      fc.oneof(
        fc.integer({ min: -9, max: 9 }),
        fc.constant(7),
        fc.constant(Number.NaN),
        fc.double({ min: -1e5, max: 1e5, noNaN: true }),
        // Every bit of the mantissa used, magnitudes far apart: sums whose compensations are not 0.
        fc.integer({ min: -(2 ** 31), max: 2 ** 31 }).map((i) => i / 7),
        fc.integer({ min: -(2 ** 20), max: 2 ** 20 }).map((i) => i / 3 + 1e9 * Math.sign(i)),
      ),
      // Long enough that most cells' places fall inside (fast-check would otherwise make most arrays short).
      { minLength: 200, maxLength: 260 },
    ),
    cells: fc.array(
      fc.record({
        // −1: masked; beyond the samples: outside the array (nodata, as JavaScript's undefined is).
        place: fc.oneof({ weight: 8, arbitrary: fc.integer({ min: 0, max: 60 }) }, fc.constant(-1), fc.integer({ min: 250, max: 400 })),
        weight: fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), fc.constant(1), fc.constant(0), fc.constant(-0.5), fc.constant(Number.NaN)),
        area: fc.double({ min: 0, max: 1e9, noNaN: true }),
        id: fc.integer({ min: 0, max: 100_000 }),
      }),
      { minLength: 1, maxLength: 70 },
    ),
  });

  it.runIf(kernel !== null)('packs each band of a run as packRun does in JavaScript, to the bit, for every sample type', () => {
    fc.assert(
      fc.property(cases, (c) => {
        const Type = TYPES[c.type] as (typeof TYPES)[number];
        const raw = new Type(c.samples.length);
        raw.set(c.samples.map((v) => (Type === Float32Array || Type === Float64Array ? v : Number.isFinite(v) ? Math.trunc(v) : 0)));
        const n = c.cells.length;
        const at = Int32Array.from(c.cells, (x) => x.place);
        const weights = Float64Array.from(c.cells, (x) => x.weight);
        const cells = Int32Array.from(c.cells, (x) => x.id);
        const areas = c.withAreas ? Float64Array.from(c.cells, (x) => x.area) : null;
        const acc = createAccumulator({ names: NAME_SETS[c.names] as StatName[], weighted: c.weighted });
        const js = new Float64Array(3 + c.bands * BAND_FIELDS);
        const run: ScaledRun = { raw, first: 0, absent: 0, at, nodata: c.nodata, invalid: null, scale: c.scale, offset: c.offset, weights, cells, areas, n };
        for (let b = 0; b < c.bands; b++) {
          run.first = c.first + b * c.plane;
          js[3 + b * BAND_FIELDS + PACKED_FIELDS] = acc.packRun(run, js, 3 + b * BAND_FIELDS);
        }
        const native = new Float64Array(js.length);
        const flags = acc.packFlags() | (areas === null ? 0 : 8);
        (kernel as PackKernel).packRuns(
          raw,
          c.first,
          c.plane,
          c.bands,
          at,
          weights,
          cells,
          areas,
          n,
          c.nodata ?? Number.NaN,
          c.scale,
          c.offset,
          flags,
          native,
          3,
          BAND_FIELDS,
        );
        expect(bits(native)).toEqual(bits(js));
      }),
      { numRuns: 3000 },
    );
  });

  it.runIf(kernel !== null)('refuses arguments that would read or write outside its arrays', () => {
    const k = kernel as PackKernel;
    const raw = new Int16Array(10);
    const one = new Int32Array(1);
    const w = new Float64Array(1);
    expect(() => k.packRuns(raw, 0, 0, 2, one, w, one, null, 1, 0, 1, 0, 0, new Float64Array(BAND_FIELDS), 0, BAND_FIELDS)).toThrow(/out is too short/);
    expect(() => k.packRuns(raw, 0, 0, 1, one, w, one, null, 2, 0, 1, 0, 0, new Float64Array(BAND_FIELDS), 0, BAND_FIELDS)).toThrow(/shorter than n/);
    expect(() => k.packRuns(raw, 0, 0, 1, one, w, one, null, 1, 0, 1, 0, 8, new Float64Array(BAND_FIELDS), 0, BAND_FIELDS)).toThrow(/areas/);
    expect(() => k.packRuns(raw, -1, 0, 1, one, w, one, null, 1, 0, 1, 0, 0, new Float64Array(BAND_FIELDS), 0, BAND_FIELDS)).toThrow(/non-negative integer/);
    expect(() => k.packRuns(new BigInt64Array(2), 0, 0, 1, one, w, one, null, 1, 0, 1, 0, 0, new Float64Array(BAND_FIELDS), 0, BAND_FIELDS)).toThrow(/type/);
  });
});

describe('foldPlain with and without the native fold', () => {
  /**
   * A block of 8 planes of 6 × 5 samples, all but plane 3 in one array (a chunk), plane 3 in its own; planes 4–6
   * lie 30 then 60 samples apart (a run must split where the gap changes), 6–7 differ by their scale alone.
   */
  function fixture() {
    const chunk = new Int16Array(8 * 30);
    for (let i = 0; i < chunk.length; i++) chunk[i] = ((i * 37) % 23) - 3;
    // A nodata sample under the zone in band 2 (row 1, column 1 of its plane).
    chunk[60 + 6] = -32767;
    const own = new Int16Array(30).map((_, i) => 100 - i);
    const offsets = [0, 30, 60, 0, 90, 120, 180, 210];
    const bands: DecodedBlock['bands'] = offsets.map((offset, b) => ({ values: b === 3 ? own : chunk, isBig: false, rowStride: 5, step: 1, offset }));
    const fold: FoldBand[] = offsets.map(() => ({ nodata: -32767, scale: 0.5, offset: 10 }));
    // A band with a valid range, one of another scale: each folded on its own.
    fold[1] = { ...fold[1], validMax: 15 } as FoldBand;
    fold[7] = { ...fold[7], scale: 0.25 } as FoldBand;
    const block = { window: { row0: 0, col0: 0, width: 5, height: 6 }, bands, valid: null, maskStride: 0, fresh: [] } as unknown as DecodedBlock;
    const task = { bands: fold, names: ['mean', 'min', 'max', 'count'], format: { levelWidth: 5, fill: 0 } } as unknown as FoldTask;
    const cov = { window: { row0: 1, col0: 1, width: 3, height: 4 } } as unknown as Coverage;
    const n = 9;
    const list: CellList = {
      n,
      w: Float64Array.from({ length: n }, (_, k) => (k % 3 === 0 ? 0.25 : 1)),
      r: Int32Array.from({ length: n }, (_, k) => Math.floor(k / 3)),
      c: Int32Array.from({ length: n }, (_, k) => k % 3),
      tr: Int32Array.from({ length: n }, (_, k) => 1 + Math.floor(k / 3)),
      area: Float64Array.from({ length: n }, () => 6.5e8),
    };
    return { task, block, cov, list };
  }

  it.runIf(kernel !== null)('gives the same packed bands, band by band, as the JavaScript fold', () => {
    const { task, block, cov, list } = fixture();
    const acc = () => createAccumulator({ names: task.names, weighted: true });
    useFoldKernel(null);
    const js = foldPlain(task, acc(), block, cov, list);
    useFoldKernel(kernel);
    const native = foldPlain(task, acc(), block, cov, list);
    expect(js).not.toBeNull();
    expect(bits((native as NonNullable<typeof native>).values)).toEqual(bits((js as NonNullable<typeof js>).values));
    // Each band's count of valid cells, worked out here from the samples: nodata and band 1's values above its
    // valid range left out.
    const { values } = js as NonNullable<typeof js>;
    const valid = block.bands.map((s, b) => {
      let count = 0;
      for (let k = 0; k < list.n; k++) {
        const raw = s.values?.[(list.tr[k] as number) * 5 + 1 + (list.c[k] as number) + s.offset] as number;
        if (raw !== -32767 && raw <= ((task.bands[b] as FoldBand).validMax ?? Infinity)) count++;
      }
      return count;
    });
    expect(valid[2]).toBe(8);
    expect(valid[1]).toBeLessThan(9);
    expect(valid.map((_, b) => values[b * BAND_FIELDS])).toEqual(valid);
  });
});
