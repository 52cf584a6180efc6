/**
 * vector/data-area.ts: data_area is the area of the union of the counted pieces, exact at any size:
 * boxes that overlap nothing add, overlapping groups are dissolved (big groups cut into tiles, unioned
 * separately and added). Checked against one plain GEOS union of everything, and against closed forms.
 */
import { describe, expect, it } from 'vitest';
import { dataAreaM2, overlapGroups, type DataAreaRunner, type PieceSet, type UnionJob } from '../../src/vector/data-area.ts';
import { unionAreas } from '../../src/workers/fold-worker.ts';
import { geometryEngine } from '../../src/geometry/geos.ts';
import { wkbBBox, wkbFromPolygons, wkbPolygonalAreaM2 } from '../../src/geometry/wkb.ts';
import { latLonCellAreaM2 } from '../../src/geometry/geodesic.ts';

const rect = (x0: number, y0: number, x1: number, y1: number) =>
  wkbFromPolygons([
    [
      [
        [x0, y0],
        [x1, y0],
        [x1, y1],
        [x0, y1],
        [x0, y0],
      ],
    ],
  ]);

function pieceSet(pieces: Uint8Array[]): PieceSet {
  const size = pieces.reduce((n, p) => n + p.length, 0);
  const bytes = new Uint8Array(size);
  const offsets = new Uint32Array(pieces.length + 1);
  const boxes = new Float64Array(4 * pieces.length);
  const areas = new Float64Array(pieces.length);
  let o = 0;
  pieces.forEach((p, i) => {
    bytes.set(p, o);
    o += p.length;
    offsets[i + 1] = o;
    boxes.set(wkbBBox(p) as number[], 4 * i);
    areas[i] = wkbPolygonalAreaM2(p);
  });
  const linked = new Uint8Array(pieces.length);
  for (const g of overlapGroups(boxes)) for (const i of g) linked[i] = 1;
  return { bytes, offsets, boxes, areas, present: new Uint8Array(pieces.length).fill(1), linked };
}

const calls: UnionJob[][] = [];
const union: DataAreaRunner = {
  unionAreas(jobs: UnionJob[]) {
    calls.push(jobs);
    return unionAreas(jobs);
  },
  overlapGroups: async (boxes) => overlapGroups(boxes),
};

describe('overlapGroups', () => {
  it('groups boxes that overlap, transitively; touching boxes stay apart', () => {
    const boxes = Float64Array.from([0, 0, 1, 1, 0.5, 0.5, 2, 2, 1.5, 1.5, 3, 3, 3, 0, 4, 1, 10, 10, 11, 11]);
    expect(overlapGroups(boxes).map((g) => g.sort())).toEqual([[0, 1, 2]]);
  });
});

describe('dataAreaM2', () => {
  it('disjoint pieces add without any union', async () => {
    calls.length = 0;
    const a = await dataAreaM2([pieceSet([rect(0, 0, 1, 1), rect(1, 0, 2, 1)]), pieceSet([rect(5, 5, 6, 6)])], 1, 0, union);
    expect(calls).toHaveLength(0);
    expect(a).toBeCloseTo(2 * latLonCellAreaM2(0, 1, 1) + latLonCellAreaM2(5, 6, 1), 0);
  });

  it('overlapping pieces in different chunks count once', async () => {
    const a = await dataAreaM2([pieceSet([rect(0, 0, 2, 1)]), pieceSet([rect(1, 0, 3, 1)])], 1, 0, union);
    expect(Math.abs(a / latLonCellAreaM2(0, 1, 3) - 1)).toBeLessThan(1e-12);
  });

  it('a big overlapping group (cut into tiles) gives the area of one plain union of everything', async () => {
    // 3,000 squares of 0.015° on a 0.01° pitch, jittered: every square overlaps its neighbours.
    const pieces: Uint8Array[] = [];
    for (let i = 0; i < 3000; i++) {
      const x = 10 + (i % 60) * 0.01 + ((i * 7919) % 13) * 1e-4;
      const y = 45 + Math.floor(i / 60) * 0.01 + ((i * 104729) % 11) * 1e-4;
      pieces.push(rect(x, y, x + 0.015, y + 0.015));
    }
    calls.length = 0;
    const tiled = await dataAreaM2([pieceSet(pieces.slice(0, 1700)), pieceSet(pieces.slice(1700))], 1, 0, union);
    expect(calls[0]?.length).toBeGreaterThan(1);
    expect(calls[0]?.every((j) => j.rect !== null)).toBe(true);
    const engine = await geometryEngine();
    const whole = wkbPolygonalAreaM2(engine.union(pieces));
    expect(Math.abs(tiled / whole - 1)).toBeLessThan(1e-12);
  }, 60_000);

  it('only the pieces a column counts (present) enter its data_area', async () => {
    const set = pieceSet([rect(0, 0, 1, 1), rect(0.5, 0, 1.5, 1)]);
    set.present = Uint8Array.from([1, 1, 1, 0]); // 2 columns: piece 1 counts only for column 0
    const c0 = await dataAreaM2([set], 2, 0, union);
    const c1 = await dataAreaM2([set], 2, 1, union);
    expect(Math.abs(c0 / latLonCellAreaM2(0, 1, 1.5) - 1)).toBeLessThan(1e-12);
    expect(Math.abs(c1 / latLonCellAreaM2(0, 1, 1) - 1)).toBeLessThan(1e-12);
  });
});
