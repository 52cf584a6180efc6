/**
 * `weights`: exactextract's weighting raster, opened and checked against the value raster before any pixel is
 * read. Same CRS, and grids whose cell edges fall on each other's: a weights cell the size of the value cells
 * or a whole multiple of it, so that each value cell lies in one weights cell (read by its centre, exactly).
 * Weights finer than the values (exactextract then computes every statistic on the finer grid) are refused.
 */
import { ZonalError } from '../errors.ts';
import type { Grid } from '../geometry/grid.ts';
import { openRaster, type RasterLevel, type RasterReader } from '../raster/reader.ts';
import { effectiveNodata } from '../raster/pixels.ts';
import type { ByteSource } from '../source/source.ts';
import type { Weighting } from '../stats/weighting.ts';
import type { RasterQuery } from './model.ts';

/** The weighting raster of a request: one band, read by nearest neighbour onto the value raster's cells. */
export interface WeightSource {
  reader: RasterReader;
  level: RasterLevel;
  band: number;
  nodata: number | null;
  scale: number;
  offset: number;
}

const describe = (g: Grid): string => `origin (${g.x0}, ${g.y0}), cells ${Math.abs(g.dx)} × ${Math.abs(g.dy)}, ${g.width} × ${g.height}`;

/** Whether x is a whole number, to a relative 1e-9 (grids written by GDAL round their steps). */
const whole = (x: number): boolean => Math.abs(x - Math.round(x)) <= 1e-9 * Math.max(1, Math.abs(x));

/** Why the weights grid cannot serve the value grid (null: each value cell lies in one weights cell). */
function incompatible(values: Grid, weights: Grid): string | null {
  const both = `the value raster's grid is ${describe(values)}, the weights raster's ${describe(weights)}`;
  if ((values.rx ?? 0) !== 0 || (values.ry ?? 0) !== 0 || (weights.rx ?? 0) !== 0 || (weights.ry ?? 0) !== 0)
    return `a rotated grid cannot be weighted (${both})`;
  if (Math.sign(values.dx) !== Math.sign(weights.dx) || Math.sign(values.dy) !== Math.sign(weights.dy))
    return `the grids run in different directions (${both})`;
  const kx = weights.dx / values.dx;
  const ky = weights.dy / values.dy;
  const aligned = whole((weights.x0 - values.x0) / values.dx) && whole((weights.y0 - values.y0) / values.dy);
  if (kx >= 1 && ky >= 1 && whole(kx) && whole(ky) && aligned) return null;
  if (kx < 1 && ky <= 1 && whole(1 / kx) && whole(1 / ky)) {
    return `weights finer than the values are not supported yet (exactextract then computes on the finer grid): ${both}`;
  }
  return `the cell edges of one do not fall on the other's, as exactextract requires: ${both}`;
}

/** What the check reads of a request's context (raster-context.ts). */
interface Weighable {
  readonly reader: RasterReader;
  readonly approx: boolean;
  readonly channels: readonly { weighting: Weighting; names: readonly string[] }[];
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
  const why = incompatible(values, level.grid);
  if (why !== null) throw new ZonalError('validation_failed', `The weights raster cannot weigh this raster: ${why}.`);
  const scaling = reader.info.scaling[band - 1] ?? { scale: 1, offset: 0 };
  return { reader, level, band, nodata: effectiveNodata(reader.info.nodata, reader.info.dtype), ...scaling };
}
