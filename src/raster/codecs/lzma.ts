/**
 * LZMA (TIFF compression 34925): libtiff writes an .xz stream per tile whose filter chain is delta +
 * LZMA2. Decoded by liblzma itself through node-liblzma (prebuilt, liblzma linked in), the only file
 * importing it; pure-Rust decoders such as @napi-rs/lzma reject the delta filter.
 */
import { unxzSync } from 'node-liblzma';

export function decodeXz(bytes: Uint8Array): Uint8Array {
  return unxzSync(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
}
