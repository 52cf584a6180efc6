/**
 * Tasks in this process (no ZONAL_REDIS_URL): one at a time, in the order they came, so jobs run one after
 * the other (p-queue, its only import). Tasks are lost when the process stops, as its records are.
 */
import PQueue from 'p-queue';
import type { TaskSpec } from './model.ts';
import { TryAgain, type TaskHandler, type TaskQueue } from './queue.ts';

export class LocalTaskQueue implements TaskQueue {
  readonly #queue = new PQueue({ concurrency: 1 });
  readonly #waiting: TaskSpec[] = [];
  #handler: TaskHandler | undefined;
  #closed = false;

  constructor(private readonly options: { attempts: number; retryMs: number }) {}

  async add(tasks: readonly TaskSpec[]): Promise<void> {
    for (const task of tasks) {
      if (this.#handler) void this.#queue.add(() => this.#run(task));
      else this.#waiting.push(task);
    }
  }

  async drop(): Promise<void> {
    // The handler finds the job dismissed and returns at once.
  }

  async depth(): Promise<number> {
    return this.#queue.size + this.#queue.pending + this.#waiting.length;
  }

  consume(handler: TaskHandler, concurrency: number): void {
    this.#handler = handler;
    this.#queue.concurrency = Math.max(1, concurrency);
    for (const task of this.#waiting.splice(0)) void this.#queue.add(() => this.#run(task));
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#queue.clear();
    await this.#queue.onIdle();
  }

  async #run(task: TaskSpec): Promise<void> {
    const { attempts, retryMs } = this.options;
    for (let n = 1; n <= attempts && !this.#closed; n++) {
      try {
        await (this.#handler as TaskHandler)(task, { number: n, final: n === attempts });
        return;
      } catch (e) {
        if (!(e instanceof TryAgain) || n === attempts) return;
        await new Promise((resolve) => setTimeout(resolve, retryMs * 2 ** (n - 1)));
      }
    }
  }
}
