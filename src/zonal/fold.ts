/**
 * The one place where a Coverage meets pixel values (ARCHITECTURE §1): decode a batch of tiles, select
 * the AOI's pixels in each, apply validity and scale/offset, feed one accumulator per band. Runs in a
 * worker thread (src/workers/fold-worker.ts) or inline; its input and output are plain cloneable data.
 */
import type { TileCodec } from '../raster/geotiff-adapter.ts';
import { decompress } from '../raster/codecs/index.ts';
import { toSamples, type SampleView } from '../raster/samples.ts';
import { unpackMask } from '../raster/pixels.ts';
import { intersectWindows, type PixelWindow } from '../raster/grid.ts';
import { pixelAreas, type PixelAreaSpec } from '../raster/pixel-area.ts';
import { centerCoverage } from '../coverage/center.ts';
import { pointCoverage } from '../coverage/point.ts';
import { allTouchedCoverage } from '../coverage/all-touched.ts';
import { fractionalCoverage } from '../coverage/fractional.ts';
import type { Coverage, PixelGeometry, PixelRule } from '../coverage/coverage.ts';
import { createAccumulator, restoreAccumulator, type AccumulatorSnapshot, type StatsAccumulator } from '../stats/accumulator.ts';
import type { StatName } from '../stats/names.ts';
import { TileCache } from '../raster/tile-cache.ts';

export interface FoldTile {
  /** Pixel origin of the tile on the level grid. */
  col0: number;
  row0: number;
  /** Compressed bytes per plane: one plane for pixel-interleaved files, one per band for band-separate; null = sparse tile. */
  planes: (ArrayBuffer | null)[];
  /** Compressed mask tile; null when the file has no mask (or the mask tile is sparse: all invalid). */
  mask: ArrayBuffer | null;
  /** Per plane, the key of its decoded tile in this thread's tile cache (null: not cacheable). */
  keys?: (string | null)[];
}

export interface FoldBand {
  /** 1-based band number in the file. */
  band: number;
  /** Sample index within a pixel-interleaved tile (0 for band-separate planes). */
  sample: number;
  /** Index into FoldTile.planes. */
  plane: number;
  /** Raw nodata value as the band's samples can hold it (see effectiveNodata), or null. */
  nodata: number | null;
  scale: number;
  offset: number;
}

export type Selection =
  | { kind: 'polygon'; geometry: PixelGeometry; rule: PixelRule }
  | { kind: 'point'; col: number; row: number };

export interface FoldTask {
  codec: TileCodec;
  maskCodec: TileCodec | null;
  /** Size of the level grid (for edge tiles and strips). */
  levelWidth: number;
  levelHeight: number;
  tiles: FoldTile[];
  bands: FoldBand[];
  selection: Selection;
  /** The AOI's window on the level grid, clipped to the raster. */
  window: PixelWindow;
  /** Null for a bare point (its data_area is 0 by contract). */
  area: PixelAreaSpec | null;
  names: StatName[];
  weighted: boolean;
  /** Raw value of sparse tiles (GDAL: nodata, else 0). */
  fill: number;
  /** Whether the file has a mask at this level (a sparse mask tile then means "all masked"). */
  hasMask: boolean;
  /** Bytes of decoded tiles this thread may keep (0: none). */
  tileCacheBytes?: number;
}

export interface FoldResult {
  bands: { acc: AccumulatorSnapshot; dataAreaM2: number }[];
}

function coverageFor(task: FoldTask, win: PixelWindow): Coverage | null {
  const sel = task.selection;
  if (sel.kind === 'point') {
    const cov = pointCoverage(sel.col, sel.row, { width: task.levelWidth, height: task.levelHeight });
    return cov && intersectWindows(cov.window, win) ? cov : null;
  }
  switch (sel.rule) {
    case 'all_touched':
      return allTouchedCoverage(sel.geometry, win);
    case 'fractional':
      return fractionalCoverage(sel.geometry, win);
    default:
      return centerCoverage(sel.geometry, win);
  }
}

/** This thread's decoded tiles (raster/tile-cache.ts). */
export const decodedTiles = new TileCache<SampleView>();

async function decodePlane(codec: TileCodec, bytes: ArrayBuffer | null, rows: number, samples: number, key: string | null, cacheBytes: number): Promise<SampleView | null> {
  if (bytes === null) return null;
  const cached = key !== null && cacheBytes > 0 ? decodedTiles.get(key) : undefined;
  if (cached) return cached;
  const view = toSamples(codec, await decompress(codec, bytes), rows);
  if (view.array.length < samples) throw new Error('decoded tile is shorter than expected');
  if (key !== null && cacheBytes > 0) decodedTiles.put(key, view, view.array.byteLength, cacheBytes);
  return view;
}

/** Folds a batch of tiles into per-band accumulators. */
export async function foldTiles(task: FoldTask): Promise<FoldResult> {
  const accs: StatsAccumulator[] = task.bands.map(() => createAccumulator({ names: task.names, weighted: task.weighted }));
  const dataArea = task.bands.map(() => 0);
  const { codec } = task;
  const tw = codec.tileWidth;
  const spp = codec.planarConfiguration === 1 ? codec.samplesPerPixel : 1;
  for (const tile of task.tiles) {
    // Decoded tiles are always tileWidth wide; strips at the bottom may be shorter.
    const tileRows = Math.min(codec.tileHeight, task.levelHeight - tile.row0);
    const tileCols = Math.min(tw, task.levelWidth - tile.col0);
    const tileWin: PixelWindow = { col0: tile.col0, row0: tile.row0, width: tileCols, height: tileRows };
    const win = intersectWindows(tileWin, task.window);
    if (!win) continue;
    const cov = coverageFor(task, win);
    if (!cov) continue;
    const planes = await Promise.all(tile.planes.map((p, k) => decodePlane(codec, p, tileRows, tw * tileRows * spp, tile.keys?.[k] ?? null, task.tileCacheBytes ?? 0)));
    let mask: Uint8Array | null = null;
    if (task.hasMask && task.maskCodec) {
      mask = tile.mask
        ? unpackMask(task.maskCodec, (await decompress(task.maskCodec, tile.mask)).bytes, task.maskCodec.tileWidth, Math.min(task.maskCodec.tileHeight, task.levelHeight - tile.row0))
        : new Uint8Array(tw * tileRows);
    }
    const areas = task.area ? pixelAreas(task.area, cov.window) : null;
    const cw = cov.window;
    const maskWidth = task.maskCodec?.tileWidth ?? tw;
    for (let b = 0; b < task.bands.length; b++) {
      const band = task.bands[b] as FoldBand;
      const acc = accs[b] as StatsAccumulator;
      const view = planes[band.plane] ?? null;
      const arr = view?.array;
      const big = view?.isBig ?? false;
      const { nodata, scale, offset } = band;
      let area = 0;
      for (let r = 0; r < cw.height; r++) {
        const tr = cw.row0 + r - tile.row0;
        for (let c = 0; c < cw.width; c++) {
          const w = cov.weights[r * cw.width + c] as number;
          if (w <= 0) continue;
          const tc = cw.col0 + c - tile.col0;
          if (mask && mask[tr * maskWidth + tc] === 0) {
            acc.addNodata(w);
            continue;
          }
          const i = (tr * tw + tc) * spp + band.sample;
          const raw = arr === undefined ? task.fill : big ? Number(arr[i] as bigint) : (arr[i] as number);
          if (raw !== raw || raw === nodata) {
            acc.addNodata(w);
            continue;
          }
          acc.add(raw * scale + offset, w);
          if (areas) area += w * (areas[r * cw.width + c] as number);
        }
      }
      dataArea[b] = (dataArea[b] as number) + area;
    }
  }
  return { bands: accs.map((acc, b) => ({ acc: acc.snapshot(), dataAreaM2: dataArea[b] as number })) };
}

/** Merges partial results of several batches (order-independent). */
export function mergeFoldResults(task: Pick<FoldTask, 'names' | 'weighted' | 'bands'>, results: FoldResult[]): { accs: StatsAccumulator[]; dataAreaM2: number[] } {
  const accs = task.bands.map(() => createAccumulator({ names: task.names, weighted: task.weighted }));
  const dataAreaM2 = task.bands.map(() => 0);
  for (const res of results) {
    res.bands.forEach((band, b) => {
      (accs[b] as StatsAccumulator).merge(restoreAccumulator(band.acc));
      dataAreaM2[b] = (dataAreaM2[b] as number) + band.dataAreaM2;
    });
  }
  return { accs, dataAreaM2 };
}
