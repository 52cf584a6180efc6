/**
 * Pure: one row of a GeoParquet 1.1 native (GeoArrow) geometry column, as hyparquet decodes it, → ISO WKB
 * (little-endian, 2D), so that native columns join the WKB path the rest of the reader already has.
 *
 * What hyparquet 1.31.5 gives for one row (`parquetReadObjects`, `utf8: false`):
 * - a coordinate is a plain object `{x, y}` (`{x, y, z}`, `{x, y, m}`, …) in the separated form, or an
 *   array of 2 to 4 numbers in the interleaved form (Parquet has no fixed-size list: Arrow's
 *   FixedSizeList<double>[n] is written as a LIST of DOUBLE, so its fixed size is not enforced by the
 *   file and is checked here);
 * - every list level (vertices, rings, parts) is a plain JavaScript array;
 * - a null geometry is `undefined` (hyparquet's null struct / list), `null` is accepted too.
 * Child names (vertices, rings, …) never appear: hyparquet returns lists as arrays whatever they are named.
 *
 * Empty geometries (GeoArrow: an empty outer list; an empty point is all-NaN) give null, as a null
 * geometry does: neither can touch an AOI. Empty parts (an all-NaN point of a multipoint, an empty
 * linestring, an empty interior ring, an empty polygon of a multipolygon) are dropped: the WKB keeps the
 * same point set without empty members the WKB → GeoJSON step would otherwise have to carry. Geometric
 * validity (ring closure, self-intersection) is not checked here: WKB columns are not checked either.
 */
import type { Position } from '../geometry/types.ts';

export type GeoArrowEncoding = 'point' | 'linestring' | 'polygon' | 'multipoint' | 'multilinestring' | 'multipolygon';

const ENCODINGS: ReadonlySet<string> = new Set<GeoArrowEncoding>(['point', 'linestring', 'polygon', 'multipoint', 'multilinestring', 'multipolygon']);

/**
 * Whether a GeoParquet `encoding` value names a native (GeoArrow) encoding. Case-insensitive, because
 * the WKB check in geoparquet.ts is (`"wkb"` is accepted there); geoArrowToWkb folds case the same way,
 * so the narrowed value can be passed on as it is.
 */
export function isGeoArrowEncoding(s: string): s is GeoArrowEncoding {
  return ENCODINGS.has(s.toLowerCase());
}

/** ISO WKB geometry type codes (2D). */
const WKB_POINT = 1;
const WKB_LINESTRING = 2;
const WKB_POLYGON = 3;
const WKB_MULTIPOINT = 4;
const WKB_MULTILINESTRING = 5;
const WKB_MULTIPOLYGON = 6;

type Line = Position[];
type Polygon = Position[][];

/** Where in the value a problem is, for the error message: e.g. "polygon 2, ring 1, vertex 4". */
type Path = string;

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (v === undefined) return 'undefined';
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (ArrayBuffer.isView(v)) return `a ${v.constructor.name}`;
  return typeof v === 'object' ? `an object with keys {${Object.keys(v).join(', ')}}` : `${typeof v} ${String(v)}`;
}

function malformed(encoding: GeoArrowEncoding, path: Path, what: string): Error {
  return new Error(`Malformed GeoArrow ${encoding} value${path ? ` at ${path}` : ''}: ${what}.`);
}

/** A list level: a plain array from hyparquet; typed arrays are accepted for the interleaved doubles. */
function isList(v: unknown): v is ArrayLike<unknown> {
  return Array.isArray(v) || (ArrayBuffer.isView(v) && !(v instanceof DataView));
}

function at(path: Path, name: string, i: number): Path {
  return path ? `${path}, ${name} ${i}` : `${name} ${i}`;
}

/**
 * One coordinate → [x, y] (z and m dropped: the service is 2D), or null for an empty point (x and y both
 * NaN, GeoArrow's empty point). Any other non-finite x or y is malformed: no geometry can be made of it.
 */
function coordinate(v: unknown, encoding: GeoArrowEncoding, path: Path): Position | null {
  let x: unknown;
  let y: unknown;
  if (isList(v)) {
    // Interleaved: xy, xyz, xym or xyzm; x and y come first in every one of them.
    if (v.length < 2 || v.length > 4) throw malformed(encoding, path, `an interleaved coordinate has 2 to 4 values, got ${v.length}`);
    x = v[0];
    y = v[1];
  } else if (v !== null && typeof v === 'object') {
    // Separated: struct {x, y[, z][, m]}; the names are the spec's (children are matched by name).
    const o = v as Record<string, unknown>;
    if (!('x' in o) || !('y' in o)) throw malformed(encoding, path, `expected a coordinate {x, y} or [x, y], got ${describe(v)}`);
    x = o['x'];
    y = o['y'];
  } else {
    throw malformed(encoding, path, `expected a coordinate {x, y} or [x, y], got ${describe(v)}`);
  }
  if (typeof x !== 'number' || typeof y !== 'number') {
    throw malformed(encoding, path, `x and y must be numbers, got x = ${describe(x)}, y = ${describe(y)}`);
  }
  if (Number.isNaN(x) && Number.isNaN(y)) return null;
  if (!Number.isFinite(x) || !Number.isFinite(y)) throw malformed(encoding, path, `coordinate (${x}, ${y}) is not finite`);
  return [x, y];
}

function list(v: unknown, encoding: GeoArrowEncoding, path: Path, what: string): ArrayLike<unknown> {
  if (!isList(v)) throw malformed(encoding, path, `expected a list of ${what}, got ${describe(v)}`);
  return v;
}

/** Vertices of a linestring or ring; an all-NaN vertex is malformed here (only a point may be empty). */
function vertices(v: unknown, encoding: GeoArrowEncoding, path: Path): Line {
  const items = list(v, encoding, path, 'vertices');
  const out: Line = new Array(items.length);
  for (let i = 0; i < items.length; i++) {
    const p = coordinate(items[i], encoding, at(path, 'vertex', i));
    if (p === null) throw malformed(encoding, at(path, 'vertex', i), 'a vertex is NaN');
    out[i] = p;
  }
  return out;
}

/** Rings of one polygon, empty interior rings dropped; [] when the polygon is empty. */
function rings(v: unknown, encoding: GeoArrowEncoding, path: Path): Polygon {
  const items = list(v, encoding, path, 'rings');
  const out: Polygon = [];
  for (let i = 0; i < items.length; i++) {
    const ring = vertices(items[i], encoding, at(path, 'ring', i));
    if (ring.length > 0) out.push(ring);
    else if (i === 0) {
      // An empty exterior makes the polygon empty; holes in nothing are not a polygon.
      for (let j = 1; j < items.length; j++) {
        if (list(items[j], encoding, at(path, 'ring', j), 'vertices').length > 0) {
          throw malformed(encoding, path, 'the exterior ring is empty but an interior ring is not');
        }
      }
      return [];
    }
  }
  return out;
}

// ------------------------------------------------------------------------------------------ writing

class WkbWriter {
  readonly bytes: Uint8Array;
  private readonly view: DataView;
  private offset = 0;

  constructor(size: number) {
    this.bytes = new Uint8Array(size);
    this.view = new DataView(this.bytes.buffer);
  }

  head(type: number, count?: number): void {
    this.view.setUint8(this.offset, 1); // little-endian
    this.view.setUint32(this.offset + 1, type, true);
    this.offset += 5;
    if (count !== undefined) this.count(count);
  }

  count(n: number): void {
    this.view.setUint32(this.offset, n, true);
    this.offset += 4;
  }

  xy(p: Position): void {
    this.view.setFloat64(this.offset, p[0], true);
    this.view.setFloat64(this.offset + 8, p[1], true);
    this.offset += 16;
  }

  points(line: Line): void {
    this.count(line.length);
    for (const p of line) this.xy(p);
  }

  polygon(poly: Polygon): void {
    this.head(WKB_POLYGON, poly.length);
    for (const r of poly) this.points(r);
  }
}

const HEAD = 5; // byte order + type
const COUNT = 4;
const XY = 16;

const lineSize = (l: Line): number => HEAD + COUNT + XY * l.length;
const polygonSize = (p: Polygon): number => HEAD + COUNT + p.reduce((s, r) => s + COUNT + XY * r.length, 0);

function pointWkb(p: Position): Uint8Array {
  const w = new WkbWriter(HEAD + XY);
  w.head(WKB_POINT);
  w.xy(p);
  return w.bytes;
}

function lineWkb(l: Line): Uint8Array {
  const w = new WkbWriter(lineSize(l));
  w.head(WKB_LINESTRING);
  w.points(l);
  return w.bytes;
}

function polygonWkb(p: Polygon): Uint8Array {
  const w = new WkbWriter(polygonSize(p));
  w.polygon(p);
  return w.bytes;
}

function multiPointWkb(points: Position[]): Uint8Array {
  const w = new WkbWriter(HEAD + COUNT + points.length * (HEAD + XY));
  w.head(WKB_MULTIPOINT, points.length);
  for (const p of points) {
    w.head(WKB_POINT);
    w.xy(p);
  }
  return w.bytes;
}

function multiLineWkb(lines: Line[]): Uint8Array {
  const w = new WkbWriter(HEAD + COUNT + lines.reduce((s, l) => s + lineSize(l), 0));
  w.head(WKB_MULTILINESTRING, lines.length);
  for (const l of lines) {
    w.head(WKB_LINESTRING);
    w.points(l);
  }
  return w.bytes;
}

function multiPolygonWkb(polys: Polygon[]): Uint8Array {
  const w = new WkbWriter(HEAD + COUNT + polys.reduce((s, p) => s + polygonSize(p), 0));
  w.head(WKB_MULTIPOLYGON, polys.length);
  for (const p of polys) w.polygon(p);
  return w.bytes;
}

// ------------------------------------------------------------------------------------------- entry

/**
 * One row's GeoArrow value → ISO WKB (little-endian, 2D: z and m dropped), or null for a null or empty
 * geometry. Throws an Error naming the encoding and the place (e.g. "polygon 1, ring 0, vertex 3") when
 * the value does not have the shape the encoding says.
 */
export function geoArrowToWkb(value: unknown, encoding: GeoArrowEncoding): Uint8Array | null {
  if (value === null || value === undefined) return null;
  const enc = encoding.toLowerCase() as GeoArrowEncoding;
  switch (enc) {
    case 'point': {
      const p = coordinate(value, enc, '');
      return p === null ? null : pointWkb(p);
    }
    case 'linestring': {
      const l = vertices(value, enc, '');
      return l.length === 0 ? null : lineWkb(l);
    }
    case 'polygon': {
      const p = rings(value, enc, '');
      return p.length === 0 ? null : polygonWkb(p);
    }
    case 'multipoint': {
      const items = list(value, enc, '', 'points');
      const points: Position[] = [];
      for (let i = 0; i < items.length; i++) {
        const p = coordinate(items[i], enc, at('', 'point', i));
        if (p !== null) points.push(p);
      }
      return points.length === 0 ? null : multiPointWkb(points);
    }
    case 'multilinestring': {
      const items = list(value, enc, '', 'linestrings');
      const lines: Line[] = [];
      for (let i = 0; i < items.length; i++) {
        const l = vertices(items[i], enc, at('', 'linestring', i));
        if (l.length > 0) lines.push(l);
      }
      return lines.length === 0 ? null : multiLineWkb(lines);
    }
    case 'multipolygon': {
      const items = list(value, enc, '', 'polygons');
      const polys: Polygon[] = [];
      for (let i = 0; i < items.length; i++) {
        const p = rings(items[i], enc, at('', 'polygon', i));
        if (p.length > 0) polys.push(p);
      }
      return polys.length === 0 ? null : multiPolygonWkb(polys);
    }
    default:
      throw new Error(`Unknown GeoArrow encoding "${String(encoding)}".`);
  }
}
