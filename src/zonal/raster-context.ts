/**
 * A raster question opened for all its zones: the request's own checks (statistics, band math, mask,
 * histogram) before any byte is read, then the raster (and the other rasters band math or a class mask
 * read), its bands, what each zone's answer holds. The request's problems (source, bands) throw here.
 */
import { ZonalError } from '../errors.ts';
import type { Config } from '../config.ts';
import type { ByteSource } from '../source/source.ts';
import { DEFAULT_STATS } from '../stats/catalogue.ts';
import { parseStatNames, type StatName } from '../stats/names.ts';
import { resolveStat } from '../stats/spelling.ts';
import { channelsOf, type Weighting } from '../stats/weighting.ts';
import { openRaster, type RasterLevel, type RasterReader } from '../raster/reader.ts';
import type { BlockFormat } from '../raster/decode.ts';
import { effectiveNodata, exactNodata64 } from '../raster/pixels.ts';
import type { FoldBand, FoldProgram } from '../raster/fold.ts';
import { expressionInputs } from '../stats/expression.ts';
import type { PixelRule } from '../coverage/coverage.ts';
import { sameGrid } from '../geometry/grid.ts';
import { parseHistogramSpec, type HistogramSpec } from '../stats/histogram.ts';
import type { FoldRunner } from '../workers/pool.ts';
import type { BandOverride } from '../stac/item.ts';
import type { Needs } from './engine.ts';
import type { Slots } from './slots.ts';
import type { ZonePlan } from '../raster/plan.ts';
import type { RasterQuery } from './model.ts';
import type { ResultContext, StatsAccumulator } from '../stats/accumulator.ts';
import { openWeights, type WeightSource, type ZoneRaster } from './raster-aligned.ts';
import type { MosaicSources } from './mosaic-layers.ts';

/** A zone ready to read; `share` names a plan that other rasters of the same grid reuse (and their workers its coverage). */
export type PlannedZone =
  (Needs<{ level: number; block: number }> & { plan: ZonePlan; aoiAreaM2: number; isArea: boolean; share?: string }) | { error: unknown };

/** Plans by grid and zone, shared by the rasters of one request on one grid (the Items of a tile over time). */
export type PlanCache = Map<string, PlannedZone>;

export interface RasterDeps {
  config: Config;
  openSource(url: string): Promise<ByteSource>;
  runner: FoldRunner;
  signal?: AbortSignal;
  /** Per-band nodata/scale/offset to use where the file has none (STAC raster:bands), index 0 = band 1. */
  bandDefaults?: readonly BandOverride[];
  /** Told which level a single-zone answer read (0 full resolution; approx_stats may pick an overview). */
  onLevel?(level: { index: number; width: number; height: number; pixelSize: number }): void;
  /** Told a sentence for the user beside a valid answer (an AOI that misses the raster but would not swapped). */
  onNote?(note: string): void;
  /**
   * Zone plans shared by the rasters of one request that lie on the same grid (the Items of one tile over
   * time): a zone is planned once per grid, and the workers reuse its coverage of each block.
   */
  plans?: PlanCache;
  /** Task slots shared with the other rasters of the request (each task holds one from its reads to its result). */
  slots?: Slots;
  /** false: no ZONAL_MAX_AREA_KM2 (a cube's cells are coarse: its pixel limit bounds the work). */
  areaLimit?: false;
  /**
   * Takes each band's plain answer (no channel, class, mask or histogram) of zone `zone` (its index among the
   * zones asked) as it is merged, in place of the zone's answer, which is then empty: its accumulator and areas,
   * for bandStats or bandNumbers (a cube writes ~1M zone × step answers into its tables this way). The
   * accumulator is reused for the next band: read it before returning.
   */
  sink?(zone: number, band: number, acc: StatsAccumulator, aoiAreaM2: number, dataAreaM2: number, context: ResultContext): void;
}

/** Whether every value is kept though no statistic needs it (a histogram, categorical). */
export function keepsAll(ctx: RasterContext): boolean {
  return ctx.histogram !== null || ctx.categorical;
}

function uniqueBands(bands: number[] | undefined): number[] {
  return [...new Set(bands ?? [1])];
}
/** What every zone of a request over one raster shares: the reader, the bands, the statistics. */
export interface RasterContext {
  readonly reader: RasterReader;
  readonly bands: number[];
  readonly foldBands: FoldBand[];
  readonly names: StatName[];
  /**
   * The names grouped by exactextract's weighting arguments (the request's, or an operation's own): the
   * first channel has the request's and answers the histogram, classes and data_area too.
   */
  readonly channels: { weighting: Weighting; names: StatName[] }[];
  readonly rule: PixelRule;
  readonly approx: boolean;
  readonly deps: RasterDeps;
  readonly formats: Map<number, BlockFormat>;
  readonly histogram: HistogramSpec | null;
  readonly categorical: boolean;
  /** Band math and a class mask, or null (each band on its own). */
  readonly program: FoldProgram | null;
  /** The answer's keys (band_<n> or expression) and their class names (STAC classification:classes). */
  readonly outputs: { key: string; classes: Map<number, string> | undefined }[];
  /** Whether a class mask applies (each answer then says how much it removed: `masked`). */
  readonly masked: boolean;
  /** Band math inputs beyond the primary raster, on its grid (band 1 of each, or `bandNumbers`: a cube's steps). */
  readonly extras: { reader: RasterReader; level: RasterLevel; bands: FoldBand[]; bandNumbers?: number[] }[];
  /** The class raster of a mask from another raster, read by nearest neighbour. */
  readonly classSource: { reader: RasterReader; level: RasterLevel; nodata: number | null } | null;
  /** The weighting raster of weighted_* statistics (raster-aligned.ts). */
  readonly weightSource?: WeightSource;
  /** Zones given as a raster (raster-zones.ts): the zones are its values. */
  readonly zoneSource?: ZoneRaster;
  /** A mosaic of STAC Items (raster-mosaic.ts): the other Items' rasters, read by nearest neighbour. */
  readonly mosaic?: MosaicSources;
}
/** A named raster input of band math over several rasters (band 1 of each: a STAC Item's assets). */
export interface RasterInput {
  name: string;
  url: string;
  bandDefaults: readonly BandOverride[];
}

/** Rasters beyond the request's one: band math inputs on its grid, and a class raster of another resolution. */
export interface RasterSources {
  /** The raster already opened (a cube's steps as bands: cube/reader.ts), in place of `url`. */
  reader?: RasterReader;
  /**
   * A cube's expression over several variables: each variable's steps as the bands of its reader (the first
   * is the grid's), the expression answered per step over the variables' values (`band_<k>` for step k).
   */
  variables?: { name: string; reader: RasterReader }[];
  /** The expression's inputs; the first is the grid the zones are read on, the others must share it. */
  inputs?: RasterInput[];
  /** The mask's classes (band 1), taken by nearest neighbour onto the grid. */
  classes?: { name: string; url: string; bandDefaults: readonly BandOverride[] };
}

function sameLevelGrid(a: RasterLevel, b: RasterLevel): boolean {
  return sameGrid(a.grid, b.grid) && a.blockWidth === b.blockWidth && a.blockHeight === b.blockHeight;
}
/** Opens the rasters of a multi-raster request and checks what band math and nearest classes need. */
async function openSources(
  sources: RasterSources,
  primary: RasterReader,
  deps: RasterDeps,
): Promise<{ extras: RasterContext['extras']; classSource: RasterContext['classSource'] }> {
  const base = primary.info.levels[0] as RasterLevel;
  const name0 = sources.inputs?.[0]?.name ?? 'the data';
  const extras = await Promise.all(
    (sources.inputs ?? []).slice(1).map(async (input) => {
      const reader = await openRaster(await deps.openSource(input.url), deps.signal);
      const level = reader.info.levels[0] as RasterLevel;
      if (reader.info.crs.proj4 !== primary.info.crs.proj4 || !sameLevelGrid(level, base)) {
        throw new ZonalError(
          'unsupported_asset',
          `The assets "${name0}" and "${input.name}" are not on the same grid and tiling: band math reads assets of one grid (resample one onto the other first).`,
        );
      }
      return { reader, level, bands: bandsFor(reader, [1], input.bandDefaults) };
    }),
  );
  let classSource: RasterContext['classSource'] = null;
  if (sources.classes) {
    const reader = await openRaster(await deps.openSource(sources.classes.url), deps.signal);
    const level = reader.info.levels[0] as RasterLevel;
    if (reader.info.crs.proj4 !== primary.info.crs.proj4 || level.grid.rx !== 0 || level.grid.ry !== 0 || base.grid.rx !== 0 || base.grid.ry !== 0) {
      throw new ZonalError(
        'unsupported_asset',
        `The mask asset "${sources.classes.name}" is not in the CRS of "${name0}" or is rotated: its classes can only be taken onto a grid of the same CRS.`,
      );
    }
    classSource = { reader, level, nodata: (bandsFor(reader, [1], sources.classes.bandDefaults)[0] as FoldBand).nodata };
  }
  return { extras, classSource };
}

/** The request's expression and mask, checked before any byte is read (bands are checked once the file is open). */
function checkProgram(req: RasterQuery): void {
  if (req.expression !== undefined && req.bands !== undefined) {
    throw new ZonalError('validation_failed', 'Give either "bands" or an "expression" (which names its bands b1, b2, …), not both.', {
      errors: [{ path: '/bands', message: 'not with an expression' }],
    });
  }
  const m = req.mask;
  if (m && m.band === undefined) {
    throw new ZonalError('validation_failed', 'A mask names its classification "band" (an "asset" is for zones × time requests over STAC Items).', {
      errors: [{ path: '/mask/band', message: 'required' }],
    });
  }
  if (m && (m.include === undefined) === (m.exclude === undefined)) {
    throw new ZonalError('validation_failed', 'A mask lists the classes to keep ("include") or to drop ("exclude"): give exactly one of them.', {
      errors: [{ path: '/mask', message: 'include or exclude' }],
    });
  }
}

/** The request's own checks, before any byte is read: its statistics, band math, mask and histogram. */
export function checkRasterQuery(req: RasterQuery, sources?: RasterSources): void {
  parseStatNames(req.stats ?? DEFAULT_STATS, 'raster');
  if (sources?.inputs || sources?.classes) checkMulti(req, sources);
  else checkProgram(req);
  parseHistogramSpec(req.histogram);
}

/** A request over several rasters reads no overview, and several assets only for an expression over them. */
function checkMulti(req: RasterQuery, sources: RasterSources): void {
  if (req.approx_stats === true)
    throw new ZonalError('validation_failed', 'approx_stats is not available for band math over several assets or a mask from another asset: drop it.');
  if (sources.inputs && req.expression === undefined) throw new ZonalError('validation_failed', 'Several assets are read only for an "expression" over them.');
}

/** Opens the raster once for every zone of a request; the request's own problems (source, bands) throw. */
export async function openRasterContext(req: RasterQuery, deps: RasterDeps, sources?: RasterSources): Promise<RasterContext> {
  const ctx = await openOne(req, deps, sources);
  const weightSource = await openWeights(ctx, req, deps);
  return weightSource ? { ...ctx, weightSource } : ctx;
}

async function openOne(req: RasterQuery, deps: RasterDeps, sources?: RasterSources): Promise<RasterContext> {
  if (sources?.variables) return openVariablesContext(req, deps, sources.variables);
  if (sources?.inputs || sources?.classes) return openMultiContext(req, deps, sources);
  const names = parseStatNames(req.stats ?? DEFAULT_STATS, 'raster');
  checkProgram(req);
  parseHistogramSpec(req.histogram);
  const reader = sources?.reader ?? (await openRaster(await deps.openSource(req.url), deps.signal));
  const { info } = reader;
  const allNames = Array.from({ length: info.bandCount }, (_, i) => `b${i + 1}`);
  // The bands answered, or the bands the expression reads; then the mask's band if it is another.
  const answered = req.expression !== undefined ? expressionInputs(req.expression, allNames).map((n) => Number(n.slice(1))) : uniqueBands(req.bands);
  const missing = [...answered, ...(req.mask ? [req.mask.band as number] : [])].filter((b) => b > info.bandCount);
  if (missing.length > 0) {
    throw new ZonalError(
      'unknown_band',
      `Band ${[...new Set(missing)].join(', ')} does not exist: the raster has ${info.bandCount} band${info.bandCount === 1 ? '' : 's'}.`,
      { band_count: info.bandCount },
    );
  }
  const maskBand = req.mask?.band as number;
  const bands = req.mask && !answered.includes(maskBand) ? [...answered, maskBand] : answered;
  const program: FoldProgram | null =
    req.expression === undefined && !req.mask
      ? null
      : {
          expression: req.expression === undefined ? null : { text: req.expression, names: bands.map((b) => `b${b}`) },
          outputs: answered.map((_, k) => k),
          mask: req.mask ? { band: bands.indexOf(maskBand), include: req.mask.include ?? null, exclude: req.mask.exclude ?? null } : null,
        };
  // contract §5 and issue 5: a bare point always takes its containing pixel, whatever `pixels` says.
  return contextOf(req, deps, {
    reader,
    bands,
    foldBands: bandsFor(reader, bands, deps.bandDefaults ?? []),
    names,
    approx: req.approx_stats === true,
    program,
    answered,
    extras: [],
    classSource: null,
  });
}

/** exactextract's statistics that name cells of the full-resolution grid. */
const CELL_STATS = new Set(['values', 'coverage', 'cell_id', 'center_x', 'center_y', 'min_center_x', 'min_center_y', 'max_center_x', 'max_center_y']);

/** A context from what its opener worked out, the request's own options filled in the same way for both. */
function contextOf(
  req: RasterQuery,
  deps: RasterDeps,
  {
    answered,
    ...parts
  }: Pick<RasterContext, 'reader' | 'bands' | 'foldBands' | 'names' | 'approx' | 'program' | 'extras' | 'classSource'> & { answered: readonly number[] },
): RasterContext {
  const defaults = {
    coverage_weight: req.coverage_weight,
    min_coverage_frac: req.min_coverage_frac,
    default_value: req.default_value,
    default_weight: req.default_weight,
  };
  const channels = channelsOf(parts.names, (n) => ({ ...resolveStat(n)?.weighting, byWeights: resolveStat(n)?.declaration.byWeights }), defaults);
  const perCell = parts.names.filter((n) => CELL_STATS.has(resolveStat(n)?.declaration.name ?? ''));
  if (parts.approx && perCell.length > 0) {
    throw new ZonalError(
      'validation_failed',
      `${perCell.map((n) => `'${n}'`).join(', ')} name${perCell.length > 1 ? '' : 's'} cells of the raster's full grid, which approx_stats does not read: ask without approx_stats.`,
    );
  }
  const spherical = channels.find((c) => c.weighting.coverage.startsWith('area_spherical'));
  if (spherical && !parts.reader.info.crs.isGeographic) {
    throw new ZonalError(
      'stat_not_applicable',
      `coverage_weight=${spherical.weighting.coverage} measures cells on a sphere from their latitudes and longitudes, and this raster is not in longitude/latitude; area_cartesian weighs by the cell's area in its CRS units.`,
    );
  }
  return {
    ...parts,
    channels,
    // The answer's keys: the expression's, or each band asked (with its STAC class names).
    outputs:
      req.expression !== undefined
        ? [{ key: 'expression', classes: undefined }]
        : answered.map((b) => ({ key: `band_${b}`, classes: deps.bandDefaults?.[b - 1]?.classes })),
    rule: req.pixels ?? 'center',
    deps,
    formats: new Map(),
    histogram: parseHistogramSpec(req.histogram),
    categorical: req.categorical === true,
    masked: req.mask !== undefined,
  };
}

/**
 * A request over several rasters: band math over named inputs (band 1 of each, on one grid) and/or a mask
 * from a class raster of another resolution (nearest neighbour). Overviews are not read (approx_stats is
 * refused): each raster's overviews need not match.
 */
async function openMultiContext(req: RasterQuery, deps: RasterDeps, sources: RasterSources): Promise<RasterContext> {
  const names = parseStatNames(req.stats ?? DEFAULT_STATS, 'raster');
  checkMulti(req, sources);
  const inputs = sources.inputs;
  const url = inputs?.[0]?.url ?? req.url;
  const reader = await openRaster(await deps.openSource(url), deps.signal);
  const { extras, classSource } = await openSources(sources, reader, deps);
  // Band math inputs: the primary's band 1 and each extra's; without inputs, the request's own bands.
  const own = inputs
    ? [1]
    : req.expression !== undefined
      ? expressionInputs(
          req.expression,
          Array.from({ length: reader.info.bandCount }, (_, i) => `b${i + 1}`),
        ).map((n) => Number(n.slice(1)))
      : uniqueBands(req.bands);
  if (inputs)
    expressionInputs(
      req.expression as string,
      inputs.map((i) => i.name),
    );
  const missing = own.filter((b) => b > reader.info.bandCount);
  if (missing.length > 0)
    throw new ZonalError(
      'unknown_band',
      `Band ${missing.join(', ')} does not exist: the raster has ${reader.info.bandCount} band${reader.info.bandCount === 1 ? '' : 's'}.`,
      { band_count: reader.info.bandCount },
    );
  const primaryBands = bandsFor(reader, own, inputs?.[0]?.bandDefaults ?? deps.bandDefaults ?? []);
  const foldBands = [...primaryBands, ...extras.flatMap((e) => e.bands)];
  const sourcesOf = [...own.map((_, k) => ({ raster: 0, band: k })), ...extras.map((_, j) => ({ raster: j + 1, band: 0 }))];
  const exprNames = inputs ? inputs.map((i) => i.name) : own.map((b) => `b${b}`);
  if (req.mask && !classSource && (req.mask.band === undefined || !own.includes(req.mask.band))) {
    throw new ZonalError('validation_failed', 'With band math over several assets, the mask names an "asset".', {
      errors: [{ path: '/mask', message: 'asset' }],
    });
  }
  const mask = req.mask
    ? { band: classSource ? -1 : own.indexOf(req.mask.band as number), include: req.mask.include ?? null, exclude: req.mask.exclude ?? null }
    : null;
  const program: FoldProgram = {
    sources: sourcesOf,
    expression: req.expression === undefined ? null : { text: req.expression, names: exprNames },
    outputs: own.map((_, k) => k),
    mask,
  };
  return contextOf(req, deps, { reader, bands: own, foldBands, names, approx: false, program, answered: own, extras, classSource });
}
/** A cube's expression over variables on one grid and chunking: per step (key band_<k>), the expression over each variable's band of that step. */
function openVariablesContext(req: RasterQuery, deps: RasterDeps, variables: NonNullable<RasterSources['variables']>): RasterContext {
  parseHistogramSpec(req.histogram);
  const [primary, ...others] = variables as [(typeof variables)[number], ...typeof variables];
  const own = Array.from({ length: primary.reader.info.bandCount }, (_, s) => s + 1);
  const extras = others.map((v) => ({ reader: v.reader, level: v.reader.info.levels[0] as RasterLevel, bands: bandsFor(v.reader, own, []), bandNumbers: own }));
  const foldBands = [...bandsFor(primary.reader, own, []), ...extras.flatMap((e) => e.bands)];
  const sources = variables.flatMap((_, v) => own.map((_b, s) => ({ raster: v, band: s })));
  const groups = own.map((_, s) => variables.map((_v, v) => v * own.length + s));
  const program: FoldProgram = {
    sources,
    expression: { text: req.expression as string, names: variables.map((v) => v.name) },
    outputs: [],
    mask: null,
    groups,
  };
  const { expression: _expression, ...perStep } = req;
  const names = parseStatNames(req.stats ?? DEFAULT_STATS, 'raster');
  return contextOf(perStep, deps, { reader: primary.reader, bands: own, foldBands, names, approx: false, program, answered: own, extras, classSource: null });
}

export function bandsFor(reader: RasterReader, bands: number[], defaults: readonly BandOverride[]): FoldBand[] {
  const { info } = reader;
  return bands.map((b) => {
    const fallback = defaults[b - 1] ?? {};
    const scaling = info.scaling[b - 1] ?? { scale: 1, offset: 0 };
    // The file's own values win; the defaults fill in only what the file leaves out.
    const fileScaled = scaling.scale !== 1 || scaling.offset !== 0;
    const nodata64 = info.nodata64 ?? exactNodata64(info.nodata === null ? (fallback.nodata ?? null) : null, info.dtype);
    return {
      nodata: nodata64 === null ? effectiveNodata(info.nodata ?? fallback.nodata ?? null, info.dtype) : null,
      nodata64,
      scale: fileScaled ? scaling.scale : (fallback.scale ?? 1),
      offset: fileScaled ? scaling.offset : (fallback.offset ?? 0),
      ...info.cf,
    };
  });
}
