/**
 * memo (src/memo.ts), the one wrapper of lru-cache: bounds in entries and bytes (least recently used out
 * first), time to live on an injected clock, hits and misses counted by name for /metrics, remember().
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { memo } from '../src/memo.ts';
import { tally } from '../src/observe.ts';

/** A clock the test moves by hand (never at 0: lru-cache reads a start of 0 as "no time to live"). */
function clock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

/** [hits, misses] counted so far under `name`. */
const counted = (name: string): [number, number] => [...(tally.cache.get(name) ?? [0, 0])];

describe('memo', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('keeps at most maxEntries, dropping the least recently used first', () => {
    const m = memo<{ v: string }>({ maxEntries: 2 });
    m.set('a', { v: 'A' });
    m.set('b', { v: 'B' });
    expect(m.get('a')?.v).toBe('A'); // a is now the most recent
    m.set('c', { v: 'C' });
    expect(m.get('b')).toBeUndefined();
    expect(m.get('a')?.v).toBe('A');
    expect(m.get('c')?.v).toBe('C');
    expect(m.size).toBe(2);
  });

  it('keeps at most maxBytes as sizeOf measures, and tells onRemove of every entry that leaves', () => {
    const gone: string[] = [];
    const m = memo<Uint8Array>({ maxBytes: 100, sizeOf: (b) => b.byteLength, onRemove: (_b, key) => gone.push(key) });
    m.set('a', new Uint8Array(40));
    m.set('b', new Uint8Array(40));
    m.get('a');
    m.set('c', new Uint8Array(40)); // 120 bytes: b, the least recently used, goes
    expect(gone).toEqual(['b']);
    expect(m.bytes).toBe(80);
    m.set('a', new Uint8Array(10)); // replaced: the old value leaves
    expect(gone).toEqual(['b', 'a']);
    expect(m.bytes).toBe(50);
    m.delete('c');
    m.clear();
    expect(gone).toEqual(['b', 'a', 'c', 'a']);
    expect(m.bytes).toBe(0);
  });

  it('serves an entry for ttlMs after it was set, by its clock, then no more', () => {
    const c = clock();
    const m = memo<{ v: number }>({ maxEntries: 8, ttlMs: 30_000, now: c.now });
    m.set('k', { v: 1 });
    c.advance(29_999);
    expect(m.get('k')?.v).toBe(1);
    c.advance(2);
    expect(m.get('k')).toBeUndefined();
    expect(m.size).toBe(0); // the expired entry left on its lookup
  });

  it('takes a time to live per set, over the memo’s', () => {
    const c = clock();
    const m = memo<{ v: number }>({ maxEntries: 8, now: c.now });
    m.set('short', { v: 1 }, 100);
    m.set('forever', { v: 2 });
    c.advance(101);
    expect(m.get('short')).toBeUndefined();
    expect(m.get('forever')?.v).toBe(2);
  });

  it('reads Date.now by default at each lookup, so a test may move it', () => {
    const m = memo<{ v: number }>({ maxEntries: 8, ttlMs: 1_000 });
    const at = Date.now();
    vi.spyOn(Date, 'now').mockReturnValue(at);
    m.set('k', { v: 1 });
    vi.spyOn(Date, 'now').mockReturnValue(at + 1_000);
    expect(m.get('k')?.v).toBe(1);
    vi.spyOn(Date, 'now').mockReturnValue(at + 1_001);
    expect(m.get('k')).toBeUndefined();
  });

  it('counts each lookup of a named memo as a hit or a miss', () => {
    const m = memo<{ v: number }>({ name: 'test_memo_counts', maxEntries: 8 });
    m.get('k');
    m.set('k', { v: 1 });
    m.get('k');
    m.get('k');
    expect(counted('test_memo_counts')).toEqual([2, 1]);
    const names = tally.cache.size;
    memo<{ v: number }>({ maxEntries: 8 }).get('k');
    expect(tally.cache.size).toBe(names);
  });

  it('remember: a miss makes and keeps, a hit does not make, a failure keeps nothing, no key keeps nothing', async () => {
    const m = memo<{ v: number }>({ name: 'test_memo_remember', maxEntries: 8 });
    let made = 0;
    const make = async (): Promise<{ v: number }> => ({ v: ++made });
    expect((await m.remember('k', make)).v).toBe(1);
    expect((await m.remember('k', make)).v).toBe(1);
    await expect(m.remember('bad', () => Promise.reject(new Error('no')))).rejects.toThrow('no');
    expect(m.get('bad')).toBeUndefined();
    expect((await m.remember(undefined, make)).v).toBe(2);
    expect((await m.remember(undefined, make)).v).toBe(3);
    expect(m.size).toBe(1);
    // k: miss, hit; bad: miss, then the get's miss; no key: two misses.
    expect(counted('test_memo_remember')).toEqual([1, 5]);
  });

  it('needs a bound in entries or bytes', () => {
    expect(() => memo({ ttlMs: 1_000 })).toThrow(RangeError);
  });
});
