/**
 * Job records in Redis (ZONAL_REDIS_URL), so every replica and worker sees the same jobs. A job is a hash;
 * the tasks counted are a set beside it (a task reported twice counts once), the running tasks' progress a
 * hash; the jobs by creation time a sorted set, the active ones a set. Every step several processes race on
 * is one Lua script. The client (ioredis, from redis.ts) fails fast when Redis is unreachable.
 */
import type { RedisClient } from './redis.ts';
import { finalOutcome, type JobRecord, type TaskResult } from './model.ts';
import type { JobStore } from './store.ts';

const CREATE = `
if redis.call('SCARD', KEYS[2]) >= tonumber(ARGV[2]) then return 0 end
redis.call('HSET', KEYS[1], 'record', ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('SADD', KEYS[2], ARGV[4])
redis.call('ZADD', KEYS[3], ARGV[5], ARGV[4])
return 1`;

const START = `
local r = redis.call('HGET', KEYS[1], 'record')
if not r then return 0 end
local rec = cjson.decode(r)
if rec.status ~= 'accepted' then return 0 end
rec.status = 'running'; rec.started = ARGV[1]; rec.updated = ARGV[1]
redis.call('HSET', KEYS[1], 'record', cjson.encode(rec))
return 1`;

// Counts the task once; when it is the last, the final status comes in ARGV (worked out by the caller from the counts returned).
const TASK_DONE = `
local r = redis.call('HGET', KEYS[1], 'record')
if not r then return nil end
if redis.call('SADD', KEYS[2], ARGV[1]) == 0 then return {r, 0} end
local ttl = redis.call('TTL', KEYS[1])
redis.call('EXPIRE', KEYS[2], ttl)
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
redis.call('EXPIRE', KEYS[3], ttl)
local rec = cjson.decode(r)
rec.tasksDone = rec.tasksDone + 1
rec.failedZones = rec.failedZones + tonumber(ARGV[3])
if ARGV[4] == '1' then rec.failedTasks = rec.failedTasks + 1; rec.lastReason = ARGV[6] end
rec.updated = ARGV[5]
redis.call('HSET', KEYS[1], 'record', cjson.encode(rec))
return {cjson.encode(rec), 1}`;

// Sets a final status unless the job already has one; 1 when this call set it.
const FINISH = `
local r = redis.call('HGET', KEYS[1], 'record')
if not r then return 0 end
local rec = cjson.decode(r)
if rec.status == 'successful' or rec.status == 'failed' or rec.status == 'dismissed' then return 0 end
rec.status = ARGV[1]; rec.message = ARGV[2]; rec.finished = ARGV[3]; rec.updated = ARGV[3]
redis.call('HSET', KEYS[1], 'record', cjson.encode(rec))
redis.call('SREM', KEYS[2], rec.id)
return 1`;

export class RedisJobStore implements JobStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  #job(id: string): string {
    return `${this.prefix}job:${id}`;
  }

  #run(script: string, keys: string[], args: (string | number)[]): Promise<unknown> {
    return this.redis.eval(script, keys.length, ...keys, ...args);
  }

  async create(record: JobRecord, limits: { maxActive: number; ttlSeconds: number }): Promise<boolean> {
    const keys = [this.#job(record.id), `${this.prefix}active`, `${this.prefix}jobs`];
    const ok = await this.#run(CREATE, keys, [JSON.stringify(record), limits.maxActive, limits.ttlSeconds, record.id, Date.parse(record.created)]);
    return ok === 1;
  }

  async get(id: string): Promise<JobRecord | undefined> {
    const [[, raw], [, progress]] = (await this.redis
      .multi()
      .hget(this.#job(id), 'record')
      .hvals(`${this.#job(id)}:progress`)
      .exec()) as [[unknown, string | null], [unknown, string[]]];
    return raw ? withProgress(raw, progress) : undefined;
  }

  async list(limit: number, after?: string): Promise<{ jobs: JobRecord[]; next?: string | undefined }> {
    const index = `${this.prefix}jobs`;
    let from = 0;
    if (after !== undefined) {
      const rank = await this.redis.zrevrank(index, after);
      if (rank === null) return { jobs: [] };
      from = rank + 1;
    }
    const ids = await this.redis.zrevrange(index, from, from + limit);
    const page = ids.slice(0, limit);
    const jobs = (await Promise.all(page.map((id) => this.get(id)))).filter((j): j is JobRecord => j !== undefined);
    return { jobs, next: ids.length > limit ? page.at(-1) : undefined };
  }

  async start(id: string, at: string): Promise<void> {
    await this.#run(START, [this.#job(id)], [at]);
  }

  async progress(id: string, task: number, zones: number): Promise<void> {
    const key = `${this.#job(id)}:progress`;
    // Only while the task is not counted: a late report must not undo the task's final count.
    const counted = await this.redis.sismember(`${this.#job(id)}:done`, String(task));
    if (counted === 0)
      await this.redis
        .multi()
        .hset(key, String(task), String(zones))
        .expire(key, 7 * 24 * 3600)
        .exec();
  }

  async taskDone(id: string, task: number, result: TaskResult, at: string): Promise<{ record: JobRecord; finished: boolean } | undefined> {
    const job = this.#job(id);
    const keys = [job, `${job}:done`, `${job}:progress`];
    const args = [task, result.zones, result.failedZones, result.failed ? '1' : '0', at, result.reason ?? ''];
    const out = (await this.#run(TASK_DONE, keys, args)) as [string, number] | null;
    if (!out) return undefined;
    const rec = JSON.parse(out[0]) as JobRecord & { lastReason?: string };
    if (out[1] === 1 && rec.tasksDone === rec.tasks) {
      const { status, message } = finalOutcome(rec, rec.lastReason || undefined);
      const set = await this.#run(FINISH, [job, `${this.prefix}active`], [status, message, at]);
      const record = (await this.get(id)) as JobRecord;
      return { record, finished: set === 1 };
    }
    return { record: (await this.get(id)) as JobRecord, finished: false };
  }

  async dismiss(id: string, at: string): Promise<JobRecord | undefined> {
    const job = this.#job(id);
    const raw = await this.redis.hget(job, 'record');
    if (!raw) return undefined;
    const rec = JSON.parse(raw) as JobRecord;
    if (rec.status !== 'dismissed') {
      // Dismissal wins over any status, so it is set outright (no script: nothing else is kept from the record but its counts).
      const next = { ...rec, status: 'dismissed', message: 'Dismissed: the job was stopped and its results deleted.', finished: at, updated: at };
      await this.redis.multi().hset(job, 'record', JSON.stringify(next)).srem(`${this.prefix}active`, id).exec();
    }
    return this.get(id);
  }

  async active(): Promise<number> {
    return this.redis.scard(`${this.prefix}active`);
  }

  async expired(before: Date): Promise<string[]> {
    return this.redis.zrangebyscore(`${this.prefix}jobs`, '-inf', before.getTime());
  }

  async remove(id: string): Promise<void> {
    const job = this.#job(id);
    await this.redis.multi().del(job, `${job}:done`, `${job}:progress`).zrem(`${this.prefix}jobs`, id).srem(`${this.prefix}active`, id).exec();
  }

  async close(): Promise<void> {}
}

/** The record with its running tasks' progress summed. */
function withProgress(raw: string, progress: string[]): JobRecord {
  const { lastReason: _reason, ...rec } = JSON.parse(raw) as JobRecord & { lastReason?: string };
  let zonesDone = 0;
  for (const n of progress) zonesDone += Number(n);
  return { ...rec, zonesDone };
}
