/**
 * DEFLATE (TIFF compressions 8 and 32946) through libdeflate, the library GDAL links, by the project's own
 * Node-API binding (native/inflate/, built by scripts/build-native.mjs where a compiler and libdeflate-dev
 * exist); else node:zlib, with the same bytes out. On a 1024 × 1024 UInt16 Sentinel-2 tile libdeflate
 * inflates 1.2–1.3× faster than node:zlib (bench/codecs), and it stops once the rows a request needs are
 * out, at a cost linear in them. `ZONAL_INFLATE=zlib` forces node:zlib (read here, since worker threads load this module on their own).
 */
import { loadAddon } from './native-addon.ts';
import { inflateSync } from 'node:zlib';

export type InflateBackend = 'libdeflate' | 'node:zlib';

/** The inflater a thread uses, and why not libdeflate when it is node:zlib. */
export interface InflateInfo {
  backend: InflateBackend;
  reason: string;
}

interface Binding {
  /** Inflates `src` into `dst`; returns how many leading bytes of `dst` are final (native/inflate/inflate.c). */
  inflate(src: Uint8Array, dst: Uint8Array): number;
  /** Spare room a prefix decode needs past the bytes it wants. */
  prefixMargin: number;
}

const ADDON = new URL('../../native/inflate/build/Release/zonal_inflate.node', import.meta.url);

function load(): { binding: Binding | null; why: string } {
  if ((process.env['ZONAL_INFLATE'] ?? 'auto') === 'zlib') return { binding: null, why: 'ZONAL_INFLATE=zlib' };
  return loadAddon<Binding>(ADDON, 'binding');
}

const loaded = load();
let preferred: InflateBackend = loaded.binding ? 'libdeflate' : 'node:zlib';

/** Makes this thread inflate with `backend` (tests run the conformance corpus through both; libdeflate only where built). */
export function useInflateBackend(backend: InflateBackend): void {
  if (backend === 'libdeflate' && !loaded.binding) throw new Error(`libdeflate is not available: ${loaded.why}`);
  preferred = backend;
}

/** Which inflater this thread uses (for the start-up log and /metrics). */
export function inflateBackend(): InflateInfo {
  return preferred === 'libdeflate' ? { backend: 'libdeflate', reason: '' } : { backend: 'node:zlib', reason: loaded.why || 'chosen' };
}

/**
 * An output buffer of `n` bytes from offset 0 of its own buffer (the caller may hand out a larger spare
 * one, up to `most`, or one on a SharedArrayBuffer): its contents are overwritten.
 */
export type Allocate = (n: number, most: number) => Uint8Array;

/** A new buffer, not zero-filled. */
export const fresh: Allocate = (n) => new Uint8Array(Buffer.allocUnsafeSlow(n).buffer, 0, n);

/**
 * A zlib stream's first `need` bytes (of `size`, the block's whole decoded size): at least `need` bytes
 * when the stream holds them, more when stopping early would not pay. The result is a view from offset 0
 * of a buffer of its own (samples are finished in place). With `backend` a test picks the path.
 */
export function inflate(bytes: Uint8Array, size: number, need = size, backend: InflateBackend = preferred, alloc: Allocate = fresh): Uint8Array {
  const binding = loaded.binding;
  if (backend === 'libdeflate' && binding) {
    const margin = binding.prefixMargin;
    // Stopping early buys nothing within the margin of the end.
    const room = need + margin < size ? need + margin : size + margin;
    const out = alloc(room, size + margin);
    const n = binding.inflate(bytes, out);
    return new Uint8Array(out.buffer, 0, room === size + margin ? Math.min(n, size) : n);
  }
  // One output chunk of the block's size: zlib's default 16 KiB chunks cost a copy per chunk.
  return inflateSync(bytes, { chunkSize: Math.max(16 * 1024, size + 64) });
}
