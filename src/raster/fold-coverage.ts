/**
 * A zone's coverage of a block window, and each thread's cache of the coverages of shared selections
 * (FoldZone.key), so that a zone over many Items of one grid is rasterised once per block window.
 */
import { intersectWindows, type PixelWindow } from '../geometry/grid.ts';
import { centerCoverage } from '../coverage/center.ts';
import { pointCoverage } from '../coverage/point.ts';
import { allTouchedCoverage } from '../coverage/all-touched.ts';
import { fractionalCoverage } from '../coverage/fractional.ts';
import type { Coverage } from '../coverage/coverage.ts';
import type { FoldTimes, FoldZone } from './fold-types.ts';
import { TileCache } from './tile-cache.ts';
import { zoneGeometry } from './fold-geometry.ts';

/**
 * Coverages of shared selections (FoldZone.key) per block window, kept by each thread: the zones of a
 * request over many Items of one grid cover the same pixels of every Item's block. Bounded in bytes.
 */
const coverages = new TileCache<Coverage>();
const COVERAGE_CACHE_BYTES = 32 * 1024 * 1024;

/** The zone's coverage of `win` by its selection's rule (a point: its one pixel, if inside); null when it selects none. */
function coverageFor(zone: FoldZone, win: PixelWindow, levelWidth: number, levelHeight: number): Coverage | null {
  const sel = zone.selection;
  if (sel.kind === 'point') {
    const cov = pointCoverage(sel.col, sel.row, { width: levelWidth, height: levelHeight });
    return cov && intersectWindows(cov.window, win) ? cov : null;
  }
  // A zone of a zones raster is covered from the zones' decoded cells (fold-zones.ts), never here.
  if (sel.kind === 'zone') return null;
  const geometry = zoneGeometry(zone);
  switch (sel.rule) {
    case 'all_touched':
      return allTouchedCoverage(geometry, win);
    case 'fractional':
      return fractionalCoverage(geometry, win);
    default:
      return centerCoverage(geometry, win);
  }
}

/** The zone's coverage of `win`, from this thread's cache when its selection is shared (counted in `times`). */
export function sharedCoverage(zone: FoldZone, win: PixelWindow, levelWidth: number, levelHeight: number, times: FoldTimes): Coverage | null {
  if (zone.key === undefined) {
    times.coverages++;
    return coverageFor(zone, win, levelWidth, levelHeight);
  }
  const key = `${zone.key}\n${win.col0},${win.row0},${win.width},${win.height}`;
  const hit = coverages.get(key);
  if (hit !== undefined) {
    times.reused++;
    return hit.weights.length === 0 ? null : hit;
  }
  times.coverages++;
  const cov = coverageFor(zone, win, levelWidth, levelHeight);
  // A miss is kept too (an empty coverage), so that it is not worked out again.
  const kept = cov ?? { window: win, weights: new Float64Array(0) };
  coverages.put(key, kept, 64 + kept.weights.byteLength, COVERAGE_CACHE_BYTES);
  return cov;
}
