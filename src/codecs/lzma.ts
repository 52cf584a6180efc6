/**
 * LZMA (TIFF compression 34925): libtiff writes an .xz stream per tile whose filter chain is delta +
 * LZMA2. Decoded by liblzma itself through node-liblzma (prebuilt, liblzma linked in), the only file
 * importing it; pure-Rust decoders such as @napi-rs/lzma reject the delta filter. Loaded on the first LZMA
 * tile only: the addon can abort the process when a thread that loaded it is torn down, so threads that
 * never meet an LZMA tile never load it.
 */
let liblzma: Promise<{ unxzSync(input: Buffer): Buffer }> | null = null;

export async function decodeXz(bytes: Uint8Array): Promise<Uint8Array> {
  liblzma ??= import('node-liblzma');
  return (await liblzma).unxzSync(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
}
