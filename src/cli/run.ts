/**
 * One `zonal` run: check the request, read the zones, answer them (in process, or by the services given
 * with --server, or as one job of a service with --job), write each outcome as it comes, show progress; the exit code says whether every zone
 * was answered (0) or some zone had an error (1). Problems of the run itself are thrown (exit 2).
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ZoneOutcome } from '../zonal/model.ts';
import { CliError, EXIT_OK, EXIT_ZONE_ERRORS } from './errors.ts';
import { checkJob, type Job } from './job.ts';
import { readZones, ZonesFileError, type ZonesFile, type ZonesOptions } from '../inputs/zones-file.ts';
import { writeOutcomes } from './output.ts';
import { createProgress } from './progress.ts';
import { localOutcomes } from './engine.ts';
import { remoteOutcomes } from './remote.ts';
import { runJob, type JobZones } from './job-client.ts';

export interface RunOptions {
  job: Job;
  /** The zones file (a local path); with `asJob`, either this or `zonesHref`. */
  zones?: string | undefined;
  zonesOptions: ZonesOptions;
  /** --job: the zones as one job of the first server (job-client.ts). */
  asJob?: boolean;
  /** --zones-href: a zones file the server reads itself (with `asJob`), and its media type. */
  zonesHref?: string | undefined;
  zonesType?: string | undefined;
  /** An output format's name (formats/). */
  format: string;
  output?: string;
  /** Zones answered at once (in process) or requests in flight (--server). */
  concurrency: number;
  servers: string[];
  chunk: number;
  retries: number;
  /** First backoff before a retry, in ms. */
  retryDelay: number;
  progress: boolean;
  signal: AbortSignal;
  /** The folder relative paths are relative to. */
  cwd: string;
  /** Where the summary line goes. */
  log: (line: string) => void;
}

/** A source argument as a URL: URLs as they are, local paths as file:// URLs. */
export function sourceUrl(arg: string, cwd = process.cwd()): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(arg) ? arg : pathToFileURL(resolve(cwd, arg)).href;
}

/** The zones file read whole; what the user can fix in it is a CliError (exit 2), in the same words. */
async function zonesOf(options: RunOptions): Promise<ZonesFile> {
  if (options.zones === undefined) throw new CliError('--zones names no file.');
  try {
    return await readZones(options.zones, { ...options.zonesOptions, cwd: options.cwd });
  } catch (e) {
    throw e instanceof ZonesFileError ? new CliError(e.message) : e;
  }
}

/** --job: the zones (read here, or by reference) as one job of the first server. */
async function runAsJob(job: Job, options: RunOptions, showProgress: boolean): Promise<number> {
  const server = options.servers[0];
  if (server === undefined) throw new CliError('--job sends the zones to a service: name it with --server URL.');
  const zones: JobZones = options.zonesHref !== undefined ? { href: options.zonesHref, type: options.zonesType } : { inline: (await zonesOf(options)).zones };
  return runJob(job, zones, {
    server,
    format: options.format,
    output: options.output,
    cwd: options.cwd,
    progress: showProgress,
    retries: options.retries,
    retryDelay: options.retryDelay,
    signal: options.signal,
    log: options.log,
  });
}

export async function run(options: RunOptions): Promise<number> {
  const job = checkJob(options.job);
  // A bar on the terminal where the results are printed would be drawn into them.
  const toTerminal = options.output === undefined && process.stdout.isTTY === true;
  if (options.asJob) return runAsJob(job, options, options.progress && !toTerminal);
  const { zones, unreadable } = await zonesOf(options);
  const progress = createProgress(zones.length, options.progress && !toTerminal);
  let failed = 0;
  const outcomes =
    options.servers.length > 0
      ? remoteOutcomes(job, zones, {
          servers: options.servers,
          chunk: options.chunk,
          concurrency: options.concurrency,
          retries: options.retries,
          backoffMs: options.retryDelay,
          signal: options.signal,
        })
      : localOutcomes(job, zones, { signal: options.signal });
  async function* counted(): AsyncGenerator<ZoneOutcome> {
    for await (const answered of outcomes) {
      // A geometry the zones file could not give is answered as no geometry; its reason is the detail.
      const why = unreadable.get(answered.zone.index);
      const o: ZoneOutcome =
        why !== undefined && answered.error?.code === 'validation_failed' ? { ...answered, error: { ...answered.error, detail: why } } : answered;
      if (o.error) failed++;
      yield o;
      progress.tick();
    }
  }
  try {
    await writeOutcomes(options.format, options.output, counted(), job.kind === 'raster' ? 'band' : 'column', options.cwd);
  } finally {
    progress.stop();
  }
  if (failed > 0) {
    options.log(
      `${failed.toLocaleString('en')} of ${zones.length.toLocaleString('en')} zones could not be answered; each has its error in the output (error_code, error_detail).`,
    );
    return EXIT_ZONE_ERRORS;
  }
  return EXIT_OK;
}
