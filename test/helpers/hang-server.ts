/**
 * A loopback HTTP server that accepts every request and never answers, and records what the client does
 * with it: timeout tests assert the outcome (the client gave up and closed the connection) instead of a
 * measured time. Waiting for an event uses no timer, so it works under vi.useFakeTimers too.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

interface HangServer {
  /** Absolute URL of `path` on this server. */
  url(path: string): string;
  readonly origin: string;
  /** Paths of the requests received so far, in order. */
  readonly paths: readonly string[];
  /** How many of them the client has given up on: their connection closed with no answer sent. */
  readonly abandoned: number;
  /** Resolves once `n` requests (in all) have arrived. */
  received(n?: number): Promise<void>;
  /** Resolves once `n` requests (in all) have been abandoned by the client. */
  closedByClient(n?: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts the server on 127.0.0.1, port 0. */
export async function startHangServer(): Promise<HangServer> {
  const paths: string[] = [];
  let abandoned = 0;
  const waiters = new Set<() => void>();
  const changed = (): void => {
    for (const w of [...waiters]) w();
  };
  const until = (pred: () => boolean): Promise<void> =>
    new Promise((resolve) => {
      if (pred()) return resolve();
      const check = (): void => {
        if (!pred()) return;
        waiters.delete(check);
        resolve();
      };
      waiters.add(check);
    });

  const server = http.createServer((req, res) => {
    paths.push(new URL(req.url ?? '/', 'http://x').pathname);
    // Never answer; note when the client closes the connection instead.
    res.once('close', () => {
      if (!res.writableEnded) abandoned += 1;
      changed();
    });
    changed();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: (path) => new URL(path, origin).href,
    origin,
    paths,
    get abandoned() {
      return abandoned;
    },
    received: (n = 1) => until(() => paths.length >= n),
    closedByClient: (n = 1) => until(() => abandoned >= n),
    close() {
      return new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}
