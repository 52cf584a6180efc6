/**
 * STAC Items for zones × time (issue 11): a STAC API searched with the zones' bbox (POST /search, or the
 * search link of its landing page; `next` links followed, by POST with their body, merged when they say
 * so, or by GET), or a static ItemCollection filtered here by bbox, datetime and collections.
 */
import { ZonalError } from '../errors.ts';
import type { JsonClient } from '../source/resolve.ts';
import type { StacItem } from './item.ts';
import { parseInstant } from './time.ts';

export interface SearchRequest {
  url: string;
  collections?: string[];
  /** An RFC 3339 instant or interval (`a/b`, `../b`, `a/..`), as STAC API's `datetime`. */
  datetime?: string;
  /** A CQL2-JSON filter, passed through to the API. */
  filter?: Record<string, unknown>;
  max_items?: number;
}

export interface FoundItem {
  item: StacItem;
  id: string;
  /** The Item's `datetime` (else `start_datetime`), as given and in ms. */
  datetime: string;
  time: number;
  /** [west, south, east, north] or null when the Item has none. */
  bbox: [number, number, number, number] | null;
  /** Base for the Item's relative asset hrefs: its self link, else the page it came in. */
  base: URL;
  /** Its place in the search's answer (the API's order, a static collection's file order), before the sort by time. */
  rank: number;
}

/** Items per page asked of an API. */
const PAGE = 100;

function invalid(detail: string): ZonalError {
  return new ZonalError('invalid_source', detail);
}

function linkOf(doc: Record<string, unknown>, rel: string): Record<string, unknown> | undefined {
  const links = doc['links'];
  if (!Array.isArray(links)) return undefined;
  return links.find((l) => l && typeof l === 'object' && (l as Record<string, unknown>)['rel'] === rel) as Record<string, unknown> | undefined;
}

function found(raw: unknown, page: URL): FoundItem {
  if (!raw || typeof raw !== 'object') throw invalid('A search answer holds something that is not a STAC Item.');
  const o = raw as Record<string, unknown>;
  const props = (o['properties'] ?? {}) as Record<string, unknown>;
  const when = (props['datetime'] ?? props['start_datetime']) as unknown;
  const time = parseInstant(when);
  if (o['type'] !== 'Feature' || typeof o['id'] !== 'string' || !o['assets'] || typeof o['assets'] !== 'object' || time === null) {
    throw invalid(`The search returned an Item${typeof o['id'] === 'string' ? ` ("${o['id']}")` : ''} without an id, assets or a datetime.`);
  }
  const b = o['bbox'];
  const bbox =
    Array.isArray(b) && b.length >= 4 && b.every((x) => typeof x === 'number')
      ? ([b[0], b[1], b[b.length / 2], b[b.length / 2 + 1]] as [number, number, number, number])
      : null;
  const self = linkOf(o, 'self')?.['href'];
  let base = page;
  if (typeof self === 'string') {
    try {
      base = new URL(self, page);
    } catch {
      // keep the page
    }
  }
  return { item: o as StacItem, id: o['id'] as string, datetime: when as string, time, bbox, base, rank: 0 };
}

/** Whether an Item's bbox (null: unknown, taken as meeting) meets box `b`. */
export function itemMeets(a: [number, number, number, number] | null, b: readonly [number, number, number, number]): boolean {
  if (a === null) return true;
  // An Item across the antimeridian (west > east) meets what either of its halves meets.
  const lonMeets = a[0] <= a[2] ? a[0] <= b[2] && b[0] <= a[2] : b[2] >= a[0] || b[0] <= a[2];
  return lonMeets && a[1] <= b[3] && b[1] <= a[3];
}

/** `datetime` as [from, to] ms (open ends infinite); ZonalError for what STAC would not accept. */
function interval(text: string): [number, number] {
  const parts = text.split('/');
  const end = (p: string | undefined, open: number): number => {
    if (p === undefined || p === '' || p === '..') return open;
    const t = parseInstant(p);
    if (t === null) throw new ZonalError('validation_failed', `The search datetime "${text}" is not an RFC 3339 instant or interval (a/b, ../b, a/..).`);
    return t;
  };
  if (parts.length === 1) {
    const t = end(parts[0], Number.NaN);
    return [t, t];
  }
  if (parts.length !== 2) throw new ZonalError('validation_failed', `The search datetime "${text}" is not an RFC 3339 instant or interval (a/b, ../b, a/..).`);
  return [end(parts[0], -Infinity), end(parts[1], Infinity)];
}

/** One page request of a STAC API search: its URL, method and (POST) body. */
type Page = { url: URL; method: 'GET' | 'POST'; body?: Record<string, unknown> };

/** Items gathered so far, and whether more were left behind at the limit. */
type Collected = { items: FoundItem[]; more: boolean };

/**
 * The Items of `req` that meet `bbox`, sorted by time (then id). `cap`: the most Items a request may
 * take; past it (or past max_items when given) the search stops; with no max_items, more Items than the
 * cap is a 422 that says how to narrow the search.
 */
export async function searchItems(
  req: SearchRequest,
  bbox: [number, number, number, number],
  client: JsonClient,
  cap: number,
  signal?: AbortSignal,
): Promise<FoundItem[]> {
  const limit = Math.min(req.max_items ?? cap, cap);
  const window = req.datetime === undefined ? null : interval(req.datetime);
  const searchUrl = parseStacUrl(req.url);
  let page: Page;
  if (/\/search\/?$/.test(searchUrl.pathname)) {
    page = { url: searchUrl, method: 'POST' };
  } else {
    const doc = (await client.json(searchUrl.href, { method: 'GET' }, signal)) as Record<string, unknown>;
    if (!doc || typeof doc !== 'object') throw invalid('The STAC url answers something that is neither a STAC API nor an ItemCollection.');
    if (doc['type'] === 'FeatureCollection') {
      if (req.filter !== undefined)
        throw new ZonalError('validation_failed', 'A static ItemCollection cannot be filtered with CQL2: drop "filter" or search a STAC API.');
      const { items, more } = await collectStatic(doc, searchUrl, staticFilter(req, bbox, window), limit, client, signal);
      return finish(items, more, req, cap);
    }
    page = searchLinkPage(doc, searchUrl);
  }
  const body = searchBody(req, bbox, limit);
  page.body = body;
  if (page.method === 'GET') page.url = withQuery(page.url, body);
  const { items, more } = await collectApi(page, limit, client, signal);
  return finish(items, more, req, cap);
}

/** The request's STAC url, or a validation error pointing at it. */
function parseStacUrl(url: string): URL {
  try {
    return new URL(url);
  } catch {
    throw new ZonalError('validation_failed', 'The STAC url is not a valid URL.', { errors: [{ path: '/stac/url', message: 'is not a valid URL' }] });
  }
}

/** The first search page named by a STAC API landing page's `search` link (POST unless it says GET). */
function searchLinkPage(doc: Record<string, unknown>, landing: URL): Page {
  const search = linkOf(doc, 'search');
  if (!search || typeof search['href'] !== 'string') throw invalid('The STAC url is not a STAC API with item search (no "search" link) nor an ItemCollection.');
  return { url: new URL(search['href'] as string, landing), method: search['method'] === 'GET' ? 'GET' : 'POST' };
}

/** A static collection has no server-side search: collections, datetime and bbox are checked here. */
function staticFilter(req: SearchRequest, bbox: [number, number, number, number], window: [number, number] | null): (raw: unknown, f: FoundItem) => boolean {
  return (raw, f) => {
    const collection = (raw as Record<string, unknown>)['collection'];
    if (req.collections && !req.collections.includes(String(collection))) return false;
    if (window && !(f.time >= window[0] && f.time <= window[1])) return false;
    return itemMeets(f.bbox, bbox);
  };
}

/** The Items of a static ItemCollection that `keep` accepts, pages followed by their next links. */
async function collectStatic(
  first: Record<string, unknown>,
  firstUrl: URL,
  keep: (raw: unknown, f: FoundItem) => boolean,
  limit: number,
  client: JsonClient,
  signal: AbortSignal | undefined,
): Promise<Collected> {
  const out: FoundItem[] = [];
  let more = false;
  let d: Record<string, unknown> | null = first;
  let at = firstUrl;
  while (d !== null) {
    for (const raw of (Array.isArray(d['features']) ? d['features'] : []) as unknown[]) {
      const f = found(raw, at);
      if (!keep(raw, f)) continue;
      if (out.length >= limit) {
        more = true;
        break;
      }
      out.push(f);
    }
    const next = linkOf(d, 'next')?.['href'];
    if (more || typeof next !== 'string') break;
    at = new URL(next, at);
    d = (await client.json(at.href, { method: 'GET' }, signal)) as Record<string, unknown>;
  }
  return { items: out, more };
}

/** The body of an API search: the zones' bbox, a page size and the request's filters. */
function searchBody(req: SearchRequest, bbox: [number, number, number, number], limit: number): Record<string, unknown> {
  const body: Record<string, unknown> = { bbox, limit: Math.min(PAGE, limit) };
  if (req.collections) body['collections'] = req.collections;
  if (req.datetime) body['datetime'] = req.datetime;
  if (req.filter) {
    body['filter'] = req.filter;
    body['filter-lang'] = 'cql2-json';
  }
  return body;
}

/** The Items of an API search from `page` on, following `next` links (POST with their body, merged when they say so, or GET). */
async function collectApi(first: Page, limit: number, client: JsonClient, signal: AbortSignal | undefined): Promise<Collected> {
  const out: FoundItem[] = [];
  let more = false;
  const seen = new Set<string>();
  let page: Page | null = first;
  for (let pages = 0; page !== null; pages++) {
    if (pages > 10_000) throw invalid('The STAC API keeps sending next pages.');
    const doc = (await client.json(page.url.href, page.method === 'POST' ? { method: 'POST', body: page.body } : { method: 'GET' }, signal)) as Record<
      string,
      unknown
    >;
    if (!doc || typeof doc !== 'object' || !Array.isArray(doc['features'])) throw invalid('The STAC API search did not answer an ItemCollection.');
    for (const raw of doc['features'] as unknown[]) {
      const f = found(raw, page.url);
      if (seen.has(`${String((raw as Record<string, unknown>)['collection'])}/${f.id}`)) continue;
      seen.add(`${String((raw as Record<string, unknown>)['collection'])}/${f.id}`);
      if (out.length >= limit) {
        more = true;
        break;
      }
      out.push(f);
    }
    const next = linkOf(doc, 'next');
    if (more || !next || typeof next['href'] !== 'string' || (doc['features'] as unknown[]).length === 0) break;
    page = nextPage(next, page);
  }
  return { items: out, more };
}

/** The page a `next` link names: POST with its body (merged into the last one when it says so), else GET. */
function nextPage(next: Record<string, unknown>, page: Page): Page {
  const url: URL = new URL(next['href'] as string, page.url);
  if (next['method'] === 'POST') {
    const nextBody = (next['body'] ?? {}) as Record<string, unknown>;
    return { url, method: 'POST', body: next['merge'] === true ? { ...page.body, ...nextBody } : nextBody };
  }
  return { url, method: 'GET' };
}

/** Sorted Items; past the cap without max_items, a 422 that says how to narrow the search. */
function finish(items: FoundItem[], more: boolean, req: SearchRequest, cap: number): FoundItem[] {
  if (more && req.max_items === undefined) {
    throw new ZonalError(
      'too_many_items',
      `The search matches more than ${cap.toLocaleString('en')} Items, the most one request may take: narrow it (collections, datetime, filter) or set max_items.`,
      { limit_items: cap },
    );
  }
  items.forEach((it, rank) => (it.rank = rank));
  return items.sort((a, b) => a.time - b.time || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** A GET search: the body's fields as query parameters (arrays comma-joined, objects as JSON). */
function withQuery(url: URL, body: Record<string, unknown>): URL {
  const u = new URL(url.href);
  for (const [k, v] of Object.entries(body)) u.searchParams.set(k, Array.isArray(v) ? v.join(',') : typeof v === 'object' ? JSON.stringify(v) : String(v));
  return u;
}
