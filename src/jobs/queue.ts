/**
 * The tasks of jobs, queued: in this process (local-queue.ts) or on BullMQ (redis.ts). A queue runs a
 * task's handler and tries it again, after a growing wait, when the handler throws TryAgain, until the
 * last attempt; a process that dies mid-task leaves its task to be taken again (BullMQ's stalled check).
 */
import type { TaskSpec } from './model.ts';

export interface Attempt {
  /** 1 for the first try. */
  number: number;
  /** No try comes after this one: the handler must settle the task (answer it, or fail it for good). */
  final: boolean;
}

export type TaskHandler = (task: TaskSpec, attempt: Attempt) => Promise<void>;

/** Thrown by a handler whose task may pass on a later try (an upstream failure). */
export class TryAgain extends Error {}

export interface TaskQueue {
  add(tasks: readonly TaskSpec[]): Promise<void>;
  /** Forgets the job's tasks no one has taken yet (a dismissal); running ones stop by their own check. */
  drop(jobId: string, tasks: number): Promise<void>;
  /** Tasks waiting or running. */
  depth(): Promise<number>;
  /** Runs queued tasks with `handler` from now on, `concurrency` at a time in this process. */
  consume(handler: TaskHandler, concurrency: number): void;
  close(): Promise<void>;
}
