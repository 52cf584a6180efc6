/**
 * Which jobs engine this process has: without ZONAL_REDIS_URL, records and tasks in this process (one task at
 * a time); with it, records in Redis and tasks on BullMQ, taken by every process that consumes them (each
 * replica unless ZONAL_JOB_WORKER=0, and `zonal worker`). Results go to ZONAL_RESULTS_URL either way. The
 * service, the CLI's worker and the tests build their engine here.
 */
import type { Config } from '../config.ts';
import { ZonalError } from '../errors.ts';
import { jsonClient, openSource as defaultOpenSource } from '../source/resolve.ts';
import type { ReadStats } from '../source/source.ts';
import type { FoldRunner } from '../workers/pool.ts';
import type { AnswerDeps } from '../zonal/answer.ts';
import { Jobs, type JobsDeps } from './jobs.ts';
import { LocalTaskQueue } from './local-queue.ts';
import { MemoryJobStore } from './memory-store.ts';
import { statusDocument, type JobRecord } from './model.ts';
import type { RedisClient } from './redis.ts';
import { isRedisDown } from './redis-down.ts';
import { RedisJobStore } from './redis-store.ts';
import { openResultsStore } from './results.ts';
import type { JobStore } from './store.ts';
import type { TaskQueue } from './queue.ts';

export interface JobsEngine {
  jobs: Jobs;
  /** Where the jobs run, for the start-up log. */
  kind: 'in-process' | 'redis';
  close(): Promise<void>;
}

export interface EngineOptions {
  runner: FoldRunner;
  openSource?: typeof defaultOpenSource;
  /** Take tasks in this process (default: the configuration's ZONAL_JOB_WORKER; always in process without Redis). */
  worker?: boolean;
  /** Where a failed subscriber call is told (the logger). */
  warn?: (message: string, extra?: Record<string, unknown>) => void;
}

/** How often records past their time are removed, ms. */
const SWEEP_MS = 60_000;

/** The jobs engine of a process; ioredis and BullMQ are loaded only where Redis is configured (~9 MB of heap otherwise idle). */
export async function createJobsEngine(config: Config, options: EngineOptions): Promise<JobsEngine> {
  const j = config.jobs;
  const open = options.openSource ?? defaultOpenSource;
  const results = openResultsStore(j.resultsUrl, { timeoutMs: config.upstreamTimeoutMs });
  let store: JobStore;
  let queue: TaskQueue;
  let redis: RedisClient | undefined;
  if (j.redisUrl) {
    const { BullTaskQueue, connectRedis } = await import('./redis.ts');
    redis = connectRedis(j.redisUrl);
    store = guarded(new RedisJobStore(redis, j.redisPrefix));
    const client = redis;
    queue = guardedQueue(new BullTaskQueue(j, () => client.status === 'ready'));
  } else {
    store = new MemoryJobStore();
    queue = new LocalTaskQueue({ attempts: j.attempts, retryMs: j.retryMs });
  }
  const answerDeps = (signal: AbortSignal): AnswerDeps => {
    const stats: ReadStats = { requests: 0, bytes: 0 };
    return {
      config,
      runner: options.runner,
      signal,
      openSource: (url: string) => open(url, config, { stats, signal }),
      json: jsonClient(config, stats),
    };
  };
  const notifier = jsonClient(config, { requests: 0, bytes: 0 });
  const deps: JobsDeps = {
    config: j,
    store,
    queue,
    results,
    answerDeps,
    notify: async (url: string, record: JobRecord) => {
      try {
        await notifier.json(url, { method: 'POST', body: statusDocument(record, '') });
      } catch (e) {
        // A subscriber that answers no JSON still got the call; anything else is worth a line in the log.
        if (!(e instanceof ZonalError && e.code === 'invalid_source'))
          options.warn?.('a job subscriber could not be called', { job: record.id, reason: String(e) });
      }
    },
  };
  const jobs = new Jobs(deps);
  if (!j.redisUrl || (options.worker ?? j.worker)) queue.consume(jobs.handle, 1);
  const sweeper = setInterval(() => void jobs.sweep().catch(() => undefined), SWEEP_MS);
  sweeper.unref();
  return {
    jobs,
    kind: j.redisUrl ? 'redis' : 'in-process',
    async close() {
      clearInterval(sweeper);
      await queue.close();
      await store.close();
      redis?.disconnect();
    },
  };
}

/** Redis unreachable: 503 with the reason in the user's words, never a 500. */
function unavailable(e: unknown): never {
  if (isRedisDown(e))
    throw new ZonalError('jobs_unavailable', 'The job store (Redis) cannot be reached just now; nothing was lost that it kept: retry shortly.');
  throw e;
}

function guarded<T extends object>(target: T): T {
  return new Proxy(target, {
    get(t, key, receiver) {
      const v = Reflect.get(t, key, receiver) as unknown;
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        try {
          const out = (v as (...a: unknown[]) => unknown).apply(t, args);
          return out instanceof Promise ? out.catch(unavailable) : out;
        } catch (e) {
          return unavailable(e);
        }
      };
    },
  });
}

const guardedQueue = guarded<TaskQueue>;
