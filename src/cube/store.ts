/**
 * A cube's keys and their bytes: a Zarr store's folder (each key an object under the root URL) or a
 * kerchunk reference file (each key inline or a byte range of another object, NetCDF4/HDF5 chunks read by
 * range without an HDF5 library). Every object is opened through the request's source opener, so the source
 * policy, limits, caches and counts apply to each key as to any source. An absent key is `undefined` (Zarr:
 * an absent chunk is the array's fill value).
 */
import { parse as parseReferences } from 'reference-spec-reader';
import { ZonalError } from '../errors.ts';
import { SourceError, type ByteSource } from '../source/source.ts';

export interface CubeStore {
  /** The store's root, or the reference file (for messages). */
  readonly url: string;
  readonly kind: 'zarr' | 'references';
  /** The bytes of `key`, or undefined when the store has no such key. */
  get(key: string, signal?: AbortSignal): Promise<Uint8Array | undefined>;
  /** Every key of a reference file; null for a store's folder (which cannot be listed over HTTP). */
  keys(): string[] | null;
}

export interface StoreDeps {
  openSource(url: string): Promise<ByteSource>;
  /** Most bytes one key (a chunk, a metadata document, the reference file) may hold. */
  maxBytes: number;
  signal?: AbortSignal;
}

/** The whole object, up to `maxBytes` (more is a 422 naming the limit); undefined when there is none. */
async function readWhole(source: ByteSource, maxBytes: number, what: string, signal?: AbortSignal): Promise<Uint8Array | undefined> {
  try {
    const head = await source.head(maxBytes + 1, signal);
    if (head.byteLength > maxBytes) {
      throw new ZonalError('source_too_large', `${what} holds more than ${maxBytes.toLocaleString('en')} bytes, the most one read may take.`, {
        limit_bytes: maxBytes,
      });
    }
    return new Uint8Array(head);
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

/** Whether a read failed because the object is not there (an absent Zarr key), whichever layer said so. */
function isNotFound(e: unknown): boolean {
  return (e instanceof SourceError && e.reason === 'not_found') || (e instanceof ZonalError && e.code === 'source_not_found');
}

/** A Zarr store's folder: key `a/.zarray` is the object at `<root>/a/.zarray`. */
function folderStore(root: string, deps: StoreDeps): CubeStore {
  const base = root.endsWith('/') ? root : `${root}/`;
  return {
    url: root,
    kind: 'zarr',
    async get(key, signal) {
      const url = new URL(key, base).href;
      let source: ByteSource;
      try {
        source = await deps.openSource(url);
      } catch (e) {
        if (isNotFound(e)) return undefined;
        throw e;
      }
      return readWhole(source, deps.maxBytes, `The Zarr object "${key}"`, signal ?? deps.signal);
    },
    keys: () => null,
  };
}

type Ref = string | [string | null] | [string | null, number, number];

function base64Bytes(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, 'base64'));
}

/** A kerchunk reference file (versions 0 and 1): each key inline, a whole object, or a byte range of one. */
async function referenceStore(url: string, source: ByteSource, deps: StoreDeps): Promise<CubeStore> {
  const bytes = await readWhole(source, deps.maxBytes, 'The reference file', deps.signal);
  if (bytes === undefined) throw new ZonalError('source_not_found', 'The reference file was not found.');
  let spec: unknown;
  try {
    spec = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new ZonalError('invalid_source', 'The reference file is not JSON: give a Zarr store root or a kerchunk reference file (JSON, version 0 or 1).');
  }
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec))
    throw new ZonalError('invalid_source', 'The reference file is not a JSON object of kerchunk references.');
  let refs: Map<string, Ref>;
  try {
    refs = parseReferences(spec as Parameters<typeof parseReferences>[0]) as Map<string, Ref>;
  } catch {
    throw new ZonalError('invalid_source', "The reference file's templates or generators could not be expanded.");
  }
  // Relative targets are resolved against where the reference file was read from.
  const base = source.location();
  const sources = new Map<string, Promise<ByteSource>>();
  const open = (target: string): Promise<ByteSource> => {
    const abs = new URL(target, base).href;
    let p = sources.get(abs);
    if (p === undefined) sources.set(abs, (p = deps.openSource(abs)));
    return p;
  };
  return {
    url,
    kind: 'references',
    async get(key, signal) {
      const ref = refs.get(key);
      if (ref === undefined) return undefined;
      if (typeof ref === 'string') return ref.startsWith('base64:') ? base64Bytes(ref.slice(7)) : new TextEncoder().encode(ref);
      const target = ref[0];
      if (typeof target !== 'string') throw new ZonalError('invalid_source', `The reference of "${key}" names no file.`);
      const src = await open(target);
      if (ref.length === 1) {
        const whole = await readWhole(src, deps.maxBytes, `The object of "${key}"`, signal ?? deps.signal);
        if (whole === undefined) throw new ZonalError('source_not_found', `The file the reference of "${key}" names was not found.`);
        return whole;
      }
      const [, offset, length] = ref;
      if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length < 0) {
        throw new ZonalError('invalid_source', `The reference of "${key}" has no valid byte range.`);
      }
      if (length > deps.maxBytes) {
        throw new ZonalError(
          'source_too_large',
          `The chunk "${key}" holds ${length.toLocaleString('en')} bytes, above the ${deps.maxBytes.toLocaleString('en')} one read may take.`,
          {
            limit_bytes: deps.maxBytes,
          },
        );
      }
      return new Uint8Array(await src.read(offset, length, signal ?? deps.signal));
    },
    keys: () => [...refs.keys()],
  };
}

/** Whether a URL names a reference file rather than a Zarr store's root. */
export function isReferenceUrl(url: string): boolean {
  return /\.json$/i.test(new URL(url).pathname);
}

/** Opens the cube at `url`: a reference file when its path ends in .json, else a Zarr store's root. */
export async function openCubeStore(url: string, deps: StoreDeps): Promise<CubeStore> {
  if (isReferenceUrl(url)) return referenceStore(url, await deps.openSource(url), deps);
  return folderStore(url, deps);
}
