/**
 * A zone's partials on one block, packed for the trip back from the worker (pure). A cube's block holds
 * 24 or more steps, and each step's partial was an object of some twenty fields and three arrays: posting
 * ~1M of them and merging them cost the main thread more than the fold. Partials that are only an
 * accumulator's moments and a data area (no kept values, cells, channels, classes or masks: count, sum,
 * mean, min, max, std…) travel as BAND_FIELDS numbers a band in one Float64Array, and merge from it to the bit.
 */
import { PACKED_FIELDS, type AccumulatorSnapshot, type StatsAccumulator } from '../stats/accumulator.ts';
import { packNumbers } from '../stats/moments.ts';
import { BAND_FIELDS } from './fold-plain.ts';
import type { BandPartial, PackedBands } from './fold-types.ts';

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
  const values = new Float64Array(bands.length * BAND_FIELDS);
  for (let b = 0; b < bands.length; b++) {
    const { acc: a, dataAreaM2 } = bands[b] as BandPartial;
    const o = b * BAND_FIELDS;
    packNumbers(a, values, o);
    values[o + PACKED_FIELDS] = dataAreaM2;
  }
  return { packed: { names: first.names, weighted: first.weighted, countItems: first.countItems, keep: first.keep ?? false }, values };
}

/** Band `b` of packed partials merged into `acc` (made with the options they were folded with), as merging the band's snapshot would; its data area. */
export function mergePackedBand(acc: StatsAccumulator, bands: PackedBands, b: number): number {
  acc.mergePacked(bands.values, b * BAND_FIELDS);
  return bands.values[b * BAND_FIELDS + PACKED_FIELDS] as number;
}
