/**
 * Rectilinear grids (a cube axis whose bounds give cells of unequal sizes): world ↔ pixel coordinates
 * piecewise linear, and zones mapped onto the pixels with a vertex wherever an edge crosses a cell edge,
 * so that each cell's covered fraction is its fraction in world units. Numbers worked out by hand.
 */
import { describe, expect, it } from 'vitest';
import { edgeIndex, edgeValue, toPixel, toWorld, type Grid } from '../../src/geometry/grid.ts';
import { toPixelGeometry } from '../../src/raster/window.ts';
import { fractionalCoverage } from '../../src/coverage/fractional.ts';

// Columns of widths 1, 2, 4 (x 0 → 7); rows of heights 1, 3 running south (y 10 → 6).
const grid: Grid = {
  x0: 0,
  y0: 10,
  dx: 7 / 3,
  dy: -2,
  width: 3,
  height: 2,
  xEdges: Float64Array.from([0, 1, 3, 7]),
  yEdges: Float64Array.from([10, 9, 6]),
};

describe('rectilinear grid', () => {
  it('maps world to pixel coordinates cell by cell, both ways, ascending and descending', () => {
    expect(edgeIndex(grid.xEdges as Float64Array, 2)).toBe(1.5);
    expect(edgeIndex(grid.xEdges as Float64Array, 6)).toBe(2.75);
    expect(edgeIndex(grid.yEdges as Float64Array, 7.5)).toBe(1.5);
    expect(toPixel(grid, 5, 9.5)).toEqual([2.5, 0.5]);
    expect(toWorld(grid, 2.5, 0.5)).toEqual([5, 9.5]);
    expect(edgeValue(grid.xEdges as Float64Array, 3)).toBe(7);
    // Beyond the ends, the end cell's scale goes on.
    expect(edgeIndex(grid.xEdges as Float64Array, -1)).toBe(-1);
    expect(edgeIndex(grid.xEdges as Float64Array, 9)).toBe(3.5);
    expect(edgeIndex(grid.yEdges as Float64Array, 3)).toBe(3);
  });

  it('gives a zone its fraction of each cell in world units', () => {
    // The triangle (0, 6), (7, 6), (0, 10): the line x/7 + (y - 6)/4 = 1 crosses cells of three widths.
    const tri: [number, number][] = [
      [0, 6],
      [7, 6],
      [0, 10],
      [0, 6],
    ];
    const pixels = toPixelGeometry(grid, [[tri]]);
    const cov = fractionalCoverage(pixels, { col0: 0, row0: 0, width: 3, height: 2 });
    // Each cell's share of the triangle, by hand: the area below the line within the cell / the cell's area.
    const line = (x: number): number => 6 + 4 * (1 - x / 7);
    const share = (xa: number, xb: number, ya: number, yb: number): number => {
      // Exact for a line: integrate clamp(line(x), ya, yb) - ya over [xa, xb] with fine Simpson steps.
      const n = 20000;
      let s = 0;
      for (let i = 0; i <= n; i++) {
        const x = xa + ((xb - xa) * i) / n;
        const h = Math.min(Math.max(line(x), ya), yb) - ya;
        s += h * (i === 0 || i === n ? 1 : i % 2 ? 4 : 2);
      }
      return (s * (xb - xa)) / (3 * n) / ((xb - xa) * (yb - ya));
    };
    const xs = [0, 1, 3, 7];
    const rows = [
      [9, 10],
      [6, 9],
    ];
    rows.forEach(([ya, yb], r) => {
      for (let c = 0; c < 3; c++) {
        expect(cov.weights[r * 3 + c]).toBeCloseTo(share(xs[c] as number, xs[c + 1] as number, ya as number, yb as number), 7);
      }
    });
    // Cell (row 0, column 0): x in 0..1, y in 9..10; below the line where y < 10 - 4x/7: 1 - (4/7)/2.
    expect(cov.weights[0]).toBeCloseTo(1 - 2 / 7, 14);
  });
});
