/**
 * Where the outcomes go, in the service's representations (zonal/represent.ts): CSV (one row per zone
 * and band or column, written at the end: its columns depend on every zone), NDJSON (one line per zone,
 * streamed), GeoJSON (a FeatureCollection with each zone's geometry, streamed), or GeoParquet (one row per
 * zone: its WKB geometry, id, properties, one column per band/column and statistic, the error; written with
 * hyparquet-writer, the only file importing it).
 */
import { createWriteStream } from 'node:fs';
import { access, constants } from 'node:fs/promises';
import { once } from 'node:events';
import { dirname, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { geojsonToWkb, parquetWriteFile } from 'hyparquet-writer';
import type { ColumnSource } from 'hyparquet-writer';
import type { ZoneOutcome } from '../zonal/zones.ts';
import { toCsv, zoneFeature, zoneLine } from '../zonal/represent.ts';
import { CliError } from './errors.ts';

export type OutputFormat = 'csv' | 'ndjson' | 'geojson' | 'geoparquet';
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['csv', 'ndjson', 'geojson', 'geoparquet'];

export interface Sink {
  write(o: ZoneOutcome): Promise<void>;
  /** Writes what is left and closes a file (stdout stays open). */
  finish(): Promise<void>;
}

/** The format an output path's extension names, if any. */
export function formatOfPath(path: string): OutputFormat | undefined {
  const ext = /\.([a-z]+)$/i.exec(path)?.[1]?.toLowerCase();
  if (ext === 'csv') return 'csv';
  if (ext === 'ndjson' || ext === 'jsonl') return 'ndjson';
  if (ext === 'geojson' || ext === 'json') return 'geojson';
  if (ext === 'parquet' || ext === 'geoparquet') return 'geoparquet';
  return undefined;
}

/** A text stream with backpressure; its first error (a full disk, a closed pipe) fails the next write. */
class TextOut {
  #error: Error | null = null;
  constructor(
    readonly stream: Writable,
    readonly owned: boolean,
    readonly name: string,
  ) {
    stream.on('error', (e: Error) => {
      this.#error ??= e;
    });
  }

  #check(): void {
    const e = this.#error;
    if (!e) return;
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EPIPE') throw new CliError(`The output (${this.name}) was closed before every zone was written.`);
    throw new CliError(`The output could not be written to ${this.name} (${code ?? e.message}).`);
  }

  async write(text: string): Promise<void> {
    this.#check();
    if (!this.stream.write(text)) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          this.stream.off('drain', done);
          this.stream.off('error', done);
          resolve();
        };
        this.stream.on('drain', done);
        this.stream.on('error', done);
      });
    }
    this.#check();
  }

  async close(): Promise<void> {
    this.#check();
    if (this.owned) {
      this.stream.end();
      await once(this.stream, 'close').catch(() => undefined);
    }
    this.#check();
  }
}

async function openText(path: string | undefined, cwd: string): Promise<TextOut> {
  if (path === undefined) return new TextOut(process.stdout, false, 'stdout');
  const stream = createWriteStream(resolve(cwd, path));
  try {
    await once(stream, 'open');
  } catch (e) {
    throw new CliError(`The output file ${path} cannot be written (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}).`);
  }
  return new TextOut(stream, true, path);
}

export async function openSink(format: OutputFormat, path: string | undefined, keyName: 'band' | 'column', cwd = process.cwd()): Promise<Sink> {
  if (format === 'geoparquet') {
    if (path === undefined) throw new CliError('--format geoparquet writes a file: name it with --output (for example --output zones.parquet).');
    try {
      await access(dirname(resolve(cwd, path)), constants.W_OK);
    } catch {
      throw new CliError(`The output file ${path} cannot be written (its folder does not exist or is not writable).`);
    }
    const all: ZoneOutcome[] = [];
    return {
      write: async (o) => void all.push(o),
      finish: async () => writeGeoParquet(all, resolve(cwd, path), path),
    };
  }
  const out = await openText(path, cwd);
  if (format === 'csv') {
    const all: ZoneOutcome[] = [];
    return {
      write: async (o) => void all.push(o),
      finish: async () => {
        await out.write(toCsv(all, keyName));
        await out.close();
      },
    };
  }
  if (format === 'ndjson') {
    return {
      write: (o) => out.write(`${JSON.stringify(zoneLine(o))}\n`),
      finish: () => out.close(),
    };
  }
  let first = true;
  await out.write('{"type":"FeatureCollection","features":[\n');
  return {
    write: async (o) => {
      await out.write(`${first ? '' : ',\n'}${JSON.stringify(zoneFeature(o, true))}`);
      first = false;
    },
    finish: async () => {
      await out.write(`${first ? '' : '\n'}]}\n`);
      await out.close();
    },
  };
}

/** Names the zone columns take in a GeoParquet output; a property of the same name becomes `property_<name>`. */
const RESERVED = new Set(['index', 'id', 'geometry', 'error_code', 'error_detail']);

/** A column of plain values: DOUBLE when every value is a number, BOOLEAN when every one is a boolean, else text (lists and maps as JSON). */
function column(name: string, values: unknown[]): ColumnSource {
  const present = values.filter((v) => v !== null && v !== undefined);
  if (present.length > 0 && present.every((v) => typeof v === 'number'))
    return { name, data: values.map((v) => (typeof v === 'number' ? v : null)), type: 'DOUBLE' };
  if (present.length > 0 && present.every((v) => typeof v === 'boolean'))
    return { name, data: values.map((v) => (typeof v === 'boolean' ? v : null)), type: 'BOOLEAN' };
  const text = values.map((v) => (v === null || v === undefined ? null : typeof v === 'object' ? JSON.stringify(v) : String(v)));
  return { name, data: text, type: 'STRING' };
}

const WKB_TYPES: Record<string, string> = {
  Point: 'Point',
  MultiPoint: 'MultiPoint',
  LineString: 'LineString',
  MultiLineString: 'MultiLineString',
  Polygon: 'Polygon',
  MultiPolygon: 'MultiPolygon',
};

/** GeoParquet 1.1: one row per zone, WKB geometry in lon/lat (OGC:CRS84). */
function writeGeoParquet(outcomes: readonly ZoneOutcome[], filename: string, path: string): void {
  const props: string[] = [];
  const seenProps = new Set<string>();
  const statColumns = new Map<string, { key: string; stat: string }>();
  for (const o of outcomes) {
    for (const k of Object.keys(o.zone.properties ?? {})) {
      if (!seenProps.has(k)) {
        seenProps.add(k);
        props.push(k);
      }
    }
    for (const [key, s] of Object.entries(o.statistics ?? {})) {
      for (const stat of Object.keys(s)) {
        const name = `${key}_${stat}`;
        if (!statColumns.has(name)) statColumns.set(name, { key, stat });
      }
    }
  }
  const types = new Set<string>();
  const geometry = outcomes.map((o) => {
    const g = o.zone.geometry as { type?: unknown } | null;
    const type = g && typeof g === 'object' && typeof g.type === 'string' ? WKB_TYPES[g.type] : undefined;
    if (type === undefined) return null;
    try {
      const wkb = geojsonToWkb(g as Parameters<typeof geojsonToWkb>[0]);
      types.add(type);
      return wkb;
    } catch {
      return null;
    }
  });
  const taken = new Set([...RESERVED, ...statColumns.keys()]);
  const columns: ColumnSource[] = [
    { name: 'index', data: outcomes.map((o) => o.zone.index), type: 'INT32' },
    column(
      'id',
      outcomes.map((o) => o.zone.id),
    ),
    ...props.map((p) =>
      column(
        taken.has(p) ? `property_${p}` : p,
        outcomes.map((o) => o.zone.properties?.[p]),
      ),
    ),
    ...[...statColumns].map(([name, { key, stat }]) =>
      column(
        name,
        outcomes.map((o) => (o.statistics?.[key] as Record<string, unknown> | undefined)?.[stat]),
      ),
    ),
    { name: 'error_code', data: outcomes.map((o) => o.error?.code ?? null), type: 'STRING' },
    { name: 'error_detail', data: outcomes.map((o) => o.error?.detail ?? null), type: 'STRING' },
    { name: 'geometry', data: geometry, type: 'BYTE_ARRAY' },
  ];
  const geo = { version: '1.1.0', primary_column: 'geometry', columns: { geometry: { encoding: 'WKB', geometry_types: [...types].sort() } } };
  try {
    parquetWriteFile({ filename, columnData: columns, kvMetadata: [{ key: 'geo', value: JSON.stringify(geo) }] });
  } catch (e) {
    throw new CliError(`The GeoParquet output ${path} could not be written (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}).`);
  }
}
