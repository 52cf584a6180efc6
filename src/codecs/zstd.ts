/** ZSTD through zstddec (zstd's own decoder compiled to WASM): the only zstddec import. */
import { ZSTDDecoder } from 'zstddec';

let ready: Promise<ZSTDDecoder> | null = null;

/**
 * libtiff writes ZSTD tiles with the streaming API, so frames carry no content size: the caller gives the
 * tile's decoded size. zstddec reports a zstd error code as a length; anything longer is corrupt input.
 */
export async function decodeZstd(bytes: Uint8Array, size: number): Promise<Uint8Array> {
  return (await zstdDecoder())(bytes, size);
}

/** A synchronous decoder once the WASM is loaded (for hyparquet's compressor table, which calls it synchronously). */
export async function zstdDecoder(): Promise<(bytes: Uint8Array, size: number) => Uint8Array> {
  ready ??= (async () => {
    const d = new ZSTDDecoder();
    await d.init();
    return d;
  })();
  const d = await ready;
  return (bytes, size) => {
    const out = d.decode(bytes, size);
    if (out.length > size) throw new Error('invalid ZSTD data');
    return out;
  };
}
