/**
 * Our exact fractions on the real fixture grids against an independent tool: R terra's
 * `extract(r, vect(polygon), exact = TRUE)` (tools/oracle/fractional_oracle.R, outputs committed in
 * fixtures/cases-fractional/). The grid parameters come from the case file, so no TIFF is read; the per-cell
 * fraction maps and Σ fraction are compared (weighted means need pixel values and are left to the API tests).
 *
 * Tolerances come from each case file (`tolerance`, `reason`, and the oracle's header):
 * - `cells`: terra as a user runs it measures geodesic / ellipsoidal areas. On the projected L7 raster these are
 *   the planar fractions to ~1e-8: per cell and Σ to 1e-6. On the lon/lat elev raster a partial cell's
 *   ellipsoidal fraction differs from the planar one by up to ~3.5e-5: per cell 5e-5, Σ to 1e-5 relative.
 * - `cells_planar`: terra with the CRS removed measures plain planar areas in CRS units — the definition.
 *   On elev (small degree coordinates) this is the 1e-6 per-cell reference; on L7 GEOS's planar areas from
 *   absolute UTM coordinates carry ~1e-6 of noise themselves (2e-6 per cell).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fractionalCoverage } from '../../src/coverage/fractional.ts';
import { toPixel } from '../../src/geometry/grid.ts';
import type { Grid } from '../../src/geometry/grid.ts';
import { windowOf } from '../../src/raster/window.ts';
import type { MultiPolygonCoords, Position } from '../../src/geometry/types.ts';

interface Summary {
  weighted_mean: number | null;
  sum_fraction: number;
  count_cells: number;
}

interface FractionalCase {
  name: string;
  file: string;
  band: number;
  lonlat: boolean;
  grid: { x0: number; y0: number; dx: number; dy: number; width: number; height: number };
  polygon: MultiPolygonCoords;
  tolerance: { sum_fraction: number; weighted_mean: number; cell: number; planar_cell: number; planar_sum_fraction: number };
  expected: Summary;
  expected_planar: Summary;
  cells: [number, number][];
  cells_planar: [number, number][];
}

const DIR = join(import.meta.dirname, '..', '..', 'fixtures', 'cases-fractional');
const cases: FractionalCase[] = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => JSON.parse(readFileSync(join(DIR, f), 'utf8')) as FractionalCase);

/** Our fractions as a map from terra's cell number (1-based, row-major from the top-left) to fraction > 0. */
function ours(c: FractionalCase): Map<number, number> {
  const grid: Grid = c.grid;
  const pixels: MultiPolygonCoords = c.polygon.map((poly) => poly.map((ring) => ring.map(([x, y]): Position => toPixel(grid, x, y))));
  const window = windowOf(pixels, grid);
  const out = new Map<number, number>();
  if (window === null) return out;
  const cov = fractionalCoverage(pixels, window);
  for (let r = 0; r < window.height; r++) {
    for (let k = 0; k < window.width; k++) {
      const w = cov.weights[r * window.width + k] as number;
      if (w > 0) out.set((window.row0 + r) * grid.width + window.col0 + k + 1, w);
    }
  }
  return out;
}

/** Largest |ours − theirs| over the union of both cell sets (a cell missing on one side counts as 0). */
function maxDiff(mine: Map<number, number>, theirs: [number, number][]): { max: number; at: number } {
  const other = new Map(theirs);
  let max = 0;
  let at = -1;
  for (const cell of new Set([...mine.keys(), ...other.keys()])) {
    const d = Math.abs((mine.get(cell) ?? 0) - (other.get(cell) ?? 0));
    if (d > max) {
      max = d;
      at = cell;
    }
  }
  return { max, at };
}

function sum(values: Iterable<number>): number {
  let s = 0;
  for (const v of values) s += v;
  return s;
}

describe('fractional coverage on the real grids agrees with terra::extract(exact = TRUE)', () => {
  it('has cases on both rasters', () => {
    expect(cases.filter((c) => c.lonlat).length).toBeGreaterThanOrEqual(3);
    expect(cases.filter((c) => !c.lonlat).length).toBeGreaterThanOrEqual(3);
  });

  describe.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const mine = ours(c);

    it(`every cell within ${c.tolerance.planar_cell} of terra's planar fractions`, () => {
      const d = maxDiff(mine, c.cells_planar);
      expect(d.max, `cell ${d.at}`).toBeLessThanOrEqual(c.tolerance.planar_cell);
    });

    it(`every cell within ${c.tolerance.cell} of terra's fractions with the CRS`, () => {
      const d = maxDiff(mine, c.cells);
      expect(d.max, `cell ${d.at}`).toBeLessThanOrEqual(c.tolerance.cell);
    });

    it(`Σ fraction within ${c.tolerance.sum_fraction} (relative) of terra's, ${c.tolerance.planar_sum_fraction} of terra's planar`, () => {
      const s = sum(mine.values());
      expect(Math.abs(s - c.expected.sum_fraction) / Math.max(1, c.expected.sum_fraction)).toBeLessThanOrEqual(c.tolerance.sum_fraction);
      expect(Math.abs(s - c.expected_planar.sum_fraction) / Math.max(1, c.expected_planar.sum_fraction)).toBeLessThanOrEqual(
        c.tolerance.planar_sum_fraction,
      );
    });
  });
});
