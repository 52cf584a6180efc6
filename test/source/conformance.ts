/**
 * One behaviour suite for every ByteSource backend and wrapper (after chunkd's): exact bytes at offsets,
 * size, head, zero-length and past-end reads, validator and location, a missing object, abort, independent
 * buffers.
 */
import { describe, expect, it } from 'vitest';
import type { ByteSource } from '../../src/source/source.ts';
import { SourceError } from '../../src/source/source.ts';

export interface Backend {
  /** A fresh source over exactly `data` (a new object each call). */
  make(data: Uint8Array): Promise<ByteSource>;
  /** Opens a source for an object that does not exist; opening itself may throw the SourceError. */
  missing?: () => Promise<ByteSource>;
  /** Reads go over a network or disk (true): an abort during the read must win. */
  async: boolean;
}

/** Deterministic pseudo-random bytes (LCG), so a wrong offset can never read the same values. */
export function bytes(n: number, seed = 1): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed >>> 0;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

/** The SourceError a promise rejects with (fails the test if it resolves or rejects otherwise). */
export async function sourceError(p: Promise<unknown>): Promise<SourceError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(SourceError);
    return e as SourceError;
  }
  throw new Error('expected a SourceError, but the promise resolved');
}

export function describeConformance(name: string, backend: () => Backend): void {
  describe(`ByteSource conformance: ${name}`, () => {
    const data = bytes(100_000, 7);

    it('reports the size', async () => {
      const src = await backend().make(data);
      expect(await src.size()).toBe(data.byteLength);
    });

    it.each([
      [0, 1],
      [0, 16],
      [99_999, 1],
      [12_345, 4_321],
      [0, 100_000],
      [65_535, 2],
    ])('reads exactly the bytes at offset %i, length %i', async (offset, length) => {
      const src = await backend().make(data);
      const got = new Uint8Array(await src.read(offset, length));
      expect(got.byteLength).toBe(length);
      expect(Buffer.from(got).equals(Buffer.from(data.subarray(offset, offset + length)))).toBe(true);
    });

    it('knows the size after a read and reads again consistently', async () => {
      const src = await backend().make(data);
      const a = new Uint8Array(await src.read(500, 10));
      expect(await src.size()).toBe(data.byteLength);
      const b = new Uint8Array(await src.read(500, 10));
      expect([...a]).toEqual([...b]);
      expect([...a]).toEqual([...data.subarray(500, 510)]);
    });

    it('serves concurrent reads with the right bytes each', async () => {
      const src = await backend().make(data);
      const ranges = [
        [0, 100],
        [50_000, 300],
        [99_000, 1000],
        [7, 7],
      ] as const;
      const got = await Promise.all(ranges.map(([o, l]) => src.read(o, l)));
      got.forEach((buf, i) => {
        const [o, l] = ranges[i]!;
        expect([...new Uint8Array(buf)]).toEqual([...data.subarray(o, o + l)]);
      });
    });

    it('returns buffers the caller may modify', async () => {
      const src = await backend().make(data);
      const first = new Uint8Array(await src.read(10, 4));
      first.fill(0);
      expect([...new Uint8Array(await src.read(10, 4))]).toEqual([...data.subarray(10, 14)]);
    });

    it.each([
      [16, 16],
      [100_000, 100_000],
      [250_000, 100_000],
    ])('head(%i) reads the first %i bytes', async (maxLength, expected) => {
      const src = await backend().make(data);
      const got = new Uint8Array(await src.head(maxLength));
      expect(got.byteLength).toBe(expected);
      expect(Buffer.from(got).equals(Buffer.from(data.subarray(0, expected)))).toBe(true);
      expect(await src.size()).toBe(data.byteLength);
    });

    it('knows its validator once it has answered, and keeps it while the object is unchanged', async () => {
      const src = await backend().make(data);
      await src.read(0, 10);
      const validator = src.validator();
      expect(validator).toEqual(expect.any(String));
      await src.read(50_000, 10);
      expect(src.validator()).toBe(validator);
    });

    it('tells where its bytes came from: its URL when nothing redirected', async () => {
      const src = await backend().make(data);
      await src.read(0, 1);
      expect(src.location().href).toBe(src.url.href);
    });

    it('reads zero bytes as an empty buffer', async () => {
      const src = await backend().make(data);
      expect((await src.read(100, 0)).byteLength).toBe(0);
    });

    it('refuses a read that ends past the end', async () => {
      const src = await backend().make(data);
      const err = await sourceError(src.read(99_990, 20));
      expect(err.reason).toBe('too_large');
    });

    it('refuses a read that starts past the end', async () => {
      const src = await backend().make(data);
      await sourceError(src.read(200_000, 10));
    });

    it('refuses a read past the end even when the size is already known', async () => {
      const src = await backend().make(data);
      await src.size();
      await sourceError(src.read(100_000, 1));
    });

    if (backend().missing !== undefined)
      it('reports a missing object as not_found', async () => {
        const err = await sourceError(
          (async () => {
            const src = await backend().missing!();
            await src.size();
            return src.read(0, 10);
          })(),
        );
        expect(err.reason).toBe('not_found');
      });

    it('rejects with the AbortError of an already aborted signal', async () => {
      const src = await backend().make(data);
      const ctl = new AbortController();
      ctl.abort();
      await expect(src.read(0, 10, ctl.signal)).rejects.toMatchObject({ name: 'AbortError' });
    });

    it('rejects with the AbortError when aborted during the read', async () => {
      const b = backend();
      const src = await b.make(data);
      const ctl = new AbortController();
      const p = src.read(0, 50_000, ctl.signal);
      ctl.abort();
      if (b.async) {
        await expect(p).rejects.toMatchObject({ name: 'AbortError' });
      } else {
        // An in-memory read is complete before anyone can abort it.
        expect((await p).byteLength).toBe(50_000);
      }
    });
  });
}
