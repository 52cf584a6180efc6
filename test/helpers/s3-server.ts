/**
 * A real S3-compatible server for source tests: s3rver (devDependency) on 127.0.0.1, port 0, storing
 * in a temporary folder. Objects are uploaded with plain HTTP PUTs (s3rver accepts unsigned requests),
 * so only src/source/s3.ts imports the AWS SDK. s3rver accepts the S3RVER / S3RVER key pair.
 */
import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface S3rverInstance {
  run(): Promise<{ address: string; port: number }>;
  close(): Promise<void>;
}
type S3rverCtor = new (opts: { port: number; address: string; silent: boolean; directory: string; configureBuckets: { name: string }[] }) => S3rverInstance;

const S3rver = createRequire(import.meta.url)('s3rver') as S3rverCtor;

export interface S3Server {
  /** http://127.0.0.1:PORT */
  endpoint: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  bucket: string;
  /** s3://bucket/key */
  url(key: string): string;
  /** Uploads (or replaces) an object. */
  put(key: string, data: Uint8Array | string): Promise<void>;
  close(): Promise<void>;
}

/** Starts s3rver with one bucket (default "test") holding `files` (key → bytes). */
export async function startS3Server(opts: { bucket?: string; files?: Record<string, Uint8Array | string> } = {}): Promise<S3Server> {
  const bucket = opts.bucket ?? 'test';
  const directory = await mkdtemp(join(tmpdir(), 's3rver-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;

  const put = (key: string, data: Uint8Array | string): Promise<void> =>
    new Promise((resolve, reject) => {
      const body = typeof data === 'string' ? Buffer.from(data) : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
      const path = `/${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;
      const req = http.request({ host: '127.0.0.1', port, path, method: 'PUT', headers: { 'content-length': body.byteLength } }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`s3rver PUT ${key}: ${res.statusCode}`))));
      });
      req.on('error', reject);
      req.end(body);
    });

  for (const [key, data] of Object.entries(opts.files ?? {})) await put(key, data);

  return {
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    bucket,
    url: (key) => `s3://${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`,
    put,
    async close() {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/**
 * Points the standard AWS variables (which src/source/s3.ts reads: endpoint, region, and credentials
 * through the SDK's default chain) at a test server; returns the function that restores them.
 */
export function useS3Env(s3: S3Server): () => void {
  const env: Record<string, string> = {
    AWS_ENDPOINT_URL: s3.endpoint,
    AWS_REGION: s3.region,
    AWS_ACCESS_KEY_ID: s3.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
  };
  const saved: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(env)) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
  return () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
}
