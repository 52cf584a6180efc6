/**
 * FileSource: file:///abs/path inside the configured data roots (contract §6: outside → 403).
 * The path is realpath'd so `..` and symlinks cannot escape; each read opens the real path with
 * O_NOFOLLOW, checks it is still the file that was stat'ed at open, reads positionally and closes,
 * so no descriptor outlives a read. Messages name the URL's basename at most, never a server path.
 */
import { constants } from 'node:fs';
import { open, realpath, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorCode, SourceRangeError, assertReadArgs, throwIfAborted } from './errors.ts';
import { insideRoots } from '../policy.ts';
import { headBySize, SourceError, type ByteSource } from './source.ts';

/** The last segment of a file URL, decoded, for messages. */
function nameOf(url: URL): string {
  const last =
    url.pathname
      .split('/')
      .filter((s) => s !== '')
      .pop() ?? '';
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

function identity(st: Stats): string {
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
}

/** Real paths of the roots that exist (a missing root allows nothing). */
async function realRoots(roots: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const root of roots) {
    try {
      out.push(await realpath(resolve(root)));
    } catch {
      // A configured root that does not exist cannot contain anything.
    }
  }
  return out;
}

export class FileSource implements ByteSource {
  readonly url: URL;
  readonly #path: string;
  readonly #size: number;
  readonly #identity: string;
  readonly #name: string;

  private constructor(url: URL, path: string, st: Stats) {
    this.url = url;
    this.#path = path;
    this.#size = st.size;
    this.#identity = identity(st);
    this.#name = nameOf(url);
  }

  /**
   * Opens `url` (file:///abs/path) if its real path lies inside one of `dataRoots` (themselves
   * realpath'd). Throws SourceError: `forbidden` outside the roots or for a URL with a host,
   * `not_found` when missing, a directory, or not a regular file.
   */
  static async open(url: URL, dataRoots: readonly string[], signal?: AbortSignal): Promise<FileSource> {
    const name = nameOf(url);
    if (url.protocol !== 'file:') throw new SourceError('forbidden', 'Only file:// URLs can be read from disk.');
    let lexical: string;
    try {
      lexical = fileURLToPath(url);
    } catch {
      throw new SourceError('forbidden', 'The file URL must be file:///absolute/path without a host.');
    }
    const roots = await realRoots(dataRoots);
    throwIfAborted(signal);
    let real: string;
    try {
      real = await realpath(lexical);
    } catch (e) {
      // A missing file is "not found" only where the caller may look; elsewhere it is simply refused,
      // so the answer does not reveal what exists outside the roots.
      const lexicallyInside = insideRoots(resolve(lexical), [...roots, ...dataRoots.map((r) => resolve(r))]);
      if (!lexicallyInside) throw forbidden(name);
      throw missing(name, e);
    }
    if (!insideRoots(real, roots)) throw forbidden(name);
    let st: Stats;
    try {
      st = await stat(real);
    } catch (e) {
      throw missing(name, e);
    }
    throwIfAborted(signal);
    if (!st.isFile()) throw new SourceError('not_found', `The source "${name}" is not a file.`);
    return new FileSource(url, real, st);
  }

  size(signal?: AbortSignal): Promise<number> {
    try {
      throwIfAborted(signal);
      return Promise.resolve(this.#size);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** Exactly `length` bytes from `offset`; `changed` when the file was replaced or modified since open. */
  async read(offset: number, length: number, signal?: AbortSignal): Promise<ArrayBuffer> {
    assertReadArgs(offset, length);
    throwIfAborted(signal);
    if (offset + length > this.#size) throw new SourceRangeError(offset, length, this.#size);
    let fh;
    try {
      fh = await open(this.#path, constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch (e) {
      throw missing(this.#name, e);
    }
    try {
      if (identity(await fh.stat()) !== this.#identity) {
        throw new SourceError('changed', `The file "${this.#name}" changed while it was being read; retry the request.`);
      }
      const buf = new Uint8Array(length);
      let done = 0;
      while (done < length) {
        throwIfAborted(signal);
        const { bytesRead } = await fh.read(buf, done, length - done, offset + done);
        if (bytesRead === 0) {
          throw new SourceError('changed', `The file "${this.#name}" became shorter while it was being read.`);
        }
        done += bytesRead;
      }
      throwIfAborted(signal);
      return buf.buffer;
    } catch (e) {
      if (e instanceof SourceError || e instanceof DOMException || signal?.aborted) throw e;
      throw new SourceError('upstream_failed', `The file "${this.#name}" could not be read.`);
    } finally {
      await fh.close();
    }
  }

  head(maxLength: number, signal?: AbortSignal): Promise<ArrayBuffer> {
    return headBySize(this, maxLength, signal);
  }

  /** Device, inode, size and modification time as stat'ed at open. */
  validator(): string {
    return this.#identity;
  }

  location(): URL {
    return this.url;
  }
}

function forbidden(name: string): SourceError {
  return new SourceError('forbidden', `The file "${name}" is outside the data folders this service may read (an operator lists them in ZONAL_DATA_ROOTS).`);
}

function missing(name: string, e: unknown): SourceError {
  const code = errorCode(e);
  if (code === 'EACCES' || code === 'EPERM') {
    return new SourceError('not_found', `The file "${name}" cannot be opened by this service.`);
  }
  if (code === 'ELOOP') return new SourceError('not_found', `The file "${name}" is a symbolic link loop.`);
  return new SourceError('not_found', `The file "${name}" was not found.`);
}
