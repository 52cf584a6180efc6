/**
 * Jobs benchmark driver (issue 23: OGC API – Processes jobs on Redis/BullMQ). Run through
 * `bash bench/jobs/run.sh`, which makes the data and installs what is missing first. See bench/jobs/README.md.
 *
 * Every process is the service as `npm start` runs it (node dist/server.js, configured by the environment;
 * run.sh builds dist/ when stale) or, once it has landed, `zonal worker` (node bin/zonal.mjs worker), on 127.0.0.1,
 * over the Sentinel-2-layout COG bench/data/s2_B04.tif (10980² UInt16, 1024 px tiles, DEFLATE + predictor 2),
 * with jobs in a dedicated Redis database under a prefix of this run's own (its keys deleted at the end) and
 * results in a temporary folder (file://, deleted at the end).
 *
 *   1. throughput: 100,000 random 1 km squares.
 *      a. the anchor: ten requests of 10,000 zones each (POST /api/v1/zonal-stats/raster, a FeatureCollection,
 *         Accept: application/x-ndjson), one after another, to one service (ZONAL_WORKERS=2): total time;
 *      b. one job of the 100,000 zones (aoi: {"href": the GeoParquet file}) on an API instance
 *         (ZONAL_JOB_WORKER=0) with 2 worker processes of ZONAL_WORKERS=1: from the submission until the job
 *         is `successful` and its rows are read (GET /jobs/{id}/results, NDJSON); every row checked against (a);
 *      b'. the same with 1 worker process of ZONAL_WORKERS=2.
 *      Each side warmed up first by the same 10,000 zones on s2_B08.tif; then BENCH_JOBS_RUNS rounds of a, b, b'.
 *   2. memory: a job of 1,000,000 zones (points, or squares with BENCH_JOBS_MEM_ZONES=squares) on an API
 *      instance and 2 workers; VmRSS of every process sampled every 0.5 s (and VmHWM at the end).
 *   3. faults: a 100,000-zone job during which a worker process is SIGKILLed BENCH_JOBS_KILLS times (at
 *      20, 45, 70 % progress) and started again each time; then the rows: 100,000, no index twice, none missing.
 * Writes bench/out/jobs-results.md and bench/out/jobs-results.json.
 *
 * Environment: BENCH_PARTS (throughput,memory,faults), BENCH_JOBS_RUNS (3), BENCH_JOBS_MEM_ZONES (points |
 * squares), BENCH_JOBS_KILLS (3), BENCH_JOBS_FAULT_LOCK_MS (unset: the service's ZONAL_JOB_LOCK_MS default),
 * BENCH_JOBS_WORKER (auto | service | cli: how worker processes start; auto takes `zonal worker` when the CLI
 * has it), BENCH_JOBS_POLL_MS (100: status polls), BENCH_JOBS_SAMPLE_MS (500: RSS samples), BENCH_REDIS_URL
 * (redis://127.0.0.1:6379/12), BENCH_WAIT_IDLE_S (120), BENCH_TIMEOUT_S (1800: per job or request). The
 * service processes inherit the environment (ZONAL_JOB_TASK_ZONES and the like apply).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createInterface } from 'node:readline';
import { Redis } from 'ioredis';
import { DATA_DIR, logKey, OUT_DIR, ROOT, signaller, startServer } from '../lib/child.ts';
import { CLK_TCK, cpuJiffies, rssOf, ticksOf, waitIdle as waitIdleFor } from '../lib/machine.ts';
import { scrape } from '../lib/metrics.ts';
import { eachLine } from '../lib/ndjson.ts';
import { f1, f2, int, median, num, runMeta, say, sleep } from '../lib/report.ts';

const COG = join(DATA_DIR, 's2_B04.tif');
/** The same layout, another file: the warm-ups decode its tiles, never COG's. */
const WARM_COG = join(DATA_DIR, 's2_B08.tif');
const FC_FILES = Array.from({ length: 10 }, (_, k) => join(DATA_DIR, `jobs_zones_100k_${k}.geojson`));
const PARQUET_100K = join(DATA_DIR, 'jobs_zones_100k.parquet');
/** The first 10,000 of the 100,000 squares (the zones of FC_FILES[0]): the jobs' warm-up. */
const PARQUET_10K = join(DATA_DIR, 'jobs_zones_10k.parquet');
const PARQUET_TYPE = 'application/vnd.apache.parquet';
const STATS = ['min', 'max', 'mean', 'count'];
const ENDPOINT = '/api/v1/zonal-stats/raster';
const PROCESS = '/processes/zonal-stats-raster/execution';

const PARTS = new Set((process.env['BENCH_PARTS'] ?? 'throughput,memory,faults').split(',').map((s) => s.trim()));
const RUNS = num('BENCH_JOBS_RUNS', 3);
// Points by default: 1,000,000 squares take 5-8 min on 2 cores (10 × the 100,000-zone job), points about one.
const MEM_ZONES = process.env['BENCH_JOBS_MEM_ZONES'] === 'squares' ? 'squares' : 'points';
const PARQUET_1M = join(DATA_DIR, MEM_ZONES === 'points' ? 'jobs_points_1m.parquet' : 'jobs_zones_1m.parquet');
const KILLS = num('BENCH_JOBS_KILLS', 3);
const KILL_AT = [20, 45, 70, 85, 95];
const FAULT_LOCK_MS = process.env['BENCH_JOBS_FAULT_LOCK_MS'];
const POLL_MS = num('BENCH_JOBS_POLL_MS', 100);
const SAMPLE_MS = num('BENCH_JOBS_SAMPLE_MS', 500);
const REDIS_URL = process.env['BENCH_REDIS_URL'] ?? 'redis://127.0.0.1:6379/12';
const WAIT_IDLE_S = num('BENCH_WAIT_IDLE_S', 120);
const TIMEOUT_MS = num('BENCH_TIMEOUT_S', 1800) * 1000;
/** Every Redis key of this run starts with it. */
const PREFIX = `zonal-bench-jobs-${process.pid}-${Date.now().toString(36)}:`;

// Targets (issue 23).
const T_RATIO = 1.15;
const T_API_MIB = 300;
const T_WORKER_MIB = 600;

// ------------------------------------------------------------------------------------------------
// CPU and memory of the processes: /proc (bench/lib/machine.ts)

interface Tracked {
  pid: number;
  role: string;
  ticks0: number;
  ticks: number;
  main0: number;
  main: number;
  peakRss: number;
  hwm: number;
  samples: number;
}

/** What a Watch saw: other jobs' share of the CPU, and each process's CPU seconds and peak RSS. */
interface WatchReport {
  wallS: number;
  othersPct: number;
  procs: { role: string; pid: number; cpuS: number; mainS: number; peakRssMiB: number; hwmMiB: number; samples: number }[];
}

/**
 * Samples the processes of a part every SAMPLE_MS: VmRSS (peak), VmHWM, and CPU ticks of the process and of
 * its main thread (the last seen values count for a process that was killed). Other jobs' CPU is the
 * machine's busy ticks less those of the tracked processes and of this driver.
 */
class Watch {
  readonly #procs = new Map<number, Tracked>();
  readonly #t0 = performance.now();
  readonly #machine0 = cpuJiffies();
  readonly #self0 = ticksOf('/proc/self/stat', true);
  readonly #timer: NodeJS.Timeout;

  constructor(procs: Proc[]) {
    for (const p of procs) this.add(p);
    this.#timer = setInterval(() => this.sample(), SAMPLE_MS);
  }

  add(p: Proc): void {
    const t = ticksOf(`/proc/${p.pid}/stat`);
    const m = ticksOf(`/proc/${p.pid}/task/${p.pid}/stat`);
    this.#procs.set(p.pid, { pid: p.pid, role: p.role, ticks0: t, ticks: t, main0: m, main: m, peakRss: NaN, hwm: NaN, samples: 0 });
    this.sample();
  }

  sample(): void {
    for (const t of this.#procs.values()) {
      const { rss, hwm } = rssOf(t.pid);
      if (Number.isNaN(rss)) continue;
      t.peakRss = Number.isNaN(t.peakRss) ? rss : Math.max(t.peakRss, rss);
      t.hwm = hwm;
      t.samples++;
      const ticks = ticksOf(`/proc/${t.pid}/stat`);
      const main = ticksOf(`/proc/${t.pid}/task/${t.pid}/stat`);
      if (!Number.isNaN(ticks)) t.ticks = ticks;
      if (!Number.isNaN(main)) t.main = main;
    }
  }

  stop(): WatchReport {
    this.sample();
    clearInterval(this.#timer);
    const machine = cpuJiffies();
    const procs = [...this.#procs.values()];
    const ours = procs.reduce((k, t) => k + (t.ticks - t.ticks0), 0) + (ticksOf('/proc/self/stat', true) - this.#self0);
    const busy = machine.busy - this.#machine0.busy;
    return {
      wallS: (performance.now() - this.#t0) / 1000,
      othersPct: Math.max(0, (100 * (busy - ours)) / Math.max(1, machine.total - this.#machine0.total)),
      procs: procs.map((t) => ({
        role: t.role,
        pid: t.pid,
        cpuS: (t.ticks - t.ticks0) / CLK_TCK,
        mainS: (t.main - t.main0) / CLK_TCK,
        peakRssMiB: t.peakRss,
        hwmMiB: t.hwm,
        samples: t.samples,
      })),
    };
  }
}

// ------------------------------------------------------------------------------------------------
// processes: the service, API instances and worker processes

interface Proc {
  role: string;
  pid: number;
  /** Its HTTP port (a service instance), undefined for `zonal worker`. */
  port: number | undefined;
  stderr: string[];
  /** Stops it gracefully (SIGKILL after a while). */
  stop(): Promise<void>;
  /** SIGKILL, and resolves once it has exited. */
  kill(): Promise<void>;
}

/**
 * How worker processes start, decided once for the run: `zonal worker` once it has landed (BENCH_JOBS_WORKER=auto),
 * else service instances with ZONAL_JOB_WORKER=1.
 */
let kindOfWorkers: 'cli' | 'service' | undefined;
function workerKind(): 'cli' | 'service' {
  kindOfWorkers ??= decideWorkerKind();
  return kindOfWorkers;
}

function decideWorkerKind(): 'cli' | 'service' {
  const asked = process.env['BENCH_JOBS_WORKER'] ?? 'auto';
  if (asked === 'cli' || asked === 'service') return asked;
  // Only once it has landed (committed), and answers --help.
  const tracked = spawnSync('git', ['ls-files', 'src/cli/worker.ts'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim() !== '';
  if (!tracked) return 'service';
  const r = spawnSync(process.execPath, ['bin/zonal.mjs', 'worker', '--help'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  return r.status === 0 && /worker/i.test(r.stdout) ? 'cli' : 'service';
}

/**
 * The service as `npm start` runs it (node dist/server.js, built by run.sh when stale), configured by the
 * environment, on 127.0.0.1: ready once GET /health answers. Its log (warn and above) is kept.
 */
async function startServiceProc(role: string, env: Record<string, string>): Promise<Proc> {
  const { pid, port, log, signal } = await startServer(role, env);
  return { role, pid, port, stderr: log, stop: () => signal('SIGTERM', 20_000), kill: () => signal('SIGKILL', 0) };
}

/**
 * `zonal worker` in its own process, compiled as the API instances are: node dist/cli/main.js worker, what
 * bin/zonal.mjs runs while dist/ is fresh (run.sh builds it; another engineer's later edit to src/ then leaves
 * the run on one build). No HTTP port; ready once it has connected to Redis, which nothing here waits for.
 */
async function startCliWorker(role: string, env: Record<string, string>): Promise<Proc> {
  const proc = spawn(process.execPath, ['dist/cli/main.js', 'worker'], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', ZONAL_DATA_ROOTS: realpathSync(DATA_DIR), ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const stderr: string[] = [];
  createInterface({ input: proc.stderr }).on('line', (l) => stderr.push(l));
  const signal = signaller(proc);
  return { role, pid: proc.pid!, port: undefined, stderr, stop: () => signal('SIGTERM', 15_000), kill: () => signal('SIGKILL', 0) };
}

/** An API instance with its worker processes, on Redis under a prefix of its own (so no other group takes its tasks). */
interface Cluster {
  name: string;
  api: Proc;
  workers: Proc[];
  env: Record<string, string>;
  workerEnv: Record<string, string>;
  kind: 'cli' | 'service';
}

let resultsDir = '';

async function startCluster(name: string, workers: number, threadsPerWorker: number, extra: Record<string, string> = {}): Promise<Cluster> {
  const env = {
    ZONAL_REDIS_URL: REDIS_URL,
    ZONAL_REDIS_PREFIX: `${PREFIX}${name}:`,
    ZONAL_RESULTS_URL: pathToFileURL(resultsDir).href,
    ...extra,
  };
  const kind = workerKind();
  const workerEnv = { ...env, ZONAL_WORKERS: String(threadsPerWorker), ZONAL_JOB_WORKER: '1' };
  // BENCH_JOBS_API_NODE_OPTIONS: Node flags for the API instances only (--max-old-space-size=…: is its peak garbage or live?).
  const apiNode = process.env['BENCH_JOBS_API_NODE_OPTIONS'];
  const api = tracked(await startServiceProc(`${name} API`, { ...env, ZONAL_JOB_WORKER: '0', ...(apiNode ? { NODE_OPTIONS: apiNode } : {}) }));
  const ws = await Promise.all(Array.from({ length: workers }, (_, i) => startWorker(`${name} worker ${i + 1}`, kind, workerEnv)));
  return { name, api, workers: ws, env, workerEnv, kind };
}

async function startWorker(role: string, kind: 'cli' | 'service', env: Record<string, string>): Promise<Proc> {
  return tracked(kind === 'cli' ? await startCliWorker(role, env) : await startServiceProc(role, env));
}

/** What the processes logged at warn and above (pino JSON lines), by role and message: count. */
const logged = new Map<string, number>();

function noteLog(p: Proc): void {
  for (const l of p.stderr) {
    if (/^(zonal: )?worker \d+: (taking tasks|SIGTERM|SIGINT|stopped|letting)/.test(l)) continue;
    const key = logKey(l, 200, l.replace(/^\(node:\d+\) /, '').slice(0, 200));
    if (key === undefined) continue;
    const k = `${p.role.replace(/ \d+$/, '')}: ${key}`;
    logged.set(k, (logged.get(k) ?? 0) + 1);
  }
  p.stderr.length = 0;
}

/** Every process started and not yet stopped: killed if the driver itself is stopped (SIGINT, SIGTERM). */
const live = new Set<Proc>();

function tracked(p: Proc): Proc {
  live.add(p);
  const { stop, kill } = p;
  p.stop = () => stop().finally(() => live.delete(p));
  p.kill = () => kill().finally(() => live.delete(p));
  return p;
}

async function stopAll(procs: (Proc | undefined)[]): Promise<void> {
  await Promise.all(procs.map((p) => p?.stop().catch(() => undefined)));
  for (const p of procs) if (p) noteLog(p);
}

// ------------------------------------------------------------------------------------------------
// the client side: direct requests, jobs, their rows

/** One zone's answer as compared: count, min, max, mean, or the row's error. */
interface ZoneAnswer {
  count: number | null;
  min: number | null;
  max: number | null;
  mean: number | null;
  error?: string;
}

/** NDJSON rows read from a response: answers by index (when kept), and what is wrong with the sequence. */
interface Rows {
  answers: (ZoneAnswer | undefined)[] | undefined;
  rows: number;
  duplicates: number;
  outOfOrder: number;
  /** Lines without an index (a request-level error line). */
  problems: string[];
  bytes: number;
}

function answerOf(line: { statistics?: Record<string, unknown>; error?: { code: string; detail: string } }): ZoneAnswer {
  if (line.error) return { count: null, min: null, max: null, mean: null, error: `${line.error.code}: ${line.error.detail}` };
  const b = (line.statistics?.['band_1'] ?? {}) as Record<string, number | null | undefined>;
  return { count: b['count'] ?? null, min: b['min'] ?? null, max: b['max'] ?? null, mean: b['mean'] ?? null };
}

/**
 * Reads an NDJSON body line by line. Row `index` + `offset` goes into `into` (when given); `seen` marks
 * every index (duplicates counted); indices are expected in order from `offset`.
 */
async function readRows(res: Response, offset: number, seen: Uint8Array, into?: (ZoneAnswer | undefined)[]): Promise<Rows> {
  const out: Rows = { answers: into, rows: 0, duplicates: 0, outOfOrder: 0, problems: [], bytes: 0 };
  let expected = offset;
  const take = (line: string) => {
    if (line.trim() === '') return;
    const o = JSON.parse(line) as { index?: number; statistics?: Record<string, unknown>; error?: { code: string; detail: string } };
    if (typeof o.index !== 'number') {
      out.problems.push(`line without index: ${line.slice(0, 300)}`);
      return;
    }
    const i = o.index + offset;
    out.rows++;
    if (i !== expected) out.outOfOrder++;
    expected = i + 1;
    if (i >= 0 && i < seen.length) {
      if (seen[i]) out.duplicates++;
      seen[i] = 1;
    } else out.problems.push(`index ${o.index} outside the zones`);
    if (into) into[i] = answerOf(o);
  };
  out.bytes = await eachLine(res, take);
  return out;
}

function missing(seen: Uint8Array): number {
  let k = 0;
  for (let i = 0; i < seen.length; i++) if (!seen[i]) k++;
  return k;
}

async function problemOf(res: Response): Promise<string> {
  const text = await res.text();
  try {
    const p = JSON.parse(text) as { code?: string; detail?: string };
    return `${res.status} ${p.code ?? ''}: ${p.detail ?? text.slice(0, 200)}`;
  } catch {
    return `${res.status}: ${text.slice(0, 200)}`;
  }
}

/** The anchor (a): the zones files one request each, in order, to one service; the time of all of them. */
async function directRequests(port: number, url: string, bodies: string[], zonesPer: number): Promise<{ ms: number; rows: Rows; missing: number }> {
  const total = bodies.length * zonesPer;
  const answers: (ZoneAnswer | undefined)[] = new Array(total);
  const seen = new Uint8Array(total);
  const all: Rows = { answers, rows: 0, duplicates: 0, outOfOrder: 0, problems: [], bytes: 0 };
  const t = performance.now();
  for (let k = 0; k < bodies.length; k++) {
    const res = await fetch(`http://127.0.0.1:${port}${ENDPOINT}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/x-ndjson' },
      body: bodies[k]!.replace('"url":"__URL__"', `"url":${JSON.stringify(url)}`),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    if (res.status !== 200) throw new Error(`request ${k} of the anchor: ${await problemOf(res)}`);
    const r = await readRows(res, k * zonesPer, seen, answers);
    all.rows += r.rows;
    all.duplicates += r.duplicates;
    all.outOfOrder += r.outOfOrder;
    all.bytes += r.bytes;
    all.problems.push(...r.problems);
  }
  return { ms: performance.now() - t, rows: all, missing: missing(seen) };
}

interface StatusDoc {
  jobID: string;
  status: string;
  message: string;
  progress: number;
  zones: number;
  failedZones: number;
  created: string;
  started?: string;
  finished?: string;
}

interface JobRun {
  /** Tasks the job was cut into (from the submission's message). */
  tasks: number;
  /** Submission to `successful` (seen by polling), and then the rows read, ms. */
  doneMs: number;
  readMs: number;
  totalMs: number;
  submitMs: number;
  status: StatusDoc;
  rows: Rows;
  missing: number;
  polls: number;
}

/** Called at every poll with the status document and the ms since submission (the faults part kills from here). */
type OnPoll = (s: StatusDoc, ms: number) => Promise<void> | void;

/** One job: submit, poll GET /jobs/{id} every POLL_MS until it is final, then read its rows as NDJSON. */
interface JobOptions {
  /** Keep every row's answer (to compare them). */
  keep?: boolean;
  onPoll?: OnPoll;
  /** Called once the job is successful, before its rows are read. */
  onDone?: () => void;
}

async function runJob(apiPort: number, inputs: Record<string, unknown>, zones: number, opts: JobOptions = {}): Promise<JobRun> {
  const { keep = false, onPoll, onDone } = opts;
  const base = `http://127.0.0.1:${apiPort}`;
  const t0 = performance.now();
  const res = await fetch(`${base}${PROCESS}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ inputs }) });
  if (res.status !== 201) throw new Error(`submission: ${await problemOf(res)}`);
  const submitMs = performance.now() - t0;
  let status = (await res.json()) as StatusDoc;
  const tasks = Number(/in ([\d,]+) task/.exec(status.message)?.[1]?.replace(/,/g, '') ?? NaN);
  let polls = 0;
  while (!['successful', 'failed', 'dismissed'].includes(status.status)) {
    if (performance.now() - t0 > TIMEOUT_MS) throw new Error(`job ${status.jobID} still ${status.status} after ${TIMEOUT_MS / 1000} s`);
    await sleep(POLL_MS);
    const r = await fetch(`${base}/jobs/${status.jobID}`);
    if (r.status !== 200) throw new Error(`status of job ${status.jobID}: ${await problemOf(r)}`);
    status = (await r.json()) as StatusDoc;
    polls++;
    await onPoll?.(status, performance.now() - t0);
  }
  const doneMs = performance.now() - t0;
  if (status.status !== 'successful') throw new Error(`job ${status.jobID} ended ${status.status}: ${status.message}`);
  onDone?.();
  const rr = await fetch(`${base}/jobs/${status.jobID}/results`, { headers: { accept: 'application/x-ndjson' }, signal: AbortSignal.timeout(TIMEOUT_MS) });
  if (rr.status !== 200) throw new Error(`results of job ${status.jobID}: ${await problemOf(rr)}`);
  const seen = new Uint8Array(zones);
  const rows = await readRows(rr, 0, seen, keep ? new Array<ZoneAnswer | undefined>(zones) : undefined);
  const totalMs = performance.now() - t0;
  return { tasks, doneMs, readMs: totalMs - doneMs, totalMs, submitMs, status, rows, missing: missing(seen), polls };
}

/** Rows of two runs compared: count, min, max and mean equal, or the same error. */
interface Compare {
  zones: number;
  differ: number;
  firstDiffer: string | undefined;
  maxMeanRel: number;
}

function compareAnswers(xs: (ZoneAnswer | undefined)[], ys: (ZoneAnswer | undefined)[]): Compare {
  const c: Compare = { zones: Math.max(xs.length, ys.length), differ: 0, firstDiffer: undefined, maxMeanRel: 0 };
  for (let i = 0; i < c.zones; i++) {
    const x = xs[i];
    const y = ys[i];
    const same = x !== undefined && y !== undefined && x.error === y.error && x.count === y.count && x.min === y.min && x.max === y.max && x.mean === y.mean;
    if (x?.mean != null && y?.mean != null && x.mean !== y.mean) {
      c.maxMeanRel = Math.max(c.maxMeanRel, Math.abs(x.mean - y.mean) / Math.max(Math.abs(x.mean), Math.abs(y.mean)));
    }
    if (!same) {
      c.differ++;
      c.firstDiffer ??= `zone ${i}: ${JSON.stringify(x)} vs ${JSON.stringify(y)}`;
    }
  }
  return c;
}

const compareLine = (c: Compare | undefined) =>
  c === undefined ? 'not compared' : c.differ === 0 ? `all ${int(c.zones)} equal` : `${int(c.differ)} of ${int(c.zones)} differ (${c.firstDiffer})`;

/** Tasks and fold time the worker processes report on /metrics (service instances only; a killed one's are lost). */
async function workerMetrics(procs: Proc[]): Promise<Map<number, Map<string, number>>> {
  const m = new Map<number, Map<string, number>>();
  for (const p of procs) if (p.port !== undefined) m.set(p.pid, await scrape(p.port).catch(() => new Map<string, number>()));
  return m;
}

function tasksDelta(a: Map<number, Map<string, number>>, b: Map<number, Map<string, number>>): number[] {
  return [...b].map(
    ([pid, m]) => (m.get('zonal_job_tasks_total{outcome="answered"}') ?? 0) - (a.get(pid)?.get('zonal_job_tasks_total{outcome="answered"}') ?? 0),
  );
}

// ------------------------------------------------------------------------------------------------
// part 1: throughput

interface RoundResult {
  round: number;
  a: { ms: number; others: number; rows: number; missing: number; problems: string[]; cpuS: number; mainS: number };
  b: JobSide;
  b1: JobSide;
}

interface JobSide {
  tasks: number;
  ms: number;
  doneMs: number;
  readMs: number;
  queueMs: number;
  rows: number;
  missing: number;
  duplicates: number;
  outOfOrder: number;
  vsA: Compare | undefined;
  others: number;
  tasksPerWorker: number[];
  watch: WatchReport;
}

/** The bodies of the anchor's requests: each zones file with the url to fill in. */
function anchorBodies(): string[] {
  return FC_FILES.map((f) => `{"url":"__URL__","stats":${JSON.stringify(STATS)},"aoi":${readFileSync(f, 'utf8')}}`);
}

const jobInputs = (cog: string, zonesFile: string) => ({
  url: pathToFileURL(realpathSync(cog)).href,
  aoi: { href: pathToFileURL(realpathSync(zonesFile)).href, type: PARQUET_TYPE },
  stats: STATS,
});

/** One timed job on a cluster, compared with the anchor's rows. */
async function jobSide(c: Cluster, reference: (ZoneAnswer | undefined)[] | undefined): Promise<JobSide> {
  const m0 = await workerMetrics(c.workers);
  const watch = new Watch([c.api, ...c.workers]);
  const r = await runJob(c.api.port!, jobInputs(COG, PARQUET_100K), 100_000, { keep: true });
  const w = watch.stop();
  const m1 = await workerMetrics(c.workers);
  const s = r.status;
  return {
    tasks: r.tasks,
    ms: r.totalMs,
    doneMs: r.doneMs,
    readMs: r.readMs,
    queueMs: s.started ? Date.parse(s.started) - Date.parse(s.created) : NaN,
    rows: r.rows.rows,
    missing: r.missing,
    duplicates: r.rows.duplicates,
    outOfOrder: r.rows.outOfOrder,
    vsA: reference && r.rows.answers ? compareAnswers(reference, r.rows.answers) : undefined,
    others: w.othersPct,
    tasksPerWorker: tasksDelta(m0, m1),
    watch: w,
  };
}

function sideLine(name: string, s: JobSide, aMs: number): string {
  const cpu = s.watch.procs.map((p) => `${p.role.replace(/^.* /, '')} ${f1(p.cpuS)} s`).join(', ');
  return (
    `  ${name}: ${f2(s.ms / 1000)} s (successful after ${f2(s.doneMs / 1000)} s, started ${int(s.queueMs)} ms after submission; rows read in ${f2(s.readMs / 1000)} s) ` +
    `= ${f2(s.ms / aMs)}× (a); ${int(s.rows)} rows, ${s.missing} missing, ${s.duplicates} twice; vs (a): ${compareLine(s.vsA)}; ` +
    `tasks per worker ${s.tasksPerWorker.join('/') || '–'}; CPU ${cpu}; other jobs ${f1(s.others)} %`
  );
}

async function throughput(): Promise<{ rounds: RoundResult[]; reference: (ZoneAnswer | undefined)[] | undefined; setup: string }> {
  const bodies = anchorBodies();
  const cogUrl = pathToFileURL(realpathSync(COG)).href;
  const warmUrl = pathToFileURL(realpathSync(WARM_COG)).href;
  const anchor = tracked(await startServiceProc('anchor', { ZONAL_WORKERS: '2' }));
  const b2 = await startCluster('b2', 2, 1);
  const b1 = await startCluster('b1', 1, 2);
  const inflate = [...(await scrape(anchor.port!)).keys()].find((k) => k.startsWith('zonal_inflate_backend'))?.replace(/.*backend="([^"]+)".*/, '$1');
  const setup = `worker processes: ${b2.kind === 'cli' ? '`zonal worker` (node dist/cli/main.js worker)' : 'service instances (node dist/server.js) with ZONAL_JOB_WORKER=1'}; inflater ${inflate ?? 'unknown'}`;
  say(`  ${setup}; API instances ZONAL_JOB_WORKER=0 (ZONAL_WORKERS ${process.env['ZONAL_WORKERS'] ?? 'default 2'})`);
  const rounds: RoundResult[] = [];
  let reference: (ZoneAnswer | undefined)[] | undefined;
  try {
    // The same 10,000 zones on s2_B08.tif warm every process up (JIT, worker threads, the inflater, the zones reader).
    const w = await directRequests(anchor.port!, warmUrl, bodies.slice(0, 1), 10_000);
    const wb = await runJob(b2.api.port!, jobInputs(WARM_COG, PARQUET_10K), 10_000);
    const wb1 = await runJob(b1.api.port!, jobInputs(WARM_COG, PARQUET_10K), 10_000);
    say(`  warm-up on s2_B08.tif, 10,000 zones: (a) ${f2(w.ms / 1000)} s, (b) ${f2(wb.totalMs / 1000)} s, (b') ${f2(wb1.totalMs / 1000)} s`);
    for (let round = 1; round <= RUNS; round++) {
      await waitIdle(`round ${round}`);
      const watch = new Watch([anchor]);
      const a = await directRequests(anchor.port!, cogUrl, bodies, 10_000);
      const aw = watch.stop();
      reference ??= a.rows.answers;
      const aVsRef = round > 1 && reference && a.rows.answers ? compareAnswers(reference, a.rows.answers) : undefined;
      say(
        `round ${round}: (a) ${f2(a.ms / 1000)} s, ${int(a.rows.rows)} rows, ${a.missing} missing${aVsRef ? `, vs round 1: ${compareLine(aVsRef)}` : ''}; ` +
          `CPU ${f1(aw.procs[0]!.cpuS)} s (main thread ${f1(aw.procs[0]!.mainS)} s); other jobs ${f1(aw.othersPct)} %`,
      );
      await waitIdle(`(b) of round ${round}`);
      const b = await jobSide(b2, reference);
      say(sideLine('(b) 2 workers × 1 thread', b, a.ms));
      await waitIdle(`(b') of round ${round}`);
      const b1r = await jobSide(b1, reference);
      say(sideLine("(b') 1 worker × 2 threads", b1r, a.ms));
      const aCpu = { cpuS: aw.procs[0]!.cpuS, mainS: aw.procs[0]!.mainS };
      rounds.push({ round, a: { ms: a.ms, others: aw.othersPct, rows: a.rows.rows, missing: a.missing, problems: a.rows.problems, ...aCpu }, b, b1: b1r });
    }
  } finally {
    await stopAll([anchor, b2.api, ...b2.workers, b1.api, ...b1.workers]);
  }
  return { rounds, reference, setup };
}

// ------------------------------------------------------------------------------------------------
// part 2: memory

/** The largest JS heap (used, total) and external memory a service reported on /metrics (prom-client's default metrics), MiB. */
interface HeapPeaks {
  heapUsed: number;
  heapTotal: number;
  external: number;
  scrapes: number;
}

/** Scrapes a service's /metrics every second for its heap and external memory (a second view of its RSS). */
class HeapProbe {
  readonly peaks: HeapPeaks = { heapUsed: 0, heapTotal: 0, external: 0, scrapes: 0 };
  readonly #timer: NodeJS.Timeout;

  constructor(port: number) {
    const MiB = 2 ** 20;
    this.#timer = setInterval(() => {
      scrape(port).then(
        (m) => {
          const p = this.peaks;
          p.heapUsed = Math.max(p.heapUsed, (m.get('zonal_nodejs_heap_size_used_bytes') ?? 0) / MiB);
          p.heapTotal = Math.max(p.heapTotal, (m.get('zonal_nodejs_heap_size_total_bytes') ?? 0) / MiB);
          p.external = Math.max(p.external, (m.get('zonal_nodejs_external_memory_bytes') ?? 0) / MiB);
          p.scrapes++;
        },
        () => undefined,
      );
    }, 1000);
  }

  stop(): HeapPeaks {
    clearInterval(this.#timer);
    return this.peaks;
  }
}

interface MemoryResult {
  zones: number;
  kind: string;
  ms: number;
  doneMs: number;
  readMs: number;
  rows: number;
  missing: number;
  duplicates: number;
  /** While the job runs (submission to successful), and while its rows are read. */
  run: WatchReport;
  read: WatchReport;
  apiHeap: { run: HeapPeaks; read: HeapPeaks };
}

async function memory(): Promise<MemoryResult> {
  const zones = 1_000_000;
  const c = await startCluster('mem', 2, 1);
  try {
    await waitIdle('memory');
    const procs = [c.api, ...c.workers];
    let watch = new Watch(procs);
    let heap = new HeapProbe(c.api.port!);
    let run: WatchReport | undefined;
    let runHeap: HeapPeaks | undefined;
    let lastSay = 0;
    const onPoll: OnPoll = (s, ms) => {
      if (ms - lastSay < 30_000) return;
      lastSay = ms;
      say(
        `  ${f1(ms / 1000)} s: ${s.status} ${s.progress} %; RSS ${procs.map((p) => `${p.role.replace(/^mem /, '')} ${f1(rssOf(p.pid).rss)} MiB`).join(', ')}`,
      );
    };
    const onDone = () => {
      run = watch.stop();
      runHeap = heap.stop();
      watch = new Watch(procs);
      heap = new HeapProbe(c.api.port!);
    };
    let r: JobRun;
    try {
      r = await runJob(c.api.port!, jobInputs(COG, PARQUET_1M), zones, { onPoll, onDone });
    } catch (e) {
      // Their timers would keep the driver alive after a failed run.
      watch.stop();
      heap.stop();
      throw e;
    }
    const read = watch.stop();
    const readHeap = heap.stop();
    return {
      zones,
      kind: MEM_ZONES,
      ms: r.totalMs,
      doneMs: r.doneMs,
      readMs: r.readMs,
      rows: r.rows.rows,
      missing: r.missing,
      duplicates: r.rows.duplicates,
      run: run!,
      read,
      apiHeap: { run: runHeap!, read: readHeap },
    };
  } finally {
    await stopAll([c.api, ...c.workers]);
  }
}

// ------------------------------------------------------------------------------------------------
// part 3: faults

interface Kill {
  atS: number;
  progress: number;
  role: string;
  pid: number;
  restartS: number;
}

interface FaultsResult {
  ms: number;
  doneMs: number;
  rows: number;
  missing: number;
  duplicates: number;
  outOfOrder: number;
  failedZones: number;
  kills: Kill[];
  vsA: Compare | undefined;
  lockMs: string;
  others: number;
  watch: WatchReport;
}

async function faults(reference: (ZoneAnswer | undefined)[] | undefined): Promise<FaultsResult> {
  const extra: Record<string, string> = FAULT_LOCK_MS ? { ZONAL_JOB_LOCK_MS: FAULT_LOCK_MS } : {};
  const c = await startCluster('faults', 2, 1, extra);
  const kills: Kill[] = [];
  try {
    await waitIdle('faults');
    const watch = new Watch([c.api, ...c.workers]);
    const thresholds = KILL_AT.slice(0, KILLS);
    let busy = false;
    const onPoll: OnPoll = async (s, ms) => {
      if (busy || kills.length >= thresholds.length || s.progress < thresholds[kills.length]!) return;
      busy = true;
      const i = kills.length % c.workers.length;
      const victim = c.workers[i]!;
      const t = performance.now();
      await victim.kill();
      noteLog(victim);
      const next = await startWorker(victim.role, c.kind, c.workerEnv);
      c.workers[i] = next;
      watch.add(next);
      kills.push({ atS: ms / 1000, progress: s.progress, role: victim.role, pid: victim.pid, restartS: (performance.now() - t) / 1000 });
      say(
        `  ${f1(ms / 1000)} s, ${s.progress} %: SIGKILL ${victim.role} (pid ${victim.pid}); started again as pid ${next.pid} in ${f1((performance.now() - t) / 1000)} s`,
      );
      busy = false;
    };
    const r = await runJob(c.api.port!, jobInputs(COG, PARQUET_100K), 100_000, { keep: true, onPoll });
    const w = watch.stop();
    return {
      ms: r.totalMs,
      doneMs: r.doneMs,
      rows: r.rows.rows,
      missing: r.missing,
      duplicates: r.rows.duplicates,
      outOfOrder: r.rows.outOfOrder,
      failedZones: r.status.failedZones,
      kills,
      vsA: reference && r.rows.answers ? compareAnswers(reference, r.rows.answers) : undefined,
      lockMs: FAULT_LOCK_MS ?? 'default (30000)',
      others: w.othersPct,
      watch: w,
    };
  } finally {
    await stopAll([c.api, ...c.workers]);
  }
}

// ------------------------------------------------------------------------------------------------
// the run: idle wait, Redis, the report

/** On a shared machine, waits (up to BENCH_WAIT_IDLE_S) for it to be idle (< 15 % busy over 3 s) before a part. */
const waitIdle = (what: string) => waitIdleFor(WAIT_IDLE_S, what);

/** Deletes every key of this run (the prefix is its own) from the benchmark's Redis database. */
async function cleanRedis(): Promise<number> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  let deleted = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${PREFIX}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) deleted += await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  return deleted;
}

interface Report {
  meta: Record<string, string | number>;
  throughput?: { rounds: RoundResult[]; setup: string };
  memory?: MemoryResult;
  faults?: FaultsResult;
  errors: string[];
}

/** Other jobs' share of the CPU under which a run counts as quiet, %. */
const QUIET = 10;
const jobCpu = (s: JobSide) => s.watch.procs.reduce((k, p) => k + p.cpuS, 0);

const verdict = (ok: boolean | undefined) => (ok === undefined ? 'n/a' : ok ? 'PASS' : '**FAIL**');

function throughputSection(t: NonNullable<Report['throughput']>, L: string[]): void {
  const tasks = t.rounds[0]?.b.tasks ?? NaN;
  L.push(`## 1. Throughput: 100,000 1 km squares (${t.setup}; the job in ${int(tasks)} tasks of ${int(100_000 / tasks)} zones)`, '');
  L.push(
    "| round | (a) 10 × 10,000 direct (s) | (b) job, 2 workers × 1 thread (s): successful / + rows | (b)/(a) | (b') job, 1 worker × 2 threads (s) | (b')/(a) | CPU s (a) / (b) / (b') | rows of (b), (b') vs (a) | other jobs' CPU a / b / b' |",
  );
  L.push('|---|---|---|---|---|---|---|---|---|');
  for (const r of t.rounds) {
    const eq = (s: JobSide) =>
      s.vsA === undefined ? '–' : s.vsA.differ === 0 && s.missing === 0 && s.duplicates === 0 ? 'equal' : `${int(s.vsA.differ)} differ`;
    L.push(
      `| ${r.round} | ${f2(r.a.ms / 1000)} | ${f2(r.b.ms / 1000)}: ${f2(r.b.doneMs / 1000)} / ${f2(r.b.readMs / 1000)} | **${f2(r.b.ms / r.a.ms)}** | ${f2(r.b1.ms / 1000)} | ${f2(r.b1.ms / r.a.ms)} | ${f1(r.a.cpuS)} / ${f1(jobCpu(r.b))} / ${f1(jobCpu(r.b1))} | ${eq(r.b)}, ${eq(r.b1)} | ${f1(r.a.others)} / ${f1(r.b.others)} / ${f1(r.b1.others)} % |`,
    );
  }
  L.push('', 'CPU seconds per process in each round (all threads; main thread in brackets):', '');
  for (const r of t.rounds) {
    const cpu = (s: JobSide) => s.watch.procs.map((p) => `${p.role} ${f1(p.cpuS)} (${f1(p.mainS)})`).join(', ');
    L.push(`- round ${r.round}: (a) anchor ${f1(r.a.cpuS)} (${f1(r.a.mainS)}); (b) ${cpu(r.b)}; (b') ${cpu(r.b1)}`);
  }
  L.push('');
}

function memorySection(m: MemoryResult, L: string[]): void {
  L.push(`## 2. Memory: one job of ${int(m.zones)} ${m.kind === 'points' ? 'points' : '1 km squares'}`, '');
  const others = (m.run.othersPct * m.run.wallS + m.read.othersPct * m.read.wallS) / (m.run.wallS + m.read.wallS);
  L.push(
    `${f1(m.ms / 1000)} s in all (successful after ${f1(m.doneMs / 1000)} s, rows read in ${f1(m.readMs / 1000)} s); ${int(m.rows)} rows, ${m.missing} missing, ${m.duplicates} twice; other jobs' CPU ${f1(others)} %.`,
    '',
  );
  L.push(
    '| process | peak VmRSS while the job runs (MiB) | peak VmRSS while its rows are read (MiB) | VmHWM at the end (MiB) | CPU s run + read (main thread) | target | verdict |',
  );
  L.push('|---|---|---|---|---|---|---|');
  m.run.procs.forEach((p, i) => {
    const q = m.read.procs[i]!;
    const target = p.role.includes('API') ? T_API_MIB : T_WORKER_MIB;
    const peak = Math.max(p.peakRssMiB, q.peakRssMiB, q.hwmMiB);
    L.push(
      `| ${p.role} | ${f1(p.peakRssMiB)} | ${f1(q.peakRssMiB)} | ${f1(q.hwmMiB)} | ${f1(p.cpuS)} + ${f1(q.cpuS)} (${f1(p.mainS + q.mainS)}) | ≤ ${target} MiB | ${verdict(peak <= target)} |`,
    );
  });
  const h = (x: HeapPeaks) => `heap used ≤ ${f1(x.heapUsed)} MiB of ≤ ${f1(x.heapTotal)} MiB, external ≤ ${f1(x.external)} MiB (${x.scrapes} scrapes)`;
  L.push('', `The API's /metrics, every second: while the job runs ${h(m.apiHeap.run)}; while its rows are read ${h(m.apiHeap.read)}.`, '');
}

function faultsSection(f: FaultsResult, L: string[]): void {
  L.push(`## 3. Faults: a 100,000-zone job, a worker process SIGKILLed ${f.kills.length} times (ZONAL_JOB_LOCK_MS ${f.lockMs})`, '');
  L.push('| kill | at (s) | job progress | process | started again in (s) |', '|---|---|---|---|---|');
  f.kills.forEach((k, i) => L.push(`| ${i + 1} | ${f1(k.atS)} | ${k.progress} % | ${k.role} (pid ${k.pid}) | ${f1(k.restartS)} |`));
  L.push(
    '',
    `The job: successful after ${f1(f.doneMs / 1000)} s (${f1(f.ms / 1000)} s with the rows read); ${int(f.rows)} rows, ${f.duplicates} indices twice, ${int(f.missing)} missing, ` +
      `${f.outOfOrder} out of order, ${f.failedZones} failed zones; vs (a): ${compareLine(f.vsA)}; other jobs' CPU ${f1(f.others)} %.`,
    '',
  );
}

function targetsSection(r: Report, L: string[]): void {
  L.push('## Targets', '', '| target | measured | verdict |', '|---|---|---|');
  const t = r.throughput;
  if (t && t.rounds.length) {
    const ratios = t.rounds.map((x) => x.b.ms / x.a.ms);
    const m = median(ratios);
    L.push(`| (b)/(a) ≤ ${T_RATIO} (median of ${ratios.length} rounds) | ${ratios.map(f2).join(', ')} → ${f2(m)} | ${verdict(m <= T_RATIO)} |`);
    // A round counts as quiet when other jobs took under QUIET % of the CPU during both (a) and (b).
    const quiet = t.rounds.filter((x) => x.a.others < QUIET && x.b.others < QUIET).map((x) => x.b.ms / x.a.ms);
    const qm = median(quiet);
    L.push(
      `| (b)/(a) ≤ ${T_RATIO}, rounds with other jobs' CPU < ${QUIET} % in (a) and (b) | ${quiet.length ? `${quiet.map(f2).join(', ')} → ${f2(qm)}` : 'none'} | ${verdict(quiet.length ? qm <= T_RATIO : undefined)} |`,
    );
    const cpu = t.rounds.map((x) => jobCpu(x.b) / x.a.cpuS);
    L.push(
      `| CPU seconds of (b) (API + workers) / (a)'s (for information; less sensitive to other jobs) | ${cpu.map(f2).join(', ')} → ${f2(median(cpu))} | – |`,
    );
    const bad = t.rounds.filter((x) => x.b.vsA?.differ !== 0 || x.b.missing !== 0 || x.b.duplicates !== 0).length;
    L.push(
      `| every row of (b) equals (a) (count, min, max, mean; index order) | ${bad === 0 ? 'all rounds equal' : `${bad} round(s) differ`} | ${verdict(bad === 0)} |`,
    );
    const r1 = t.rounds.map((x) => x.b1.ms / x.a.ms);
    L.push(`| (b')/(a), 1 worker × 2 threads (for information) | ${r1.map(f2).join(', ')} → ${f2(median(r1))} | – |`);
  }
  if (r.memory) {
    const all = [...r.memory.run.procs, ...r.memory.read.procs];
    const peak = (role: (p: WatchReport['procs'][number]) => boolean) => Math.max(...all.filter(role).map((p) => Math.max(p.peakRssMiB, p.hwmMiB)));
    const api = peak((p) => p.role.includes('API'));
    const worker = peak((p) => !p.role.includes('API'));
    L.push(`| API ≤ ${T_API_MIB} MiB during a ${int(r.memory.zones)}-zone job | ${f1(api)} MiB | ${verdict(api <= T_API_MIB)} |`);
    L.push(`| each worker ≤ ${T_WORKER_MIB} MiB | ${f1(worker)} MiB (the larger) | ${verdict(worker <= T_WORKER_MIB)} |`);
  }
  if (r.faults) {
    const f = r.faults;
    const ok = f.rows === 100_000 && f.duplicates === 0 && f.missing === 0 && f.outOfOrder === 0 && f.kills.length === KILLS;
    L.push(
      `| ${KILLS} SIGKILLs: 100,000 rows, no index twice, no gap | ${int(f.rows)} rows, ${f.duplicates} twice, ${f.missing} missing, ${f.kills.length} kills | ${verdict(ok)} |`,
    );
  }
  L.push('');
}

function render(r: Report): string {
  const L: string[] = [`# Jobs benchmark (issue 23): ${r.meta['date']}`, ''];
  L.push(
    `Machine: ${r.meta['cpus']}; ${r.meta['memory']}; Node ${process.version}; commit ${r.meta['commit']}. ` +
      `1-min load average ${r.meta['loadStart']} → ${r.meta['loadEnd']}; machine busy in the 3 s before: ${r.meta['busyBefore']} %. ` +
      `Redis ${REDIS_URL} (prefix ${PREFIX}, ${r.meta['redisKeysDeleted'] ?? 'not yet'} keys deleted after); results in a temporary folder (file://). Status polled every ${POLL_MS} ms.`,
    '',
  );
  if (r.throughput) throughputSection(r.throughput, L);
  if (r.memory) memorySection(r.memory, L);
  if (r.faults) faultsSection(r.faults, L);
  targetsSection(r, L);
  if (r.errors.length) L.push('Errors:', '', ...r.errors.map((e) => `- ${e}`), '');
  if (logged.size)
    L.push('The processes logged (warn and above), count × role: message:', '', ...[...logged].map(([k, n]) => `- ${n} × ${k.replace(/`/g, "'")}`), '');
  L.push(
    "Other jobs' CPU: the share of the machine's CPU used by processes other than this benchmark's (its driver and the processes it started) during that part; above ~10 % the timing is inflated.",
  );
  return L.join('\n') + '\n';
}

/** Stopped from outside: the processes killed, this run's Redis keys and results folder removed. */
function onSignal(sig: NodeJS.Signals): void {
  say(`${sig}: stopping ${live.size} processes, removing this run's Redis keys and results`);
  void Promise.all([...live].map((p) => p.kill().catch(() => undefined)))
    .then(() => {
      rmSync(resultsDir, { recursive: true, force: true });
      return cleanRedis().catch(() => 0);
    })
    .finally(() => process.exit(130));
}

/** Writes bench/out/jobs-results.md and .json as they stand (after every part, so a run stopped midway keeps what it measured). */
function writeReport(report: Report): string {
  report.meta['loadEnd'] = loadavg()[0]!.toFixed(2);
  const md = render(report);
  writeFileSync(join(OUT_DIR, 'jobs-results.md'), md);
  writeFileSync(
    join(OUT_DIR, 'jobs-results.json'),
    JSON.stringify(report, (k, v: unknown) => (k === 'answers' ? undefined : v), 1),
  );
  return md;
}

async function main(): Promise<void> {
  mkdirSync(OUT_DIR, { recursive: true });
  resultsDir = mkdtempSync(join(tmpdir(), 'zonal-bench-jobs-'));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const busyBefore = await waitIdle('the benchmark');
  const report: Report = { meta: runMeta(busyBefore), errors: [] };
  say(`jobs benchmark: Redis ${REDIS_URL}, prefix ${PREFIX}, results in ${resultsDir}; load average ${report.meta['loadStart']}`);
  let reference: (ZoneAnswer | undefined)[] | undefined;
  const attempt = async (name: string, fn: () => Promise<void>) => {
    try {
      await fn();
      writeReport(report);
    } catch (e) {
      report.errors.push(`${name}: ${(e as Error).stack ?? String(e)}`);
      say(`${name} FAILED: ${(e as Error).stack ?? String(e)}`);
    }
  };
  try {
    if (PARTS.has('throughput')) {
      say(`1. throughput, ${RUNS} rounds of (a), (b), (b') …`);
      await attempt('throughput', async () => {
        const t = await throughput();
        reference = t.reference;
        report.throughput = { rounds: t.rounds, setup: t.setup };
      });
    }
    if (PARTS.has('memory')) {
      say(`2. memory, a job of 1,000,000 ${MEM_ZONES} …`);
      await attempt('memory', async () => {
        report.memory = await memory();
      });
    }
    if (PARTS.has('faults')) {
      say(`3. faults, ${KILLS} SIGKILLs during a 100,000-zone job …`);
      await attempt('faults', async () => {
        report.faults = await faults(reference);
      });
    }
  } finally {
    report.meta['redisKeysDeleted'] = await cleanRedis().then(String, (e: Error) => `none (${e.message})`);
    rmSync(resultsDir, { recursive: true, force: true });
  }
  const md = writeReport(report);
  say(`\n${md}\n(bench/out/jobs-results.md and .json)`);
  if (report.errors.length) process.exitCode = 1;
}

await main();
