/**
 * Features against the AOI: WKB read into shapes (geometry/wkb.ts), touch mode (vector/touch.ts), and the
 * overlap of a polygonal feature with the prepared AOI (vector/tally.ts featureOverlap, through GEOS in
 * geometry/geos.ts). The WKB handed in is written by a few lines here, not by the modules under test. Areas are checked against the closed form of a lon/lat rectangle on the
 * WGS84 ellipsoid, written out here independently of src/geometry/geodesic.ts:
 *
 *   A([λ1,λ2] × [φ1,φ2]) = |λ2 − λ1| (radians) · b²/2 · [q(φ2) − q(φ1)],
 *   q(φ) = sin φ / (1 − e² sin² φ) + 1/(2e) · ln((1 + e sin φ) / (1 − e sin φ)),
 *
 * so a rectangle's area is proportional to its longitude width: cut at its middle meridian it is exactly
 * halved. (Edges straight in lon/lat, as contract §5 and the oracle read them.)
 */
import { describe, expect, it } from 'vitest';
import { wkbFromPolygons, wkbFromShape, wkbToShape, type Shape } from '../../src/geometry/wkb.ts';
import { geometryEngine, type PreparedAoi } from '../../src/geometry/geos.ts';
import { featureOverlap } from '../../src/vector/tally.ts';
import { pointInPolygons, touchesPoint } from '../../src/vector/touch.ts';
import type { MultiPolygonCoords, PolygonCoords, Position } from '../../src/geometry/types.ts';

type Geometry =
  | { type: 'Point'; coordinates: number[] }
  | { type: 'MultiPoint' | 'LineString'; coordinates: number[][] }
  | { type: 'MultiLineString' | 'Polygon'; coordinates: number[][][] }
  | { type: 'MultiPolygon'; coordinates: number[][][][] }
  | { type: 'GeometryCollection'; geometries: Geometry[] };

/** GeoJSON → ISO WKB (little-endian; 3D when a coordinate has z, as ISO type + 1000), written here. */
function toWkb(g: Geometry): Uint8Array {
  const out: number[] = [];
  const u32 = (v: number) => out.push(...new Uint8Array(Uint32Array.of(v).buffer));
  const f64 = (v: number) => out.push(...new Uint8Array(Float64Array.of(v).buffer));
  const hasZ = (c: unknown): boolean => (Array.isArray(c) && typeof c[0] === 'number' ? c.length > 2 : Array.isArray(c) && c.some(hasZ));
  const write = (x: Geometry): void => {
    const z = x.type !== 'GeometryCollection' && hasZ(x.coordinates);
    const types = { Point: 1, LineString: 2, Polygon: 3, MultiPoint: 4, MultiLineString: 5, MultiPolygon: 6, GeometryCollection: 7 };
    out.push(1);
    u32(types[x.type] + (z ? 1000 : 0));
    const pt = (p: number[]) => {
      f64(p[0] ?? Number.NaN);
      f64(p[1] ?? Number.NaN);
      if (z) f64(p[2] ?? 0);
    };
    const path = (l: number[][]) => {
      u32(l.length);
      l.forEach(pt);
    };
    switch (x.type) {
      case 'Point':
        pt(x.coordinates);
        break;
      case 'LineString':
        path(x.coordinates);
        break;
      case 'Polygon':
        u32(x.coordinates.length);
        x.coordinates.forEach(path);
        break;
      case 'MultiPoint':
        u32(x.coordinates.length);
        x.coordinates.forEach((c) => write({ type: 'Point', coordinates: c }));
        break;
      case 'MultiLineString':
        u32(x.coordinates.length);
        x.coordinates.forEach((c) => write({ type: 'LineString', coordinates: c }));
        break;
      case 'MultiPolygon':
        u32(x.coordinates.length);
        x.coordinates.forEach((c) => write({ type: 'Polygon', coordinates: c }));
        break;
      case 'GeometryCollection':
        u32(x.geometries.length);
        x.geometries.forEach(write);
        break;
    }
  };
  write(g);
  return Uint8Array.from(out);
}

const shapeOf = (g: Geometry | null): Shape | null => (g === null ? null : wkbToShape(toWkb(g)));

const engine = await geometryEngine();
const indexAoi = (polygons: MultiPolygonCoords): PreparedAoi => engine.prepare(wkbFromPolygons(polygons));
const polygonOverlap = (aoi: PreparedAoi, feature: MultiPolygonCoords) => {
  const ov = featureOverlap(aoi, wkbFromPolygons(feature));
  if (ov === null) return null;
  const shape = wkbToShape(ov.piece);
  return { interAreaM2: ov.interAreaM2, featureAreaM2: ov.featureAreaM2, pieces: shape?.kind === 'polygon' ? shape.polygons : [] };
};
const meetsAoi = (aoi: PreparedAoi, shape: Shape): boolean => aoi.meets(wkbFromShape(shape));

const A = 6378137;
const F = 1 / 298.257223563;
const B = A * (1 - F);
const E = Math.sqrt(F * (2 - F));
const q = (latDeg: number): number => {
  const s = Math.sin((latDeg * Math.PI) / 180);
  return s / (1 - E * E * s * s) + (1 / (2 * E)) * Math.log((1 + E * s) / (1 - E * s));
};
/** Area in m² of [lon1, lon2] × [lat1, lat2] on WGS84, closed form. */
const rectArea = (lon1: number, lat1: number, lon2: number, lat2: number): number =>
  Math.abs((((lon2 - lon1) * Math.PI) / 180) * ((B * B) / 2) * (q(lat2) - q(lat1)));

/** Counter-clockwise ring of a lon/lat rectangle. */
const rect = (x0: number, y0: number, x1: number, y1: number): Position[] => [
  [x0, y0],
  [x1, y0],
  [x1, y1],
  [x0, y1],
  [x0, y0],
];
/** Clockwise (a hole's winding). */
const rectCw = (x0: number, y0: number, x1: number, y1: number): Position[] => [
  [x0, y0],
  [x0, y1],
  [x1, y1],
  [x1, y0],
  [x0, y0],
];
const poly = (...rings: Position[][]): PolygonCoords => rings;

function expectRel(got: number, want: number, tol = 1e-12): void {
  expect(Math.abs(got - want), `got ${got}, want ${want}`).toBeLessThanOrEqual(tol * Math.abs(want));
}

describe('the closed form used below (sanity)', () => {
  it('the whole ellipsoid is 510,065,621,724,088 m² (WGS84 authalic sphere area)', () => {
    // 4π R_q² with R_q = 6371007.1809 m (the WGS84 authalic radius): 5.10065621724e14 m².
    expectRel(rectArea(-180, -90, 180, 90), 510065621724088.5, 1e-12);
  });
});

describe('shapeOf', () => {
  it('null and empty geometries are null', () => {
    expect(shapeOf(null)).toBeNull();
    expect(shapeOf({ type: 'Point', coordinates: [] })).toBeNull(); // NaN coordinates: WKB's empty point
    expect(shapeOf({ type: 'MultiPoint', coordinates: [] })).toBeNull();
    expect(shapeOf({ type: 'MultiLineString', coordinates: [] })).toBeNull();
    expect(shapeOf({ type: 'Polygon', coordinates: [] })).toBeNull();
    expect(shapeOf({ type: 'MultiPolygon', coordinates: [] })).toBeNull();
    expect(shapeOf({ type: 'MultiPolygon', coordinates: [[]] })).toBeNull();
    expect(shapeOf({ type: 'GeometryCollection', geometries: [] })).toBeNull();
  });

  it('Point and MultiPoint (altitudes dropped)', () => {
    expect(shapeOf({ type: 'Point', coordinates: [1, 2] })).toEqual({ kind: 'point', points: [[1, 2]] });
    expect(shapeOf({ type: 'Point', coordinates: [1, 2, 300] })).toEqual({ kind: 'point', points: [[1, 2]] });
    expect(
      shapeOf({
        type: 'MultiPoint',
        coordinates: [
          [1, 2],
          [3, 4, 5],
        ],
      }),
    ).toEqual({
      kind: 'point',
      points: [
        [1, 2],
        [3, 4],
      ],
    });
  });

  it('LineString and MultiLineString', () => {
    expect(
      shapeOf({
        type: 'LineString',
        coordinates: [
          [0, 0],
          [1, 1, 9],
        ],
      }),
    ).toEqual({
      kind: 'line',
      lines: [
        [
          [0, 0],
          [1, 1],
        ],
      ],
    });
    expect(
      shapeOf({
        type: 'MultiLineString',
        coordinates: [
          [
            [0, 0],
            [1, 1],
          ],
          [
            [2, 2],
            [3, 3],
          ],
        ],
      }),
    ).toEqual({
      kind: 'line',
      lines: [
        [
          [0, 0],
          [1, 1],
        ],
        [
          [2, 2],
          [3, 3],
        ],
      ],
    });
  });

  it('Polygon (holes kept) and MultiPolygon', () => {
    const p = [rect(0, 0, 4, 4), rectCw(1, 1, 2, 2)];
    expect(shapeOf({ type: 'Polygon', coordinates: p })).toEqual({ kind: 'polygon', polygons: [p] });
    expect(shapeOf({ type: 'MultiPolygon', coordinates: [p, [rect(5, 5, 6, 6)]] })).toEqual({ kind: 'polygon', polygons: [p, [rect(5, 5, 6, 6)]] });
    const z = [
      [0, 0, 1],
      [1, 0, 1],
      [1, 1, 1],
      [0, 0, 1],
    ];
    expect(shapeOf({ type: 'Polygon', coordinates: [z] })).toEqual({
      kind: 'polygon',
      polygons: [
        [
          [
            [0, 0],
            [1, 0],
            [1, 1],
            [0, 0],
          ],
        ],
      ],
    });
  });

  it('GeometryCollection: merged by dimension, the highest wins, nested collections too', () => {
    const pt: Geometry = { type: 'Point', coordinates: [9, 9] };
    const ln: Geometry = {
      type: 'LineString',
      coordinates: [
        [0, 0],
        [1, 0],
      ],
    };
    const pg: Geometry = { type: 'Polygon', coordinates: [rect(0, 0, 1, 1)] };
    const pg2: Geometry = { type: 'MultiPolygon', coordinates: [[rect(2, 2, 3, 3)]] };
    expect(shapeOf({ type: 'GeometryCollection', geometries: [pt, ln, pg] })).toEqual({ kind: 'polygon', polygons: [[rect(0, 0, 1, 1)]] });
    expect(shapeOf({ type: 'GeometryCollection', geometries: [pg, { type: 'GeometryCollection', geometries: [pt, pg2] }] })).toEqual({
      kind: 'polygon',
      polygons: [[rect(0, 0, 1, 1)], [rect(2, 2, 3, 3)]],
    });
    expect(shapeOf({ type: 'GeometryCollection', geometries: [pt, ln] })).toEqual({
      kind: 'line',
      lines: [
        [
          [0, 0],
          [1, 0],
        ],
      ],
    });
    expect(shapeOf({ type: 'GeometryCollection', geometries: [pt, { type: 'MultiPoint', coordinates: [[1, 1]] }] })).toEqual({
      kind: 'point',
      points: [
        [9, 9],
        [1, 1],
      ],
    });
    expect(shapeOf({ type: 'GeometryCollection', geometries: [{ type: 'GeometryCollection', geometries: [] }] })).toBeNull();
  });
});

describe('pointInPolygons (even-odd, holes honoured)', () => {
  const withHole: MultiPolygonCoords = [poly(rect(0, 0, 4, 4), rectCw(1, 1, 3, 3))];
  it('inside, in the hole, outside', () => {
    expect(pointInPolygons(withHole, 0.5, 0.5)).toBe(true);
    expect(pointInPolygons(withHole, 3.5, 2)).toBe(true);
    expect(pointInPolygons(withHole, 2, 2)).toBe(false);
    expect(pointInPolygons(withHole, 5, 2)).toBe(false);
    expect(pointInPolygons(withHole, -0.1, 2)).toBe(false);
  });
  it('a hole wound either way is a hole', () => {
    expect(pointInPolygons([poly(rect(0, 0, 4, 4), rect(1, 1, 3, 3))], 2, 2)).toBe(false);
  });
  it('several polygons: inside any part', () => {
    const mp: MultiPolygonCoords = [poly(rect(0, 0, 1, 1)), poly(rect(5, 5, 6, 6))];
    expect(pointInPolygons(mp, 0.5, 0.5)).toBe(true);
    expect(pointInPolygons(mp, 5.5, 5.5)).toBe(true);
    expect(pointInPolygons(mp, 3, 3)).toBe(false);
  });
});

describe('touchesPoint (touch mode: contains or touches)', () => {
  const square: Shape = { kind: 'polygon', polygons: [poly(rect(0, 0, 2, 2), rectCw(0.5, 0.5, 1.5, 1.5))] };
  it.each<[string, number, number, boolean]>([
    ['inside', 0.25, 1, true],
    ['on the east edge (squares_point_edge: (2, 1) on A = [0,2]²)', 2, 1, true],
    ['on the south edge', 1, 0, true],
    ['on a vertex', 0, 0, true],
    ['on the opposite vertex', 2, 2, true],
    ['in the hole', 1, 1, false],
    ["on the hole's edge", 0.5, 1, true],
    ['on a hole vertex', 1.5, 1.5, true],
    ['outside, east', 2.000001, 1, false],
    ['outside, on the edge line extended', 3, 0, false],
  ])('polygon: %s', (_name, x, y, want) => {
    expect(touchesPoint(square, x, y)).toBe(want);
  });

  const line: Shape = {
    kind: 'line',
    lines: [
      [
        [0, 0],
        [2, 0],
        [2, 2],
      ],
    ],
  };
  it.each<[string, number, number, boolean]>([
    ['on a segment', 1, 0, true],
    ['on the inner vertex', 2, 0, true],
    ['on an end', 2, 2, true],
    ['on the start', 0, 0, true],
    ['on the second segment', 2, 1.25, true],
    ['beside the line', 1, 0.001, false],
    ['on the segment line extended, beyond the start', -1, 0, false],
    ['inside the bend (not on the line)', 1, 1, false],
  ])('line: %s', (_name, x, y, want) => {
    expect(touchesPoint(line, x, y)).toBe(want);
  });

  it('a diagonal line: a point on it, and one just off it', () => {
    const diag: Shape = {
      kind: 'line',
      lines: [
        [
          [0, 0],
          [3, 3],
        ],
      ],
    };
    expect(touchesPoint(diag, 1.5, 1.5)).toBe(true);
    expect(touchesPoint(diag, 1.5, 1.5001)).toBe(false);
  });

  it('points: the same point touches, another does not', () => {
    const pts: Shape = {
      kind: 'point',
      points: [
        [1.5, 0.5],
        [3, 3],
      ],
    };
    expect(touchesPoint(pts, 1.5, 0.5)).toBe(true);
    expect(touchesPoint(pts, 3, 3)).toBe(true);
    expect(touchesPoint(pts, 1.5, 0.50001)).toBe(false);
    expect(touchesPoint(pts, 0, 0)).toBe(false);
  });
});

describe('polygonOverlap', () => {
  // AOI: [0,10] × [0,10] degrees.
  const aoi = indexAoi([poly(rect(0, 0, 10, 10))]);

  it('a feature wholly inside: its full area, no clip (the feature itself is the piece)', () => {
    const feature: MultiPolygonCoords = [poly(rect(2, 2, 3, 3))];
    const ov = polygonOverlap(aoi, feature);
    expect(ov).not.toBeNull();
    expectRel(ov!.featureAreaM2, rectArea(2, 2, 3, 3));
    expect(ov!.interAreaM2).toBe(ov!.featureAreaM2);
    expect(ov!.pieces).toEqual(feature);
  });

  it('a feature wholly outside is null (beyond the AOI box, and inside the box of a concave AOI)', () => {
    expect(polygonOverlap(aoi, [poly(rect(20, 2, 21, 3))])).toBeNull();
    const ell = indexAoi([
      poly([
        [0, 0],
        [10, 0],
        [10, 5],
        [5, 5],
        [5, 10],
        [0, 10],
        [0, 0],
      ]),
    ]);
    expect(polygonOverlap(ell, [poly(rect(7, 7, 8, 8))])).toBeNull();
    // (control) the same AOI does take a feature in its lower arm.
    expectRel(polygonOverlap(ell, [poly(rect(7, 1, 8, 2))])!.interAreaM2, rectArea(7, 1, 8, 2));
  });

  it('a feature cut by the AOI at its middle meridian: exactly half its area', () => {
    const ov = polygonOverlap(aoi, [poly(rect(9, 4, 11, 5))]);
    expect(ov).not.toBeNull();
    expectRel(ov!.featureAreaM2, rectArea(9, 4, 11, 5));
    expectRel(ov!.interAreaM2, rectArea(9, 4, 10, 5));
    expectRel(ov!.interAreaM2 / ov!.featureAreaM2, 0.5);
    // The piece is the western half.
    const xs = ov!.pieces.flat(2).map((p) => p[0]);
    expect(Math.min(...xs)).toBe(9);
    expect(Math.max(...xs)).toBe(10);
  });

  it('a feature over the AOI corner: a quarter by longitude, the lower latitude band by latitude', () => {
    const ov = polygonOverlap(aoi, [poly(rect(9, 9, 11, 11))]);
    expectRel(ov!.interAreaM2, rectArea(9, 9, 10, 10));
    expectRel(ov!.featureAreaM2, rectArea(9, 9, 11, 11));
  });

  it('a feature inside, touching the AOI boundary from within: still its full area', () => {
    const ov = polygonOverlap(aoi, [poly(rect(9, 4, 10, 5))]);
    expectRel(ov!.interAreaM2, rectArea(9, 4, 10, 5), 1e-11);
    expectRel(ov!.featureAreaM2, rectArea(9, 4, 10, 5));
  });

  it('a feature touching the AOI only along an edge, or at a corner, is null (no area)', () => {
    expect(polygonOverlap(aoi, [poly(rect(10, 4, 11, 5))])).toBeNull();
    expect(polygonOverlap(aoi, [poly(rect(-1, 4, 0, 5))])).toBeNull();
    expect(polygonOverlap(aoi, [poly(rect(3, 10, 4, 11))])).toBeNull();
    expect(polygonOverlap(aoi, [poly(rect(10, 10, 11, 11))])).toBeNull();
  });

  it('a feature with a hole: feature area = outer − hole; cut at the middle meridian of both: half', () => {
    const holed = [poly(rect(2, 2, 6, 6), rectCw(3, 3, 5, 5))];
    const inside = polygonOverlap(aoi, holed);
    expectRel(inside!.featureAreaM2, rectArea(2, 2, 6, 6) - rectArea(3, 3, 5, 5));
    expect(inside!.interAreaM2).toBe(inside!.featureAreaM2);
    const cut = polygonOverlap(aoi, [poly(rect(8, 2, 12, 6), rectCw(9, 3, 11, 5))]);
    expectRel(cut!.interAreaM2, rectArea(8, 2, 10, 6) - rectArea(9, 3, 10, 5), 1e-11);
    expectRel(cut!.interAreaM2 / cut!.featureAreaM2, 0.5, 1e-11);
  });

  it('an AOI with a hole: a feature inside the hole is null, one across the hole edge keeps the part outside it', () => {
    const holed = indexAoi([poly(rect(0, 0, 10, 10), rectCw(4, 4, 6, 6))]);
    expect(polygonOverlap(holed, [poly(rect(4.5, 4.5, 5.5, 5.5))])).toBeNull();
    const across = polygonOverlap(holed, [poly(rect(5, 1, 7, 5))]);
    expectRel(across!.interAreaM2, rectArea(5, 1, 7, 5) - rectArea(5, 4, 6, 5), 1e-11);
  });

  it('a multipolygon feature with one part inside and one far outside: share ½ (same latitudes, same widths)', () => {
    const ov = polygonOverlap(aoi, [poly(rect(2, 2, 3, 3)), poly(rect(20, 2, 21, 3))]);
    expectRel(ov!.interAreaM2, rectArea(2, 2, 3, 3), 1e-11);
    expectRel(ov!.featureAreaM2, 2 * rectArea(2, 2, 3, 3));
  });

  it('a multipolygon AOI: the parts it overlaps add up', () => {
    const two = indexAoi([poly(rect(0, 0, 1, 1)), poly(rect(2, 0, 3, 1))]);
    const ov = polygonOverlap(two, [poly(rect(0.5, 0, 2.5, 1))]);
    expectRel(ov!.interAreaM2, rectArea(0.5, 0, 1, 1) + rectArea(2, 0, 2.5, 1), 1e-11);
    expectRel(ov!.featureAreaM2, rectArea(0.5, 0, 2.5, 1));
  });

  it('an invalid bow-tie feature across an AOI edge does not throw; whatever it answers is finite and consistent', () => {
    const bowtie: MultiPolygonCoords = [
      poly([
        [9, 4],
        [11, 5],
        [11, 4],
        [9, 5],
        [9, 4],
      ]),
    ];
    const run = (): ReturnType<typeof polygonOverlap> => polygonOverlap(aoi, bowtie);
    expect(run).not.toThrow();
    const o = run();
    if (o !== null) {
      expect(Number.isFinite(o.interAreaM2)).toBe(true);
      expect(o.interAreaM2).toBeGreaterThan(0);
      // The western lobe: the triangle (9,4) (9,5) (10,4.5), half the 1° × 1° cell in lon/lat (on the
      // ellipsoid a few 1e-6 more, as it gathers near the middle latitude where cells are widest).
      expectRel(o.interAreaM2, 0.5 * rectArea(9, 4, 10, 5), 1e-4);
      expect(o.featureAreaM2).toBeGreaterThanOrEqual(o.interAreaM2);
    }
  });

  it('an invalid bow-tie feature wholly inside the AOI does not throw', () => {
    expect(() =>
      polygonOverlap(aoi, [
        poly([
          [2, 2],
          [3, 3],
          [3, 2],
          [2, 3],
          [2, 2],
        ]),
      ]),
    ).not.toThrow();
  });

  // Self-crossing features (bow ties) are repaired before they are measured: their area is the sum of
  // their lobes, not the shoelace difference.
  it('a symmetric bow tie wholly inside the AOI counts with the area of both lobes', () => {
    // Triangles (2,2) (2,3) (2.5,2.5) and (3,2) (3,3) (2.5,2.5): half the 1° × 1° cell in lon/lat.
    const ov = polygonOverlap(aoi, [
      poly([
        [2, 2],
        [3, 3],
        [3, 2],
        [2, 3],
        [2, 2],
      ]),
    ]);
    expect(ov).not.toBeNull();
    expectRel(ov!.featureAreaM2, 0.5 * rectArea(2, 2, 3, 3), 1e-4);
    expect(ov!.interAreaM2).toBe(ov!.featureAreaM2);
  });

  it('an asymmetric bow tie wholly inside the AOI counts lobe₁ + lobe₂ (5/3 deg²), not their difference (1 deg²)', () => {
    // Edges (2,2)→(4,4) and (4,2)→(2,3) cross at (8/3, 8/3): lobes of 4/3 and 1/3 deg² in lon/lat;
    // the 2° × 2° cell is 4 deg², and its density varies by < 0.2 % over 2–4° N.
    const ov = polygonOverlap(aoi, [
      poly([
        [2, 2],
        [4, 4],
        [4, 2],
        [2, 3],
        [2, 2],
      ]),
    ]);
    expectRel(ov!.featureAreaM2, (5 / 12) * rectArea(2, 2, 4, 4), 2e-3);
  });

  it('a bow tie across an AOI edge: the piece is one lobe, the feature both (share ½, not 1)', () => {
    const ov = polygonOverlap(aoi, [
      poly([
        [9, 4],
        [11, 5],
        [11, 4],
        [9, 5],
        [9, 4],
      ]),
    ]);
    expect(ov).not.toBeNull();
    expectRel(ov!.featureAreaM2, 2 * ov!.interAreaM2, 1e-9);
  });
});

describe('meetsAoi (point and line datasets in intersect mode)', () => {
  const aoi = indexAoi([poly(rect(0, 0, 2, 1))]);
  it.each<[string, Shape, boolean]>([
    ['a point inside', { kind: 'point', points: [[1, 0.5]] }, true],
    ['a point on the AOI edge', { kind: 'point', points: [[2, 0.5]] }, true],
    ['a point outside', { kind: 'point', points: [[3, 0.5]] }, false],
    [
      'a multipoint with one point inside',
      {
        kind: 'point',
        points: [
          [5, 5],
          [1, 0.5],
        ],
      },
      true,
    ],
    [
      'a line crossing the AOI with no vertex inside',
      {
        kind: 'line',
        lines: [
          [
            [-1, 0.5],
            [3, 0.5],
          ],
        ],
      },
      true,
    ],
    [
      'a line inside',
      {
        kind: 'line',
        lines: [
          [
            [0.5, 0.5],
            [1.5, 0.5],
          ],
        ],
      },
      true,
    ],
    [
      'a line going round the AOI',
      {
        kind: 'line',
        lines: [
          [
            [-1, -1],
            [3, -1],
            [3, 2],
            [-1, 2],
          ],
        ],
      },
      false,
    ],
    [
      'a line touching the AOI corner',
      {
        kind: 'line',
        lines: [
          [
            [2, 1],
            [3, 2],
          ],
        ],
      },
      true,
    ],
    [
      'a line far away',
      {
        kind: 'line',
        lines: [
          [
            [10, 10],
            [11, 11],
          ],
        ],
      },
      false,
    ],
  ])('%s → %s', (_name, shape, want) => {
    expect(meetsAoi(aoi, shape)).toBe(want);
  });
});
