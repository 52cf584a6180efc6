/**
 * Pure: a Zarr array's metadata (v2 `.zarray` + `.zattrs`, v3 `zarr.json`) as the cube reader needs it —
 * shape, the chunks it reads whole (a shard when sharded), the sample type, the fill value, the dimension
 * names, the attributes, the codecs named — and the key of each chunk. The documents themselves go to the
 * worker threads, where codecs/zarr.ts decodes chunks with zarrita from them.
 */
import { ZonalError } from '../errors.ts';
import { ZARR_TYPES } from '../codecs/zarr-types.ts';

/** The metadata documents of one array, by their name in the array's folder (`.zarray`, `.zattrs`, `zarr.json`). */
type ZarrDocs = Record<string, string>;

export interface ZarrArray {
  /** The array's path in the store, without slashes at either end. */
  readonly path: string;
  readonly zarrFormat: 2 | 3;
  readonly shape: readonly number[];
  /** The chunk shape read as one object: the shard's when the array is sharded. */
  readonly chunks: readonly number[];
  /** numpy's name of the sample type: int16, float32, … */
  readonly dtype: string;
  /** The array's fill_value (what an absent chunk holds): a number, NaN, or null (none). */
  readonly fill: number | null;
  readonly dims: readonly string[];
  readonly attrs: Readonly<Record<string, unknown>>;
  /** Every codec named (compressor, filters, v3 codecs, inner codecs of a shard), as zarrita's registry names them. */
  readonly codecs: readonly string[];
  readonly docs: ZarrDocs;
  /** v2: the dimension separator; v3: the chunk key encoding's. */
  readonly separator: string;
  /** v3 `default` key encoding (`c/…`); v2 keys and v3 `v2` encoding have no prefix. */
  readonly prefixed: boolean;
}

const NUMERIC = new Set(Object.values(ZARR_TYPES).filter((t) => t !== 'bool'));

function bad(path: string, why: string): ZonalError {
  return new ZonalError('invalid_source', `The Zarr array "${path}" has metadata this service cannot read: ${why}.`);
}

/** The fields read of a `.zarray`, `.zattrs` or `zarr.json` document (any may be missing or of a wrong type). */
interface MetaDoc {
  shape?: unknown;
  chunks?: unknown;
  dtype?: unknown;
  fill_value?: unknown;
  compressor?: unknown;
  filters?: unknown;
  dimension_separator?: unknown;
  _ARRAY_DIMENSIONS?: unknown;
  node_type?: unknown;
  chunk_grid?: unknown;
  data_type?: unknown;
  attributes?: unknown;
  dimension_names?: unknown;
  chunk_key_encoding?: unknown;
  codecs?: unknown;
}

function asObject(text: string, path: string, name: string): MetaDoc {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw bad(path, `its ${name} is not JSON`);
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw bad(path, `its ${name} is not a JSON object`);
  return v as MetaDoc;
}

function intList(v: unknown, path: string, what: string): number[] {
  if (!Array.isArray(v) || !v.every((n) => Number.isSafeInteger(n) && (n as number) >= 0)) throw bad(path, `its ${what} is not a list of whole numbers`);
  return v as number[];
}

/** A fill value as JSON writes it (numbers, "NaN", "Infinity", "-Infinity", null). */
function fillNumber(v: unknown): number | null {
  if (typeof v === 'number') return v;
  if (v === 'NaN') return Number.NaN;
  if (v === 'Infinity') return Number.POSITIVE_INFINITY;
  if (v === '-Infinity') return Number.NEGATIVE_INFINITY;
  if (typeof v === 'boolean') return v ? 1 : 0;
  return null;
}

/** A v2 dtype ("<i2", ">f4", "|u1") as numpy names it, or a 422 naming it. */
function v2Type(dtype: unknown, path: string): string {
  const m = typeof dtype === 'string' ? /^[<>|=]([biuf][1248])$/.exec(dtype) : null;
  const name = m ? ZARR_TYPES[m[1] as string] : undefined;
  if (name === undefined || !NUMERIC.has(name)) {
    throw new ZonalError(
      'unsupported_raster',
      `The Zarr array "${path}" holds ${JSON.stringify(dtype)} values: only numbers (ints, uints, floats) are answered.`,
    );
  }
  return name;
}

/** A v2 array from its `.zarray` and `.zattrs` texts. */
export function parseV2(path: string, zarray: string, zattrs: string | undefined): ZarrArray {
  const meta = asObject(zarray, path, '.zarray');
  const attrs = zattrs === undefined ? {} : asObject(zattrs, path, '.zattrs');
  const shape = intList(meta.shape, path, 'shape');
  const chunks = intList(meta.chunks, path, 'chunks');
  if (chunks.length !== shape.length || chunks.some((c) => c === 0)) throw bad(path, 'its chunks do not match its shape');
  const dims = Array.isArray(attrs._ARRAY_DIMENSIONS) ? (attrs._ARRAY_DIMENSIONS as unknown[]).map(String) : shape.map((_, i) => `dim_${i}`);
  const compressor = meta.compressor as { id?: unknown } | null | undefined;
  const filters = Array.isArray(meta.filters) ? (meta.filters as { id?: unknown }[]) : [];
  const codecs = [...filters, ...(compressor ? [compressor] : [])].map((c) => `numcodecs.${String(c.id)}`);
  const docs: ZarrDocs = { '.zarray': zarray };
  if (zattrs !== undefined) docs['.zattrs'] = zattrs;
  const sep = meta.dimension_separator === '/' ? '/' : '.';
  return {
    path,
    zarrFormat: 2,
    shape,
    chunks,
    dtype: v2Type(meta.dtype, path),
    fill: fillNumber(meta.fill_value),
    dims,
    attrs: attrs as Record<string, unknown>,
    codecs,
    docs,
    separator: sep,
    prefixed: false,
  };
}

interface V3Codec {
  name: string;
  configuration?: Record<string, unknown>;
}

function codecNames(list: unknown): string[] {
  if (!Array.isArray(list)) return [];
  return (list as V3Codec[]).flatMap((c) =>
    c.name === 'sharding_indexed'
      ? ['sharding_indexed', ...codecNames(c.configuration?.['codecs']), ...codecNames(c.configuration?.['index_codecs'])]
      : [c.name],
  );
}

/** A v3 array from its `zarr.json` text. */
export function parseV3(path: string, text: string): ZarrArray {
  const meta = asObject(text, path, 'zarr.json');
  if (meta.node_type !== 'array') throw bad(path, 'it is a group, not an array');
  const shape = intList(meta.shape, path, 'shape');
  const grid = meta.chunk_grid as { name?: string; configuration?: { chunk_shape?: unknown } } | undefined;
  if (grid?.name !== 'regular') throw bad(path, `its chunk grid ${JSON.stringify(grid?.name)} is not "regular"`);
  const chunks = intList(grid.configuration?.chunk_shape, path, 'chunk shape');
  if (chunks.length !== shape.length || chunks.some((c) => c === 0)) throw bad(path, 'its chunks do not match its shape');
  const dtype = String(meta.data_type);
  if (!NUMERIC.has(dtype))
    throw new ZonalError('unsupported_raster', `The Zarr array "${path}" holds ${dtype} values: only numbers (ints, uints, floats) are answered.`);
  const attrs = (meta.attributes ?? {}) as Record<string, unknown>;
  const names = Array.isArray(meta.dimension_names) ? (meta.dimension_names as unknown[]) : [];
  const dims = shape.map((_, i) => (typeof names[i] === 'string' ? (names[i] as string) : `dim_${i}`));
  const enc = meta.chunk_key_encoding as { name?: string; configuration?: { separator?: string } } | undefined;
  const prefixed = enc?.name !== 'v2';
  const separator = enc?.configuration?.separator ?? (prefixed ? '/' : '.');
  return {
    path,
    zarrFormat: 3,
    shape,
    chunks,
    dtype,
    fill: fillNumber(meta.fill_value),
    dims,
    attrs,
    codecs: codecNames(meta.codecs),
    docs: { 'zarr.json': text },
    separator,
    prefixed,
  };
}

/** The store key of the chunk (or shard) at `coords` of the chunk grid. */
export function chunkKey(a: ZarrArray, coords: readonly number[]): string {
  const tail = coords.length === 0 ? (a.prefixed ? 'c' : '0') : (a.prefixed ? ['c', ...coords] : coords).join(a.separator);
  return a.path === '' ? tail : `${a.path}/${tail}`;
}
