/**
 * `--server`: the zones are sent in chunks, as FeatureCollections, to running services
 * (`POST {server}/api/v1/zonal-stats/{raster|vector}`, NDJSON answers), a few chunks at a time, the
 * servers taken in turn; 502, 503, 504, a dropped connection or a cut answer is tried again (on the next
 * server) after an exponential backoff. Each chunk's zone indexes are put back in the whole file's
 * numbering, and the outcomes are handed out in input order.
 */
import type { ZoneInput as Zone, ZoneOutcome, ZoneError } from '../zonal/model.ts';
import type { StatsResponse } from '../zonal/model.ts';
import { raceAbort } from '../source/errors.ts';
import { CliError } from './errors.ts';
import type { Job } from './job.ts';

export interface RemoteOptions {
  servers: readonly string[];
  /** Zones per request. */
  chunk: number;
  /** Requests in flight. */
  concurrency: number;
  /** Tries after the first, for 502/503/504 and connection errors. */
  retries: number;
  signal: AbortSignal;
  /** First backoff, doubled at each try (default 250 ms). */
  backoffMs?: number;
}

const RETRY_STATUS = new Set([502, 503, 504]);
const MAX_BACKOFF_MS = 10_000;
const MAX_RETRY_AFTER_MS = 30_000;

/** A failure worth another try (with the reason, for the final message). */
class Retryable extends Error {
  constructor(
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** A --server URL as the base of the service's paths (ending in /); a CliError when it is no http(s) URL. */
export function serverBase(server: string): URL {
  let base: URL;
  try {
    base = new URL(server.endsWith('/') ? server : `${server}/`);
  } catch {
    throw new CliError(`--server ${server} is not a URL (for example http://localhost:3000).`);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new CliError(`--server ${server} must be an http or https URL.`);
  return base;
}

function endpoint(server: string, kind: Job['kind']): URL {
  return new URL(`api/v1/zonal-stats/${kind}`, serverBase(server));
}

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export function retryAfterMs(header: string | null): number | undefined {
  if (header === null) return undefined;
  const seconds = Number(header);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds * 1000, MAX_RETRY_AFTER_MS) : undefined;
}

export async function problemDetail(res: Response): Promise<string> {
  const text = await res.text().catch(() => '');
  try {
    const p = JSON.parse(text) as { detail?: unknown; title?: unknown };
    if (typeof p.detail === 'string') return p.detail;
    if (typeof p.title === 'string') return p.title;
  } catch {
    // not a problem document
  }
  return text.trim().slice(0, 200) || res.statusText;
}

interface Line {
  index?: unknown;
  statistics?: StatsResponse;
  error?: ZoneError;
}

/** A zone error's detail names the zone by its index in the request ("Zone 3's Polygon …"): the whole file's index instead. */
function renumbered(error: ZoneError, local: number, index: number): ZoneError {
  const prefix = `Zone ${local}`;
  if (local === index || !error.detail.startsWith(prefix) || /^\d/.test(error.detail.slice(prefix.length))) return error;
  return { ...error, detail: `Zone ${index}${error.detail.slice(prefix.length)}` };
}

/** One chunk answered by one server (one try). */
async function askOnce(url: URL, job: Job, zones: readonly Zone[], signal: AbortSignal): Promise<ZoneOutcome[]> {
  const features = zones.map((z) => ({ type: 'Feature', geometry: z.geometry ?? null, properties: null }));
  const body = JSON.stringify({ ...job.body, aoi: { type: 'FeatureCollection', features } });
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/x-ndjson' }, body, signal });
  } catch (e) {
    if (signal.aborted) throw signal.reason;
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    throw new Retryable(`${url.origin} could not be reached (${cause?.code ?? cause?.message ?? (e as Error).message})`);
  }
  if (RETRY_STATUS.has(res.status))
    throw new Retryable(`${url.origin} answered ${res.status}: ${await problemDetail(res)}`, retryAfterMs(res.headers.get('retry-after')));
  if (res.status !== 200) throw new CliError(`The server ${url.origin} refused the request (${res.status}): ${await problemDetail(res)}`);
  let text: string;
  try {
    text = await res.text();
  } catch (e) {
    if (signal.aborted) throw signal.reason;
    throw new Retryable(`${url.origin}'s answer was cut (${(e as Error).message})`);
  }
  const outcomes: ZoneOutcome[] = [];
  for (const raw of text.split('\n')) {
    if (raw.trim() === '') continue;
    let line: Line;
    try {
      line = JSON.parse(raw) as Line;
    } catch {
      throw new Retryable(`${url.origin}'s answer was cut or is not NDJSON`);
    }
    if (line.index === undefined && line.error) {
      // The request failed after its first zones were sent.
      const message = `${url.origin} failed while answering (${line.error.status} ${line.error.code}): ${line.error.detail}`;
      if (RETRY_STATUS.has(line.error.status)) throw new Retryable(message);
      throw new CliError(`The server ${message}.`);
    }
    const local = line.index;
    const zone = typeof local === 'number' ? zones[local] : undefined;
    if (zone === undefined || local !== outcomes.length)
      throw new CliError(`The server ${url.origin} answered a zone the request did not send (index ${String(local)}).`);
    outcomes.push(line.error ? { zone, error: renumbered(line.error, local, zone.index) } : { zone, statistics: line.statistics as StatsResponse });
  }
  if (outcomes.length !== zones.length) throw new Retryable(`${url.origin} answered ${outcomes.length} of ${zones.length} zones (the answer was cut)`);
  return outcomes;
}

/** The zones cut into chunks of `size`, one request each. */
function chunksOf(zones: readonly Zone[], size: number): Zone[][] {
  const chunks: Zone[][] = [];
  for (let i = 0; i < zones.length; i += size) chunks.push(zones.slice(i, i + size));
  return chunks;
}

/** A chunk with its tries: the k-th chunk starts on server k (round robin), each retry moves to the next after a backoff. */
async function answerChunk(
  urls: readonly URL[],
  job: Job,
  chunk: readonly Zone[],
  k: number,
  options: RemoteOptions,
  signal: AbortSignal,
): Promise<ZoneOutcome[]> {
  const backoff = options.backoffMs ?? 250;
  let last = '';
  for (let attempt = 0; attempt <= options.retries; attempt++) {
    const url = urls[(k + attempt) % urls.length] as URL;
    try {
      return await askOnce(url, job, chunk, signal);
    } catch (e) {
      if (!(e instanceof Retryable)) throw e;
      last = e.message;
      if (attempt === options.retries) break;
      const delay = Math.min(MAX_BACKOFF_MS, backoff * 2 ** attempt) * (0.75 + Math.random() * 0.5);
      await sleep(Math.max(delay, e.retryAfterMs ?? 0), signal);
    }
  }
  const first = (chunk[0] as Zone).index;
  const tries = options.retries + 1;
  throw new CliError(
    `Zones ${first}–${first + chunk.length - 1} were not answered after ${tries} ${tries === 1 ? 'try' : 'tries'}: ${last.replace(/\.$/, '')}.`,
  );
}

/** What the workers and the in-order hand-out share while a run's chunks are answered. */
interface ChunkRun {
  readonly chunks: Zone[][];
  /** Each started chunk's answer, until it is handed out. */
  readonly settled: (Promise<ZoneOutcome[]> | undefined)[];
  /** The next chunk to start. */
  next: number;
  /** The next chunk to hand out. */
  handed: number;
  /** How far past the next chunk handed out one may start (bounded memory). */
  readonly ahead: number;
  /** Workers waiting for the hand-out to move on. */
  waiting: (() => void)[];
  /** Tells the hand-out that a chunk was started. */
  started: () => void;
  /**
   * Aborted with the first failure (a chunk's, or the caller's abort). A signal, not a promise: each wait
   * listens only while it waits, where a race against a pending promise would keep every chunk's outcomes.
   */
  readonly failed: AbortSignal;
  /** Records a failure: the first one aborts `failed`. */
  readonly fail: (e: unknown) => void;
}

/** A run's shared state, nothing started yet. */
function chunkRun(chunks: Zone[][], concurrency: number): ChunkRun {
  const failure = new AbortController();
  const fail = (e: unknown): void => failure.abort(e);
  return {
    chunks,
    settled: new Array(chunks.length),
    next: 0,
    handed: 0,
    ahead: 4 * concurrency,
    waiting: [],
    started: () => undefined,
    failed: failure.signal,
    fail,
  };
}

/** Wakes the workers waiting for the hand-out to move on (or for the run to stop). */
function wakeAll(run: ChunkRun): void {
  const w = run.waiting;
  run.waiting = [];
  for (const f of w) f();
}

/** One worker: takes the chunks in order, never more than `ahead` past the hand-out; a failure stops all. */
async function chunkWorker(run: ChunkRun, answer: (k: number) => Promise<ZoneOutcome[]>, signal: AbortSignal, stop: AbortController): Promise<void> {
  for (;;) {
    if (signal.aborted) return;
    const k = run.next;
    if (k >= run.chunks.length) return;
    if (k >= run.handed + run.ahead) {
      await new Promise<void>((r) => run.waiting.push(r));
      continue;
    }
    run.next++;
    const p = answer(k);
    run.settled[k] = p;
    p.catch(() => undefined);
    run.started();
    try {
      await p;
    } catch (e) {
      run.fail(e);
      stop.abort();
      return;
    }
  }
}

export async function* remoteOutcomes(job: Job, zones: readonly Zone[], options: RemoteOptions): AsyncGenerator<ZoneOutcome> {
  const urls = options.servers.map((s) => endpoint(s, job.kind));
  if (urls.length === 0) throw new CliError('--server needs at least one URL.');
  const stop = new AbortController();
  const signal = AbortSignal.any([options.signal, stop.signal]);
  const run = chunkRun(chunksOf(zones, options.chunk), options.concurrency);
  const answer = (k: number): Promise<ZoneOutcome[]> => answerChunk(urls, job, run.chunks[k] as Zone[], k, options, signal);
  // Stopped from outside (Ctrl-C): whatever the workers wait for.
  const onAbort = (): void => {
    run.fail(options.signal.reason);
    wakeAll(run);
  };
  options.signal.addEventListener('abort', onAbort, { once: true });
  const workers = Array.from({ length: Math.min(options.concurrency, run.chunks.length) }, () => chunkWorker(run, answer, signal, stop));
  try {
    // Outcomes go out in input order, each chunk as soon as it and all before it are answered.
    while (run.handed < run.chunks.length) {
      while (run.settled[run.handed] === undefined) await raceAbort(new Promise<void>((r) => (run.started = r)), run.failed);
      const outcomes = await raceAbort(run.settled[run.handed] as Promise<ZoneOutcome[]>, run.failed);
      run.settled[run.handed] = undefined;
      run.handed++;
      wakeAll(run);
      yield* outcomes;
    }
  } finally {
    options.signal.removeEventListener('abort', onAbort);
    stop.abort();
    wakeAll(run);
    await Promise.allSettled(workers);
  }
}
