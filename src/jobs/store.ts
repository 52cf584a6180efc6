/**
 * Where job records live: in this process (memory-store.ts) or in Redis (redis.ts), behind one interface
 * that says everything the jobs do with a record. Each step that several processes may race on (a task
 * counted twice, the last task, a dismissal) is one atomic step of the store.
 */
import type { JobRecord, TaskResult } from './model.ts';

export interface JobStore {
  /** Adds the job unless `maxActive` jobs are queued or running (then false). Kept `ttlSeconds`. */
  create(record: JobRecord, limits: { maxActive: number; ttlSeconds: number }): Promise<boolean>;
  get(id: string): Promise<JobRecord | undefined>;
  /** Newest first; `after`: the last id of the previous page. */
  list(limit: number, after?: string): Promise<{ jobs: JobRecord[]; next?: string | undefined }>;
  /** accepted → running (its `started`); any other status is left alone. */
  start(id: string, at: string): Promise<void>;
  /** A running task's zones answered so far (counted in the job's progress until the task is done). */
  progress(id: string, task: number, zones: number): Promise<void>;
  /**
   * Counts a finished task once, however often it is reported. `finished`: this call counted the job's last
   * task and set its final status (so exactly one caller tells the subscriber).
   */
  taskDone(id: string, task: number, result: TaskResult, at: string): Promise<{ record: JobRecord; finished: boolean } | undefined>;
  /** → dismissed, unless already dismissed; the record after, undefined when there is no such job. */
  dismiss(id: string, at: string): Promise<JobRecord | undefined>;
  /** Jobs queued or running. */
  active(): Promise<number>;
  /** Ids of jobs created before `before` (the sweeper removes them and their results). */
  expired(before: Date): Promise<string[]>;
  remove(id: string): Promise<void>;
  close(): Promise<void>;
}
