/** FileSource on real files in a temp folder: roots, `..`, symlinks, missing files, changes, fds. */
import { mkdir, mkdtemp, readdir, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileSource } from '../../src/source/file.ts';
import { bytes, sourceError } from './conformance.ts';

let base: string;
let root: string;
const data = bytes(4_096, 9);

const fileUrl = (p: string): URL => pathToFileURL(p);

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'filesource-')));
  root = join(base, 'data');
  await mkdir(join(root, 'sub'), { recursive: true });
  await mkdir(join(base, 'data2'));
  await mkdir(join(base, 'secret'));
  await writeFile(join(root, 'a.bin'), data);
  await writeFile(join(root, 'sub', 'b.bin'), data);
  await writeFile(join(base, 'data2', 'c.bin'), data);
  await writeFile(join(base, 'secret', 'key.bin'), 'secret');
  await symlink(join(base, 'secret', 'key.bin'), join(root, 'escape.bin'));
  await symlink(join(base, 'secret'), join(root, 'escape-dir'));
  await symlink(join(root, 'sub', 'b.bin'), join(root, 'inner-link.bin'));
  await symlink(root, join(base, 'root-link'));
});

afterAll(() => rm(base, { recursive: true, force: true }));

describe('FileSource', () => {
  it('reads a file inside the root', async () => {
    const src = await FileSource.open(fileUrl(join(root, 'sub', 'b.bin')), [root]);
    expect(await src.size()).toBe(4_096);
    expect([...new Uint8Array(await src.read(100, 8))]).toEqual([...data.subarray(100, 108)]);
  });

  it('follows a symlink that stays inside the root', async () => {
    const src = await FileSource.open(fileUrl(join(root, 'inner-link.bin')), [root]);
    expect(await src.size()).toBe(4_096);
  });

  it("accepts a root that is itself a symlink (roots are realpath'd)", async () => {
    const src = await FileSource.open(fileUrl(join(root, 'a.bin')), [join(base, 'root-link')]);
    expect(await src.size()).toBe(4_096);
  });

  it('refuses a file outside every root', async () => {
    const err = await sourceError(FileSource.open(fileUrl(join(base, 'secret', 'key.bin')), [root]));
    expect(err.reason).toBe('forbidden');
  });

  it('refuses the sibling folder whose name starts like the root (/data2 vs /data)', async () => {
    const err = await sourceError(FileSource.open(fileUrl(join(base, 'data2', 'c.bin')), [root]));
    expect(err.reason).toBe('forbidden');
  });

  it('refuses `..` escapes, literal or percent-encoded', async () => {
    for (const href of [`${pathToFileURL(root).href}/../secret/key.bin`, `${pathToFileURL(root).href}/sub/%2e%2e/%2E%2E/secret/key.bin`]) {
      const err = await sourceError(FileSource.open(new URL(href), [root]));
      expect(err.reason).toBe('forbidden');
    }
  });

  it('refuses a symlink inside the root that points outside', async () => {
    expect((await sourceError(FileSource.open(fileUrl(join(root, 'escape.bin')), [root]))).reason).toBe('forbidden');
    expect((await sourceError(FileSource.open(fileUrl(join(root, 'escape-dir', 'key.bin')), [root]))).reason).toBe('forbidden');
  });

  it('reports a missing file inside the root as not_found', async () => {
    const err = await sourceError(FileSource.open(fileUrl(join(root, 'nope.tif')), [root]));
    expect(err.reason).toBe('not_found');
    expect(err.message).toContain('nope.tif');
  });

  it('reports a missing file outside the roots as forbidden (no probing outside)', async () => {
    const err = await sourceError(FileSource.open(fileUrl(join(base, 'secret', 'nope.tif')), [root]));
    expect(err.reason).toBe('forbidden');
  });

  it('reports a directory as not_found', async () => {
    const err = await sourceError(FileSource.open(fileUrl(join(root, 'sub')), [root]));
    expect(err.reason).toBe('not_found');
  });

  it('refuses file URLs with a host', async () => {
    const err = await sourceError(FileSource.open(new URL('file://server/share/a.bin'), [root]));
    expect(err.reason).toBe('forbidden');
  });

  it('allows nothing when the root does not exist', async () => {
    const err = await sourceError(FileSource.open(fileUrl(join(root, 'a.bin')), [join(base, 'missing-root')]));
    expect(err.reason).toBe('forbidden');
  });

  it('never puts the server path in a message', async () => {
    const errors = await Promise.all([
      sourceError(FileSource.open(fileUrl(join(root, 'nope.tif')), [root])),
      sourceError(FileSource.open(fileUrl(join(base, 'secret', 'key.bin')), [root])),
      sourceError(FileSource.open(fileUrl(join(root, 'sub')), [root])),
      FileSource.open(fileUrl(join(root, 'a.bin')), [root]).then((s) => sourceError(s.read(4_000, 200))),
    ]);
    for (const e of errors) {
      expect(e.message).not.toContain(base);
      expect(e.message).not.toContain(tmpdir());
    }
  });

  it('reports a file rewritten after open as changed', async () => {
    const path = join(root, 'moving.bin');
    await writeFile(path, data);
    const src = await FileSource.open(fileUrl(path), [root]);
    await src.read(0, 10);
    // File times tick at the kernel's coarse clock (a few ms): let it move before rewriting.
    await new Promise((r) => setTimeout(r, 50));
    await writeFile(path, bytes(4_096, 10)); // same size and inode; only the mtime changes
    const err = await sourceError(src.read(0, 10));
    expect(err.reason).toBe('changed');
  });

  it('leaks no file descriptors', async () => {
    const fds = async (): Promise<number> => (await readdir('/proc/self/fd')).length;
    const before = await fds();
    const src = await FileSource.open(fileUrl(join(root, 'a.bin')), [root]);
    await Promise.all(Array.from({ length: 50 }, (_, i) => src.read(i * 10, 10)));
    await sourceError(src.read(4_090, 10));
    expect(await fds()).toBe(before);
  });
});
