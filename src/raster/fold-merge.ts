/** The merge of a zone's per-block partials (from raster/fold.ts) into its accumulators, on the main thread. */
import { createAccumulator, mergeSnapshot, type StatsAccumulator } from '../stats/accumulator.ts';
import type { StatName } from '../stats/names.ts';
import type { BandPartial, PackedBands } from './fold-types.ts';
import { mergePackedBand } from './fold-packed.ts';

/** Merges a zone's partials (in the order given: block order, for the same bits every time). */
export function mergePartials(
  options: { names: StatName[]; weighted: boolean; bandCount: number; keepValues: boolean; channels?: { names: StatName[]; weighted: boolean }[] },
  partials: readonly (BandPartial[] | PackedBands)[],
): {
  accs: StatsAccumulator[];
  more: StatsAccumulator[][];
  missing: number[][];
  dataAreaM2: number[];
  zoneAreaM2: number;
  /** Per band, the class areas (absent: no class counted). */
  classAreas: (Map<number, number> | undefined)[];
  masked: number[];
} {
  const accs = Array.from({ length: options.bandCount }, () =>
    createAccumulator({ names: options.names, weighted: options.weighted, keepValues: options.keepValues }),
  );
  // The further channels' accumulators of each band (FoldTask.channels); without channels, one shared empty
  // list (a cube merges ~1M zone × step answers: a list and a map a band were most of their garbage).
  const channels = options.channels ?? [];
  const more = accs.map(() => (channels.length === 0 ? NONE : channels.map((c) => createAccumulator({ names: c.names, weighted: c.weighted }))));
  const missing = accs.map(() => (channels.length === 0 ? NO_COUNTS : channels.map(() => 0)));
  const dataAreaM2 = accs.map(() => 0);
  const classAreas: Map<number, number>[] = [];
  const masked = accs.map(() => 0);
  let zoneAreaM2 = 0;
  for (const bands of partials) {
    if ('packed' in bands) {
      accs.forEach((acc, b) => (dataAreaM2[b] = (dataAreaM2[b] as number) + mergePackedBand(acc, bands, b)));
      continue;
    }
    zoneAreaM2 += bands[0]?.zoneAreaM2 ?? 0;
    bands.forEach((band, b) => {
      masked[b] = (masked[b] as number) + (band.masked ?? 0);
      mergeSnapshot(accs[b] as StatsAccumulator, band.acc);
      band.more?.forEach((m, k) => mergeSnapshot(more[b]?.[k] as StatsAccumulator, m));
      band.missing?.forEach((n, k) => ((missing[b] as number[])[k] = ((missing[b] as number[])[k] as number) + n));
      dataAreaM2[b] = (dataAreaM2[b] as number) + band.dataAreaM2;
      if (band.classAreas !== undefined) {
        const into = (classAreas[b] ??= new Map<number, number>());
        band.classAreas.values.forEach((v, k) => into.set(v, (into.get(v) ?? 0) + (band.classAreas?.areas[k] as number)));
      }
    });
  }
  return { accs, more, missing, dataAreaM2, zoneAreaM2, classAreas, masked };
}

/** Shared and frozen: a band's channels are merged into only when the task has channels (a write here would throw). */
const NONE = Object.freeze([]) as unknown as StatsAccumulator[];
const NO_COUNTS = Object.freeze([]) as unknown as number[];

/**
 * Band `b` of a zone's plain partials (no channel, class or mask; fold-types.ts) merged in block order into
 * `acc` (made with the options they were folded with): the answer of one band without an accumulator a band.
 * Its data area.
 */
export function mergeBand(acc: StatsAccumulator, partials: readonly (BandPartial[] | PackedBands)[], b: number): number {
  let dataAreaM2 = 0;
  for (const bands of partials) {
    if ('packed' in bands) dataAreaM2 += mergePackedBand(acc, bands, b);
    else {
      const band = bands[b] as BandPartial;
      mergeSnapshot(acc, band.acc);
      dataAreaM2 += band.dataAreaM2;
    }
  }
  return dataAreaM2;
}
