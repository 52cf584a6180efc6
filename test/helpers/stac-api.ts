/**
 * A STAC API on loopback for tests (issue 11): a landing page with a POST `search` link, item search by
 * POST /search and GET /search (bbox, datetime instant or interval, collections, limit; pages through
 * `next` links that carry a token, merged into the previous body as STAC API's POST paging does), and a
 * static ItemCollection at /items.json. It logs every request, so tests can see the paging.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StacApi {
  url(path: string): string;
  readonly log: { method: string; path: string; body: Record<string, unknown> | null }[];
  close(): Promise<void>;
}

export type Item = Record<string, unknown> & { id: string; bbox: number[]; collection: string; properties: { datetime: string } & Record<string, unknown> };

function time(t: string): number {
  return Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(t) ? `${t}T00:00:00Z` : t);
}

function inInterval(item: Item, datetime: string | undefined): boolean {
  if (!datetime) return true;
  const t = time(item.properties.datetime);
  const [a, b] = datetime.includes('/') ? datetime.split('/') : [datetime, datetime];
  const lo = a === '..' || a === '' || a === undefined ? -Infinity : time(a);
  const hi = b === '..' || b === '' || b === undefined ? Infinity : time(b);
  return t >= lo && t <= hi;
}

function meets(item: Item, bbox: number[] | undefined): boolean {
  if (!bbox) return true;
  const [w, s, e, n] = item.bbox as [number, number, number, number];
  return w <= (bbox[2] as number) && (bbox[0] as number) <= e && s <= (bbox[3] as number) && (bbox[1] as number) <= n;
}

async function bodyOf(req: IncomingMessage): Promise<Record<string, unknown> | null> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>) : null;
}

export async function startStacApi(items: Item[], options: { latencyMs?: number } = {}): Promise<StacApi> {
  const log: StacApi['log'] = [];
  let origin = '';
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', origin);
      const body = req.method === 'POST' ? await bodyOf(req) : null;
      // A public API's round trip (benchmarks): every answer waits this long.
      if (options.latencyMs) await new Promise((r) => setTimeout(r, options.latencyMs));
      log.push({ method: req.method ?? 'GET', path: url.pathname, body });
      const send = (status: number, doc: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/geo+json' }).end(JSON.stringify(doc));
      };
      if (url.pathname === '/' && req.method === 'GET') {
        send(200, {
          type: 'Catalog',
          id: 'test-api',
          stac_version: '1.0.0',
          description: 'test',
          conformsTo: ['https://api.stacspec.org/v1.0.0/item-search'],
          links: [{ rel: 'search', type: 'application/geo+json', href: `${origin}/search`, method: 'POST' }],
        });
        return;
      }
      if (url.pathname === '/items.json') {
        send(200, { type: 'FeatureCollection', features: items, links: [] });
        return;
      }
      if (url.pathname === '/search') {
        const q: Record<string, unknown> =
          req.method === 'POST'
            ? (body ?? {})
            : {
                bbox: url.searchParams.get('bbox')?.split(',').map(Number),
                datetime: url.searchParams.get('datetime') ?? undefined,
                collections: url.searchParams.get('collections')?.split(','),
                limit: Number(url.searchParams.get('limit') ?? 10),
                token: url.searchParams.get('token') ?? undefined,
              };
        const matching = items.filter(
          (it) =>
            meets(it, q['bbox'] as number[] | undefined) &&
            inInterval(it, q['datetime'] as string | undefined) &&
            (!q['collections'] || (q['collections'] as string[]).includes(it.collection)),
        );
        const limit = Math.max(1, Math.min(Number(q['limit'] ?? 10), 2)); // small pages: the client must follow next links
        const start = Number(q['token'] ?? 0);
        const page = matching.slice(start, start + limit);
        const links =
          start + limit < matching.length ? [{ rel: 'next', href: `${origin}/search`, method: 'POST', body: { token: start + limit }, merge: true }] : [];
        send(200, { type: 'FeatureCollection', features: page, links, numberMatched: matching.length, numberReturned: page.length });
        return;
      }
      send(404, { code: 'NotFound', description: 'no such path' });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (path) => `${origin}${path}`,
    log,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
