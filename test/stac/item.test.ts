/**
 * The pure functions of src/stac/item.ts (issue 4): parseItem, pickAsset, resolveHref, the media-type
 * tests and rasterBandsOf. Every failure must be a ZonalError with the contract's code (contract §6).
 */
import { describe, expect, it } from 'vitest';
import { ZonalError } from '../../src/errors.ts';
import {
  isGeoTiffAsset,
  isParquetAsset,
  parseItem,
  pickAsset,
  rasterBandsOf,
  resolveHref,
  checkItemUrl,
  type StacAsset,
  type StacItem,
} from '../../src/stac/item.ts';

const bytes = (s: string): ArrayBuffer => new TextEncoder().encode(s).buffer as ArrayBuffer;
const json = (v: unknown): ArrayBuffer => bytes(JSON.stringify(v));

/** Runs `f`, expects a ZonalError with `code` (and its status); returns it. */
function zonalError(f: () => unknown, code: string, status = 422): ZonalError {
  let caught: unknown;
  try {
    f();
  } catch (e) {
    caught = e;
  }
  expect(caught, 'expected a ZonalError').toBeInstanceOf(ZonalError);
  const e = caught as ZonalError;
  expect(e.code).toBe(code);
  expect(e.status).toBe(status);
  expect(e.detail.trim()).not.toBe('');
  expect(e.detail).not.toMatch(/\n|undefined|\[object Object\]|Unexpected token/);
  return e;
}

const item = (assets: Record<string, StacAsset>): StacItem => ({ type: 'Feature', assets });

describe('parseItem', () => {
  it('accepts a minimal Item and keeps its assets in JSON order', () => {
    const it = parseItem(json({ type: 'Feature', stac_version: '1.0.0', id: 'x', assets: { b: { href: 'b.tif' }, a: { href: 'a.tif' } } }));
    expect(Object.keys(it.assets)).toEqual(['b', 'a']);
  });

  it('accepts a UTF-8 byte order mark', () => {
    const withBom = new Uint8Array([0xef, 0xbb, 0xbf, ...new Uint8Array(json({ type: 'Feature', assets: { a: { href: 'a.tif' } } }))]);
    expect(Object.keys(parseItem(withBom.buffer).assets)).toEqual(['a']);
  });

  it.each([
    ['plain text', 'hello, I am not JSON'],
    ['truncated JSON', '{"type": "Feature", "assets": {'],
    ['an empty body', ''],
    ['HTML', '<!doctype html><html><body>404</body></html>'],
  ])('not JSON: %s → 422 invalid_source', (_name, text) => {
    const e = zonalError(() => parseItem(bytes(text)), 'invalid_source');
    expect(e.detail).toMatch(/JSON/);
  });

  it('invalid UTF-8 → 422 invalid_source', () => {
    zonalError(() => parseItem(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]).buffer), 'invalid_source');
  });

  it.each([
    ['null', null],
    ['a number', 42],
    ['a string', 'Feature'],
    ['an array', [{ type: 'Feature', assets: {} }]],
  ])('JSON that is not an object: %s → 422', (_name, v) => {
    zonalError(() => parseItem(json(v)), 'invalid_source');
  });

  it('a FeatureCollection → 422 naming what it is', () => {
    const e = zonalError(
      () => parseItem(json({ type: 'FeatureCollection', features: [{ type: 'Feature', assets: { a: { href: 'a.tif' } } }] })),
      'invalid_source',
    );
    expect(e.detail).toContain('FeatureCollection');
  });

  it('a STAC Collection (type "Collection", with assets) → 422', () => {
    zonalError(() => parseItem(json({ type: 'Collection', id: 'c', assets: { a: { href: 'a.tif' } } })), 'invalid_source');
  });

  it('an object without type → 422', () => {
    zonalError(() => parseItem(json({ assets: { a: { href: 'a.tif' } } })), 'invalid_source');
  });

  it.each([
    ['no assets member', { type: 'Feature', geometry: null, properties: {} }],
    ['assets null', { type: 'Feature', assets: null }],
    ['assets a string', { type: 'Feature', assets: 'a.tif' }],
    ['assets an array', { type: 'Feature', assets: [{ href: 'a.tif' }] }],
  ])('%s → 422 invalid_source mentioning assets', (_name, v) => {
    const e = zonalError(() => parseItem(json(v)), 'invalid_source');
    expect(e.detail).toMatch(/assets/);
  });
});

describe('checkItemUrl (contract §2: the Item URL is http or https only)', () => {
  it.each(['http://example.com/item.json', 'https://example.com/a/b/item.json?x=1', 'HTTPS://EXAMPLE.COM/item.json'])('%s is accepted', (url) => {
    expect(checkItemUrl(url).href.toLowerCase()).toBe(url.toLowerCase());
  });

  it.each(['ftp://example.com/item.json', 'file:///etc/passwd', 's3://bucket/item.json', 'data:application/json,{}'])(
    '%s → 422 unsupported_protocol',
    (url) => {
      const e = zonalError(() => checkItemUrl(url), 'unsupported_protocol');
      expect(e.detail).toContain(url.split(':')[0]);
    },
  );

  it.each(['item.json', '', 'http://'])('not a URL: %j → 422 validation_failed on /url', (url) => {
    const e = zonalError(() => checkItemUrl(url), 'validation_failed');
    expect(e.extras['errors']).toEqual([expect.objectContaining({ path: '/url' })]);
  });
});

describe('pickAsset', () => {
  const three = item({ visual: { href: 'v.tif' }, data: { href: 'd.tif', type: 'image/tiff' }, thumb: { href: 't.png' } });

  it('by key', () => {
    expect(pickAsset(three, 'data')).toEqual(['data', { href: 'd.tif', type: 'image/tiff' }]);
    expect(pickAsset(three, 'thumb')[0]).toBe('thumb');
  });

  it('default: the first asset in JSON order (not alphabetical)', () => {
    expect(pickAsset(three, undefined)[0]).toBe('visual');
    const parsed = parseItem(bytes('{"type":"Feature","assets":{"zzz":{"href":"z.tif"},"aaa":{"href":"a.tif"}}}'));
    expect(pickAsset(parsed, undefined)[0]).toBe('zzz');
  });

  it('an unknown key → 422 unknown_asset naming it and listing every key', () => {
    const e = zonalError(() => pickAsset(three, 'nope'), 'unknown_asset');
    expect(e.detail).toContain('nope');
    for (const k of ['visual', 'data', 'thumb']) expect(e.detail).toContain(k);
    expect(e.extras['assets']).toEqual(['visual', 'data', 'thumb']);
  });

  it('keys are case-sensitive', () => {
    zonalError(() => pickAsset(three, 'Data'), 'unknown_asset');
  });

  it.each(['toString', 'constructor', '__proto__', 'hasOwnProperty'])('an inherited property name (%s) is not an asset', (key) => {
    zonalError(() => pickAsset(three, key), 'unknown_asset');
  });

  it('an asset literally named "__proto__" in the JSON is found', () => {
    const parsed = parseItem(bytes('{"type":"Feature","assets":{"__proto__":{"href":"p.tif"}}}'));
    expect(pickAsset(parsed, '__proto__')).toEqual(['__proto__', { href: 'p.tif' }]);
  });

  it.each([
    ['no href', {}],
    ['href null', { href: null }],
    ['href a number', { href: 42 }],
    ['href empty', { href: '' }],
    ['href blank', { href: '   ' }],
  ])('an asset with %s → 422 invalid_source naming the asset', (_name, asset) => {
    const e = zonalError(() => pickAsset(item({ a: asset as StacAsset }), 'a'), 'invalid_source');
    expect(e.detail).toContain('"a"');
    expect(e.detail).toMatch(/href/);
  });

  it('the default asset without href → 422 (not silently the next one)', () => {
    zonalError(() => pickAsset(item({ first: { type: 'image/tiff' }, second: { href: 's.tif' } }), undefined), 'invalid_source');
  });

  it('an asset that is not an object → 422', () => {
    const e = zonalError(() => pickAsset(item({ a: null as unknown as StacAsset, b: { href: 'b.tif' } }), 'a'), 'unknown_asset');
    expect(e.detail).toContain('b');
  });

  it('an Item with an empty assets object → 422', () => {
    zonalError(() => pickAsset(item({}), undefined), 'invalid_source');
    zonalError(() => pickAsset(item({}), 'a'), 'invalid_source');
  });
});

describe('resolveHref', () => {
  const base = new URL('https://data.example.com/catalog/items/item.json');

  it.each([
    ['../data.tif', 'https://data.example.com/catalog/data.tif'],
    ['./x', 'https://data.example.com/catalog/items/x'],
    ['x.tif', 'https://data.example.com/catalog/items/x.tif'],
    ['a/b/../c.tif', 'https://data.example.com/catalog/items/a/c.tif'],
    ['./a/./b/../../c/d.tif', 'https://data.example.com/catalog/items/c/d.tif'],
    ['../../../../../up.tif', 'https://data.example.com/up.tif'],
    ['/root.tif', 'https://data.example.com/root.tif'],
    ['//cdn.example.org/x.tif', 'https://cdn.example.org/x.tif'],
    ['x.tif?token=1', 'https://data.example.com/catalog/items/x.tif?token=1'],
    ['../x.tif?sig=a%2Fb&exp=2', 'https://data.example.com/catalog/x.tif?sig=a%2Fb&exp=2'],
    ['my file.tif', 'https://data.example.com/catalog/items/my%20file.tif'],
  ])('relative %s', (href, expected) => {
    expect(resolveHref(base, href)).toBe(expected);
  });

  it("the Item URL's own query is not carried to a relative href", () => {
    expect(resolveHref(new URL('https://h.example/a/item.json?token=secret'), 'x.tif')).toBe('https://h.example/a/x.tif');
  });

  it.each([
    'http://other.example.com/x.tif',
    'https://other.example.com/a/b.tif?X-Amz-Signature=abc&X-Amz-Expires=60',
    's3://bucket/key/x.tif',
    'file:///etc/passwd',
    'file:///data/rasters/x.tif',
  ])('absolute %s is unchanged', (href) => {
    expect(resolveHref(base, href)).toBe(href);
  });

  it('an invalid absolute href → 422 invalid_source', () => {
    zonalError(() => resolveHref(base, 'http://[not-an-ip/x.tif'), 'invalid_source');
  });
});

describe('isGeoTiffAsset', () => {
  it.each([
    'image/tiff; application=geotiff; profile=cloud-optimized',
    'image/tiff; application=geotiff',
    'image/tiff',
    'IMAGE/TIFF; APPLICATION=GEOTIFF',
    'image/geotiff',
    'image/vnd.stac.geotiff; cloud-optimized=true',
    'application/x-geotiff',
  ])('%s → true', (type) => {
    expect(isGeoTiffAsset({ href: 'x', type })).toBe(true);
  });

  it('no media type → true (unknown: it is tried)', () => {
    expect(isGeoTiffAsset({ href: 'x' })).toBe(true);
    expect(isGeoTiffAsset({ href: 'x', type: 42 })).toBe(true);
  });

  it.each(['image/png', 'image/jpeg', 'text/plain', 'application/json', 'application/vnd.apache.parquet', 'application/xml', 'text/html; charset=utf-8'])(
    '%s → false',
    (type) => {
      expect(isGeoTiffAsset({ href: 'x', type })).toBe(false);
    },
  );
});

describe('isParquetAsset', () => {
  it.each([
    'application/vnd.apache.parquet',
    'application/x-parquet',
    'application/geoparquet',
    'application/vnd.apache.parquet; profile=geoparquet',
    'application/x-parquet;charset=binary',
    'Application/VND.Apache.Parquet',
    '  application/geoparquet ; version=1.1',
  ])('%s → true', (type) => {
    expect(isParquetAsset({ href: 'x', type })).toBe(true);
  });

  it('no media type → false (the href decides)', () => {
    expect(isParquetAsset({ href: 'x.parquet' })).toBe(false);
    expect(isParquetAsset({ href: 'x', type: null })).toBe(false);
  });

  it.each(['image/png', 'application/octet-stream', 'application/vnd.apache.parquetx', 'text/parquet', 'application/json', 'application/geo+json'])(
    '%s → false',
    (type) => {
      expect(isParquetAsset({ href: 'x', type })).toBe(false);
    },
  );
});

describe('rasterBandsOf', () => {
  it('no raster:bands, or not an array → []', () => {
    expect(rasterBandsOf({ href: 'x' })).toEqual([]);
    expect(rasterBandsOf({ href: 'x', 'raster:bands': { nodata: 0 } })).toEqual([]);
    expect(rasterBandsOf({ href: 'x', 'raster:bands': 'nodata=0' })).toEqual([]);
  });

  it('nodata, scale and offset per band, index 0 = band 1; other fields ignored', () => {
    const bands = rasterBandsOf({
      href: 'x',
      'raster:bands': [{ nodata: 0, scale: 2, offset: 1, data_type: 'uint16', unit: 'm' }, { scale: 0.5 }, { nodata: -9999, offset: -10 }],
    });
    expect(bands).toEqual([{ nodata: 0, scale: 2, offset: 1 }, { scale: 0.5 }, { nodata: -9999, offset: -10 }]);
  });

  it('non-object entries keep their position as empty overrides', () => {
    expect(rasterBandsOf({ href: 'x', 'raster:bands': [null, 7, { nodata: 3 }] })).toEqual([{}, {}, { nodata: 3 }]);
  });

  it('values of the wrong type are ignored', () => {
    expect(rasterBandsOf({ href: 'x', 'raster:bands': [{ nodata: '0', scale: '2', offset: null }] })).toEqual([{}]);
  });

  it('nodata "nan" (the STAC raster extension string) → NaN', () => {
    const [b] = rasterBandsOf({ href: 'x', 'raster:bands': [{ nodata: 'nan' }] });
    expect(Number.isNaN(b?.nodata)).toBe(true);
  });

  // The STAC raster extension allows nodata as "nan", "inf" or "-inf".
  it('nodata "inf" and "-inf" (the STAC raster extension strings) → ±Infinity', () => {
    expect(rasterBandsOf({ href: 'x', 'raster:bands': [{ nodata: 'inf' }, { nodata: '-inf' }] })).toEqual([{ nodata: Infinity }, { nodata: -Infinity }]);
  });
});
