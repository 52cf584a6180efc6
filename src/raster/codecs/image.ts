/**
 * JPEG and WebP tiles, decoded by libjpeg-turbo (mozjpeg) and libwebp through sharp: the only file that
 * imports sharp. These are the libraries GDAL itself decodes with, so lossy tiles come out as GDAL's do.
 *
 * sharp needs its shared libraries loaded by the main thread before worker threads use it (sharp's docs,
 * "worker threads" on glibc Linux): the worker pool calls `preloadImageCodecs()` before it starts.
 */
import type SharpFactory from 'sharp';
import type { TileCodec } from '../geotiff-adapter.ts';

type Sharp = typeof SharpFactory;
let sharpModule: Promise<Sharp> | null = null;

function loadSharp(): Promise<Sharp> {
  sharpModule ??= import('sharp').then((m) => {
    const sharp = m.default;
    // Tiles are small and each worker decodes one at a time: no libvips thread pool, no operation cache.
    sharp.concurrency(1);
    sharp.cache(false);
    return sharp;
  });
  return sharpModule;
}

export async function preloadImageCodecs(): Promise<void> {
  await loadSharp();
}

const SOI = [0xff, 0xd8];

/**
 * An APP14 "Adobe" marker that tells libjpeg how the three components are coded, as the TIFF's
 * PhotometricInterpretation says (libtiff sets the JPEG colour space from that tag, not from markers):
 * transform 1 = YCbCr (converted to RGB), 0 = RGB as stored.
 */
function adobeMarker(transform: 0 | 1): number[] {
  return [0xff, 0xee, 0x00, 0x0e, 0x41, 0x64, 0x6f, 0x62, 0x65, 0x00, 0x64, 0x00, 0x00, 0x00, 0x00, transform];
}

/**
 * The tile as a complete JPEG stream: a TIFF JPEG tile is often an abbreviated stream whose quantisation
 * and Huffman tables sit once in the JPEGTables tag (SOI … EOI); the tables go in front of the tile's data.
 */
function fullJpegStream(codec: TileCodec, tile: Uint8Array): Uint8Array {
  if (tile[0] !== 0xff || tile[1] !== 0xd8) throw new Error('invalid JPEG tile: no SOI marker');
  const tables = codec.jpegTables;
  const spp = codec.planarConfiguration === 2 ? 1 : codec.samplesPerPixel;
  const marker = spp === 3 ? adobeMarker(codec.photometric === 6 ? 1 : 0) : [];
  const tableBody = tables && tables.length > 4 ? tables.subarray(2, tables.length - 2) : new Uint8Array(0);
  const out = new Uint8Array(2 + marker.length + tableBody.length + tile.length - 2);
  out.set(SOI, 0);
  out.set(marker, 2);
  out.set(tableBody, 2 + marker.length);
  out.set(tile.subarray(2), 2 + marker.length + tableBody.length);
  return out;
}

async function rawPixels(input: Uint8Array, channels: number, alpha: 'ensure' | 'remove' | 'keep'): Promise<Uint8Array> {
  const sharp = await loadSharp();
  let img = sharp(input, { failOn: 'error', limitInputPixels: 1 << 26 });
  if (alpha === 'ensure') img = img.ensureAlpha();
  else if (alpha === 'remove') img = img.removeAlpha();
  // sharp writes raw output in sRGB, which makes a grey JPEG three equal channels: keep the first.
  if (channels === 1) img = img.extractChannel(0);
  const { data, info } = await img.raw().toBuffer({ resolveWithObject: true });
  if (info.channels !== channels) throw new Error(`decoded image has ${info.channels} channels, expected ${channels}`);
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

/** One JPEG tile → 8-bit samples, pixel-interleaved (RGB for YCbCr files). */
export async function decodeJpeg(codec: TileCodec, tile: Uint8Array): Promise<Uint8Array> {
  const spp = codec.planarConfiguration === 2 ? 1 : codec.samplesPerPixel;
  return rawPixels(fullJpegStream(codec, tile), spp, 'keep');
}

/** One WebP tile (GDAL writes RGB or RGBA, 8-bit) → 8-bit samples, pixel-interleaved. */
export async function decodeWebp(codec: TileCodec, tile: Uint8Array): Promise<Uint8Array> {
  const spp = codec.samplesPerPixel;
  return rawPixels(tile, spp, spp === 4 ? 'ensure' : 'remove');
}
