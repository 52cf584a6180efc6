/**
 * Malformed requests never make the service fail (contract §6): a table of hand-written bad bodies,
 * each a 4xx problem+json, then fast-check properties (arbitrary JSON, arbitrary text, mutations of a
 * valid body) asserting that every answer is 4xx problem+json or 200, never 5xx; and that the service
 * still answers afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, fixtureUrl } from '../helpers/build-app.ts';
import type { Answer } from '../helpers/problem.ts';

const RASTER = '/api/v1/zonal-stats/raster';
const TINY = fixtureUrl('raster/synthetic/tiny_int16.tif');
const RING = [
  [14.9994, 45.1523],
  [15.0014, 45.1523],
  [15.0014, 45.1543],
  [14.9994, 45.1543],
  [14.9994, 45.1523],
];
const AOI = { type: 'Polygon', coordinates: [RING] };
const VALID = { url: TINY, aoi: AOI, stats: ['count', 'mean', 'median', 'unique'], bands: [1], approx_stats: false };

function expectClientProblem(res: Answer, label: string): void {
  expect(res.statusCode, `${label}: ${res.body}`).toBeGreaterThanOrEqual(400);
  expect(res.statusCode, `${label}: ${res.body}`).toBeLessThan(500);
  expect(String(res.headers['content-type']), label).toMatch(/^application\/problem\+json/);
  const body = JSON.parse(res.body) as Record<string, unknown>;
  expect(body['status'], label).toBe(res.statusCode);
  for (const k of ['type', 'title', 'detail', 'code']) expect(typeof body[k], `${label}: ${k}`).toBe('string');
  expect(String(body['detail']), label).not.toMatch(/\/work\/|node_modules|\bat .*:\d+:\d+|\n/);
}

/** `[[[…0…]]]` nested `depth` deep, as text (JSON.stringify would recurse). */
const deep = (depth: number): string => `${'['.repeat(depth)}0${']'.repeat(depth)}`;
const with_ = (patch: Record<string, unknown>) => ({ ...VALID, ...patch });
const aoiWith = (patch: Record<string, unknown>) => with_({ aoi: { ...AOI, ...patch } });
const without = (key: string) => Object.fromEntries(Object.entries(VALID).filter(([k]) => k !== key));

/** [label, raw JSON text] — raw so that -0, 1e308, duplicate keys and __proto__ reach the server as written. */
const CASES: [string, string][] = [
  // the body itself
  ['array instead of object', '[]'],
  ['array of the valid body', JSON.stringify([VALID])],
  ['a string', '"hello"'],
  ['a number', '42'],
  ['null', 'null'],
  ['true', 'true'],
  ['empty object', '{}'],
  ['missing aoi', JSON.stringify(without('aoi'))],
  ['missing url', JSON.stringify(without('url'))],
  // url
  ['url a number', JSON.stringify(with_({ url: 42 }))],
  ['url null', JSON.stringify(with_({ url: null }))],
  ['url an array', JSON.stringify(with_({ url: [TINY] }))],
  ['url an object', JSON.stringify(with_({ url: { href: TINY } }))],
  ['url empty', JSON.stringify(with_({ url: '' }))],
  ['url "NaN"', JSON.stringify(with_({ url: 'NaN' }))],
  ['url very long (100 kB)', JSON.stringify(with_({ url: `file:///${'a'.repeat(100_000)}.tif` }))],
  ['url unicode outside roots', JSON.stringify(with_({ url: 'file:///☃/ü/数据.tif' }))],
  ['url with NUL and a lone surrogate', JSON.stringify(with_({ url: 'file:///a\u0000b\ud800.tif' }))],
  ['url javascript:', JSON.stringify(with_({ url: 'javascript:alert(1)' }))],
  ['url data:', JSON.stringify(with_({ url: 'data:image/tiff;base64,SUkqAA==' }))],
  // stats
  ['stats a string', JSON.stringify(with_({ stats: 'mean' }))],
  ['stats numbers', JSON.stringify(with_({ stats: [1, 2] }))],
  ['stats [null]', JSON.stringify(with_({ stats: [null] }))],
  ['stats ["NaN"]', JSON.stringify(with_({ stats: ['NaN'] }))],
  ['stats percentile_NaN', JSON.stringify(with_({ stats: ['percentile_NaN'] }))],
  ['stats percentile_1e308', JSON.stringify(with_({ stats: ['percentile_1e308'] }))],
  ['stats percentile_0x10', JSON.stringify(with_({ stats: ['percentile_0x10'] }))],
  ['stats a very long name', JSON.stringify(with_({ stats: ['m'.repeat(10_000)] }))],
  ['stats unicode look-alike', JSON.stringify(with_({ stats: ['meаn'] }))], // Cyrillic а
  ['stats 1000 entries', JSON.stringify(with_({ stats: Array.from({ length: 1000 }, () => 'mean') }))],
  ['stats an object', JSON.stringify(with_({ stats: { mean: true } }))],
  // bands
  ['bands ["1"]', JSON.stringify(with_({ bands: ['1'] }))],
  ['bands [1.5]', JSON.stringify(with_({ bands: [1.5] }))],
  ['bands [1e308]', '{"url":' + JSON.stringify(TINY) + ',"aoi":' + JSON.stringify(AOI) + ',"bands":[1e308]}'],
  ['bands [-0]', '{"url":' + JSON.stringify(TINY) + ',"aoi":' + JSON.stringify(AOI) + ',"bands":[-0]}'],
  ['bands [-1]', JSON.stringify(with_({ bands: [-1] }))],
  ['bands []', JSON.stringify(with_({ bands: [] }))],
  ['bands an object', JSON.stringify(with_({ bands: { 0: 1 } }))],
  ['bands nested', JSON.stringify(with_({ bands: [[1]] }))],
  ['bands 2^53+1', '{"url":' + JSON.stringify(TINY) + ',"aoi":' + JSON.stringify(AOI) + ',"bands":[9007199254740993]}'],
  // approx_stats
  ['approx_stats "true"', JSON.stringify(with_({ approx_stats: 'true' }))],
  ['approx_stats 1', JSON.stringify(with_({ approx_stats: 1 }))],
  ['approx_stats null', JSON.stringify(with_({ approx_stats: null }))],
  // aoi: wrong kinds
  ['aoi null', JSON.stringify(with_({ aoi: null }))],
  ['aoi an array', JSON.stringify(with_({ aoi: [] }))],
  ['aoi WKT text', JSON.stringify(with_({ aoi: 'POLYGON((15 45, 15.1 45, 15.1 45.1, 15 45))' }))],
  // (A Feature and a FeatureCollection are valid AOIs since contract §8: test/http/zones.test.ts.)
  ['aoi a Feature without geometry', JSON.stringify(with_({ aoi: { type: 'Feature', properties: {} } }))],
  ['aoi a FeatureCollection without features', JSON.stringify(with_({ aoi: { type: 'FeatureCollection' } }))],
  ['aoi a LineString', JSON.stringify(with_({ aoi: { type: 'LineString', coordinates: RING } }))],
  ['aoi a MultiPoint', JSON.stringify(with_({ aoi: { type: 'MultiPoint', coordinates: RING } }))],
  ['aoi a GeometryCollection', JSON.stringify(with_({ aoi: { type: 'GeometryCollection', geometries: [AOI] } }))],
  ['aoi type lowercase', JSON.stringify(aoiWith({ type: 'polygon' }))],
  ['aoi type missing', JSON.stringify(with_({ aoi: { coordinates: [RING] } }))],
  ['aoi type a number', JSON.stringify(aoiWith({ type: 7 }))],
  ['aoi coordinates missing', JSON.stringify(with_({ aoi: { type: 'Polygon' } }))],
  ['aoi coordinates null', JSON.stringify(aoiWith({ coordinates: null }))],
  // aoi: coordinates of the wrong depth or content
  ['Polygon with a bare ring (depth 2)', JSON.stringify(aoiWith({ coordinates: RING }))],
  ['Polygon with MultiPolygon coordinates (depth 4)', JSON.stringify(aoiWith({ coordinates: [[RING]] }))],
  ['MultiPolygon with Polygon coordinates', JSON.stringify(with_({ aoi: { type: 'MultiPolygon', coordinates: [RING] } }))],
  ['Point with nested coordinates', JSON.stringify(with_({ aoi: { type: 'Point', coordinates: [[15, 45]] } }))],
  ['Point with one number', JSON.stringify(with_({ aoi: { type: 'Point', coordinates: [15] } }))],
  ['Point with 4 numbers', JSON.stringify(with_({ aoi: { type: 'Point', coordinates: [15, 45, 0, 0] } }))],
  ['Point with string coordinates', JSON.stringify(with_({ aoi: { type: 'Point', coordinates: ['15', '45'] } }))],
  ['Point lon 1e308', '{"url":' + JSON.stringify(TINY) + ',"aoi":{"type":"Point","coordinates":[1e308,45]}}'],
  ['Point lat -1e308', '{"url":' + JSON.stringify(TINY) + ',"aoi":{"type":"Point","coordinates":[15,-1e308]}}'],
  ['Point radius "NaN"', JSON.stringify(with_({ aoi: { type: 'Point', coordinates: [15, 45], radius: 'NaN' } }))],
  ['Point radius 1e308', '{"url":' + JSON.stringify(TINY) + ',"aoi":{"type":"Point","coordinates":[15,45],"radius":1e308}}'],
  ['Point radius -1e-300', '{"url":' + JSON.stringify(TINY) + ',"aoi":{"type":"Point","coordinates":[15,45],"radius":-1e-300}}'],
  ['Point radius null', JSON.stringify(with_({ aoi: { type: 'Point', coordinates: [15, 45], radius: null } }))],
  ['Polygon radius', JSON.stringify(aoiWith({ radius: 10 }))],
  ['Polygon ring of 3 positions', JSON.stringify(aoiWith({ coordinates: [RING.slice(0, 3)] }))],
  ['Polygon empty ring', JSON.stringify(aoiWith({ coordinates: [[]] }))],
  ['Polygon no rings', JSON.stringify(aoiWith({ coordinates: [] }))],
  ['Polygon positions of 1 number', JSON.stringify(aoiWith({ coordinates: [RING.map((p) => [p[0]])] }))],
  ['Polygon positions of 4 numbers', JSON.stringify(aoiWith({ coordinates: [RING.map((p) => [...p, 0, 0])] }))],
  ['Polygon positions are objects', JSON.stringify(aoiWith({ coordinates: [RING.map(() => ({}))] }))],
  [
    'Polygon degenerate (all one point)',
    JSON.stringify(
      aoiWith({
        coordinates: [
          [
            [15, 45],
            [15, 45],
            [15, 45],
            [15, 45],
          ],
        ],
      }),
    ),
  ],
  [
    'Polygon collinear (zero area)',
    JSON.stringify(
      aoiWith({
        coordinates: [
          [
            [15, 45],
            [15.1, 45],
            [15.2, 45],
            [15, 45],
          ],
        ],
      }),
    ),
  ],
  ['Polygon lon 1e308', '{"url":' + JSON.stringify(TINY) + ',"aoi":{"type":"Polygon","coordinates":[[[1e308,45],[15.1,45],[15.1,45.1],[1e308,45]]]}}'],
  ['Polygon nested 5,000 levels deep', `{"url":${JSON.stringify(TINY)},"aoi":{"type":"Polygon","coordinates":${deep(5_000)}}}`],
  ['stats nested 100,000 levels deep', `{"url":${JSON.stringify(TINY)},"aoi":${JSON.stringify(AOI)},"stats":${deep(100_000)}}`],
  ['aoi with an extra member', JSON.stringify(aoiWith({ crs: { type: 'name', properties: { name: 'EPSG:4326' } } }))],
  // keys
  ['unknown top-level key (a typo of pixels)', JSON.stringify(with_({ pixel: 'all_touched' }))],
  ['"__proto__" key', `{"__proto__":{"polluted":true},"url":${JSON.stringify(TINY)},"aoi":${JSON.stringify(AOI)}}`],
  ['"__proto__" inside aoi', `{"url":${JSON.stringify(TINY)},"aoi":{"type":"Polygon","coordinates":[${JSON.stringify(RING)}],"__proto__":{"type":"Point"}}}`],
  ['"constructor.prototype" key', `{"constructor":{"prototype":{"polluted":true}},"url":${JSON.stringify(TINY)},"aoi":${JSON.stringify(AOI)}}`],
  ['"constructor" key', JSON.stringify(with_({ constructor: 1 }))],
  ['"hasOwnProperty" key', JSON.stringify(with_({ hasOwnProperty: 1 }))],
  ['duplicate key, last one wrong', `{"url":${JSON.stringify(TINY)},"aoi":${JSON.stringify(AOI)},"url":5}`],
  ['a huge key', JSON.stringify(with_({ ['k'.repeat(100_000)]: 1 }))],
];

describe('fuzzing the raster endpoint', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    // Loopback refused and a short upstream timeout: a generated URL must never reach the network.
    app = await buildTestApp({ allowPrivateNetworks: false, upstreamTimeoutMs: 1000 });
  });
  afterAll(async () => app.close());

  const send = (payload: string, contentType = 'application/json'): Promise<Answer> =>
    app.inject({ method: 'POST', url: RASTER, payload, headers: { 'content-type': contentType } });

  it('the valid body used as a base is 200', async () => {
    const res = await send(JSON.stringify(VALID));
    expect(res.statusCode, res.body).toBe(200);
  });

  it(`has at least 30 hand-written cases (${CASES.length})`, () => {
    expect(CASES.length).toBeGreaterThanOrEqual(30);
  });

  it.each(CASES)('%s → 4xx problem+json', async (label, payload) => {
    expectClientProblem(await send(payload), label);
  });

  it.each([
    ['coordinates -0 and radius -0', `{"url":${JSON.stringify(TINY)},"aoi":{"type":"Point","coordinates":[-0,-0],"radius":-0}}`],
    ['a 3D point (altitude 500 m)', JSON.stringify(with_({ aoi: { type: 'Point', coordinates: [15.0002, 45.1532, 500] } }))],
    ['a 3D polygon with altitudes ≤ 360', JSON.stringify(aoiWith({ coordinates: [RING.map((p) => [...p, 100])] }))],
    ['duplicate stats', JSON.stringify(with_({ stats: ['mean', 'mean', 'count'] }))],
    ['stats asking only for the always-present areas', JSON.stringify(with_({ stats: ['aoi_area', 'data_area'] }))],
    ['a radius of 1e-300 m', JSON.stringify(with_({ aoi: { type: 'Point', coordinates: [15, 45], radius: 1e-300 } }))],
    [
      'a ring crossing the antimeridian (179 → 181)',
      JSON.stringify(
        aoiWith({
          coordinates: [
            [
              [179, 0],
              [181, 0],
              [181, 1],
              [179, 1],
              [179, 0],
            ],
          ],
        }),
      ),
    ],
  ])('valid edge input: %s → 200', async (label, payload) => {
    const res = await send(payload);
    expect(res.statusCode, `${label}: ${res.body}`).toBe(200);
  });

  // Ring positions are [lon, lat] or [lon, lat, altitude]: the lon range must not apply to the altitude.
  it('valid edge input: a 3D polygon with altitudes of 500 m → 200', async () => {
    const res = await send(JSON.stringify(aoiWith({ coordinates: [RING.map((p) => [...p, 500])] })));
    expect(res.statusCode, res.body).toBe(200);
  });

  it('no case polluted Object.prototype', () => {
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  });

  /** Every answer is 200 or a 4xx problem+json; never 5xx. */
  const check = async (payload: string, contentType?: string): Promise<void> => {
    const res = await send(payload, contentType);
    if (res.statusCode === 200) {
      const body = JSON.parse(res.body) as Record<string, unknown>;
      expect(Object.keys(body).every((k) => /^band_\d+$/.test(k))).toBe(true);
      return;
    }
    expectClientProblem(res, `${payload.slice(0, 300)} (${payload.length} chars)`);
  };

  it('property: any JSON value as the body → 200 or 4xx problem+json', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (v) => check(JSON.stringify(v) ?? 'null')),
      { numRuns: 200, interruptAfterTimeLimit: 15_000 },
    );
  }, 30_000);

  it('property: any text with any of a few content types → 200 or 4xx problem+json', async () => {
    const contentTypes = fc.constantFrom(
      'application/json',
      'text/plain',
      'application/octet-stream',
      'application/json; charset=utf-16',
      'application/geo+json',
    );
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'grapheme', maxLength: 200 }), contentTypes, async (text, ct) => check(text, ct)),
      { numRuns: 200, interruptAfterTimeLimit: 15_000 },
    );
  }, 30_000);

  /** A valid body with one JSON pointer replaced, removed, or a key added. */
  const paths: (string | number)[][] = [
    [],
    ['url'],
    ['aoi'],
    ['aoi', 'type'],
    ['aoi', 'coordinates'],
    ['aoi', 'coordinates', 0],
    ['aoi', 'coordinates', 0, 0],
    ['aoi', 'coordinates', 0, 2, 1],
    ['aoi', 'coordinates', 0, 4],
    ['stats'],
    ['stats', 0],
    ['bands'],
    ['bands', 0],
    ['approx_stats'],
  ];
  const setAt = (root: unknown, path: (string | number)[], value: unknown, remove: boolean): unknown => {
    if (path.length === 0) return value;
    const copy = structuredClone(root) as Record<string | number, unknown>;
    let node = copy;
    for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
    const last = path[path.length - 1]!;
    if (remove) {
      if (Array.isArray(node)) node.splice(Number(last), 1);
      else delete node[last];
    } else {
      node[last] = value;
    }
    return copy;
  };
  const interesting = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.constantFrom(0, -0, 1, -1, 1e308, -1e308, 5e-324, 0.5, 2 ** 53, 180.0000001, -90.0000001, 360, 361, 65535, 65536),
    fc.constantFrom(
      '',
      'NaN',
      'Infinity',
      '-Infinity',
      '1e308',
      '__proto__',
      'constructor',
      'percentile_50',
      'density',
      'Point',
      'MultiPolygon',
      'file:///etc/passwd',
      's3://',
      'http://',
    ),
    fc.array(fc.constantFrom(1, 2, 3, 0, -1), { maxLength: 5 }),
    fc.array(fc.tuple(fc.double({ min: -200, max: 200, noNaN: true }), fc.double({ min: -100, max: 100, noNaN: true })), { maxLength: 6 }),
  );
  const mutation = fc.oneof(
    fc.record({ kind: fc.constant('set' as const), path: fc.constantFrom(...paths), value: interesting }),
    fc.record({ kind: fc.constant('remove' as const), path: fc.constantFrom(...paths.filter((p) => p.length > 0)) }),
    fc.record({ kind: fc.constant('add' as const), key: fc.string({ maxLength: 12 }), value: interesting }),
  );
  interface Mutation {
    kind: 'set' | 'remove' | 'add';
    path?: (string | number)[];
    key?: string;
    value?: unknown;
  }
  const apply = (body: unknown, m: Mutation): unknown => {
    if (m.kind === 'add') {
      const copy = structuredClone(body) as Record<string, unknown>;
      // defineProperty: a generated "__proto__" key becomes an own key of the JSON text.
      Object.defineProperty(copy, m.key!, { value: m.value, enumerable: true, configurable: true, writable: true });
      return copy;
    }
    return setAt(body, m.path!, m.value, m.kind === 'remove');
  };

  it('property: mutations of a valid body → 200 or 4xx problem+json', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 3 }), async (ms) => {
        let body: unknown = VALID;
        for (const m of ms) {
          try {
            body = apply(body, m);
          } catch {
            return; // the path no longer exists after an earlier mutation: nothing to send
          }
        }
        await check(JSON.stringify(body) ?? 'null');
      }),
      { numRuns: 200, interruptAfterTimeLimit: 20_000 },
    );
  }, 40_000);

  it('afterwards, /health is 200 and a valid request is still 200 with the right answer', async () => {
    const health = await app.inject({ method: 'GET', url: '/health' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toEqual({ status: 'ok' });
    const res = await send(JSON.stringify({ url: TINY, aoi: AOI, stats: ['count', 'sum'] }));
    expect(res.statusCode, res.body).toBe(200);
    // 23 valid pixels of row·6 + col − 5, the nodata pixel (5,3) excluded: Σ(0…23) − 24·5 − 18 = 138.
    expect(JSON.parse(res.body)).toMatchObject({ band_1: { count: 23, sum: 138 } });
  });
});
