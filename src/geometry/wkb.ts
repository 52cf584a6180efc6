/**
 * Pure: WKB (ISO and EWKB, either byte order, 2D/Z/M/ZM) read in place. Features stay raw bytes until
 * their box meets the AOI; then only what the rules need is read: a box, a kind, an ellipsoidal area
 * (through a reused scratch array, never an object per vertex), or, for the few features of a bare-point
 * or projected-file query, coordinates.
 */
import type { BBox, MultiPolygonCoords, Position } from './types.ts';
import { signedRingAreaXYM2 } from './geodesic.ts';

/** A feature reduced to what the rules need. */
export type Shape = { kind: 'polygon'; polygons: MultiPolygonCoords } | { kind: 'point'; points: Position[] } | { kind: 'line'; lines: Position[][] };

export type ShapeKind = Shape['kind'];

const POINT = 1;
const LINESTRING = 2;
const POLYGON = 3;
const MULTIPOINT = 4;
const MULTILINESTRING = 5;
const MULTIPOLYGON = 6;
const COLLECTION = 7;

class WkbError extends Error {}

/** A cursor over one WKB value. */
class Cursor {
  readonly dv: DataView;
  pos = 0;
  le = true;
  /** Doubles per vertex (2, 3 or 4). */
  dims = 2;

  constructor(readonly bytes: Uint8Array) {
    this.dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** Reads a geometry header; returns the base type (1–7). */
  header(): number {
    if (this.pos + 5 > this.bytes.length) throw new WkbError('truncated WKB');
    this.le = this.dv.getUint8(this.pos) === 1;
    const raw = this.dv.getUint32(this.pos + 1, this.le);
    this.pos += 5;
    let type = raw & 0x0fffffff;
    let dims = 2;
    // EWKB flags, then ISO's thousands.
    if (raw & 0x80000000) dims++;
    if (raw & 0x40000000) dims++;
    if (raw & 0x20000000) this.pos += 4;
    const iso = Math.floor(type / 1000);
    if (iso === 1 || iso === 2) dims = 3;
    else if (iso === 3) dims = 4;
    type %= 1000;
    if (type < POINT || type > COLLECTION) throw new WkbError(`unsupported WKB geometry type ${raw}`);
    this.dims = dims;
    return type;
  }

  count(): number {
    if (this.pos + 4 > this.bytes.length) throw new WkbError('truncated WKB');
    const n = this.dv.getUint32(this.pos, this.le);
    this.pos += 4;
    if (n * 8 > this.bytes.length) throw new WkbError('WKB count beyond its bytes');
    return n;
  }

  /** Offset of n vertices, after checking they are there; the cursor moves past them. */
  vertices(n: number): number {
    const at = this.pos;
    this.pos += n * this.dims * 8;
    if (this.pos > this.bytes.length) throw new WkbError('truncated WKB');
    return at;
  }

  x(at: number, i: number): number {
    return this.dv.getFloat64(at + i * this.dims * 8, this.le);
  }

  y(at: number, i: number): number {
    return this.dv.getFloat64(at + i * this.dims * 8 + 8, this.le);
  }
}

interface Visitor {
  point?(c: Cursor, at: number): void;
  /** A linestring's or a ring's n vertices; `ring` is -1 for a linestring, else its index in its polygon. */
  path?(c: Cursor, at: number, n: number, ring: number): void;
  polygonStart?(): void;
  polygonEnd?(): void;
}

function visit(c: Cursor, v: Visitor): void {
  const type = c.header();
  switch (type) {
    case POINT: {
      const at = c.vertices(1);
      if (!Number.isNaN(c.x(at, 0))) v.point?.(c, at);
      return;
    }
    case LINESTRING: {
      const n = c.count();
      v.path?.(c, c.vertices(n), n, -1);
      return;
    }
    case POLYGON: {
      const rings = c.count();
      if (rings === 0) return;
      v.polygonStart?.();
      for (let r = 0; r < rings; r++) {
        const n = c.count();
        v.path?.(c, c.vertices(n), n, r);
      }
      v.polygonEnd?.();
      return;
    }
    case MULTIPOINT:
    case MULTILINESTRING:
    case MULTIPOLYGON:
    case COLLECTION: {
      const parts = c.count();
      for (let i = 0; i < parts; i++) visit(c, v);
      return;
    }
  }
}

function run(bytes: Uint8Array, v: Visitor): void {
  const c = new Cursor(bytes);
  try {
    visit(c, v);
  } catch (e) {
    if (e instanceof WkbError || e instanceof RangeError) throw new Error(`invalid WKB: ${e.message}`);
    throw e;
  }
}

// Results of the closure-free walk below (bbox and kind are asked for every row of a row group, so they
// build no visitor objects).
let bx0 = 0;
let by0 = 0;
let bx1 = 0;
let by1 = 0;
/** 0 nothing, 1 point, 2 line, 3 polygon. */
let dim = 0;

function walk(c: Cursor): void {
  const type = c.header();
  if (type === POINT) {
    const at = c.vertices(1);
    const x = c.x(at, 0);
    if (Number.isNaN(x)) return;
    grow(x, c.y(at, 0));
    if (dim < 1) dim = 1;
  } else if (type === LINESTRING) {
    const n = c.count();
    span(c, c.vertices(n), n);
    if (n > 0 && dim < 2) dim = 2;
  } else if (type === POLYGON) {
    const rings = c.count();
    for (let r = 0; r < rings; r++) {
      const n = c.count();
      span(c, c.vertices(n), n);
      if (r === 0 && n > 0) dim = 3;
    }
  } else {
    const parts = c.count();
    for (let i = 0; i < parts; i++) walk(c);
  }
}

function grow(x: number, y: number): void {
  if (x < bx0) bx0 = x;
  if (x > bx1) bx1 = x;
  if (y < by0) by0 = y;
  if (y > by1) by1 = y;
}

function span(c: Cursor, at: number, n: number): void {
  for (let i = 0; i < n; i++) grow(c.x(at, i), c.y(at, i));
}

function walkAll(bytes: Uint8Array): void {
  bx0 = Infinity;
  by0 = Infinity;
  bx1 = -Infinity;
  by1 = -Infinity;
  dim = 0;
  try {
    walk(new Cursor(bytes));
  } catch (e) {
    if (e instanceof WkbError || e instanceof RangeError) throw new Error(`invalid WKB: ${e.message}`);
    throw e;
  }
}

/** Bounding box of a WKB geometry (x, y only); null when it is empty. Throws on malformed WKB. */
export function wkbBBox(bytes: Uint8Array): BBox | null {
  walkAll(bytes);
  return bx0 <= bx1 && by0 <= by1 ? [bx0, by0, bx1, by1] : null;
}

/** The highest dimension among the non-empty parts (collections are merged so), null when empty. */
export function wkbKind(bytes: Uint8Array): ShapeKind | null {
  walkAll(bytes);
  return dim === 3 ? 'polygon' : dim === 2 ? 'line' : dim === 1 ? 'point' : null;
}

let xy = new Float64Array(2048);
let polygonalTotal = 0;

function ringArea(c: Cursor, at: number, n: number): number {
  if (xy.length < 2 * n) xy = new Float64Array(4 * n);
  for (let i = 0; i < n; i++) {
    xy[2 * i] = c.x(at, i);
    xy[2 * i + 1] = c.y(at, i);
  }
  return Math.abs(signedRingAreaXYM2(xy, 0, n));
}

function walkArea(c: Cursor): void {
  const type = c.header();
  if (type === POINT) {
    c.vertices(1);
  } else if (type === LINESTRING) {
    c.vertices(c.count());
  } else if (type === POLYGON) {
    const rings = c.count();
    let polygon = 0;
    for (let r = 0; r < rings; r++) {
      const n = c.count();
      const a = ringArea(c, c.vertices(n), n);
      polygon += r === 0 ? a : -a;
    }
    if (rings > 0) polygonalTotal += Math.max(0, polygon);
  } else {
    const parts = c.count();
    for (let i = 0; i < parts; i++) walkArea(c);
  }
}

/**
 * Area in m² on the WGS84 ellipsoid of the polygonal parts of a lon/lat WKB geometry (lines and points
 * add nothing): each polygon's shell minus its holes, whatever their winding, taken as non-negative, as
 * ellipsoidalAreaM2 measures a MultiPolygonCoords.
 */
export function wkbPolygonalAreaM2(bytes: Uint8Array): number {
  polygonalTotal = 0;
  try {
    walkArea(new Cursor(bytes));
  } catch (e) {
    if (e instanceof WkbError || e instanceof RangeError) throw new Error(`invalid WKB: ${e.message}`);
    throw e;
  }
  return polygonalTotal;
}

/** A WKB geometry as a Shape (collections merged by dimension, the highest wins); null when empty. */
export function wkbToShape(bytes: Uint8Array): Shape | null {
  const polygons: MultiPolygonCoords = [];
  const lines: Position[][] = [];
  const points: Position[] = [];
  let current: Position[][] = [];
  const coords = (c: Cursor, at: number, n: number): Position[] => {
    const out: Position[] = new Array<Position>(n);
    for (let i = 0; i < n; i++) out[i] = [c.x(at, i), c.y(at, i)];
    return out;
  };
  run(bytes, {
    point: (c, at) => points.push([c.x(at, 0), c.y(at, 0)]),
    polygonStart: () => {
      current = [];
    },
    path: (c, at, n, ring) => {
      if (ring < 0) {
        if (n > 0) lines.push(coords(c, at, n));
      } else {
        current.push(coords(c, at, n));
      }
    },
    polygonEnd: () => {
      if (current.length > 0 && (current[0] as Position[]).length > 0) polygons.push(current);
    },
  });
  if (polygons.length > 0) return { kind: 'polygon', polygons };
  if (lines.length > 0) return { kind: 'line', lines };
  if (points.length > 0) return { kind: 'point', points };
  return null;
}

/** ISO WKB (little-endian, 2D) of a MultiPolygon. */
export function wkbFromPolygons(polygons: MultiPolygonCoords): Uint8Array {
  let size = 9;
  for (const p of polygons) {
    size += 9;
    for (const r of p) size += 4 + 16 * r.length;
  }
  const out = new Uint8Array(size);
  const dv = new DataView(out.buffer);
  let o = 0;
  const head = (type: number, n: number): void => {
    dv.setUint8(o, 1);
    dv.setUint32(o + 1, type, true);
    dv.setUint32(o + 5, n, true);
    o += 9;
  };
  head(MULTIPOLYGON, polygons.length);
  for (const p of polygons) {
    head(POLYGON, p.length);
    for (const r of p) {
      dv.setUint32(o, r.length, true);
      o += 4;
      for (const [x, y] of r) {
        dv.setFloat64(o, x, true);
        dv.setFloat64(o + 8, y, true);
        o += 16;
      }
    }
  }
  return out;
}

/** ISO WKB of a Shape (a MultiPolygon, MultiLineString or MultiPoint). */
export function wkbFromShape(shape: Shape): Uint8Array {
  if (shape.kind === 'polygon') return wkbFromPolygons(shape.polygons);
  const paths = shape.kind === 'line' ? shape.lines : shape.points.map((p) => [p]);
  let size = 9;
  for (const l of paths) size += shape.kind === 'line' ? 9 + 16 * l.length : 21;
  const out = new Uint8Array(size);
  const dv = new DataView(out.buffer);
  dv.setUint8(0, 1);
  dv.setUint32(1, shape.kind === 'line' ? MULTILINESTRING : MULTIPOINT, true);
  dv.setUint32(5, paths.length, true);
  let o = 9;
  for (const l of paths) {
    dv.setUint8(o, 1);
    dv.setUint32(o + 1, shape.kind === 'line' ? LINESTRING : POINT, true);
    o += 5;
    if (shape.kind === 'line') {
      dv.setUint32(o, l.length, true);
      o += 4;
    }
    for (const [x, y] of l) {
      dv.setFloat64(o, x, true);
      dv.setFloat64(o + 8, y, true);
      o += 16;
    }
  }
  return out;
}
