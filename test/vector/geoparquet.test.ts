/**
 * src/vector/geoparquet.ts: the geometry column, its encoding, CRS and bbox covering from the `geo`
 * metadata (contract §5: request's geometry_column case-insensitively > primary_column > the first of
 * geometry, geom, the_geom, wkb_geometry, shape). The `geo` strings below are the fixtures' own
 * (geom_named.parquet, many_groups.parquet: read with hyparquet's parquetMetadata and pasted).
 */
import { describe, expect, it } from 'vitest';
import { GEOMETRY_COLUMN_NAMES, resolveGeoColumn } from '../../src/vector/geoparquet.ts';
import { ZonalError } from '../../src/errors.ts';

const GEOM_NAMED_GEO =
  '{"version":"1.1.0","primary_column":"geom","columns":{"geom":{"encoding":"WKB","geometry_types":["Polygon"],"bbox":[40,0,44,1],"covering":{"bbox":{"xmin":["geom_bbox","xmin"],"ymin":["geom_bbox","ymin"],"xmax":["geom_bbox","xmax"],"ymax":["geom_bbox","ymax"]}}},"other_geom":{"encoding":"WKB","geometry_types":["Polygon"],"bbox":[50,0,54,1]}}}';
const GEOM_NAMED_COLS = ['name', 'v', 'geom', 'other_geom', 'geom_bbox'];

const MANY_GROUPS_GEO =
  '{"version":"1.1.0","primary_column":"geometry","columns":{"geometry":{"encoding":"WKB","geometry_types":["Polygon"],"bbox":[10,40,14.9921875,43.8984375],"covering":{"bbox":{"xmin":["bbox","xmin"],"ymin":["bbox","ymin"],"xmax":["bbox","xmax"],"ymax":["bbox","ymax"]}}}}}';
const MANY_GROUPS_COLS = ['id', 'value', 'pop', 'geometry', 'bbox'];

/** A `geo` string with one column `name` holding `meta`. */
const geoOf = (name: string, meta: Record<string, unknown>, primary: string = name) =>
  JSON.stringify({ version: '1.1.0', primary_column: primary, columns: { [name]: meta } });

function thrown(f: () => unknown): ZonalError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ZonalError);
    return e as ZonalError;
  }
  throw new Error('expected a ZonalError, nothing was thrown');
}

describe('resolveGeoColumn: which column', () => {
  it('primary_column when the request names none (geom_named: geom, with its covering geom_bbox)', () => {
    expect(resolveGeoColumn(GEOM_NAMED_GEO, GEOM_NAMED_COLS, undefined)).toEqual({
      name: 'geom',
      encoding: 'WKB',
      crs: null,
      bboxColumn: { column: 'geom_bbox', xmin: 'xmin', ymin: 'ymin', xmax: 'xmax', ymax: 'ymax' },
      bbox: [40, 0, 44, 1],
    });
  });

  it('the request wins over primary_column, matched case-insensitively, answered in the file spelling', () => {
    for (const requested of ['other_geom', 'OTHER_GEOM', 'Other_Geom']) {
      expect(resolveGeoColumn(GEOM_NAMED_GEO, GEOM_NAMED_COLS, requested)).toEqual({
        name: 'other_geom',
        encoding: 'WKB',
        crs: null,
        // The covering in the metadata belongs to `geom`, not to this column.
        bboxColumn: null,
        bbox: [50, 0, 54, 1],
      });
    }
    expect(resolveGeoColumn(GEOM_NAMED_GEO, GEOM_NAMED_COLS, 'GEOM').name).toBe('geom');
  });

  it('a requested column the file lacks is 422 naming it and listing the columns', () => {
    const e = thrown(() => resolveGeoColumn(GEOM_NAMED_GEO, GEOM_NAMED_COLS, 'geometry'));
    expect(e.status).toBe(422);
    expect(e.code).toBe('validation_failed');
    expect(e.detail).toContain('"geometry"');
    for (const c of GEOM_NAMED_COLS) expect(e.detail).toContain(c);
    expect(e.extras['errors']).toEqual([{ path: '/geometry_column', message: expect.any(String) }]);
  });

  it('the request may name a column the metadata does not list (read as WKB, CRS84, no covering)', () => {
    expect(resolveGeoColumn(GEOM_NAMED_GEO, GEOM_NAMED_COLS, 'NAME')).toEqual({ name: 'name', encoding: 'WKB', crs: null, bboxColumn: null, bbox: null });
  });

  it('without geo metadata: the first of geometry, geom, the_geom, wkb_geometry, shape present, any case', () => {
    expect(GEOMETRY_COLUMN_NAMES).toEqual(['geometry', 'geom', 'the_geom', 'wkb_geometry', 'shape']);
    const cases: [string[], string][] = [
      [['id', 'the_geom', 'score', 'n'], 'the_geom'], // no_geo.parquet
      [['shape', 'wkb_geometry', 'the_geom', 'geom', 'geometry'], 'geometry'],
      [['shape', 'wkb_geometry', 'the_geom', 'geom'], 'geom'],
      [['shape', 'wkb_geometry', 'the_geom'], 'the_geom'],
      [['shape', 'wkb_geometry'], 'wkb_geometry'],
      [['x', 'shape'], 'shape'],
      [['x', 'SHAPE'], 'SHAPE'],
      [['Geom', 'THE_GEOM'], 'Geom'],
    ];
    for (const [cols, want] of cases) {
      expect(resolveGeoColumn(undefined, cols, undefined), cols.join(',')).toEqual({ name: want, encoding: 'WKB', crs: null, bboxColumn: null, bbox: null });
    }
  });

  it('a primary_column the file lacks falls back to the usual names', () => {
    const geo = geoOf('gone', { encoding: 'WKB' });
    expect(resolveGeoColumn(geo, ['id', 'geometry'], undefined).name).toBe('geometry');
  });

  // A file may hold columns differing only in case: an exact spelling wins.
  it('two columns differing only in case: an exact-case geometry_column gets the column it names', () => {
    expect(resolveGeoColumn(undefined, ['geom', 'GEOM'], 'geom').name).toBe('geom');
  });

  it('primary_column matched case-insensitively against the file', () => {
    const geo = geoOf('Footprint', { encoding: 'WKB' });
    expect(resolveGeoColumn(geo, ['id', 'FOOTPRINT', 'geometry'], undefined).name).toBe('FOOTPRINT');
  });

  it('no geometry column at all is 422 invalid_source naming the names tried and geometry_column', () => {
    for (const geo of [undefined, '{"version":"1.1.0","columns":{}}']) {
      const e = thrown(() => resolveGeoColumn(geo, ['id', 'value', 'geo_metry'], undefined));
      expect(e.status).toBe(422);
      expect(e.code).toBe('invalid_source');
      expect(e.detail).toContain('the_geom');
      expect(e.detail).toContain('geometry_column');
    }
  });
});

describe('resolveGeoColumn: encoding and CRS', () => {
  it('WKB (any case) or no encoding key is WKB', () => {
    expect(resolveGeoColumn(geoOf('g', { encoding: 'WKB' }), ['g'], undefined).encoding).toBe('WKB');
    expect(resolveGeoColumn(geoOf('g', { encoding: 'wkb' }), ['g'], undefined).encoding).toBe('WKB');
    expect(resolveGeoColumn(geoOf('g', {}), ['g'], undefined).encoding).toBe('WKB');
  });

  it.each(['point', 'Polygon', 'multipolygon', 'linestring', 'multipoint', 'multilinestring'])(
    'a GeoArrow encoding (%s) is accepted, lower-cased',
    (encoding) => {
      expect(resolveGeoColumn(geoOf('g', { encoding }), ['g'], undefined).encoding).toBe(encoding.toLowerCase());
    },
  );

  it.each(['WKT', 'geoarrow.polygon', 'box'])('another encoding (%s) is 422 invalid_source naming it', (encoding) => {
    const e = thrown(() => resolveGeoColumn(geoOf('g', { encoding }), ['g'], undefined));
    expect(e.status).toBe(422);
    expect(e.code).toBe('invalid_source');
    expect(e.detail).toContain(encoding);
    expect(e.detail).toContain('WKB');
  });

  it('the encoding check applies to the requested column, not to the primary one', () => {
    const geo = JSON.stringify({ primary_column: 'a', columns: { a: { encoding: 'WKB' }, b: { encoding: 'WKT' } } });
    expect(resolveGeoColumn(geo, ['a', 'b'], undefined).name).toBe('a');
    expect(thrown(() => resolveGeoColumn(geo, ['a', 'b'], 'B')).code).toBe('invalid_source');
  });

  it('the crs object is handed over as it is; absent or null is null (OGC:CRS84)', () => {
    const crs = { type: 'GeographicCRS', name: 'NAD27', id: { authority: 'EPSG', code: 4267 } };
    expect(resolveGeoColumn(geoOf('geom', { encoding: 'WKB', crs }), ['geom'], undefined).crs).toEqual(crs);
    expect(resolveGeoColumn(geoOf('geom', { encoding: 'WKB', crs: null }), ['geom'], undefined).crs).toBeNull();
    expect(resolveGeoColumn(geoOf('geom', { encoding: 'WKB' }), ['geom'], undefined).crs).toBeNull();
  });

  it('metadata keyed in another case than the file spells the column still applies', () => {
    const geo = geoOf('GEOM', { encoding: 'WKB', crs: { type: 'ProjectedCRS', id: { authority: 'EPSG', code: 32633 } }, bbox: [1, 2, 3, 4] });
    const g = resolveGeoColumn(geo, ['geom'], undefined);
    expect(g.name).toBe('geom');
    expect(g.crs).toEqual({ type: 'ProjectedCRS', id: { authority: 'EPSG', code: 32633 } });
    expect(g.bbox).toEqual([1, 2, 3, 4]);
  });

  it('geo metadata that is not JSON is 422 invalid_source', () => {
    const e = thrown(() => resolveGeoColumn('{"version": "1.1.0", "columns": ', ['geometry'], undefined));
    expect(e.status).toBe(422);
    expect(e.code).toBe('invalid_source');
  });
});

describe('resolveGeoColumn: the bbox covering', () => {
  it('many_groups.parquet: the struct column bbox with xmin/ymin/xmax/ymax', () => {
    const g = resolveGeoColumn(MANY_GROUPS_GEO, MANY_GROUPS_COLS, undefined);
    expect(g.name).toBe('geometry');
    expect(g.bboxColumn).toEqual({ column: 'bbox', xmin: 'xmin', ymin: 'ymin', xmax: 'xmax', ymax: 'ymax' });
    expect(g.bbox).toEqual([10, 40, 14.9921875, 43.8984375]);
  });

  it('field names are taken from the covering, whatever they are', () => {
    const covering = { bbox: { xmin: ['box', 'minx'], ymin: ['box', 'miny'], xmax: ['box', 'maxx'], ymax: ['box', 'maxy'] } };
    expect(resolveGeoColumn(geoOf('g', { encoding: 'WKB', covering }), ['g', 'box'], undefined).bboxColumn).toEqual({
      column: 'box',
      xmin: 'minx',
      ymin: 'miny',
      xmax: 'maxx',
      ymax: 'maxy',
    });
  });

  it.each([
    ['no covering', undefined],
    ['a covering without bbox', {}],
    ['a missing ymax path', { bbox: { xmin: ['b', 'xmin'], ymin: ['b', 'ymin'], xmax: ['b', 'xmax'] } }],
    ['paths in different struct columns', { bbox: { xmin: ['b', 'xmin'], ymin: ['b', 'ymin'], xmax: ['c', 'xmax'], ymax: ['b', 'ymax'] } }],
    ['a path of 3 parts', { bbox: { xmin: ['b', 'xmin', 'x'], ymin: ['b', 'ymin'], xmax: ['b', 'xmax'], ymax: ['b', 'ymax'] } }],
    ['a path of 1 part', { bbox: { xmin: ['xmin'], ymin: ['ymin'], xmax: ['xmax'], ymax: ['ymax'] } }],
    ['a path given as a string', { bbox: { xmin: 'b.xmin', ymin: ['b', 'ymin'], xmax: ['b', 'xmax'], ymax: ['b', 'ymax'] } }],
  ])('%s: no usable covering (null), the file still opens', (_name, covering) => {
    const meta: Record<string, unknown> = { encoding: 'WKB' };
    if (covering !== undefined) meta['covering'] = covering;
    const g = resolveGeoColumn(geoOf('g', meta), ['g', 'b', 'c'], undefined);
    expect(g.name).toBe('g');
    expect(g.bboxColumn).toBeNull();
  });
});
