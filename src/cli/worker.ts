/**
 * `zonal worker`: a process that takes the tasks of jobs from Redis (BullMQ) and answers them, beside the
 * service's replicas (which may take none: ZONAL_JOB_WORKER=0). The configuration comes from the same
 * environment as the service's (ZONAL_REDIS_URL, ZONAL_REDIS_PREFIX, ZONAL_RESULTS_URL, ZONAL_DATA_ROOTS,
 * ZONAL_WORKERS, the limits). SIGTERM or SIGINT: the running task finishes (a task cut short is taken again
 * by another process once its lock lapses), then the process exits 0.
 */
import { loadConfig, type Config } from '../config.ts';
import { createJobsEngine } from '../jobs/engine.ts';
import { createFoldRunner } from '../workers/pool.ts';
import { CliError, EXIT_OK } from './errors.ts';

export interface WorkerOptions {
  env?: Record<string, string | undefined>;
  /** Aborted to stop (Ctrl-C, through main.ts); SIGTERM stops it too. */
  signal: AbortSignal;
  log: (line: string) => void;
}

/** A Redis URL without its credentials, for the log. */
function redisName(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return 'redis';
  }
}

function workerConfig(env: Record<string, string | undefined>): Config {
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (e) {
    throw new CliError(`The environment is not usable: ${(e as Error).message}`);
  }
  if (config.jobs.redisUrl === null) throw new CliError('zonal worker takes tasks from Redis: set ZONAL_REDIS_URL.');
  return config;
}

/** Resolves at the first SIGTERM or abort of `signal`. */
function stopped(signal: AbortSignal): Promise<string> {
  return new Promise((resolve) => {
    const done = (why: string): void => {
      process.off('SIGTERM', onTerm);
      signal.removeEventListener('abort', onAbort);
      resolve(why);
    };
    const onTerm = (): void => done('SIGTERM');
    const onAbort = (): void => done('SIGINT');
    if (signal.aborted) {
      resolve('SIGINT');
      return;
    }
    process.on('SIGTERM', onTerm);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Takes tasks until stopped; exit code 0 once the running task has finished and everything is closed. */
export async function runWorker(options: WorkerOptions): Promise<number> {
  const config = workerConfig(options.env ?? process.env);
  const runner = createFoldRunner(config.workers);
  const engine = await createJobsEngine(config, {
    runner,
    worker: true,
    warn: (message, extra) => options.log(`${message}${extra ? ` ${JSON.stringify(extra)}` : ''}`),
  });
  const j = config.jobs;
  options.log(
    `worker ${process.pid}: taking tasks from ${redisName(j.redisUrl as string)} (prefix ${j.redisPrefix}), ${config.workers} fold thread(s), results in ${j.resultsUrl}`,
  );
  const why = await stopped(options.signal);
  options.log(`worker ${process.pid}: ${why}, letting the running task finish`);
  try {
    await engine.close();
  } finally {
    await runner.close();
  }
  options.log(`worker ${process.pid}: stopped`);
  return EXIT_OK;
}
