/**
 * The jobs: a submission checked and cut into tasks, each task run by whichever process takes it, a job's
 * status from its counted tasks, its rows read back part by part in input order, dismissal, the sweep of
 * jobs past their time. The same code whether records and tasks live in this process or in Redis (engine.ts
 * chooses the store and the queue).
 */
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { ZonalError } from '../errors.ts';
import { tally, countJob, countTask } from '../observe.ts';
import type { JobsConfig } from '../config.ts';
import type { AnswerDeps } from '../zonal/answer.ts';
import type { Question, ZoneInput, ZoneOutcome } from '../zonal/model.ts';
import { parseStatNames } from '../stats/names.ts';
import { isFinal, PROCESSES, taskRanges, type JobRecord, type ProcessId, type Subscriber, type TaskResult, type TaskSpec, type ZonesRef } from './model.ts';
import type { JobStore } from './store.ts';
import { TryAgain, type Attempt, type TaskQueue } from './queue.ts';
import type { ResultsStore } from './results.ts';
import { mayPass, problemOf, runTask, writeFailedTask } from './task.ts';
import { rowsOf } from './rows.ts';

/** A checked submission: the question, where its zones are, and how its rows are written back. */
export interface Submission {
  processId: ProcessId;
  question: Question;
  radius?: number | undefined;
  includeGeometry: boolean;
  /** Inline zones, or a zones file and how many zones it has. */
  zones: { inline: ZoneInput[] } | { href: string; type?: string | undefined; count: number };
  subscriber?: Subscriber | undefined;
}

export interface JobsDeps {
  config: JobsConfig;
  store: JobStore;
  queue: TaskQueue;
  results: ResultsStore;
  /** The use cases' dependencies for one task, with its abort signal. */
  answerDeps(signal: AbortSignal): AnswerDeps;
  /** Tells a subscriber URL of a change (a POST of the status document); never throws. */
  notify(url: string, record: JobRecord): Promise<void>;
  /** Where a job's zones are (for its tasks). */
  now?: () => Date;
}

/** How often a running task asks whether its job was dismissed, ms. */
const DISMISS_POLL_MS = 1_000;

export class Jobs {
  constructor(private readonly deps: JobsDeps) {}

  #now(): string {
    return (this.deps.now?.() ?? new Date()).toISOString();
  }

  /** Records the job and queues its tasks: 429 when too many jobs are active. */
  async submit(s: Submission): Promise<JobRecord> {
    const { config, store, queue } = this.deps;
    const count = 'inline' in s.zones ? s.zones.inline.length : s.zones.count;
    if (count > config.maxZones) {
      throw new ZonalError(
        'too_many_zones',
        `The job has ${count.toLocaleString('en')} zones, above the limit of ${config.maxZones.toLocaleString('en')} zones per job.`,
        {
          limit_zones: config.maxZones,
          zones: count,
        },
      );
    }
    if (count === 0) throw new ZonalError('validation_failed', 'The job has no zones: give at least one feature.');
    // What a request refuses before reading anything is refused at submission, not after every task ran.
    const stats = (s.question as { stats?: string[] }).stats;
    if (stats) parseStatNames(stats, s.question.kind.startsWith('vector') ? 'vector' : 'raster');
    const at = this.#now();
    const size = s.question.kind === 'raster-stac-search' ? Math.min(config.taskZones, 1_000) : config.taskZones;
    const ranges = taskRanges(count, size);
    const record: JobRecord = {
      id: randomUUID(),
      processId: s.processId,
      status: 'accepted',
      message: `Queued: ${count.toLocaleString('en')} zone(s) in ${ranges.length.toLocaleString('en')} task(s).`,
      created: at,
      updated: at,
      zones: count,
      tasks: ranges.length,
      tasksDone: 0,
      zonesDone: 0,
      failedZones: 0,
      failedTasks: 0,
      keyName: PROCESSES[s.processId].keyName,
      includeGeometry: s.includeGeometry,
      subscriber: s.subscriber,
    };
    if (!(await store.create(record, { maxActive: config.maxActive, ttlSeconds: config.ttlSeconds }))) {
      throw new ZonalError(
        'too_many_jobs',
        `${config.maxActive} jobs are queued or running, the most this service takes at once: submit again when one has finished.`,
      );
    }
    const ref: ZonesRef = 'inline' in s.zones ? { inline: true } : { inline: false, href: s.zones.href, type: s.zones.type };
    const tasks = ranges.map(([start, end], index): TaskSpec => ({
      jobId: record.id,
      index,
      start,
      end,
      question: s.question,
      radius: s.radius,
      ...(ref.inline ? { zones: (s.zones as { inline: ZoneInput[] }).inline.slice(start, end) } : { ref: { href: ref.href, type: ref.type } }),
    }));
    await queue.add(tasks);
    tally.jobs.submitted += 1;
    return record;
  }

  async get(id: string): Promise<JobRecord> {
    const record = await this.deps.store.get(id);
    if (!record) throw noSuchJob(id);
    return record;
  }

  list(limit: number, after?: string) {
    return this.deps.store.list(limit, after);
  }

  /** Stops the job (its running tasks within a second or so), deletes its results; the record stays, dismissed, until its time is up. */
  async dismiss(id: string): Promise<JobRecord> {
    const before = await this.get(id);
    const record = (await this.deps.store.dismiss(id, this.#now())) as JobRecord;
    if (before.status !== 'dismissed') {
      countJob('dismissed');
      await this.deps.queue.drop(id, record.tasks);
      await this.deps.results.deleteJob(id);
    }
    return record;
  }

  /** The job's rows in input order, read part by part; 404 until it has finished, 410 once dismissed. */
  async rows(id: string): Promise<{ record: JobRecord; rows: AsyncGenerator<ZoneOutcome> }> {
    const record = await this.get(id);
    if (record.status === 'dismissed') throw new ZonalError('job_dismissed', `Job ${id} was dismissed; its results were deleted.`);
    if (!isFinal(record.status)) {
      throw new ZonalError(
        'result_not_ready',
        `Job ${id} is ${record.status} (${record.zonesDone.toLocaleString('en')} of ${record.zones.toLocaleString('en')} zones): its results are not ready yet.`,
        {
          type: 'http://www.opengis.net/def/exceptions/ogcapi-processes-1/1.0/result-not-ready',
        },
      );
    }
    const results = this.deps.results;
    async function* rows(): AsyncGenerator<ZoneOutcome> {
      for (let part = 0; part < record.tasks; part++) yield* rowsOf(results.readPart(id, part));
    }
    return { record, rows: rows() };
  }

  /** Runs one task (the queue's handler): skipped when its job is gone or final; TryAgain while an upstream failure may pass. */
  readonly handle = async (task: TaskSpec, attempt: Attempt): Promise<void> => {
    let result: TaskResult | undefined;
    try {
      result = await this.#answer(task, attempt);
    } catch (e) {
      // The last try failed outside the zones' own answers (the job store, the results store): the task still
      // ends, its zones with the error, so that the job does not wait for it until its time to live runs out.
      if (!attempt.final || e instanceof TryAgain) throw e;
      result = await writeFailedTask(task, problemOf(e), this.deps.results);
    }
    if (!result) return;
    countTask(result.failed ? 'failed' : 'answered');
    await this.#settle(task, result);
  };

  /** The task's zones answered and written, or undefined when the job is gone, final or dismissed meanwhile. */
  async #answer(task: TaskSpec, attempt: Attempt): Promise<TaskResult | undefined> {
    const { store, results } = this.deps;
    const record = await store.get(task.jobId);
    if (!record || isFinal(record.status)) return undefined;
    await store.start(task.jobId, this.#now());
    const controller = new AbortController();
    // Every read, worker task and cache wait of the task listens to this one signal (as a request's does).
    setMaxListeners(256, controller.signal);
    const watch = setInterval(() => {
      store.get(task.jobId).then(
        (r) => r?.status === 'dismissed' && controller.abort(new Error('dismissed')),
        () => undefined,
      );
    }, DISMISS_POLL_MS);
    try {
      return await runTask(task, {
        answer: this.deps.answerDeps(controller.signal),
        results,
        zonesFileMaxBytes: this.deps.config.zonesFileMaxBytes,
        onProgress: (n) => void store.progress(task.jobId, task.index, n).catch(() => undefined),
      });
    } catch (e) {
      if (controller.signal.aborted) return undefined;
      if (mayPass(e) && !attempt.final) {
        tally.jobs.retries += 1;
        throw new TryAgain(problemOf(e).detail);
      }
      return await writeFailedTask(task, problemOf(e), results);
    } finally {
      clearInterval(watch);
    }
  }

  /** Counts the task; the one call that finishes the job tells its subscriber. */
  async #settle(task: TaskSpec, result: TaskResult): Promise<void> {
    const { store, results } = this.deps;
    const done = await store.taskDone(task.jobId, task.index, result, this.#now());
    if (!done || done.record.status === 'dismissed') {
      // Dismissed while this task ran: its part goes too.
      await results.deleteJob(task.jobId);
      return;
    }
    const { record, finished } = done;
    const s = record.subscriber;
    if (finished) {
      countJob(record.status);
      const url = record.status === 'successful' ? s?.successUri : s?.failedUri;
      if (url) await this.deps.notify(url, record);
    } else if (s?.inProgressUri) {
      await this.deps.notify(s.inProgressUri, record);
    }
  }

  /** Removes the jobs created more than the TTL ago, with their results. */
  async sweep(): Promise<number> {
    const { store, results, config } = this.deps;
    const before = new Date((this.deps.now?.() ?? new Date()).getTime() - config.ttlSeconds * 1000);
    const ids = await store.expired(before);
    for (const id of ids) {
      await results.deleteJob(id);
      await store.remove(id);
    }
    return ids.length;
  }

  /** For /metrics: jobs queued or running, tasks waiting or running. */
  async gauges(): Promise<{ active: number; depth: number }> {
    return { active: await this.deps.store.active(), depth: await this.deps.queue.depth() };
  }
}

function noSuchJob(id: string): ZonalError {
  return new ZonalError('no_such_job', `There is no job ${id} (job ids are given when a job is submitted; a job is kept for its time to live, then removed).`, {
    type: 'http://www.opengis.net/def/exceptions/ogcapi-processes-1/1.0/no-such-job',
  });
}
