/**
 * Decoded tiles kept per thread (like GDAL's block cache): a bytes-bounded LRU keyed by URL, validator,
 * level, tile and plane, so repeated requests over the same tiles (a point asked again, zones side by
 * side) skip decompression. The validator in the key means a changed object is never served from it.
 */
export class TileCache<V> {
  readonly #entries = new Map<string, { value: V; bytes: number }>();
  #bytes = 0;
  hits = 0;
  misses = 0;

  /** `maxBytes` may change between calls (the per-thread share of the configured size). */
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
