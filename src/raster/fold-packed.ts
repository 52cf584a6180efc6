/**
 * A zone's partials on one block, packed for the trip back from the worker (pure). A cube's block holds
 * 24 or more steps, and each step's partial was an object of some twenty fields and three arrays: posting
 * ~1M of them and merging them cost the main thread more than the fold. Partials that are only an
 * accumulator's moments and a data area (no kept values, cells, channels, classes or masks: count, sum,
 * mean, min, max, std…) travel as FIELDS numbers a band in one Float64Array, and merge from it to the bit.
 */
import { mergeSnapshot, type AccumulatorSnapshot, type StatsAccumulator } from '../stats/accumulator.ts';
import type { BandPartial, PackedBands } from './fold-types.ts';

const FIELDS = 15;
const EMPTY = new Float64Array(0);

/** Whether a band's partial is plain moments (nothing a packed band cannot say). */
function plain(p: BandPartial, first: AccumulatorSnapshot): boolean {
  const a = p.acc;
  return (
    p.more === undefined &&
    p.missing === undefined &&
    p.zoneAreaM2 === undefined &&
    p.masked === undefined &&
    p.classAreas === undefined &&
    a.cells === undefined &&
    a.unitValues.length === 0 &&
    a.pairValues.length === 0 &&
    a.weighted === first.weighted &&
    a.countItems === first.countItems &&
    (a.keep ?? false) === (first.keep ?? false) &&
    a.names === first.names
  );
}

/** The bands packed when every one is plain (and share one accumulator's options), else as they are. */
export function packBands(bands: BandPartial[]): BandPartial[] | PackedBands {
  const first = bands[0]?.acc;
  if (first === undefined || bands.length < 2 || !bands.every((b) => plain(b, first))) return bands;
  const values = new Float64Array(bands.length * FIELDS);
  for (let b = 0; b < bands.length; b++) {
    const { acc: a, dataAreaM2 } = bands[b] as BandPartial;
    const o = b * FIELDS;
    values[o] = a.items;
    values[o + 1] = a.wSum;
    values[o + 2] = a.wComp;
    values[o + 3] = a.vSum;
    values[o + 4] = a.vComp;
    values[o + 5] = a.shift;
    values[o + 6] = a.mean;
    values[o + 7] = a.m2;
    values[o + 8] = a.min;
    values[o + 9] = a.max;
    values[o + 10] = a.nodata;
    values[o + 11] = a.nodataComp;
    values[o + 12] = a.minCell ?? -1;
    values[o + 13] = a.maxCell ?? -1;
    values[o + 14] = dataAreaM2;
  }
  return { packed: { names: first.names, weighted: first.weighted, countItems: first.countItems, keep: first.keep ?? false }, values };
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The one snapshot the packed bands are merged through, its numbers set per band (mergeSnapshot keeps nothing of it). */
const scratch: Mutable<AccumulatorSnapshot> = {
  version: 1,
  names: [],
  weighted: false,
  countItems: false,
  keep: false,
  items: 0,
  wSum: 0,
  wComp: 0,
  vSum: 0,
  vComp: 0,
  shift: 0,
  mean: 0,
  m2: 0,
  min: 0,
  max: 0,
  nodata: 0,
  nodataComp: 0,
  minCell: -1,
  maxCell: -1,
  unitValues: EMPTY,
  pairValues: EMPTY,
  pairWeights: EMPTY,
};

/**
 * Band `b` of packed partials merged into `acc`, as mergeSnapshot would merge the band's own snapshot; its data
 * area. The fields in packBands' order, written out both ways (a loop over key names was slower on ~1M bands).
 */
export function mergePackedBand(acc: StatsAccumulator, bands: PackedBands, b: number): number {
  const v = bands.values;
  const o = b * FIELDS;
  const s = scratch;
  s.names = bands.packed.names;
  s.weighted = bands.packed.weighted;
  s.countItems = bands.packed.countItems;
  s.keep = bands.packed.keep;
  s.items = v[o] as number;
  s.wSum = v[o + 1] as number;
  s.wComp = v[o + 2] as number;
  s.vSum = v[o + 3] as number;
  s.vComp = v[o + 4] as number;
  s.shift = v[o + 5] as number;
  s.mean = v[o + 6] as number;
  s.m2 = v[o + 7] as number;
  s.min = v[o + 8] as number;
  s.max = v[o + 9] as number;
  s.nodata = v[o + 10] as number;
  s.nodataComp = v[o + 11] as number;
  s.minCell = v[o + 12] as number;
  s.maxCell = v[o + 13] as number;
  mergeSnapshot(acc, s);
  return v[o + 14] as number;
}
