/**
 * src/vector/geoarrow.ts: GeoParquet 1.1 native (GeoArrow) geometry values, as hyparquet decodes them,
 * → ISO WKB. Every fixtures/vector/geoarrow_*.parquet (written by parquet-wasm from apache-arrow tables,
 * tools/fixtures/make_vector.mjs) is read with hyparquet as the service reads Parquet, each row converted,
 * and the WKB decoded HERE (a few lines of DataView, not the module under test) and compared with the
 * geometries written by hand below from the coordinates in make_vector.mjs.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { describe, expect, it } from 'vitest';
import { geoArrowToWkb, isGeoArrowEncoding, type GeoArrowEncoding } from '../../src/vector/geoarrow.ts';
import { FIXTURES } from '../helpers/build-app.ts';

// ------------------------------------------------------------------------ a WKB decoder of our own

type XY = [number, number];
type Decoded =
  | { type: 'Point'; coordinates: XY }
  | { type: 'LineString' | 'MultiPoint'; coordinates: XY[] }
  | { type: 'Polygon' | 'MultiLineString'; coordinates: XY[][] }
  | { type: 'MultiPolygon'; coordinates: XY[][][] };

const NAMES = ['', 'Point', 'LineString', 'Polygon', 'MultiPoint', 'MultiLineString', 'MultiPolygon'] as const;

/** Decodes little-endian 2D ISO WKB, insisting on every byte being used; fails on anything else. */
function decodeWkb(bytes: Uint8Array): Decoded {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let o = 0;
  const u32 = () => ((o += 4), dv.getUint32(o - 4, true));
  const xy = (): XY => ((o += 16), [dv.getFloat64(o - 16, true), dv.getFloat64(o - 8, true)]);
  const line = () => Array.from({ length: u32() }, xy);
  const geometry = (): Decoded => {
    expect(dv.getUint8(o++), 'byte order').toBe(1);
    const type = u32();
    if (type === 1) return { type: 'Point', coordinates: xy() };
    if (type === 2) return { type: 'LineString', coordinates: line() };
    if (type === 3) return { type: 'Polygon', coordinates: Array.from({ length: u32() }, line) };
    const parts = Array.from({ length: u32() }, geometry);
    const want = NAMES[type - 3];
    for (const p of parts) expect(p.type, `member of a ${NAMES[type]}`).toBe(want);
    if (type === 4) return { type: 'MultiPoint', coordinates: parts.map((p) => p.coordinates as XY) };
    if (type === 5) return { type: 'MultiLineString', coordinates: parts.map((p) => p.coordinates as XY[]) };
    if (type === 6) return { type: 'MultiPolygon', coordinates: parts.map((p) => p.coordinates as XY[][]) };
    throw new Error(`WKB type ${type}`);
  };
  const g = geometry();
  expect(o, 'WKB length').toBe(bytes.length);
  return g;
}

const decode = (v: unknown, enc: GeoArrowEncoding): Decoded | null => {
  const wkb = geoArrowToWkb(v, enc);
  return wkb === null ? null : decodeWkb(wkb);
};

// ------------------------------------------------------------------ expected geometries, by hand

/** Closed ring of the rectangle [x0, x1] × [y0, y1], counter-clockwise (clockwise for a hole). */
const sq = (x0: number, y0: number, x1: number, y1: number): XY[] => [
  [x0, y0],
  [x1, y0],
  [x1, y1],
  [x0, y1],
  [x0, y0],
];
const hole = (x0: number, y0: number, x1: number, y1: number): XY[] => [
  [x0, y0],
  [x0, y1],
  [x1, y1],
  [x1, y0],
  [x0, y0],
];

const POLYGONS: (Decoded | null)[] = [
  { type: 'Polygon', coordinates: [sq(0, 0, 2, 2), hole(0.5, 0.5, 1, 1)] },
  { type: 'Polygon', coordinates: [sq(3, 0, 4, 1)] },
  {
    type: 'Polygon',
    coordinates: [
      [
        [5, 0],
        [6, 0],
        [5, 1],
        [5, 0],
      ],
    ],
  },
  null,
];

/** file → [encoding, ids, expected geometry per row]. */
const FILES: Record<string, [GeoArrowEncoding, number[], (Decoded | null)[]]> = {
  'geoarrow_point.parquet': [
    'point',
    [1, 2, 3, 4, 5, 6],
    [
      { type: 'Point', coordinates: [0.25, 0.25] },
      { type: 'Point', coordinates: [0.75, 0.5] },
      { type: 'Point', coordinates: [1.5, 1.5] },
      null, // null geometry
      { type: 'Point', coordinates: [3, 3] },
      null, // empty point (NaN, NaN)
    ],
  ],
  'geoarrow_linestring.parquet': [
    'linestring',
    [1, 2, 3, 4, 5],
    [
      {
        type: 'LineString',
        coordinates: [
          [-1, 0.5],
          [3, 0.5],
        ],
      },
      {
        type: 'LineString',
        coordinates: [
          [0.5, 0.25],
          [1.5, 0.75],
        ],
      },
      {
        type: 'LineString',
        coordinates: [
          [3, 3],
          [4, 4],
        ],
      },
      null, // empty
      null, // null
    ],
  ],
  'geoarrow_polygon.parquet': ['polygon', [1, 2, 3, 4], POLYGONS],
  'geoarrow_polygon_interleaved.parquet': ['polygon', [1, 2, 3, 4], POLYGONS],
  'geoarrow_multipoint.parquet': [
    'multipoint',
    [1, 2, 3, 4, 5],
    [
      {
        type: 'MultiPoint',
        coordinates: [
          [0.25, 0.25],
          [5, 5],
        ],
      },
      {
        type: 'MultiPoint',
        coordinates: [
          [2, 2],
          [3, 3],
        ],
      },
      { type: 'MultiPoint', coordinates: [[0.5, 0.75]] },
      null, // empty
      { type: 'MultiPoint', coordinates: [[0.75, 0.25]] }, // its empty point (NaN, NaN) dropped
    ],
  ],
  'geoarrow_multilinestring.parquet': [
    'multilinestring',
    [1, 2, 3, 4],
    [
      // written with z (7, 1, 2–3): dropped
      {
        type: 'MultiLineString',
        coordinates: [
          [
            [-1, 0.5],
            [0.5, 0.5],
          ],
          [
            [5, 5],
            [6, 6],
          ],
        ],
      },
      {
        type: 'MultiLineString',
        coordinates: [
          [
            [3, 3],
            [4, 4],
          ],
          [
            [3, 4],
            [4, 3],
          ],
        ],
      },
      {
        type: 'MultiLineString',
        coordinates: [
          [
            [1.5, 0.25],
            [1.5, 0.75],
          ],
        ],
      },
      null,
    ],
  ],
  'geoarrow_multipolygon.parquet': [
    'multipolygon',
    [1, 2, 3, 4],
    [
      { type: 'MultiPolygon', coordinates: [[sq(0, 0, 1, 1)], [sq(2, 0, 3, 1), hole(2.25, 0.25, 2.75, 0.75)]] },
      { type: 'MultiPolygon', coordinates: [[sq(4, 0, 5, 1)], [sq(6, 0, 7, 1)]] },
      { type: 'MultiPolygon', coordinates: [[sq(-2, -2, -1, -1)], [sq(10, 10, 11, 11)]] },
      null, // empty
    ],
  ],
};

function readFixture(file: string) {
  const buf = readFileSync(join(FIXTURES, 'vector', file));
  const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer;
  const md = parquetMetadata(ab);
  const geo = JSON.parse(md.key_value_metadata?.find((kv) => kv.key === 'geo')?.value ?? 'null') as {
    columns: Record<string, { encoding: string }>;
  };
  return { ab, md, geo };
}

describe('geoArrowToWkb on the fixtures (hyparquet 1.31.5 reading, as src/vector/reader.ts does)', () => {
  it.each(Object.entries(FILES))('%s', async (file, [encoding, ids, expected]) => {
    const { ab, md, geo } = readFixture(file);
    const declared = geo.columns['geometry']?.encoding as string;
    expect(isGeoArrowEncoding(declared)).toBe(true);
    expect(declared).toBe(encoding);
    const rows = await parquetReadObjects({ file: ab, metadata: md, columns: ['geometry', 'id'], compressors, utf8: false });
    expect(rows.map((r) => r['id'])).toEqual(ids);
    expect(rows.map((r) => decode(r['geometry'], encoding))).toEqual(expected);
  });

  it('the interleaved file gives the same WKB bytes as the separated one', async () => {
    const read = async (file: string) => {
      const { ab } = readFixture(file);
      const rows = await parquetReadObjects({ file: ab, columns: ['geometry'], compressors, utf8: false });
      return rows.map((r) => geoArrowToWkb(r['geometry'], 'polygon'));
    };
    expect(await read('geoarrow_polygon_interleaved.parquet')).toEqual(await read('geoarrow_polygon.parquet'));
  });
});

describe('geoArrowToWkb on hand-made values', () => {
  it('writes ISO WKB, little-endian: POINT (1 2) byte for byte', () => {
    const hex = (b: Uint8Array | null) => (b === null ? null : Buffer.from(b).toString('hex'));
    const want = '01' + '01000000' + '000000000000f03f' + '0000000000000040';
    expect(hex(geoArrowToWkb({ x: 1, y: 2 }, 'point'))).toBe(want);
    expect(hex(geoArrowToWkb([1, 2], 'point'))).toBe(want);
    // a LineString: type 2, count 2
    expect(
      hex(
        geoArrowToWkb(
          [
            [1, 2],
            [1, 2],
          ],
          'linestring',
        ),
      ),
    ).toBe('01' + '02000000' + '02000000' + want.slice(10).repeat(2));
  });

  it('drops z and m: {x, y, z}, {x, y, m}, {x, y, z, m}, [x, y, z], [x, y, z, m], typed arrays', () => {
    const p: Decoded = { type: 'Point', coordinates: [1.5, -2] };
    for (const v of [
      { x: 1.5, y: -2, z: 9 },
      { x: 1.5, y: -2, m: 9 },
      { x: 1.5, y: -2, z: 9, m: 8 },
      [1.5, -2, 9],
      [1.5, -2, 9, 8],
      new Float64Array([1.5, -2]),
    ]) {
      expect(decode(v, 'point')).toEqual(p);
    }
    expect(
      decode(
        [
          [
            { x: 0, y: 0, z: 1 },
            { x: 1, y: 1, z: 2 },
          ],
        ],
        'multilinestring',
      ),
    ).toEqual({
      type: 'MultiLineString',
      coordinates: [
        [
          [0, 0],
          [1, 1],
        ],
      ],
    });
  });

  it('null and undefined (hyparquet gives undefined for a null row) are null for every encoding', () => {
    for (const enc of ['point', 'linestring', 'polygon', 'multipoint', 'multilinestring', 'multipolygon'] as const) {
      expect(geoArrowToWkb(null, enc)).toBeNull();
      expect(geoArrowToWkb(undefined, enc)).toBeNull();
    }
  });

  it('empty geometries are null; empty members are dropped', () => {
    expect(geoArrowToWkb({ x: NaN, y: NaN }, 'point')).toBeNull();
    expect(geoArrowToWkb([NaN, NaN, NaN], 'point')).toBeNull();
    expect(geoArrowToWkb([], 'linestring')).toBeNull();
    expect(geoArrowToWkb([], 'polygon')).toBeNull();
    expect(geoArrowToWkb([[]], 'polygon')).toBeNull();
    expect(geoArrowToWkb([[], []], 'polygon')).toBeNull();
    expect(geoArrowToWkb([], 'multipoint')).toBeNull();
    expect(geoArrowToWkb([[NaN, NaN]], 'multipoint')).toBeNull();
    expect(geoArrowToWkb([[], []], 'multilinestring')).toBeNull();
    expect(geoArrowToWkb([[], [[]], [[], []]], 'multipolygon')).toBeNull();
    const ring = sq(0, 0, 1, 1);
    expect(decode([ring, []], 'polygon')).toEqual({ type: 'Polygon', coordinates: [ring] });
    expect(
      decode(
        [
          [],
          [
            [0, 0],
            [1, 1],
          ],
        ],
        'multilinestring',
      ),
    ).toEqual({
      type: 'MultiLineString',
      coordinates: [
        [
          [0, 0],
          [1, 1],
        ],
      ],
    });
    expect(decode([[[]], [ring]], 'multipolygon')).toEqual({ type: 'MultiPolygon', coordinates: [[ring]] });
  });

  it('folds the case of the encoding, as isGeoArrowEncoding does', () => {
    expect(decode({ x: 1, y: 2 }, 'Point' as GeoArrowEncoding)).toEqual({ type: 'Point', coordinates: [1, 2] });
    expect(
      decode(
        [
          [
            [0, 0],
            [1, 0],
            [0, 1],
            [0, 0],
          ],
        ],
        'POLYGON' as GeoArrowEncoding,
      )?.type,
    ).toBe('Polygon');
  });

  it.each<[string, unknown, GeoArrowEncoding, RegExp]>([
    ['a string point', 'POINT (1 2)', 'point', /GeoArrow point.*expected a coordinate/],
    ['a struct without y', { x: 1 }, 'point', /point.*expected a coordinate \{x, y\}.*keys \{x\}/],
    ['a text coordinate', { x: '1', y: 2 }, 'point', /x and y must be numbers/],
    ['a null x', { x: null, y: 2 }, 'point', /x and y must be numbers/],
    ['one interleaved value', [1], 'point', /interleaved coordinate has 2 to 4 values, got 1/],
    ['five interleaved values', [1, 2, 3, 4, 5], 'point', /2 to 4 values, got 5/],
    ['an infinite x', { x: Infinity, y: 0 }, 'point', /not finite/],
    ['half a NaN point', { x: NaN, y: 1 }, 'point', /not finite/],
    ['a point for a linestring', { x: 1, y: 2 }, 'linestring', /GeoArrow linestring.*expected a list of vertices/],
    ['a null vertex', [[0, 0], null], 'linestring', /at vertex 1: expected a coordinate.*got null/],
    [
      'a NaN vertex',
      [
        [0, 0],
        [NaN, NaN],
      ],
      'linestring',
      /at vertex 1: a vertex is NaN/,
    ],
    [
      'a linestring for a polygon',
      [
        [0, 0],
        [1, 1],
      ],
      'polygon',
      /GeoArrow polygon value at ring 0, vertex 0/,
    ],
    ['a null ring', [sq(0, 0, 1, 1), null], 'polygon', /at ring 1: expected a list of vertices, got null/],
    ['holes without an exterior', [[], sq(0, 0, 1, 1)], 'polygon', /exterior ring is empty but an interior ring is not/],
    [
      'a bad vertex deep down',
      [
        [sq(0, 0, 1, 1)],
        [
          sq(2, 0, 3, 1),
          [
            [2, 0],
            [2, '1'],
          ],
        ],
      ],
      'multipolygon',
      /multipolygon value at polygon 1, ring 1, vertex 1: x and y/,
    ],
    [
      'a polygon for a multipolygon',
      [sq(0, 0, 1, 1)],
      'multipolygon',
      /multipolygon value at polygon 0, ring 0, vertex 0: expected a coordinate .* got number 0/,
    ],
    ['a number for a multipoint', 3, 'multipoint', /multipoint.*expected a list of points, got number 3/],
    ['a null linestring', [null], 'multilinestring', /at linestring 0: expected a list of vertices, got null/],
    ['an unknown encoding', {}, 'box' as GeoArrowEncoding, /Unknown GeoArrow encoding "box"/],
  ])('malformed: %s', (_, value, enc, message) => {
    expect(() => geoArrowToWkb(value, enc)).toThrow(message);
  });
});

describe('isGeoArrowEncoding', () => {
  it('knows the six GeoParquet 1.1 native encodings, in any case', () => {
    for (const s of ['point', 'linestring', 'polygon', 'multipoint', 'multilinestring', 'multipolygon', 'MultiPolygon', 'POINT']) {
      expect(isGeoArrowEncoding(s), s).toBe(true);
    }
  });

  it('refuses WKB and everything else', () => {
    for (const s of ['WKB', 'wkb', 'geoarrow.point', 'geometry', 'geometrycollection', 'box', '', 'polygon ']) {
      expect(isGeoArrowEncoding(s), s).toBe(false);
    }
  });
});
