/**
 * A raster answer over a mosaic of STAC Items (zones × time, `mosaic: "day"`): the zones are planned and
 * read on the answered Item's raster; the other Items' rasters (the same assets) are opened here and read by
 * nearest neighbour in the fold (mosaic-layers.ts, raster/fold-mosaic.ts), the first valid value in search
 * order taken at each pixel. What cannot be merged exactly is refused by name (422).
 */
import { ZonalError } from '../errors.ts';
import { makeTransformer } from '../geometry/reproject.ts';
import { openRaster, type RasterLevel } from '../raster/reader.ts';
import type { FoldBand } from '../raster/fold.ts';
import { bandsFor, type RasterContext, type RasterInput } from './raster-context.ts';
import type { OpenLayer } from './mosaic-layers.ts';

/** An Item's raster in a mosaic: the Item's id (for messages) and the asset. */
export interface MosaicEntry {
  item: string;
  input: RasterInput;
}

/** The Items of a mosaic, in search order, for each raster the answer reads. */
export interface MosaicInput {
  /** Per raster of the answer (the asset, or band math's assets in order): each Item's; null where the answered Item stands. */
  rasters: (MosaicEntry | null)[][];
  /** A mask's class asset in each Item (the answered one's too). */
  classes?: MosaicEntry[];
}

const PLAIN: FoldBand = { nodata: null, scale: 1, offset: 0 };

/** One Item's raster, opened and checked: its bands exist, its CRS is the answer's or reprojectable onto it. */
async function openLayer(ctx: RasterContext, { item, input }: MosaicEntry, bands: number[], classes: boolean): Promise<OpenLayer> {
  const { deps } = ctx;
  const reader = await openRaster(await deps.openSource(input.url), deps.signal);
  const { bandCount, crs } = reader.info;
  const missing = bands.filter((b) => b > bandCount);
  if (missing.length > 0) {
    throw new ZonalError(
      'unknown_band',
      `Band ${missing.join(', ')} does not exist in the asset "${input.name}" of Item "${item}": it has ${bandCount} band${bandCount === 1 ? '' : 's'}.`,
      { band_count: bandCount },
    );
  }
  const own = ctx.reader.info.crs.proj4;
  if (crs.proj4 !== own) {
    try {
      makeTransformer(own, crs.proj4);
    } catch {
      throw new ZonalError('mosaic_unsupported', `The asset "${input.name}" of Item "${item}" is in a CRS that cannot be reprojected onto the mosaic's grid.`);
    }
  }
  const foldBands = bandsFor(reader, bands, input.bandDefaults);
  return {
    reader,
    level: reader.info.levels[0] as RasterLevel,
    bands,
    // Classes are compared raw, as the mask's include and exclude name them.
    foldBands: classes ? foldBands.map((b) => ({ ...b, scale: 1, offset: 0 })) : foldBands,
    ...(crs.proj4 !== own ? { crs: { from: own, to: crs.proj4 } } : {}),
  };
}

/** The context of a mosaic's answer: the other Items' rasters opened, the task's bands plain values. */
export async function openMosaic(ctx: RasterContext, input: MosaicInput): Promise<RasterContext> {
  // The bands of each raster of the answer: the primary's own, band 1 of each other asset of band math.
  const sizes = [ctx.bands, ...ctx.extras.map(() => [1])];
  const own = [ctx.foldBands.slice(0, ctx.bands.length), ...ctx.extras.map((e) => e.bands)];
  const rasters = await Promise.all(
    input.rasters.map((entries, r) => Promise.all(entries.map((e) => (e === null ? null : openLayer(ctx, e, sizes[r] as number[], false))))),
  );
  const classes = input.classes ? await Promise.all(input.classes.map((e) => openLayer(ctx, e, [1], true))) : undefined;
  // A mask band is compared raw: the mosaic's values are scaled.
  const m = ctx.program?.mask?.band ?? -1;
  if (m >= 0) {
    const maskBands = [(own[0] as FoldBand[])[m], ...(rasters[0] ?? []).map((l) => l?.foldBands[m])];
    if (maskBands.some((b) => b !== undefined && (b.scale !== 1 || b.offset !== 0))) {
      throw new ZonalError('mosaic_unsupported', 'A mask band with a scale or offset cannot be mosaicked: mask with a classification asset instead.');
    }
  }
  return {
    ...ctx,
    foldBands: ctx.foldBands.map(() => PLAIN),
    classSource: null,
    mosaic: { rasters, own, ...(classes ? { classes } : {}) },
  };
}
