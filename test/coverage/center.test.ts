import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { centerCoverage, countSelected } from '../../src/coverage/center.ts';
import type { Coverage, PixelGeometry } from '../../src/coverage/coverage.ts';
import type { PolygonCoords, Position } from '../../src/geometry/types.ts';
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

const W3: PixelWindow = { col0: 0, row0: 0, width: 3, height: 3 };
/** 4 rows × 5 columns. */
const W45: PixelWindow = { col0: 0, row0: 0, width: 5, height: 4 };

function rect(x0: number, y0: number, x1: number, y1: number): Position[] {
  return [[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]];
}

describe('centerCoverage on hand-derived grids', () => {
  it('square: centres (c + 0.5, r + 0.5) inside (0.2, 2.2)²', () => {
    // columns and rows 0 and 1 have centres 0.5 and 1.5 inside; 2.5 is outside
    const c = centerCoverage([[rect(0.2, 0.2, 2.2, 2.2)]], W3);
    expect(draw(c)).toEqual(['##.', '##.', '...']);
    expect(countSelected(c)).toBe(4);
    expect([...c.weights]).toEqual([1, 1, 0, 1, 1, 0, 0, 0, 0]);
  });

  it('triangle (0,0) (3,0) (0,3): centres on the hypotenuse x + y = 3 belong to it (left of the edge)', () => {
    // row r: the hypotenuse crosses y = r + 0.5 at x = 2.5 − r, the left side at x = 0;
    // cells with 0 < c + 0.5 ≤ 2.5 − r → c ≤ 2 − r
    const c = centerCoverage([[[[0, 0], [3, 0], [0, 3], [0, 0]]]], W3);
    expect(draw(c)).toEqual(['###', '##.', '#..']);
  });

  it('polygon with a hole (4 × 5 grid)', () => {
    // hole (1,1)–(4,3): centres x ∈ {1.5, 2.5, 3.5} with y ∈ {1.5, 2.5} are excluded
    const c = centerCoverage([[rect(0, 0, 5, 4), rect(1, 1, 4, 3)]], W45);
    expect(draw(c)).toEqual(['#####', '#...#', '#...#', '#####']);
  });

  it('multipolygon: the union of its parts', () => {
    const c = centerCoverage([[rect(0, 0, 1, 1)], [rect(3, 2, 5, 4)]], W45);
    expect(draw(c)).toEqual(['#....', '.....', '...##', '...##']);
  });

  it('overlapping parts are a union, not cancelled by even-odd', () => {
    const c = centerCoverage([[rect(0, 0, 3, 2)], [rect(2, 0, 5, 2)]], W45);
    expect(draw(c)).toEqual(['#####', '#####', '.....', '.....']);
  });

  it('vertices on cell corners: the diamond (2,0) (4,2) (2,4) (0,2)', () => {
    // row 0 (y = 0.5): crossings 1.5 and 2.5 → only centre 2.5 (1.5 is on the left edge, not taken)
    // row 1 (y = 1.5): crossings 0.5 and 3.5 → centres 1.5, 2.5, 3.5; rows 2, 3 mirror rows 1, 0
    const c = centerCoverage([[[[2, 0], [4, 2], [2, 4], [0, 2], [2, 0]]]], { col0: 0, row0: 0, width: 4, height: 4 });
    expect(draw(c)).toEqual(['..#.', '.###', '.###', '..#.']);
  });

  it('a vertex on a centre line is counted once by a ring passing through it', () => {
    // (0,0) (3,1.5) (0,3): on y = 1.5 only the lower edge [1.5, 3) crosses, at x = 3 → the whole row
    // y = 0.5: x = 0.5 · 3 / 1.5 = 1 → column 0;  y = 2.5: x = 3 − 1 · 3 / 1.5 = 1 → column 0
    const c = centerCoverage([[[[0, 0], [3, 1.5], [0, 3], [0, 0]]]], W3);
    expect(draw(c)).toEqual(['#..', '###', '#..']);
  });

  it('a vertex at a local extremum on a centre line takes nothing there', () => {
    // apex (1.5, 0.5): both edges cross y = 0.5 at x = 1.5 → empty span on row 0
    // y = 1.5: x = 1.5 ∓ 1.5 · 1 / 2.5 = 0.9 and 2.1 → column 1;  y = 2.5: 0.3 and 2.7 → all
    const c = centerCoverage([[[[1.5, 0.5], [3, 3], [0, 3], [1.5, 0.5]]]], W3);
    expect(draw(c)).toEqual(['...', '.#.', '###']);
  });

  it('open rings are closed implicitly; ring orientation does not matter', () => {
    const open: Position[] = [[0.2, 0.2], [2.2, 0.2], [2.2, 2.2], [0.2, 2.2]];
    expect(draw(centerCoverage([[open]], W3))).toEqual(['##.', '##.', '...']);
    expect(draw(centerCoverage([[[...open].reverse()]], W3))).toEqual(['##.', '##.', '...']);
  });

  it('AOI larger than the window: every cell', () => {
    const win = { col0: 2, row0: 1, width: 3, height: 2 };
    const c = centerCoverage([[rect(-10, -10, 20, 20)]], win);
    expect(c.window).toEqual(win);
    expect(draw(c)).toEqual(['###', '###']);
  });

  it('window over part of the AOI: indices are relative to the window', () => {
    // square (0,0)–(3,3) seen through columns 2–4, rows 2–4: only cell (2, 2)
    const c = centerCoverage([[rect(0, 0, 3, 3)]], { col0: 2, row0: 2, width: 3, height: 3 });
    expect(draw(c)).toEqual(['#..', '...', '...']);
  });

  it('AOI outside the window: nothing', () => {
    expect(countSelected(centerCoverage([[rect(10, 10, 12, 12)]], W3))).toBe(0);
  });

  it('a polygon smaller than a pixel with no centre inside selects nothing; one around a centre selects it', () => {
    expect(countSelected(centerCoverage([[rect(1.1, 1.1, 1.4, 1.4)]], W3))).toBe(0);
    expect(draw(centerCoverage([[rect(1.4, 1.4, 1.6, 1.6)]], W3))).toEqual(['...', '.#.', '...']);
  });

  it('zero-area and empty geometries select nothing', () => {
    expect(countSelected(centerCoverage([[[[0, 0], [3, 3], [0, 0]]]], W3))).toBe(0);
    expect(countSelected(centerCoverage([], W3))).toBe(0);
    expect(centerCoverage([[rect(0, 0, 3, 3)]], { col0: 0, row0: 0, width: 0, height: 3 }).weights.length).toBe(0);
  });

  it('rejects non-finite coordinates', () => {
    expect(() => centerCoverage([[[[0, 0], [NaN, 1], [1, 1], [0, 0]]]], W3)).toThrow(ZonalError);
  });
});

describe('centres exactly on a shared edge: each cell is taken exactly once', () => {
  function sum(a: Coverage, b: Coverage): number[] {
    return [...a.weights].map((w, i) => w + (b.weights[i] as number));
  }

  it('vertical edge x = 1.5: the column on it goes to the polygon on the left', () => {
    const left = centerCoverage([[rect(0, 0, 1.5, 3)]], W3);
    const right = centerCoverage([[rect(1.5, 0, 3, 3)]], W3);
    expect(draw(left)).toEqual(['##.', '##.', '##.']);
    expect(draw(right)).toEqual(['..#', '..#', '..#']);
  });

  it('horizontal edge y = 1.5: the row on it goes to the polygon below (larger row)', () => {
    const top = centerCoverage([[rect(0, 0, 3, 1.5)]], W3);
    const bottom = centerCoverage([[rect(0, 1.5, 3, 3)]], W3);
    expect(draw(top)).toEqual(['###', '...', '...']);
    expect(draw(bottom)).toEqual(['...', '###', '###']);
  });

  it('diagonal edge through three centres: the triangle pair', () => {
    const a = centerCoverage([[[[0, 0], [3, 0], [0, 3], [0, 0]]]], W3);
    const b = centerCoverage([[[[3, 0], [3, 3], [0, 3], [3, 0]]]], W3);
    expect(draw(b)).toEqual(['...', '..#', '.##']);
    expect(sum(a, b)).toEqual(new Array(9).fill(1));
  });

  it('random zigzag boundaries on half-integers split a box with no cell taken twice or missed (fast-check)', () => {
    const win: PixelWindow = { col0: 0, row0: 0, width: 12, height: 10 };
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 23 }), { minLength: 2, maxLength: 21 }),
        fc.boolean(),
        (xs, reversed) => {
          // boundary from top to bottom through x = k/2 at evenly spaced y (also on half-integers)
          const line: Position[] = xs.map((k, i) => [k / 2, (i * 10) / (xs.length - 1)]);
          const left: Position[] = [[0, 0], ...line, [0, 10], [0, 0]];
          const right: Position[] = [[12, 0], [12, 10], ...[...line].reverse(), [12, 0]];
          const ring = (r: Position[]) => (reversed ? [...r].reverse() : r);
          const a = centerCoverage([[ring(left)]], win);
          const b = centerCoverage([[ring(right)]], win);
          expect(sum(a, b)).toEqual(new Array(120).fill(1));
        },
      ),
      { numRuns: 300 },
    );
  });
});

/** Independent reference: crossings of the centre's row strictly left of the centre, counted per polygon. */
function bruteForceInside(polygon: PolygonCoords, cx: number, cy: number): boolean {
  let inside = false;
  for (const ring of polygon) {
    for (let i = 0; i + 1 < ring.length; i++) {
      const p = ring[i] as Position;
      const q = ring[i + 1] as Position;
      if (p[1] === q[1]) continue;
      const up = p[1] < q[1];
      const x0 = up ? p[0] : q[0];
      const y0 = up ? p[1] : q[1];
      const x1 = up ? q[0] : p[0];
      const y1 = up ? q[1] : p[1];
      if (!(y0 <= cy && cy < y1)) continue;
      const x = ((cy - y0) * (x1 - x0)) / (y1 - y0) + x0;
      if (x < cx) inside = !inside;
    }
  }
  return inside;
}

function bruteForce(geometry: PixelGeometry, win: PixelWindow): number[] {
  const out: number[] = [];
  for (let r = 0; r < win.height; r++) {
    for (let c = 0; c < win.width; c++) {
      const cx = win.col0 + c + 0.5;
      const cy = win.row0 + r + 0.5;
      out.push(geometry.some((p) => bruteForceInside(p, cx, cy)) ? 1 : 0);
    }
  }
  return out;
}

describe('centerCoverage against brute-force point-in-polygon on every centre (fast-check)', () => {
  const coord = (max: number) =>
    fc.oneof(fc.double({ min: -5, max, noNaN: true }), fc.integer({ min: -10, max: 2 * max }).map((k) => k / 2));
  const ringArb = fc.array(fc.tuple(coord(45), coord(35)), { minLength: 3, maxLength: 80 }).map((pts): Position[] => [...pts, pts[0] as Position]);
  const windowArb = fc.record({
    col0: fc.integer({ min: -5, max: 20 }),
    row0: fc.integer({ min: -5, max: 20 }),
    width: fc.integer({ min: 1, max: 30 }),
    height: fc.integer({ min: 1, max: 30 }),
  });

  it('random (self-intersecting, degenerate, half-integer) polygons with holes and parts', () => {
    fc.assert(
      fc.property(fc.array(fc.array(ringArb, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 }), windowArb, (geometry, win) => {
        expect([...centerCoverage(geometry, win).weights]).toEqual(bruteForce(geometry, win));
      }),
      { numRuns: 300 },
    );
  });

  it('a big random star polygon (1,000 vertices) on a 160 × 120 window', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 5, max: 90, noNaN: true }), { minLength: 1000, maxLength: 1000 }), (radii) => {
        const ring: Position[] = radii.map((rad, i) => {
          const a = (2 * Math.PI * i) / radii.length;
          return [80 + rad * Math.cos(a), 60 + rad * 0.7 * Math.sin(a)];
        });
        ring.push(ring[0] as Position);
        const win = { col0: 0, row0: 0, width: 160, height: 120 };
        expect([...centerCoverage([[ring]], win).weights]).toEqual(bruteForce([[ring]], win));
      }),
      { numRuns: 3 },
    );
  });
});

describe('anyCentreInside', () => {
  it('agrees with centerCoverage on random polygons and windows (some selected centre, or none)', async () => {
    const { anyCentreInside } = await import('../../src/coverage/center.ts');
    let s = 7;
    const rnd = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
    let some = 0;
    for (let k = 0; k < 400; k++) {
      const cx = rnd() * 20;
      const cy = rnd() * 20;
      const ring: [number, number][] = Array.from({ length: 5 }, (_, i) => {
        const a = (2 * Math.PI * i) / 5 + rnd();
        const r = 0.3 + rnd() * 4;
        return [cx + r * Math.cos(a), cy + r * Math.sin(a)];
      });
      ring.push(ring[0] as [number, number]);
      const win = { col0: Math.floor(rnd() * 15), row0: Math.floor(rnd() * 15), width: 1 + Math.floor(rnd() * 6), height: 1 + Math.floor(rnd() * 6) };
      const expected = centerCoverage([[ring]], win).weights.some((w) => w > 0);
      if (expected) some++;
      expect(anyCentreInside([[ring]], win), `case ${k}`).toBe(expected);
    }
    // Both answers occur.
    expect(some).toBeGreaterThan(20);
    expect(some).toBeLessThan(380);
  });
});
