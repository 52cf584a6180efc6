/**
 * The compiled build (issue 12): `npm start` builds dist/ when it is stale and runs it with node (no tsx at
 * runtime, the workers run compiled JavaScript too), answers a request, and a SIGTERM sent to the `npm`
 * process reaches the server: it drains and nothing keeps listening.
 */
import { spawn } from 'node:child_process';
import { get, request } from 'node:http';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { FIXTURES } from './helpers/build-app.ts';
import { inflateBackend } from '../src/codecs/deflate.ts';

const ROOT = new URL('..', import.meta.url).pathname;

function fetchText(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });
}

describe('npm start: the compiled server', () => {
  it('builds if needed, serves from dist/ with node alone, and stops on a SIGTERM sent to npm', async () => {
    const npm = spawn('npm', ['start', '--silent'], {
      cwd: ROOT,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ZONAL_DATA_ROOTS: FIXTURES, ZONAL_DRAIN_DELAY_MS: '0', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
    const lines: string[] = [];
    let listening = '';
    const base = await new Promise<string>((resolve) => {
      createInterface({ input: npm.stdout! }).on('line', (line) => {
        lines.push(line);
        const m = /"msg":"Server listening at (http:\/\/127\.0\.0\.1:\d+)"/.exec(line);
        if (m) listening = m[1] as string;
        // The start-up line with the configuration follows the listening line.
        if (listening && line.includes('"msg":"configuration"')) resolve(listening);
      });
    });
    // The process runs dist/server.js under node, without tsx's loader.
    const config = lines
      .map((l) => JSON.parse(l) as { msg?: string; config?: { workers: number }; inflate?: { backend: string; reason: string } })
      .find((l) => l.msg === 'configuration');
    expect(config?.config?.workers).toBeGreaterThan(0);
    // The same line names the workers' inflater (the compiled worker loads the native binding from dist/).
    expect(config?.inflate).toEqual(inflateBackend());
    expect((await fetchText(`${base}/health/live`)).status).toBe(200);
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const payload = JSON.stringify({
        url: `file://${FIXTURES}raster/elev.cog.tif`,
        aoi: { type: 'Point', coordinates: [6.13, 49.61], radius: 2000 },
        stats: ['count'],
      });
      const req = request(
        `${base}/api/v1/zonal-stats/raster`,
        { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } },
        (res) => {
          let b = '';
          res.on('data', (c: Buffer) => (b += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: b }));
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
    expect(status, body).toBe(200);
    expect(JSON.parse(body)).toMatchObject({ band_1: { count: 23 } });
    npm.kill('SIGTERM');
    await exited;
    // Nothing is left listening (the server got the signal, not only npm).
    await new Promise((r) => setTimeout(r, 300));
    await expect(fetchText(`${base}/health/live`)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  }, 120_000);
});
