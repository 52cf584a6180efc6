/**
 * Zarr chunks decoded by zarrita (its codec pipeline: v2 compressors and filters, v3 bytes, transpose,
 * sharding_indexed, crc32c, and numcodecs' blosc, lz4, zstd) — the only zarrita and seek-bzip import. It runs
 * in the worker threads: the main thread reads a chunk's bytes and sends them with the array's metadata
 * documents; here a store of just those keys is opened and the chunk's region read out.
 */
import { gunzipSync, inflateSync } from 'node:zlib';
import type * as Zarrita from 'zarrita';
import Bunzip from 'seek-bzip';
import { bloscReadsHere, checkBloscFrame, decodeBlosc } from './blosc.ts';
import { lz4Block } from './lz4.ts';
import type { Allocate } from './deflate.ts';
import { ZARR_TYPES } from './zarr-types.ts';

/** In every plane of a chunk (its leading dimensions), rows [row0, row1) of its last-but-one dimension and columns [0, col1) of its last. */
export interface ChunkRows {
  readonly row0: number;
  readonly row1: number;
  readonly col1: number;
}

/** A decoded region: its samples, shape and strides (elements, per dimension). */
export interface ZarrRegion {
  data: ArrayLike<number | bigint> & { buffer: ArrayBufferLike; byteLength: number };
  shape: number[];
  stride: number[];
}

type Entry = Awaited<ReturnType<NonNullable<ReturnType<typeof Zarrita.registry.get>>>>;

const bytesCodec = (name: string, decode: (b: Uint8Array) => Uint8Array): (() => Promise<Entry>) => {
  const codec = {
    kind: 'bytes_to_bytes' as const,
    encode: (): never => {
      throw new Error(`${name}: encoding is not supported`);
    },
    decode: (b: Uint8Array): Uint8Array => decode(b),
  };
  return () => Promise.resolve({ kind: 'bytes_to_bytes', fromConfig: () => codec } as unknown as Entry);
};

// node:zlib inflates in C, several times faster than the DecompressionStream zarrita uses; bz2 has no
// numcodecs decoder in JavaScript, seek-bzip's is kept.
const zlibCodec = bytesCodec('zlib', (b) => new Uint8Array(inflateSync(b)));
const gzipCodec = bytesCodec('gzip', (b) => new Uint8Array(gunzipSync(b)));
const bz2Codec = bytesCodec('bz2', (b) => new Uint8Array(Bunzip.decode(Buffer.from(b.buffer, b.byteOffset, b.byteLength))));

type Loader = NonNullable<ReturnType<typeof Zarrita.registry.get>>;
interface ChunkMeta {
  shape?: readonly number[];
  dataType?: unknown;
}
interface BytesCodec {
  encode(data: Uint8Array): Promise<Uint8Array> | Uint8Array;
  decode(data: Uint8Array): Promise<Uint8Array> | Uint8Array;
}

/**
 * numcodecs' Blosc behind c-blosc's frame check (codecs/blosc.ts checkBloscFrame): a chunk cut short, or one
 * whose header promises more than twice the chunk's bytes (room for a codec after it), is refused before
 * numcodecs reads past its end or grows its memory to the promise.
 */
function checkedBlosc(original: Loader | undefined): Loader | undefined {
  if (original === undefined) return undefined;
  return async () => {
    const Codec = (await original()) as unknown as { fromConfig(config: unknown, meta: ChunkMeta): BytesCodec };
    return {
      fromConfig: (config: unknown, meta: ChunkMeta) => {
        const codec = Codec.fromConfig(config, meta);
        const item = /(\d+)$/.exec(String(meta.dataType))?.[1];
        const raw = (meta.shape ?? []).reduce((n, d) => n * d, 1) * (item === undefined ? 8 : Math.ceil(Number(item) / 8));
        return {
          kind: 'bytes_to_bytes',
          encode: (data: Uint8Array) => codec.encode(data),
          decode: (data: Uint8Array) => {
            checkBloscFrame(data, 2 * raw + 4096);
            return codec.decode(data);
          },
        };
      },
    } as unknown as Entry;
  };
}

let loaded: Promise<typeof Zarrita> | undefined;

/**
 * zarrita, loaded on first use: a static import of it (ESM only, no `require` export) fails in a worker
 * thread whose TypeScript tsx loads as CommonJS; a dynamic import works in both.
 */
function zarrita(): Promise<typeof Zarrita> {
  loaded ??= import('zarrita').then((z) => {
    z.registry.set('zlib', zlibCodec).set('numcodecs.zlib', zlibCodec).set('gzip', gzipCodec).set('numcodecs.gzip', gzipCodec).set('numcodecs.bz2', bz2Codec);
    const blosc = checkedBlosc(z.registry.get('blosc'));
    if (blosc) z.registry.set('blosc', blosc).set('numcodecs.blosc', blosc);
    return z;
  });
  return loaded;
}

/** Whether zarrita (with the codecs added here) decodes a codec of this name. */
export async function hasZarrCodec(name: string): Promise<boolean> {
  const zarr = await zarrita();
  // zarrita reads numcodecs' fixedscaleoffset filter as its scale_offset and cast_value codecs.
  return name === 'sharding_indexed' || name === 'numcodecs.fixedscaleoffset' || zarr.registry.has(name);
}

/** An in-memory store of the given keys (absolute, "/"-led), with the ranged reads sharding needs. */
function memoryStore(entries: Map<string, Uint8Array>): Zarrita.AsyncReadable {
  return {
    get: (key: string) => Promise.resolve(entries.get(key)),
    getRange: (key: string, range: { offset: number; length: number } | { suffixLength: number }) => {
      const bytes = entries.get(key);
      if (bytes === undefined) return Promise.resolve(undefined);
      if ('suffixLength' in range) return Promise.resolve(bytes.subarray(bytes.byteLength - range.suffixLength));
      return Promise.resolve(bytes.subarray(range.offset, range.offset + range.length));
    },
  } as Zarrita.AsyncReadable;
}

/**
 * zarrita casts the fill value through fixedscaleoffset's integer type and fails on NaN (a float array's
 * usual fill): the pipeline is given no fill value, and an absent chunk is filled here with the array's own.
 */
function withoutCastFill(format: 2 | 3, docs: Record<string, string>): { docs: Record<string, string>; fill?: number } {
  const text = docs['.zarray'];
  if (format !== 2 || text === undefined || !text.includes('fixedscaleoffset')) return { docs };
  const meta = JSON.parse(text) as { fill_value?: unknown };
  if (meta.fill_value !== 'NaN') return { docs };
  return { docs: { ...docs, '.zarray': JSON.stringify({ ...meta, fill_value: null }) }, fill: Number.NaN };
}

/** The array the metadata documents describe, over a store of them and the one chunk (or shard) at `key`. */
async function openArray(
  format: 2 | 3,
  docs: Record<string, string>,
  key: string,
  bytes: Uint8Array | null,
): Promise<Zarrita.Array<Zarrita.DataType, Zarrita.AsyncReadable>> {
  const zarr = await zarrita();
  const enc = new TextEncoder();
  const entries = new Map<string, Uint8Array>(Object.entries(docs).map(([name, text]) => [`/${name}`, enc.encode(text)]));
  if (bytes !== null) entries.set(`/${key}`, bytes);
  const where = zarr.root(memoryStore(entries));
  return format === 2 ? await zarr.open.v2(where, { kind: 'array' }) : await zarr.open.v3(where, { kind: 'array' });
}

/**
 * The region `[start, stop)` per dimension of an array, from the metadata documents (`.zarray`/`.zattrs`
 * or `zarr.json`, by name) and the one chunk (or shard) that holds it, at `key` (its key in the array's
 * folder); null bytes: an absent chunk (the fill value).
 */
export async function decodeZarrRegion(
  format: 2 | 3,
  docs: Record<string, string>,
  key: string,
  bytes: Uint8Array | null,
  region: readonly (readonly [number, number])[],
  /** The caller reads the samples through the strides alone: a whole chunk may come as the decoded chunk, padding and all. */
  byStride = false,
  /** With byStride, the only samples the caller reads (region-local; the others may hold anything). */
  rows?: ChunkRows,
  /** Where a Blosc chunk decoded here goes (a spare buffer of the caller's); zarrita's decoders make their own. */
  alloc?: Allocate,
): Promise<ZarrRegion> {
  if (byStride && bytes !== null) {
    const fast = bloscChunk(format, docs, bytes, region, rows, alloc);
    if (fast !== null) return fast;
  }
  const zarr = await zarrita();
  const patched = withoutCastFill(format, docs);
  const arr = await openArray(format, patched.docs, key, bytes);
  // A region that is one whole chunk (the fold's blocks): the decoded chunk itself, without a copy of it
  // (~0.5 MB a chunk of garbage; its padding past the array's edge is never read). Shards go through get().
  const shape = arr.chunks;
  const sharded = Object.values(docs).some((text) => text.includes('sharding_indexed'));
  const whole =
    byStride && !sharded && region.every(([a, b], d) => a % (shape[d] as number) === 0 && b === Math.min(a + (shape[d] as number), arr.shape[d] as number));
  if (whole) {
    const chunk = await arr.getChunk(region.map(([a], d) => a / (shape[d] as number)));
    checkCount(chunk.data, shape);
    const decoded = { data: chunk.data, shape: region.map(([a, b]) => b - a), stride: chunk.stride } as unknown as ZarrRegion;
    if (bytes === null && patched.fill !== undefined) (decoded.data as unknown as Float64Array).fill(patched.fill);
    return decoded;
  }
  // A region inside one stored chunk (coordinates, bounds): the chunk decoded and counted, then the region
  // copied out of it. zarrita's get() would copy from a chunk that decoded short as if it were whole.
  if (bytes !== null && !sharded && region.every(([a, b], d) => Math.floor(a / (shape[d] as number)) === Math.floor((b - 1) / (shape[d] as number)))) {
    const origin = region.map(([a], d) => Math.floor(a / (shape[d] as number)));
    const chunk = await arr.getChunk(origin);
    checkCount(chunk.data, shape);
    if (ArrayBuffer.isView(chunk.data)) {
      return sliceChunk(
        chunk as unknown as ZarrRegion,
        region.map(([a, b], d) => [a - (origin[d] as number) * (shape[d] as number), b - (origin[d] as number) * (shape[d] as number)]),
      );
    }
  }
  const out = await zarr.get(
    arr,
    region.map(([a, b]) => zarr.slice(a, b)),
  );
  const decoded = out as unknown as ZarrRegion;
  if (bytes === null && patched.fill !== undefined) (decoded.data as unknown as Float64Array).fill(patched.fill);
  return decoded;
}

/** The strides (in elements) of an array of `shape` in C order. */
export function cStrides(shape: readonly number[]): number[] {
  return shape.map((_, d) => shape.slice(d + 1).reduce((n, c) => n * c, 1));
}

/** A decoded chunk must hold every value of its shape (a codec that stops short leaves the rest unwritten). */
function checkCount(data: { length: number }, shape: readonly number[]): void {
  const want = shape.reduce((n, c) => n * c, 1);
  if (data.length !== want) throw new Error(`corrupt Zarr chunk: it decoded to ${data.length} values, the chunk holds ${want}`);
}

/** The chunk-local region `[start, stop)` per dimension of a decoded chunk, copied in C order. */
function sliceChunk(chunk: ZarrRegion, region: readonly (readonly [number, number])[]): ZarrRegion {
  const shape = region.map(([a, b]) => b - a);
  const count = shape.reduce((n, c) => n * c, 1);
  const data = new (chunk.data.constructor as new (n: number) => Samples)(count) as unknown as Record<number, unknown>;
  const from = chunk.data as unknown as Record<number, unknown>;
  const at = region.map(([a]) => a);
  for (let i = 0; i < count; i++) {
    let src = 0;
    for (let d = 0; d < at.length; d++) src += (at[d] as number) * (chunk.stride[d] as number);
    data[i] = from[src];
    // The next position, last dimension fastest.
    for (let d = at.length - 1; d >= 0; d--) {
      const r = region[d] as readonly [number, number];
      if ((at[d] = (at[d] as number) + 1) < r[1]) break;
      at[d] = r[0];
    }
  }
  return { data: data as unknown as Samples, shape, stride: cStrides(shape) };
}

type Samples = ZarrRegion['data'];
const LITTLE: Record<string, new (b: ArrayBuffer, offset: number, length: number) => Samples> = {
  i1: Int8Array,
  u1: Uint8Array,
  i2: Int16Array,
  u2: Uint16Array,
  i4: Int32Array,
  u4: Uint32Array,
  i8: BigInt64Array,
  u8: BigUint64Array,
  f4: Float32Array,
  f8: Float64Array,
};

interface BloscLayout {
  readonly chunks: readonly number[];
  readonly shape: readonly number[];
  readonly array: new (b: ArrayBuffer, offset: number, length: number) => Samples;
  readonly itemsize: number;
}

// The last few arrays' layouts by their metadata text (each chunk's task brings the documents again).
const layouts = new Map<string, BloscLayout | null>();

/** A v2 `.zarray` whose chunks are Blosc and nothing else, in C order, of a little-endian number type. */
function v2Layout(meta: Record<string, unknown>): BloscLayout | null {
  const { chunks, shape, compressor, filters, order, dtype } = meta as {
    chunks?: number[];
    shape?: number[];
    compressor?: { id?: string } | null;
    filters?: unknown[] | null;
    order?: string;
    dtype?: unknown;
  };
  const type = typeof dtype === 'string' ? dtype : '';
  const array = (type[0] === '<' || type[0] === '|') && (type[1] === 'i' || type[1] === 'u' || type[1] === 'f') ? LITTLE[type.slice(1)] : undefined;
  const plain = compressor?.id === 'blosc' && (filters ?? []).length === 0 && order === 'C' && Array.isArray(chunks) && Array.isArray(shape);
  return plain && array !== undefined ? { chunks: chunks as number[], shape: shape as number[], array, itemsize: Number(type.slice(2)) } : null;
}

/**
 * A v3 `zarr.json` whose codecs are `bytes` (little-endian) then `blosc`, nothing else (no transpose, sharding
 * or checksum), on a regular grid, of a number type: its chunks are Blosc frames of the C-order samples.
 */
function v3Layout(meta: Record<string, unknown>): BloscLayout | null {
  const {
    shape,
    data_type: dataType,
    chunk_grid: grid,
    codecs,
    storage_transformers: transformers,
  } = meta as {
    shape?: number[];
    data_type?: unknown;
    chunk_grid?: { name?: string; configuration?: { chunk_shape?: number[] } };
    codecs?: { name?: string; configuration?: { endian?: string } }[];
    storage_transformers?: unknown[];
  };
  const code = Object.keys(ZARR_TYPES).find((c) => ZARR_TYPES[c] === dataType);
  const array = code === undefined ? undefined : LITTLE[code];
  const chunks = grid?.name === 'regular' ? grid.configuration?.chunk_shape : undefined;
  const [bytes, blosc, ...more] = Array.isArray(codecs) ? codecs : [];
  const itemsize = Number(code?.slice(1) ?? 0);
  // A one-byte type may leave `endian` out; a wider one must say little.
  const little = bytes?.name === 'bytes' && (bytes.configuration?.endian === 'little' || (itemsize === 1 && bytes.configuration?.endian === undefined));
  const plain = little && blosc?.name === 'blosc' && more.length === 0 && (transformers ?? []).length === 0 && Array.isArray(chunks) && Array.isArray(shape);
  return plain && array !== undefined ? { chunks: chunks as number[], shape: shape as number[], array, itemsize } : null;
}

/** The layout of an array whose chunks are a Blosc frame of C-order little-endian numbers each (v2 or v3), or null. */
function bloscLayout(format: 2 | 3, text: string): BloscLayout | null {
  const known = layouts.get(text);
  if (known !== undefined) return known;
  const meta = JSON.parse(text) as Record<string, unknown>;
  const layout = format === 2 ? v2Layout(meta) : v3Layout(meta);
  if (layouts.size >= 16) layouts.clear();
  layouts.set(text, layout);
  return layout;
}

/**
 * A whole chunk (v2, or v3 with bytes → blosc) compressed by Blosc with LZ4 alone, decoded by codecs/blosc.ts
 * (null: anything else, or no native LZ4 here; zarrita and numcodecs decode it, to the same samples).
 */
function bloscChunk(
  format: 2 | 3,
  docs: Record<string, string>,
  bytes: Uint8Array,
  region: readonly (readonly [number, number])[],
  rows?: ChunkRows,
  alloc?: Allocate,
): ZarrRegion | null {
  const lz4 = lz4Block();
  const text = docs[format === 2 ? '.zarray' : 'zarr.json'];
  if (lz4 === null || text === undefined || !bloscReadsHere(bytes)) return null;
  const layout = bloscLayout(format, text);
  if (layout === null || layout.chunks.length !== region.length) return null;
  const { chunks, shape, array, itemsize } = layout;
  if (!region.every(([a, b], d) => a % (chunks[d] as number) === 0 && b === Math.min(a + (chunks[d] as number), shape[d] as number))) return null;
  const count = chunks.reduce((n, c) => n * c, 1);
  const n = chunks.length;
  const part =
    rows === undefined || n < 2 ? undefined : { ...rows, rowItems: chunks[n - 1] as number, planeItems: (chunks[n - 1] as number) * (chunks[n - 2] as number) };
  const raw = decodeBlosc(bytes, count * itemsize, lz4, part, alloc);
  return { data: new array(raw.buffer as ArrayBuffer, 0, count), shape: region.map(([a, b]) => b - a), stride: cStrides(chunks) };
}
