/**
 * DEFLATE through libdeflate (the native binding, native/inflate/) and through node:zlib give the same
 * bytes, whole and as prefixes (a decode that stops after the rows a request needs), on every DEFLATE tile
 * of the conformance corpus and on streams made here with every block type (stored blocks are the longest
 * item a prefix decode can stop short of). A block decoded on a span (raster/decode.ts) equals the same
 * block decoded whole on that span, for every readable file of the corpus. CI builds the binding
 * (.ci/run installs libdeflate-dev): there the native path must be the one in use.
 */
import { existsSync, readFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { MemorySource } from '../../src/source/memory.ts';
import { openRaster, type RasterLevel } from '../../src/raster/reader.ts';
import { inflate, inflateBackend, type InflateBackend } from '../../src/codecs/deflate.ts';
import { decodeBlock, type BlockSpan } from '../../src/raster/decode.ts';

const DIR = new URL('../../fixtures/conformance/', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('manifest.json', DIR), 'utf8')) as
  { file: string; compression: string; expect: string; bands: number }[] | { files: { file: string; compression: string; expect: string; bands: number }[] };
const entries = Array.isArray(manifest) ? manifest : manifest.files;
const native = inflateBackend().backend === 'libdeflate';

/** A deterministic byte stream: noise, runs, and repeats of earlier parts (so every DEFLATE item occurs). */
function data(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let s = seed >>> 0;
  const rnd = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  for (let i = 0; i < n;) {
    const kind = rnd();
    const len = Math.min(n - i, 1 + Math.floor(rnd() * 3000));
    for (let k = 0; k < len; k++, i++) out[i] = kind < 0.4 ? Math.floor(rnd() * 256) : kind < 0.7 ? 7 : i > 300 ? (out[i - 300] as number) : k & 0xff;
  }
  return out;
}

describe('inflate: libdeflate and node:zlib', () => {
  it('CI uses the native inflater (wherever libdeflate-dev is installed, the build must have made it)', () => {
    const expected = process.env['ZONAL_EXPECT_INFLATE'] ?? (existsSync('/usr/include/libdeflate.h') ? 'libdeflate' : undefined);
    if (expected === undefined) return;
    expect(inflateBackend(), 'run `npm run build:native` (needs libdeflate-dev and a C compiler)').toEqual({ backend: expected, reason: '' });
  });

  const backends: InflateBackend[] = native ? ['libdeflate', 'node:zlib'] : ['node:zlib'];

  it.each([0, 1, 6, 9])('streams of level %i (0: stored blocks only): the same bytes whole and in every prefix', (level) => {
    for (const [n, seed] of [
      [1, 1],
      [1000, 2],
      [65_535, 3],
      [65_536, 4],
      [200_000, 5],
      [2 * 1024 * 1024, 6],
    ] as const) {
      const raw = data(n, seed + level * 10);
      const z = new Uint8Array(deflateSync(raw, { level }));
      for (const backend of backends) {
        expect(Buffer.compare(Buffer.from(inflate(z, n, n, backend)), Buffer.from(raw)), `${backend} whole, ${n} bytes`).toBe(0);
        for (const need of [0, 1, 257, 258, 65_535, 65_536, 65_537, 100_000, Math.floor(n / 3), n - 70_000, n - 1].filter((x) => x >= 0 && x <= n)) {
          const got = inflate(z, n, need, backend);
          expect(got.length, `${backend} prefix ${need} of ${n}`).toBeGreaterThanOrEqual(need);
          expect(Buffer.compare(Buffer.from(got.subarray(0, need)), Buffer.from(raw.subarray(0, need))), `${backend} prefix ${need} of ${n}`).toBe(0);
        }
      }
    }
  });

  it('corrupt data is an error on both paths, not bytes', () => {
    const z = new Uint8Array(deflateSync(data(100_000, 9)));
    const bad = z.slice();
    bad[z.length >> 1] ^= 0xff;
    bad[(z.length >> 1) + 1] ^= 0x5a;
    for (const backend of backends) {
      expect(() => inflate(new Uint8Array([1, 2, 3, 4, 5]), 1000, 1000, backend), backend).toThrow();
      expect(() => inflate(bad, 100_000, 100_000, backend), backend).toThrow();
    }
  });

  it.each(entries.filter((e) => e.expect === 'read' && /DEFLATE/.test(e.compression)).map((e) => [e.file] as const))(
    '%s: every tile the same through both inflaters, whole and as prefixes',
    async (file) => {
      const reader = await openRaster(new MemorySource(readFileSync(new URL(file, DIR)), `file:///conformance/${file}`));
      for (const level of reader.info.levels) {
        const { ifd } = level;
        const size =
          Math.ceil((ifd.tileWidth * (ifd.codec.planarConfiguration === 2 ? 1 : ifd.codec.samplesPerPixel) * (ifd.codec.bitsPerSample[0] ?? 8)) / 8) *
          ifd.tileHeight;
        for (let t = 0; t < ifd.offsets.length; t++) {
          const bytes = await reader.readTile(ifd, t);
          if (bytes === null || ![8, 32946].includes(ifd.codec.compression)) continue;
          const z = new Uint8Array(bytes);
          const whole = Buffer.from(inflate(z, size, size, 'node:zlib'));
          for (const backend of backends) {
            for (const need of [size, Math.floor(size / 2), 1]) {
              const got = inflate(z, size, need, backend);
              expect(Buffer.compare(Buffer.from(got.subarray(0, need)), whole.subarray(0, need)), `${file} tile ${t} ${backend} ${need}`).toBe(0);
            }
          }
        }
      }
    },
  );

  it.each(entries.filter((e) => e.expect === 'read').map((e) => [e.file, e.bands] as const))(
    '%s: a block decoded on a span equals the whole block there',
    async (file, bandCount) => {
      const reader = await openRaster(new MemorySource(readFileSync(new URL(file, DIR)), `file:///conformance/${file}`));
      const level = reader.info.levels[0] as RasterLevel;
      const bands = Array.from({ length: bandCount }, (_, b) => b + 1);
      const format = reader.blockFormat(level, bands);
      const across = Math.ceil(level.grid.width / level.blockWidth);
      const count = across * Math.ceil(level.grid.height / level.blockHeight);
      const blocks = await reader.readBlocks(
        level,
        Array.from({ length: count }, (_, i) => i),
        bands,
      );
      for (const block of blocks) {
        const rows = Math.min(level.blockHeight, level.grid.height - block.row0);
        const cols = Math.min(level.blockWidth, level.grid.width - block.col0);
        const whole = await decodeBlock(format, block, false);
        // Middle rows, and columns up to two thirds across.
        const span: BlockSpan = {
          row0: Math.floor(rows / 3),
          row1: Math.max(Math.floor(rows / 3) + 1, Math.ceil((2 * rows) / 3)),
          col1: Math.max(1, Math.ceil((2 * cols) / 3)),
        };
        const part = await decodeBlock(format, block, false, span);
        for (let b = 0; b < bands.length; b++) {
          const w = whole.bands[b];
          const p = part.bands[b];
          if (!w?.values || !p?.values) {
            expect(p?.values ?? null).toBe(w?.values ?? null);
            continue;
          }
          for (let r = span.row0; r < span.row1; r++) {
            for (let c = 0; c < span.col1; c++) {
              const i = r * w.rowStride + c * w.step + w.offset;
              const a = w.values[i];
              const v = p.values[i];
              if (!(a === v || (Number.isNaN(a) && Number.isNaN(v)))) expect(v, `${file} block ${block.index} band ${b + 1} row ${r} col ${c}`).toBe(a);
            }
          }
        }
      }
    },
  );
});

describe('decoded blocks reuse their buffers', () => {
  it('a block decoded into a recycled buffer equals the block decoded afresh, for every block of two rasters in turn', async () => {
    const { recycle } = await import('../../src/raster/decode.ts');
    const files = ['elev_deflate.tif', 'l7_cog.tif', 'uint16_pred2_li.tif', 'float32_pred3_li.tif', 'elev_packbits.tif', 'elev_lzw.tif'];
    const all: {
      format: ReturnType<Awaited<ReturnType<typeof openRaster>>['blockFormat']>;
      block: Awaited<ReturnType<Awaited<ReturnType<typeof openRaster>>['readBlocks']>>[number];
    }[] = [];
    for (const file of files) {
      const reader = await openRaster(new MemorySource(readFileSync(new URL(file, DIR)), `file:///conformance/${file}`));
      const level = reader.info.levels[0] as RasterLevel;
      const bands = Array.from({ length: reader.info.bandCount }, (_, b) => b + 1);
      const count = Math.ceil(level.grid.width / level.blockWidth) * Math.ceil(level.grid.height / level.blockHeight);
      // Each block read twice: one copy decoded into spare buffers, the other afresh (bytes move to a worker, so each decode has its own).
      const ids = Array.from({ length: count }, (_, i) => i);
      const a = await reader.readBlocks(level, ids, bands);
      const format = reader.blockFormat(level, bands);
      a.forEach((block) => all.push({ format, block }));
    }
    const snapshot = (d: Awaited<ReturnType<typeof decodeBlock>>) =>
      d.bands.map((b) => (b.values ? Array.from(b.values as ArrayLike<number | bigint>, (v) => String(v)) : null));
    const expected = [];
    for (const { format, block } of all) expected.push(snapshot(await decodeBlock(format, block, false)));
    // Decode, recycle, decode the next: later blocks land in buffers that held other files' samples.
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < all.length; i++) {
        const { format, block } = all[i] as (typeof all)[number];
        const d = await decodeBlock(format, block, false);
        expect(snapshot(d), `block ${i}`).toEqual(expected[i]);
        recycle(d);
      }
    }
  });
});
