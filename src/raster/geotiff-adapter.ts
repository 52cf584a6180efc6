/**
 * The only file that imports geotiff.js (ARCHITECTURE §2: a heavy library enters through one adapter).
 *
 * geotiff.js parses the TIFF header (IFDs, GeoKeys, tag values) over our ByteSource; tile bytes are then
 * fetched by reader.ts and decoded here by `decodeTile`, which runs in a worker thread. geotiff's own
 * DEFLATE decoder (pako, JavaScript) is replaced by Node's native zlib, ~5× faster (issue 2 "known traps").
 */
import { inflateSync } from 'node:zlib';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { GeoTIFF as GeoTIFFClass, BaseDecoder as BaseDecoderClass, getDecoder as GetDecoder, addDecoder as AddDecoder } from 'geotiff';
import { readHead, type ByteSource } from '../source/source.ts';
import { undoFloatingPoint, undoHorizontal } from './predictor.ts';

/*
 * geotiff's main entry pulls in the `web-worker` package, which takes over any worker thread that
 * imports it. So worker threads load only geotiff's decoder registry (by file, past the package's
 * export map), and the main entry is imported lazily, on the main thread only.
 */
const geotiffDir = dirname(createRequire(import.meta.url).resolve('geotiff'));
const moduleFile = (rel: string) => pathToFileURL(join(geotiffDir, '..', 'dist-module', rel)).href;

interface DecoderRegistry {
  getDecoder: typeof GetDecoder;
}
let registry: Promise<DecoderRegistry> | null = null;

/** geotiff's decoders, with DEFLATE replaced by Node's native zlib. */
function decoders(): Promise<DecoderRegistry> {
  registry ??= (async () => {
    const index = (await import(moduleFile('compression/index.js'))) as { getDecoder: typeof GetDecoder; addDecoder: typeof AddDecoder };
    const base = (await import(moduleFile('compression/basedecoder.js'))) as { default: typeof BaseDecoderClass };
    class NodeDeflateDecoder extends base.default {
      decodeBlock(buffer: ArrayBufferLike): ArrayBufferLike {
        const p = this.parameters;
        const bits = Array.isArray(p.bitsPerSample) || ArrayBuffer.isView(p.bitsPerSample) ? Number((p.bitsPerSample as ArrayLike<number>)[0]) : Number(p.bitsPerSample);
        const spp = p.planarConfiguration === 2 ? 1 : Array.isArray(p.bitsPerSample) ? p.bitsPerSample.length : 1;
        // One output chunk of the tile's size: zlib's default 16 KiB chunks cost a copy per chunk.
        const expected = p.tileWidth * p.tileHeight * spp * Math.ceil(bits / 8);
        const out = inflateSync(new Uint8Array(buffer), { chunkSize: Math.max(16 * 1024, expected + 64) });
        return out.buffer.slice(out.byteOffset, out.byteOffset + out.byteLength);
      }

      /** Predictors undone in place (raster/predictor.ts) rather than by geotiff's row-copying version. */
      async decode(buffer: ArrayBufferLike): Promise<ArrayBufferLike> {
        const decoded = this.decodeBlock(buffer) as ArrayBuffer;
        const p = this.parameters;
        const bitsList = Array.isArray(p.bitsPerSample) || ArrayBuffer.isView(p.bitsPerSample) ? Array.from(p.bitsPerSample as ArrayLike<number>, Number) : [Number(p.bitsPerSample)];
        const spp = p.planarConfiguration === 2 ? 1 : bitsList.length;
        const bits = bitsList[0] ?? 8;
        const rows = Math.floor(decoded.byteLength / (p.tileWidth * spp * (bits / 8)));
        if (p.predictor === 2) undoHorizontal(decoded, p.tileWidth, rows, spp, bits);
        else if (p.predictor === 3) undoFloatingPoint(decoded, p.tileWidth, rows, spp, bits);
        return decoded;
      }
    }
    index.addDecoder([8, 32946], () => Promise.resolve(NodeDeflateDecoder), undefined, false);
    return { getDecoder: index.getDecoder };
  })();
  return registry;
}

/** Everything a worker needs to decode one compressed tile into raw samples (plain data, cloneable). */
export interface TileCodec {
  compression: number;
  predictor: number;
  planarConfiguration: number;
  samplesPerPixel: number;
  bitsPerSample: number[];
  /** TIFF SampleFormat per sample: 1 unsigned, 2 signed, 3 float. */
  sampleFormat: number[];
  tileWidth: number;
  tileHeight: number;
  littleEndian: boolean;
  /** JPEG tables or LERC parameters, passed through to geotiff's decoders. */
  extra: Record<string, unknown>;
}

/** One IFD as the reader needs it. */
export interface IfdInfo {
  width: number;
  height: number;
  /** NewSubfileType: bit 0 reduced resolution, bit 2 transparency mask. */
  subfileType: number;
  tiled: boolean;
  tileWidth: number;
  tileHeight: number;
  offsets: Float64Array;
  byteCounts: Float64Array;
  codec: TileCodec;
}

/** Header facts of a GeoTIFF: its IFDs and the georeferencing of the first one. */
export interface GeoTiffHeader {
  ifds: IfdInfo[];
  geoKeys: Record<string, unknown> | null;
  /** [x0, y0, dx, dy] of IFD 0, or null when the file has no georeferencing. */
  affine: [number, number, number, number] | null;
  rotated: boolean;
  gdalNodata: string | null;
  gdalMetadata: string | null;
  /** The first bytes of the file, read once: tiles inside them need no further request. */
  head: ArrayBuffer;
}

/** Compressions we decode; others get a clear 422 naming them. */
const SUPPORTED_COMPRESSION: Record<number, string> = {
  1: 'none', 5: 'LZW', 7: 'JPEG', 8: 'DEFLATE', 32946: 'DEFLATE', 32773: 'PackBits', 34887: 'LERC', 50000: 'ZSTD', 50001: 'WebP',
};

export function compressionSupported(compression: number): boolean {
  return compression in SUPPORTED_COMPRESSION;
}

const MAX_IFDS = 64;
/** Bytes of the file start read at once: a COG keeps its IFDs and tile indexes there. */
const HEADER_BYTES = 64 * 1024;

/**
 * A geotiff.js source over a ByteSource. The first HEADER_BYTES are read once and every header read
 * inside them is served from memory, so parsing a COG costs one request instead of one per tag.
 */
function geotiffClient(source: ByteSource, size: number, header: ArrayBuffer, signal?: AbortSignal) {
  const fetchSlice = async (offset: number, length: number): Promise<ArrayBuffer> => {
    const end = Math.min(offset + length, size);
    if (offset >= size || end <= offset) return new ArrayBuffer(0);
    if (end <= header.byteLength) return header.slice(offset, end);
    return source.read(offset, end - offset, signal);
  };
  return {
    fileSize: size,
    async fetch(slices: { offset: number; length: number }[]): Promise<ArrayBuffer[]> {
      return Promise.all(slices.map((s) => fetchSlice(s.offset, s.length)));
    },
    async close() {},
  };
}

function numbers(v: unknown): number[] {
  if (v === undefined || v === null) return [];
  if (typeof v === 'number' || typeof v === 'bigint') return [Number(v)];
  if (Array.isArray(v) || ArrayBuffer.isView(v)) return Array.from(v as ArrayLike<number | bigint>, Number);
  return [];
}

/** Reads the header of a GeoTIFF: all IFDs with their tile indexes, GeoKeys and GDAL tags. */
export async function readGeoTiffHeader(source: ByteSource, signal?: AbortSignal): Promise<GeoTiffHeader> {
  // One request learns the size and brings the header (HTTP: a range the server clips to the file).
  const header = await readHead(source, HEADER_BYTES, signal);
  // That request also pinned the object's validator: an unchanged file's parsed header is reused.
  const validator = (source as { validator?: () => string | undefined }).validator?.();
  const key = validator === undefined ? undefined : `${source.url.href}\n${validator}`;
  const cached = key === undefined ? undefined : parsedHeaders.get(key);
  if (cached) return { ...cached, head: header };
  const parsed = await parseHeader(source, header, signal);
  if (key !== undefined) {
    if (parsedHeaders.size >= PARSED_HEADERS) parsedHeaders.delete(parsedHeaders.keys().next().value as string);
    parsedHeaders.set(key, { ...parsed, head: new ArrayBuffer(0) });
  }
  return parsed;
}

/** Parsed headers kept, per URL + validator (ETag, size, mtime): parsing a COG's IFDs costs ~5 ms. */
const PARSED_HEADERS = 128;
const parsedHeaders = new Map<string, GeoTiffHeader>();

async function parseHeader(source: ByteSource, header: ArrayBuffer, signal?: AbortSignal): Promise<GeoTiffHeader> {
  const size = await source.size(signal);
  const client = geotiffClient(source, size, header, signal);
  // geotiff's types want a BaseSource; ours has the same shape (fetch, fileSize, close).
  const { GeoTIFF } = (await import('geotiff')) as { GeoTIFF: typeof GeoTIFFClass };
  const tiff = await GeoTIFF.fromSource(client as unknown as Parameters<typeof GeoTIFFClass.fromSource>[0], undefined, signal);
  const littleEndian = (tiff as unknown as { littleEndian: boolean }).littleEndian;
  const count = Math.min(await tiff.getImageCount(), MAX_IFDS);
  const ifds: IfdInfo[] = [];
  let first: Awaited<ReturnType<typeof tiff.getImage>> | null = null;
  for (let i = 0; i < count; i++) {
    const image = await tiff.getImage(i);
    if (i === 0) first = image;
    const fd = image.fileDirectory;
    const tiled = !fd.hasTag('StripOffsets');
    const width = image.getWidth();
    const height = image.getHeight();
    const tileWidth = tiled ? Number(await fd.loadValue('TileWidth')) : width;
    const tileHeight = tiled ? Number(await fd.loadValue('TileLength')) : Number((await fd.loadValue('RowsPerStrip')) ?? height) || height;
    const [offsets, byteCounts] = await Promise.all([
      fd.loadValue(tiled ? 'TileOffsets' : 'StripOffsets'),
      fd.loadValue(tiled ? 'TileByteCounts' : 'StripByteCounts'),
    ]);
    const samplesPerPixel = image.getSamplesPerPixel();
    const bits = numbers(await fd.loadValue('BitsPerSample'));
    const formats = numbers(await fd.loadValue('SampleFormat'));
    const compression = Number((await fd.loadValue('Compression')) ?? 1);
    const extra: Record<string, unknown> = {};
    if (compression === 7) extra['JPEGTables'] = await fd.loadValue('JPEGTables');
    if (compression === 34887) extra['LercParameters'] = await fd.loadValue('LercParameters');
    ifds.push({
      width,
      height,
      subfileType: Number((await fd.loadValue('NewSubfileType')) ?? 0),
      tiled,
      tileWidth,
      tileHeight,
      offsets: Float64Array.from(numbers(offsets)),
      byteCounts: Float64Array.from(numbers(byteCounts)),
      codec: {
        compression,
        predictor: Number((await fd.loadValue('Predictor')) ?? 1),
        planarConfiguration: Number((await fd.loadValue('PlanarConfiguration')) ?? 1),
        samplesPerPixel,
        bitsPerSample: Array.from({ length: samplesPerPixel }, (_, s) => bits[s] ?? bits[0] ?? 8),
        sampleFormat: Array.from({ length: samplesPerPixel }, (_, s) => formats[s] ?? formats[0] ?? 1),
        tileWidth,
        tileHeight,
        littleEndian,
        extra,
      },
    });
  }
  if (first === null) throw new Error('no image');
  const fd = first.fileDirectory;
  let affine: GeoTiffHeader['affine'] = null;
  let rotated = false;
  const transformation = numbers(await fd.loadValue('ModelTransformation'));
  if (transformation.length >= 8) {
    const [a = 0, b = 0, , c = 0, d = 0, e = 0, , f = 0] = transformation;
    rotated = b !== 0 || d !== 0;
    affine = [c, f, a, e];
  } else if (fd.hasTag('ModelPixelScale') && fd.hasTag('ModelTiepoint')) {
    const [sx = 1, sy = 1] = numbers(await fd.loadValue('ModelPixelScale'));
    const [i = 0, j = 0, , x = 0, y = 0] = numbers(await fd.loadValue('ModelTiepoint'));
    affine = [x - i * sx, y + j * sy, sx, -sy];
  }
  const nodata = await fd.loadValue('GDAL_NODATA');
  const metadata = await fd.loadValue('GDAL_METADATA');
  return {
    ifds,
    geoKeys: (first.getGeoKeys() as Record<string, unknown> | null) ?? null,
    affine,
    rotated,
    gdalNodata: typeof nodata === 'string' ? nodata : null,
    gdalMetadata: typeof metadata === 'string' ? metadata : null,
    head: header,
  };
}

/**
 * Decodes one compressed tile (or strip) into its raw bytes, predictor undone, in the file's byte
 * order. Runs in worker threads.
 */
export async function decodeTile(codec: TileCodec, compressed: ArrayBuffer): Promise<ArrayBuffer> {
  const { getDecoder } = await decoders();
  const decoder = await getDecoder(codec.compression, {
    tileWidth: codec.tileWidth,
    tileHeight: codec.tileHeight,
    predictor: codec.predictor,
    bitsPerSample: codec.bitsPerSample,
    planarConfiguration: codec.planarConfiguration,
    samplesPerPixel: codec.samplesPerPixel,
    ...codec.extra,
  });
  const out = await decoder.decode(compressed);
  return out as ArrayBuffer;
}

