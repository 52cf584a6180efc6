/**
 * LZMA (TIFF compression 34925): libtiff writes an .xz stream per tile. Decoded by @napi-rs/lzma, the
 * only file importing it.
 */
import { xz } from '@napi-rs/lzma';

export function decodeXz(bytes: Uint8Array): Uint8Array {
  return xz.decompressSync(bytes);
}
