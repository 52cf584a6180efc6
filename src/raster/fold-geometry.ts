/**
 * A polygon selection's pixel geometry packed in one Float64Array for the trip to a worker (pure). A task
 * carries every zone that touches its blocks, and a cube's request posts ~500 tasks: nested coordinate
 * arrays were cloned vertex by vertex every time, one typed array is copied at once. Layout: the number of
 * polygons; per polygon its number of rings; per ring its number of points, then x, y of each.
 */
import type { MultiPolygonCoords, Position } from '../geometry/types.ts';
import type { FoldZone } from './fold-types.ts';

const packedOf = new WeakMap<MultiPolygonCoords, Float64Array>();

/** The geometry packed (once per geometry object: a zone's plan serves every task). */
export function packGeometry(geometry: MultiPolygonCoords): Float64Array {
  let out = packedOf.get(geometry);
  if (out !== undefined) return out;
  let size = 1;
  for (const poly of geometry) {
    size += 1;
    for (const ring of poly) size += 1 + 2 * ring.length;
  }
  out = new Float64Array(size);
  let k = 0;
  out[k++] = geometry.length;
  for (const poly of geometry) {
    out[k++] = poly.length;
    for (const ring of poly) {
      out[k++] = ring.length;
      for (const [x, y] of ring) {
        out[k++] = x;
        out[k++] = y;
      }
    }
  }
  packedOf.set(geometry, out);
  return out;
}

function unpack(p: Float64Array): MultiPolygonCoords {
  let k = 0;
  const polys: MultiPolygonCoords = [];
  for (let n = p[k++] as number; n > 0; n--) {
    const rings: Position[][] = [];
    for (let r = p[k++] as number; r > 0; r--) {
      const ring: Position[] = [];
      for (let m = p[k++] as number; m > 0; m--) {
        ring.push([p[k] as number, p[k + 1] as number]);
        k += 2;
      }
      rings.push(ring);
    }
    polys.push(rings);
  }
  return polys;
}

const unpacked = new WeakMap<Float64Array, MultiPolygonCoords>();

/** A polygon zone's pixel geometry: its selection's, or unpacked from FoldZone.packed (once per task). */
export function zoneGeometry(zone: FoldZone): MultiPolygonCoords {
  const sel = zone.selection;
  if (sel.kind !== 'polygon') return [];
  if (zone.packed === undefined) return sel.geometry;
  let g = unpacked.get(zone.packed);
  if (g === undefined) unpacked.set(zone.packed, (g = unpack(zone.packed)));
  return g;
}
