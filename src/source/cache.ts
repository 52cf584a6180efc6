/**
 * withReadCache: a process-wide read cache bounded in bytes (Config.cacheBytes). Entries are keyed by
 * URL + validator (ETag / Last-Modified / file identity) and hold exactly the ranges that were read:
 * no block rounding, so the cache never makes us read more than asked. A read lying fully inside a
 * cached range is served from it; failed reads are never stored; identical concurrent reads share one
 * upstream read. A source whose validator is not yet known (its first read) always reads upstream,
 * which pins the validator, so a changed object is never mixed with stale cached bytes.
 */
import { versionKey } from './source.ts';
import { memo, type Memo } from '../memo.ts';
import { countCache } from '../observe.ts';
import type { ByteSource } from './source.ts';

interface Flight {
  promise: Promise<ArrayBuffer>;
  ctl: AbortController;
  /** Callers waiting now (aborted ones leave). */
  waiting: number;
  /** Callers that ever waited. */
  takers: number;
}

interface Entry {
  group: string;
  offset: number;
  data: ArrayBuffer;
}

/** The largest range kept is this fraction of the cache (256 KiB of the default 64 MiB; see put). */
const ADMIT_FRACTION = 256;

/**
 * LRU of byte ranges bounded in total bytes (a memo bounded by bytes; the index by object below finds the
 * ranges that contain a read, which a lookup by exact key could not).
 */
export class ReadCache {
  readonly maxBytes: number;
  /** Keyed by group + offset + length; a range that leaves it leaves the group index too. */
  readonly #lru: Memo<Entry>;
  /** group (url + validator) → its entries, for containment lookups. */
  readonly #groups = new Map<string, Set<Entry>>();
  readonly #inflight = new Map<string, Flight>();

  /** Largest range stored (see put). */
  readonly maxEntryBytes: number;

  constructor(maxBytes: number, options: { admitFraction?: number } = {}) {
    this.maxBytes = maxBytes;
    this.maxEntryBytes = maxBytes / (options.admitFraction ?? ADMIT_FRACTION);
    this.#lru = memo<Entry>({ maxBytes, sizeOf: (e) => e.data.byteLength, onRemove: (e) => this.#unindex(e) });
  }

  /** Bytes currently held. */
  get bytes(): number {
    return this.#lru.bytes;
  }

  /** A copy of `length` bytes at `offset` when some cached range of `group` contains them. */
  get(group: string, offset: number, length: number): ArrayBuffer | undefined {
    const hit = this.#find(group, offset, length);
    countCache('source_bytes', hit !== undefined);
    return hit;
  }

  #find(group: string, offset: number, length: number): ArrayBuffer | undefined {
    const set = this.#groups.get(group);
    if (set === undefined) return undefined;
    for (const e of set) {
      if (e.offset <= offset && offset + length <= e.offset + e.data.byteLength) {
        this.#lru.get(keyOf(e)); // now the most recently used
        return e.data.slice(offset - e.offset, offset - e.offset + length);
      }
    }
    return undefined;
  }

  /**
   * Stores `data` read at `offset` (the cache owns it from now on: callers get copies). Ranges larger than
   * 1/ADMIT_FRACTION of the cache are not stored: one request over many zones reads hundreds of MB of
   * tiles once each, and would otherwise push out every header the cache holds (the decoded-tile cache in
   * the workers keeps what repeated requests reuse).
   */
  put(group: string, offset: number, data: ArrayBuffer): boolean {
    if (data.byteLength === 0 || data.byteLength > this.maxEntryBytes) return false;
    const entry: Entry = { group, offset, data };
    // A range stored again replaces the old one, which leaves the index through onRemove first.
    this.#lru.set(keyOf(entry), entry);
    let set = this.#groups.get(group);
    if (set === undefined) this.#groups.set(group, (set = new Set()));
    set.add(entry);
    return true;
  }

  /**
   * Runs `fetch` once for concurrent callers with the same `key`. The shared fetch gets its own signal,
   * aborted only when every caller waiting for it has aborted; each caller's abort rejects its own
   * promise at once.
   */
  shared(key: string, fetch: (signal: AbortSignal) => Promise<ArrayBuffer>, signal?: AbortSignal): Promise<ArrayBuffer> {
    return this.sharedFlight(key, fetch, signal).then((f) => f.data);
  }

  /**
   * As `shared`, also telling whether this caller was the flight's only taker (then, unless the cache
   * kept the bytes, the caller may have them without a copy).
   */
  sharedFlight(key: string, fetch: (signal: AbortSignal) => Promise<ArrayBuffer>, signal?: AbortSignal): Promise<{ data: ArrayBuffer; alone: boolean }> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    let flight = this.#inflight.get(key);
    if (flight === undefined) {
      const ctl = new AbortController();
      const created: Flight = { promise: Promise.resolve(new ArrayBuffer(0)), ctl, waiting: 0, takers: 0 };
      created.promise = fetch(ctl.signal).finally(() => {
        if (this.#inflight.get(key) === created) this.#inflight.delete(key);
      });
      // The shared promise may reject after every caller left; that must not be an unhandled rejection.
      created.promise.catch(() => undefined);
      this.#inflight.set(key, created);
      flight = created;
    }
    const taken = flight;
    return wait(taken, signal, () => {
      // Nobody waits any more: stop the upstream read and let a later caller start afresh.
      if (this.#inflight.get(key) === taken) this.#inflight.delete(key);
      taken.ctl.abort(signal?.reason);
    }).then((data) => ({ data, alone: taken.waiting === 1 && taken.takers === 1 }));
  }

  /** Drops everything (tests). */
  clear(): void {
    this.#lru.clear();
    this.#groups.clear();
  }

  #unindex(e: Entry): void {
    const set = this.#groups.get(e.group);
    set?.delete(e);
    if (set?.size === 0) this.#groups.delete(e.group);
  }
}

function keyOf(e: { group: string; offset: number; data: ArrayBuffer }): string {
  return `${e.group}\n${e.offset}\n${e.data.byteLength}`;
}

let shared: ReadCache | undefined;

/** The process-wide read cache, if one was made (metrics). */
export function currentReadCache(): ReadCache | undefined {
  return shared;
}

/**
 * The process-wide cache of `maxBytes` (Config.cacheBytes), created on first use; undefined when
 * `maxBytes` is 0 (caching disabled). A later call with another size replaces it (tests).
 */
export function sharedReadCache(maxBytes: number): ReadCache | undefined {
  if (maxBytes <= 0) return undefined;
  if (shared?.maxBytes !== maxBytes) shared = new ReadCache(maxBytes);
  return shared;
}

let sources = 0;

/**
 * Wraps `source` with `cache` (none: returned as is). Reads return fresh copies, so callers may
 * transfer or modify them. Reads with an AbortSignal still share an in-flight read; each caller's
 * abort rejects only its own promise.
 */
export function withReadCache(source: ByteSource, cache: ReadCache | undefined): ByteSource {
  if (cache === undefined) return source;
  const id = `#${++sources}`;
  const cached: ByteSource = {
    url: source.url,
    size: (signal) => source.size(signal),
    async read(offset, length, signal) {
      const group = versionKey(source);
      if (group !== undefined) {
        const hit = cache.get(group, offset, length);
        if (hit !== undefined) return hit;
      }
      // Before the validator is known reads are private to this source (key with its id).
      const flightKey = `${group ?? `${source.url.href}\n${id}`}\n${offset}\n${length}`;
      let kept = false;
      const { data, alone } = await cache.sharedFlight(
        flightKey,
        async (shared) => {
          const got = await source.read(offset, length, shared);
          const known = versionKey(source);
          if (known !== undefined) kept = cache.put(known, offset, got);
          return got;
        },
        signal,
      );
      // A copy unless the bytes are this caller's alone (not kept, nobody else waited for them).
      return alone && !kept ? data : data.slice(0);
    },
    async head(maxLength, signal) {
      // Once the validator is known the size is too: an ordinary (cacheable) read.
      if (source.validator() !== undefined) return cached.read(0, Math.min(maxLength, await source.size(signal)), signal);
      const got = await source.head(maxLength, signal);
      const known = versionKey(source);
      // A copy only when the cache keeps these bytes (a cube's chunks, larger than a kept range, are not copied).
      return known !== undefined && cache.put(known, 0, got) ? got.slice(0) : got;
    },
    validator: () => source.validator(),
    location: () => source.location(),
  };
  return cached;
}

/** Waits for `flight` on behalf of one caller; `abandon` runs when the last waiting caller aborts. */
function wait(flight: Flight, signal: AbortSignal | undefined, abandon: () => void): Promise<ArrayBuffer> {
  flight.waiting += 1;
  flight.takers += 1;
  if (signal === undefined) return flight.promise;
  return new Promise<ArrayBuffer>((resolve, reject) => {
    let settled = false;
    const onAbort = (): void => {
      settled = true;
      flight.waiting -= 1;
      if (flight.waiting === 0) abandon();
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    flight.promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        if (!settled) resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        if (!settled) reject(e);
      },
    );
  });
}
