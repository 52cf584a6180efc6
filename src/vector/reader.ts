/**
 * VectorReader over hyparquet: the only file importing a Parquet library (a heavy library enters through one adapter).
 *
 * hyparquet was chosen over parquet-wasm because its footer parser exposes each row group's column
 * statistics (the bbox covering column's min/max), so row groups are pruned before any data is read,
 * and it reads only the column chunks asked for, through the same ByteSource as everything else.
 */
import { parquetMetadataAsync, parquetRead, parquetSchema } from 'hyparquet';
import type { FileMetaData, SchemaElement } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { ZonalError } from '../errors.ts';
import { memo } from '../memo.ts';
import { SourceError, versionKey, type ByteSource } from '../source/source.ts';
import type { BBox } from '../geometry/types.ts';
import { resolveGeoColumn, type GeoColumn } from './geoparquet.ts';
import { geoArrowToWkb, isGeoArrowEncoding, type GeoArrowEncoding } from './geoarrow.ts';
import { zstdDecoder } from '../codecs/zstd.ts';

export interface ColumnInfo {
  /** As the file spells it. */
  name: string;
  numeric: boolean;
  /** Decimal scale (digits after the point) for DECIMAL columns. */
  decimalScale?: number;
}

export interface RowGroupInfo {
  index: number;
  rowStart: number;
  numRows: number;
  /** From the bbox covering column's statistics, in the file's CRS; null when unknown. */
  bbox: BBox | null;
}

interface VectorInfo {
  geo: GeoColumn;
  columns: ColumnInfo[];
  rowGroups: RowGroupInfo[];
  numRows: number;
}

export interface FeatureBatch {
  /** Each row's geometry as WKB bytes (as stored, never decoded here); null for a null geometry. */
  wkb: (Uint8Array | null)[];
  /** Per requested column (file spelling): the values, NaN where null. */
  values: Map<string, Float64Array>;
}

export interface VectorReader {
  readonly info: VectorInfo;
  /** The column chunks of one row group (the geometry column plus `columns`), to decode with decodeGroup. */
  fetchGroup(index: number, columns: readonly string[]): Promise<GroupBytes>;
  /**
   * Rows of one row group: the geometry column (raw WKB) and `columns`. The covering column is not read:
   * its statistics prune row groups, but per row a scan of the WKB, which is read anyway, costs less than
   * fetching and decoding 32 more bytes a row.
   */
  readGroup(index: number, columns: readonly string[]): Promise<FeatureBatch>;
}

/** hyparquet's gap for merging column chunk reads (its plan.js columnGapLimit). */
const COLUMN_GAP = 1 << 13;
/** Footer bytes read first: most files' metadata fits, and it costs one request. */
const FOOTER_GUESS = 64 * 1024;
/** Parsed footers kept per URL + validator (a 100-row-group footer is ~100 KiB of bytes, far less parsed). */
const footers = memo<FileMetaData>({ name: 'parquet_footers', maxEntries: 64 });

const NON_NUMERIC_LOGICAL = new Set([
  'STRING',
  'MAP',
  'LIST',
  'ENUM',
  'DATE',
  'INTERVAL',
  'NULL',
  'JSON',
  'BSON',
  'UUID',
  'TIME',
  'TIMESTAMP',
  'VARIANT',
  'GEOMETRY',
  'GEOGRAPHY',
]);
const NUMERIC_CONVERTED = new Set(['UINT_8', 'UINT_16', 'UINT_32', 'UINT_64', 'INT_8', 'INT_16', 'INT_32', 'INT_64', 'DECIMAL']);

/** contract §5: every integer type (signed and unsigned), float and decimal is numeric. */
export function isNumericColumn(el: SchemaElement): boolean {
  if (el.num_children) return false;
  const logical = el.logical_type?.type;
  if (logical === 'INTEGER' || logical === 'DECIMAL' || logical === 'FLOAT16') return true;
  if (logical !== undefined && NON_NUMERIC_LOGICAL.has(logical)) return false;
  if (el.converted_type !== undefined) return NUMERIC_CONVERTED.has(el.converted_type);
  return el.type === 'INT32' || el.type === 'INT64' || el.type === 'FLOAT' || el.type === 'DOUBLE';
}

function toNumber(v: unknown): number | null {
  if (typeof v === 'number') return Number.isNaN(v) ? null : v;
  if (typeof v === 'bigint') return Number(v);
  return null;
}

/**
 * A decimal from its unscaled integer (INT32, INT64 or big-endian two's-complement bytes), correctly
 * rounded: hyparquet's own conversion multiplies by 10^-scale (1234567.89 → 1234567.8900000001), so
 * decimal columns are read raw and converted here through their exact decimal text.
 */
export function decimalValue(raw: unknown, scale: number): number | null {
  let unscaled: bigint;
  if (typeof raw === 'number') unscaled = BigInt(Math.trunc(raw));
  else if (typeof raw === 'bigint') unscaled = raw;
  else if (raw instanceof Uint8Array && raw.length > 0) {
    unscaled = 0n;
    for (const b of raw) unscaled = (unscaled << 8n) | BigInt(b);
    if ((raw[0] as number) & 0x80) unscaled -= 1n << BigInt(raw.length * 8);
  } else return null;
  const negative = unscaled < 0n;
  const digits = (negative ? -unscaled : unscaled).toString().padStart(scale + 1, '0');
  const text = scale > 0 ? `${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}` : digits;
  return Number(negative ? `-${text}` : text);
}

function statNumber(v: unknown): number | null {
  return typeof v === 'number' || typeof v === 'bigint' ? Number(v) : null;
}

function rowGroupBBox(meta: FileMetaData, group: number, geo: GeoColumn): BBox | null {
  const cov = geo.bboxColumn;
  if (!cov) return null;
  const chunks = meta.row_groups[group]?.columns ?? [];
  const stat = (field: string, which: 'min' | 'max'): number | null => {
    const chunk = chunks.find((c) => c.meta_data?.path_in_schema.join('.') === `${cov.column}.${field}`);
    const s = chunk?.meta_data?.statistics;
    if (!s) return null;
    return statNumber(which === 'min' ? (s.min_value ?? s.min) : (s.max_value ?? s.max));
  };
  const b: (number | null)[] = [stat(cov.xmin, 'min'), stat(cov.ymin, 'min'), stat(cov.xmax, 'max'), stat(cov.ymax, 'max')];
  if (b.some((v) => v === null || !Number.isFinite(v))) return null;
  return b as BBox;
}

function notParquet(): ZonalError {
  return new ZonalError('invalid_source', 'The source is not a readable Parquet file.');
}

/** Opens a GeoParquet (or plain Parquet with a WKB geometry column) file: reads only its footer. */
export async function openGeoParquet(source: ByteSource, geometryColumn: string | undefined, signal?: AbortSignal): Promise<VectorReader> {
  const byteLength = await source.size(signal);
  const meta = await readFooter(source, byteLength, signal);
  const top = parquetSchema(meta).children.map((c) => c.element);
  const geoJson = meta.key_value_metadata?.find((kv) => kv.key === 'geo')?.value;
  const geo = resolveGeoColumn(
    geoJson,
    top.map((e) => e.name),
    geometryColumn,
  );
  const native = prepareGeometryColumn(
    geo,
    top.find((e) => e.name === geo.name),
  );
  const { rowGroups, numRows } = rowGroupInfos(meta, geo);
  const columns = columnInfos(top, geo);
  const scales = new Map(columns.filter((c) => c.decimalScale !== undefined).map((c) => [c.name, c.decimalScale as number]));
  // Read decimal columns raw (see decimalValue).
  for (const e of top) {
    if (scales.has(e.name)) {
      delete e.logical_type;
      delete e.converted_type;
    }
  }
  const fetchGroup = groupFetcher(source, { byteLength, meta, geometry: geo.name, native, scales }, signal);
  return {
    info: { geo, columns, rowGroups, numRows },
    fetchGroup,
    async readGroup(index, wanted) {
      return decodeGroup(await fetchGroup(index, wanted));
    },
  };
}

/** The file's footer, parsed once per object version; a copy, since its schema elements get adjusted. */
async function readFooter(source: ByteSource, byteLength: number, signal?: AbortSignal): Promise<FileMetaData> {
  const file = {
    byteLength,
    slice: (start: number, end?: number) => source.read(start, (end ?? byteLength) - start, signal),
  };
  // The parsed footer is reused while the object is unchanged (same URL and validator: ETag, size, mtime).
  const parsed = await footers.remember(versionKey(source), async () => {
    try {
      return await parquetMetadataAsync(file, { initialFetchSize: FOOTER_GUESS });
    } catch (e) {
      if (e instanceof SourceError || e instanceof ZonalError) throw e;
      throw notParquet();
    }
  });
  // Schema elements are adjusted later (geometry and decimal columns): work on copies.
  return { ...parsed, schema: parsed.schema.map((e) => ({ ...e })) };
}

/**
 * Checks that the geometry column holds WKB bytes (or is a nested GeoArrow column) and returns its GeoArrow
 * encoding, or null for WKB. A WKB column loses its logical type so hyparquet hands over the raw bytes.
 */
function prepareGeometryColumn(geo: GeoColumn, geomElement: SchemaElement | undefined): GeoArrowEncoding | null {
  // A GeoArrow (native) column is a nested list/struct column, converted row by row to WKB in decodeGroup.
  const native = isGeoArrowEncoding(geo.encoding) ? geo.encoding : null;
  if (native && !geomElement?.num_children) {
    throw new ZonalError('invalid_source', `The geometry column "${geo.name}" is declared with the ${native} encoding but is not a nested column.`);
  }
  const textual =
    ['STRING', 'JSON', 'ENUM', 'BSON'].includes(geomElement?.logical_type?.type ?? '') ||
    ['UTF8', 'JSON', 'ENUM', 'BSON'].includes(geomElement?.converted_type ?? '');
  if (!native && (!geomElement || geomElement.type !== 'BYTE_ARRAY' || geomElement.num_children || textual)) {
    throw new ZonalError('invalid_source', `The geometry column "${geo.name}" does not hold WKB bytes.`);
  }
  // Geometry stays WKB bytes: hyparquet would otherwise build GeoJSON objects for every row of the group.
  // (A native column's element is left alone: hyparquet knows its lists by their annotations.)
  if (!native && geomElement) delete geomElement.logical_type;
  return native;
}

/** Each row group's first row, row count and covering bbox, and the file's row count. */
function rowGroupInfos(meta: FileMetaData, geo: GeoColumn): { rowGroups: RowGroupInfo[]; numRows: number } {
  let rowStart = 0;
  const rowGroups = meta.row_groups.map((g, index) => {
    const numRows = Number(g.num_rows);
    const info: RowGroupInfo = { index, rowStart, numRows, bbox: rowGroupBBox(meta, index, geo) };
    rowStart += numRows;
    return info;
  });
  return { rowGroups, numRows: rowStart };
}

/** The top-level columns: numeric or not, with the decimal scale of DECIMAL columns. */
function columnInfos(top: readonly SchemaElement[], geo: GeoColumn): ColumnInfo[] {
  // The geometry column is listed too (binary: never numeric), so asking for it is skipped, not refused.
  return top.map((e) => {
    const scale = e.logical_type?.type === 'DECIMAL' ? e.logical_type.scale : e.converted_type === 'DECIMAL' ? (e.scale ?? 0) : undefined;
    const numeric = e.name !== geo.name && isNumericColumn(e);
    return scale !== undefined ? { name: e.name, numeric, decimalScale: scale } : { name: e.name, numeric };
  });
}

/** What every fetch of a row group of one file shares. */
interface GroupContext {
  byteLength: number;
  meta: FileMetaData;
  geometry: string;
  native: GeoArrowEncoding | null;
  scales: ReadonlyMap<string, number>;
}

/** fetchGroup over the source: one read per merged run of the wanted column chunks. */
function groupFetcher(source: ByteSource, ctx: GroupContext, signal?: AbortSignal): VectorReader['fetchGroup'] {
  return async (index, wanted) => {
    const group = ctx.meta.row_groups[index];
    if (!group) throw new Error(`no row group ${index}`);
    const merged = columnChunkRanges(group, new Set([ctx.geometry, ...wanted]));
    const ranges = await Promise.all(merged.map(async (r) => ({ start: r.start, bytes: await source.read(r.start, r.end - r.start, signal) })));
    return {
      byteLength: ctx.byteLength,
      ranges,
      // The footer with this row group alone, so that the bytes can be decoded anywhere (a worker).
      meta: { ...ctx.meta, row_groups: [group], num_rows: group.num_rows, key_value_metadata: undefined },
      geometry: ctx.geometry,
      native: ctx.native,
      columns: [...wanted],
      scales: wanted.map((c) => ctx.scales.get(c) ?? -1),
    };
  };
}

/**
 * The byte ranges of the column chunks named in `names`, merged across gaps of up to 8 KiB as hyparquet
 * merges them when it reads (so every range it asks decodeGroup for lies inside one fetched range).
 */
function columnChunkRanges(group: FileMetaData['row_groups'][number], names: ReadonlySet<string>): { start: number; end: number }[] {
  const wantedRanges = group.columns
    .filter((c) => c.meta_data && names.has(c.meta_data.path_in_schema[0] as string))
    .map((c) => {
      const m = c.meta_data as NonNullable<typeof c.meta_data>;
      const start = Number(m.dictionary_page_offset || m.data_page_offset);
      return { start, end: start + Number(m.total_compressed_size) };
    })
    .sort((a, b) => a.start - b.start);
  const merged: { start: number; end: number }[] = [];
  for (const r of wantedRanges) {
    const last = merged[merged.length - 1];
    if (last && r.start <= last.end + COLUMN_GAP) last.end = Math.max(last.end, r.end);
    else merged.push({ ...r });
  }
  return merged;
}

/** The bytes of one row group's column chunks and what decoding them needs (plain data: it crosses to a worker). */
export interface GroupBytes {
  byteLength: number;
  ranges: { start: number; bytes: ArrayBuffer }[];
  meta: FileMetaData;
  geometry: string;
  native: GeoArrowEncoding | null;
  columns: string[];
  /** Per column: its decimal scale, or -1. */
  scales: number[];
}

let zstd: ((bytes: Uint8Array, size: number) => Uint8Array) | null = null;

/**
 * Decodes a fetched row group (no I/O: it runs in a worker thread): the geometry as WKB (GeoArrow values
 * converted), the columns as numbers. ZSTD pages go through zstd's own decoder (WASM), ~3× faster than
 * hyparquet-compressors' JavaScript one.
 */
export async function decodeGroup(g: GroupBytes): Promise<FeatureBatch> {
  zstd ??= await zstdDecoder();
  const decodeZstd = zstd;
  const file = {
    byteLength: g.byteLength,
    slice(start: number, end?: number): ArrayBuffer {
      const stop = end ?? g.byteLength;
      const r = g.ranges.find((x) => x.start <= start && stop <= x.start + x.bytes.byteLength);
      if (!r) throw new ZonalError('invalid_source', 'A row group of the Parquet file reaches outside its column chunks.');
      return r.bytes.slice(start - r.start, stop - r.start);
    },
  };
  // Column by column (no object per row): each column's decoded runs placed at their row offsets.
  const rows = Number(g.meta.num_rows);
  const data = new Map<string, unknown[]>([g.geometry, ...g.columns].map((c) => [c, new Array<unknown>(rows)]));
  try {
    await parquetRead({
      file,
      metadata: g.meta,
      columns: [g.geometry, ...g.columns],
      compressors: { ...compressors, ZSTD: (input: Uint8Array, outputLength: number) => decodeZstd(input, outputLength) },
      // Raw bytes for the geometry and unannotated binary columns (decimals); text is never summarised.
      utf8: false,
      onChunk: (chunk) => {
        const out = data.get(chunk.columnName);
        if (!out) return;
        const values = chunk.columnData;
        for (let i = 0; i < values.length && chunk.rowStart + i < rows; i++) out[chunk.rowStart + i] = values[i];
      },
    });
  } catch (e) {
    if (e instanceof ZonalError) throw e;
    throw new ZonalError('invalid_source', 'A row group of the Parquet file could not be decoded.');
  }
  const native = g.native;
  const geometry = data.get(g.geometry) as unknown[];
  const wkb = new Array<Uint8Array | null>(rows);
  try {
    for (let i = 0; i < rows; i++) {
      const v = geometry[i];
      wkb[i] = native ? geoArrowToWkb(v, native) : v instanceof Uint8Array && v.length > 0 ? v : null;
    }
  } catch (e) {
    throw new ZonalError('invalid_source', `A geometry of the file could not be read: ${(e as Error).message}`);
  }
  const values = new Map(
    g.columns.map((c, k) => {
      const scale = g.scales[k] as number;
      const column = data.get(c) as unknown[];
      const out = new Float64Array(rows);
      for (let i = 0; i < rows; i++) out[i] = (scale < 0 ? toNumber(column[i]) : decimalValue(column[i], scale)) ?? Number.NaN;
      return [c, out];
    }),
  );
  return { wkb, values };
}
