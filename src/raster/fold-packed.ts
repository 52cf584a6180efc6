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
  bands.forEach(({ acc: a, dataAreaM2 }, b) => {
    values.set(
      [a.items, a.wSum, a.wComp, a.vSum, a.vComp, a.shift, a.mean, a.m2, a.min, a.max, a.nodata, a.nodataComp, a.minCell ?? -1, a.maxCell ?? -1, dataAreaM2],
      b * FIELDS,
    );
  });
  return { packed: { names: first.names, weighted: first.weighted, countItems: first.countItems, keep: first.keep ?? false }, values };
}

/** Band `b` of packed partials merged into `acc`, as mergeSnapshot would merge the band's own snapshot; its data area. */
export function mergePackedBand(acc: StatsAccumulator, bands: PackedBands, b: number): number {
  const v = bands.values;
  const o = b * FIELDS;
  const at = (k: number): number => v[o + k] as number;
  const snapshot: AccumulatorSnapshot = {
    version: 1,
    ...bands.packed,
    items: at(0),
    wSum: at(1),
    wComp: at(2),
    vSum: at(3),
    vComp: at(4),
    shift: at(5),
    mean: at(6),
    m2: at(7),
    min: at(8),
    max: at(9),
    nodata: at(10),
    nodataComp: at(11),
    minCell: at(12),
    maxCell: at(13),
    unitValues: EMPTY,
    pairValues: EMPTY,
    pairWeights: EMPTY,
  };
  mergeSnapshot(acc, snapshot);
  return at(14);
}
