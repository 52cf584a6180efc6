/**
 * What a fold task carries to its thread and what it brings back (raster/fold.ts): plain cloneable data,
 * as it crosses to a worker (src/workers/fold-worker.ts) and back.
 */
import type { BlockFormat, DecodedPlane, DecodeTimes, EncodedBlock } from './decode.ts';
import type { Grid, PixelWindow } from '../geometry/grid.ts';
import type { PixelAreaSpec } from './pixel-area.ts';
import type { Selection } from './plan.ts';
import type { AccumulatorSnapshot } from '../stats/accumulator.ts';
import type { StatName } from '../stats/names.ts';
import type { Weighting } from '../stats/weighting.ts';

/** How a band's raw samples become values (contract §5 raster rules). */
export interface FoldBand {
  /** Raw nodata value as the band's samples can hold it (see effectiveNodata), or null. */
  nodata: number | null;
  /**
   * A 64-bit integer band's nodata, exactly (`nodata` is then null): its samples are compared as BigInts
   * before they become numbers, and a sparse tile (filled with nodata) is nodata.
   */
  nodata64?: bigint | null;
  scale: number;
  offset: number;
  /** Further raw values that are nodata (CF's missing_value beside its _FillValue). */
  also?: number[];
  /** Raw values below or above these are nodata (CF's valid_min, valid_max, valid_range, in packed units). */
  validMin?: number;
  validMax?: number;
}

/** One zone of a task: what it selects on the level, and its window there. */
export interface FoldZone {
  selection: Selection;
  /** The zone's window on the level grid, clipped to it. */
  window: PixelWindow;
  /** Fractional coverage of an area: weights are coverage fractions. */
  weighted: boolean;
  /**
   * Names this selection on its grid wherever it recurs (the same zone over Items of one grid): a worker
   * computes its coverage of a block once and reuses it. Absent: not shared.
   */
  key?: string;
  /** A polygon selection's geometry packed for the trip (fold-geometry.ts); its `geometry` is then empty. */
  packed?: Float64Array;
}

/**
 * A run of blocks of one level and the zones that need each (exactextract's raster-sequential strategy):
 * each block is decoded once and every zone that touches it accumulates from it.
 */
export interface FoldTask {
  /** From the reader; only raster/decode.ts looks inside. */
  format: BlockFormat;
  blocks: EncodedBlock[];
  /**
   * Per block, the part of it (on the level) that the zones needing it cover: only these rows and columns
   * are decoded (DEFLATE stops after its last row). Absent: whole blocks.
   */
  needs?: PixelWindow[];
  zones: FoldZone[];
  /** Per block, the indexes into `zones` of the zones that need it. */
  touches: number[][];
  bands: FoldBand[];
  /** The level's grid and CRS, for data_area (a bare point zone has none: its data_area is 0 by contract). */
  area: PixelAreaSpec;
  names: StatName[];
  /** How `names` count cells (exactextract's weighting arguments); absent: the covered fraction, nodata left out. */
  weighting?: Weighting;
  /** Further statistics with other weighting arguments, each channel its own accumulator (BandPartial.more). */
  channels?: { names: StatName[]; weighting: Weighting }[];
  /** Keep every value though no statistic needs them (a histogram, categorical). */
  keepValues: boolean;
  /** Tally the ground area of each distinct value (categorical). */
  categorical: boolean;
  /**
   * Band math and class masks (issue 11); null: each band answered on its own, every band of `bands` an
   * output. With a program the outputs are `program.outputs` (band indexes), or the one expression.
   */
  program: FoldProgram | null;
  /**
   * Other rasters on the same grid and block layout (other assets of a STAC Item), their blocks aligned
   * with `blocks`; their bands follow the primary's in `bands` (see FoldProgram.sources).
   */
  extras?: { format: BlockFormat; blocks: EncodedBlock[] }[];
  /** A class raster on another grid of the same CRS (a 20 m scene classification under 10 m bands). */
  classes?: ClassSource;
  /**
   * exactextract's weighting raster, read the same way (each value cell in one weights cell, or nx × ny weights
   * cells in a value cell when finer); its values × scale + offset.
   */
  weights?: ClassSource & { scale: number; offset: number; nx?: number; ny?: number };
  /** Zones given as a raster: the zones of selection kind 'zone' are its cells of their value (raster/fold-zones.ts). */
  zoneRaster?: ClassSource & { nx: number; ny: number };
  /** Per block: return its newly decoded planes (on SharedArrayBuffers) for the process-wide decoded-tile cache. */
  keep: boolean[];
  /** A mosaic of several STAC Items (raster/fold-mosaic.ts): `bands` are then plain values, the Items' own bands are here. */
  mosaic?: FoldMosaic;
}

/** One zone's statistics from one block. */
export interface FoldPartial {
  /** Index into FoldTask.zones. */
  zone: number;
  /** Position of the block in FoldTask.blocks. */
  block: number;
  bands: BandPartial[] | PackedBands;
}

/** A zone's plain band partials on a block, FIELDS numbers a band (fold-packed.ts). */
export interface PackedBands {
  packed: Pick<AccumulatorSnapshot, 'names' | 'weighted' | 'countItems' | 'keep'>;
  values: Float64Array;
}

/** A class raster read by nearest neighbour: the class of a pixel is that of the class pixel holding its centre. */
export interface ClassSource {
  format: BlockFormat;
  /** Its level grid, and its block size and blocks across (to find the block of a class pixel). */
  grid: Grid;
  blockWidth: number;
  blockHeight: number;
  across: number;
  /** The class blocks this task's pixels may fall in. */
  blocks: EncodedBlock[];
  /** Per class block, the part of it under the task's needed pixels (absent: whole blocks). */
  needs?: PixelWindow[];
  nodata: number | null;
}

/** Band math and a class mask over the decoded bands of a task. */
export interface FoldProgram {
  /** Per band of FoldTask.bands: its raster (0 the primary, k extras[k − 1]) and its index among that raster's bands. */
  sources?: { raster: number; band: number }[];
  /** An expression over `names` (one per band of FoldTask.bands, in order), or null. */
  expression: { text: string; names: string[] } | null;
  /** Without an expression: the bands answered (indexes into FoldTask.bands). */
  outputs: number[];
  /**
   * An expression answered once per group of bands (a cube's steps: per step, each variable's band, in the
   * order of `expression.names`): one output per group. Absent: one output over every band.
   */
  groups?: number[][];
  /**
   * Pixels whose class (raw value of band `band`, or with `band` −1 of FoldTask.classes) is not in
   * `include`, or is in `exclude`, are masked.
   */
  mask: { band: number; include: number[] | null; exclude: number[] | null } | null;
}

/** One band's partial: its accumulator, its data area and (categorical) each class's area. */
export interface BandPartial {
  acc: AccumulatorSnapshot;
  /** The accumulators of FoldTask.channels, in order. */
  more?: AccumulatorSnapshot[];
  /** Per channel of FoldTask.channels that weighs by `weights`: pixels counted whose weight was undefined (no weight, no default_weight). */
  missing?: number[];
  dataAreaM2: number;
  /** A zone of a zones raster: the ground area it covers (its aoi_area), nodata cells included. */
  zoneAreaM2?: number;
  /** Summed weight of the pixels the class mask removed. */
  masked?: number;
  /** Distinct values and the summed weight × pixel area of each (categorical only). */
  classAreas?: { values: number[]; areas: number[] };
}

/** Milliseconds a task spent per phase in its thread (bench/stac's per-tile profile, /metrics). */
export interface FoldTimes extends DecodeTimes {
  coverage: number;
  fold: number;
  /** The whole task, from its start in the thread to its result. */
  total: number;
  /** Planes decoded. */
  planes: number;
  /** Coverages of a zone on a block worked out, and taken from the thread's cache (FoldZone.key). */
  coverages: number;
  reused: number;
}

export interface FoldResult {
  partials: FoldPartial[];
  /** Planes decoded by this task, for the decoded-tile cache (those of the blocks to keep). */
  decoded: { key: string; plane: DecodedPlane }[];
  /**
   * Why a block could not be decoded (a corrupt tile, a stream cut short): the source's problem, told as
   * data because an error's class does not cross to the main thread. The task stops there.
   */
  failure?: string;
  times: FoldTimes;
}

/** Another Item's raster in a mosaic, read by nearest neighbour: the cell under each pixel's centre. */
export interface MosaicLayer {
  /** Its blocks under the task's pixels, decoded whole (`needs` absent); `nodata` unused (see `bands`). */
  source: ClassSource;
  /** How its samples become values, per band of `source.format.bands`. */
  bands: FoldBand[];
  /** The proj4 definitions of the task's grid and of this raster when they differ: pixel centres are reprojected. */
  crs?: { from: string; to: string };
}

/**
 * The Items of a mosaic (zones × time, `mosaic: "day"`): each pixel's value is taken from the first Item, in
 * search order, whose raster is valid under the pixel's centre. Each raster of the task (the primary, then
 * `extras`) has its own list, band by band; the task's own raster stands at its place as null.
 */
export interface FoldMosaic {
  /** Per raster of the task, the Items' rasters in search order; null: the task's own raster. */
  rasters: (MosaicLayer | null)[][];
  /** Per raster of the task, its own bands (FoldTask.bands are then plain values: no nodata, scale 1, offset 0). */
  own: FoldBand[][];
  /** A mask's class rasters, one per Item in search order (FoldTask.classes is then absent). */
  classes?: MosaicLayer[];
}
