import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TOUCH_TOLERANCE, allTouchedCoverage } from '../../src/coverage/all-touched.ts';
import { centerCoverage, countSelected } from '../../src/coverage/center.ts';
import type { Coverage, PixelGeometry } from '../../src/coverage/coverage.ts';
import type { Position } from '../../src/geometry/types.ts';
import type { PixelWindow } from '../../src/geometry/grid.ts';
import { ZonalError } from '../../src/errors.ts';

/** The coverage drawn row by row: '#' selected, '.' not. */
function draw(c: Coverage): string[] {
  const rows: string[] = [];
  for (let r = 0; r < c.window.height; r++) {
    let line = '';
    for (let col = 0; col < c.window.width; col++) line += (c.weights[r * c.window.width + col] as number) > 0 ? '#' : '.';
    rows.push(line);
  }
  return rows;
}

function win(width: number, height: number, col0 = 0, row0 = 0): PixelWindow {
  return { col0, row0, width, height };
}

function rect(x0: number, y0: number, x1: number, y1: number): Position[] {
  return [[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]];
}

describe('allTouchedCoverage on hand-derived grids', () => {
  it('a square off the grid lines: every cell it overlaps', () => {
    expect(draw(allTouchedCoverage([[rect(0.2, 0.2, 1.8, 1.8)]], win(3, 3)))).toEqual(['##.', '##.', '...']);
    expect(draw(allTouchedCoverage([[rect(0.2, 0.2, 2.2, 2.2)]], win(3, 3)))).toEqual(['###', '###', '###']);
  });

  it('weights are exactly 1', () => {
    const c = allTouchedCoverage([[rect(0.2, 0.2, 1.8, 1.8)]], win(3, 3));
    expect([...c.weights]).toEqual([1, 1, 0, 1, 1, 0, 0, 0, 0]);
  });

  it('tie rule — an edge on a grid line touches the cells on both sides: pixel-aligned square [1, 3]²', () => {
    // closed squares [c, c+1] × [r, r+1] meeting [1, 3]²: columns 0–3, rows 0–3 (GDAL 3.6 burns only the inner 2 × 2)
    expect(draw(allTouchedCoverage([[rect(1, 1, 3, 3)]], win(5, 5)))).toEqual(['####.', '####.', '####.', '####.', '.....']);
  });

  it('tie rule — a horizontal edge on a row line touches the row above and below along its whole length', () => {
    // [0.5, 2.5] × [0.5, 1]: its bottom edge y = 1 lies on the line between rows 0 and 1
    expect(draw(allTouchedCoverage([[rect(0.5, 0.5, 2.5, 1)]], win(4, 3)))).toEqual(['###.', '###.', '....']);
    // and a vertical edge on a column line: [0.5, 1] × [0.5, 2.5] touches column 1
    expect(draw(allTouchedCoverage([[rect(0.5, 0.5, 1, 2.5)]], win(3, 4)))).toEqual(['##.', '##.', '##.', '...']);
  });

  it('tie rule — a vertex or an edge through a cell corner touches all four cells around it', () => {
    // the diamond (2,0) (4,2) (2,4) (0,2): the corner cells (0,0), (3,0), (0,3), (3,3) meet it at (1,1), (3,1),
    // (1,3), (3,3); the vertices (4,2) and (2,4) touch column 4 (rows 1, 2) and row 4 (columns 1, 2)
    expect(draw(allTouchedCoverage([[[[2, 0], [4, 2], [2, 4], [0, 2], [2, 0]]]], win(5, 5)))).toEqual([
      '####.',
      '#####',
      '#####',
      '####.',
      '.##..',
    ]);
    // symmetric, unlike GDAL 3.6 (which takes (3, 3) but not its mirror (0, 3)): a diamond symmetric about the
    // centre of a 5 × 5 grid selects a symmetric set of cells
    const d = draw(allTouchedCoverage([[[[2.5, 0.5], [4.5, 2.5], [2.5, 4.5], [0.5, 2.5], [2.5, 0.5]]]], win(5, 5)));
    expect(d).toEqual([...d].reverse());
    expect(d).toEqual(d.map((row) => [...row].reverse().join('')));
    expect(d).toEqual(d.map((_, i) => d.map((row) => row[i]).join('')));
  });

  it('a hypotenuse through a corner selects the corner cell (touched at one point)', () => {
    expect(draw(allTouchedCoverage([[[[0.5, 0.5], [1.5, 0.5], [0.5, 1.5], [0.5, 0.5]]]], win(3, 3)))).toEqual(['##.', '##.', '...']);
  });

  it('a polygon smaller than a pixel selects its pixel (the centre rule selects nothing)', () => {
    const small: PixelGeometry = [[rect(1.1, 1.1, 1.4, 1.4)]];
    expect(countSelected(centerCoverage(small, win(3, 3)))).toBe(0);
    expect(draw(allTouchedCoverage(small, win(3, 3)))).toEqual(['...', '.#.', '...']);
  });

  it('a thin sliver selects every cell it passes through', () => {
    const sliver: Position[] = [[0.1, 0.2], [4.9, 3.7], [4.9, 3.7 + 1e-6], [0.1, 0.2]];
    expect(draw(allTouchedCoverage([[sliver]], win(5, 4)))).toEqual(['##...', '.##..', '..##.', '...##']);
  });

  it('a polygon with a hole: the cells wholly inside the hole are not selected', () => {
    const c = allTouchedCoverage([[rect(0, 0, 5, 5), rect(0.5, 0.5, 4.5, 4.5)]], win(5, 5));
    expect(draw(c)).toEqual(['#####', '#...#', '#...#', '#...#', '#####']);
    // a hole on grid lines: the cells along its boundary are touched by it
    const g = allTouchedCoverage([[rect(0, 0, 5, 5), rect(1, 1, 4, 4)]], win(5, 5));
    expect(draw(g)).toEqual(['#####', '#####', '##.##', '#####', '#####']);
  });

  it('a multipolygon: the union of its parts', () => {
    expect(draw(allTouchedCoverage([[rect(0.2, 0.2, 0.4, 0.4)], [rect(3.5, 2.5, 4.5, 3.5)]], win(5, 4)))).toEqual([
      '#....',
      '.....',
      '...##',
      '...##',
    ]);
  });

  it('windows: the AOI larger than the window, a window cutting the AOI, an AOI outside', () => {
    expect(draw(allTouchedCoverage([[rect(-10, -10, 20, 20)]], win(3, 2, 2, 1)))).toEqual(['###', '###']);
    // (0,0)–(3,3) seen through columns 2–4, rows 2–4: cells (2..3, 2..3) are touched (x = 3 is a grid line)
    expect(draw(allTouchedCoverage([[rect(0, 0, 3, 3)]], win(3, 3, 2, 2)))).toEqual(['##.', '##.', '...']);
    expect(countSelected(allTouchedCoverage([[rect(10, 10, 12, 12)]], win(3, 3)))).toBe(0);
    // an edge just off the window's right side (x = 3 + 2e-9) does not touch it; one at x = 3 does
    expect(countSelected(allTouchedCoverage([[rect(3 + 2e-9, 0, 5, 3)]], win(3, 3)))).toBe(0);
    expect(draw(allTouchedCoverage([[rect(3, 0, 5, 3)]], win(3, 3)))).toEqual(['..#', '..#', '..#']);
  });

  it('open rings and either orientation give the same cells', () => {
    const open: Position[] = [[0.3, 0.2], [2.6, 0.9], [1.7, 2.8], [0.4, 2.1]];
    const expected = draw(allTouchedCoverage([[[...open, open[0] as Position]]], win(3, 3)));
    expect(draw(allTouchedCoverage([[open]], win(3, 3)))).toEqual(expected);
    expect(draw(allTouchedCoverage([[[...open].reverse()]], win(3, 3)))).toEqual(expected);
  });

  it('empty inputs and non-finite coordinates', () => {
    expect(countSelected(allTouchedCoverage([], win(3, 3)))).toBe(0);
    expect(allTouchedCoverage([[rect(0, 0, 3, 3)]], win(0, 3)).weights.length).toBe(0);
    expect(() => allTouchedCoverage([[[[0, 0], [NaN, 1], [1, 1], [0, 0]]]], win(3, 3))).toThrow(ZonalError);
  });
});

// ------------------------------------------------------------------------------------------------
// Independent reference: a cell is touched when its closed square meets an edge (Liang–Barsky clipping of the
// segment to the square) or its centre is inside (even-odd crossing count over all rings).

function segmentMeetsSquare(p: Position, q: Position, x0: number, y0: number, x1: number, y1: number): boolean {
  let t0 = 0;
  let t1 = 1;
  const dx = q[0] - p[0];
  const dy = q[1] - p[1];
  const tests: [number, number][] = [
    [-dx, p[0] - x0],
    [dx, x1 - p[0]],
    [-dy, p[1] - y0],
    [dy, y1 - p[1]],
  ];
  for (const [pk, qk] of tests) {
    if (pk === 0) {
      if (qk < 0) return false;
    } else {
      const t = qk / pk;
      if (pk < 0) t0 = Math.max(t0, t);
      else t1 = Math.min(t1, t);
      if (t0 > t1) return false;
    }
  }
  return true;
}

function insideEvenOdd(polygon: Position[][], x: number, y: number): boolean {
  let inside = false;
  for (const ring of polygon) {
    for (let i = 0; i + 1 < ring.length; i++) {
      const a = ring[i] as Position;
      const b = ring[i + 1] as Position;
      if (a[1] > y !== b[1] > y && x < ((y - a[1]) * (b[0] - a[0])) / (b[1] - a[1]) + a[0]) inside = !inside;
    }
  }
  return inside;
}

/** Cells whose closed square, grown by `grow` pixels, meets an edge, or whose centre is inside. */
function bruteForceTouched(geometry: PixelGeometry, w: PixelWindow, grow = 0): number[] {
  const out: number[] = [];
  for (let r = w.row0; r < w.row0 + w.height; r++) {
    for (let c = w.col0; c < w.col0 + w.width; c++) {
      let hit = geometry.some((poly) => insideEvenOdd(poly, c + 0.5, r + 0.5));
      for (const poly of geometry) {
        for (const ring of poly) {
          for (let i = 0; i + 1 < ring.length && !hit; i++) hit = segmentMeetsSquare(ring[i] as Position, ring[i + 1] as Position, c - grow, r - grow, c + 1 + grow, r + 1 + grow);
        }
      }
      out.push(hit ? 1 : 0);
    }
  }
  return out;
}

describe('allTouchedCoverage against brute force (fast-check)', () => {
  const windowArb = fc.record({
    col0: fc.integer({ min: -3, max: 10 }),
    row0: fc.integer({ min: -3, max: 10 }),
    width: fc.integer({ min: 1, max: 16 }),
    height: fc.integer({ min: 1, max: 16 }),
  });

  it('random rings (any shape, random doubles): the closed rule, up to the 1e-9 px tolerance', () => {
    // every cell whose closed square meets the polygon is selected, and every selected cell's square grown by
    // 2e-9 px meets it (the tolerance only decides cells within 1e-9 px of an edge)
    const ringArb = fc
      .array(fc.tuple(fc.double({ min: -4, max: 22, noNaN: true }), fc.double({ min: -4, max: 22, noNaN: true })), { minLength: 3, maxLength: 30 })
      .map((pts): Position[] => [...pts, pts[0] as Position]);
    fc.assert(
      fc.property(fc.array(fc.array(ringArb, { minLength: 1, maxLength: 2 }), { minLength: 1, maxLength: 2 }), windowArb, (geometry, w) => {
        const got = allTouchedCoverage(geometry, w).weights;
        const exact = bruteForceTouched(geometry, w);
        const grown = bruteForceTouched(geometry, w, 2 * TOUCH_TOLERANCE);
        exact.forEach((t, i) => {
          if (t === 1) expect(got[i], `cell ${i} touched but not selected`).toBe(1);
          if (got[i] === 1) expect(grown[i], `cell ${i} selected but not touched`).toBe(1);
        });
      }),
      { numRuns: 500 },
    );
  });

  it('rings on the half-integer lattice (edges on grid lines, vertices on corners): same cells', () => {
    const coord = fc.integer({ min: -8, max: 40 }).map((k) => k / 2);
    const ringArb = fc.array(fc.tuple(coord, coord), { minLength: 3, maxLength: 12 }).map((pts): Position[] => [...pts, pts[0] as Position]);
    fc.assert(
      fc.property(fc.array(fc.array(ringArb, { minLength: 1, maxLength: 2 }), { minLength: 1, maxLength: 2 }), windowArb, (geometry, w) => {
        expect([...allTouchedCoverage(geometry, w).weights]).toEqual(bruteForceTouched(geometry, w));
      }),
      { numRuns: 500 },
    );
  });
});
