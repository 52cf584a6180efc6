/**
 * Polygon booleans (pure): the only file importing polyclip-ts. Real-world feature geometries are often
 * invalid (self-intersections); a clip that fails is retried on the feature repaired by a self-union,
 * which polyclip resolves into valid polygons.
 */
import { intersection as pcIntersection, union as pcUnion } from 'polyclip-ts';
import type { MultiPolygonCoords } from './types.ts';

/** a ∩ b, or null when even the repaired input cannot be clipped. */
export function intersect(a: MultiPolygonCoords, b: MultiPolygonCoords): MultiPolygonCoords | null {
  try {
    return pcIntersection(a, b) as MultiPolygonCoords;
  } catch {
    const fixed = repair(a);
    if (fixed === null) return null;
    try {
      return pcIntersection(fixed, b) as MultiPolygonCoords;
    } catch {
      return null;
    }
  }
}

/** The union of polygons (dissolves overlaps and self-intersections), or null on failure. */
export function unionAll(parts: readonly MultiPolygonCoords[]): MultiPolygonCoords | null {
  const nonEmpty = parts.filter((p) => p.length > 0);
  if (nonEmpty.length === 0) return [];
  try {
    const [first, ...rest] = nonEmpty;
    return pcUnion(first as MultiPolygonCoords, ...rest) as MultiPolygonCoords;
  } catch {
    return null;
  }
}

/** A self-union: resolves self-intersecting rings into valid polygons. */
export function repair(a: MultiPolygonCoords): MultiPolygonCoords | null {
  try {
    return pcUnion(a) as MultiPolygonCoords;
  } catch {
    return null;
  }
}
