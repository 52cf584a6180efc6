/**
 * Blosc chunks with LZ4 inside, read by codecs/blosc.ts over the native LZ4 decoder (codecs/lz4.ts), give
 * the bytes c-blosc wrote: 181 frames written by Debian's numcodecs (c-blosc 1.21.3) with their raw bytes
 * from numpy (tools/fixtures/make_blosc.py): lz4 and lz4hc, shuffle and not, type sizes 1–17, one block,
 * many blocks split into streams or not, a short last block, plain copies, empty. numcodecs' WebAssembly
 * decoder (the fallback) gives the same bytes on all of them, and takes the frames the fast path declines
 * (other inner codecs, bitshuffle). A corrupt frame throws. A cube's chunks decoded whole through the fast
 * path equal zarrita's samples.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import Blosc from 'numcodecs/blosc';
import { describe, expect, it } from 'vitest';
import { bloscReadsHere, decodeBlosc } from '../../src/codecs/blosc.ts';
import { lz4Block } from '../../src/codecs/lz4.ts';
import { decodeZarrRegion } from '../../src/codecs/zarr.ts';

const DIR = new URL('../../fixtures/blosc/', import.meta.url);
interface Case {
  name: string;
  cname: string;
  typesize: number;
  shuffle: number;
  nbytes: number;
  flags: number;
  blocks: number;
}
const cases = (JSON.parse(readFileSync(new URL('cases.json', DIR), 'utf8')) as { cases: Case[] }).cases;
const frame = (c: Case): Uint8Array => new Uint8Array(readFileSync(new URL(`${c.name}.blosc`, DIR)));
const raw = (c: Case): Uint8Array => new Uint8Array(readFileSync(new URL(`${c.name}.raw`, DIR)));
const lz4 = lz4Block();
const same = (a: Uint8Array, b: Uint8Array): boolean =>
  Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength)) === 0;

describe('Blosc: the fast decoder against c-blosc', () => {
  it('the native LZ4 decoder is in use (its prebuilt package installs on every platform CI runs)', () => {
    if (process.env['ZONAL_BLOSC'] === 'wasm') return;
    expect(lz4).not.toBeNull();
  });

  it('the fixtures hold what the decoder must read: split and unsplit blocks, short last blocks, copies', () => {
    const kinds = new Set(cases.filter((c) => bloscReadsHere(frame(c))).map((c) => `${c.flags & 0x13}:${c.blocks > 1}`));
    // 0x01 shuffle, 0x02 plain copy, 0x10 blocks not split; each with one block and with several.
    for (const k of ['1:true', '1:false', '17:true', '17:false', '16:true', '0:false', '18:true', '19:true']) expect(kinds, k).toContain(k);
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const bytes = frame(c);
    const want = raw(c);
    expect(want.byteLength).toBe(c.nbytes);
    // numcodecs (the fallback) reads every frame as c-blosc wrote it.
    expect(same(await new Blosc().decode(bytes), want)).toBe(true);
    const declined = !['lz4', 'lz4hc'].includes(c.cname) || c.shuffle === 2;
    // A plain copy is read here whatever its codec; every other frame by its codec and shuffle.
    expect(bloscReadsHere(bytes)).toBe(!declined || (c.flags & 0x02) !== 0);
    if (!bloscReadsHere(bytes) || lz4 === null) return;
    const got = decodeBlosc(bytes, c.nbytes, lz4);
    expect(got.byteOffset).toBe(0);
    expect(same(got, want)).toBe(true);
  });

  it('a frame from before the split flag (0x10 clear) splits only blocks of 128 items or more, as c-blosc reads it', async () => {
    const view = (b: Uint8Array): DataView => new DataView(b.buffer, b.byteOffset, b.byteLength);
    // Written unsplit because the blocks are small; the flag cleared, c-blosc's size rule must still say so.
    const small = cases.filter((c) => (c.flags & 0x12) === 0x10 && c.typesize > 1 && c.typesize <= 16 && c.nbytes > 0);
    const old = small.filter((c) => view(frame(c)).getInt32(8, true) / c.typesize < 128);
    expect(old.length).toBeGreaterThan(5);
    for (const c of old) {
      const bytes = frame(c);
      bytes[2] = (bytes[2] as number) & ~0x10;
      expect(same(await new Blosc().decode(bytes), raw(c)), c.name).toBe(true);
      if (lz4 !== null) expect(same(decodeBlosc(bytes, c.nbytes, lz4), raw(c)), c.name).toBe(true);
    }
  });

  it('a frame decoded on some rows of each plane holds c-blosc’s bytes there, across block edges, and no foreign bytes elsewhere', () => {
    if (lz4 === null) return;
    // Into a spare buffer that held an earlier chunk (decode.ts's spares): its bytes must not show through.
    const spare = (n: number): Uint8Array => new Uint8Array(n).fill(0xab);
    const shuffled = cases.filter((c) => bloscReadsHere(frame(c)) && c.shuffle === 1 && c.typesize > 1 && c.nbytes / c.typesize >= 100);
    expect(shuffled.filter((c) => c.blocks > 2).length).toBeGreaterThan(5);
    for (const c of shuffled) {
      const want = raw(c);
      const items = c.nbytes / c.typesize;
      for (const part of [
        { planeItems: 35, rowItems: 7, row0: 1, row1: 4, col1: 5 },
        { planeItems: 35, rowItems: 7, row0: 0, row1: 5, col1: 7 }, // every item
        { planeItems: 100, rowItems: 10, row0: 9, row1: 10, col1: 1 },
        { planeItems: items, rowItems: 1, row0: 3, row1: items - 2, col1: 1 },
      ]) {
        const got = decodeBlosc(frame(c), c.nbytes, lz4, part, spare);
        let checked = 0;
        for (let i = 0; i < items; i++) {
          const inPlane = i % part.planeItems;
          const row = Math.floor(inPlane / part.rowItems);
          if (row < part.row0 || row >= part.row1 || inPlane % part.rowItems >= part.col1) {
            // Outside the part: zeros (or the true bytes, where a block is unshuffled whole), never an earlier buffer's.
            for (let j = 0; j < c.typesize; j++) {
              const b = got[i * c.typesize + j];
              if (b !== 0 && b !== want[i * c.typesize + j]) expect(`${c.name} item ${i} outside`).toBe('zero or true');
            }
            continue;
          }
          checked++;
          for (let j = 0; j < c.typesize; j++) {
            if (got[i * c.typesize + j] !== want[i * c.typesize + j]) expect(`${c.name} item ${i} byte ${j}`).toBe('equal');
          }
        }
        expect(checked).toBeGreaterThan(0);
      }
      // Decoded whole into a spare buffer: every byte c-blosc's.
      expect(Buffer.compare(decodeBlosc(frame(c), c.nbytes, lz4, undefined, spare), want), c.name).toBe(0);
    }
  });

  const lz4Frames = cases.filter((c) => c.cname === 'lz4' && c.shuffle === 1 && c.nbytes >= 4000 && (c.flags & 0x02) === 0).slice(0, 6);

  it('a frame cut short anywhere, or with a size in its header changed, throws', () => {
    if (lz4 === null) return;
    expect(lz4Frames.length).toBeGreaterThan(3);
    for (const c of lz4Frames) {
      const bytes = frame(c);
      for (let cut = 0; cut < bytes.byteLength; cut += Math.max(1, Math.floor(bytes.byteLength / 97))) {
        // The header's compressed size then exceeds the bytes read.
        expect(() => decodeBlosc(bytes.subarray(0, cut), c.nbytes, lz4), `${c.name} cut at ${cut}`).toThrow();
      }
      expect(() => decodeBlosc(bytes, c.nbytes + 1, lz4)).toThrow(/holds/);
      for (const [at, value] of [
        [8, 0], // block size 0
        [8, c.nbytes + 1], // a block larger than the chunk
        [12, bytes.byteLength + 1], // more compressed bytes than read
        [16, bytes.byteLength], // the first block starts past the end
        [16, -5],
      ] as const) {
        const bad = bytes.slice();
        new DataView(bad.buffer).setInt32(at, value, true);
        expect(() => decodeBlosc(bad, c.nbytes, lz4), `${c.name}: ${value} at ${at}`).toThrow(/corrupt/);
      }
      // The first stream's size one byte short of its bytes: the stream then decodes short, or the next
      // stream's size is read from the wrong place.
      const bad = bytes.slice();
      const view = new DataView(bad.buffer);
      const first = view.getInt32(16, true);
      view.setInt32(first, view.getInt32(first, true) - 1, true);
      expect(() => decodeBlosc(bad, c.nbytes, lz4)).toThrow();
    }
  });

  it('garbage inside the LZ4 streams throws or decodes to the chunk size, never more, never a crash', () => {
    if (lz4 === null) return;
    let seed = 7;
    const rnd = (): number => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
    let thrown = 0;
    for (const c of lz4Frames) {
      const bytes = frame(c);
      for (let k = 0; k < 60; k++) {
        const bad = bytes.slice();
        for (let n = 0; n < 8; n++) bad[32 + Math.floor(rnd() * (bad.byteLength - 32))] = Math.floor(rnd() * 256);
        try {
          expect(decodeBlosc(bad, c.nbytes, lz4).byteLength).toBe(c.nbytes);
        } catch (e) {
          expect(e).toBeInstanceOf(Error);
          thrown++;
        }
      }
    }
    expect(thrown).toBeGreaterThan(0);
  });
});

describe('Blosc: a cube chunk decoded whole (the fold) equals zarrita and numcodecs', () => {
  // `fast`: the chunks go through the frame reader (the spy below sees its output buffer); else zarrita takes them.
  const era5 = (k: number[]): [number, number][] => regionOf(k, [24, 36, 36], [48, 73, 144]);
  const stores = [
    { dir: '../../fixtures/cube/era5.zarr/t2m/', format: 2 as const, fast: true, region: era5 },
    {
      dir: '../../fixtures/cube/codecs.zarr/v_blosc_lz4_shuffle/',
      format: 2 as const,
      fast: true,
      region: (k: number[]) => regionOf(k, [2, 10, 10], [4, 20, 30]),
    },
    { dir: '../../fixtures/cube/era5_v3.zarr/t2m_blosc/', format: 3 as const, fast: true, region: era5 },
    // Big-endian bytes before blosc, and transpose before blosc (zstd inside): zarrita's.
    { dir: '../../fixtures/cube/era5_v3.zarr/t2m_blosc_be/', format: 3 as const, fast: false, region: era5 },
    { dir: '../../fixtures/cube/era5_v3.zarr/t2m_transpose/', format: 3 as const, fast: false, region: era5 },
  ];

  it.each(stores.map((s) => [s.dir.split('/').slice(-3, -1).join('/'), s] as const))('%s: every chunk', async (_name, s) => {
    const url = new URL(s.dir, import.meta.url);
    const { docs, keys } = chunksOf(url, s.format);
    expect(keys.length).toBeGreaterThan(5);
    for (const key of keys) {
      const bytes = new Uint8Array(readFileSync(new URL(key, url)));
      if (s.fast) expect(bloscReadsHere(bytes)).toBe(true);
      const region = s.region(
        key
          .split(/[./]/)
          .filter((p) => p !== 'c')
          .map(Number),
      );
      const sliced = await decodeZarrRegion(s.format, docs, key, bytes, region, false);
      const [n0, n1, n2] = sliced.shape as [number, number, number];
      // The whole chunk, and the rows and columns a fold asks for (a zone's window inside the chunk).
      const part = { row0: Math.floor(n1 / 3), row1: n1 - 1, col1: Math.ceil(n2 / 2) };
      for (const rows of [undefined, part]) {
        let allocated = 0;
        const spy = (n: number): Uint8Array => {
          allocated++;
          return new Uint8Array(n);
        };
        const whole = await decodeZarrRegion(s.format, docs, key, bytes, region, true, rows, spy);
        expect(allocated, `${key}: through the frame reader`).toBe(s.fast && lz4 !== null ? 1 : 0);
        expect(whole.shape).toEqual(sliced.shape);
        expect(whole.data.constructor).toBe(sliced.data.constructor);
        // Every sample of the region (or of its part) through each one's strides.
        for (let i = 0; i < n0; i++) {
          for (let j = rows?.row0 ?? 0; j < (rows?.row1 ?? n1); j++) {
            for (let k = 0; k < (rows?.col1 ?? n2); k++) {
              const a = whole.data[i * (whole.stride[0] as number) + j * (whole.stride[1] as number) + k * (whole.stride[2] as number)];
              const b = sliced.data[i * (sliced.stride[0] as number) + j * (sliced.stride[1] as number) + k * (sliced.stride[2] as number)];
              if (!Object.is(a, b)) expect(`${key} [${i},${j},${k}] ${String(a)}`).toBe(String(b));
            }
          }
        }
      }
    }
  });

  it('v3: a chain with more after blosc (crc32c) is not read as a bare Blosc frame', async () => {
    const url = new URL('../../fixtures/cube/era5_v3.zarr/t2m_blosc/', import.meta.url);
    const { docs, keys } = chunksOf(url, 3);
    const meta = JSON.parse(docs['zarr.json'] as string) as { codecs: unknown[] };
    const withCrc = { 'zarr.json': JSON.stringify({ ...meta, codecs: [...meta.codecs, { name: 'crc32c' }] }) };
    const key = keys[0] as string;
    const frame = new Uint8Array(readFileSync(new URL(key, url)));
    // The frame then its CRC-32C, little-endian, as the crc32c codec appends it.
    const bytes = new Uint8Array(frame.byteLength + 4);
    bytes.set(frame);
    new DataView(bytes.buffer).setUint32(frame.byteLength, crc32c(frame), true);
    const region = regionOf([0, 0, 0], [24, 36, 36], [48, 73, 144]);
    let allocated = 0;
    const spy = (n: number): Uint8Array => {
      allocated++;
      return new Uint8Array(n);
    };
    const whole = await decodeZarrRegion(3, withCrc, key, bytes, region, true, undefined, spy);
    const plain = await decodeZarrRegion(3, docs, key, frame, region, false);
    expect(allocated).toBe(0);
    expect(Array.from(whole.data)).toEqual(Array.from(plain.data));
  });
});

/** An array's metadata documents and its chunk keys (v2 `0.1.2`, v3 `c/0/1/2`). */
function chunksOf(url: URL, format: 2 | 3): { docs: Record<string, string>; keys: string[] } {
  if (format === 2) {
    const docs = { '.zarray': readFileSync(new URL('.zarray', url), 'utf8'), '.zattrs': readFileSync(new URL('.zattrs', url), 'utf8') };
    return { docs, keys: readdirSync(url).filter((f) => /^\d+(\.\d+)*$/.test(f)) };
  }
  const docs = { 'zarr.json': readFileSync(new URL('zarr.json', url), 'utf8') };
  const keys = (readdirSync(new URL('c/', url), { recursive: true }) as string[]).filter((f) => statSync(new URL(`c/${f}`, url)).isFile()).map((f) => `c/${f}`);
  return { docs, keys };
}

/** CRC-32C (Castagnoli, reflected), bit by bit: the crc32c codec's checksum. */
function crc32c(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const b of bytes) {
    crc ^= b;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0x82f63b78 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

describe('Blosc: a corrupt chunk is refused by both decoders, never read as a shorter one', () => {
  it('cut short, or with a size inside that is not the bytes read or the chunk’s, through the fast path and numcodecs', async () => {
    const url = new URL('../../fixtures/cube/era5.zarr/t2m/', import.meta.url);
    const docs = { '.zarray': readFileSync(new URL('.zarray', url), 'utf8'), '.zattrs': readFileSync(new URL('.zattrs', url), 'utf8') };
    const chunk = new Uint8Array(readFileSync(new URL('0.0.0', url)));
    const withSize = (at: number, value: number): Uint8Array => {
      const b = chunk.slice();
      new DataView(b.buffer).setInt32(at, value, true);
      return b;
    };
    const region = regionOf([0, 0, 0], [24, 36, 36], [48, 73, 144]);
    const sliced = regionOf([0, 0, 0], [24, 36, 36], [48, 73, 144]).map(([a, b]): [number, number] => [a + 1, b - 1]);
    // A smaller decoded size (numcodecs would decode that many bytes), a larger one, cut short, the header only.
    for (const bad of [withSize(4, 12_346), withSize(4, 2 * 24 * 36 * 36 + 2), chunk.subarray(0, chunk.byteLength - 100), chunk.subarray(0, 10)]) {
      await expect(decodeZarrRegion(2, docs, '0.0.0', bad, region, true), `${bad.byteLength} bytes, fold`).rejects.toThrow();
      // The region inside the chunk goes through zarrita and numcodecs whatever the native decoder.
      await expect(decodeZarrRegion(2, docs, '0.0.0', bad, sliced, false), `${bad.byteLength} bytes, sliced`).rejects.toThrow(/corrupt|Failed to decode/);
    }
    // A header promising three times the chunk is refused before numcodecs grows its memory to it.
    const promise = decodeZarrRegion(2, docs, '0.0.0', withSize(4, 3 * 2 * 24 * 36 * 36), sliced, false);
    const error = (await promise.catch((e: unknown) => e)) as Error & { cause?: Error };
    expect(`${error.message} ${error.cause?.message ?? ''}`).toMatch(/would decode to 186624 bytes/);
    const good = await decodeZarrRegion(2, docs, '0.0.0', chunk, sliced, false);
    expect(good.shape).toEqual([22, 34, 34]);
  });
});

function regionOf(key: number[], chunks: number[], shape: number[]): [number, number][] {
  return key.map((k, d) => [k * (chunks[d] as number), Math.min((k + 1) * (chunks[d] as number), shape[d] as number)]);
}
