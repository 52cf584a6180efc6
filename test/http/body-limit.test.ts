/**
 * Bodies over the limit (issue 12): a client still sending gets the 413 problem+json, never a reset
 * connection. The fuzz that found it: 8 clients at once, each sending a body 8× the limit, many rounds.
 */
import { request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildTestApp } from '../helpers/build-app.ts';

const LIMIT = 1024 * 1024;

describe('413 without resets', () => {
  let app: FastifyInstance;
  let base: URL;
  beforeAll(async () => {
    app = await buildTestApp({ maxBodyBytes: LIMIT });
    base = new URL(await app.listen({ host: '127.0.0.1', port: 0 }));
  });
  afterAll(async () => app.close());

  /** Sends `size` bytes in 64 KiB writes, with or without a Content-Length; resolves with the answer or the socket error. */
  const send = (size: number, chunked: boolean): Promise<{ status?: number; body?: string; error?: string }> =>
    new Promise((resolve) => {
      const headers: Record<string, string | number> = { 'content-type': 'application/json' };
      if (!chunked) headers['content-length'] = size;
      const req = request({ host: base.hostname, port: base.port, path: '/api/v1/zonal-stats/raster', method: 'POST', agent: false, headers }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', (e) => resolve({ error: (e as NodeJS.ErrnoException).code ?? e.message }));
      });
      req.on('error', (e) => resolve({ error: (e as NodeJS.ErrnoException).code ?? e.message }));
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      let sent = 0;
      const pump = (): void => {
        while (sent < size) {
          sent += chunk.length;
          if (!req.write(chunk)) {
            req.once('drain', pump);
            return;
          }
        }
        req.end();
      };
      pump();
    });

  /**
   * A client that writes its whole body before it reads (as many do): a raw socket, `Connection: close`, each
   * write awaited; then the answer read to its end. Resolves with the status line and body, or the socket error.
   */
  const writeThenRead = (size: number): Promise<{ status?: number; body?: string; error?: string }> =>
    new Promise((resolve) => {
      const socket = connect(Number(base.port), base.hostname);
      const received: Buffer[] = [];
      socket.on('data', (c: Buffer) => received.push(c));
      socket.pause();
      socket.on('error', (e) => resolve({ error: (e as NodeJS.ErrnoException).code ?? e.message }));
      const write = (data: string | Buffer): Promise<void> => new Promise((ok, fail) => socket.write(data, (e) => (e ? fail(e) : ok())));
      const head = `POST /api/v1/zonal-stats/raster HTTP/1.1\r\nHost: ${base.host}\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\nConnection: close\r\n\r\n`;
      void (async () => {
        await write(head);
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        for (let sent = 0; sent < size; sent += chunk.length) await write(chunk);
        socket.on('end', () => {
          const text = Buffer.concat(received).toString('utf8');
          const [headers = '', body = ''] = text.split('\r\n\r\n');
          resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(headers)?.[1] ?? 0), body });
        });
        socket.resume();
      })().catch((e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
    });

  it('a client that writes its whole body before it reads gets the 413, not a reset', async () => {
    const answers = await Promise.all(Array.from({ length: 4 }, () => writeThenRead(8 * LIMIT)));
    for (const a of answers) {
      expect(a.error, 'the connection was reset instead of answered').toBeUndefined();
      expect(a.status).toBe(413);
      expect(JSON.parse(a.body as string)).toMatchObject({ status: 413, code: 'payload_too_large' });
    }
  });

  it.each([false, true])(
    '8 clients × 8 × the limit, 12 rounds (chunked %s): every one gets the 413 problem, none a reset',
    async (chunked) => {
      for (let round = 0; round < 12; round++) {
        const answers = await Promise.all(Array.from({ length: 8 }, () => send(8 * LIMIT, chunked)));
        for (const a of answers) {
          expect(a.error, 'the connection was reset instead of answered').toBeUndefined();
          expect(a.status).toBe(413);
          expect(JSON.parse(a.body as string)).toMatchObject({ status: 413, code: 'payload_too_large' });
        }
      }
      // And the service still serves.
      expect((await app.inject({ url: '/health' })).statusCode).toBe(200);
    },
    60_000,
  );
});
