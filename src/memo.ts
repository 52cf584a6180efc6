/**
 * Bounded in-memory caches, through lru-cache (the only file importing it): at most `maxEntries` entries or
 * `maxBytes` bytes, the least recently used dropped first, each entry optionally for `ttlMs` only. A named
 * memo counts its lookups for /metrics (`zonal_cache_hits_total{cache=name}`, through observe.ts).
 */
import { LRUCache } from 'lru-cache';
import { countCache } from './observe.ts';

export interface MemoOptions<V> {
  /** The `cache` label of its hits and misses in /metrics; without a name lookups are not counted. */
  name?: string;
  /** Most entries kept. */
  maxEntries?: number;
  /** Most bytes kept, as `sizeOf` measures each entry (a positive integer; default 1). */
  maxBytes?: number;
  sizeOf?: (value: V, key: string) => number;
  /** How long an entry is served after it was set, in milliseconds (`set` may give its own); none: until pushed out. */
  ttlMs?: number;
  /** Runs when an entry leaves: pushed out, replaced, deleted, cleared, or found expired. */
  onRemove?: (value: V, key: string) => void;
  /** The clock of `ttlMs`, in milliseconds; default Date.now, read at each use (so a test may move it). */
  now?: () => number;
}

export interface Memo<V> {
  /** The value of `key`, now the most recently used; undefined when absent or expired. Counted as a hit or a miss. */
  get(key: string): V | undefined;
  /** Keeps `value` under `key` (replacing any), for `ttlMs` when given, else for the memo's. */
  set(key: string, value: V, ttlMs?: number): void;
  delete(key: string): void;
  clear(): void;
  /**
   * The value of `key`, else `make()`'s, kept under `key`. A missing key (something that cannot tell a change)
   * is a miss and keeps nothing; a failed `make` keeps nothing. Concurrent misses each make.
   */
  remember(key: string | undefined, make: () => Promise<V>): Promise<V>;
  /** Entries held (expired ones included until they are looked up or pushed out). */
  readonly size: number;
  /** Bytes held, for a memo bounded in bytes (0 otherwise). */
  readonly bytes: number;
}

/** A memo; `maxEntries` or `maxBytes` (or both) must be given, so that none grows without bound. */
export function memo<V extends object>(options: MemoOptions<V>): Memo<V> {
  const { name, maxEntries, maxBytes, sizeOf, ttlMs, onRemove } = options;
  const now = options.now ?? (() => Date.now());
  const limits =
    maxBytes !== undefined
      ? { maxSize: maxBytes, sizeCalculation: sizeOf ?? (() => 1), ...(maxEntries === undefined ? {} : { max: maxEntries }) }
      : maxEntries !== undefined
        ? { max: maxEntries }
        : undefined;
  if (limits === undefined) throw new RangeError('A memo needs maxEntries or maxBytes.');
  const lru = new LRUCache<string, V>({
    ...limits,
    ...(ttlMs === undefined ? {} : { ttl: ttlMs }),
    ...(onRemove === undefined ? {} : { dispose: (value: V, key: string) => onRemove(value, key) }),
    // The clock is read at every lookup (lru-cache would otherwise keep a reading for 1 ms, on a timer).
    ttlResolution: 0,
    perf: { now },
  });
  const get = (key: string): V | undefined => {
    const value = lru.get(key);
    if (name !== undefined) countCache(name, value !== undefined);
    return value;
  };
  return {
    get,
    set(key, value, ttl) {
      lru.set(key, value, ttl === undefined ? undefined : { ttl });
    },
    delete(key) {
      lru.delete(key);
    },
    clear() {
      lru.clear();
    },
    async remember(key, make) {
      const hit = key === undefined ? undefined : get(key);
      if (hit !== undefined) return hit;
      if (key === undefined && name !== undefined) countCache(name, false);
      const made = await make();
      if (key !== undefined) lru.set(key, made);
      return made;
    },
    get size() {
      return lru.size;
    },
    get bytes() {
      return lru.calculatedSize;
    },
  };
}
