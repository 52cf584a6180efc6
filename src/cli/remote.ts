/**
 * `--server`: the zones are sent in chunks, as FeatureCollections, to running services
 * (`POST {server}/api/v1/zonal-stats/{raster|vector}`, NDJSON answers), a few chunks at a time, the
 * servers taken in turn; 502, 503, 504, a dropped connection or a cut answer is tried again (on the next
 * server) after an exponential backoff. Each chunk's zone indexes are put back in the whole file's
 * numbering, and the outcomes are handed out in input order.
 */
import type { ZoneInput as Zone, ZoneOutcome, ZoneError } from '../zonal/model.ts';
import type { StatsResponse } from '../zonal/model.ts';
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

function endpoint(server: string, kind: Job['kind']): URL {
  let base: URL;
  try {
    base = new URL(server.endsWith('/') ? server : `${server}/`);
  } catch {
    throw new CliError(`--server ${server} is not a URL (for example http://localhost:3000).`);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new CliError(`--server ${server} must be an http or https URL.`);
  return new URL(`api/v1/zonal-stats/${kind}`, base);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
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

function retryAfterMs(header: string | null): number | undefined {
  if (header === null) return undefined;
  const seconds = Number(header);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds * 1000, MAX_RETRY_AFTER_MS) : undefined;
}

async function problemDetail(res: Response): Promise<string> {
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

export async function* remoteOutcomes(job: Job, zones: readonly Zone[], options: RemoteOptions): AsyncGenerator<ZoneOutcome> {
  const urls = options.servers.map((s) => endpoint(s, job.kind));
  if (urls.length === 0) throw new CliError('--server needs at least one URL.');
  const backoff = options.backoffMs ?? 250;
  const stop = new AbortController();
  const signal = AbortSignal.any([options.signal, stop.signal]);
  const chunks: Zone[][] = [];
  for (let i = 0; i < zones.length; i += options.chunk) chunks.push(zones.slice(i, i + options.chunk));

  /** A chunk with its tries: the k-th chunk starts on server k (round robin), each retry moves to the next. */
  const answerChunk = async (k: number): Promise<ZoneOutcome[]> => {
    const chunk = chunks[k] as Zone[];
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
  };

  // Workers take chunks in order; a chunk is not started more than 4 × concurrency chunks ahead of the
  // next one handed out (bounded memory); outcomes go out in input order. The first failure stops all.
  const settled: (Promise<ZoneOutcome[]> | undefined)[] = new Array(chunks.length);
  let failNow!: (e: unknown) => void;
  const failed = new Promise<never>((_, reject) => (failNow = reject));
  failed.catch(() => undefined);
  let failure = false;
  let next = 0;
  let handed = 0;
  let waiting: (() => void)[] = [];
  const wakeAll = (): void => {
    const w = waiting;
    waiting = [];
    for (const f of w) f();
  };
  const ahead = 4 * options.concurrency;
  let started: () => void = () => undefined;
  const worker = async (): Promise<void> => {
    for (;;) {
      if (signal.aborted) return;
      const k = next;
      if (k >= chunks.length) return;
      if (k >= handed + ahead) {
        await new Promise<void>((r) => waiting.push(r));
        continue;
      }
      next++;
      const p = answerChunk(k);
      settled[k] = p;
      p.catch(() => undefined);
      started();
      try {
        await p;
      } catch (e) {
        if (!failure) {
          failure = true;
          failNow(e);
        }
        stop.abort();
        return;
      }
    }
  };
  // Stopped from outside (Ctrl-C): whatever the workers wait for.
  const onAbort = (): void => {
    if (!failure) {
      failure = true;
      failNow(options.signal.reason);
    }
    wakeAll();
  };
  options.signal.addEventListener('abort', onAbort, { once: true });
  const workers = Array.from({ length: Math.min(options.concurrency, chunks.length) }, worker);
  try {
    while (handed < chunks.length) {
      while (settled[handed] === undefined) await Promise.race([new Promise<void>((r) => (started = r)), failed]);
      const outcomes = await Promise.race([settled[handed] as Promise<ZoneOutcome[]>, failed]);
      settled[handed] = undefined;
      handed++;
      wakeAll();
      yield* outcomes;
    }
  } finally {
    options.signal.removeEventListener('abort', onAbort);
    stop.abort();
    wakeAll();
    await Promise.allSettled(workers);
  }
}
