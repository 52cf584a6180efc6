/** MemorySource: a ByteSource over bytes in memory, for tests and the bundled demo data. */
import { assertReadArgs, SourceRangeError, throwIfAborted } from './errors.ts';
import { headBySize, type ByteSource } from './source.ts';

let instances = 0;

/** A ByteSource over an ArrayBuffer or a view of one; reads return copies. */
export class MemorySource implements ByteSource {
  readonly url: URL;
  readonly #bytes: Uint8Array;
  /** Unique per instance: two memory sources with one URL never share cache entries. */
  readonly #validator = `memory-${++instances}`;

  /** `url` defaults to `memory://source/<n>`. The bytes are used as they are, not copied. */
  constructor(data: ArrayBuffer | ArrayBufferView, url?: URL | string) {
    this.#bytes = data instanceof ArrayBuffer ? new Uint8Array(data) : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    this.url = new URL(url ?? `memory://source/${instances}`);
  }

  size(signal?: AbortSignal): Promise<number> {
    throwIfAborted(signal);
    return Promise.resolve(this.#bytes.byteLength);
  }

  /** Exactly `length` bytes from `offset`; SourceRangeError when the range ends past the end. */
  read(offset: number, length: number, signal?: AbortSignal): Promise<ArrayBuffer> {
    try {
      assertReadArgs(offset, length);
      throwIfAborted(signal);
      if (offset + length > this.#bytes.byteLength) throw new SourceRangeError(offset, length, this.#bytes.byteLength);
      return Promise.resolve(this.#bytes.slice(offset, offset + length).buffer);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  head(maxLength: number, signal?: AbortSignal): Promise<ArrayBuffer> {
    return headBySize(this, maxLength, signal);
  }

  /** Unique per instance: the bytes of one MemorySource never change. */
  validator(): string {
    return this.#validator;
  }

  location(): URL {
    return this.url;
  }
}
