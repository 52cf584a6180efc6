/** A polygon zone's pixel geometry packed for the trip to a worker comes back the same, holes and parts included. */
import { describe, expect, it } from 'vitest';
import { packGeometry, zoneGeometry } from '../../src/raster/fold-geometry.ts';
import type { MultiPolygonCoords } from '../../src/geometry/types.ts';

describe('packed zone geometry', () => {
  it('round-trips a multipolygon with a hole, and is packed once per geometry', () => {
    const geometry: MultiPolygonCoords = [
      [
        [
          [0.5, 0.25],
          [10.125, 0.25],
          [10.125, 7.75],
          [0.5, 0.25],
        ],
        [
          [2, 1],
          [3, 1],
          [3, 2],
          [2, 1],
        ],
      ],
      [
        [
          [-1e-9, 1e9],
          [5, 6],
          [7, 8],
          [-1e-9, 1e9],
        ],
      ],
    ];
    const packed = packGeometry(geometry);
    expect(packGeometry(geometry)).toBe(packed);
    const zone = {
      selection: { kind: 'polygon' as const, geometry: [], rule: 'fractional' as const },
      packed,
      window: { col0: 0, row0: 0, width: 1, height: 1 },
      weighted: true,
    };
    expect(zoneGeometry(zone)).toEqual(geometry);
    // Without a packed form the selection's own geometry is used.
    expect(zoneGeometry({ ...zone, packed: undefined, selection: { ...zone.selection, geometry } })).toBe(geometry);
  });
});
