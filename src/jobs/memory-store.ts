/** Job records in this process (no ZONAL_REDIS_URL): lost when it stops, as its queue is. */
import { finalOutcome, isFinal, type JobRecord } from './model.ts';
import type { JobStore } from './store.ts';

interface Entry {
  record: JobRecord;
  done: Set<number>;
  progress: Map<number, number>;
  lastReason?: string | undefined;
}

export class MemoryJobStore implements JobStore {
  readonly #jobs = new Map<string, Entry>();

  async create(record: JobRecord, limits: { maxActive: number }): Promise<boolean> {
    if ((await this.active()) >= limits.maxActive) return false;
    this.#jobs.set(record.id, { record: { ...record }, done: new Set(), progress: new Map() });
    return true;
  }

  async get(id: string): Promise<JobRecord | undefined> {
    const e = this.#jobs.get(id);
    return e && this.#view(e);
  }

  async list(limit: number, after?: string): Promise<{ jobs: JobRecord[]; next?: string | undefined }> {
    const all = [...this.#jobs.values()].reverse();
    const from = after === undefined ? 0 : all.findIndex((e) => e.record.id === after) + 1;
    const page = from <= 0 && after !== undefined ? [] : all.slice(from, from + limit);
    const next = from + limit < all.length ? page.at(-1)?.record.id : undefined;
    return { jobs: page.map((e) => this.#view(e)), next };
  }

  async start(id: string, at: string): Promise<void> {
    const e = this.#jobs.get(id);
    if (e?.record.status === 'accepted') Object.assign(e.record, { status: 'running', started: at, updated: at });
  }

  async progress(id: string, task: number, zones: number): Promise<void> {
    const e = this.#jobs.get(id);
    if (e && !e.done.has(task)) e.progress.set(task, zones);
  }

  async taskDone(id: string, task: number, result: { zones: number; failedZones: number; failed: boolean; reason?: string | undefined }, at: string) {
    const e = this.#jobs.get(id);
    if (!e) return undefined;
    if (e.done.has(task)) return { record: this.#view(e), finished: false };
    e.done.add(task);
    e.progress.set(task, result.zones);
    const r = e.record;
    r.tasksDone += 1;
    r.failedZones += result.failedZones;
    if (result.failed) {
      r.failedTasks += 1;
      e.lastReason = result.reason;
    }
    r.updated = at;
    let finished = false;
    if (r.tasksDone === r.tasks && !isFinal(r.status)) {
      Object.assign(r, finalOutcome(r, e.lastReason), { finished: at });
      finished = true;
    }
    return { record: this.#view(e), finished };
  }

  async dismiss(id: string, at: string): Promise<JobRecord | undefined> {
    const e = this.#jobs.get(id);
    if (!e) return undefined;
    if (e.record.status !== 'dismissed') {
      Object.assign(e.record, { status: 'dismissed', message: 'Dismissed: the job was stopped and its results deleted.', finished: at, updated: at });
    }
    return this.#view(e);
  }

  async active(): Promise<number> {
    let n = 0;
    for (const e of this.#jobs.values()) if (!isFinal(e.record.status)) n += 1;
    return n;
  }

  async expired(before: Date): Promise<string[]> {
    return [...this.#jobs.values()].filter((e) => Date.parse(e.record.created) < before.getTime()).map((e) => e.record.id);
  }

  async remove(id: string): Promise<void> {
    this.#jobs.delete(id);
  }

  async close(): Promise<void> {}

  #view(e: Entry): JobRecord {
    let zonesDone = 0;
    for (const n of e.progress.values()) zonesDone += n;
    return { ...e.record, zonesDone };
  }
}
