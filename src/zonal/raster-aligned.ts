/**
 * Rasters laid cell on cell over the value raster, opened and checked before any pixel is read: `weights`
 * (exactextract's weighting raster) and `zones` (zones given as a raster). Same CRS, and grids whose cell
 * edges fall on each other's: cells the size of the value cells or a whole multiple, so that each value cell
 * lies in one of their cells (read by its centre, exactly), or a whole fraction, a value cell then holding
 * nx × ny of them.
 */
import { ZonalError } from '../errors.ts';
import type { Grid } from '../geometry/grid.ts';
import { openRaster, type RasterLevel, type RasterReader } from '../raster/reader.ts';
import { effectiveNodata } from '../raster/pixels.ts';
import type { ByteSource } from '../source/source.ts';
import type { Weighting } from '../stats/weighting.ts';
import { needsOf, type StatName } from '../stats/names.ts';
import type { RasterQuery } from './model.ts';

/** The weighting raster of a request: one band, read by nearest neighbour onto the value raster's cells. */
export interface WeightSource {
  reader: RasterReader;
  level: RasterLevel;
  band: number;
  nodata: number | null;
  scale: number;
  offset: number;
  /** Its cells across and down a value cell when finer (1: each value cell lies in one of its cells). */
  nx: number;
  ny: number;
}

const describe = (g: Grid): string => `origin (${g.x0}, ${g.y0}), cells ${Math.abs(g.dx)} × ${Math.abs(g.dy)}, ${g.width} × ${g.height}`;

/** Whether x is a whole number, to a relative 1e-9 (grids written by GDAL round their steps). */
const whole = (x: number): boolean => Math.abs(x - Math.round(x)) <= 1e-9 * Math.max(1, Math.abs(x));

/**
 * How the other grid lies on the value grid: `{nx: 1, ny: 1}` when each value cell lies in one of its cells,
 * the number of its cells across and down a value cell when it is finer; or why it cannot.
 */
function alignment(values: Grid, weights: Grid, role: 'weights' | 'zones'): { nx: number; ny: number } | string {
  // Finer: nx × ny of its cells in each value cell (weighted statistics then count those, as exactextract).
  const both = `the value raster's grid is ${describe(values)}, the ${role} raster's ${describe(weights)}`;
  if ((values.rx ?? 0) !== 0 || (values.ry ?? 0) !== 0 || (weights.rx ?? 0) !== 0 || (weights.ry ?? 0) !== 0)
    return `a rotated grid cannot be weighted (${both})`;
  if (Math.sign(values.dx) !== Math.sign(weights.dx) || Math.sign(values.dy) !== Math.sign(weights.dy))
    return `the grids run in different directions (${both})`;
  const kx = weights.dx / values.dx;
  const ky = weights.dy / values.dy;
  const aligned = whole((weights.x0 - values.x0) / values.dx) && whole((weights.y0 - values.y0) / values.dy);
  if (kx >= 1 && ky >= 1 && whole(kx) && whole(ky) && aligned) return { nx: 1, ny: 1 };
  const fineAligned = whole((weights.x0 - values.x0) / weights.dx) && whole((weights.y0 - values.y0) / weights.dy);
  if (kx <= 1 && ky <= 1 && whole(1 / kx) && whole(1 / ky) && fineAligned) return { nx: Math.round(1 / kx), ny: Math.round(1 / ky) };
  return `the cell edges of one do not fall on the other's, as exactextract requires: ${both}`;
}

/** What the check reads of a request's context (raster-context.ts). */
interface Weighable {
  readonly reader: RasterReader;
  readonly approx: boolean;
  readonly channels: readonly { weighting: Weighting; names: readonly StatName[] }[];
}

/**
 * The request's weighting raster, opened and checked (undefined: none given); a weighted_* statistic without
 * one is a 422.
 */
export async function openWeights(
  ctx: Weighable,
  req: RasterQuery,
  deps: { openSource(url: string): Promise<ByteSource>; signal?: AbortSignal },
): Promise<WeightSource | undefined> {
  const weighted = ctx.channels.filter((c) => c.weighting.byWeights).flatMap((c) => c.names);
  if (!req.weights) {
    if (weighted.length === 0) return undefined;
    const list = weighted.map((n) => `'${n}'`).join(', ');
    throw new ZonalError(
      'validation_failed',
      `${list} weigh${weighted.length > 1 ? '' : 's'} each pixel by a weighting raster: give "weights": {"url": …, "band": 1}.`,
      {
        errors: [{ path: '/weights', message: 'required by the weighted statistics' }],
      },
    );
  }
  if (ctx.approx) throw new ZonalError('validation_failed', 'approx_stats reads an overview, which weights cannot be laid on: drop it.');
  if (req.weights.url === undefined) {
    const why =
      req.weights.asset === undefined ? 'names its raster by "url"' : 'names an "asset" on the STAC endpoints only; here it names its raster by "url"';
    throw new ZonalError('validation_failed', `"weights" ${why}.`, { errors: [{ path: '/weights', message: 'needs a url' }] });
  }
  const reader = await openRaster(await deps.openSource(req.weights.url), deps.signal);
  const band = req.weights.band ?? 1;
  if (band > reader.info.bandCount) {
    throw new ZonalError('unknown_band', `The weights raster has no band ${band}: it has ${reader.info.bandCount}.`, { band_count: reader.info.bandCount });
  }
  const values = (ctx.reader.info.levels[0] as RasterLevel).grid;
  const level = reader.info.levels[0] as RasterLevel;
  if (reader.info.crs.proj4 !== ctx.reader.info.crs.proj4) {
    throw new ZonalError(
      'validation_failed',
      'The weights raster is not in the CRS of the value raster: weights are laid cell on cell (reproject one onto the other first).',
    );
  }
  const fit = alignment(values, level.grid, 'weights');
  if (typeof fit === 'string') throw new ZonalError('validation_failed', `The weights raster cannot weigh this raster: ${fit}.`);
  const perCell = ctx.channels.filter((c) => c.weighting.byWeights && needsOf(c.names).cells).flatMap((c) => c.names.filter((n) => needsOf([n]).cells));
  if ((fit.nx > 1 || fit.ny > 1) && perCell.length > 0) {
    throw new ZonalError(
      'validation_failed',
      `${perCell.map((n) => `'${n}'`).join(', ')} would list the cells of the weights' finer grid (as exactextract does), which this service does not: drop ${perCell.length > 1 ? 'them' : 'it'}, or give weights of the value cells' size or coarser.`,
    );
  }
  const nodata64 = reader.info.nodata64 ?? null;
  if (nodata64 !== null && (nodata64 >= 2n ** 53n || nodata64 <= -(2n ** 53n))) {
    // Weights are read as float64: past 2⁵³ a weight and the nodata could be one number (2⁶⁴ − 1 and 2⁶⁴ − 2).
    throw new ZonalError(
      'validation_failed',
      `The weights raster's nodata (${nodata64}) lies beyond 2⁵³, where ${reader.info.dtype} weights cannot be told from it exactly: give weights as float64 or a 32-bit type.`,
    );
  }
  const scaling = reader.info.scaling[band - 1] ?? { scale: 1, offset: 0 };
  return { reader, level, band, nodata: effectiveNodata(reader.info.nodata, reader.info.dtype), ...scaling, ...fit };
}

/** A zones raster (zones given as a raster): one band, laid on the value raster's cells; nx × ny of its cells in a value cell when finer. */
export interface ZoneRaster {
  reader: RasterReader;
  level: RasterLevel;
  band: number;
  nodata: number | null;
  nx: number;
  ny: number;
}

/** Zone values become row keys and are compared as numbers: a 64-bit zone id past 2⁵³ could name two zones. */
const ZONE_TYPES_REFUSED = new Set(['int64', 'uint64']);

/** The request's zones raster, opened and checked against the value raster (`req.zones.url`; the STAC endpoint resolved its asset). */
export async function openZoneRaster(
  ctx: { readonly reader: RasterReader; readonly approx: boolean },
  req: RasterQuery,
  deps: { openSource(url: string): Promise<ByteSource>; signal?: AbortSignal },
): Promise<ZoneRaster> {
  const zones = req.zones ?? {};
  if (zones.url === undefined) {
    const why = zones.asset === undefined ? 'names its raster by "url"' : 'names an "asset" on raster/stac only; here it names its raster by "url"';
    throw new ZonalError('validation_failed', `"zones" ${why}.`, { errors: [{ path: '/zones', message: 'needs a url' }] });
  }
  if (ctx.approx) throw new ZonalError('validation_failed', 'approx_stats reads an overview, which a zones raster cannot be laid on: drop it.');
  const reader = await openRaster(await deps.openSource(zones.url), deps.signal);
  const band = zones.band ?? 1;
  if (band > reader.info.bandCount) {
    throw new ZonalError('unknown_band', `The zones raster has no band ${band}: it has ${reader.info.bandCount}.`, { band_count: reader.info.bandCount });
  }
  if (ZONE_TYPES_REFUSED.has(reader.info.dtype)) {
    throw new ZonalError(
      'validation_failed',
      `The zones raster holds ${reader.info.dtype} values: zone ids must fit a 32-bit integer or a float (convert it to Int32).`,
    );
  }
  if (reader.info.crs.proj4 !== ctx.reader.info.crs.proj4) {
    throw new ZonalError(
      'validation_failed',
      'The zones raster is not in the CRS of the value raster: zones are laid cell on cell (reproject one onto the other first).',
    );
  }
  const level = reader.info.levels[0] as RasterLevel;
  const fit = alignment((ctx.reader.info.levels[0] as RasterLevel).grid, level.grid, 'zones');
  if (typeof fit === 'string') throw new ZonalError('validation_failed', `The zones raster cannot be laid on this raster: ${fit}.`);
  return { reader, level, band, nodata: effectiveNodata(reader.info.nodata, reader.info.dtype), ...fit };
}
