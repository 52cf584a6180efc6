import { describe, expect, it } from 'vitest';
import { makeTransformer, transformBBox, transformPolygons } from '../../src/geometry/reproject.ts';
import { ZonalError } from '../../src/errors.ts';
import type { Position, Ring } from '../../src/geometry/types.ts';

const WGS84 = '+proj=longlat +datum=WGS84 +no_defs';
const UTM33 = '+proj=utm +zone=33 +datum=WGS84 +units=m +no_defs';
const LAEA_EUROPE = '+proj=laea +lat_0=52 +lon_0=10 +x_0=4321000 +y_0=3210000 +ellps=GRS80 +units=m +no_defs'; // EPSG:3035
const MERCATOR = '+proj=merc +a=6378137 +b=6378137 +lat_ts=0 +lon_0=0 +x_0=0 +y_0=0 +k=1 +units=m +no_defs'; // EPSG:3857

/** Distance from p to the segment a–b. */
function toSegment(p: Position, a: Position, b: Position): number {
  const [dx, dy] = [b[0] - a[0], b[1] - a[1]];
  const len2 = dx * dx + dy * dy;
  const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / len2));
  return Math.hypot(p[0] - (a[0] + t * dx), p[1] - (a[1] + t * dy));
}

function toPolyline(p: Position, line: Ring): number {
  let best = Infinity;
  for (let i = 0; i + 1 < line.length; i++) best = Math.min(best, toSegment(p, line[i] as Position, line[i + 1] as Position));
  return best;
}

describe('makeTransformer', () => {
  it('matches PROJ for WGS 84 → UTM 33N and back', () => {
    // echo "48.2 15.5" | cs2cs -f %.4f EPSG:4326 EPSG:32633 → 537153.3112 5338650.6345 (PROJ 9.1.1)
    const t = makeTransformer(WGS84, UTM33);
    const [x, y] = t.forward([15.5, 48.2]);
    expect(x).toBeCloseTo(537153.3112, 3);
    expect(y).toBeCloseTo(5338650.6345, 3);
    const [lon, lat] = t.inverse([x, y]);
    expect(lon).toBeCloseTo(15.5, 10);
    expect(lat).toBeCloseTo(48.2, 10);
  });

  it('returns NaN for points outside the projection: non-finite, or finite nonsense that does not map back', () => {
    const t = makeTransformer(WGS84, UTM33);
    expect(t.forward([105, 0]).every(Number.isNaN)).toBe(true); // 90° from the central meridian: infinite
    expect(t.forward([100, 10]).every(Number.isNaN)).toBe(true); // finite, but 1.3e-5° off on the way back
    expect(makeTransformer(WGS84, MERCATOR).forward([0, 90]).every(Number.isNaN)).toBe(true);
  });

  it('rejects a definition proj4 cannot read as unsupported_raster', () => {
    expect(() => makeTransformer(WGS84, '+proj=nonsense +no_defs')).toThrow(ZonalError);
  });
});

describe('transformPolygons', () => {
  it('keeps a long edge true: the densified line stays within the tolerance of the real curve', () => {
    // A 30° edge along the 60th parallel (straight in lon/lat) in LAEA Europe curves by kilometres.
    const ring: Ring = [
      [0, 60],
      [30, 60],
      [30, 61],
      [0, 61],
      [0, 60],
    ];
    const t = makeTransformer(WGS84, LAEA_EUROPE);
    const tolerance = 1; // metre
    const [out] = transformPolygons([[ring]], t.forward, tolerance)[0] as Ring[];
    const line = out as Ring;
    // Reference: 30,001 points along the input edge, each transformed.
    const reference: Position[] = [];
    for (let i = 0; i <= 30_000; i++) reference.push(t.forward([i / 1000, 60]));
    const southEdge = line.slice(0, line.findIndex((p) => p[0] === reference[30_000]?.[0]) + 1);
    const worst = Math.max(...reference.map((p) => toPolyline(p, southEdge)));
    expect(worst).toBeLessThan(tolerance);
    const chord = Math.max(...reference.map((p) => toSegment(p, reference[0] as Position, reference[30_000] as Position)));
    expect(chord).toBeGreaterThan(50_000); // without densification the edge would be 50+ km off
    expect(southEdge.length).toBeLessThan(1000);
    expect(southEdge.length).toBeGreaterThan(100);
  });

  it('leaves straight images alone and keeps rings exactly closed', () => {
    const ring: Ring = [
      [15, 48],
      [15.001, 48],
      [15.001, 48.001],
      [15, 48.001],
      [15, 48],
    ];
    const [[out]] = transformPolygons([[ring]], makeTransformer(WGS84, UTM33).forward, 0.01) as Ring[][];
    expect(out).toHaveLength(5);
    expect(out?.[4]).toEqual(out?.[0]);
    const identity = transformPolygons([[ring, ring]], (p) => p, 1e-9);
    expect(identity).toEqual([[ring, ring]]);
  });

  it('stops subdividing at the vertex budget', () => {
    const ring: Ring = [
      [0, 60],
      [30, 60],
      [30, 61],
      [0, 61],
      [0, 60],
    ];
    const [[out]] = transformPolygons([[ring]], makeTransformer(WGS84, LAEA_EUROPE).forward, 1e-6, { maxVertices: 50 }) as Ring[][];
    // Midpoints already computed on the way down are kept: at most maxDepth (16) past the budget.
    expect(out?.length).toBeLessThanOrEqual(50 + 16 + 5);
  });

  it('throws invalid_geometry when the AOI cannot be expressed in the target CRS', () => {
    const polar: Ring = [
      [-10, 89],
      [10, 89],
      [10, 90],
      [-10, 90],
      [-10, 89],
    ];
    let error: unknown;
    try {
      transformPolygons([[polar]], makeTransformer(WGS84, MERCATOR).forward, 1);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ZonalError);
    expect((error as ZonalError).code).toBe('invalid_geometry');
    expect((error as ZonalError).detail).toBe("The area of interest cannot be expressed in the raster's coordinate system.");
    expect(() =>
      transformPolygons(
        [
          [
            [
              [95, 0],
              [100, 0],
              [100, 1],
              [95, 0],
            ],
          ],
        ],
        makeTransformer(WGS84, UTM33).forward,
        1,
      ),
    ).toThrow(ZonalError);
  });
});

describe('transformBBox', () => {
  it('bounds the image of the box (edges sampled)', () => {
    const t = makeTransformer(WGS84, UTM33);
    const b = transformBBox([14, 47, 17, 49], t.forward);
    // The box's image is widest on its southern edge and reaches furthest north at the corners.
    const sw = t.forward([14, 47]);
    const se = t.forward([17, 47]);
    const nw = t.forward([14, 49]);
    expect(b[0]).toBeCloseTo(sw[0], 6);
    expect(b[2]).toBeCloseTo(se[0], 6);
    expect(b[1]).toBeLessThan(sw[1]); // the southern edge sags below its corners
    expect(b[3]).toBeCloseTo(Math.max(nw[1], t.forward([17, 49])[1]), 6);
  });

  it('skips points with no image, and throws when none has one', () => {
    const t = makeTransformer(WGS84, MERCATOR);
    const b = transformBBox([-10, 80, 10, 90], t.forward);
    expect(Number.isFinite(b[3])).toBe(true);
    expect(() => transformBBox([-10, 90, 10, 90], t.forward)).toThrow(ZonalError);
  });
});
