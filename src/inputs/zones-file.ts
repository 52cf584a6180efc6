/**
 * The zones of a file, in file order, as the zones of a FeatureCollection (zonal/zones.ts), read through a
 * ByteSource (so under the service's source policy when opened by source/resolve.ts) and by slices: a
 * GeoJSON FeatureCollection (or one Feature or geometry; zones-geojson.ts), a GeoParquet file
 * (zones-parquet.ts: only the row groups of a slice are read), or a CSV file with a WKT or GeoJSON geometry
 * column (csv-parse, the only file importing it). A GeoJSON or CSV file is read and parsed once, whole, up
 * to a size cap. A geometry that cannot be read is kept as no geometry plus the reason, so the zone is
 * answered with a validation_failed error in its place (like any bad zone) and the others still are.
 */
import { realpath, stat } from 'node:fs/promises';
import { dirname, extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse as parseCsv } from 'csv-parse/sync';
import type { ZoneInput as Zone } from '../zonal/model.ts';
import { FileSource } from '../source/file.ts';
import type { ByteSource } from '../source/source.ts';
import { ZonesFileError } from './errors.ts';
import { parseGeometryText, type GeoJsonGeometry } from './geometry.ts';
import { sliceBounds, type ZonesFile, type ZonesFormat, type ZonesOptions, type ZonesReader } from './model.ts';
import { parseGeoJsonZones } from './zones-geojson.ts';
import { openParquetZones } from './zones-parquet.ts';

export { ZonesFileError } from './errors.ts';
export type { ZonesFile, ZonesFormat, ZonesOptions, ZonesReader } from './model.ts';

const EXTENSIONS = new Map<string, ZonesFormat>([
  ['.geojson', 'geojson'],
  ['.json', 'geojson'],
  ['.parquet', 'geoparquet'],
  ['.geoparquet', 'geoparquet'],
  ['.csv', 'csv'],
  ['.tsv', 'csv'],
  ['.txt', 'csv'],
]);

const MEDIA_TYPES = new Map<string, ZonesFormat>([
  ['application/geo+json', 'geojson'],
  ['application/json', 'geojson'],
  ['application/vnd.apache.parquet', 'geoparquet'],
  ['application/x-parquet', 'geoparquet'],
  ['application/parquet', 'geoparquet'],
  ['text/csv', 'csv'],
]);

/** The format a media type names (its parameters and case ignored), or undefined when it names none of them. */
export function mediaTypeFormat(type?: string): ZonesFormat | undefined {
  if (type === undefined) return undefined;
  return MEDIA_TYPES.get((type.split(';')[0] as string).trim().toLowerCase());
}

/** The extension of a path or URL (lower case, without a URL's query or fragment) when it names a zones format. */
function knownExtension(path: string): string | undefined {
  const ext = extname(path.replace(/[?#].*$/s, '')).toLowerCase();
  return EXTENSIONS.has(ext) ? ext : undefined;
}

/** The format by the first bytes: Parquet's magic, else `{` (GeoJSON), else CSV. */
function formatOfHead(head: Uint8Array): ZonesFormat {
  if (head[0] === 0x50 && head[1] === 0x41 && head[2] === 0x52 && head[3] === 0x31) return 'geoparquet';
  const first = new TextDecoder().decode(head.subarray(0, 64)).trimStart();
  return first.startsWith('{') ? 'geojson' : 'csv';
}

/**
 * Opens the zones file at `source`; `name` is how messages call it (the path or URL the user gave). The
 * format is `options.format`, else the extension (of the source's path, else of `name`), else the first
 * bytes. GeoParquet: the footer only. GeoJSON and CSV: read and parsed once, whole, refused past
 * `options.maxBytes`. Throws ZonesFileError for what the user can fix in the file or the options, and the
 * source's SourceError or the GeoParquet reader's ZonalError as they come.
 */
export async function openZonesFile(source: ByteSource, name: string, options: ZonesOptions & { maxBytes: number }): Promise<ZonesReader> {
  const ext = knownExtension(source.url.pathname) ?? knownExtension(name);
  const format = options.format ?? (ext !== undefined ? EXTENSIONS.get(ext) : undefined) ?? formatOfHead(new Uint8Array(await source.head(64)));
  if (format === 'geoparquet') return openParquetZones(source, name, options);
  const text = await readText(source, name, options.maxBytes);
  if (format === 'geojson') return listReader('geojson', parseGeoJsonZones(text, name));
  return openCsvZones(text, name, options, ext === '.tsv' ? '\t' : ',');
}

/** The whole file as UTF-8 text (a byte-order mark kept, as the CSV parser and JSON expect it), at most `maxBytes`. */
async function readText(source: ByteSource, name: string, maxBytes: number): Promise<string> {
  const size = await source.size();
  if (size > maxBytes) {
    throw new ZonesFileError(
      `The zones file ${name} has ${size.toLocaleString('en')} bytes, more than the ${maxBytes.toLocaleString('en')} a GeoJSON or CSV zones file may have; use GeoParquet for larger zone sets.`,
    );
  }
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(await source.read(0, size));
}

/** A reader over zones already in memory. */
function listReader(format: ZonesFormat, file: ZonesFile): ZonesReader {
  return {
    format,
    count: file.zones.length,
    async read(from, to) {
      const [start, end] = sliceBounds(from, to, file.zones.length);
      const slice: ZonesFile = { zones: file.zones.slice(start, end), unreadable: new Map() };
      for (const z of slice.zones) {
        const why = file.unreadable.get(z.index);
        if (why !== undefined) slice.unreadable.set(z.index, why);
      }
      return slice;
    },
  };
}

/** The columns of a CSV file that give each zone its geometry and its id (-1: none). */
function csvColumns(header: string[], name: string, options: ZonesOptions): { geometryAt: number; idAt: number } {
  const find = (column: string): number => {
    const exact = header.indexOf(column);
    return exact >= 0 ? exact : header.findIndex((h) => h.toLowerCase() === column.toLowerCase());
  };
  const geometryAt = options.geometryColumn !== undefined ? find(options.geometryColumn) : ([find('geometry'), find('wkt')].find((i) => i >= 0) ?? -1);
  if (geometryAt < 0) {
    const asked = options.geometryColumn !== undefined ? `no column "${options.geometryColumn}"` : 'no "geometry" or "wkt" column';
    throw new ZonesFileError(`The zones file ${name} has ${asked} (its columns: ${header.join(', ')}); name the geometry column with --geometry-column.`);
  }
  const idAt = options.idColumn !== undefined ? find(options.idColumn) : find('id');
  if (options.idColumn !== undefined && idAt < 0)
    throw new ZonesFileError(`The zones file ${name} has no column "${options.idColumn}" for --id-column (its columns: ${header.join(', ')}).`);
  return { geometryAt, idAt };
}

/** CSV (or TSV) with a header line: the geometry column is WKT or GeoJSON text, the other columns are properties (text). */
function openCsvZones(text: string, name: string, options: ZonesOptions, delimiter: string): ZonesReader {
  let rows: string[][];
  try {
    rows = parseCsv(text, { bom: true, delimiter, skip_empty_lines: true, relax_column_count: false }) as string[][];
  } catch (e) {
    throw new ZonesFileError(`The zones file ${name} is not readable CSV: ${(e as Error).message}`);
  }
  const header = rows[0];
  if (!header) throw new ZonesFileError(`The zones file ${name} is empty.`);
  const { geometryAt, idAt } = csvColumns(header, name, options);
  const count = rows.length - 1;
  return {
    format: 'csv',
    count,
    async read(from, to) {
      const [start, end] = sliceBounds(from, to, count);
      const file: ZonesFile = { zones: [], unreadable: new Map() };
      for (let index = start; index < end; index++) {
        const row = rows[index + 1] as string[];
        const properties: Record<string, unknown> = {};
        header.forEach((h, k) => {
          if (k !== geometryAt && k !== idAt) properties[h] = row[k];
        });
        const id = idAt >= 0 && row[idAt] !== undefined && row[idAt] !== '' ? (row[idAt] as string) : null;
        const zone: Zone = { index, id, properties: Object.keys(properties).length > 0 ? properties : null, geometry: null };
        zone.geometry = csvGeometry(row[geometryAt] ?? '', index, name, file.unreadable);
        file.zones.push(zone);
      }
      return file;
    },
  };
}

/** A CSV zone's geometry cell as GeoJSON, or null with the reason in `unreadable`. */
function csvGeometry(cell: string, index: number, name: string, unreadable: Map<number, string>): GeoJsonGeometry | null {
  try {
    const geometry = parseGeometryText(cell);
    if (geometry === null) unreadable.set(index, `Zone ${index} (line ${index + 2} of ${name}) has an empty geometry.`);
    return geometry;
  } catch (e) {
    unreadable.set(index, `Zone ${index} (line ${index + 2} of ${name}): ${(e as Error).message}.`);
    return null;
  }
}

/**
 * The zones of a local file (the CLI): `path` relative to `options.cwd` (default: the working directory),
 * opened with its own folder as the data root, read whole; messages call it `path`.
 */
export async function readZones(path: string, options: ZonesOptions & { cwd?: string } = {}): Promise<ZonesFile> {
  let real: string;
  try {
    real = await realpath(resolve(options.cwd ?? process.cwd(), path));
    if (!(await stat(real)).isFile()) throw new Error('not a file');
  } catch {
    throw new ZonesFileError(`The zones file ${path} does not exist or is not a file.`);
  }
  const source = await FileSource.open(pathToFileURL(real), [dirname(real)]);
  const reader = await openZonesFile(source, path, { ...options, maxBytes: Number.POSITIVE_INFINITY });
  return reader.read(0, reader.count);
}
