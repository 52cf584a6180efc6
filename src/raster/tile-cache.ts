/**
 * A bytes-bounded LRU (like GDAL's block cache) for the process's decoded tiles (raster/decode.ts, held by
 * the main thread, planes on SharedArrayBuffers the workers read) and each worker's coverages
 * (raster/fold-coverage.ts). Keys carry the URL and validator, so a changed object is never served from it.
 */
export class TileCache<V> {
  readonly #entries = new Map<string, { value: V; bytes: number }>();
  #bytes = 0;
  hits = 0;
  misses = 0;

  get(key: string): V | undefined {
    const e = this.#entries.get(key);
    if (e === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    // Most recently used last.
    this.#entries.delete(key);
    this.#entries.set(key, e);
    return e.value;
  }

  /** `maxBytes` comes with each entry: the configured size is known where entries are kept, not where the cache is made. */
  put(key: string, value: V, bytes: number, maxBytes: number): void {
    if (bytes > maxBytes) return;
    const old = this.#entries.get(key);
    if (old) {
      this.#bytes -= old.bytes;
      this.#entries.delete(key);
    }
    this.#entries.set(key, { value, bytes });
    this.#bytes += bytes;
    for (const [k, e] of this.#entries) {
      if (this.#bytes <= maxBytes) break;
      this.#entries.delete(k);
      this.#bytes -= e.bytes;
    }
  }

  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#entries.size;
  }
}
