/**
 * geometry/wkb.ts: WKB read in place. The inputs are written byte by byte here (both byte orders, EWKB
 * flags and SRID, ISO Z/M/ZM), so the reader is checked against the format, not against itself.
 */
import { describe, expect, it } from 'vitest';
import { wkbBBox, wkbFromPolygons, wkbKind, wkbPolygonalAreaM2, wkbToShape } from '../../src/geometry/wkb.ts';
import { ellipsoidalAreaM2 } from '../../src/geometry/geodesic.ts';
import type { MultiPolygonCoords } from '../../src/geometry/types.ts';

/** A little WKB writer: header (order, type as given), then counts and doubles. */
function bytes(le: boolean, parts: ({ u8: number } | { u32: number } | { f64: number })[]): Uint8Array {
  const out: number[] = [];
  for (const p of parts) {
    const b = new DataView(new ArrayBuffer(8));
    if ('u8' in p) out.push(p.u8);
    else if ('u32' in p) {
      b.setUint32(0, p.u32, le);
      out.push(...new Uint8Array(b.buffer, 0, 4));
    } else {
      b.setFloat64(0, p.f64, le);
      out.push(...new Uint8Array(b.buffer, 0, 8));
    }
  }
  return Uint8Array.from(out);
}
const ring = (dims: number, pts: number[][]) => [{ u32: pts.length }, ...pts.flatMap((p) => p.slice(0, dims).map((f64) => ({ f64 })))];
const square = [
  [0, 0, 7, 8],
  [2, 0, 7, 8],
  [2, 1, 7, 8],
  [0, 1, 7, 8],
  [0, 0, 7, 8],
];

describe('wkb', () => {
  it('reads a polygon in either byte order, with EWKB Z and SRID, or ISO ZM: the same box, kind and shape', () => {
    const le = bytes(true, [{ u8: 1 }, { u32: 3 }, { u32: 1 }, ...ring(2, square)]);
    const be = bytes(false, [{ u8: 0 }, { u32: 3 }, { u32: 1 }, ...ring(2, square)]);
    const ewkb = bytes(true, [{ u8: 1 }, { u32: (0x80000000 | 0x20000000 | 3) >>> 0 }, { u32: 4326 }, { u32: 1 }, ...ring(3, square)]);
    const zm = bytes(false, [{ u8: 0 }, { u32: 3003 }, { u32: 1 }, ...ring(4, square)]);
    for (const w of [le, be, ewkb, zm]) {
      expect(wkbBBox(w)).toEqual([0, 0, 2, 1]);
      expect(wkbKind(w)).toBe('polygon');
      expect(wkbToShape(w)).toEqual({ kind: 'polygon', polygons: [[square.map((p) => [p[0], p[1]])]] });
    }
  });

  it('empty geometries: no box, no kind, no shape; an empty point is NaN, NaN', () => {
    const emptyPoint = bytes(true, [{ u8: 1 }, { u32: 1 }, { f64: Number.NaN }, { f64: Number.NaN }]);
    const emptyPolygon = bytes(true, [{ u8: 1 }, { u32: 3 }, { u32: 0 }]);
    const emptyCollection = bytes(true, [{ u8: 1 }, { u32: 7 }, { u32: 0 }]);
    for (const w of [emptyPoint, emptyPolygon, emptyCollection]) {
      expect(wkbBBox(w)).toBeNull();
      expect(wkbKind(w)).toBeNull();
      expect(wkbToShape(w)).toBeNull();
    }
  });

  it('a collection takes the highest dimension among its parts', () => {
    const pt = [{ u8: 1 }, { u32: 1 }, { f64: 5 }, { f64: 6 }];
    const ln = [{ u8: 1 }, { u32: 2 }, { u32: 2 }, { f64: 0 }, { f64: 0 }, { f64: 1 }, { f64: 1 }];
    expect(wkbKind(bytes(true, [{ u8: 1 }, { u32: 7 }, { u32: 2 }, ...pt, ...ln]))).toBe('line');
    expect(wkbBBox(bytes(true, [{ u8: 1 }, { u32: 7 }, { u32: 2 }, ...pt, ...ln]))).toEqual([0, 0, 5, 6]);
  });

  it('truncated or unknown WKB throws rather than reading garbage', () => {
    const le = bytes(true, [{ u8: 1 }, { u32: 3 }, { u32: 1 }, ...ring(2, square)]);
    expect(() => wkbBBox(le.subarray(0, le.length - 3))).toThrow(/invalid WKB/);
    expect(() => wkbBBox(bytes(true, [{ u8: 1 }, { u32: 17 }]))).toThrow(/invalid WKB/);
    expect(() => wkbBBox(new TextEncoder().encode('POLYGON((0 0, 1 0, 1 1, 0 0))'))).toThrow(/invalid WKB/);
  });

  it('polygonal area equals ellipsoidalAreaM2 of the same coordinates (holes subtracted, lines ignored)', () => {
    const polys: MultiPolygonCoords = [
      [
        [
          [10, 40],
          [11, 40],
          [11, 41],
          [10, 41],
          [10, 40],
        ],
        [
          [10.2, 40.2],
          [10.2, 40.4],
          [10.4, 40.4],
          [10.4, 40.2],
          [10.2, 40.2],
        ],
      ],
      [
        [
          [170, -10],
          [-170, -10],
          [-170, -5],
          [170, -5],
          [170, -10],
        ],
      ],
    ];
    expect(wkbPolygonalAreaM2(wkbFromPolygons(polys))).toBe(ellipsoidalAreaM2(polys));
    const line = bytes(true, [{ u8: 1 }, { u32: 2 }, { u32: 2 }, { f64: 0 }, { f64: 0 }, { f64: 1 }, { f64: 1 }]);
    expect(wkbPolygonalAreaM2(line)).toBe(0);
  });
});
