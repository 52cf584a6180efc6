/**
 * True ground area of pixels on the WGS84 ellipsoid, for `data_area` (contract §5), pure.
 * - Geographic grids (not rotated): the exact area of the cell between two parallels and two meridians, per row.
 * - Projected grids: the geodesic area of the pixel's outline mapped back to lon/lat, sampled on a
 *   lattice at most LATTICE_M metres (and LATTICE_PX pixels) apart and interpolated bilinearly in
 *   between. Area scale varies smoothly across a projection, so the error is second order: on UTM,
 *   (h²/8)·(2/R²) ≈ 1.5e-7 relative at h = 5 km, far below what any statistic needs. The lattice is the
 *   grid's own (every step-th row and column from 0, and the last), so a pixel's area does not depend on
 *   the window it is read in, and its points, a few projections and a geodesic area each, are worked out
 *   once per thread for every zone and block (bench/batch: they were half of the fold of 1 km zones).
 */
import { edgesKey, isRectilinear, isRotated, pixelSize, toWorld, type Grid, type PixelWindow } from '../geometry/grid.ts';
import { latLonCellAreaM2, ellipsoidalAreaM2 } from '../geometry/geodesic.ts';
import { makeTransformer } from '../geometry/reproject.ts';
import type { Position, Ring } from '../geometry/types.ts';

export interface PixelAreaSpec {
  grid: Grid;
  /** proj4 definition of the grid's CRS. */
  proj4: string;
  isGeographic: boolean;
}

const LATTICE_M = 5000;
const LATTICE_PX = 128;
const WGS84 = '+proj=longlat +datum=WGS84 +no_defs';

/**
 * The areas of a window's pixels, a row at a time: `row(r)` gives those of row `r` of the window (its
 * `window.width` values; the array is reused by the next call). A window-sized array of a big zone was
 * megabytes a block (bench/raster: a fifth of the fold).
 */
export interface PixelAreaRows {
  row(r: number): Float64Array;
}

/** Area in m² of each pixel of `window`, row by row. */
export function pixelAreaRows(spec: PixelAreaSpec, window: PixelWindow): PixelAreaRows {
  const { grid } = spec;
  const out = new Float64Array(window.width);
  if (spec.isGeographic && !isRotated(grid)) return geographicRows(grid, window, out);
  const size = pixelSize(grid);
  // A rotated lon/lat grid also takes this path: its pixel size in degrees, as metres at the equator.
  const pixelSizeM = Math.max(size.alongRow, size.alongColumn) * (spec.isGeographic ? 111_320 : 1);
  // A rectilinear grid's cells change size from one to the next: each is its own lattice point.
  const step = isRectilinear(grid) ? 1 : Math.max(1, Math.min(LATTICE_PX, Math.floor(LATTICE_M / pixelSizeM)));
  const cols = latticeStops(window.col0, window.width, step, grid.width);
  const rows = latticeStops(window.row0, window.height, step, grid.height);
  return interpolatedRows(window, cols, rows, latticeSamples(spec, cols, rows, pixelSizeM), out);
}

/** Rows kept once worked out, for many zones over one window (the zones of a zones raster in a block). */
export function keptRows(rows: PixelAreaRows): PixelAreaRows {
  const kept = new Map<number, Float64Array>();
  return {
    row(r) {
      let a = kept.get(r);
      if (!a) kept.set(r, (a = Float64Array.from(rows.row(r))));
      return a;
    },
  };
}

/** A lon/lat grid's rows: every pixel of a row has the exact area of the cell between its two parallels. */
function geographicRows(grid: Grid, window: PixelWindow, out: Float64Array): PixelAreaRows {
  const dLon = Math.abs(grid.dx);
  const xs = grid.xEdges;
  const ys = grid.yEdges;
  return {
    row(r) {
      const row = window.row0 + r;
      // A regular row's edges as ever (latA + dy: the same bits as every earlier answer), a rectilinear one's from its edges.
      const latA = ys === undefined ? grid.y0 + row * grid.dy : (ys[row] as number);
      const latB = ys === undefined ? latA + grid.dy : (ys[row + 1] as number);
      const south = Math.min(latA, latB);
      const north = Math.max(latA, latB);
      if (xs === undefined) return out.fill(latLonCellAreaM2(south, north, dLon));
      for (let c = 0; c < window.width; c++) {
        const col = window.col0 + c;
        out[c] = latLonCellAreaM2(south, north, Math.abs((xs[col + 1] as number) - (xs[col] as number)));
      }
      return out;
    },
  };
}

/** The areas of the lattice points cols × rows (row-major), from this thread's cache or worked out. */
function latticeSamples(spec: PixelAreaSpec, cols: number[], rows: number[], pixelSizeM: number): Float64Array {
  const { grid } = spec;
  // Made only when a lattice point is not known yet (most windows find them all in latticeAreas).
  let toLonLat: ((p: Position) => Position) | null = null;
  // Pixel edges are straight in the projection, not geodesics: subdivide big pixels' edges.
  const steps = pixelSizeM <= 100 ? 1 : pixelSizeM <= 1000 ? 4 : 8;
  const gridKey = `${spec.proj4}\n${grid.x0},${grid.y0},${grid.dx},${grid.dy},${grid.rx},${grid.ry}\n${edgesKey(grid)}\n`;
  const samples = new Float64Array(cols.length * rows.length);
  for (let j = 0; j < rows.length; j++) {
    for (let i = 0; i < cols.length; i++) {
      const key = `${gridKey}${cols[i]},${rows[j]}`;
      let a = latticeAreas.get(key);
      if (a === undefined) {
        toLonLat ??= makeTransformer(spec.proj4, WGS84).forward;
        a = outlineArea(grid, toLonLat, cols[i] as number, rows[j] as number, steps);
        if (latticeAreas.size >= LATTICE_CACHE) latticeAreas.delete(latticeAreas.keys().next().value as string);
        latticeAreas.set(key, a);
      }
      samples[j * cols.length + i] = a;
    }
  }
  return samples;
}

/** The geodesic area of pixel (col, row)'s outline mapped to lon/lat, each edge cut into `steps` pieces. */
function outlineArea(grid: Grid, toLonLat: (p: Position) => Position, col: number, row: number, steps: number): number {
  const ring: Ring = [];
  const corners: Position[] = [
    [col, row],
    [col + 1, row],
    [col + 1, row + 1],
    [col, row + 1],
  ];
  for (let k = 0; k < 4; k++) {
    const [c0, r0] = corners[k] as Position;
    const [c1, r1] = corners[(k + 1) % 4] as Position;
    for (let s = 0; s < steps; s++) {
      const t = s / steps;
      const c = c0 + (c1 - c0) * t;
      const r = r0 + (r1 - r0) * t;
      ring.push(toLonLat(toWorld(grid, c, r)));
    }
  }
  ring.push(ring[0] as Position);
  return ellipsoidalAreaM2([[ring]]);
}

/** Per row: interpolate the lattice rows at the lattice columns, then fill each column span linearly. */
function interpolatedRows(window: PixelWindow, cols: number[], rows: number[], samples: Float64Array, out: Float64Array): PixelAreaRows {
  const rowVals = new Float64Array(cols.length);
  const last = window.col0 + window.width - 1;
  return {
    row(r) {
      const row = window.row0 + r;
      let j = 0;
      while (j < rows.length - 2 && (rows[j + 1] as number) <= row) j++;
      const j1 = Math.min(j + 1, rows.length - 1);
      const ra = rows[j] as number;
      const rb = rows[j1] as number;
      const v = rb === ra ? 0 : (row - ra) / (rb - ra);
      for (let i = 0; i < cols.length; i++) {
        rowVals[i] = (1 - v) * (samples[j * cols.length + i] as number) + v * (samples[j1 * cols.length + i] as number);
      }
      if (cols.length === 1) return out.fill(rowVals[0] as number);
      for (let i = 0; i + 1 < cols.length; i++) {
        const ca = cols[i] as number;
        const cb = cols[i + 1] as number;
        const a0 = rowVals[i] as number;
        const slope = ((rowVals[i + 1] as number) - a0) / (cb - ca);
        // The window's columns in [ca, cb) (the last segment also takes cb).
        const from = Math.max(ca, window.col0);
        const to = i + 2 === cols.length ? Math.min(cb, last) : Math.min(cb - 1, last);
        for (let c = from; c <= to; c++) out[c - window.col0] = a0 + (c - ca) * slope;
      }
      return out;
    },
  };
}

/** Areas of lattice points (keyed by CRS, grid and point), kept by each thread across zones and requests. */
const latticeAreas = new Map<string, number>();
const LATTICE_CACHE = 65_536;

/**
 * The grid's lattice positions (every `step`-th from 0, and the last, `size` − 1) that bracket
 * [start, start + length − 1]: the one at or before its first position to the one at or after its last.
 */
function latticeStops(start: number, length: number, step: number, size: number): number[] {
  const end = start + length - 1;
  const stops: number[] = [];
  for (let p = Math.floor(start / step) * step; p < end && p < size - 1; p += step) stops.push(p);
  const next = Math.min(size - 1, Math.ceil(end / step) * step);
  if (stops.length === 0 || (stops[stops.length - 1] as number) < next) stops.push(next);
  return stops;
}
