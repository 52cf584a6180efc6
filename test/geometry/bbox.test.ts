import { describe, expect, it } from 'vitest';
import {
  EMPTY_BBOX,
  bboxContains,
  bboxOfPolygon,
  bboxOfPolygons,
  bboxOfRing,
  bboxesIntersect,
  bboxesOfPolygons,
  expandBBox,
  intersectBBox,
  isEmptyBBox,
  unionBBox,
} from '../../src/geometry/bbox.ts';
import { parseAoi } from '../../src/geometry/aoi.ts';
import type { BBox, Ring } from '../../src/geometry/types.ts';

const square = (x0: number, y0: number, x1: number, y1: number): Ring => [
  [x0, y0],
  [x1, y0],
  [x1, y1],
  [x0, y1],
  [x0, y0],
];

describe('bbox', () => {
  it('boxes rings, polygons and multipolygons', () => {
    expect(
      bboxOfRing([
        [3, -1],
        [5, 2],
        [4, 7],
        [3, -1],
      ]),
    ).toEqual([3, -1, 5, 7]);
    expect(bboxOfPolygon([square(0, 0, 4, 4), square(1, 1, 2, 2)])).toEqual([0, 0, 4, 4]);
    expect(bboxOfPolygons([[square(0, 0, 1, 1)], [square(5, -2, 6, 3)]])).toEqual([0, -2, 6, 3]);
    expect(isEmptyBBox(bboxOfPolygons([]))).toBe(true);
  });

  it('gives one box per part of an AOI split at the antimeridian, tighter than their union', () => {
    const aoi = parseAoi({ type: 'Polygon', coordinates: [square(179, 0, 181, 1)] }, { maxVertices: 100 });
    if (aoi.kind !== 'area') throw new Error('area expected');
    expect(bboxesOfPolygons(aoi.polygons)).toEqual([
      [179, 0, 180, 1],
      [-180, 0, -179, 1],
    ]);
    expect(bboxOfPolygons(aoi.polygons)).toEqual([-180, 0, 180, 1]);
  });

  it('unites, intersects, tests and expands', () => {
    const a: BBox = [0, 0, 2, 2];
    const b: BBox = [1, 1, 3, 3];
    expect(unionBBox(a, b)).toEqual([0, 0, 3, 3]);
    expect(unionBBox([...EMPTY_BBOX], a)).toEqual(a);
    expect(intersectBBox(a, b)).toEqual([1, 1, 2, 2]);
    expect(intersectBBox(a, [2, 0, 4, 1])).toEqual([2, 0, 2, 1]); // touching: degenerate, not null
    expect(intersectBBox(a, [2.5, 0, 4, 1])).toBeNull();
    expect(bboxesIntersect(a, [2, 2, 5, 5])).toBe(true);
    expect(bboxesIntersect(a, [2.1, 2, 5, 5])).toBe(false);
    expect(bboxContains(a, 2, 0)).toBe(true);
    expect(bboxContains(a, 2.01, 0)).toBe(false);
    expect(expandBBox(a, 1)).toEqual([-1, -1, 3, 3]);
    expect(expandBBox(a, 1, 0.5)).toEqual([-1, -0.5, 3, 2.5]);
    expect(isEmptyBBox(expandBBox([...EMPTY_BBOX], 10))).toBe(true);
  });
});
