/** The conformance suite against memory, file, http (loopback server), s3 (s3rver) and the wrappers openSource stacks. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { ReadCache, withReadCache } from '../../src/source/cache.ts';
import { withByteBudget, withCounting } from '../../src/source/counting.ts';
import { FileSource } from '../../src/source/file.ts';
import { HttpSource } from '../../src/source/http.ts';
import { MemorySource } from '../../src/source/memory.ts';
import { S3Source } from '../../src/source/s3.ts';
import { startRangeServer } from '../helpers/range-server.ts';
import type { RangeServer } from '../helpers/range-server.ts';
import { startS3Server } from '../helpers/s3-server.ts';
import type { S3Server } from '../helpers/s3-server.ts';
import { describeConformance } from './conformance.ts';

let dir: string;
let web: RangeServer;
let s3: S3Server;
let n = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'conformance-'));
  web = await startRangeServer();
  s3 = await startS3Server({ bucket: 'conformance' });
});

afterAll(async () => {
  await web.close();
  await s3.close();
  await rm(dir, { recursive: true, force: true });
});

describeConformance('memory', () => ({
  async: false,
  make: (data) => Promise.resolve(new MemorySource(data.slice())),
}));

describeConformance('file', () => ({
  async: true,
  async make(data) {
    const path = join(dir, `f${++n}.bin`);
    await writeFile(path, data);
    return FileSource.open(pathToFileURL(path), [dir]);
  },
  missing: () => FileSource.open(pathToFileURL(join(dir, 'missing.bin')), [dir]),
}));

// As openSource stacks them: counting under the read cache, under the byte budget.
describeConformance('wrappers over http', () => ({
  async: true,
  make(data) {
    const path = `/w${++n}.bin`;
    web.setFile(path, data);
    const raw = new HttpSource(new URL(web.url(path)), httpOptions);
    return Promise.resolve(withByteBudget(withReadCache(withCounting(raw, { requests: 0, bytes: 0 }), new ReadCache(1 << 20)), 1 << 30));
  },
  missing: () => Promise.resolve(withReadCache(new HttpSource(new URL(web.url('/missing.bin')), httpOptions), new ReadCache(1 << 20))),
}));

const httpOptions = { allowPrivateNetworks: true, timeoutMs: 5_000, maxBytes: 1 << 30 };

describeConformance('http', () => ({
  async: true,
  make(data) {
    const path = `/h${++n}.bin`;
    web.setFile(path, data);
    return Promise.resolve(new HttpSource(new URL(web.url(path)), httpOptions));
  },
  missing: () => Promise.resolve(new HttpSource(new URL(web.url('/missing.bin')), httpOptions)),
}));

describeConformance('s3', () => {
  const opts = () => ({ endpoint: s3.endpoint, region: s3.region, credentials: s3.credentials, timeoutMs: 5_000, maxBytes: 1 << 30 });
  return {
    async: true,
    async make(data) {
      const key = `dir/o${++n}.bin`;
      await s3.put(key, data);
      return new S3Source(new URL(s3.url(key)), opts());
    },
    missing: () => Promise.resolve(new S3Source(new URL(s3.url('dir/missing.bin')), opts())),
  };
});
