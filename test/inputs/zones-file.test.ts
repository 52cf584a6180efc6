/**
 * Zones files read by reference and by slices (src/inputs/zones-file.ts): a slice of a GeoParquet file reads
 * only the row groups that hold it, zones keep their index in the whole file, GeoJSON and CSV files are read
 * once and sliced, a size cap for them, the media types, and a file over HTTP through openSource. Expected
 * zones come from the fixtures (a whole read, or the file decoded by hyparquet on its own).
 */
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { mediaTypeFormat, openZonesFile, readZones, ZonesFileError, type ZonesFile } from '../../src/inputs/zones-file.ts';
import { withCounting } from '../../src/source/counting.ts';
import { FileSource } from '../../src/source/file.ts';
import { MemorySource } from '../../src/source/memory.ts';
import { openSource } from '../../src/source/resolve.ts';
import type { ByteSource, ReadStats } from '../../src/source/source.ts';
import { startRangeServer, type RangeServer } from '../helpers/range-server.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const MANY_GROUPS = join(ROOT, 'fixtures/vector/many_groups.parquet');
const GEOJSON = join(ROOT, 'fixtures/cli/elev-zones.geojson');
const CSV = join(ROOT, 'fixtures/cli/elev-zones-geojson.csv');
const NO_CAP = { maxBytes: Number.POSITIVE_INFINITY };

const fileSource = (path: string): Promise<FileSource> => FileSource.open(pathToFileURL(path), [dirname(path)]);

/** A FileSource under the project's counting wrapper: every read and its bytes go to the returned stats. */
async function counted(path: string): Promise<{ source: ByteSource; stats: ReadStats }> {
  const stats: ReadStats = { requests: 0, bytes: 0 };
  return { source: withCounting(await fileSource(path), stats), stats };
}

async function wholeRead(source: ByteSource, name: string, options: Parameters<typeof openZonesFile>[2] = NO_CAP): Promise<ZonesFile> {
  const reader = await openZonesFile(source, name, options);
  return reader.read(0, reader.count);
}

/** The unreadable reasons of the zones in [start, end) of a whole read. */
function unreadableIn(file: ZonesFile, start: number, end: number): Map<number, string> {
  return new Map([...file.unreadable].filter(([i]) => i >= start && i < end));
}

describe('GeoParquet zones by slices', () => {
  let whole: ZonesFile;
  let wholeBytes: number;

  beforeAll(async () => {
    const { source, stats } = await counted(MANY_GROUPS);
    const reader = await openZonesFile(source, 'many_groups.parquet', NO_CAP);
    expect(reader.format).toBe('geoparquet');
    const before = stats.bytes;
    whole = await reader.read(0, reader.count);
    wholeBytes = stats.bytes - before;
  });

  it('counts the zones from the footer and reads them as the file has them (hyparquet on its own)', async () => {
    const bytes = await readFile(MANY_GROUPS);
    const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    const rows = (await parquetReadObjects({ file, compressors, columns: ['id', 'value', 'pop'] })) as {
      id: number;
      value: number;
      pop: number;
    }[];
    expect(rows).toHaveLength(20_000);
    expect(whole.zones).toHaveLength(20_000);
    expect(whole.unreadable.size).toBe(0);
    expect(whole.zones.map((z) => z.index)).toEqual(rows.map((_, i) => i));
    expect(whole.zones.map((z) => z.properties)).toEqual(rows.map((r) => ({ id: r.id, value: r.value, pop: r.pop })));
    expect(whole.zones.every((z) => (z.geometry as { type: string }).type === 'Polygon')).toBe(true);
  });

  it('read(1000, 1500) reads one row group of 40 (fewer bytes than the file), and gives the whole read’s zones 1000 … 1499', async () => {
    const { source, stats } = await counted(MANY_GROUPS);
    const reader = await openZonesFile(source, 'many_groups.parquet', NO_CAP);
    expect(reader.count).toBe(20_000);
    const opened = { ...stats };
    const slice = await reader.read(1000, 1500);
    const sliceBytes = stats.bytes - opened.bytes;
    expect(slice.zones).toEqual(whole.zones.slice(1000, 1500));
    expect(slice.unreadable).toEqual(new Map());
    expect(sliceBytes).toBeGreaterThan(0);
    // One row group's column chunks: about a fortieth of what reading every group took.
    expect(sliceBytes).toBeLessThan(wholeBytes / 20);
    expect(stats.bytes).toBeLessThan(await source.size());
  });

  it('a slice across a row-group boundary reads the two groups it touches, and no more', async () => {
    const { source, stats } = await counted(MANY_GROUPS);
    const reader = await openZonesFile(source, 'many_groups.parquet', NO_CAP);
    const one = { ...stats };
    await reader.read(1000, 1500);
    const oneGroup = stats.bytes - one.bytes;
    const two = { ...stats };
    const slice = await reader.read(1499, 1501);
    const twoGroups = stats.bytes - two.bytes;
    expect(slice.zones).toEqual(whole.zones.slice(1499, 1501));
    expect(twoGroups).toBeGreaterThan(oneGroup);
    expect(twoGroups).toBeLessThan(3 * oneGroup);
  });

  it('numbers zones by their place in the whole file, slice after slice; an empty or clamped slice reads nothing more', async () => {
    const reader = await openZonesFile(await fileSource(MANY_GROUPS), 'many_groups.parquet', NO_CAP);
    const parts = await Promise.all([reader.read(0, 7_000), reader.read(7_000, 13_333), reader.read(13_333, 30_000)]);
    expect(parts.map((p) => p.zones.length)).toEqual([7_000, 6_333, 6_667]);
    expect(parts.flatMap((p) => p.zones)).toEqual(whole.zones);
    expect((await reader.read(20_000, 20_010)).zones).toEqual([]);
    expect((await reader.read(5, 5)).zones).toEqual([]);
    await expect(reader.read(-1, 3)).rejects.toThrow(RangeError);
    await expect(reader.read(4, 3)).rejects.toThrow(RangeError);
  });

  it('is not held to the size cap of GeoJSON and CSV files', async () => {
    const reader = await openZonesFile(await fileSource(MANY_GROUPS), 'many_groups.parquet', { maxBytes: 1_000 });
    expect((await reader.read(19_999, 20_000)).zones).toEqual(whole.zones.slice(19_999));
  });
});

describe('GeoJSON and CSV zones by slices', () => {
  it('GeoJSON: the features of the file, sliced with their indexes', async () => {
    const doc = JSON.parse(await readFile(GEOJSON, 'utf8')) as { features: { id?: unknown; properties: unknown; geometry: unknown }[] };
    const reader = await openZonesFile(await fileSource(GEOJSON), 'elev-zones.geojson', NO_CAP);
    expect(reader.format).toBe('geojson');
    expect(reader.count).toBe(doc.features.length);
    const slice = await reader.read(2, 5);
    expect(slice.zones).toEqual(doc.features.slice(2, 5).map((f, k) => ({ index: 2 + k, id: f.id ?? null, properties: f.properties, geometry: f.geometry })));
    const all = await reader.read(0, reader.count);
    const parts = await Promise.all([reader.read(0, 3), reader.read(3, 100)]);
    expect(parts.flatMap((p) => p.zones)).toEqual(all.zones);
  });

  it('CSV: rows sliced with their indexes, and only the slice’s unreadable geometries', async () => {
    const options = { ...NO_CAP, idColumn: 'site' };
    const whole = await wholeRead(await fileSource(CSV), 'zones.csv', options);
    // Zones 2 and 3 (lines 4 and 5) of the file have no readable geometry (fixtures/cli/elev-zones-geojson.csv).
    expect([...whole.unreadable.keys()]).toEqual([2, 3]);
    expect(whole.zones.map((z) => z.id)).toEqual(['1', '2', '3', '4']);
    const reader = await openZonesFile(await fileSource(CSV), 'zones.csv', options);
    expect(reader.format).toBe('csv');
    expect(reader.count).toBe(whole.zones.length);
    for (const [start, end] of [
      [0, 2],
      [3, 99],
      [1, 3],
      [2, 4],
    ] as const) {
      const slice = await reader.read(start, end);
      expect(slice.zones).toEqual(whole.zones.slice(start, end));
      expect(slice.unreadable).toEqual(unreadableIn(whole, start, end));
    }
  });

  it('refuses a GeoJSON or CSV file over maxBytes, naming the limit and GeoParquet, before reading it', async () => {
    const size = (await readFile(GEOJSON)).byteLength;
    const { source, stats } = await counted(GEOJSON);
    const open = openZonesFile(source, 'big.geojson', { maxBytes: size - 1 });
    await expect(open).rejects.toThrow(ZonesFileError);
    await expect(open).rejects.toThrow(
      `The zones file big.geojson has ${size.toLocaleString('en')} bytes, more than the ${(size - 1).toLocaleString('en')} a GeoJSON or CSV zones file may have; use GeoParquet for larger zone sets.`,
    );
    expect(stats.requests).toBe(0);
    await expect(openZonesFile(await fileSource(CSV), 'zones.csv', { maxBytes: 10 })).rejects.toThrow(/use GeoParquet for larger zone sets/);
    expect((await openZonesFile(await fileSource(GEOJSON), 'ok.geojson', { maxBytes: size })).count).toBeGreaterThan(0);
  });
});

describe('the format', () => {
  it('mediaTypeFormat: the media types of GeoJSON, GeoParquet and CSV (parameters and case ignored)', () => {
    expect(mediaTypeFormat('application/geo+json')).toBe('geojson');
    expect(mediaTypeFormat('application/json')).toBe('geojson');
    expect(mediaTypeFormat('application/vnd.apache.parquet')).toBe('geoparquet');
    expect(mediaTypeFormat('application/x-parquet')).toBe('geoparquet');
    expect(mediaTypeFormat('application/parquet')).toBe('geoparquet');
    expect(mediaTypeFormat('text/csv')).toBe('csv');
    expect(mediaTypeFormat('text/csv; charset=utf-8')).toBe('csv');
    expect(mediaTypeFormat(' Application/GEO+JSON ')).toBe('geojson');
    expect(mediaTypeFormat(undefined)).toBeUndefined();
    expect(mediaTypeFormat('image/tiff')).toBeUndefined();
    expect(mediaTypeFormat('')).toBeUndefined();
  });

  it('without an extension, by the first bytes; an explicit format wins over the extension', async () => {
    const text = await readFile(GEOJSON);
    const parquet = await readFile(MANY_GROUPS);
    const csv = await readFile(CSV);
    expect((await openZonesFile(new MemorySource(text), 'zones', NO_CAP)).format).toBe('geojson');
    expect((await openZonesFile(new MemorySource(parquet), 'zones', NO_CAP)).format).toBe('geoparquet');
    expect((await openZonesFile(new MemorySource(csv), 'zones', NO_CAP)).format).toBe('csv');
    // The name's extension, its query string aside.
    expect((await openZonesFile(new MemorySource(csv), 'https://h/zones.csv?sig=a.json', NO_CAP)).format).toBe('csv');
    await expect(openZonesFile(new MemorySource(text), 'zones.csv', { ...NO_CAP, format: 'geojson' })).resolves.toMatchObject({ format: 'geojson' });
  });
});

describe('readZones (the CLI)', () => {
  it('reads a local file whole, as a whole read of openZonesFile', async () => {
    const viaPath = await readZones('fixtures/cli/elev-zones-geojson.csv', { cwd: ROOT, idColumn: 'site' });
    expect(viaPath).toEqual(await wholeRead(await fileSource(CSV), 'fixtures/cli/elev-zones-geojson.csv', { ...NO_CAP, idColumn: 'site' }));
  });

  it('a missing file is a ZonesFileError in the same words as before', async () => {
    const e = await readZones('fixtures/cli/missing.geojson', { cwd: ROOT }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ZonesFileError);
    expect((e as Error).message).toBe('The zones file fixtures/cli/missing.geojson does not exist or is not a file.');
    await expect(readZones('fixtures/cli', { cwd: ROOT })).rejects.toThrow('The zones file fixtures/cli does not exist or is not a file.');
  });
});

describe('over HTTP, under the source policy (openSource, a loopback Range server)', () => {
  let web: RangeServer;

  beforeAll(async () => {
    web = await startRangeServer({ root: join(ROOT, 'fixtures') });
  });

  afterAll(async () => {
    await web.close();
  });

  const config = () => ({ ...loadConfig({}), allowPrivateNetworks: ['127.0.0.1/32'], upstreamTimeoutMs: 5_000 });

  it('a slice of a GeoParquet file: ranged reads of its footer and one row group only', async () => {
    const stats: ReadStats = { requests: 0, bytes: 0 };
    const href = web.url('/vector/many_groups.parquet');
    const source = await openSource(href, config(), { stats });
    const reader = await openZonesFile(source, href, { maxBytes: 1_000 });
    const slice = await reader.read(1000, 1500);
    const local = await openZonesFile(await fileSource(MANY_GROUPS), 'many_groups.parquet', NO_CAP);
    expect(slice).toEqual(await local.read(1000, 1500));
    const sent = web.requests.filter((r) => r.path === '/vector/many_groups.parquet');
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.every((r) => r.range !== undefined && r.status === 206)).toBe(true);
    expect(sent.reduce((n, r) => n + r.bytesSent, 0)).toBeLessThan((await readFile(MANY_GROUPS)).byteLength / 4);
  });

  it('a GeoJSON file by its media type (no extension in the URL): read once, the same zones as from disk', async () => {
    web.setFile('/zones-by-type', await readFile(GEOJSON));
    const href = web.url('/zones-by-type');
    const source = await openSource(href, config(), { stats: { requests: 0, bytes: 0 } });
    const reader = await openZonesFile(source, href, { format: mediaTypeFormat('application/geo+json'), maxBytes: 1 << 20 });
    expect(reader.format).toBe('geojson');
    expect(await reader.read(1, 4)).toEqual(await (await openZonesFile(await fileSource(GEOJSON), href, NO_CAP)).read(1, 4));
  });

  it('refuses a private address the configuration does not allow, before any zones are read', async () => {
    const href = web.url('/vector/many_groups.parquet');
    await expect(openSource(href, loadConfig({}), { stats: { requests: 0, bytes: 0 } })).rejects.toMatchObject({ code: 'url_forbidden' });
  });
});
