/**
 * Redis for jobs (ZONAL_REDIS_URL): the one file importing ioredis and BullMQ. The client for records fails
 * soon while Redis is unreachable (one retry, a command timeout), so a submission or a status read answers
 * 503 within seconds instead of hanging; BullMQ's worker keeps its own blocking connection and reconnects by itself.
 * Tasks are BullMQ jobs with the id `<job id>_<task index>`, so a task queued twice is one task; a process
 * that dies mid-task leaves it locked until its lock lapses (ZONAL_JOB_LOCK_MS), then the stalled check puts
 * it back in the queue for another process.
 */
import { Redis } from 'ioredis';
import { Queue, Worker, type Job } from 'bullmq';
import type { JobsConfig } from '../config.ts';
import type { TaskSpec } from './model.ts';
import type { TaskHandler, TaskQueue } from './queue.ts';

export type RedisClient = Redis;

/** The records' client: commands fail at once while Redis is down; it reconnects in the background. */
export function connectRedis(url: string): Redis {
  const redis = new Redis(url, {
    // Commands sent while it connects wait for it (a refused first command made a just-started replica answer
    // 503), but never long: one retry, and at most COMMAND_TIMEOUT_MS each.
    maxRetriesPerRequest: 1,
    commandTimeout: COMMAND_TIMEOUT_MS,
    connectTimeout: 2_000,
    retryStrategy: (times) => Math.min(times * 200, 2_000),
  });
  // Reported through the failing commands; an unhandled 'error' event would end the process.
  redis.on('error', () => undefined);
  return redis;
}

const QUEUE = 'zonal-tasks';
/** How long one command to Redis may take before the caller is told it is unreachable, ms. */
const COMMAND_TIMEOUT_MS = 3_000;
/** How long a closing process waits for its running task, ms. */
const CLOSE_GRACE_MS = 10_000;

export class BullTaskQueue implements TaskQueue {
  readonly #queue: Queue;
  readonly #workers: Worker[] = [];

  /** `reachable`: whether Redis answers now (the records' client is connected). */
  constructor(
    private readonly config: JobsConfig,
    private readonly reachable: () => boolean,
  ) {
    const url = config.redisUrl as string;
    this.#queue = new Queue(QUEUE, {
      connection: { url, maxRetriesPerRequest: 1, commandTimeout: COMMAND_TIMEOUT_MS, connectTimeout: 2_000 },
      prefix: `${config.redisPrefix}bull`,
    });
    this.#queue.on('error', () => undefined);
  }

  async add(tasks: readonly TaskSpec[]): Promise<void> {
    const { attempts, retryMs } = this.config;
    await this.#queue.addBulk(
      tasks.map((task) => ({
        name: 'task',
        data: task,
        opts: {
          jobId: `${task.jobId}_${task.index}`,
          attempts,
          backoff: { type: 'exponential', delay: retryMs },
          removeOnComplete: true,
          removeOnFail: true,
        },
      })),
    );
  }

  async drop(jobId: string, tasks: number): Promise<void> {
    for (let i = 0; i < tasks; i++) {
      // A running (locked) task cannot be removed; it stops by its own check of the job's status.
      await this.#queue.remove(`${jobId}_${i}`).catch(() => 0);
    }
  }

  async depth(): Promise<number> {
    const counts = await this.#queue.getJobCounts('waiting', 'delayed', 'active', 'prioritized');
    return Object.values(counts).reduce((a, b) => a + b, 0);
  }

  consume(handler: TaskHandler, concurrency: number): void {
    const { attempts, lockMs, redisUrl, redisPrefix } = this.config;
    const worker = new Worker(
      QUEUE,
      async (job: Job) => {
        const number = job.attemptsMade + 1;
        await handler(job.data as TaskSpec, { number, final: number >= attempts });
      },
      {
        connection: { url: redisUrl as string, maxRetriesPerRequest: null },
        prefix: `${redisPrefix}bull`,
        concurrency,
        lockDuration: lockMs,
        stalledInterval: lockMs,
        maxStalledCount: 10,
      },
    );
    worker.on('error', () => undefined);
    this.#workers.push(worker);
  }

  /**
   * Lets a running task finish (up to CLOSE_GRACE_MS; a task cut short is taken again once its lock lapses),
   * then lets go of Redis. With Redis unreachable, at once (a graceful close would wait for it).
   */
  async close(): Promise<void> {
    const graceful = this.reachable();
    const workers = Promise.all(this.#workers.map((w) => w.close(!graceful)));
    workers.catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_GRACE_MS)));
    if ((await Promise.race([workers.then(() => 'closed'), late])) !== 'closed') await Promise.all(this.#workers.map((w) => w.close(true)));
    clearTimeout(timer);
    await this.#queue.close().catch(() => undefined);
  }
}
