/**
 * Raw LZ4 blocks through lz4-napi (lz4_flex in Rust, prebuilt for each platform as an optional package: no
 * compiler, no install script) — the only lz4-napi import. Blosc's LZ4 streams (codecs/blosc.ts) decode
 * here ~5× faster than in numcodecs' WebAssembly, whose glue also copies each chunk into WASM memory a byte
 * at a time (bench/cube). Where the prebuilt binary is missing, or `ZONAL_BLOSC=wasm`, this is null and Blosc
 * chunks take numcodecs' decoder, with the same bytes out (test/codecs/blosc.test.ts). Read here, since worker
 * threads load this module on their own.
 */
import { createRequire } from 'node:module';

/** Decodes the raw LZ4 block `src` to exactly `size` bytes (a buffer of its own, which the caller may keep or release); throws on anything else. */
export type Lz4Block = (src: Uint8Array, size: number) => Uint8Array;

interface Binding {
  /** lz4_flex's size-prepended block: a little-endian u32 of the decoded size, then the block. */
  uncompressSync(data: Uint8Array): Buffer;
}

function load(): Binding | null {
  if ((process.env['ZONAL_BLOSC'] ?? 'auto') === 'wasm') return null;
  try {
    const require = createRequire(import.meta.url);
    return require('lz4-napi') as Binding;
  } catch {
    return null;
  }
}

const binding = load();

// One growing input buffer a thread: the size prefix and a copy of the block, so that the caller's bytes are
// never written to.
let scratch = new Uint8Array(0);

function decodeBlock(b: Binding, src: Uint8Array, size: number): Uint8Array {
  if (scratch.byteLength < src.byteLength + 4) scratch = new Uint8Array(Math.max(src.byteLength + 4, scratch.byteLength * 2));
  new DataView(scratch.buffer).setUint32(0, size, true);
  scratch.set(src, 4);
  const out = b.uncompressSync(scratch.subarray(0, src.byteLength + 4));
  // lz4_flex stops at the end of the input: a block that decodes to fewer bytes than promised is corrupt.
  if (out.byteLength !== size) throw new Error(`an LZ4 block decoded to ${out.byteLength} bytes instead of ${size}`);
  return out;
}

const native: Lz4Block | null = binding === null ? null : (src, size) => decodeBlock(binding, src, size);

/** The native LZ4 block decoder, or null (then Blosc chunks go through numcodecs). */
export function lz4Block(): Lz4Block | null {
  return native;
}
