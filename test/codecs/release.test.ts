/**
 * Buffers a thread alone holds are freed once it is done with them (codecs/release.ts): detached where the
 * runtime has ArrayBuffer.prototype.transfer (Node ≥ 21; CI runs Node 24 too), left alone elsewhere. Never a
 * buffer the caller still reads: a slice of a pool, shared memory, a Blosc frame's own bytes. The workers'
 * users of it: the LZ4 outputs inside a Blosc frame, a NDJSON piece's numbers, a fold task's moved-in bytes.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { release } from '../../src/codecs/release.ts';
import { bloscReadsHere, decodeBlosc } from '../../src/codecs/blosc.ts';
import { lz4Block } from '../../src/codecs/lz4.ts';
import type { RowsPiece } from '../../src/workers/ndjson-rows.ts';
import fold, { ndjsonRows, ndjsonRowsHere, taskBuffers } from '../../src/workers/fold-worker.ts';
import { Piscina } from '../../src/workers/piscina.ts';
import type { FoldTask } from '../../src/raster/fold.ts';

/** Whether this runtime can detach a buffer (else release leaves every buffer as it is). */
const detaches = typeof (ArrayBuffer.prototype as { transfer?: unknown }).transfer === 'function';
const released = (b: ArrayBufferLike): boolean => b.byteLength === 0;

describe('release', () => {
  it('frees a buffer seen whole (where the runtime can), never a part of one, shared memory or a pooled Buffer', () => {
    const whole = new Uint8Array(1000).fill(7);
    release(whole);
    expect(released(whole.buffer)).toBe(detaches);
    const bare = new ArrayBuffer(64);
    release(bare);
    expect(released(bare)).toBe(detaches);

    // A view of part of a buffer: its other bytes may be someone else's.
    const big = new Uint8Array(1000).fill(3);
    release(big.subarray(10));
    release(big.subarray(0, 999));
    expect(big.byteLength).toBe(1000);
    expect(big[999]).toBe(3);
    // Shared memory is never detached.
    const shared = new Uint8Array(new SharedArrayBuffer(64));
    release(shared);
    expect(shared.byteLength).toBe(64);
    // A small Buffer is a slice of Node's pool.
    const pooled = Buffer.from('a small string');
    const neighbour = Buffer.from('another');
    release(pooled);
    expect(pooled.toString()).toBe('a small string');
    expect(neighbour.toString()).toBe('another');
  });
});

describe('its users', () => {
  it('a Blosc frame: the LZ4 outputs are freed after their block, the frame itself and the result kept', () => {
    const lz4 = lz4Block();
    if (lz4 === null) return;
    const dir = new URL('../../fixtures/blosc/', import.meta.url);
    const name = 'lz4-c1-t2-s1-mixed-n160000-b0';
    const src = new Uint8Array(readFileSync(new URL(`${name}.blosc`, dir)));
    const want = new Uint8Array(readFileSync(new URL(`${name}.raw`, dir)));
    expect(bloscReadsHere(src)).toBe(true);
    const outputs: Uint8Array[] = [];
    const spy = (stream: Uint8Array, size: number): Uint8Array => {
      const out = lz4(stream, size);
      outputs.push(out);
      return out;
    };
    const got = decodeBlosc(src, want.byteLength, spy);
    expect(outputs.length).toBeGreaterThan(1);
    for (const out of outputs) expect(released(out.buffer)).toBe(detaches);
    expect(src.byteLength).toBeGreaterThan(0);
    expect(Buffer.compare(Buffer.from(got.buffer, got.byteOffset, got.byteLength), Buffer.from(want))).toBe(0);
  });

  it("a NDJSON piece: its lines, then its numbers' buffer freed; as a task, its bytes moved to the main thread", () => {
    const piece = (): RowsPiece => ({
      prefix: '{"index":0,"id":"a","properties":null',
      coords: ',"time":"2021-01-01T00:00:00Z","time":"2021-01-01T01:00:00Z"',
      coordEnds: Int32Array.from([30, 60]),
      open: ',"statistics":{"t2m":{',
      heads: ['"mean":', ',"count":'],
      names: ['mean', 'count'],
      values: Float64Array.from([271.5, 3.25, Number.NaN, 0]),
      extra: null,
    });
    const lines =
      '{"index":0,"id":"a","properties":null,"time":"2021-01-01T00:00:00Z","statistics":{"t2m":{"mean":271.5,"count":3.25}}}\n' +
      '{"index":0,"id":"a","properties":null,"time":"2021-01-01T01:00:00Z","statistics":{"t2m":{"mean":null,"count":0}}}\n';
    const p = piece();
    const bytes = ndjsonRowsHere(p);
    expect(Buffer.from(bytes).toString()).toBe(lines);
    expect(released(p.values.buffer)).toBe(detaches);
    // The pool's task: the same bytes, their whole buffer (nothing else in it) in the transfer list.
    const q = piece();
    const task = ndjsonRows(q) as unknown as Record<symbol, unknown>;
    const value = task[Piscina.valueSymbol] as Uint8Array;
    expect(Buffer.from(value).toString()).toBe(lines);
    expect(value.byteOffset).toBe(0);
    expect(value.byteLength).toBe(value.buffer.byteLength);
    expect(task[Piscina.transferableSymbol]).toEqual([value.buffer]);
    expect(released(q.values.buffer)).toBe(detaches);
  });

  it("a fold task: every raster's buffers gathered once (its blocks, masks, extras, classes, weights, zones raster), and freed even when the fold fails", async () => {
    const a = new ArrayBuffer(8);
    const b = new ArrayBuffer(8);
    const mask = new ArrayBuffer(8);
    const extra = new ArrayBuffer(8);
    const cls = new ArrayBuffer(8);
    const weights = new ArrayBuffer(8);
    const zones = new ArrayBuffer(8);
    const task = {
      blocks: [
        { planes: [a, null, b], mask },
        { planes: [a], mask: null },
      ],
      extras: [{ blocks: [{ planes: [extra], mask: null }] }],
      classes: { blocks: [{ planes: [cls], mask: null }] },
      weights: { blocks: [{ planes: [weights], mask: null }] },
      zoneRaster: { blocks: [{ planes: [zones], mask: null }] },
    } as unknown as FoldTask;
    const all = taskBuffers(task);
    expect(new Set(all)).toEqual(new Set([a, b, mask, extra, cls, weights, zones]));
    expect(all.length).toBe(7);
    // A task the fold refuses (no format, zones or bands): its bytes are no use to anyone afterwards.
    await expect(fold(task)).rejects.toThrow();
    for (const buffer of all) expect(released(buffer)).toBe(detaches);
  });
});
