import { describe, expect, it } from 'vitest';
import { MAX_RADIUS_M, parseAoi, type AoiInput } from '../../src/geometry/aoi.ts';
import { ZonalError } from '../../src/errors.ts';
import { WGS84_AREA_M2, ellipsoidalAreaM2, geodesicAreaLeftOfRingM2, geodesicCircle, latLonCellAreaM2, signedRingAreaM2 } from '../../src/geometry/geodesic.ts';
import type { Aoi, MultiPolygonCoords, Ring } from '../../src/geometry/types.ts';
import { trueCircleAreaM2 } from './reference.ts';

const LIMITS = { maxVertices: 100_000 };
const rel = (a: number, b: number) => Math.abs(a - b) / Math.abs(b);
const box = (x0: number, y0: number, x1: number, y1: number): number[][] => [
  [x0, y0],
  [x1, y0],
  [x1, y1],
  [x0, y1],
  [x0, y0],
];

function area(aoi: Aoi): { polygons: MultiPolygonCoords; areaM2: number } {
  if (aoi.kind !== 'area') throw new Error('expected an area');
  return aoi;
}

function allLons(polygons: MultiPolygonCoords): number[] {
  return polygons.flat(2).map((p) => p[0]);
}

/** The ZonalError a bad AOI throws. */
function rejection(input: AoiInput, limits = LIMITS): ZonalError {
  try {
    parseAoi(input, limits);
  } catch (e) {
    if (e instanceof ZonalError) return e;
    throw e;
  }
  throw new Error('expected a ZonalError');
}

function expectValidShape(polygons: MultiPolygonCoords): void {
  for (const polygon of polygons) {
    polygon.forEach((ring, k) => {
      expect(ring.length).toBeGreaterThanOrEqual(4);
      expect(ring[ring.length - 1]).toEqual(ring[0]);
      // Exterior counter-clockwise, holes clockwise.
      expect(Math.sign(signedRingAreaM2(ring))).toBe(k === 0 ? 1 : -1);
      for (const [x, y] of ring) {
        expect(x).toBeGreaterThanOrEqual(-180);
        expect(x).toBeLessThanOrEqual(180);
        expect(y).toBeGreaterThanOrEqual(-90);
        expect(y).toBeLessThanOrEqual(90);
      }
    });
  }
}

describe('parseAoi: points and circles', () => {
  it('a point without radius, or radius 0, is a bare point', () => {
    expect(parseAoi({ type: 'Point', coordinates: [5.9, 49.6] }, LIMITS)).toEqual({ kind: 'point', lon: 5.9, lat: 49.6 });
    expect(parseAoi({ type: 'Point', coordinates: [5.9, 49.6, 300], radius: 0 }, LIMITS)).toEqual({ kind: 'point', lon: 5.9, lat: 49.6 });
  });

  it.each([
    [{ type: 'Point', coordinates: [181, 0] }, "The point's longitude 181 is outside [-180, 180].", '/aoi/coordinates/0'],
    [{ type: 'Point', coordinates: [0, -90.5] }, "The point's latitude -90.5 is outside [-90, 90].", '/aoi/coordinates/1'],
    [{ type: 'Point', coordinates: [Infinity, 0] }, 'The point is not a pair of finite numbers.', '/aoi/coordinates'],
    [{ type: 'Point', coordinates: [0, 0], radius: -1 }, 'The radius must be a finite number of metres, 0 or more.', '/aoi/radius'],
    [{ type: 'Point', coordinates: [0, 0], radius: Number.NaN }, 'The radius must be a finite number of metres, 0 or more.', '/aoi/radius'],
    [
      { type: 'Point', coordinates: [0, 0], radius: 20_000_000 },
      `A radius of 20000000 m is too large: a circle's radius must be at most ${MAX_RADIUS_M} m.`,
      '/aoi/radius',
    ],
  ] as [AoiInput, string, string][])('rejects %j', (input, detail, path) => {
    const e = rejection(input);
    expect(e.code).toBe('invalid_geometry');
    expect(e.detail).toBe(detail);
    expect(e.extras).toEqual({ errors: [{ path, message: detail }] });
  });

  // True areas from the reduced-length integral (reference.ts). Measured relative errors of the
  // 256-vertex circles: −1.0039e-4 for r = 1 m, 300 m, 10 km, 1000 km and across the antimeridian;
  // +2.5e-6 round the north pole (the lon/lat-straight edges near the pole bulge outwards).
  it.each([{ r: 1 }, { r: 300 }, { r: 10_000 }, { r: 1_000_000 }])('a circle of $r m has its true area to 0.1 percent', ({ r }) => {
    const aoi = area(parseAoi({ type: 'Point', coordinates: [-34.9, -8.05], radius: r }, LIMITS));
    const truth = trueCircleAreaM2(-34.9, -8.05, r);
    expect(rel(aoi.areaM2, truth)).toBeLessThan(1e-3);
    expect(rel(aoi.areaM2, truth)).toBeCloseTo(1.004e-4, 6);
    expect(aoi.polygons).toHaveLength(1);
    expect(aoi.polygons[0]?.[0]).toHaveLength(257);
    expectValidShape(aoi.polygons);
    expect(parseAoi({ type: 'Point', coordinates: [-34.9, -8.05], radius: r }, LIMITS)).toMatchObject({ source: 'circle' });
  });

  it('a circle across the antimeridian is split in two, longitudes within ±180, area intact', () => {
    const aoi = area(parseAoi({ type: 'Point', coordinates: [179.99, 0], radius: 5000 }, LIMITS));
    expect(aoi.polygons).toHaveLength(2);
    expectValidShape(aoi.polygons);
    const lons = allLons(aoi.polygons);
    expect(lons).toContain(180);
    expect(lons).toContain(-180);
    // 5 km east of 179.99° reaches −179.965°.
    expect(Math.min(...lons.filter((x) => x < 0))).toBe(-180);
    expect(Math.max(...lons.filter((x) => x < 0))).toBeCloseTo(-179.965, 3);
    const truth = trueCircleAreaM2(179.99, 0, 5000);
    expect(rel(aoi.areaM2, truth)).toBeLessThan(1e-3);
    const parts = aoi.polygons.map((p) => ellipsoidalAreaM2([p]));
    expect(rel((parts[0] as number) + (parts[1] as number), aoi.areaM2)).toBeLessThan(1e-12);
    expect(rel(aoi.areaM2, ellipsoidalAreaM2([[geodesicCircle(179.99, 0, 5000)]]))).toBeLessThan(1e-12);
  });

  it('a circle containing the north pole is one polygon bounded by the circle and the pole', () => {
    const aoi = area(parseAoi({ type: 'Point', coordinates: [0, 89.9], radius: 50_000 }, LIMITS));
    expect(aoi.polygons).toHaveLength(1);
    expectValidShape(aoi.polygons);
    const ring = aoi.polygons[0]?.[0] as Ring;
    expect(ring).toContainEqual([180, 90]);
    expect(ring).toContainEqual([-180, 90]);
    expect(Math.min(...allLons(aoi.polygons))).toBe(-180);
    expect(Math.max(...allLons(aoi.polygons))).toBe(180);
    // Cut where the circle meets meridian 180, 50 km − 11.1 km beyond the pole (latitude ≈ 89.652°);
    // its southernmost point is on meridian 0, 50 km from the centre (≈ 89.452°).
    const cut = ring.find((p) => p[0] === -180 && p[1] < 90) as [number, number];
    expect(cut[1]).toBeCloseTo(89.652, 3);
    expect(ring).toContainEqual([180, cut[1]]);
    expect(Math.min(...ring.map((p) => p[1]))).toBeCloseTo(89.452, 3);
    const truth = trueCircleAreaM2(0, 89.9, 50_000);
    expect(rel(aoi.areaM2, truth)).toBeLessThan(1e-3);
    expect(rel(aoi.areaM2, truth)).toBeCloseTo(2.5e-6, 6);
  });

  it('circles containing the south pole, or centred on a pole, too', () => {
    for (const [lon, lat] of [
      [120, -89.95],
      [0, -90],
      [45, 90],
    ] as const) {
      const aoi = area(parseAoi({ type: 'Point', coordinates: [lon, lat], radius: 50_000 }, LIMITS));
      expect(aoi.polygons).toHaveLength(1);
      expectValidShape(aoi.polygons);
      expect(allLons(aoi.polygons)).toContain(lat > 0 ? 180 : -180);
      expect(rel(aoi.areaM2, trueCircleAreaM2(lon, lat, 50_000))).toBeLessThan(1e-3);
    }
  });

  it('a circle containing both poles is the world minus the region round the antipode', () => {
    const aoi = area(parseAoi({ type: 'Point', coordinates: [170, 10], radius: 15_000_000 }, LIMITS));
    expect(aoi.polygons).toHaveLength(1);
    expectValidShape(aoi.polygons);
    expect(aoi.polygons[0]?.length).toBe(2); // the world box and one hole round (−10, −10)
    const truth = geodesicAreaLeftOfRingM2(geodesicCircle(170, 10, 15_000_000));
    expect(truth).toBeGreaterThan(WGS84_AREA_M2 / 2);
    expect(rel(aoi.areaM2, truth)).toBeLessThan(1e-3);
  });

  it('the circle counts towards the vertex limit', () => {
    expect(rejection({ type: 'Point', coordinates: [0, 0], radius: 10 }, { maxVertices: 100 }).code).toBe('too_many_vertices');
  });
});

describe('parseAoi: polygons', () => {
  it('keeps a valid polygon as it is, with its ellipsoidal area', () => {
    const aoi = parseAoi({ type: 'Polygon', coordinates: [box(5, 49, 6, 50), box(5.2, 49.2, 5.4, 49.4).reverse()] }, LIMITS);
    expect(aoi).toMatchObject({ kind: 'area', source: 'polygon' });
    const a = area(aoi);
    expect(a.polygons).toEqual([[box(5, 49, 6, 50), box(5.2, 49.2, 5.4, 49.4).reverse()]]);
    expect(rel(a.areaM2, latLonCellAreaM2(49, 50, 1) - latLonCellAreaM2(49.2, 49.4, 0.2))).toBeLessThan(1e-12);
  });

  it('normalises winding: exterior counter-clockwise, holes clockwise; drops repeated positions', () => {
    const a = area(
      parseAoi(
        {
          type: 'Polygon',
          coordinates: [
            [
              [5, 49],
              [5, 50],
              [6, 50],
              [6, 50],
              [6, 49],
              [5, 49],
            ],
            box(5.2, 49.2, 5.4, 49.4),
          ],
        },
        LIMITS,
      ),
    );
    expectValidShape(a.polygons);
    expect(a.polygons[0]?.[0]).toHaveLength(5);
  });

  it('splits a polygon that continues across the antimeridian (179 → 181): parts add up to the whole', () => {
    const a = area(parseAoi({ type: 'Polygon', coordinates: [box(179, 0, 181, 1)] }, LIMITS));
    expect(a.polygons).toHaveLength(2);
    expectValidShape(a.polygons);
    const bboxes = a.polygons.map((p) => [Math.min(...(p[0] as Ring).map((q) => q[0])), Math.max(...(p[0] as Ring).map((q) => q[0]))]);
    expect(bboxes).toEqual([
      [179, 180],
      [-180, -179],
    ]);
    const parts = a.polygons.map((p) => ellipsoidalAreaM2([p]));
    const whole = ellipsoidalAreaM2([[box(179, 0, 181, 1) as Ring]]);
    expect(rel((parts[0] as number) + (parts[1] as number), whole)).toBeLessThan(1e-12);
    expect(rel(a.areaM2, whole)).toBeLessThan(1e-12);
    expect(rel(a.areaM2, latLonCellAreaM2(0, 1, 2))).toBeLessThan(1e-12);
  });

  it('splits on the western side too, and carries holes and concave shapes across', () => {
    const west = area(parseAoi({ type: 'Polygon', coordinates: [box(-181, 0, -179, 1)] }, LIMITS));
    expect(west.polygons).toHaveLength(2);
    expectValidShape(west.polygons);
    // A hole straddling the line: each part keeps its half as a notch.
    const holed = area(parseAoi({ type: 'Polygon', coordinates: [box(170, -10, 190, 10), box(175, -5, 185, 5).reverse()] }, LIMITS));
    expect(holed.polygons).toHaveLength(2);
    expectValidShape(holed.polygons);
    expect(rel(holed.areaM2, latLonCellAreaM2(-10, 10, 20) - latLonCellAreaM2(-5, 5, 10))).toBeLessThan(1e-12);
    // A hole wholly beyond the line stays a hole of the far part.
    const far = area(parseAoi({ type: 'Polygon', coordinates: [box(170, -10, 190, 10), box(182, -1, 183, 1).reverse()] }, LIMITS));
    expect(far.polygons.map((p) => p.length).sort()).toEqual([1, 2]);
    expectValidShape(far.polygons);
    // A U open to the north, cut through both arms' base: two U-halves.
    const u = [
      [170, 0],
      [190, 0],
      [190, 10],
      [185, 10],
      [185, 2],
      [175, 2],
      [175, 10],
      [170, 10],
      [170, 0],
    ];
    const ua = area(parseAoi({ type: 'Polygon', coordinates: [u] }, LIMITS));
    expect(ua.polygons).toHaveLength(2);
    expectValidShape(ua.polygons);
    expect(rel(ua.areaM2, ellipsoidalAreaM2([[u as Ring]]))).toBeLessThan(1e-12);
    // Cut through both arms of a U open to the east (crossing the line four times): three parts.
    const c = [
      [175, 0],
      [185, 0],
      [185, 1],
      [178, 1],
      [178, 9],
      [185, 9],
      [185, 10],
      [175, 10],
      [175, 0],
    ];
    const ca = area(parseAoi({ type: 'Polygon', coordinates: [c] }, LIMITS));
    expect(ca.polygons).toHaveLength(3);
    expectValidShape(ca.polygons);
    expect(rel(ca.areaM2, ellipsoidalAreaM2([[c as Ring]]))).toBeLessThan(1e-12);
  });

  it('shifts a polygon lying wholly beyond 180, and reads 179 → −179 as the long way round', () => {
    const beyond = area(parseAoi({ type: 'Polygon', coordinates: [box(185, 0, 186, 1)] }, LIMITS));
    expect(beyond.polygons).toEqual([[box(-175, 0, -174, 1)]]);
    const longWay = area(parseAoi({ type: 'Polygon', coordinates: [box(-179, 0, 179, 1)] }, LIMITS));
    expect(rel(longWay.areaM2, latLonCellAreaM2(0, 1, 358))).toBeLessThan(1e-12);
    // Its 358° edges come back cut in two, so nothing downstream can read them as a hop across 180.
    expect(longWay.polygons[0]?.[0]).toEqual([
      [-179, 0],
      [0, 0],
      [179, 0],
      [179, 1],
      [0, 1],
      [-179, 1],
      [-179, 0],
    ]);
  });

  it('accepts a band round the globe and a cap bounded by the pole', () => {
    const band = area(parseAoi({ type: 'Polygon', coordinates: [box(-180, 60, 180, 90)] }, LIMITS));
    expect(rel(band.areaM2, latLonCellAreaM2(60, 90, 360))).toBeLessThan(1e-12);
    expect(band.polygons[0]?.[0]).toEqual([
      [-180, 60],
      [-60, 60],
      [60, 60],
      [180, 60],
      [180, 90],
      [60, 90],
      [-60, 90],
      [-180, 90],
      [-180, 60],
    ]);
  });

  it('accepts holes and polygons that touch at a point or along an edge', () => {
    expect(() =>
      parseAoi(
        {
          type: 'Polygon',
          coordinates: [
            box(0, 0, 4, 4),
            [
              [0, 0],
              [1, 2],
              [2, 1],
              [0, 0],
            ],
          ],
        },
        LIMITS,
      ),
    ).not.toThrow();
    expect(() => parseAoi({ type: 'Polygon', coordinates: [box(0, 0, 4, 4), box(1, 1, 2, 2), box(2, 2, 3, 3)] }, LIMITS)).not.toThrow();
    const pair = area(parseAoi({ type: 'MultiPolygon', coordinates: [[box(0, 0, 1, 1)], [box(1, 0, 2, 1)]] }, LIMITS));
    expect(rel(pair.areaM2, latLonCellAreaM2(0, 1, 2))).toBeLessThan(1e-12);
    // Two parts meeting at the antimeridian, given on either side of it.
    expect(() => parseAoi({ type: 'MultiPolygon', coordinates: [[box(170, 0, 180, 1)], [box(180, 0, 190, 1)]] }, LIMITS)).not.toThrow();
  });
});

describe('parseAoi: invalid polygons (422 with the reason)', () => {
  const cases: [string, AoiInput, string, string][] = [
    [
      'a ring with too few positions',
      {
        type: 'Polygon',
        coordinates: [
          [
            [0, 0],
            [1, 0],
            [0, 0],
          ],
        ],
      },
      'Ring 0 of the polygon has 3 positions; a ring needs at least 4 (three corners and the closing position).',
      '/aoi/coordinates/0',
    ],
    [
      'an unclosed ring',
      {
        type: 'MultiPolygon',
        coordinates: [
          [box(0, 0, 1, 1)],
          [
            [
              [2, 0],
              [3, 0],
              [3, 1],
              [2, 1],
              [2, 0.5],
            ],
          ],
        ],
      },
      'Ring 0 of polygon 1 is not closed: its last position must repeat its first.',
      '/aoi/coordinates/1/0/4',
    ],
    [
      'a non-finite number',
      {
        type: 'Polygon',
        coordinates: [
          [
            [0, 0],
            [1, 0],
            [1, Infinity],
            [0, 0],
          ],
        ],
      },
      'Position 2 of ring 0 of the polygon is not a pair of finite numbers.',
      '/aoi/coordinates/0/2',
    ],
    [
      'a latitude beyond 90',
      {
        type: 'Polygon',
        coordinates: [
          [
            [0, 0],
            [1, 0],
            [1, 91],
            [0, 0],
          ],
        ],
      },
      'Position 2 of ring 0 of the polygon has latitude 91, outside [-90, 90].',
      '/aoi/coordinates/0/2',
    ],
    [
      'a longitude beyond 360',
      {
        type: 'Polygon',
        coordinates: [
          [
            [350, 0],
            [361, 0],
            [361, 1],
            [350, 0],
          ],
        ],
      },
      'Position 1 of ring 0 of the polygon has longitude 361, outside [-180, 180] (a ring may continue across the antimeridian only up to ±360).',
      '/aoi/coordinates/0/1',
    ],
    [
      'a polygon spanning more than 360°',
      { type: 'Polygon', coordinates: [box(-190, 0, 175, 1)] },
      'The polygon spans 365° of longitude (from -190 to 175), more than once round the globe.',
      '/aoi/coordinates',
    ],
    [
      'a zero-area ring',
      {
        type: 'Polygon',
        coordinates: [
          [
            [0, 0],
            [1, 1],
            [2, 2],
            [0, 0],
          ],
        ],
      },
      'Ring 0 of the polygon has zero area: its positions all lie on one line.',
      '/aoi/coordinates/0',
    ],
    [
      'a ring of one repeated position',
      {
        type: 'Polygon',
        coordinates: [
          [
            [3, 3],
            [3, 3],
            [3, 3],
            [3, 3],
          ],
        ],
      },
      'Ring 0 of the polygon has zero area: its positions all lie on one line.',
      '/aoi/coordinates/0',
    ],
    [
      'a ring crossing itself (bow tie)',
      {
        type: 'Polygon',
        coordinates: [
          [
            [0, 0],
            [1, 1],
            [1, 0],
            [0, 1],
            [0, 0],
          ],
        ],
      },
      'Ring 0 of the polygon crosses itself near (0.5, 0.5).',
      '/aoi/coordinates/0',
    ],
    [
      'a ring touching itself',
      {
        type: 'Polygon',
        coordinates: [
          [
            [0, 0],
            [2, 0],
            [1, 1],
            [2, 2],
            [0, 2],
            [1, 1],
            [0, 0],
          ],
        ],
      },
      'Ring 0 of the polygon touches itself near (1, 1).',
      '/aoi/coordinates/0',
    ],
    [
      'a hole crossing its exterior ring',
      {
        type: 'Polygon',
        coordinates: [
          box(0, 0, 1, 1),
          [
            [0.5, 0.5],
            [1.5, 0.5],
            [1.5, 0.8],
            [0.5, 0.5],
          ],
        ],
      },
      'Ring 1 of the polygon crosses ring 0 near (1, 0.5).',
      '/aoi/coordinates/1',
    ],
    [
      'a hole outside its exterior ring',
      {
        type: 'Polygon',
        coordinates: [
          box(0, 0, 1, 1),
          [
            [2, 2],
            [3, 2],
            [3, 3],
            [2, 2],
          ],
        ],
      },
      'Ring 1 of the polygon (a hole) is not inside the exterior ring.',
      '/aoi/coordinates/1',
    ],
    [
      'a hole in the bay of a concave exterior',
      {
        type: 'Polygon',
        coordinates: [
          [
            [0, 0],
            [3, 0],
            [3, 3],
            [2, 3],
            [2, 1],
            [1, 1],
            [1, 3],
            [0, 3],
            [0, 0],
          ],
          box(1.2, 2, 1.8, 2.5),
        ],
      },
      'Ring 1 of the polygon (a hole) is not inside the exterior ring.',
      '/aoi/coordinates/1',
    ],
    [
      'a hole around its exterior ring',
      { type: 'Polygon', coordinates: [box(1, 1, 2, 2), box(0, 0, 3, 3)] },
      'Ring 1 of the polygon (a hole) is not inside the exterior ring.',
      '/aoi/coordinates/1',
    ],
    [
      'a hole inside another',
      { type: 'Polygon', coordinates: [box(0, 0, 10, 10), box(1, 1, 5, 5), box(2, 2, 3, 3)] },
      'Rings 1 and 2 of the polygon (both holes) overlap.',
      '/aoi/coordinates/2',
    ],
    [
      'two holes crossing',
      { type: 'Polygon', coordinates: [box(0, 0, 10, 10), box(1, 1, 5, 5), box(4, 4, 6, 6)] },
      'Ring 2 of the polygon crosses ring 1 near (5, 4).',
      '/aoi/coordinates/2',
    ],
    [
      'polygons crossing each other',
      { type: 'MultiPolygon', coordinates: [[box(0, 0, 2, 2)], [box(1, 1, 3, 3)]] },
      'Polygons 0 and 1 cross each other near (2, 1).',
      '/aoi/coordinates/1',
    ],
    [
      'a polygon inside another',
      { type: 'MultiPolygon', coordinates: [[box(0, 0, 10, 10)], [box(2, 2, 3, 3)]] },
      'Polygons 0 and 1 overlap.',
      '/aoi/coordinates/1',
    ],
    [
      'polygons overlapping once the antimeridian is applied',
      { type: 'MultiPolygon', coordinates: [[box(170, 0, 190, 10)], [box(-175, 2, -172, 3)]] },
      'Polygons 0 and 1 overlap.',
      '/aoi/coordinates/1',
    ],
  ];
  it.each(cases)('%s', (_, input, detail, path) => {
    const e = rejection(input);
    expect(e.code).toBe('invalid_geometry');
    expect(e.status).toBe(422);
    expect(e.detail).toBe(detail);
    expect(e.extras).toEqual({ errors: [{ path, message: detail }] });
  });

  it('a ring running back over itself (a spike)', () => {
    // The spike both folds back on its edge and touches the ring where it returns; either is reported.
    const e = rejection({
      type: 'Polygon',
      coordinates: [
        [
          [0, 0],
          [3, 0],
          [3, 1],
          [2, 1],
          [3, 1],
          [3, 2],
          [0, 2],
          [0, 0],
        ],
      ],
    });
    expect(e.code).toBe('invalid_geometry');
    expect(e.detail).toMatch(/^Ring 0 of the polygon (runs back over|touches) itself near \((2\.5|3|2), 1\)\.$/);
  });

  it('a polygon inside a hole of another is fine', () => {
    expect(() => parseAoi({ type: 'MultiPolygon', coordinates: [[box(0, 0, 10, 10), box(2, 2, 8, 8)], [box(3, 3, 4, 4)]] }, LIMITS)).not.toThrow();
  });

  it('too many vertices is too_many_vertices, counting every position', () => {
    const e = rejection({ type: 'MultiPolygon', coordinates: [[box(0, 0, 1, 1)], [box(2, 0, 3, 1)]] }, { maxVertices: 9 });
    expect(e.code).toBe('too_many_vertices');
    expect(e.detail).toBe('The area of interest has 10 vertices, above the limit of 9.');
    expect(() => parseAoi({ type: 'MultiPolygon', coordinates: [[box(0, 0, 1, 1)], [box(2, 0, 3, 1)]] }, { maxVertices: 10 })).not.toThrow();
  });
});
