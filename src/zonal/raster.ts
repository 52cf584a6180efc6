/**
 * The raster use case, top to bottom (ARCHITECTURE §1):
 * validate → open source → open raster → plan each zone (raster/plan.ts) → read blocks → fold (workers) → respond.
 * One zone or many, the same engine (exactextract's raster-sequential strategy): each block a request
 * needs is read and decoded once, and every zone that touches it accumulates from it in the same task.
 * All I/O arrives through `deps`, so tests can run it on any ByteSource.
 */
import { ZonalError } from '../errors.ts';
import type { Config } from '../config.ts';
import type { ByteSource } from '../source/source.ts';
import type { RasterRequest } from '../schemas/raster.ts';
import type { StatsResponse } from '../schemas/response.ts';
import type { GeometryRequest } from '../schemas/aoi.ts';
import { DEFAULT_STATS } from '../schemas/common.ts';
import { parseAoi } from '../geometry/aoi.ts';
import { geometryOf } from './zones.ts';
import { makeTransformer, transformPolygons } from '../geometry/reproject.ts';
import type { Aoi, MultiPolygonCoords } from '../geometry/types.ts';
import { needsOf, parseStatNames, type StatName } from '../stats/names.ts';
import { openRaster, type RasterLevel, type RasterReader } from '../raster/reader.ts';
import { intersectWindows, pixelSize, toWorld, unionWindows, type Grid, type PixelWindow } from '../geometry/grid.ts';
import { blocksUnder, blockWindow, cellsUnder, planZone, type AoiInCrs, type ZonePlan } from '../raster/plan.ts';
import { admitted, decodedTiles, spanCovers, spanOf, type BlockFormat } from '../raster/decode.ts';
import { effectiveNodata } from '../raster/pixels.ts';
import { mergePartials, type FoldBand, type FoldPartial, type FoldProgram, type FoldResult, type FoldTask, type FoldZone } from '../raster/fold.ts';
import { expressionInputs } from '../stats/expression.ts';
import type { PixelRule } from '../coverage/coverage.ts';
import { bandStats } from './respond.ts';
import { inInputOrder, type Slots } from './schedule.ts';
import { countFold, tally } from '../observe.ts';
import { classesOf, histogramOf, type HistogramSpec } from '../stats/histogram.ts';
import type { FoldRunner } from '../workers/pool.ts';
import type { BandOverride } from '../stac/item.ts';

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
}

/** Plans by grid and zone (see RasterDeps.plans); one per request. */
export type PlanCache = Map<string, PlannedZone>;

/** Names selections that recur across rasters of one grid, unique in the process (FoldZone.key). */
let shareSerial = 0;

/** The geometry with every position's first two numbers swapped ([lat, lon] given for [lon, lat]). */
function swapped(g: GeometryRequest): GeometryRequest {
  const swap = (c: unknown): unknown => (Array.isArray(c) && typeof c[0] === 'number' ? [c[1], c[0], ...c.slice(2)] : Array.isArray(c) ? c.map(swap) : c);
  return { ...g, coordinates: swap(g.coordinates) } as GeometryRequest;
}

const WGS84 = '+proj=longlat +datum=WGS84 +no_defs';
/** approx_stats reads the coarsest overview that still gives this many AOI pixels (CONTRACT §5). */
const APPROX_MIN_PIXELS = 1_000_000;
/** Most tiles per worker task: enough to amortise messaging, few enough to bound memory in flight. */
const MAX_TILES_PER_TASK = 4;
/** Worker tasks in flight per request (each holds its tiles' compressed bytes). */
const TASKS_IN_FLIGHT = 4;
/**
 * Zones whose partial statistics are held at once (a pass): kept values (median, unique, …) cost 8–16
 * bytes a pixel until their zone is complete, so a pass ends once this many bytes could be held. Blocks
 * shared by zones of two passes are read once per pass (the decoded-tile cache often spares the decode).
 */
const PASS_STATE_BYTES = 128 * 1024 * 1024;
/** Zones planned between two turns of the event loop. */
const PLAN_SLICE = 64;

function uniqueBands(bands: number[] | undefined): number[] {
  return [...new Set(bands ?? [1])];
}

/** West and east edges (longitudes) of a geographic grid. */
function lonExtent(grid: Grid): [number, number] {
  const xs = [toWorld(grid, 0, 0)[0], toWorld(grid, grid.width, 0)[0], toWorld(grid, 0, grid.height)[0], toWorld(grid, grid.width, grid.height)[0]];
  return [Math.min(...xs), Math.max(...xs)];
}

/** Shifts by whole turns (−720 … 720) that bring longitudes [west, east] onto the grid's extent. */
function turnsOnto(west: number, east: number, grid: Grid): number[] {
  const [gw, ge] = lonExtent(grid);
  return [0, -360, 360, -720, 720].filter((s) => east + s > gw && west + s < ge);
}

/**
 * Longitudes wrap: a lon/lat raster whose extent is any 360° window (0..360 like GFS or ERA5, −30..330, …)
 * is read for AOIs given in −180..180. Each AOI part is placed at every whole-turn shift that meets the
 * grid; copies 360° apart never select the same pixel centre of a grid at most 360° wide.
 */
function wrapPolygons(polygons: MultiPolygonCoords, grid: Grid): MultiPolygonCoords {
  const out: MultiPolygonCoords = [];
  for (const polygon of polygons) {
    let west = Infinity;
    let east = -Infinity;
    for (const [x] of polygon[0] ?? []) {
      if (x < west) west = x;
      if (x > east) east = x;
    }
    const shifts = turnsOnto(west, east, grid);
    if (shifts.length === 0) out.push(polygon);
    for (const s of shifts) out.push(s === 0 ? polygon : polygon.map((ring) => ring.map(([x, y]) => [x + s, y] as [number, number])));
  }
  return out;
}

function projectAoi(aoi: Aoi, reader: RasterReader): AoiInCrs {
  const { crs, levels } = reader.info;
  const grid = (levels[0] as RasterLevel).grid;
  const toCrs = makeTransformer(WGS84, crs.proj4).forward;
  if (aoi.kind === 'point') {
    const p = toCrs([aoi.lon, aoi.lat]);
    if (!Number.isFinite(p[0]) || !Number.isFinite(p[1])) return { point: [Number.NaN, Number.NaN] };
    const shift = crs.isGeographic ? (turnsOnto(p[0], p[0], grid)[0] ?? 0) : 0;
    return { point: [p[0] + shift, p[1]] };
  }
  // Densify so that edges stay true to within 1/100 of a pixel in the raster's CRS.
  const { alongRow, alongColumn } = pixelSize(grid);
  const tolerance = Math.min(alongRow, alongColumn) / 100;
  const polygons = transformPolygons(aoi.polygons, toCrs, tolerance);
  return { polygons: crs.isGeographic ? wrapPolygons(polygons, grid) : polygons };
}

/** What every zone of a request over one raster shares: the reader, the bands, the statistics. */
export interface RasterContext {
  readonly reader: RasterReader;
  readonly bands: number[];
  readonly foldBands: FoldBand[];
  readonly names: StatName[];
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
  /** Band math inputs beyond the primary raster, on its grid (band 1 of each). */
  readonly extras: { reader: RasterReader; level: RasterLevel; bands: FoldBand[] }[];
  /** The class raster of a mask from another raster, read by nearest neighbour. */
  readonly classSource: { reader: RasterReader; level: RasterLevel; nodata: number | null } | null;
}

/** The request's histogram, checked in the user's words (the schema checks the types). */
function parseHistogram(h: RasterRequest['histogram']): HistogramSpec | null {
  if (h === undefined) return null;
  const fail = (detail: string): ZonalError => new ZonalError('validation_failed', detail, { errors: [{ path: '/histogram', message: detail }] });
  if (Array.isArray(h.bins)) {
    if (h.range !== undefined) throw fail('Give the histogram either bin edges or a number of bins with a "range", not both.');
    for (let i = 1; i < h.bins.length; i++)
      if (!((h.bins[i] as number) > (h.bins[i - 1] as number))) throw fail("The histogram's bin edges must increase strictly.");
    return { bins: h.bins };
  }
  if (h.range !== undefined && !(h.range[0] < h.range[1])) throw fail('The histogram\'s "range" must be [low, high] with low below high.');
  return h.range === undefined ? { bins: h.bins } : { bins: h.bins, range: h.range };
}

/**
 * A zone ready to read: its plan, or the problem that is its answer. `share` names a plan that other
 * rasters of the same grid reuse (their workers then reuse its coverage).
 */
export type PlannedZone = { plan: ZonePlan; aoiAreaM2: number; isArea: boolean; share?: string } | { error: unknown };

/** What makes two rasters' plans of a zone the same: the CRS, every level's grid and blocks, the rule. */
function gridSignature(ctx: RasterContext): string {
  const levels = ctx.reader.info.levels.map((l) => {
    const g = l.grid;
    return [g.x0, g.y0, g.dx, g.dy, g.rx, g.ry, g.width, g.height, l.blockWidth, l.blockHeight].join(',');
  });
  return [ctx.reader.info.crs.proj4, ctx.rule, ctx.approx, ...levels].join('\n');
}

/** A named raster input of band math over several rasters (band 1 of each: a STAC Item's assets). */
export interface RasterInput {
  name: string;
  url: string;
  bandDefaults: readonly BandOverride[];
}

/** Rasters beyond the request's one: band math inputs on its grid, and a class raster of another resolution. */
export interface RasterSources {
  /** The expression's inputs; the first is the grid the zones are read on, the others must share it. */
  inputs?: RasterInput[];
  /** The mask's classes (band 1), taken by nearest neighbour onto the grid. */
  classes?: { name: string; url: string; bandDefaults: readonly BandOverride[] };
}

function sameGrid(a: RasterLevel, b: RasterLevel): boolean {
  const g = a.grid;
  const h = b.grid;
  return (
    g.x0 === h.x0 &&
    g.y0 === h.y0 &&
    g.dx === h.dx &&
    g.dy === h.dy &&
    g.rx === h.rx &&
    g.ry === h.ry &&
    g.width === h.width &&
    g.height === h.height &&
    a.blockWidth === b.blockWidth &&
    a.blockHeight === b.blockHeight
  );
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
      if (reader.info.crs.proj4 !== primary.info.crs.proj4 || !sameGrid(level, base)) {
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
function checkProgram(req: Omit<RasterRequest, 'aoi'>): void {
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

/** Opens the raster once for every zone of a request; the request's own problems (source, bands) throw. */
export async function openRasterContext(req: Omit<RasterRequest, 'aoi'>, deps: RasterDeps, sources?: RasterSources): Promise<RasterContext> {
  if (sources?.inputs || sources?.classes) return openMultiContext(req, deps, sources);
  const names = parseStatNames(req.stats ?? DEFAULT_STATS, 'raster');
  checkProgram(req);
  parseHistogram(req.histogram);
  const source = await deps.openSource(req.url);
  const reader = await openRaster(source, deps.signal);
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
  // CONTRACT §5 and issue 5: a bare point always takes its containing pixel, whatever `pixels` says.
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

/** A context from what its opener worked out, the request's own options filled in the same way for both. */
function contextOf(
  req: Omit<RasterRequest, 'aoi'>,
  deps: RasterDeps,
  {
    answered,
    ...parts
  }: Pick<RasterContext, 'reader' | 'bands' | 'foldBands' | 'names' | 'approx' | 'program' | 'extras' | 'classSource'> & { answered: readonly number[] },
): RasterContext {
  return {
    ...parts,
    // The answer's keys: the expression's, or each band asked (with its STAC class names).
    outputs:
      req.expression !== undefined
        ? [{ key: 'expression', classes: undefined }]
        : answered.map((b) => ({ key: `band_${b}`, classes: deps.bandDefaults?.[b - 1]?.classes })),
    rule: req.pixels ?? 'center',
    deps,
    formats: new Map(),
    histogram: parseHistogram(req.histogram),
    categorical: req.categorical === true,
    masked: req.mask !== undefined,
  };
}

/**
 * A request over several rasters: band math over named inputs (band 1 of each, on one grid) and/or a mask
 * from a class raster of another resolution (nearest neighbour). Overviews are not read (approx_stats is
 * refused): each raster's overviews need not match.
 */
async function openMultiContext(req: Omit<RasterRequest, 'aoi'>, deps: RasterDeps, sources: RasterSources): Promise<RasterContext> {
  const names = parseStatNames(req.stats ?? DEFAULT_STATS, 'raster');
  if (req.approx_stats === true)
    throw new ZonalError('validation_failed', 'approx_stats is not available for band math over several assets or a mask from another asset: drop it.');
  const inputs = sources.inputs;
  if (inputs && req.expression === undefined) throw new ZonalError('validation_failed', 'Several assets are read only for an "expression" over them.');
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

/** One zone's plan; a problem of the zone (geometry, area, pixels) throws its ZonalError. */
export function planRasterZone(ctx: RasterContext, geometry: GeometryRequest): { plan: ZonePlan; aoiAreaM2: number; isArea: boolean } {
  const { config } = ctx.deps;
  const aoi = parseAoi(geometry, { maxVertices: config.maxVertices });
  const aoiAreaM2 = aoi.kind === 'area' ? aoi.areaM2 : 0;
  if (!ctx.approx && aoiAreaM2 / 1e6 > config.maxAreaKm2) {
    throw new ZonalError(
      'aoi_too_large',
      `The area of interest covers ${Math.round(aoiAreaM2 / 1e6).toLocaleString('en')} km², above the limit of ${config.maxAreaKm2.toLocaleString('en')} km² (use approx_stats to skip it).`,
      { limit_km2: config.maxAreaKm2, aoi_km2: aoiAreaM2 / 1e6 },
    );
  }
  const plan = planZone(ctx.reader.info.levels, projectAoi(aoi, ctx.reader), ctx.rule, {
    approx: ctx.approx,
    maxPixels: config.maxPixels,
    maxApproxPixels: config.maxApproxPixels,
    approxMinPixels: APPROX_MIN_PIXELS,
  });
  return { plan, aoiAreaM2, isArea: aoi.kind === 'area' };
}

/** Statistics of the raster at `req.url` inside `req.aoi` (CONTRACT §5 raster rules). */
export async function rasterZonalStats(req: RasterRequest, deps: RasterDeps): Promise<StatsResponse> {
  const geometry = geometryOf(req.aoi, req.radius);
  const ctx = await openRasterContext(req, deps);
  const zone = planRasterZone(ctx, geometry);
  if (zone.plan.window === null && deps.onNote) {
    // Count 0 because the AOI misses the raster: say so when [latitude, longitude] would have met it.
    try {
      if (planRasterZone(ctx, swapped(geometry)).plan.window !== null) {
        deps.onNote(
          'The area of interest misses the raster, but with its two coordinates swapped it would meet it: GeoJSON positions are [longitude, latitude].',
        );
      }
    } catch {
      // The swapped geometry is not even valid: nothing to suggest.
    }
  }
  const level = ctx.reader.info.levels[zone.plan.level] as RasterLevel;
  const size = pixelSize(level.grid);
  deps.onLevel?.({ index: level.index, width: level.grid.width, height: level.grid.height, pixelSize: Math.sqrt(size.alongRow * size.alongColumn) });
  for await (const outcome of foldZones(ctx, [zone])) {
    if ('error' in outcome) throw outcome.error;
    return outcome.statistics;
  }
  throw new Error('foldZones ended without an answer');
}

/**
 * The answers of many zones over one raster, in input order, each as soon as it and every zone before it
 * are complete. Zones are planned here (a zone's problem is its answer); the request's problems throw.
 */
export async function* rasterZonesStats(
  req: Omit<RasterRequest, 'aoi'>,
  geometries: readonly (() => GeometryRequest)[],
  deps: RasterDeps,
  sources?: RasterSources,
  /** With deps.plans: each geometry's name, the same for the same geometry in every call of the request. */
  keys?: readonly string[],
): AsyncGenerator<{ statistics: StatsResponse } | { error: unknown }> {
  const ctx = await openRasterContext(req, deps, sources);
  const planned: PlannedZone[] = [];
  const signature = deps.plans && keys ? gridSignature(ctx) : null;
  for (let i = 0; i < geometries.length; i++) {
    const cacheKey = signature === null ? null : `${signature}\n${keys?.[i] ?? ''}`;
    const hit = cacheKey === null ? undefined : deps.plans?.get(cacheKey);
    if (hit !== undefined) {
      planned.push(hit);
      continue;
    }
    let zone: PlannedZone;
    try {
      zone = planRasterZone(ctx, (geometries[i] as () => GeometryRequest)());
      if (cacheKey !== null) zone.share = String(++shareSerial);
    } catch (e) {
      zone = { error: e };
    }
    planned.push(zone);
    if (cacheKey !== null) deps.plans?.set(cacheKey, zone);
    // Planning is main-thread work (projection, tile walks): let other requests in between slices.
    if (i % PLAN_SLICE === PLAN_SLICE - 1) await new Promise<void>((resolve) => setImmediate(resolve));
    if (deps.signal?.aborted) throw deps.signal.reason;
  }
  yield* foldZones(ctx, planned);
}

/** Whether every value is kept though no statistic needs it (a histogram, categorical). */
function keepsAll(ctx: RasterContext): boolean {
  return ctx.histogram !== null || ctx.categorical;
}

/** Bytes a zone's partial statistics may take until it is complete (see PASS_STATE_BYTES). */
function stateBytes(zone: PlannedZone, keepsValues: boolean): number {
  if ('error' in zone) return 0;
  return 1024 + (keepsValues ? zone.plan.pixels * (zone.plan.selection.kind === 'polygon' && zone.plan.selection.rule === 'fractional' ? 16 : 8) : 0);
}

interface Unit {
  level: number;
  block: number;
  /** Positions (in the pass) of the zones that need the block, ascending. */
  zones: number[];
}

/**
 * The engine: zones in passes of bounded state; in a pass, each block is read and decoded once and folds
 * every zone of the pass that needs it. Blocks go in the order of the first zone that needs them, so zones
 * complete (and are handed out) about in input order; a zone is answered when its last block is in.
 */
export async function* foldZones(ctx: RasterContext, zones: readonly PlannedZone[]): AsyncGenerator<{ statistics: StatsResponse } | { error: unknown }> {
  const keepsValues = needsOf(ctx.names).values || keepsAll(ctx);
  for (let start = 0; start < zones.length;) {
    let end = start;
    let bytes = 0;
    do bytes += stateBytes(zones[end] as PlannedZone, keepsValues);
    while (++end < zones.length && bytes + stateBytes(zones[end] as PlannedZone, keepsValues) <= PASS_STATE_BYTES);
    yield* foldPass(ctx, zones.slice(start, end));
    start = end;
  }
}

async function* foldPass(ctx: RasterContext, zones: readonly PlannedZone[]): AsyncGenerator<{ statistics: StatsResponse } | { error: unknown }> {
  const { reader, deps } = ctx;
  const { config, signal } = deps;
  const levels = reader.info.levels;
  // Which zones need each block, per level.
  const byBlock = new Map<string, Unit>();
  const remaining = new Int32Array(zones.length);
  zones.forEach((z, pos) => {
    if ('error' in z) return;
    for (const block of z.plan.blocks) {
      const key = `${z.plan.level}:${block}`;
      let unit = byBlock.get(key);
      if (!unit) byBlock.set(key, (unit = { level: z.plan.level, block, zones: [] }));
      unit.zones.push(pos);
    }
    remaining[pos] = z.plan.blocks.length;
  });
  const units = [...byBlock.values()].sort((a, b) => (a.zones[0] as number) - (b.zones[0] as number) || a.level - b.level || a.block - b.block);
  byBlock.clear();

  // Tasks: runs of units of one level. Small blocks (strips a few rows high) go together up to about
  // MAX_TILES_PER_TASK 512 × 512 tiles' worth of pixels; small requests spread over every worker.
  const tasks: Unit[][] = [];
  for (let i = 0; i < units.length;) {
    const level = levels[(units[i] as Unit).level] as RasterLevel;
    const tilePixels = level.blockWidth * level.blockHeight;
    const maxPerTask = tilePixels < 256 * 256 ? Math.max(MAX_TILES_PER_TASK, Math.floor((MAX_TILES_PER_TASK * 512 * 512) / tilePixels)) : MAX_TILES_PER_TASK;
    const perTask = Math.max(1, Math.min(maxPerTask, Math.ceil(units.length / Math.max(1, config.workers))));
    const run: Unit[] = [];
    while (i < units.length && run.length < perTask && (units[i] as Unit).level === level.index) run.push(units[i++] as Unit);
    tasks.push(run);
  }

  const partials: { block: number; bands: FoldPartial['bands'] }[][] = zones.map(() => []);
  const done: ({ statistics: StatsResponse } | { error: unknown } | undefined)[] = new Array(zones.length);
  const finish = (pos: number): void => {
    const z = zones[pos] as PlannedZone;
    if ('error' in z) {
      done[pos] = z;
      return;
    }
    // Partials merge in block order whatever order the tasks ended in: the same bits as any other request.
    const own = (partials[pos] as { block: number; bands: FoldPartial['bands'] }[]).sort((a, b) => a.block - b.block);
    partials[pos] = [];
    const weighted = weightedOf(z);
    try {
      const { accs, dataAreaM2, classAreas, masked } = mergePartials(
        { names: ctx.names, weighted, bandCount: ctx.outputs.length, keepValues: keepsAll(ctx) },
        own.map((p) => p.bands),
      );
      const statistics: StatsResponse = {};
      ctx.outputs.forEach(({ key, classes }, k) => {
        const acc = accs[k] as (typeof accs)[number];
        const extra: Record<string, unknown> = {};
        if (ctx.masked) extra['masked'] = masked[k] ?? 0;
        if (ctx.histogram) extra['histogram'] = histogramOf(ctx.histogram, acc);
        if (ctx.categorical) extra['classes'] = classesOf(acc, classAreas[k] as Map<number, number>, classes);
        statistics[key] = { ...bandStats(acc, z.aoiAreaM2, z.isArea ? (dataAreaM2[k] ?? 0) : 0), ...extra };
      });
      done[pos] = { statistics };
      tally.pixels += z.plan.pixels;
      tally.zones += 1;
    } catch (e) {
      // A statistic that failed (too many classes) is this zone's problem.
      done[pos] = { error: e };
    }
  };
  zones.forEach((z, pos) => {
    if ('error' in z || remaining[pos] === 0) finish(pos);
  });

  const work = tasks.map((run) => async (): Promise<void> => {
    await deps.slots?.acquire();
    let ran: Awaited<ReturnType<typeof runTask>>;
    try {
      ran = await runTask(ctx, zones, run);
    } finally {
      deps.slots?.release();
    }
    const { result, positions } = ran;
    for (const p of result.partials)
      (partials[positions[p.zone] as number] as { block: number; bands: FoldPartial['bands'] }[]).push({ block: (run[p.block] as Unit).block, bands: p.bands });
    for (const unit of run) for (const pos of unit.zones) if (--remaining[pos] === 0) finish(pos);
  });
  yield* inInputOrder(
    zones.length,
    work,
    TASKS_IN_FLIGHT,
    {
      isDone: (pos) => done[pos] !== undefined,
      take: (pos) => {
        const outcome = done[pos] as { statistics: StatsResponse } | { error: unknown };
        done[pos] = undefined;
        return outcome;
      },
    },
    signal,
  );
}

function weightedOf(zone: { plan: ZonePlan; isArea: boolean }): boolean {
  // Fractional coverage weights pixels (CONTRACT §5 weighted definitions); the other rules count them.
  const sel = zone.plan.selection;
  return zone.isArea && sel.kind === 'polygon' && sel.rule === 'fractional';
}

/** Reads a run of blocks and folds the zones that need them in a worker. */
async function runTask(ctx: RasterContext, zones: readonly PlannedZone[], run: Unit[]): Promise<{ result: FoldResult; positions: number[] }> {
  const { reader, deps } = ctx;
  const level = reader.info.levels[(run[0] as Unit).level] as RasterLevel;
  let format = ctx.formats.get(level.index);
  if (!format) ctx.formats.set(level.index, (format = reader.blockFormat(level, ctx.bands)));
  // The task's own numbering of its zones.
  const local = new Map<number, number>();
  const positions: number[] = [];
  const foldZonesOf: FoldZone[] = [];
  const touches = run.map((unit) =>
    unit.zones.map((pos) => {
      let k = local.get(pos);
      if (k === undefined) {
        const z = zones[pos] as { plan: ZonePlan; isArea: boolean; share?: string };
        local.set(pos, (k = positions.length));
        positions.push(pos);
        foldZonesOf.push({
          selection: z.plan.selection,
          window: z.plan.window as NonNullable<ZonePlan['window']>,
          weighted: weightedOf(z),
          ...(z.share ? { key: z.share } : {}),
        });
      }
      return k;
    }),
  );
  // Per block, the part of it its zones cover: only that is decoded.
  const needs = run.map((unit) => {
    const bw = blockWindow(level, unit.block);
    return (
      unit.zones.reduce<PixelWindow | null>((u, pos) => {
        const w = intersectWindows(bw, (zones[pos] as { plan: ZonePlan }).plan.window as PixelWindow);
        return w ? unionWindows(u, w) : u;
      }, null) ?? bw
    );
  });
  // Planes in the process-wide decoded-tile cache are neither read nor decoded again, when they hold the
  // rows and columns this task needs. Only single-zone requests add to it, a block the second time one asks
  // for it (a request over many zones decodes each block once, and would push out the hot ones).
  const cacheBytes = deps.config.tileCacheBytes;
  const ids = run.map((u) => u.block);
  const keep = run.map(() => false);
  const fromCache = (key: string, k: number): ReturnType<typeof decodedTiles.get> => {
    const plane = decodedTiles.get(key);
    const bw = blockWindow(level, ids[k] as number);
    if (plane && spanCovers(plane.span, spanOf(needs[k] as PixelWindow, bw.col0, bw.row0, level.blockWidth, false))) return plane;
    if (zones.length === 1 && admitted(key)) keep[k] = true;
    return undefined;
  };
  const cs = ctx.classSource;
  // The class blocks under the needed pixels, and the part of each they cover.
  const classNeeds = new Map<number, PixelWindow>();
  if (cs) {
    for (const need of needs) {
      const cells = cellsUnder(level.grid, need, cs.level.grid);
      if (!cells) continue;
      for (const b of blocksUnder(level.grid, need, cs.level)) {
        const part = intersectWindows(blockWindow(cs.level, b), cells);
        if (part) classNeeds.set(b, unionWindows(classNeeds.get(b) ?? null, part));
      }
    }
  }
  const classIds = [...classNeeds.keys()].sort((a, b) => a - b);
  const fetchStart = performance.now();
  const [blocks, extras, classBlocks] = await Promise.all([
    reader.readBlocks(level, ids, ctx.bands, deps.signal, cacheBytes > 0 ? fromCache : undefined),
    // Other rasters of the same grid and tiling: the same blocks; a class raster: the blocks under them.
    Promise.all(
      ctx.extras.map(async (e) => ({ format: e.reader.blockFormat(e.level, [1]), blocks: await e.reader.readBlocks(e.level, ids, [1], deps.signal) })),
    ),
    cs ? cs.reader.readBlocks(cs.level, classIds, [1], deps.signal) : Promise.resolve([]),
  ]);
  const fetchMs = performance.now() - fetchStart;
  const { info } = reader;
  const task: FoldTask = {
    format,
    blocks,
    needs,
    zones: foldZonesOf,
    touches,
    bands: ctx.foldBands,
    area: { grid: level.grid, proj4: info.crs.proj4, isGeographic: info.crs.isGeographic },
    names: ctx.names,
    keepValues: keepsAll(ctx),
    categorical: ctx.categorical,
    program: ctx.program,
    extras,
    ...(ctx.classSource
      ? {
          classes: {
            format: ctx.classSource.reader.blockFormat(ctx.classSource.level, [1]),
            grid: ctx.classSource.level.grid,
            blockWidth: ctx.classSource.level.blockWidth,
            blockHeight: ctx.classSource.level.blockHeight,
            across: Math.ceil(ctx.classSource.level.grid.width / ctx.classSource.level.blockWidth),
            blocks: classBlocks,
            needs: classIds.map((b) => classNeeds.get(b) as PixelWindow),
            nodata: ctx.classSource.nodata,
          },
        }
      : {}),
    // Only single-zone requests add to the cache: a request over many zones decodes each block once, and
    // would push out the tiles that repeated small requests reuse.
    keep,
  };
  try {
    const runStart = performance.now();
    const result = await deps.runner.run(task, deps.signal);
    countFold(result.times, fetchMs, performance.now() - runStart);
    for (const { key, plane } of result.decoded) decodedTiles.put(key, plane, plane.array.buffer.byteLength, cacheBytes);
    return { result, positions };
  } catch (e) {
    if (deps.signal?.aborted) throw e;
    if (e instanceof ZonalError) throw e;
    if (e instanceof Error && /decod|inflate|invalid|unexpected|incorrect|shorter/i.test(e.message)) {
      throw new ZonalError('invalid_source', 'A tile of the raster could not be decoded: the file is corrupt or uses an unsupported encoding.');
    }
    throw e;
  }
}

function bandsFor(reader: RasterReader, bands: number[], defaults: readonly BandOverride[]): FoldBand[] {
  const { info } = reader;
  return bands.map((b) => {
    const fallback = defaults[b - 1] ?? {};
    const scaling = info.scaling[b - 1] ?? { scale: 1, offset: 0 };
    // The file's own values win; the defaults fill in only what the file leaves out.
    const fileScaled = scaling.scale !== 1 || scaling.offset !== 0;
    return {
      nodata: effectiveNodata(info.nodata ?? fallback.nodata ?? null, info.dtype),
      scale: fileScaled ? scaling.scale : (fallback.scale ?? 1),
      offset: fileScaled ? scaling.offset : (fallback.offset ?? 0),
    };
  });
}
