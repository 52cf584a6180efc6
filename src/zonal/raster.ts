/**
 * The raster use case, top to bottom (ARCHITECTURE §1):
 * validate → open source → open raster → plan window and tiles → fetch tiles → fold (workers) → respond.
 * All I/O arrives through `deps`, so tests can run it on any ByteSource.
 */
import { ZonalError } from '../errors.ts';
import type { Config } from '../config.ts';
import type { ByteSource } from '../source/source.ts';
import type { RasterRequest } from '../schemas/raster.ts';
import type { StatsResponse } from '../schemas/response.ts';
import { DEFAULT_STATS } from '../schemas/common.ts';
import { parseAoi } from '../geometry/aoi.ts';
import { geometryOf } from './zones.ts';
import { makeTransformer, transformPolygons } from '../geometry/reproject.ts';
import type { Aoi, MultiPolygonCoords } from '../geometry/types.ts';
import { parseStatNames, type StatName } from '../stats/names.ts';
import { createAccumulator } from '../stats/accumulator.ts';
import { openRaster, type RasterLevel, type RasterReader } from '../raster/reader.ts';
import { intersectWindows, pixelSize, toPixel, toWorld, windowSize, type Grid, type PixelWindow } from '../raster/grid.ts';
import { centerCoverage } from '../coverage/center.ts';
import { chooseLevel, tilesTouched, toPixelGeometry, windowOf } from '../raster/window.ts';
import { effectiveNodata } from '../raster/pixels.ts';
import type { FoldBand, FoldResult, FoldTask, FoldTile, Selection } from './fold.ts';
import type { PixelRule } from '../coverage/coverage.ts';
import { mergeFoldResults } from './fold.ts';
import { bandStats } from './respond.ts';
import { mapLimit } from './limit.ts';
import type { FoldRunner } from '../workers/pool.ts';
import type { BandOverride } from '../stac/item.ts';

export interface RasterDeps {
  config: Config;
  openSource(url: string): Promise<ByteSource>;
  runner: FoldRunner;
  signal?: AbortSignal;
  /** Per-band nodata/scale/offset to use where the file has none (STAC raster:bands), index 0 = band 1. */
  bandDefaults?: readonly BandOverride[];
}

const WGS84 = '+proj=longlat +datum=WGS84 +no_defs';
/** approx_stats reads the coarsest overview that still gives this many AOI pixels (CONTRACT §5). */
const APPROX_MIN_PIXELS = 1_000_000;
/** Most tiles per worker task: enough to amortise messaging, few enough to bound memory in flight. */
const MAX_TILES_PER_TASK = 8;
/** Worker tasks in flight per request (each holds its tiles' compressed bytes). */
const TASKS_IN_FLIGHT = 4;

function uniqueBands(bands: number[] | undefined): number[] {
  return [...new Set(bands ?? [1])];
}

/** What the AOI selects on a level: pixel-space geometry or a point, and its window. */
interface Plan {
  level: RasterLevel;
  selection: Selection;
  window: PixelWindow | null;
  geometry: MultiPolygonCoords | null;
  /** Pixels of the windows of the AOI's parts (what the pixel limits count; the parts may lie far apart). */
  pixels: number;
}

function planOn(level: RasterLevel, aoiInCrs: { point: [number, number] } | { polygons: MultiPolygonCoords }, rule: PixelRule): Plan {
  const { grid } = level;
  if ('point' in aoiInCrs) {
    const [col, row] = toPixel(grid, aoiInCrs.point[0], aoiInCrs.point[1]);
    const c = Math.floor(col);
    const r = Math.floor(row);
    const inside = c >= 0 && r >= 0 && c < grid.width && r < grid.height;
    return {
      level,
      selection: { kind: 'point', col, row },
      window: inside ? { col0: c, row0: r, width: 1, height: 1 } : null,
      geometry: null,
      pixels: inside ? 1 : 0,
    };
  }
  const geometry = toPixelGeometry(grid, aoiInCrs.polygons);
  const window = windowOf(geometry, grid);
  const parts = geometry.reduce((n, part) => {
    const w = windowOf([part], grid);
    return n + (w ? windowSize(w) : 0);
  }, 0);
  return { level, selection: { kind: 'polygon', geometry, rule }, window, geometry, pixels: window ? Math.min(parts, windowSize(window)) : 0 };
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

function projectAoi(aoi: Aoi, reader: RasterReader): { point: [number, number] } | { polygons: MultiPolygonCoords } {
  const { crs, levels } = reader.info;
  const grid = (levels[0] as RasterLevel).grid;
  const toCrs = makeTransformer(WGS84, crs.proj4).forward;
  if (aoi.kind === 'point') {
    const p = toCrs([aoi.lon, aoi.lat]);
    if (!Number.isFinite(p[0]) || !Number.isFinite(p[1])) return { point: [Number.NaN, Number.NaN] };
    const shift = crs.isGeographic ? turnsOnto(p[0], p[0], grid)[0] ?? 0 : 0;
    return { point: [p[0] + shift, p[1]] };
  }
  // Densify so that edges stay true to within 1/100 of a pixel in the raster's CRS.
  const { alongRow, alongColumn } = pixelSize(grid);
  const tolerance = Math.min(alongRow, alongColumn) / 100;
  const polygons = transformPolygons(aoi.polygons, toCrs, tolerance);
  return { polygons: crs.isGeographic ? wrapPolygons(polygons, grid) : polygons };
}

/** Statistics of the raster at `req.url` inside `req.aoi` (CONTRACT §5 raster rules). */
export async function rasterZonalStats(req: RasterRequest, deps: RasterDeps): Promise<StatsResponse> {
  const { config } = deps;
  const names = parseStatNames(req.stats ?? DEFAULT_STATS, 'raster');
  const bands = uniqueBands(req.bands);
  const approx = req.approx_stats === true;
  const aoi = parseAoi(geometryOf(req.aoi, req.radius), { maxVertices: config.maxVertices });
  const aoiAreaM2 = aoi.kind === 'area' ? aoi.areaM2 : 0;
  if (!approx && aoiAreaM2 / 1e6 > config.maxAreaKm2) {
    throw new ZonalError(
      'aoi_too_large',
      `The area of interest covers ${Math.round(aoiAreaM2 / 1e6).toLocaleString('en')} km², above the limit of ${config.maxAreaKm2.toLocaleString('en')} km² (use approx_stats to skip it).`,
      { limit_km2: config.maxAreaKm2, aoi_km2: aoiAreaM2 / 1e6 },
    );
  }

  const source = await deps.openSource(req.url);
  const reader = await openRaster(source, deps.signal);
  const { info } = reader;
  const missing = bands.filter((b) => b > info.bandCount);
  if (missing.length > 0) {
    throw new ZonalError(
      'unknown_band',
      `Band ${missing.join(', ')} does not exist: the raster has ${info.bandCount} band${info.bandCount === 1 ? '' : 's'}.`,
      { band_count: info.bandCount },
    );
  }

  const aoiInCrs = projectAoi(aoi, reader);
  // CONTRACT §5 and issue 5: a bare point always takes its containing pixel, whatever `pixels` says.
  const rule: PixelRule = req.pixels ?? 'center';
  const base = planOn(info.levels[0] as RasterLevel, aoiInCrs, rule);
  let plan = base;
  if (approx && base.window && aoi.kind === 'area') {
    const plans = info.levels.map((level) => (level.index === 0 ? base : planOn(level, aoiInCrs, rule)));
    const chosen = chooseLevel(plans.length, (i) => plans[i]?.pixels ?? 0, APPROX_MIN_PIXELS);
    plan = plans[chosen] as Plan;
    if (plan.pixels > config.maxApproxPixels) {
      throw new ZonalError(
        'too_many_pixels',
        `Even at its coarsest overview the area of interest covers ${plan.pixels.toLocaleString('en')} pixels, above the hard limit of ${config.maxApproxPixels.toLocaleString('en')}.`,
        { limit_pixels: config.maxApproxPixels },
      );
    }
  } else if (!approx && base.pixels > config.maxPixels) {
    throw new ZonalError(
      'too_many_pixels',
      `The area of interest covers a window of ${base.pixels.toLocaleString('en')} pixels, above the limit of ${config.maxPixels.toLocaleString('en')} (use approx_stats to read an overview).`,
      { limit_pixels: config.maxPixels, window_pixels: base.pixels },
    );
  }

  // Fractional coverage weights pixels (CONTRACT §5 weighted definitions); the other rules count them.
  const weighted = rule === 'fractional' && aoi.kind === 'area';
  const foldBands = bandsFor(reader, bands, deps.bandDefaults ?? []);
  // Decoded tiles are cached under the object's validator only: without one a change could not be seen.
  const validator = (source as { validator?: () => string | undefined }).validator?.();
  const tileKey = validator === undefined ? null : `${req.url}\n${validator}\n${plan.level.index}`;
  const results = plan.window ? await readAndFold(reader, plan, plan.window, foldBands, names, weighted, deps, tileKey) : [];
  const { accs, dataAreaM2 } = mergeFoldResults({ names, weighted, bands: foldBands }, results);
  const response: StatsResponse = {};
  bands.forEach((b, k) => {
    const acc = accs[k] ?? createAccumulator({ names, weighted });
    response[`band_${b}`] = bandStats(acc, aoiAreaM2, aoi.kind === 'area' ? (dataAreaM2[k] ?? 0) : 0);
  });
  return response;
}

function bandsFor(reader: RasterReader, bands: number[], defaults: readonly BandOverride[]): FoldBand[] {
  const { info } = reader;
  const planar = (info.levels[0] as RasterLevel).ifd.codec.planarConfiguration === 2;
  return bands.map((b, k) => {
    const fallback = defaults[b - 1] ?? {};
    const scaling = info.scaling[b - 1] ?? { scale: 1, offset: 0 };
    // The file's own values win; the defaults fill in only what the file leaves out.
    const fileScaled = scaling.scale !== 1 || scaling.offset !== 0;
    return {
      band: b,
      sample: planar ? 0 : b - 1,
      plane: planar ? k : 0,
      nodata: effectiveNodata(info.nodata ?? fallback.nodata ?? null, info.dtype),
      scale: fileScaled ? scaling.scale : fallback.scale ?? 1,
      offset: fileScaled ? scaling.offset : fallback.offset ?? 0,
    };
  });
}

/**
 * The tiles to fetch: those the AOI touches; under the pixel-centre rule a tile that an AOI edge only
 * clips is kept only if it holds a selected pixel centre (its bytes would buy nothing).
 */
function tilesToRead(geometry: MultiPolygonCoords, window: PixelWindow, layout: Parameters<typeof tilesTouched>[2], selection: Selection): [number, number][] {
  const rule = selection.kind === 'polygon' ? selection.rule : 'center';
  return tilesTouched(geometry, window, layout)
    .filter(({ tx, ty, edge }) => {
      if (!edge || rule !== 'center') return true;
      const tileWin = intersectWindows({ col0: tx * layout.tileWidth, row0: ty * layout.tileHeight, width: layout.tileWidth, height: layout.tileHeight }, window);
      return tileWin !== null && centerCoverage(geometry, tileWin).weights.some((w) => w > 0);
    })
    .map(({ tx, ty }) => [tx, ty] as [number, number]);
}

async function readAndFold(
  reader: RasterReader,
  plan: Plan,
  window: PixelWindow,
  foldBands: FoldBand[],
  names: StatName[],
  weighted: boolean,
  deps: RasterDeps,
  tileKey: string | null,
): Promise<FoldResult[]> {
  const { level, selection } = plan;
  const { ifd, mask, grid } = level;
  const layout = {
    tileWidth: ifd.tileWidth,
    tileHeight: ifd.tileHeight,
    across: Math.ceil(ifd.width / ifd.tileWidth),
    down: Math.ceil(ifd.height / ifd.tileHeight),
  };
  const tiles = plan.geometry === null ? [[Math.floor(window.col0 / layout.tileWidth), Math.floor(window.row0 / layout.tileHeight)] as [number, number]] : tilesToRead(plan.geometry, window, layout, selection);
  const perBand = layout.across * layout.down;
  const planar = ifd.codec.planarConfiguration === 2;
  const { info } = reader;
  const fill = info.nodata !== null && Number.isFinite(info.nodata) ? info.nodata : 0;

  // A batch's tiles (all their planes, and their mask tiles) are read together: ranges close in the file
  // are merged into one request (reader.readTiles), so a window of one-row strips is a few reads.
  const fetchTiles = async (batch: [number, number][]): Promise<FoldTile[]> => {
    const indexes = batch.map(([tx, ty]) => ty * layout.across + tx);
    const planeIndexes = indexes.map((index) => (planar ? foldBands.map((fb) => (fb.band - 1) * perBand + index) : [index]));
    const [planes, masks] = await Promise.all([
      reader.readTiles(ifd, planeIndexes.flat(), deps.signal),
      mask ? reader.readTiles(mask, indexes, deps.signal) : Promise.resolve(indexes.map(() => null)),
    ]);
    let p = 0;
    return batch.map(([tx, ty], k) => {
      const own = planeIndexes[k] as number[];
      const tilePlanes = planes.slice(p, p + own.length);
      p += own.length;
      const keys = own.map((i) => (tileKey === null ? null : `${tileKey}\n${i}`));
      return { col0: tx * layout.tileWidth, row0: ty * layout.tileHeight, planes: tilePlanes, mask: masks[k] ?? null, keys };
    });
  };

  // Spread small queries over every worker (2 tiles → 2 tasks), cap big ones.
  // Small blocks (strips a few rows high) go together up to about MAX_TILES_PER_TASK 512 × 512 tiles' worth of
  // pixels; real tiles at most MAX_TILES_PER_TASK per task.
  const tilePixels = layout.tileWidth * layout.tileHeight;
  const maxPerTask = tilePixels < 256 * 256 ? Math.max(MAX_TILES_PER_TASK, Math.floor((MAX_TILES_PER_TASK * 512 * 512) / tilePixels)) : MAX_TILES_PER_TASK;
  const perTask = Math.max(1, Math.min(maxPerTask, Math.ceil(tiles.length / Math.max(1, deps.config.workers))));
  const batches: [number, number][][] = [];
  for (let i = 0; i < tiles.length; i += perTask) batches.push(tiles.slice(i, i + perTask));
  const task = (batchTiles: FoldTile[]): FoldTask => ({
    codec: ifd.codec,
    maskCodec: mask?.codec ?? null,
    levelWidth: grid.width,
    levelHeight: grid.height,
    tiles: batchTiles,
    bands: foldBands,
    selection,
    window,
    area: selection.kind === 'point' ? null : { grid, proj4: info.crs.proj4, isGeographic: info.crs.isGeographic },
    names,
    weighted,
    fill,
    hasMask: mask !== null,
    // Each worker keeps its share of the configured decoded-tile cache.
    tileCacheBytes: Math.floor(deps.config.tileCacheBytes / Math.max(1, deps.config.workers)),
  });
  return mapLimit(batches, TASKS_IN_FLIGHT, async (batch) => {
    const fetched = await fetchTiles(batch);
    try {
      return await deps.runner.run(task(fetched), deps.signal);
    } catch (e) {
      if (deps.signal?.aborted) throw e;
      if (e instanceof ZonalError) throw e;
      if (e instanceof Error && /decod|inflate|invalid|unexpected|incorrect|shorter/i.test(e.message)) {
        throw new ZonalError('invalid_source', 'A tile of the raster could not be decoded: the file is corrupt or uses an unsupported encoding.');
      }
      throw e;
    }
  });
}
