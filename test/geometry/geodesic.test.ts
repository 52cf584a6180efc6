import { describe, expect, it } from 'vitest';
import {
  CIRCLE_VERTICES,
  WGS84_AREA_M2,
  ellipsoidalAreaM2,
  geodesicAreaLeftOfRingM2,
  geodesicCircle,
  geodesicDistanceM,
  latLonCellAreaM2,
  signedRingAreaM2,
} from '../../src/geometry/geodesic.ts';
import type { Ring } from '../../src/geometry/types.ts';
import { cellAreaByQuadrature, trueCircleAreaM2 } from './reference.ts';

const rel = (a: number, b: number) => Math.abs(a - b) / Math.abs(b);

describe('latLonCellAreaM2', () => {
  it('gives the whole WGS84 ellipsoid, 510,065,621.7 km²', () => {
    expect(WGS84_AREA_M2 / 1e6).toBeCloseTo(510065621.724, 2);
    expect(latLonCellAreaM2(-90, 90, 360)).toBeCloseTo(WGS84_AREA_M2, 0);
  });

  it('gives a 1° cell at the equator: 12,308.46 km² on WGS84', () => {
    // The brief's "about 12,363.7 km²" is the figure for a sphere of radius 6,371 km
    // ((6371·π/180)² · sin(1°)/(π/180) = 12,363.7); on the ellipsoid the meridian degree is shorter
    // (110.57 km against 111.19 km), hence 12,308.46 km².
    const a = latLonCellAreaM2(0, 1, 1);
    expect(a / 1e6).toBeCloseTo(12308.4639, 3);
    expect(rel(a, cellAreaByQuadrature(0, 1, 1))).toBeLessThan(1e-12);
    expect(rel(12363.7e6, 12308.4639e6)).toBeGreaterThan(4e-3);
  });

  it('agrees with brute-force quadrature of M·N·cosφ anywhere, in any argument order', () => {
    for (const [l1, l2, d] of [
      [60, 61, 1],
      [-45.5, -44.25, 0.3],
      [89, 90, 360],
      [-90, -89.999, 0.001],
      [10, 10.00001, 0.00001],
    ] as const) {
      expect(rel(latLonCellAreaM2(l1, l2, d), cellAreaByQuadrature(l1, l2, d))).toBeLessThan(1e-9);
      expect(rel(latLonCellAreaM2(l2, l1, -d), latLonCellAreaM2(l1, l2, d))).toBeLessThan(1e-14);
    }
  });
});

describe('ellipsoidalAreaM2', () => {
  const box = (x0: number, y0: number, x1: number, y1: number): Ring => [
    [x0, y0],
    [x1, y0],
    [x1, y1],
    [x0, y1],
    [x0, y0],
  ];

  it('is exact for a lon/lat box (edges straight in lon/lat), whichever the winding', () => {
    const cell = latLonCellAreaM2(50, 51, 2);
    expect(rel(ellipsoidalAreaM2([[box(10, 50, 12, 51)]]), cell)).toBeLessThan(1e-12);
    expect(rel(ellipsoidalAreaM2([[box(10, 50, 12, 51).reverse()]]), cell)).toBeLessThan(1e-12);
    expect(signedRingAreaM2(box(10, 50, 12, 51))).toBeGreaterThan(0);
    expect(signedRingAreaM2(box(10, 50, 12, 51).reverse())).toBeLessThan(0);
  });

  it('differs from the geodesic-edge reading of the same vertices, as it should for long edges', () => {
    // The same 1°×1° vertices with geodesic edges (geographiclib): 2.6e-5 more, the lens between the
    // geodesic and the parallel at 1°N. A 1,000,000 km² box at 55–65°N differs by ~2 %.
    const ring = box(0, 0, 1, 1);
    expect(rel(geodesicAreaLeftOfRingM2(ring), ellipsoidalAreaM2([[ring]]))).toBeCloseTo(2.55e-5, 6);
    const big = box(0, 55, 18, 65);
    expect(rel(geodesicAreaLeftOfRingM2(big), ellipsoidalAreaM2([[big]]))).toBeGreaterThan(0.01);
  });

  it('subtracts holes and adds polygons', () => {
    const outer = latLonCellAreaM2(0, 10, 10);
    const hole = latLonCellAreaM2(2, 3, 2);
    const other = latLonCellAreaM2(-5, -4, 1);
    const a = ellipsoidalAreaM2([[box(0, 0, 10, 10), box(2, 2, 4, 3).reverse()], [box(20, -5, 21, -4)]]);
    expect(rel(a, outer - hole + other)).toBeLessThan(1e-12);
  });

  it('handles polygons larger than half the earth, a band round the globe and a cap bounded by the pole', () => {
    expect(rel(ellipsoidalAreaM2([[box(-180, -80, 180, 80)]]), latLonCellAreaM2(-80, 80, 360))).toBeLessThan(1e-12);
    expect(rel(ellipsoidalAreaM2([[box(-180, -90, 180, 90)]]), WGS84_AREA_M2)).toBeLessThan(1e-12);
    expect(rel(ellipsoidalAreaM2([[box(-180, 60, 180, 90)]]), latLonCellAreaM2(60, 90, 360))).toBeLessThan(1e-12);
    // Antarctica-like: below a wavy coast, down to the south pole.
    const coast: Ring = [];
    for (let lon = -180; lon <= 180; lon += 10) coast.push([lon, -70]);
    const antarctica: Ring = [...coast, [180, -90], [-180, -90], [-180, -70]];
    expect(rel(ellipsoidalAreaM2([[antarctica]]), latLonCellAreaM2(-90, -70, 360))).toBeLessThan(1e-12);
  });

  it('reads a jump across the antimeridian as the short way, and a ring round a pole as closed by it', () => {
    const jump: Ring = [
      [179.5, 0],
      [-179.5, 0],
      [-179.5, 1],
      [179.5, 1],
      [179.5, 0],
    ];
    expect(rel(ellipsoidalAreaM2([[jump]]), latLonCellAreaM2(0, 1, 1))).toBeLessThan(1e-12);
    const beyond: Ring = [
      [179.5, 0],
      [180.5, 0],
      [180.5, 1],
      [179.5, 1],
      [179.5, 0],
    ];
    expect(rel(ellipsoidalAreaM2([[beyond]]), latLonCellAreaM2(0, 1, 1))).toBeLessThan(1e-12);
    const roundPole: Ring = [
      [45, 89],
      [135, 89],
      [-135, 89],
      [-45, 89],
      [45, 89],
    ];
    expect(rel(ellipsoidalAreaM2([[roundPole]]), latLonCellAreaM2(89, 90, 360))).toBeLessThan(1e-12);
  });

  it('is 0 for nothing', () => {
    expect(ellipsoidalAreaM2([])).toBe(0);
  });
});

describe('geodesicCircle', () => {
  it('puts CIRCLE_VERTICES vertices at the radius, counter-clockwise, closed', () => {
    const ring = geodesicCircle(-34.9, -8.05, 10_000);
    expect(CIRCLE_VERTICES).toBe(256);
    expect(ring).toHaveLength(CIRCLE_VERTICES + 1);
    expect(ring[CIRCLE_VERTICES]).toEqual(ring[0]);
    for (const [lon, lat] of ring) expect(geodesicDistanceM(-34.9, -8.05, lon, lat)).toBeCloseTo(10_000, 6);
    expect(signedRingAreaM2(ring)).toBeGreaterThan(0);
  });

  // Reference: the true circle's area from the reduced-length integral (reference.ts), checked against a
  // 100,000-vertex geodesic polygon. Measured errors of the 256-vertex circle (area of the polygon,
  // lon/lat edges): −1.0039e-4 at every radius below (the inscribed N-gon's 2π²/(3N²)), 10× inside 0.1 %.
  it.each([{ r: 1 }, { r: 300 }, { r: 10_000 }, { r: 1_000_000 }])('r = $r m: area within 0.1 percent of the true geodesic circle', ({ r }) => {
    const [lon, lat] = [10, 45];
    const truth = trueCircleAreaM2(lon, lat, r);
    if (r >= 300) {
      // geographiclib's polygon area loses precision on tiny polygons (1 m, 100k vertices: 5e-4 off).
      expect(rel(geodesicAreaLeftOfRingM2(geodesicCircle(lon, lat, r, 100_000)), truth)).toBeLessThan(1e-7);
    } else {
      expect(rel(truth, Math.PI * r * r)).toBeLessThan(1e-12);
    }
    const err = (ellipsoidalAreaM2([[geodesicCircle(lon, lat, r)]]) - truth) / truth;
    expect(Math.abs(err)).toBeLessThan(1e-3);
    expect(err).toBeCloseTo(-1.004e-4, 6);
  });

  it('geodesicAreaLeftOfRingM2 gives the interior of a counter-clockwise ring, even past half the earth', () => {
    const ring = geodesicCircle(170, 10, 15_000_000);
    const truth = trueCircleAreaM2(170, 10, 15_000_000);
    expect(truth).toBeGreaterThan(WGS84_AREA_M2 / 2);
    expect(rel(geodesicAreaLeftOfRingM2(ring), truth)).toBeLessThan(2e-4);
    expect(rel(geodesicAreaLeftOfRingM2([...ring].reverse()), WGS84_AREA_M2 - truth)).toBeLessThan(1e-3);
  });
});
