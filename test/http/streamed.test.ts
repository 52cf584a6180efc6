/**
 * How a streaming answer goes out (http/zones.ts streamed): pieces already answered leave together, up to
 * 64 KiB (a job's stored rows were one socket write each); a piece that waits for I/O never holds back those
 * before it; pieces all ready still let the event loop turn between batches; a failure after the first pieces sends every piece before the format's failure line; a client
 * that goes away ends the stream while a piece is awaited; pieces the stream owns (a cube's NDJSON from the
 * workers) are freed once written, and never before.
 */
import { describe, expect, it } from 'vitest';
import { ndjson } from '../../src/formats/ndjson.ts';
import { streamed } from '../../src/http/zones.ts';

async function* ready(n: number): AsyncGenerator<string> {
  for (let i = 0; i < n; i++) yield `{"row":${i}}\n`;
}

const rows = (n: number): string => Array.from({ length: n }, (_, i) => `{"row":${i}}\n`).join('');

describe('streamed', () => {
  it('sends pieces that are ready together, in order, in batches of about 64 KiB', async () => {
    const out: (string | Uint8Array)[] = [];
    for await (const p of streamed(new AbortController().signal, ndjson, ready(20_000))) out.push(p);
    expect(out.join('')).toBe(rows(20_000));
    // 20,000 pieces of ~12 bytes: a handful of writes, none far past the batch size.
    expect(out.length).toBeLessThan(20);
    expect(Math.max(...out.map((p) => p.length))).toBeLessThan(64 * 1024 + 64);
  });

  it('pieces all ready: other work (a health check) runs between batches, not after the last one', async () => {
    let batches = 0;
    let ranAt = -1;
    // A macrotask queued before the stream starts: it runs once the stream lets the event loop turn.
    setImmediate(() => (ranAt = batches));
    for await (const piece of streamed(new AbortController().signal, ndjson, ready(200_000))) batches += piece.length > 0 ? 1 : 0;
    expect(batches).toBeGreaterThan(10);
    expect(ranAt).toBeGreaterThanOrEqual(0);
    expect(ranAt).toBeLessThan(batches);
  });

  it('sends what is ready before a piece that waits, without waiting for it', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    async function* slow(): AsyncGenerator<string> {
      yield 'a\n';
      yield 'b\n';
      await gate;
      yield 'c\n';
    }
    const it = streamed(new AbortController().signal, ndjson, slow());
    // The first two arrive while the third is still held back: had the stream waited for it, this would hang.
    expect((await it.next()).value).toBe('a\nb\n');
    release();
    expect((await it.next()).value).toBe('c\n');
    expect((await it.next()).done).toBe(true);
  });

  it('a failure after the first pieces: every piece before it, then the failure line', async () => {
    async function* failing(): AsyncGenerator<string> {
      yield* ready(3);
      throw new Error('the source went away');
    }
    const out: (string | Uint8Array)[] = [];
    for await (const p of streamed(new AbortController().signal, ndjson, failing())) out.push(p);
    const lines = out.join('').trim().split('\n');
    expect(lines.slice(0, 3)).toEqual(rows(3).trim().split('\n'));
    expect(JSON.parse(lines[3] as string)).toMatchObject({ error: { status: 500, code: 'internal_error' } });
    expect(lines).toHaveLength(4);
  });

  it('a client that goes away ends the stream while a piece is awaited, with no failure line', async () => {
    const never = new Promise<never>(() => undefined);
    async function* stuck(): AsyncGenerator<string> {
      yield 'a\n';
      await never;
    }
    const client = new AbortController();
    const it = streamed(client.signal, ndjson, stuck());
    expect((await it.next()).value).toBe('a\n');
    const waiting = it.next();
    client.abort(new Error('client gone'));
    expect(await waiting).toEqual({ done: true, value: undefined });
  });
});

describe('streamed: owned pieces freed once written', () => {
  // ArrayBuffer.prototype.transfer (Node ≥ 21) frees a buffer at once; on Node 20 a piece is left to V8.
  const frees = typeof (ArrayBuffer.prototype as { transfer?: unknown }).transfer === 'function';
  const piece = (i: number, size: number): Uint8Array => new Uint8Array(size).fill(48 + (i % 10));

  it('a piece handed over is freed only after written() says so, and a piece not owned never is', async () => {
    const owned = new WeakSet<Uint8Array>();
    const pieces = [0, 1, 2, 3].map((i) => piece(i, 70_000));
    for (const p of pieces.slice(0, 3)) owned.add(p);
    async function* gen(): AsyncGenerator<Uint8Array> {
      yield* pieces;
    }
    let written = false;
    const it = streamed(new AbortController().signal, ndjson, gen(), { owned, written: () => written });
    // Each piece is past the batch size: one a batch, the very piece (not a copy).
    const first = (await it.next()).value as Uint8Array;
    expect(first).toBe(pieces[0]);
    expect((await it.next()).value).toBe(pieces[1]);
    // Not written yet: the first two are intact while the stream goes on.
    expect(first.byteLength).toBe(70_000);
    expect((pieces[1] as Uint8Array).byteLength).toBe(70_000);
    written = true;
    expect((await it.next()).value).toBe(pieces[2]);
    // Written: the pieces handed over before this batch are freed (not the one just handed over).
    expect(first.byteLength).toBe(frees ? 0 : 70_000);
    expect((pieces[1] as Uint8Array).byteLength).toBe(frees ? 0 : 70_000);
    expect((pieces[2] as Uint8Array).byteLength).toBe(70_000);
    expect((await it.next()).value).toBe(pieces[3]);
    expect((await it.next()).done).toBe(true);
    // Not the stream's own: never freed, whatever written() says.
    expect((pieces[3] as Uint8Array).byteLength).toBe(70_000);
  });

  it('small owned pieces sent together are copied into their batch and freed at once, the batch intact', async () => {
    const owned = new WeakSet<Uint8Array>();
    const pieces = [0, 1, 2].map((i) => piece(i, 1000));
    for (const p of pieces) owned.add(p);
    async function* gen(): AsyncGenerator<Uint8Array> {
      yield* pieces;
    }
    const out: Uint8Array[] = [];
    // written() false throughout: only the copies' originals may be freed.
    for await (const p of streamed(new AbortController().signal, ndjson, gen(), { owned, written: () => false })) out.push(p as Uint8Array);
    expect(out).toHaveLength(1);
    expect(Buffer.from(out[0] as Uint8Array).toString()).toBe('0'.repeat(1000) + '1'.repeat(1000) + '2'.repeat(1000));
    for (const p of pieces) expect(p.byteLength).toBe(frees ? 0 : 1000);
  });
});
