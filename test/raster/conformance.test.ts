/**
 * The GeoTIFF conformance corpus (fixtures/conformance, written by GDAL through
 * tools/fixtures/make_conformance.py): every pixel of every file decoded by the service's own path
 * (header → tile bytes → codecs → samples, as raster/fold.ts does) equals GDAL's decoded pixels committed
 * beside it — exactly for lossless files, within one level for lossy ones (JPEG, lossy WebP) — and the
 * grid equals GDAL's geotransform. Files the service cannot read exactly must be refused with a 422 that
 * names why. The suite needs no GDAL: the expected values are committed JSON.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { MemorySource } from '../../src/source/memory.ts';
import { openRaster, type CogLevel } from '../../src/raster/reader.ts';
import { decompress } from '../../src/raster/codecs/index.ts';
import { toSamples } from '../../src/raster/samples.ts';
import { unpackMask } from '../../src/raster/pixels.ts';
import { ZonalError } from '../../src/errors.ts';
import { inflateBackend, useInflateBackend, type InflateBackend } from '../../src/codecs/deflate.ts';

/** Both inflaters where the native one is built (CI builds it: test/raster/inflate.test.ts checks that). */
const BACKENDS: InflateBackend[] = inflateBackend().backend === 'libdeflate' ? ['libdeflate', 'node:zlib'] : ['node:zlib'];

interface Entry {
  file: string;
  what: string;
  compression: string;
  dtype: string;
  bands: number;
  width: number;
  height: number;
  lossy: boolean;
  expect: 'read' | 'refuse';
  reason?: string;
  geotransform?: number[];
  pixels?: string;
}

const DIR = new URL('../../fixtures/conformance/', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('manifest.json', DIR), 'utf8')) as Entry[] | { files: Entry[] };
const entries: Entry[] = Array.isArray(manifest) ? manifest : manifest.files;

function source(file: string): MemorySource {
  return new MemorySource(readFileSync(new URL(file, DIR)), `file:///conformance/${file}`);
}

/** Every pixel of level 0, decoded as the fold decodes it: per band, row-major; and the mask if any. */
async function decodeAll(
  level: CogLevel,
  bands: number,
  reader: Awaited<ReturnType<typeof openRaster>>,
): Promise<{ bands: number[][]; mask: number[] | null }> {
  const { ifd, mask, grid } = level;
  const { codec } = ifd;
  const across = Math.ceil(grid.width / ifd.tileWidth);
  const down = Math.ceil(grid.height / ifd.tileHeight);
  const perBand = across * down;
  const planar = codec.planarConfiguration === 2;
  const spp = planar ? 1 : codec.samplesPerPixel;
  const out = Array.from({ length: bands }, () => new Array<number>(grid.width * grid.height).fill(Number.NaN));
  const maskOut = mask ? new Array<number>(grid.width * grid.height).fill(0) : null;
  for (let ty = 0; ty < down; ty++) {
    for (let tx = 0; tx < across; tx++) {
      const index = ty * across + tx;
      const rows = Math.min(ifd.tileHeight, grid.height - ty * ifd.tileHeight);
      const cols = Math.min(ifd.tileWidth, grid.width - tx * ifd.tileWidth);
      for (let b = 0; b < bands; b++) {
        if (planar || b === 0) {
          const bytes = await reader.readTile(ifd, planar ? b * perBand + index : index);
          const fill = reader.info.nodata ?? 0;
          const view = bytes === null ? null : toSamples(codec, await decompress(codec, bytes), rows);
          const bandsHere = planar ? [b] : Array.from({ length: bands }, (_, k) => k);
          for (const band of bandsHere) {
            const sample = planar ? 0 : band;
            for (let r = 0; r < rows; r++) {
              for (let c = 0; c < cols; c++) {
                const v = view === null ? fill : view.array[(r * ifd.tileWidth + c) * spp + sample];
                (out[band] as number[])[(ty * ifd.tileHeight + r) * grid.width + tx * ifd.tileWidth + c] = typeof v === 'bigint' ? Number(v) : (v as number);
              }
            }
          }
        }
      }
      if (mask && maskOut) {
        const bytes = await reader.readTile(mask, index);
        const m = bytes === null ? null : unpackMask(mask.codec, (await decompress(mask.codec, bytes)).bytes, mask.tileWidth, rows);
        for (let r = 0; r < rows; r++) {
          for (let c = 0; c < cols; c++) maskOut[(ty * ifd.tileHeight + r) * grid.width + tx * ifd.tileWidth + c] = m && m[r * mask.tileWidth + c] ? 255 : 0;
        }
      }
    }
  }
  return { bands: out, mask: maskOut };
}

describe('GeoTIFF conformance corpus (GDAL-decoded pixels)', () => {
  afterAll(() => useInflateBackend(BACKENDS[0] as InflateBackend));
  it('has the corpus', () => {
    expect(entries.length).toBeGreaterThanOrEqual(70);
    expect(entries.filter((e) => e.expect === 'read').length).toBeGreaterThanOrEqual(65);
  });

  it.each(entries.filter((e) => e.expect === 'refuse').map((e) => [e.file, e] as const))('%s is refused with a reason', async (_f, entry) => {
    const err = await openRaster(source(entry.file)).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err, `${entry.file} (${entry.what}) must be refused`).toBeInstanceOf(ZonalError);
    expect((err as ZonalError).code).toMatch(/^(unsupported_raster|missing_crs)$/);
    expect((err as ZonalError).message.length).toBeGreaterThan(20);
  });

  it.each(entries.filter((e) => e.expect === 'read').flatMap((e) => BACKENDS.map((b) => [e.file, b, e] as const)))(
    '%s (%s): every pixel as GDAL decodes it',
    async (_f, backend, entry) => {
      useInflateBackend(backend);
      const reader = await openRaster(source(entry.file));
      const level = reader.info.levels[0] as CogLevel;
      expect(reader.info.bandCount).toBe(entry.bands);
      expect([level.grid.width, level.grid.height]).toEqual([entry.width, entry.height]);
      if (entry.geotransform) {
        const g = level.grid;
        const got = [g.x0, g.dx, g.rx ?? 0, g.y0, g.ry ?? 0, g.dy];
        entry.geotransform.forEach((want, i) =>
          expect(Math.abs((got[i] as number) - want), `geotransform[${i}]`).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(want))),
        );
      }
      const want = JSON.parse(readFileSync(new URL(`pixels/${entry.pixels ?? ''}`, DIR), 'utf8')) as Record<string, (number | null)[]>;
      const got = await decodeAll(level, entry.bands, reader);
      for (let b = 0; b < entry.bands; b++) {
        const w = want[`band_${b + 1}`] as (number | null)[];
        const g = got.bands[b] as number[];
        expect(g.length).toBe(w.length);
        let worst = 0;
        let exact = 0;
        let firstBad = -1;
        for (let i = 0; i < w.length; i++) {
          const wv = w[i];
          const gv = g[i] as number;
          const same = wv === null ? Number.isNaN(gv) : gv === wv;
          if (same) {
            exact++;
            continue;
          }
          const d = wv === null || Number.isNaN(gv) ? Infinity : Math.abs(gv - wv);
          if (d > worst) worst = d;
          if (firstBad < 0) firstBad = i;
        }
        const where =
          firstBad < 0
            ? ''
            : ` first at pixel ${firstBad} (row ${Math.floor(firstBad / entry.width)}, col ${firstBad % entry.width}): got ${g[firstBad]}, GDAL ${w[firstBad]}`;
        if (entry.lossy) {
          expect(worst, `band ${b + 1}: largest difference ${worst} levels${where}`).toBeLessThanOrEqual(1);
        } else {
          expect(exact, `band ${b + 1}: ${w.length - exact} pixels differ${where}`).toBe(w.length);
        }
      }
      if (want['mask']) {
        expect(got.mask, 'the file has a mask').not.toBeNull();
        expect(got.mask).toEqual(want['mask']);
      }
    },
  );
});
