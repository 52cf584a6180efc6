/**
 * The output formats (src/formats/) on a fixed set of outcomes written by hand: a zone with statistics of
 * two bands, a zone whose answer is an error, a zones × time row; what each format writes is checked
 * against the text (or, for GeoParquet, the table read back by hyparquet) expected by hand. How a request
 * or a command line names a format is checked here too.
 */
import { describe, expect, it } from 'vitest';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import type { ZoneOutcome } from '../../src/zonal/model.ts';
import { FORMATS, formatNamed, formatOfAccept, formatOfPath, type Format, type FormatOptions } from '../../src/formats/index.ts';

const POLYGON = {
  type: 'Polygon',
  coordinates: [
    [
      [0, 0],
      [1, 0],
      [1, 1],
      [0, 0],
    ],
  ],
};
const OUTCOMES: ZoneOutcome[] = [
  {
    zone: { index: 0, id: 'a', properties: { name: 'A, "one"' }, geometry: POLYGON },
    statistics: {
      band_1: { count: 4, mean: 2.5, histogram: [1, 3], aoi_area: 100, data_area: 90 },
      band_2: { count: 3, mean: null, aoi_area: 100, data_area: 80 },
    },
  },
  {
    zone: { index: 1, id: 7, properties: null, geometry: { type: 'Point', coordinates: [2, 3] } },
    error: { status: 422, code: 'invalid_geometry', detail: 'Ring 0 crosses itself.' },
  },
];
const ROW: ZoneOutcome = {
  zone: { index: 0, id: null, properties: { site: 'x' }, geometry: POLYGON },
  item: { id: 'S2A_1', datetime: '2024-05-01T10:00:00Z' },
  statistics: { band_1: { count: 1, aoi_area: 5, data_area: 5 } },
};

async function* from(outcomes: readonly ZoneOutcome[]): AsyncGenerator<ZoneOutcome> {
  yield* outcomes;
}

async function write(format: Format, outcomes: readonly ZoneOutcome[], options: Partial<FormatOptions> = {}): Promise<(string | Uint8Array)[]> {
  const pieces: (string | Uint8Array)[] = [];
  for await (const piece of format.write(from(outcomes), { keyName: 'band', includeGeometry: false, ...options })) pieces.push(piece);
  return pieces;
}

const text = async (name: string, outcomes: readonly ZoneOutcome[], options: Partial<FormatOptions> = {}): Promise<string> =>
  (await write(formatNamed(name) as Format, outcomes, options)).join('');

describe('output formats', () => {
  it('JSON and GeoJSON: a FeatureCollection, properties plus statistics or error, geometry only when asked', async () => {
    const body = JSON.parse(await text('json', OUTCOMES));
    expect(body).toEqual({
      type: 'FeatureCollection',
      features: [
        { type: 'Feature', id: 'a', geometry: null, properties: { name: 'A, "one"', statistics: OUTCOMES[0]?.statistics } },
        { type: 'Feature', id: 7, geometry: null, properties: { error: OUTCOMES[1]?.error } },
      ],
    });
    const geo = JSON.parse(await text('geojson', OUTCOMES, { includeGeometry: true }));
    expect(geo.features.map((f: { geometry: unknown }) => f.geometry)).toEqual([POLYGON, { type: 'Point', coordinates: [2, 3] }]);
    expect(JSON.parse(await text('json', []))).toEqual({ type: 'FeatureCollection', features: [] });
    // zones × time: each row names its Item.
    expect(JSON.parse(await text('json', [ROW])).features[0].properties).toEqual({
      site: 'x',
      item_id: 'S2A_1',
      datetime: '2024-05-01T10:00:00Z',
      statistics: ROW.statistics,
    });
  });

  it('NDJSON: one line a zone, written as each comes; a failure line', async () => {
    const pieces = await write(formatNamed('ndjson') as Format, OUTCOMES);
    expect(pieces).toEqual([
      '{"index":0,"id":"a","properties":{"name":"A, \\"one\\""},"statistics":{"band_1":{"count":4,"mean":2.5,"histogram":[1,3],"aoi_area":100,"data_area":90},"band_2":{"count":3,"mean":null,"aoi_area":100,"data_area":80}}}\n',
      '{"index":1,"id":7,"properties":null,"error":{"status":422,"code":"invalid_geometry","detail":"Ring 0 crosses itself."}}\n',
    ]);
    expect(await text('ndjson', [ROW])).toBe(
      '{"index":0,"id":null,"properties":{"site":"x"},"item_id":"S2A_1","datetime":"2024-05-01T10:00:00Z","statistics":{"band_1":{"count":1,"aoi_area":5,"data_area":5}}}\n',
    );
    expect(formatNamed('ndjson')?.failure?.({ status: 502, code: 'upstream_error', detail: 'The source failed.' })).toBe(
      '{"error":{"status":502,"code":"upstream_error","detail":"The source failed."}}\n',
    );
  });

  it('CSV: a row per zone and band, quoted where RFC 4180 says, lists as JSON, the error columns', async () => {
    expect((await text('csv', OUTCOMES)).split('\r\n')).toEqual([
      'index,id,name,band,count,mean,histogram,aoi_area,data_area,error_code,error_detail',
      '0,a,"A, ""one""",1,4,2.5,"[1,3]",100,90,,',
      '0,a,"A, ""one""",2,3,,,100,80,,',
      '1,7,,,,,,,,invalid_geometry,Ring 0 crosses itself.',
      '',
    ]);
    expect((await text('csv', [ROW], { keyName: 'column' })).split('\r\n')).toEqual([
      'index,id,site,item_id,datetime,column,count,aoi_area,data_area,error_code,error_detail',
      '0,,x,S2A_1,2024-05-01T10:00:00Z,band_1,1,5,5,,',
      '',
    ]);
  });

  it('GeoParquet: a row per zone, a column per band and statistic (lists of numbers as LIST columns), the WKB geometry, GeoParquet 1.1 metadata', async () => {
    const [bytes] = (await write(formatNamed('geoparquet') as Format, OUTCOMES)) as Uint8Array[];
    const file = (bytes as Uint8Array).slice().buffer;
    const rows = (await parquetReadObjects({ file })) as Record<string, unknown>[];
    expect(rows.map(({ geometry: _g, ...rest }) => rest)).toEqual([
      {
        index: 0,
        id: 'a',
        name: 'A, "one"',
        band_1_count: 4,
        band_1_mean: 2.5,
        // A list of numbers is a Parquet LIST of DOUBLE (unique, the per-cell statistics).
        band_1_histogram: [1, 3],
        band_1_aoi_area: 100,
        band_1_data_area: 90,
        band_2_count: 3,
        band_2_mean: null,
        band_2_aoi_area: 100,
        band_2_data_area: 80,
        error_code: null,
        error_detail: null,
      },
      {
        index: 1,
        id: '7',
        name: null,
        band_1_count: null,
        band_1_mean: null,
        // hyparquet reads a null list back as undefined.
        band_1_histogram: undefined,
        band_1_aoi_area: null,
        band_1_data_area: null,
        band_2_count: null,
        band_2_mean: null,
        band_2_aoi_area: null,
        band_2_data_area: null,
        error_code: 'invalid_geometry',
        error_detail: 'Ring 0 crosses itself.',
      },
    ]);
    // hyparquet reads the WKB column back as GeoJSON (the geo metadata names it).
    expect(rows.map((r) => r['geometry'])).toEqual([POLYGON, { type: 'Point', coordinates: [2, 3] }]);
    const geo = JSON.parse(parquetMetadata(file).key_value_metadata?.find((kv) => kv.key === 'geo')?.value ?? '{}');
    expect(geo).toEqual({ version: '1.1.0', primary_column: 'geometry', columns: { geometry: { encoding: 'WKB', geometry_types: ['Point', 'Polygon'] } } });
  });

  it('names: by Accept (q-values, first match, JSON by default), by extension, by name', () => {
    expect(formatOfAccept(undefined).name).toBe('json');
    expect(formatOfAccept('text/html, */*;q=0.8').name).toBe('json');
    expect(formatOfAccept('text/csv;q=0.5, application/x-ndjson').name).toBe('ndjson');
    expect(formatOfAccept('application/ndjson').name).toBe('ndjson');
    expect(formatOfAccept('application/geo+json').name).toBe('geojson');
    expect(formatOfAccept('text/csv;q=0, application/json').name).toBe('json');
    expect(formatOfAccept('application/vnd.apache.parquet').name).toBe('geoparquet');
    expect(formatOfPath('out/zones.JSONL')?.name).toBe('ndjson');
    expect(formatOfPath('zones.geoparquet')?.name).toBe('geoparquet');
    expect(formatOfPath('zones.txt')).toBeUndefined();
    expect(FORMATS.map((f) => f.name)).toEqual(['json', 'geojson', 'ndjson', 'csv', 'geoparquet']);
    // Every Accept type and extension names one format only.
    const accepts = FORMATS.flatMap((f) => f.accepts);
    const extensions = FORMATS.flatMap((f) => f.extensions);
    expect(new Set(accepts).size).toBe(accepts.length);
    expect(new Set(extensions).size).toBe(extensions.length);
  });
});
