/**
 * The zones of a file, in file order, as the zones of a FeatureCollection (zonal/zones.ts): a GeoJSON
 * FeatureCollection (or one Feature or geometry), a GeoParquet file (vector/reader.ts: its geometry and
 * numeric columns), or a CSV file with a WKT or GeoJSON geometry column (csv-parse, the only file
 * importing it). A geometry that cannot be read is kept as no geometry plus the reason, so the zone is
 * answered with a validation_failed error in its place (like any bad zone) and the others still are.
 */
import { open, readFile, realpath, stat } from 'node:fs/promises';
import { dirname, extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse as parseCsv } from 'csv-parse/sync';
import type { ZoneInput as Zone } from '../zonal/model.ts';
import { FileSource } from '../source/file.ts';
import { openGeoParquet } from '../vector/reader.ts';
import { crsFromProjJson } from '../vector/crs.ts';
import { wkbToShape } from '../geometry/wkb.ts';
import { makeTransformer } from '../geometry/reproject.ts';
import { CliError } from './errors.ts';
import { mapPositions, parseGeometryText, shapeToGeometry, type GeoJsonGeometry } from './geometry.ts';

export type ZonesFormat = 'geojson' | 'geoparquet' | 'csv';

export interface ZonesFile {
  zones: Zone[];
  /** Why a zone's geometry could not be read (by zone index): reported as that zone's error detail. */
  unreadable: Map<number, string>;
}

export interface ZonesOptions {
  /** CSV: the geometry column (default `geometry`, else `wkt`, any case); GeoParquet: default the primary column. */
  geometryColumn?: string;
  /** The column whose value is the zone's `id` (CSV default: `id` when there is one; GeoParquet: numeric columns only). */
  idColumn?: string;
  format?: ZonesFormat;
  /** The folder a relative path is relative to (default: the working directory). */
  cwd?: string;
}

const WGS84 = '+proj=longlat +datum=WGS84 +no_defs';

/** The format by extension, else by the first bytes. */
function formatOf(path: string, head: Uint8Array): ZonesFormat {
  const ext = extname(path).toLowerCase();
  if (ext === '.geojson' || ext === '.json') return 'geojson';
  if (ext === '.parquet' || ext === '.geoparquet') return 'geoparquet';
  if (ext === '.csv' || ext === '.tsv' || ext === '.txt') return 'csv';
  if (head[0] === 0x50 && head[1] === 0x41 && head[2] === 0x52 && head[3] === 0x31) return 'geoparquet';
  const first = new TextDecoder().decode(head.subarray(0, 64)).trimStart();
  return first.startsWith('{') ? 'geojson' : 'csv';
}

export async function readZones(path: string, options: ZonesOptions = {}): Promise<ZonesFile> {
  let real: string;
  try {
    real = await realpath(resolve(options.cwd ?? process.cwd(), path));
    if (!(await stat(real)).isFile()) throw new Error('not a file');
  } catch {
    throw new CliError(`The zones file ${path} does not exist or is not a file.`);
  }
  if (options.format === 'geoparquet' || (options.format === undefined && formatOf(real, await readHead(real)) === 'geoparquet')) {
    return readGeoParquetZones(real, path, options);
  }
  const text = await readFile(real, 'utf8');
  const format = options.format ?? formatOf(real, new TextEncoder().encode(text.slice(0, 64)));
  return format === 'geojson' ? readGeoJsonZones(text, path) : readCsvZones(text, path, options, extname(real).toLowerCase() === '.tsv' ? '\t' : ',');
}

async function readHead(path: string): Promise<Uint8Array> {
  const handle = await open(path, 'r');
  try {
    const head = new Uint8Array(64);
    const { bytesRead } = await handle.read(head, 0, 64, 0);
    return head.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

function idOf(v: unknown, where: string): string | number | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string' || typeof v === 'number') return v;
  throw new CliError(`${where} has an id that is neither a string nor a number.`);
}

/** GeoJSON: a FeatureCollection (one zone per feature), a Feature or a bare geometry (one zone). */
function readGeoJsonZones(text: string, path: string): ZonesFile {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new CliError(`The zones file ${path} is not valid JSON (${(e as Error).message}).`);
  }
  const d = doc as { type?: unknown; features?: unknown; crs?: { properties?: { name?: unknown } } } | null;
  if (!d || typeof d !== 'object' || typeof d.type !== 'string') throw new CliError(`The zones file ${path} is not GeoJSON: it has no "type".`);
  const crsName = d.crs?.properties?.name;
  if (typeof crsName === 'string' && !/(CRS84|EPSG:?:?4326)$/i.test(crsName)) {
    throw new CliError(`The zones file ${path} is in ${crsName}; zones must be WGS84 longitude/latitude (GeoJSON's own CRS).`);
  }
  const unreadable = new Map<number, string>();
  if (d.type === 'FeatureCollection') {
    if (!Array.isArray(d.features)) throw new CliError(`The FeatureCollection of ${path} has no "features" list.`);
    const zones = d.features.map((f: unknown, index: number): Zone => {
      const feature = f as { type?: unknown; id?: unknown; properties?: unknown; geometry?: unknown } | null;
      if (!feature || typeof feature !== 'object' || feature.type !== 'Feature') throw new CliError(`Feature ${index} of ${path} is not a GeoJSON Feature.`);
      const properties =
        feature.properties && typeof feature.properties === 'object' && !Array.isArray(feature.properties)
          ? (feature.properties as Record<string, unknown>)
          : null;
      return { index, id: idOf(feature.id, `Feature ${index} of ${path}`), properties, geometry: feature.geometry ?? null };
    });
    return { zones, unreadable };
  }
  if (d.type === 'Feature') {
    const f = d as { id?: unknown; properties?: unknown; geometry?: unknown };
    const properties = f.properties && typeof f.properties === 'object' ? (f.properties as Record<string, unknown>) : null;
    return { zones: [{ index: 0, id: idOf(f.id, `The Feature of ${path}`), properties, geometry: f.geometry ?? null }], unreadable };
  }
  return { zones: [{ index: 0, id: null, properties: null, geometry: d }], unreadable };
}

/** CSV (or TSV) with a header line: the geometry column is WKT or GeoJSON text, the other columns are properties (text). */
function readCsvZones(text: string, path: string, options: ZonesOptions, delimiter: string): ZonesFile {
  let rows: string[][];
  try {
    rows = parseCsv(text, { bom: true, delimiter, skip_empty_lines: true, relax_column_count: false }) as string[][];
  } catch (e) {
    throw new CliError(`The zones file ${path} is not readable CSV: ${(e as Error).message}`);
  }
  const header = rows[0];
  if (!header) throw new CliError(`The zones file ${path} is empty.`);
  const find = (name: string): number => {
    const exact = header.indexOf(name);
    return exact >= 0 ? exact : header.findIndex((h) => h.toLowerCase() === name.toLowerCase());
  };
  const geometryAt = options.geometryColumn !== undefined ? find(options.geometryColumn) : ([find('geometry'), find('wkt')].find((i) => i >= 0) ?? -1);
  if (geometryAt < 0) {
    const asked = options.geometryColumn !== undefined ? `no column "${options.geometryColumn}"` : 'no "geometry" or "wkt" column';
    throw new CliError(`The zones file ${path} has ${asked} (its columns: ${header.join(', ')}); name the geometry column with --geometry-column.`);
  }
  const idAt = options.idColumn !== undefined ? find(options.idColumn) : find('id');
  if (options.idColumn !== undefined && idAt < 0)
    throw new CliError(`The zones file ${path} has no column "${options.idColumn}" for --id-column (its columns: ${header.join(', ')}).`);
  const unreadable = new Map<number, string>();
  const zones = rows.slice(1).map((row, index): Zone => {
    const properties: Record<string, unknown> = {};
    header.forEach((h, k) => {
      if (k !== geometryAt && k !== idAt) properties[h] = row[k];
    });
    let geometry: GeoJsonGeometry | null = null;
    try {
      geometry = parseGeometryText(row[geometryAt] ?? '');
      if (geometry === null) unreadable.set(index, `Zone ${index} (line ${index + 2} of ${path}) has an empty geometry.`);
    } catch (e) {
      unreadable.set(index, `Zone ${index} (line ${index + 2} of ${path}): ${(e as Error).message}.`);
    }
    const id = idAt >= 0 && row[idAt] !== undefined && row[idAt] !== '' ? (row[idAt] as string) : null;
    return { index, id, properties: Object.keys(properties).length > 0 ? properties : null, geometry };
  });
  return { zones, unreadable };
}

/**
 * GeoParquet: each row is a zone; its numeric columns are its properties (the project's reader decodes
 * numbers only: text columns are not carried). A projected file's vertices are moved to lon/lat.
 */
async function readGeoParquetZones(real: string, path: string, options: ZonesOptions): Promise<ZonesFile> {
  const source = await FileSource.open(pathToFileURL(real), [dirname(real)]);
  const reader = await openGeoParquet(source, options.geometryColumn);
  const { info } = reader;
  const numeric = info.columns.filter((c) => c.numeric).map((c) => c.name);
  const idColumn = options.idColumn;
  if (idColumn !== undefined && !numeric.includes(idColumn)) {
    throw new CliError(
      `The zones file ${path} has no numeric column "${idColumn}" for --id-column (GeoParquet zones can take their id from a numeric column only; numeric columns: ${numeric.join(', ') || 'none'}).`,
    );
  }
  const crs = crsFromProjJson(info.geo.crs);
  const move = crs.isGeographic ? null : makeTransformer(crs.proj4, WGS84).forward;
  const zones: Zone[] = [];
  const unreadable = new Map<number, string>();
  for (const group of info.rowGroups) {
    const batch = await reader.readGroup(group.index, numeric);
    for (let i = 0; i < batch.wkb.length; i++) {
      const index = zones.length;
      const bytes = batch.wkb[i];
      let geometry: GeoJsonGeometry | null = null;
      try {
        geometry = bytes ? shapeToGeometry(wkbToShape(bytes)) : null;
        if (geometry === null) unreadable.set(index, `Zone ${index} (row ${index} of ${path}) has an empty or null geometry.`);
      } catch {
        unreadable.set(index, `Zone ${index} (row ${index} of ${path}) has a geometry that is not readable WKB.`);
      }
      if (move && geometry) geometry = mapPositions(geometry, move);
      const properties: Record<string, unknown> = {};
      for (const c of numeric) {
        if (c === idColumn) continue;
        const v = (batch.values.get(c) as Float64Array)[i] as number;
        properties[c] = Number.isNaN(v) ? null : v;
      }
      const idValue = idColumn !== undefined ? ((batch.values.get(idColumn) as Float64Array)[i] as number) : Number.NaN;
      zones.push({ index, id: Number.isNaN(idValue) ? null : idValue, properties, geometry });
    }
  }
  return { zones, unreadable };
}
