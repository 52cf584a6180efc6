/**
 * `--server URL --job`: the zones as ONE job of the service (OGC API – Processes) instead of requests in
 * chunks: submitted to the first server (`POST {URL}/processes/zonal-stats-{kind}/execution`, the zones inline
 * as a FeatureCollection, or a zones file by reference), its status polled (every second, growing to five)
 * to drive the bar, then its results downloaded in the output's format (by Accept) and written as they come.
 * The job's id is printed at once, so a run cut short can be picked up with curl; Ctrl-C dismisses the job
 * (DELETE) before stopping, unless it has already finished.
 */
import type { Format } from '../formats/index.ts';
import type { ZoneInput } from '../zonal/model.ts';
import { CliError, EXIT_OK, EXIT_ZONE_ERRORS } from './errors.ts';
import type { Job } from './job.ts';
import { checkOutput, writeBytes } from './output.ts';
import { createProgress, type Progress } from './progress.ts';
import { problemDetail, retryAfterMs, serverBase, sleep } from './remote.ts';

/** The job's zones: read here and sent inline, or a zones file the service reads itself. */
export type JobZones = { inline: readonly ZoneInput[] } | { href: string; type?: string | undefined };

export interface JobClientOptions {
  server: string;
  /** An output format's name (formats/). */
  format: string;
  output?: string | undefined;
  cwd: string;
  /** Whether to draw the bar (it is drawn only on a terminal anyway). */
  progress: boolean;
  /** Tries after the first of a call that met 502/503/504 or a refused connection. */
  retries: number;
  /** First backoff before such a try, ms (doubled at each next one). */
  retryDelay: number;
  signal: AbortSignal;
  /** Where the job's id and the summary line go (stderr). */
  log: (line: string) => void;
  /** First wait between two status reads and the longest one, ms (default 1 s and 5 s). */
  pollMs?: number;
  maxPollMs?: number;
}

/** The part of the OGC status document read here. */
interface Status {
  jobID: string;
  status: 'accepted' | 'running' | 'successful' | 'failed' | 'dismissed';
  message: string;
  progress: number;
  zones: number;
  failedZones: number;
}

const RETRY_STATUS = new Set([502, 503, 504]);
const MAX_BACKOFF_MS = 10_000;

/**
 * One call to the service, tried again after 502/503/504 (Retry-After honoured) or a connection error; a POST
 * only when the connection was refused (a request that may have arrived is not sent twice).
 */
async function call(url: URL, init: RequestInit, o: JobClientOptions, what: string): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    let why: string;
    let waitMs = 0;
    try {
      const res = await fetch(url, { ...init, signal: o.signal });
      if (!RETRY_STATUS.has(res.status)) return res;
      why = `${url.origin} answered ${res.status}: ${await problemDetail(res)}`;
      waitMs = retryAfterMs(res.headers.get('retry-after')) ?? 0;
    } catch (e) {
      if (o.signal.aborted) throw o.signal.reason;
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      why = `${url.origin} could not be reached (${cause?.code ?? cause?.message ?? (e as Error).message})`;
      if (init.method === 'POST' && cause?.code !== 'ECONNREFUSED') attempt = o.retries;
    }
    if (attempt >= o.retries) throw new CliError(`${what}: ${why.replace(/\.$/, '')}.`);
    const backoff = Math.min(MAX_BACKOFF_MS, o.retryDelay * 2 ** attempt) * (0.75 + Math.random() * 0.5);
    await sleep(Math.max(backoff, waitMs), o.signal);
  }
}

/** A zone as a feature of the FeatureCollection sent: its geometry, id and properties, as the file gave them. */
function featureOf(zone: ZoneInput): Record<string, unknown> {
  return { type: 'Feature', ...(zone.id === null ? {} : { id: zone.id }), properties: zone.properties, geometry: zone.geometry ?? null };
}

/** Submits the job: the request body as --server sends it, each zone's geometry written back with its row. */
async function submit(base: URL, job: Job, zones: JobZones, o: JobClientOptions): Promise<Status> {
  const aoi =
    'href' in zones
      ? { href: zones.href, ...(zones.type === undefined ? {} : { type: zones.type }) }
      : { type: 'FeatureCollection', features: zones.inline.map(featureOf) };
  const body = JSON.stringify({ inputs: { ...job.body, include_geometry: true, aoi } });
  const url = new URL(`processes/zonal-stats-${job.kind}/execution`, base);
  const headers = { 'content-type': 'application/json', accept: 'application/json' };
  const res = await call(url, { method: 'POST', headers, body }, o, 'The job could not be submitted');
  if (res.status !== 201) throw new CliError(`The server ${base.origin} refused the job (${res.status}): ${await problemDetail(res)}`);
  const status = (await res.json()) as Status;
  if (typeof status.jobID !== 'string') throw new CliError(`The server ${base.origin} answered the submission without a job id.`);
  return status;
}

/** Reads the job's status until it has finished (successful), the bar following its progress; a failed or dismissed job is a CliError. */
async function waitFor(jobUrl: URL, id: string, progress: Progress, o: JobClientOptions): Promise<Status> {
  let wait = o.pollMs ?? 1_000;
  for (;;) {
    await sleep(wait, o.signal);
    wait = Math.min(o.maxPollMs ?? 5_000, wait * 1.5);
    const res = await call(jobUrl, { headers: { accept: 'application/json' } }, o, `The status of job ${id} could not be read`);
    if (res.status !== 200) throw new CliError(`The server ${jobUrl.origin} answered ${res.status} for job ${id}: ${await problemDetail(res)}`);
    const status = (await res.json()) as Status;
    progress.set(Math.floor((status.progress * status.zones) / 100));
    if (status.status === 'successful') return status;
    if (status.status === 'failed' || status.status === 'dismissed') throw new CliError(`Job ${id} ${status.status}: ${status.message}`);
  }
}

/** Tells the service to stop the job (after Ctrl-C), not for longer than a few seconds. */
async function dismiss(jobUrl: URL, id: string, o: JobClientOptions): Promise<void> {
  try {
    const res = await fetch(jobUrl, { method: 'DELETE', headers: { accept: 'application/json' }, signal: AbortSignal.timeout(5_000) });
    o.log(res.ok ? `job ${id} dismissed` : `job ${id} could not be dismissed (${res.status}: ${await problemDetail(res)})`);
  } catch (e) {
    o.log(`job ${id} could not be dismissed (${(e as Error).message})`);
  }
}

/** The job's results in the output's format, written as they come. */
async function download(jobUrl: URL, id: string, format: Format, o: JobClientOptions): Promise<void> {
  const url = new URL(`${jobUrl.href}/results`);
  const res = await call(url, { headers: { accept: format.accepts[0] as string } }, o, `The results of job ${id} could not be read`);
  if (res.status !== 200 || res.body === null) {
    throw new CliError(`The server ${url.origin} answered ${res.status} for the results of job ${id}: ${await problemDetail(res)}`);
  }
  const type = (res.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== format.mediaType.split(';')[0]) {
    await res.body.cancel();
    throw new CliError(`The server ${url.origin} answered the results of job ${id} as ${type || 'no media type'}, not ${format.mediaType}.`);
  }
  try {
    await writeBytes(o.format, o.output, res.body, o.cwd);
  } catch (e) {
    if (o.signal.aborted) throw o.signal.reason;
    if (e instanceof CliError) throw e;
    throw new CliError(`The results of job ${id} were cut (${(e as Error).message}): download them again from ${url.href}.`);
  }
}

/** Runs the zones as one job of the first server: 0 every zone answered, 1 some zone with an error; a problem throws (exit 2). */
export async function runJob(job: Job, zones: JobZones, o: JobClientOptions): Promise<number> {
  const base = serverBase(o.server);
  const format = checkOutput(o.format, o.output);
  const submitted = await submit(base, job, zones, o);
  const id = submitted.jobID;
  const jobUrl = new URL(`jobs/${encodeURIComponent(id)}`, base);
  o.log(`job ${id} submitted; poll ${jobUrl.href}`);
  const progress = createProgress(submitted.zones, o.progress);
  let done: Status;
  try {
    done = await waitFor(jobUrl, id, progress, o);
  } catch (e) {
    if (o.signal.aborted) await dismiss(jobUrl, id, o);
    throw e;
  } finally {
    progress.stop();
  }
  await download(jobUrl, id, format, o);
  if (done.failedZones > 0) {
    o.log(
      `${done.failedZones.toLocaleString('en')} of ${done.zones.toLocaleString('en')} zones could not be answered; each has its error in the output (error_code, error_detail).`,
    );
    return EXIT_ZONE_ERRORS;
  }
  return EXIT_OK;
}
