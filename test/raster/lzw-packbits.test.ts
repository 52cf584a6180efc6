/**
 * The project's LZW and PackBits decoders (src/codecs/lzw.ts, packbits.ts):
 * (a) every LZW and PackBits file of the conformance corpus, decoded through them into samples, equals
 *     GDAL's committed pixels;
 * (b) they give the same bytes as geotiff.js's decoders (what the service used before) on those files'
 *     tiles and on synthetic streams;
 * (c) hand-made edge cases, with a small reference encoder of each format written here (TIFF LZW: MSB-first
 *     codes, early change, ClearCode when the table is full; and libtiff's old LSB-first flavour).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MemorySource } from '../../src/source/memory.ts';
import { openRaster, type CogLevel } from '../../src/raster/reader.ts';
import { toSamples } from '../../src/raster/samples.ts';
import type { TileCodec } from '../../src/raster/geotiff-adapter.ts';
import { geotiffBlockDecode } from '../helpers/geotiff-decoders.ts';
import { decodeLzw } from '../../src/codecs/lzw.ts';
import { decodePackBits } from '../../src/codecs/packbits.ts';

interface Entry {
  file: string;
  compression: string;
  bands: number;
  width: number;
  height: number;
  expect: 'read' | 'refuse';
  pixels?: string;
}

const DIR = new URL('../../fixtures/conformance/', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('manifest.json', DIR), 'utf8')) as Entry[] | { files: Entry[] };
const entries = (Array.isArray(manifest) ? manifest : manifest.files).filter(
  (e) => e.expect === 'read' && (e.compression === 'LZW' || e.compression === 'PACKBITS'),
);

/** raster/codecs/index.ts's size of a full decoded tile (or strip). */
function tileBytes(codec: TileCodec): number {
  const spp = codec.planarConfiguration === 2 ? 1 : codec.samplesPerPixel;
  return Math.ceil((codec.tileWidth * spp * (codec.bitsPerSample[0] ?? 8)) / 8) * codec.tileHeight;
}

function decode(codec: TileCodec, bytes: Uint8Array, expected?: number): Uint8Array {
  if (codec.compression === 5) return decodeLzw(bytes, expected);
  if (codec.compression === 32773) return decodePackBits(bytes, expected);
  throw new Error(`compression ${codec.compression}`);
}

async function open(file: string) {
  const reader = await openRaster(new MemorySource(readFileSync(new URL(file, DIR)), `file:///conformance/${file}`));
  return { reader, level: reader.info.levels[0] as CogLevel };
}

/** Every tile or strip of level 0 as stored: [index, bytes]. */
async function tiles(file: string): Promise<{ codec: TileCodec; tiles: [number, Uint8Array][] }> {
  const { reader, level } = await open(file);
  const { ifd } = level;
  const out: [number, Uint8Array][] = [];
  for (let i = 0; i < ifd.offsets.length; i++) {
    const t = await reader.readTile(ifd, i);
    if (t) out.push([i, new Uint8Array(t)]);
  }
  return { codec: ifd.codec, tiles: out };
}

function same(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/** A deterministic byte generator (mulberry32). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) & 255;
  };
}

// --- reference encoders -------------------------------------------------------------------------------

interface LzwOptions {
  /** Old-style libtiff codes: least significant bit first, width switch at 512/1024/2048 (no early change). */
  compat?: boolean;
  /** Emit ClearCode when the next free entry reaches this (libtiff: 4094; some writers 4096); Infinity: never, the table freezes. */
  clearAt?: number;
  /** Write the final EOI code (default true). */
  eoi?: boolean;
}

interface Encoded {
  bytes: Uint8Array;
  /** Code widths used, and ClearCodes written (the first included). */
  widths: Set<number>;
  clears: number;
}

/** LZW as TIFF writers encode it: ClearCode first, then codes, then EOI, the bit string padded with zeros. */
function encodeLzw(data: Uint8Array, options: LzwOptions = {}): Encoded {
  const { compat = false, clearAt = 4094, eoi = true } = options;
  const out: number[] = [];
  let acc = 0;
  let nacc = 0;
  let width = 9;
  const widths = new Set<number>();
  let clears = 0;
  const put = (code: number): void => {
    widths.add(width);
    if (compat) {
      acc |= code << nacc;
      nacc += width;
      while (nacc >= 8) {
        out.push(acc & 255);
        acc >>>= 8;
        nacc -= 8;
      }
    } else {
      acc = (acc << width) | code;
      nacc += width;
      while (nacc >= 8) {
        out.push((acc >>> (nacc - 8)) & 255);
        nacc -= 8;
      }
      acc &= (1 << nacc) - 1;
    }
  };
  const table = new Map<number, number>();
  let free = 258;
  const clear = (): void => {
    put(256);
    clears++;
    table.clear();
    free = 258;
    width = 9;
  };
  // After a code is written its entry is made; the width grows once the next entry would not fit (the
  // decoder, one entry behind, switches one code "early").
  const added = (): void => {
    free++;
    if (free >= clearAt) clear();
    else if (width < 12 && free > (compat ? 1 << width : (1 << width) - 1)) width++;
  };
  clear();
  if (data.length > 0) {
    let ent = data[0] as number;
    for (let i = 1; i < data.length; i++) {
      const c = data[i] as number;
      const hit = table.get(ent * 256 + c);
      if (hit !== undefined) {
        ent = hit;
        continue;
      }
      put(ent);
      if (free < 4096) {
        table.set(ent * 256 + c, free);
        added();
      }
      ent = c;
    }
    put(ent);
    if (free < 4096) added();
  }
  if (eoi) put(257);
  if (nacc > 0) out.push(compat ? acc & 255 : (acc << (8 - nacc)) & 255);
  return { bytes: Uint8Array.from(out), widths, clears };
}

/** PackBits as libtiff writes it closely enough: replicate runs of 2+ equal bytes, literals of up to 128. */
function encodePackBits(data: Uint8Array): Uint8Array {
  const out: number[] = [];
  let i = 0;
  while (i < data.length) {
    let run = 1;
    while (i + run < data.length && run < 128 && data[i + run] === data[i]) run++;
    if (run >= 2) {
      out.push(257 - run, data[i] as number);
      i += run;
      continue;
    }
    let lit = 1;
    while (i + lit < data.length && lit < 128 && !(i + lit + 1 < data.length && data[i + lit] === data[i + lit + 1])) lit++;
    out.push(lit - 1, ...data.subarray(i, i + lit));
    i += lit;
  }
  return Uint8Array.from(out);
}

/** Test data: random, repetitive (a few values, long runs, a repeating pattern), and mixtures. */
function samples(): [string, Uint8Array][] {
  const r = random(42);
  const sizes = [1, 2, 3, 17, 255, 600, 1500, 4_000, 9_000, 70_000, 300_000];
  const kinds: [string, (n: number) => Uint8Array][] = [
    ['random', (n) => Uint8Array.from({ length: n }, r)],
    ['zeros', (n) => new Uint8Array(n)],
    ['two values', (n) => Uint8Array.from({ length: n }, () => (r() < 40 ? 1 : 0))],
    ['pattern', (n) => Uint8Array.from({ length: n }, (_, i) => (i * 7) % 23)],
    [
      'runs',
      (n) => {
        const a = new Uint8Array(n);
        for (let i = 0; i < n;) {
          const v = r();
          const len = 1 + (r() % 40);
          a.fill(v, i, i + len);
          i += len;
        }
        return a;
      },
    ],
    [
      'int16 terrain',
      (n) => {
        const a = new Uint8Array(n);
        for (let i = 0; i + 1 < n; i += 2) {
          const v = 1000 + Math.round(300 * Math.sin(i / 900)) + (r() % 3);
          a[i] = v & 255;
          a[i + 1] = v >> 8;
        }
        return a;
      },
    ],
  ];
  return kinds.flatMap(([name, make]) => sizes.map((n) => [`${name}, ${n} bytes`, make(n)] as [string, Uint8Array]));
}

// --- (a) the conformance corpus through the new decoders equals GDAL's pixels -------------------------

describe('LZW and PackBits files of the conformance corpus (GDAL-decoded pixels)', () => {
  it('has LZW and PackBits files', () => {
    expect(entries.filter((e) => e.compression === 'LZW').length).toBeGreaterThanOrEqual(4);
    expect(entries.filter((e) => e.compression === 'PACKBITS').length).toBeGreaterThanOrEqual(1);
  });

  it.each(entries.map((e) => [e.file, e] as const))('%s: every pixel as GDAL decodes it', async (_f, entry) => {
    const { reader, level } = await open(entry.file);
    const { ifd, grid } = level;
    const { codec } = ifd;
    expect(codec.compression).toBe(entry.compression === 'LZW' ? 5 : 32773);
    const across = Math.ceil(grid.width / ifd.tileWidth);
    const down = Math.ceil(grid.height / ifd.tileHeight);
    const planar = codec.planarConfiguration === 2;
    const spp = planar ? 1 : codec.samplesPerPixel;
    const got = Array.from({ length: entry.bands }, () => new Array<number>(grid.width * grid.height).fill(Number.NaN));
    for (let ty = 0; ty < down; ty++) {
      for (let tx = 0; tx < across; tx++) {
        const index = ty * across + tx;
        const rows = Math.min(ifd.tileHeight, grid.height - ty * ifd.tileHeight);
        const cols = Math.min(ifd.tileWidth, grid.width - tx * ifd.tileWidth);
        for (let plane = 0; plane < (planar ? entry.bands : 1); plane++) {
          const bytes = await reader.readTile(ifd, planar ? plane * across * down + index : index);
          const view = bytes === null ? null : toSamples(codec, { bytes: decode(codec, new Uint8Array(bytes), tileBytes(codec)), native: false }, rows);
          for (const band of planar ? [plane] : Array.from({ length: entry.bands }, (_, k) => k)) {
            for (let r = 0; r < rows; r++) {
              for (let c = 0; c < cols; c++) {
                const v = view === null ? (reader.info.nodata ?? 0) : view.array[(r * ifd.tileWidth + c) * spp + (planar ? 0 : band)];
                (got[band] as number[])[(ty * ifd.tileHeight + r) * grid.width + tx * ifd.tileWidth + c] = Number(v);
              }
            }
          }
        }
      }
    }
    const want = JSON.parse(readFileSync(new URL(`pixels/${entry.pixels ?? ''}`, DIR), 'utf8')) as Record<string, (number | null)[]>;
    for (let b = 0; b < entry.bands; b++) {
      const w = (want[`band_${b + 1}`] as (number | null)[]).map((v) => (v === null ? Number.NaN : v));
      expect(got[b], `band ${b + 1}`).toEqual(w);
    }
  });
});

// --- (b) the same bytes as geotiff.js's decoders ------------------------------------------------------

describe('the same bytes as geotiff.js', () => {
  it.each(entries.map((e) => [e.file] as const))('%s: every tile', async (file) => {
    const { codec, tiles: all } = await tiles(file);
    expect(all.length).toBeGreaterThan(0);
    const full = tileBytes(codec);
    for (const [index, bytes] of all) {
      const theirs = await geotiffBlockDecode(codec.compression, bytes);
      const whole = decode(codec, bytes);
      expect(same(whole, theirs), `tile ${index}: whole stream`).toBe(true);
      // As the service calls them: the tile's size given, output of exactly that size (shorter only for
      // the last strip of a file, which holds fewer rows).
      const sized = decode(codec, bytes, full);
      expect(same(sized, theirs.subarray(0, full)), `tile ${index}: ${full} bytes asked`).toBe(true);
      expect(sized.buffer.byteLength, 'a buffer of its own').toBe(sized.length);
    }
  });

  it('synthetic LZW streams', async () => {
    for (const [name, data] of samples()) {
      const { bytes } = encodeLzw(data);
      const theirs = await geotiffBlockDecode(5, bytes);
      expect(same(theirs, data), `${name}: geotiff.js decodes the reference encoder`).toBe(true);
      expect(same(decodeLzw(bytes), theirs), name).toBe(true);
      expect(same(decodeLzw(bytes, data.length), theirs), `${name}, size given`).toBe(true);
    }
  });

  it('synthetic PackBits streams', async () => {
    for (const [name, data] of samples()) {
      const bytes = encodePackBits(data);
      const theirs = await geotiffBlockDecode(32773, bytes);
      expect(same(theirs, data), `${name}: geotiff.js decodes the reference encoder`).toBe(true);
      expect(same(decodePackBits(bytes), theirs), name).toBe(true);
      expect(same(decodePackBits(bytes, data.length), theirs), `${name}, size given`).toBe(true);
    }
  });
});

// --- (c) edge cases -------------------------------------------------------------------------------------

const u8 = (...xs: number[]): Uint8Array => Uint8Array.from(xs);

/** MSB-first codes of the given widths, as a byte string (zero padded). */
function codes(...items: [code: number, width: number][]): Uint8Array {
  let bits = '';
  for (const [code, width] of items) bits += code.toString(2).padStart(width, '0');
  bits = bits.padEnd(Math.ceil(bits.length / 8) * 8, '0');
  return Uint8Array.from({ length: bits.length / 8 }, (_, i) => parseInt(bits.slice(i * 8, i * 8 + 8), 2));
}

describe('PackBits edge cases', () => {
  it('literal runs', () => {
    expect(decodePackBits(u8(2, 10, 20, 30))).toEqual(u8(10, 20, 30));
    expect(decodePackBits(u8(0, 7, 1, 8, 9))).toEqual(u8(7, 8, 9));
    const lit = Uint8Array.from({ length: 128 }, (_, i) => i * 2);
    expect(decodePackBits(u8(127, ...lit))).toEqual(lit);
    expect(decodePackBits(u8(127, ...lit, 127, ...lit), 256)).toEqual(u8(...lit, ...lit));
  });

  it('replicate runs', () => {
    expect(decodePackBits(u8(0xff, 9))).toEqual(u8(9, 9));
    expect(decodePackBits(u8(0xfe, 5))).toEqual(u8(5, 5, 5));
    expect(decodePackBits(u8(0x81, 7))).toEqual(new Uint8Array(128).fill(7));
    expect(decodePackBits(u8(0x81, 7, 0x81, 8, 1, 1, 2), 258)).toEqual(u8(...new Uint8Array(128).fill(7), ...new Uint8Array(128).fill(8), 1, 2));
  });

  it('a run of -128 is a no-op (geotiff.js repeats the next byte 129 times; libtiff and GDAL skip it)', () => {
    expect(decodePackBits(u8(0x80, 2, 1, 2, 3, 0x80))).toEqual(u8(1, 2, 3));
    expect(decodePackBits(u8(0x80, 0x80, 0xfd, 4))).toEqual(u8(4, 4, 4, 4));
    expect(decodePackBits(u8(0x80))).toEqual(u8());
  });

  it('truncated input is an error', () => {
    expect(() => decodePackBits(u8(5, 1, 2))).toThrow(/PackBits/);
    expect(() => decodePackBits(u8(5, 1, 2), 6)).toThrow(/ends inside a run/);
    expect(() => decodePackBits(u8(1, 1, 2, 0xfd), 10)).toThrow(/ends inside a run/);
  });

  it('stops once the expected bytes are written, as libtiff does (a longer run is cut, the rest ignored)', () => {
    expect(decodePackBits(u8(5, 1, 2, 3, 4, 5, 6), 3)).toEqual(u8(1, 2, 3));
    expect(decodePackBits(u8(0x81, 7, 5), 5)).toEqual(u8(7, 7, 7, 7, 7));
    // The run's missing bytes lie past what was asked for: libtiff cuts the run first, then checks.
    expect(decodePackBits(u8(127, 1, 2, 3), 3)).toEqual(u8(1, 2, 3));
    expect(decodePackBits(u8(1, 1, 2, 0x7f), 2)).toEqual(u8(1, 2));
    expect(decodePackBits(u8(1, 1, 2), 0)).toEqual(u8());
    const data = Uint8Array.from({ length: 5000 }, random(7));
    const bytes = encodePackBits(data);
    for (const k of [1, 2, 127, 128, 129, 4999, 5000]) expect(decodePackBits(bytes, k)).toEqual(data.subarray(0, k));
  });

  it('input that ends cleanly before the expected size gives the shorter output (the last strip of a file)', () => {
    expect(decodePackBits(u8(1, 1, 2), 10)).toEqual(u8(1, 2));
    expect(decodePackBits(u8(), 10)).toEqual(u8());
  });

  it('refuses a nonsensical expected size', () => {
    expect(() => decodePackBits(u8(0, 1), -1)).toThrow(RangeError);
    expect(() => decodePackBits(u8(0, 1), 1.5)).toThrow(RangeError);
  });
});

describe('LZW edge cases', () => {
  it('decode(encode(x)) == x from 1 byte to 300 KB, crossing every code-width switch and table reset', () => {
    let crossed = 0;
    for (const [name, data] of samples()) {
      const { bytes, widths, clears } = encodeLzw(data);
      if (widths.has(12) && clears > 1) crossed++;
      expect(same(decodeLzw(bytes, data.length), data), name).toBe(true);
      expect(same(decodeLzw(bytes), data), `${name}, no size given`).toBe(true);
    }
    // Random data adds one entry per code: 9 KB and more fill the table (12-bit codes, ClearCode at 4094).
    expect(crossed).toBeGreaterThanOrEqual(5);
  });

  it('a stream crossing each code-width switch (9 to 12 bits) without a ClearCode', () => {
    // Random bytes make an entry for nearly every code: entries 511, 1023 and 2047 are reached.
    const data = Uint8Array.from({ length: 2_200 }, random(3));
    const { bytes, widths, clears } = encodeLzw(data, { clearAt: Infinity });
    expect(widths).toEqual(new Set([9, 10, 11, 12]));
    expect(clears).toBe(1);
    expect(same(decodeLzw(bytes), data)).toBe(true);
    expect(same(decodeLzw(bytes, data.length), data)).toBe(true);
  });

  it('a full table cleared one code later (some writers clear at 4096, not 4094)', () => {
    for (const clearAt of [4095, 4096]) {
      const data = Uint8Array.from({ length: 20_000 }, random(clearAt));
      const { bytes, clears } = encodeLzw(data, { clearAt });
      expect(clears).toBeGreaterThan(2);
      expect(same(decodeLzw(bytes), data), `clear at ${clearAt}`).toBe(true);
    }
  });

  it('a full table not cleared: libtiff reads 1024 more codes, then wants a ClearCode', () => {
    // Entries 258..4095 made, then the writer keeps 12-bit codes with a frozen table.
    const short = Uint8Array.from({ length: 4_500 }, random(11));
    const ok = encodeLzw(short, { clearAt: Infinity });
    expect(same(decodeLzw(ok.bytes), short)).toBe(true);
    const long = Uint8Array.from({ length: 8_000 }, random(11));
    expect(() => decodeLzw(encodeLzw(long, { clearAt: Infinity }).bytes)).toThrow(/table full/);
  });

  it('a stream without EOI: fine once the expected bytes are out, an error if it ends before', () => {
    const data = Uint8Array.from({ length: 3000 }, random(5));
    const { bytes } = encodeLzw(data, { eoi: false });
    expect(same(decodeLzw(bytes, data.length), data)).toBe(true);
    expect(() => decodeLzw(bytes, data.length + 1)).toThrow(/without EOI/);
    expect(() => decodeLzw(bytes)).toThrow(/without EOI/);
  });

  it('a truncated stream is an error', () => {
    const data = Uint8Array.from({ length: 3000 }, random(6));
    const { bytes } = encodeLzw(data);
    for (const cut of [1, 2, 5, 100, bytes.length - 3]) {
      expect(() => decodeLzw(bytes.subarray(0, cut), data.length), `cut at ${cut}`).toThrow(/LZW/);
    }
    expect(() => decodeLzw(u8(), 10)).toThrow(/without EOI/);
  });

  it('a code above the next free entry is an error; the next free entry itself is KwKwK', () => {
    // ClearCode, 'A', then code 258 = the entry being made: 'A' + 'A'.
    expect(decodeLzw(codes([256, 9], [65, 9], [258, 9], [257, 9]))).toEqual(u8(65, 65, 65));
    expect(() => decodeLzw(codes([256, 9], [65, 9], [259, 9], [257, 9]))).toThrow(/not yet in table/);
    expect(() => decodeLzw(codes([256, 9], [65, 9], [66, 9], [300, 9], [257, 9]))).toThrow(/code 300 not yet in table/);
    // After ClearCode, the first code must be a byte (or EOI).
    expect(() => decodeLzw(codes([256, 9], [258, 9], [257, 9]))).toThrow(/not yet in table/);
  });

  it('a stream must start with ClearCode (libtiff, so GDAL, refuses one that does not)', () => {
    expect(() => decodeLzw(codes([65, 9], [66, 9], [257, 9]))).toThrow(/does not start with ClearCode/);
    expect(() => decodeLzw(codes([258, 9], [257, 9]))).toThrow(/does not start with ClearCode/);
    expect(decodeLzw(codes([257, 9]))).toEqual(u8());
    expect(decodeLzw(codes([256, 9], [257, 9]))).toEqual(u8());
    expect(decodeLzw(codes([256, 9], [256, 9], [256, 9], [66, 9], [256, 9], [67, 9], [257, 9]))).toEqual(u8(66, 67));
  });

  it('stops early once `expected` bytes are written: the same prefix, the rest not read', () => {
    for (const [name, data] of samples().filter(([, d]) => d.length >= 4000 && d.length <= 70_000)) {
      const { bytes } = encodeLzw(data);
      for (const k of [1, 2, 3, 7, 8, 9, 100, 511, 1000, data.length - 1]) {
        const got = decodeLzw(bytes, k);
        expect(got.length, name).toBe(k);
        expect(same(got, data.subarray(0, k)), `${name}: first ${k}`).toBe(true);
      }
    }
    // What follows the bytes asked for is never read: a corrupt tail does not matter.
    const data = Uint8Array.from({ length: 1000 }, random(8));
    const { bytes } = encodeLzw(data);
    const corrupt = Uint8Array.from([...bytes.subarray(0, bytes.length - 40), ...new Uint8Array(40).fill(0xff)]);
    expect(() => decodeLzw(corrupt)).toThrow(/LZW/);
    expect(same(decodeLzw(corrupt, 500), data.subarray(0, 500))).toBe(true);
    expect(decodeLzw(bytes, 0)).toEqual(u8());
  });

  it('an EOI before the expected size gives the shorter output (the last strip of a file)', () => {
    const data = Uint8Array.from({ length: 1000 }, random(9));
    expect(same(decodeLzw(encodeLzw(data).bytes, 4000), data)).toBe(true);
  });

  it('old-style LZW (LSB-first codes, no early change), which libtiff still reads', () => {
    for (const [name, data] of samples().filter(([, d]) => d.length >= 2)) {
      const { bytes } = encodeLzw(data, { compat: true });
      expect([bytes[0], (bytes[1] as number) & 1], name).toEqual([0, 1]);
      expect(same(decodeLzw(bytes), data), name).toBe(true);
      expect(same(decodeLzw(bytes, data.length), data), `${name}, size given`).toBe(true);
      const k = Math.floor(data.length / 2);
      expect(same(decodeLzw(bytes, k), data.subarray(0, k)), `${name}, first ${k}`).toBe(true);
    }
    const data = Uint8Array.from({ length: 3000 }, random(10));
    const { bytes } = encodeLzw(data, { compat: true, eoi: false });
    expect(same(decodeLzw(bytes, data.length), data)).toBe(true);
    expect(() => decodeLzw(bytes)).toThrow(/without EOI/);
    expect(() => decodeLzw(bytes.subarray(0, 1000), data.length)).toThrow(/without EOI/);
  });

  it('refuses a nonsensical expected size', () => {
    expect(() => decodeLzw(u8(0x80, 0x40), -1)).toThrow(RangeError);
    expect(() => decodeLzw(u8(0x80, 0x40), Number.NaN)).toThrow(RangeError);
  });
});
