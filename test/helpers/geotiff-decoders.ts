/**
 * geotiff.js's own LZW and PackBits block decoders (what the service decoded with before its own,
 * src/codecs/lzw.ts and packbits.ts): an independent decoder the tests compare against. Loaded by
 * file, past the package's export map, because geotiff's main entry takes over worker threads.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const geotiffDir = dirname(createRequire(import.meta.url).resolve('geotiff'));
const moduleFile = (rel: string) => pathToFileURL(join(geotiffDir, '..', 'dist-module', rel)).href;

type BlockDecoder = new (parameters: object) => { decodeBlock(buffer: ArrayBuffer): ArrayBufferLike };
const blockDecoders = new Map<number, Promise<BlockDecoder>>();
const BLOCK_DECODER_FILES: Record<number, string> = { 5: 'compression/lzw.js', 32773: 'compression/packbits.js' };

/** LZW (5) or PackBits (32773) decompression by geotiff's decoders, without their predictor step. */
export async function geotiffBlockDecode(compression: number, bytes: Uint8Array): Promise<Uint8Array> {
  const file = BLOCK_DECODER_FILES[compression];
  if (file === undefined) throw new Error(`geotiff block decoder for compression ${compression}`);
  let decoder = blockDecoders.get(compression);
  if (!decoder) {
    decoder = import(moduleFile(file)).then((m) => (m as { default: BlockDecoder }).default);
    blockDecoders.set(compression, decoder);
  }
  const Decoder = await decoder;
  const input = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  return new Uint8Array(new Decoder({}).decodeBlock(input));
}
