/**
 * Pure: how much of a feature lies inside the AOI (CONTRACT §5 vector rules), in lon/lat with areas on
 * the WGS84 ellipsoid. Only features that an AOI edge crosses are clipped (polyclip costs ~1 ms a clip);
 * a feature no AOI edge reaches is either wholly inside (its full area counts) or wholly outside.
 */
import type { BBox, MultiPolygonCoords, Position } from '../geometry/types.ts';
import { bboxesIntersect, bboxOfPolygons, bboxOfPositions } from '../geometry/bbox.ts';
import { ellipsoidalAreaM2 } from '../geometry/geodesic.ts';
import { intersect, repair } from '../geometry/clip.ts';
import { crossesItself } from '../geometry/planar.ts';
import type { Geometry } from './reader.ts';

/** A feature reduced to what the rules need. */
export type Shape =
  | { kind: 'polygon'; polygons: MultiPolygonCoords }
  | { kind: 'point'; points: Position[] }
  | { kind: 'line'; lines: Position[][] };

/** The AOI prepared for many feature tests. */
export interface AoiIndex {
  polygons: MultiPolygonCoords;
  boxes: BBox[];
  /** Every ring edge as x1, y1, x2, y2. */
  edges: Float64Array;
}

// 2D positions are used as they come, not copied (a row group holds 10,000s); 3D ones lose their z.
const pos = (p: number[]): Position => (p.length === 2 ? (p as unknown as Position) : [p[0] as number, p[1] as number]);
const line = (l: number[][]): Position[] => (l.every((p) => p.length === 2) ? (l as unknown as Position[]) : l.map(pos));

/** GeoJSON geometry → Shape (collections merged by dimension, the highest wins); null when empty. */
export function shapeOf(g: Geometry | null): Shape | null {
  if (g === null) return null;
  const polygons: MultiPolygonCoords = [];
  const points: Position[] = [];
  const lines: Position[][] = [];
  const visit = (x: Geometry): void => {
    switch (x.type) {
      case 'Point': if (x.coordinates.length >= 2) points.push(pos(x.coordinates)); break;
      case 'MultiPoint': for (const p of x.coordinates) points.push(pos(p)); break;
      case 'LineString': lines.push(line(x.coordinates)); break;
      case 'MultiLineString': for (const l of x.coordinates) lines.push(line(l)); break;
      case 'Polygon': if (x.coordinates.length > 0) polygons.push(x.coordinates.map(line)); break;
      case 'MultiPolygon': for (const p of x.coordinates) if (p.length > 0) polygons.push(p.map(line)); break;
      case 'GeometryCollection': for (const y of x.geometries) visit(y); break;
    }
  };
  visit(g);
  if (polygons.length > 0) return { kind: 'polygon', polygons };
  if (lines.length > 0) return { kind: 'line', lines };
  if (points.length > 0) return { kind: 'point', points };
  return null;
}

/** Bounding box of a GeoJSON geometry without building anything (to reject most rows cheaply). */
export function geometryBBox(g: Geometry): BBox | null {
  const b: BBox = [Infinity, Infinity, -Infinity, -Infinity];
  const add = (p: number[]): void => {
    const x = p[0] as number;
    const y = p[1] as number;
    if (x < b[0]) b[0] = x;
    if (y < b[1]) b[1] = y;
    if (x > b[2]) b[2] = x;
    if (y > b[3]) b[3] = y;
  };
  const visit = (x: Geometry): void => {
    switch (x.type) {
      case 'Point': add(x.coordinates); break;
      case 'MultiPoint': case 'LineString': for (const p of x.coordinates) add(p); break;
      case 'MultiLineString': case 'Polygon': for (const r of x.coordinates) for (const p of r) add(p); break;
      case 'MultiPolygon': for (const poly of x.coordinates) for (const r of poly) for (const p of r) add(p); break;
      case 'GeometryCollection': for (const y of x.geometries) visit(y); break;
    }
  };
  visit(g);
  return b[0] <= b[2] && b[1] <= b[3] ? b : null;
}

export function indexAoi(polygons: MultiPolygonCoords): AoiIndex {
  const edges: number[] = [];
  for (const poly of polygons) {
    for (const ring of poly) {
      for (let i = 0; i + 1 < ring.length; i++) {
        const a = ring[i] as Position;
        const b = ring[i + 1] as Position;
        edges.push(a[0], a[1], b[0], b[1]);
      }
    }
  }
  return { polygons, boxes: polygons.map((p) => bboxOfPolygons([p])), edges: Float64Array.from(edges) };
}

/** Even-odd point in polygon(s), holes included. */
export function pointInPolygons(polygons: MultiPolygonCoords, x: number, y: number): boolean {
  let inside = false;
  for (const poly of polygons) {
    for (const ring of poly) {
      for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
        const [xi, yi] = ring[i] as Position;
        const [xj, yj] = ring[j] as Position;
        if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
      }
    }
  }
  return inside;
}

function segmentHitsBox(x1: number, y1: number, x2: number, y2: number, b: BBox): boolean {
  if (Math.max(x1, x2) < b[0] || Math.min(x1, x2) > b[2] || Math.max(y1, y2) < b[1] || Math.min(y1, y2) > b[3]) return false;
  if ((x1 >= b[0] && x1 <= b[2] && y1 >= b[1] && y1 <= b[3]) || (x2 >= b[0] && x2 <= b[2] && y2 >= b[1] && y2 <= b[3])) return true;
  // Liang–Barsky clip of the segment against the box.
  let t0 = 0;
  let t1 = 1;
  const dx = x2 - x1;
  const dy = y2 - y1;
  const clip = (p: number, q: number): boolean => {
    if (p === 0) return q >= 0;
    const r = q / p;
    if (p < 0) {
      if (r > t1) return false;
      if (r > t0) t0 = r;
    } else {
      if (r < t0) return false;
      if (r < t1) t1 = r;
    }
    return true;
  };
  return clip(-dx, x1 - b[0]) && clip(dx, b[2] - x1) && clip(-dy, y1 - b[1]) && clip(dy, b[3] - y1) && t0 <= t1;
}

/** Whether any AOI edge passes through (or touches) box `b`. */
export function aoiEdgeInBox(idx: AoiIndex, b: BBox): boolean {
  const e = idx.edges;
  for (let i = 0; i < e.length; i += 4) {
    if (segmentHitsBox(e[i] as number, e[i + 1] as number, e[i + 2] as number, e[i + 3] as number, b)) return true;
  }
  return false;
}

export interface Overlap {
  /** Area of feature ∩ AOI, m². */
  interAreaM2: number;
  /** Area of the feature, m². */
  featureAreaM2: number;
  /** feature ∩ AOI, for data_area. */
  pieces: MultiPolygonCoords;
}

/** Overlap of a polygonal feature with the AOI; null when the intersection has no area. */
export function polygonOverlap(idx: AoiIndex, raw: MultiPolygonCoords): Overlap | null {
  const fb = bboxOfPolygons(raw);
  if (!idx.boxes.some((b) => bboxesIntersect(b, fb))) return null;
  // A self-crossing feature (a bow tie) is measured and clipped as its repaired self.
  const polygons = raw.some(crossesItself) ? repair(raw) ?? raw : raw;
  const featureAreaM2 = ellipsoidalAreaM2(polygons);
  if (!aoiEdgeInBox(idx, fb)) {
    // No AOI edge reaches the feature's box: the feature is wholly inside or wholly outside.
    const first = polygons[0]?.[0]?.[0];
    if (!first || !pointInPolygons(idx.polygons, first[0], first[1])) return null;
    return featureAreaM2 > 0 ? { interAreaM2: featureAreaM2, featureAreaM2, pieces: polygons } : null;
  }
  const pieces = intersect(polygons, idx.polygons);
  if (pieces === null || pieces.length === 0) return null;
  const interAreaM2 = ellipsoidalAreaM2(pieces);
  if (!(interAreaM2 > 0)) return null;
  // Rounding can make a clipped piece a hair larger than its feature.
  return { interAreaM2, featureAreaM2: Math.max(featureAreaM2, interAreaM2), pieces };
}

const EPS = 1e-12;

function onSegment(px: number, py: number, a: Position, b: Position): boolean {
  const [ax, ay] = a;
  const [bx, by] = b;
  const cross = (bx - ax) * (py - ay) - (by - ay) * (px - ax);
  const len = Math.hypot(bx - ax, by - ay);
  if (Math.abs(cross) > EPS * Math.max(1, len)) return false;
  return px >= Math.min(ax, bx) - EPS && px <= Math.max(ax, bx) + EPS && py >= Math.min(ay, by) - EPS && py <= Math.max(ay, by) + EPS;
}

function onRings(rings: Position[][], x: number, y: number): boolean {
  for (const ring of rings) for (let i = 0; i + 1 < ring.length; i++) if (onSegment(x, y, ring[i] as Position, ring[i + 1] as Position)) return true;
  return false;
}

/** Touch mode (bare point AOI): the feature contains or touches the point. */
export function touchesPoint(shape: Shape, x: number, y: number): boolean {
  switch (shape.kind) {
    case 'polygon':
      return pointInPolygons(shape.polygons, x, y) || shape.polygons.some((p) => onRings(p, x, y));
    case 'line':
      return onRings(shape.lines, x, y);
    case 'point':
      return shape.points.some(([px, py]) => Math.abs(px - x) <= EPS && Math.abs(py - y) <= EPS);
  }
}

/** Points and lines in intersect mode: whether the feature meets the AOI at all. */
export function meetsAoi(idx: AoiIndex, shape: Shape): boolean {
  if (shape.kind === 'polygon') return polygonOverlap(idx, shape.polygons) !== null;
  const inAoi = ([x, y]: Position) => pointInPolygons(idx.polygons, x, y) || idx.polygons.some((p) => onRings(p, x, y));
  if (shape.kind === 'point') return shape.points.some(inAoi);
  for (const line of shape.lines) {
    if (!idx.boxes.some((b) => bboxesIntersect(b, bboxOfPositions(line)))) continue;
    if (line.some(inAoi)) return true;
    for (let i = 0; i + 1 < line.length; i++) {
      const [x1, y1] = line[i] as Position;
      const [x2, y2] = line[i + 1] as Position;
      const segBox: BBox = [Math.min(x1, x2), Math.min(y1, y2), Math.max(x1, x2), Math.max(y1, y2)];
      if (aoiEdgeInBox(idx, segBox) && segmentCrossesAoi(idx, x1, y1, x2, y2)) return true;
    }
  }
  return false;
}

function segmentCrossesAoi(idx: AoiIndex, x1: number, y1: number, x2: number, y2: number): boolean {
  const e = idx.edges;
  for (let i = 0; i < e.length; i += 4) {
    if (segmentsIntersect(x1, y1, x2, y2, e[i] as number, e[i + 1] as number, e[i + 2] as number, e[i + 3] as number)) return true;
  }
  return false;
}

function orient(ax: number, ay: number, bx: number, by: number, cx: number, cy: number): number {
  return Math.sign((bx - ax) * (cy - ay) - (by - ay) * (cx - ax));
}

function segmentsIntersect(ax: number, ay: number, bx: number, by: number, cx: number, cy: number, dx: number, dy: number): boolean {
  const o1 = orient(ax, ay, bx, by, cx, cy);
  const o2 = orient(ax, ay, bx, by, dx, dy);
  const o3 = orient(cx, cy, dx, dy, ax, ay);
  const o4 = orient(cx, cy, dx, dy, bx, by);
  if (o1 !== o2 && o3 !== o4) return true;
  return (o1 === 0 && onSegment(cx, cy, [ax, ay], [bx, by])) || (o2 === 0 && onSegment(dx, dy, [ax, ay], [bx, by])) ||
    (o3 === 0 && onSegment(ax, ay, [cx, cy], [dx, dy])) || (o4 === 0 && onSegment(bx, by, [cx, cy], [dx, dy]));
}
