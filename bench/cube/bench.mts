/**
 * Cube benchmark driver (issue 25: POST /api/v1/zonal-stats/cube). Run through `bash bench/cube/run.sh`, which
 * makes the data and builds dist/ first; alone: `npx tsx bench/cube/bench.mts`. See bench/cube/README.md.
 *
 * The target: "100 districts × 8,760 hourly steps of a 0.25° ERA5-like variable (chunks of 24 h × 100 × 100 cells,
 * over 20 ms latency): one request ≤ 1.0× the time of an xarray + exactextract (or xarray + numpy weights) script
 * on local files, one core; every row equal to it. Memory: peak RSS ≤ 600 MiB for that request, whatever the
 * number of steps."
 *
 * Each run (BENCH_CUBE_RUNS, 3):
 *   - the store bench/data/cube/era5_t2m.zarr served over loopback HTTP by bench/raster/server.ts (Range, keep-alive),
 *     BENCH_LATENCY_MS (20) before every answer (paths /d20/…);
 *   - a fresh service (node dist/server.js, as `npm start` runs it: ZONAL_WORKERS=2 unless set,
 *     ZONAL_ALLOW_PRIVATE_NETWORKS=127.0.0.1/32), warmed up by one request of the same 100 districts over one day
 *     of December (24 steps), and (BENCH_CUBE_FIRST=1) by the measured request itself once, timed and reported as
 *     its first such request; then VmHWM reset (/proc/<pid>/clear_refs 5); then ONE request: all 100 districts, no
 *     `sel` (8,760 steps), stats mean, count, min, max, pixels fractional, Accept: application/x-ndjson, sent by
 *     curl (its answer into a file), timed from the send to the last byte; VmRSS sampled every BENCH_CUBE_SAMPLE_MS
 *     (200) and VmHWM at the end; the range server's log (requests, bytes, chunks read twice); the CPU seconds of
 *     the service (all threads, and its main thread), of the range server and of the client (this driver and curl);
 *   - the anchor (bench/cube/anchor.py: xarray + shapely weights + numpy, one core, local files), timed from spawn to
 *     exit, with its own phases; odd runs take the service first, even runs the anchor first;
 *   - every row (100 × 8,760) compared: index, id, time, and mean, count, min, max within 1e-9 relative (null on
 *     both sides for a step with no valid cell).
 * Then (BENCH_CUBE_SCALING=1, default): the peak RSS against the number of steps: the same request with `sel` of
 * January (744 steps), January–March (2,160), January–June (4,344), each in a fresh, warmed-up service.
 * With BENCH_CUBE_PROFILE=<dir>: one run only, the service under `node --cpu-prof` (bench/lib/service.ts through tsx:
 * every thread profiled into <dir>), and each thread's phases and top functions printed (timings inflated).
 *
 * Writes bench/out/cube-results.md and bench/out/cube-results.json (a profile: cube-profile.md and .json; the anchor's
 * rows: bench/out/cube/anchor.ndjson).
 * Environment: BENCH_CUBE_RUNS (3), BENCH_LATENCY_MS (20), BENCH_CUBE_SAMPLE_MS (200), BENCH_CUBE_SCALING (1),
 * BENCH_CUBE_PROFILE (unset), BENCH_CUBE_V3 (0), BENCH_CUBE_FIRST (1), BENCH_WAIT_IDLE_S (120), BENCH_TIMEOUT_S (1800 per request). The service inherits
 * the environment (ZONAL_WORKERS and the limits apply).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { DATA_DIR, logKey, OUT_DIR, ROOT, startChild, startServer, startService, type Child } from '../lib/child.ts';
import { summarise } from '../lib/cpuprofile.ts';
import { rssOf, waitIdle as waitIdleFor, Watch } from '../lib/machine.ts';
import { f1, f2, int, median, num, runMeta, say, sci } from '../lib/report.ts';

const CUBE_DIR = join(DATA_DIR, 'cube');
const STORE = 'cube/era5_t2m.zarr';
/** BENCH_CUBE_V3=1: the service reads the store's Zarr v3 copy (make-v3.py: the same chunk files); the anchor the v2 one. */
const SERVICE_STORE = process.env['BENCH_CUBE_V3'] === '1' ? 'cube/era5_t2m_v3.zarr' : STORE;
const DISTRICTS = join(CUBE_DIR, 'districts.geojson');
const ANCHOR = join(ROOT, 'bench', 'cube', 'anchor.py');
const ANCHOR_OUT = join(OUT_DIR, 'cube', 'anchor.ndjson');
const PYTHON = '/usr/bin/python3';
const ENDPOINT = '/api/v1/zonal-stats/cube';
const VARIABLE = 't2m';
const STATS = ['mean', 'count', 'min', 'max'] as const;
const STEPS = 8760;
const ZONES = 100;

const RUNS = num('BENCH_CUBE_RUNS', 3);
const LATENCY = num('BENCH_LATENCY_MS', 20);
const SAMPLE_MS = num('BENCH_CUBE_SAMPLE_MS', 200);
const SCALING = num('BENCH_CUBE_SCALING', 1) === 1;
const PROFILE = process.env['BENCH_CUBE_PROFILE'];
const WAIT_IDLE_S = num('BENCH_WAIT_IDLE_S', 120);
const TIMEOUT_MS = num('BENCH_TIMEOUT_S', 1800) * 1000;
/** 1: the measured request is the service's second of its kind (the first reported beside it); 0: its first. */
const FIRST = num('BENCH_CUBE_FIRST', 1) === 1;
const HEALTH_MS = num('BENCH_CUBE_HEALTH_MS', 100);

// The targets (issue 25) and the comparison's tolerance.
const T_RATIO = 1.0;
const T_MEM_MIB = 600;
const TOL = 1e-9;
/** Other jobs' share of the CPU under which a measurement counts as quiet, %. */
const QUIET = 10;
/** The scaling part: `sel` end dates and their step counts (from 2021-01-01). */
const SCALES: [string, number][] = [
  ['2021-01-31', 744],
  ['2021-03-31', 2160],
  ['2021-06-30', 4344],
];

const waitIdle = (what: string) => waitIdleFor(WAIT_IDLE_S, what);

// ------------------------------------------------------------------------------------------------
// CPU: /proc (bench/lib/machine.ts)

// ------------------------------------------------------------------------------------------------
// the range server (bench/raster/server.ts) and the service

type Logged = [method: string, path: string, start: number, end: number, status: number, bytes: number];

interface Reads {
  requests: number;
  chunkReads: number;
  distinctChunks: number;
  /** Chunk objects read more than once in the request. */
  rereads: number;
  bytes: number;
  other: string[];
  statuses: Record<string, number>;
}

async function serverLog(port: number): Promise<Reads> {
  const log = (await (await fetch(`http://127.0.0.1:${port}/__log?reset=1`)).json()) as Logged[];
  const chunks = new Map<string, number>();
  const other: string[] = [];
  const statuses: Record<string, number> = {};
  let bytes = 0;
  for (const [method, path, , , status, b] of log) {
    bytes += b;
    statuses[`${method} ${status}`] = (statuses[`${method} ${status}`] ?? 0) + 1;
    // A chunk's key: v2 `t2m/0.1.2`, v3 `t2m/c/0/1/2`.
    const m = /\/t2m\/(?:c\/)?(\d+[./]\d+[./]\d+)$/.exec(path);
    if (m) chunks.set(m[1]!.replaceAll('/', '.'), (chunks.get(m[1]!.replaceAll('/', '.')) ?? 0) + 1);
    else other.push(path.replace(/^\/d\d+\/cube\/era5_t2m(_v3)?\.zarr\//, ''));
  }
  let chunkReads = 0;
  let rereads = 0;
  for (const n of chunks.values()) {
    chunkReads += n;
    if (n > 1) rereads++;
  }
  return { requests: log.length, chunkReads, distinctChunks: chunks.size, rereads, bytes, other, statuses };
}

interface Service {
  pid: number;
  port: number;
  log: string[];
  stop(): Promise<void>;
}

const live = new Set<Service>();
let files: Child | undefined;

async function startCubeService(profileDir?: string): Promise<Service> {
  const env = {
    ZONAL_WORKERS: process.env['ZONAL_WORKERS'] ?? '2',
    ZONAL_ALLOW_PRIVATE_NETWORKS: process.env['ZONAL_ALLOW_PRIVATE_NETWORKS'] ?? '127.0.0.1/32',
  };
  let s: Service;
  if (profileDir !== undefined) {
    // bench/lib/service.ts through tsx (src/), every thread under V8's profiler
    const c = await startService({ ...env, LOG_LEVEL: 'warn', ZONAL_DATA_ROOTS: DATA_DIR }, { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] });
    s = { pid: c.pid, port: c.port, log: c.stderr, stop: async () => (live.delete(s), await c.stop()) };
  } else {
    const srv = await startServer('the service', env);
    s = { pid: srv.pid, port: srv.port, log: srv.log, stop: async () => (live.delete(s), await srv.signal('SIGTERM', 20_000)) };
  }
  live.add(s);
  return s;
}

/** Problems the service logged at warn and above (pino JSON), message: count. */
const logged = new Map<string, number>();
function noteLog(s: Service): void {
  for (const l of s.log) {
    const key = logKey(l, 300);
    if (key !== undefined) logged.set(key, (logged.get(key) ?? 0) + 1);
  }
  s.log.length = 0;
}

/** The request's body: every step, or `sel` of the days start..end (a date-only end takes its whole day). */
/**
 * GET /metrics as sample → value, asked again (every 500 ms, 20 times at most) while the service answers 503: its
 * under-pressure check sheds requests for a while after a long event-loop delay. Returns the 503s seen too.
 */
async function scrapeOk(port: number): Promise<{ m: Map<string, number>; refused: number }> {
  let refused = 0;
  for (let i = 0; i < 20; i++) {
    const res = await fetch(`http://127.0.0.1:${port}/metrics`);
    const text = await res.text();
    if (res.status === 200) {
      const m = new Map<string, number>();
      for (const line of text.split('\n')) {
        if (line === '' || line.startsWith('#')) continue;
        const sp = line.lastIndexOf(' ');
        m.set(line.slice(0, sp), Number(line.slice(sp + 1)));
      }
      return { m, refused };
    }
    refused++;
    await new Promise((r) => setTimeout(r, 500));
  }
  return { m: new Map(), refused };
}

/**
 * GET /health every HEALTH_MS while a request runs (the event loop's responsiveness: a probe waits while the
 * main thread never returns to it): each probe's start (ms from `t0`), latency and status.
 */
function healthProbe(port: number, t0: number): { stop(): Promise<[number, number, number][]> } {
  const probes: [number, number, number][] = [];
  let done = false;
  const loop = (async () => {
    while (!done) {
      const t = performance.now();
      const status = await fetch(`http://127.0.0.1:${port}/health`).then(
        async (r) => (await r.text(), r.status),
        () => 0,
      );
      probes.push([Math.round(t - t0), Math.round(performance.now() - t), status]);
      await new Promise((r) => setTimeout(r, HEALTH_MS));
    }
  })();
  return {
    stop: async () => {
      done = true;
      await loop;
      return probes;
    },
  };
}

function bodyOf(storeUrl: string, days?: [start: string, end: string]): string {
  const aoi = readFileSync(DISTRICTS, 'utf8');
  const sel = days === undefined ? '' : `,"sel":{"time":{"start":"${days[0]}","end":"${days[1]}"}}`;
  return `{"url":${JSON.stringify(storeUrl)},"variable":"${VARIABLE}","stats":${JSON.stringify(STATS)},"pixels":"fractional"${sel},"aoi":${aoi}}`;
}

interface Answer {
  status: number;
  ms: number;
  firstByteMs: number;
  bytes: number;
  chunks: Buffer[];
  problem: string | undefined;
  /** The Watch given to post, stopped when curl exits. */
  cpu?: ReturnType<Watch['stop']>;
}

/** The request's body and the service's answer, as files for curl (post). */
const BODY_FILE = join(OUT_DIR, 'cube', 'request.json');
const ANSWER_FILE = join(OUT_DIR, 'cube', 'service.ndjson');

/**
 * One request through curl, its answer written to a file: the client as light as a user's curl on another
 * machine. The driver read the answer through fetch until 2026-11-28: 0.5–1.2 s of CPU for the 228 MB, on the
 * two cores the service answers with (curl into a file: ~0.2 s, most of it the kernel's). The first byte: the answer file's size, polled every
 * 5 ms (curl's own time_starttransfer is the headers', which come at once).
 */
async function post(port: number, body: string, watch?: Watch): Promise<Answer> {
  mkdirSync(join(OUT_DIR, 'cube'), { recursive: true });
  writeFileSync(BODY_FILE, body);
  rmSync(ANSWER_FILE, { force: true });
  const t = performance.now();
  let firstByteMs = NaN;
  const poll = setInterval(() => {
    if (Number.isNaN(firstByteMs) && existsSync(ANSWER_FILE) && statSync(ANSWER_FILE).size > 0) firstByteMs = performance.now() - t;
  }, 5);
  const args = ['-sS', '--max-time', String(TIMEOUT_MS / 1000), '-o', ANSWER_FILE, '-w', '%{http_code}'];
  args.push(
    '-H',
    'content-type: application/json',
    '-H',
    'accept: application/x-ndjson',
    '--data-binary',
    `@${BODY_FILE}`,
    `http://127.0.0.1:${port}${ENDPOINT}`,
  );
  let out: string;
  try {
    out = await new Promise<string>((resolve, reject) => {
      const p = spawn('curl', args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let text = '';
      let err = '';
      p.stdout.on('data', (d: Buffer) => (text += d.toString()));
      p.stderr.on('data', (d: Buffer) => (err += d.toString()));
      p.on('error', reject);
      p.on('close', (code) => (code === 0 ? resolve(text) : reject(new Error(`curl exited with ${code}: ${err.trim()}`))));
    });
  } finally {
    clearInterval(poll);
  }
  const ms = performance.now() - t;
  // The CPU counts end with curl: reading the answer back into this driver (page faults for 228 MB) is not the request's.
  const cpu = watch?.stop();
  const status = Number(out.trim());
  const answer = existsSync(ANSWER_FILE) ? readFileSync(ANSWER_FILE) : Buffer.alloc(0);
  rmSync(ANSWER_FILE, { force: true });
  const problem = status === 200 ? undefined : `HTTP ${status}: ${answer.toString('utf8').slice(0, 600)}`;
  return { status, ms, firstByteMs, bytes: answer.length, chunks: [answer], problem, ...(cpu ? { cpu } : {}) };
}

// ------------------------------------------------------------------------------------------------
// rows: both sides' NDJSON in one layout, then compared

interface Rows {
  n: number;
  /** Per row k = zone × STEPS + step: mean, count, min, max (NaN for null). */
  values: Float64Array;
  index: Int32Array;
  id: string[];
  time: string[];
  /** Error rows (a zone's own problem), not counted in n. */
  errorRows: number;
  errors: string[];
  other: string[];
}

function parseRows(lines: Iterable<string>, expected: number): Rows {
  const r: Rows = {
    n: 0,
    values: new Float64Array(expected * 4).fill(NaN),
    index: new Int32Array(expected).fill(-1),
    id: [],
    time: [],
    errorRows: 0,
    errors: [],
    other: [],
  };
  for (const line of lines) {
    if (line.trim() === '') continue;
    const o = JSON.parse(line) as {
      index?: number;
      id?: unknown;
      time?: string;
      statistics?: Record<string, Record<string, number | null>>;
      error?: { code: string; detail: string };
    };
    if (typeof o.index !== 'number') {
      if (r.other.length < 5) r.other.push(line.slice(0, 300));
      continue;
    }
    if (o.error) {
      r.errorRows++;
      if (r.errors.length < 5) r.errors.push(`zone ${o.index}: ${o.error.code}: ${o.error.detail}`);
      continue;
    }
    const k = r.n++;
    if (k >= expected) continue;
    r.index[k] = o.index;
    r.id[k] = String(o.id);
    r.time[k] = String(o.time);
    const s = o.statistics?.[VARIABLE];
    STATS.forEach((name, j) => {
      const v = s?.[name];
      r.values[k * 4 + j] = typeof v === 'number' ? v : NaN;
    });
  }
  return r;
}

function* linesOf(buf: Buffer): Generator<string> {
  let at = 0;
  while (at < buf.length) {
    let nl = buf.indexOf(10, at);
    if (nl < 0) nl = buf.length;
    yield buf.toString('utf8', at, nl);
    at = nl + 1;
  }
}

interface Compare {
  serviceRows: number;
  anchorRows: number;
  serviceErrors: string[];
  inOrder: boolean;
  orderProblems: string[];
  maxRel: Record<string, number>;
  nullMismatches: number;
  mismatches: number;
  first: string[];
  nullRows: number;
}

function compare(svc: Rows, anc: Rows): Compare {
  const c: Compare = {
    serviceRows: svc.n,
    anchorRows: anc.n,
    serviceErrors: [...svc.errors, ...svc.other],
    inOrder: true,
    orderProblems: [],
    maxRel: Object.fromEntries(STATS.map((s) => [s, 0])),
    nullMismatches: 0,
    mismatches: 0,
    first: [],
    nullRows: 0,
  };
  const n = Math.min(svc.n, anc.n, ZONES * STEPS);
  for (let k = 0; k < n; k++) {
    if (svc.index[k] !== anc.index[k] || svc.id[k] !== anc.id[k] || svc.time[k] !== anc.time[k]) {
      c.inOrder = false;
      if (c.orderProblems.length < 5)
        c.orderProblems.push(`row ${k}: service ${svc.index[k]} ${svc.id[k]} ${svc.time[k]} vs anchor ${anc.index[k]} ${anc.id[k]} ${anc.time[k]}`);
    }
    let bad = false;
    if (Number.isNaN(anc.values[k * 4]!)) c.nullRows++;
    STATS.forEach((name, j) => {
      const x = svc.values[k * 4 + j]!;
      const y = anc.values[k * 4 + j]!;
      if (Number.isNaN(x) && Number.isNaN(y)) return;
      if (Number.isNaN(x) !== Number.isNaN(y)) {
        c.nullMismatches++;
        bad = true;
        return;
      }
      const rel = Math.abs(x - y) / Math.max(Math.abs(y), 1e-300);
      if (rel > c.maxRel[name]!) c.maxRel[name] = rel;
      if (!(rel <= TOL)) bad = true;
    });
    if (bad) {
      c.mismatches++;
      if (c.first.length < 5) {
        const show = (r: Rows) => JSON.stringify(Object.fromEntries(STATS.map((s, j) => [s, r.values[k * 4 + j]])));
        c.first.push(`row ${k} (${anc.id[k]} ${anc.time[k]}): service ${show(svc)} vs anchor ${show(anc)}`);
      }
    }
  }
  return c;
}

// ------------------------------------------------------------------------------------------------
// one request of the service, one run of the anchor

interface ServiceSide {
  steps: number;
  status: number;
  ms: number;
  firstByteMs: number;
  bytes: number;
  rows: number;
  warmUpMs: number;
  /** The same request once before, right after the one-day warm-up (BENCH_CUBE_FIRST), ms; NaN when not made. */
  firstMs: number;
  /** VmHWM over the request (reset after the warm-up), VmHWM since start, VmRSS before, peak of the samples. */
  hwmMiB: number;
  hwmSinceStartMiB: number;
  rssBeforeMiB: number;
  sampledPeakMiB: number;
  series: [number, number][];
  cpuS: number;
  mainS: number;
  /** CPU seconds over the request of the range server (the object store's stand-in, on the same cores) and of this driver (the client). */
  upstreamS: number;
  driverS: number;
  others: number;
  reads: Reads;
  workerPhases: Record<string, number>;
  /** GET /health during the request: probes, the slowest (its start from the send, ms; its latency, ms), non-200s. */
  health: { probes: number; slowestAtMs: number; slowestMs: number; notOk: number };
  /** GET /metrics answered 503 (overloaded) before and after the request, times. */
  metricsRefused: number;
  problem: string | undefined;
}

/** A fresh service: the warm-up, VmHWM reset, then the request (all steps, or `sel` up to `end`). */
async function serviceRequest(
  fport: number,
  end: string | undefined,
  steps: number,
  keep: boolean,
  profileDir?: string,
): Promise<{ side: ServiceSide; answer: Answer | undefined }> {
  const storeUrl = `http://127.0.0.1:${fport}/d${LATENCY}/${SERVICE_STORE}`;
  const svc = await startCubeService(profileDir);
  try {
    const w = await post(svc.port, bodyOf(storeUrl, ['2021-12-31', '2021-12-31']));
    if (w.problem) throw new Error(`warm-up: ${w.problem}`);
    // The same request once before the measured one (BENCH_CUBE_FIRST=1): a service runs for days, and the
    // first large request after its start pays V8's compiles of the paths a one-day warm-up leaves cold.
    let first: Answer | undefined;
    if (FIRST) {
      await waitIdle(`the service's first request (${int(steps)} steps)`);
      first = await post(svc.port, bodyOf(storeUrl, end === undefined ? undefined : ['2021-01-01', end]));
      if (first.problem) throw new Error(`first request: ${first.problem}`);
      first.chunks.length = 0;
    }
    const hwmSinceStartWarm = rssOf(svc.pid).hwm;
    await serverLog(fport);
    await waitIdle(`the service's request (${int(steps)} steps)`);
    let hwmReset = true;
    try {
      writeFileSync(`/proc/${svc.pid}/clear_refs`, '5');
    } catch {
      hwmReset = false;
    }
    const rssBefore = rssOf(svc.pid).rss;
    const s0 = await scrapeOk(svc.port);
    const series: [number, number][] = [];
    let peak = rssBefore;
    const watch = new Watch(svc.pid, files?.proc.pid);
    const t0 = performance.now();
    const probe = healthProbe(svc.port, t0);
    const timer = setInterval(() => {
      const { rss } = rssOf(svc.pid);
      if (Number.isNaN(rss)) return;
      peak = Math.max(peak, rss);
      series.push([Math.round(performance.now() - t0), Math.round(rss)]);
    }, SAMPLE_MS);
    let a: Answer;
    try {
      a = await post(svc.port, bodyOf(storeUrl, end === undefined ? undefined : ['2021-01-01', end]), watch);
    } finally {
      clearInterval(timer);
    }
    const cpu = a.cpu ?? watch.stop();
    const mem = rssOf(svc.pid);
    const probes = await probe.stop();
    const slowest = probes.reduce((a, b) => (b[1] > a[1] ? b : a), [NaN, 0, 0] as [number, number, number]);
    const s1 = await scrapeOk(svc.port);
    const [m0, m1] = [s0.m, s1.m];
    const reads = await serverLog(fport);
    const workerPhases: Record<string, number> = {};
    for (const [k, v] of m1) {
      const p = /^zonal_fold_phase_seconds_total\{phase="([^"]+)"\}$/.exec(k);
      if (p) workerPhases[p[1]!] = v - (m0.get(k) ?? 0);
    }
    let rows = 0;
    for (const ch of a.chunks) for (let i = ch.indexOf(10); i >= 0; i = ch.indexOf(10, i + 1)) rows++;
    const side: ServiceSide = {
      steps,
      status: a.status,
      ms: a.ms,
      firstByteMs: a.firstByteMs,
      bytes: a.bytes,
      rows,
      warmUpMs: w.ms,
      firstMs: first?.ms ?? NaN,
      hwmMiB: hwmReset ? mem.hwm : NaN,
      hwmSinceStartMiB: Math.max(mem.hwm, hwmSinceStartWarm),
      rssBeforeMiB: rssBefore,
      sampledPeakMiB: peak,
      series,
      cpuS: cpu.serviceCpuS,
      mainS: cpu.serviceMainS,
      upstreamS: cpu.upstreamCpuS,
      driverS: cpu.driverCpuS,
      others: cpu.othersPct,
      reads,
      workerPhases,
      health: { probes: probes.length, slowestAtMs: slowest[0], slowestMs: slowest[1], notOk: probes.filter((p) => p[2] !== 200).length },
      metricsRefused: s0.refused + s1.refused,
      problem: a.problem,
    };
    if (!keep) a.chunks.length = 0;
    return { side, answer: keep ? a : undefined };
  } finally {
    noteLog(svc);
    await svc.stop();
  }
}

interface AnchorSide {
  wallMs: number;
  others: number;
  phases: Record<string, number | string | number[]>;
}

async function runAnchor(): Promise<AnchorSide> {
  mkdirSync(join(OUT_DIR, 'cube'), { recursive: true });
  await waitIdle('the anchor');
  const watch = new Watch(undefined);
  const t = performance.now();
  const out = await new Promise<string>((resolve, reject) => {
    const p = spawn(PYTHON, [ANCHOR, join(DATA_DIR, STORE), DISTRICTS, ANCHOR_OUT], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let so = '';
    let se = '';
    p.stdout.on('data', (d: Buffer) => (so += d.toString()));
    p.stderr.on('data', (d: Buffer) => (se += d.toString()));
    p.once('error', reject);
    p.once('exit', (code) => (code === 0 ? resolve(so) : reject(new Error(`anchor.py failed (${code}): ${se.slice(-2000)}`))));
  });
  const wallMs = performance.now() - t;
  const others = watch.stop().othersPct;
  return { wallMs, others, phases: JSON.parse(out.trim().split('\n').pop()!) as AnchorSide['phases'] };
}

// ------------------------------------------------------------------------------------------------
// the report

interface Run {
  run: number;
  order: string;
  service: ServiceSide;
  anchor: AnchorSide;
  check: Compare | undefined;
}

interface Report {
  meta: Record<string, string | number>;
  runs: Run[];
  scaling: ServiceSide[];
  profile?: { file: string; totalMs: number; phases: Record<string, number>; top: [string, number][] }[];
  errors: string[];
}

const anchorCompute = (a: AnchorSide) => Number(a.phases['compute_s']) * 1000;
const verdict = (ok: boolean | undefined) => (ok === undefined ? '–' : ok ? '**PASS**' : '**FAIL**');
const rowsOk = (c: Compare | undefined) =>
  c !== undefined &&
  c.serviceRows === ZONES * STEPS &&
  c.anchorRows === ZONES * STEPS &&
  c.inOrder &&
  c.serviceErrors.length === 0 &&
  c.mismatches === 0 &&
  c.nullMismatches === 0;

function render(r: Report): string {
  const L: string[] = [`# Cube benchmark (issue 25): ${r.meta['date']}`, ''];
  L.push(
    `Machine: ${r.meta['cpus']}; ${r.meta['memory']}; Node ${process.version}; commit ${r.meta['commit']}; anchor ${r.meta['anchor'] ?? '?'}. ` +
      `1-min load average ${r.meta['loadStart']} → ${r.meta['loadEnd']}; machine busy in the 3 s before: ${r.meta['busyBefore']} %. ` +
      `Latency ${LATENCY} ms per upstream request; the service with ZONAL_WORKERS=${process.env['ZONAL_WORKERS'] ?? '2'}, reading ${SERVICE_STORE}.`,
    '',
    `## Runs: 100 districts × 8,760 hourly steps, one request against the anchor (local files, one core)`,
    '',
    "| run | order | service s | first byte s | its first such request s | anchor compute s | anchor process s | service / anchor compute | service / anchor process | service CPU s (main thread) | range server; client CPU s | anchor CPU s | VmHWM MiB (request; since start) | sampled peak MiB | reads (chunks, distinct, twice) | MB read | answer MB | slowest GET /health s (sent at s) | other jobs' CPU % (service; anchor) | rows |",
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  );
  for (const x of r.runs) {
    const s = x.service;
    const a = x.anchor;
    L.push(
      `| ${x.run} | ${x.order} | ${f2(s.ms / 1000)} | ${f2(s.firstByteMs / 1000)} | ${f2(s.firstMs / 1000)} | ${f2(anchorCompute(a) / 1000)} | ${f2(a.wallMs / 1000)} | ${f2(s.ms / anchorCompute(a))} | ${f2(s.ms / a.wallMs)} | ${f1(s.cpuS)} (${f1(s.mainS)}) | ${f2(s.upstreamS)}; ${f2(s.driverS)} | ${f1(Number(a.phases['cpu_s']))} | ${f1(s.hwmMiB)}; ${f1(s.hwmSinceStartMiB)} | ${f1(s.sampledPeakMiB)} | ${int(s.reads.requests)} (${int(s.reads.chunkReads)}, ${int(s.reads.distinctChunks)}, ${int(s.reads.rereads)}) | ${f1(s.reads.bytes / 1e6)} | ${f1(s.bytes / 1e6)} | ${f2(s.health.slowestMs / 1000)} (${f2(s.health.slowestAtMs / 1000)}) | ${f1(s.others)}; ${f1(a.others)} | ${x.check ? (rowsOk(x.check) ? 'all equal' : `${int(x.check.mismatches + x.check.nullMismatches)} differ`) : 'not checked'} |`,
    );
  }
  L.push('');
  if (r.runs.length) {
    const a = r.runs[r.runs.length - 1]!.anchor.phases;
    L.push(
      `Anchor phases (last run): imports ${f2(Number(a['imports_s']))} s (not counted), open ${f2(Number(a['open_s']))} s, weights ${f2(Number(a['weights_s']))} s, read + CF decode ${f2(Number(a['read_decode_s']))} s, stats ${f2(Number(a['stats_s']))} s → compute ${f2(Number(a['compute_s']))} s (CPU ${f2(Number(a['compute_cpu_s']))} s); NDJSON writing ${f2(Number(a['write_s']))} s; peak RSS ${f1(Number(a['peak_rss_mib']))} MiB, ${String(a['threads'])} thread(s); ${int(Number(a['cells']))} weighted cells, window ${JSON.stringify(a['window'])}.`,
      '',
    );
    const s = r.runs[r.runs.length - 1]!.service;
    L.push(
      `Service (last run): warm-up (one day of December) ${f2(s.warmUpMs / 1000)} s, then ${FIRST ? `the same request once (${f2(s.firstMs / 1000)} s)` : 'no request of its kind'}; GET /health every ${HEALTH_MS} ms during the request: ${s.health.probes} probes, the slowest ${f2(s.health.slowestMs / 1000)} s (sent ${f2(s.health.slowestAtMs / 1000)} s after the request, whose first byte came at ${f2(s.firstByteMs / 1000)} s), ${s.health.notOk} not 200; GET /metrics refused with 503 ${s.metricsRefused}× around it; workers' phases (/metrics, seconds summed over threads): ${Object.entries(
        s.workerPhases,
      )
        .map(([k, v]) => `${k} ${f1(v)}`)
        .join(', ')}; range server answers ${JSON.stringify(s.reads.statuses)}, besides the chunks: ${s.reads.other.join(', ') || 'nothing'}.`,
      '',
    );
    L.push('Row checks (every row, 100 × 8,760; mean, count, min, max within 1e-9 relative):', '');
    for (const x of r.runs) {
      const c = x.check;
      if (!c) continue;
      L.push(
        `- run ${x.run}: ${int(c.serviceRows)} service rows, ${int(c.anchorRows)} anchor rows; order ${c.inOrder ? 'equal' : `DIFFERS (${c.orderProblems.join('; ')})`}; max relative difference ${STATS.map((k) => `${k} ${sci(c.maxRel[k]!)}`).join(', ')}; ${int(c.nullRows)} rows with no valid cell (null on both sides: ${c.nullMismatches === 0 ? 'yes' : `no, ${c.nullMismatches} differ`}); ${int(c.mismatches)} rows beyond 1e-9${c.first.length ? `: ${c.first.join('; ')}` : ''}${c.serviceErrors.length ? `; service errors: ${c.serviceErrors.join('; ')}` : ''}`,
      );
    }
    L.push('');
  }
  if (r.scaling.length) {
    L.push(
      '## Peak RSS against the number of steps (fresh, warmed-up service each; VmHWM over the request)',
      '',
      "| steps | rows | service s | first byte s | ms per step | VmHWM MiB (request; since start) | VmRSS before MiB | sampled peak MiB | answer MB | slowest GET /health s | other jobs' CPU % |",
      '|---|---|---|---|---|---|---|---|---|---|---|',
    );
    const all = [...r.scaling, ...r.runs.map((x) => x.service)];
    for (const s of all) {
      L.push(
        `| ${int(s.steps)} | ${int(s.rows)} | ${f2(s.ms / 1000)} | ${f2(s.firstByteMs / 1000)} | ${f1(s.ms / s.steps)} | ${f1(s.hwmMiB)}; ${f1(s.hwmSinceStartMiB)} | ${f1(s.rssBeforeMiB)} | ${f1(s.sampledPeakMiB)} | ${f1(s.bytes / 1e6)} | ${f2(s.health.slowestMs / 1000)} | ${f1(s.others)} |`,
      );
    }
    L.push('');
  }
  if (r.profile) {
    L.push('## CPU profile (node --cpu-prof, every thread; timings inflated by the profiler)', '');
    for (const t of r.profile) {
      L.push(
        `- ${t.file}: ${f1(t.totalMs / 1000)} s sampled; ${Object.entries(t.phases)
          .sort((a, b) => b[1] - a[1])
          .map(([k, v]) => `${k} ${f1(v / 1000)}`)
          .join(', ')}`,
      );
      L.push(`  top self time: ${t.top.map(([k, v]) => `${k} ${f1(v / 1000)} s`).join('; ')}`);
    }
    L.push('');
  }
  L.push('## Targets', '', '| target | measured | verdict |', '|---|---|---|');
  if (r.runs.length) {
    const ratios = r.runs.map((x) => x.service.ms / anchorCompute(x.anchor));
    const quiet = r.runs.filter((x) => x.service.others < QUIET && x.anchor.others < QUIET).map((x) => x.service.ms / anchorCompute(x.anchor));
    L.push(
      `| one request ≤ ${T_RATIO}× the anchor's time (its compute: open, weights, read, stats; median of ${ratios.length}) | ${ratios.map(f2).join(', ')} → ${f2(median(ratios))} | ${verdict(median(ratios) <= T_RATIO)} |`,
    );
    L.push(
      `| the same, runs with other jobs' CPU < ${QUIET} % on both sides | ${quiet.length ? `${quiet.map(f2).join(', ')} → ${f2(median(quiet))}` : 'none'} | ${verdict(quiet.length ? median(quiet) <= T_RATIO : undefined)} |`,
    );
    const firsts = r.runs.filter((x) => Number.isFinite(x.service.firstMs));
    if (firsts.length) {
      const c = firsts.map((x) => x.service.firstMs / anchorCompute(x.anchor));
      const p = firsts.map((x) => x.service.firstMs / x.anchor.wallMs);
      L.push(
        `| (for information) the service's first request of its kind (after a one-day warm-up only), against the anchor's compute; its whole process | ${c.map(f2).join(', ')} → ${f2(median(c))}; ${p.map(f2).join(', ')} → ${f2(median(p))} | – |`,
      );
    }
    const proc = r.runs.map((x) => x.service.ms / x.anchor.wallMs);
    L.push(
      `| (for information) against the anchor's whole process: imports and writing its NDJSON included | ${proc.map(f2).join(', ')} → ${f2(median(proc))} | – |`,
    );
    const slow = r.runs.map((x) => x.service.health.slowestMs / 1000);
    L.push(
      `| (for information, not a target of issue 25) the slowest GET /health during the request, s: the event loop's longest wait | ${slow.map(f2).join(', ')} | – |`,
    );
    const ok = r.runs.every((x) => rowsOk(x.check));
    L.push(
      `| every row (100 × 8,760) equal to the anchor's within ${sci(TOL)} | ${ok ? `all equal in ${r.runs.length} run(s)` : `${r.runs.filter((x) => !rowsOk(x.check)).length} run(s) differ (above)`} | ${verdict(ok)} |`,
    );
  }
  // VmHWM since start covers the first request of its kind too (BENCH_CUBE_FIRST).
  const peakOf = (s: ServiceSide): number =>
    Math.max(Number.isFinite(s.hwmMiB) ? s.hwmMiB : s.sampledPeakMiB, Number.isFinite(s.hwmSinceStartMiB) ? s.hwmSinceStartMiB : 0);
  const peaks = [...r.runs.map((x) => x.service), ...r.scaling].map(peakOf);
  if (peaks.length) {
    const peak = Math.max(...peaks);
    L.push(
      `| peak RSS ≤ ${T_MEM_MIB} MiB for that request, whatever the number of steps | ${[...r.scaling, ...r.runs.map((x) => x.service)].map((s) => `${int(s.steps)} steps ${f1(peakOf(s))}`).join(', ')} MiB (since the service's start) | ${verdict(peak <= T_MEM_MIB)} |`,
    );
  }
  L.push('');
  if (r.errors.length) L.push('Errors:', '', ...r.errors.map((e) => `- ${e.replace(/\n/g, ' ')}`), '');
  if (logged.size) L.push('The service logged (warn and above), count × message:', '', ...[...logged].map(([k, n]) => `- ${n} × ${k.replace(/`/g, "'")}`), '');
  L.push(
    "Other jobs' CPU: the share of the machine's CPU used by processes other than this benchmark's (its driver, the range server, the service and the anchor) during that measurement; above ~10 % the timing is inflated.",
  );
  return L.join('\n') + '\n';
}

/** The report's files: cube-results.md and .json, or cube-profile.md and .json for a profile (which never overwrites the runs' results). */
const REPORT_NAME = PROFILE === undefined ? 'cube-results' : 'cube-profile';

function writeReport(report: Report): string {
  report.meta['loadEnd'] = loadavg()[0]!.toFixed(2);
  const md = render(report);
  writeFileSync(join(OUT_DIR, `${REPORT_NAME}.md`), md);
  writeFileSync(join(OUT_DIR, `${REPORT_NAME}.json`), JSON.stringify(report, null, 1));
  return md;
}

// ------------------------------------------------------------------------------------------------

function describeService(s: ServiceSide): string {
  return `${f2(s.ms / 1000)} s (first byte ${f2(s.firstByteMs / 1000)} s), ${int(s.rows)} rows, ${f1(s.bytes / 1e6)} MB; VmHWM ${f1(s.hwmMiB)} MiB over the request (${f1(s.hwmSinceStartMiB)} since start); CPU ${f1(s.cpuS)} s (main ${f1(s.mainS)} s), the range server's ${f2(s.upstreamS)} s, the client's ${f2(s.driverS)} s; ${int(s.reads.chunkReads)} chunk reads (${int(s.reads.distinctChunks)} distinct), ${f1(s.reads.bytes / 1e6)} MB; GET /health: slowest ${f2(s.health.slowestMs / 1000)} s (sent at ${f2(s.health.slowestAtMs / 1000)} s), ${s.health.notOk} not 200; /metrics refused ${s.metricsRefused}×; other jobs ${f1(s.others)} %`;
}

async function oneRun(report: Report, fport: number, run: number): Promise<void> {
  const serviceFirst = run % 2 === 1;
  const order = serviceFirst ? 'service, anchor' : 'anchor, service';
  say(`run ${run} (${order}):`);
  let anchor: AnchorSide | undefined;
  if (!serviceFirst) {
    anchor = await runAnchor();
    say(
      `  anchor: compute ${f2(anchorCompute(anchor) / 1000)} s, process ${f2(anchor.wallMs / 1000)} s, peak RSS ${f1(Number(anchor.phases['peak_rss_mib']))} MiB; other jobs ${f1(anchor.others)} %`,
    );
  }
  const { side, answer } = await serviceRequest(fport, undefined, STEPS, true);
  say(`  service: ${describeService(side)}`);
  if (side.problem) report.errors.push(`run ${run}: ${side.problem}`);
  if (anchor === undefined) {
    anchor = await runAnchor();
    say(
      `  anchor: compute ${f2(anchorCompute(anchor) / 1000)} s, process ${f2(anchor.wallMs / 1000)} s, peak RSS ${f1(Number(anchor.phases['peak_rss_mib']))} MiB; other jobs ${f1(anchor.others)} %`,
    );
  }
  report.meta['anchor'] = String(anchor.phases['versions']);
  let check: Compare | undefined;
  if (answer && answer.status === 200) {
    const svcRows = parseRows(linesOf(Buffer.concat(answer.chunks)), ZONES * STEPS);
    answer.chunks.length = 0;
    const ancRows = parseRows(linesOf(readFileSync(ANCHOR_OUT)), ZONES * STEPS);
    check = compare(svcRows, ancRows);
    say(
      `  rows: ${rowsOk(check) ? 'all equal' : `${int(check.mismatches)} differ beyond ${sci(TOL)}, ${int(check.nullMismatches)} null on one side only, order ${check.inOrder ? 'equal' : 'differs'}, ${int(check.serviceRows)} / ${int(check.anchorRows)} rows`}; max relative difference ${STATS.map((k) => `${k} ${sci(check!.maxRel[k]!)}`).join(', ')}`,
    );
    for (const f of [...check.first, ...check.orderProblems, ...check.serviceErrors]) say(`    ${f}`);
  }
  say(`  service / anchor: ${f2(side.ms / anchorCompute(anchor))} (compute), ${f2(side.ms / anchor.wallMs)} (whole process)`);
  report.runs.push({ run, order, service: side, anchor, check });
}

async function profileRun(report: Report, fport: number): Promise<void> {
  const dir = PROFILE as string;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const { side } = await serviceRequest(fport, undefined, STEPS, false, dir);
  say(`  service under --cpu-prof: ${describeService(side)}`);
  await new Promise((r) => setTimeout(r, 1000));
  report.profile = summarise(dir).map((t) => {
    const p = JSON.parse(readFileSync(join(dir, t.file), 'utf8')) as {
      nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
      samples: number[];
      timeDeltas: number[];
    };
    const byId = new Map(p.nodes.map((n) => [n.id, n]));
    const self = new Map<string, number>();
    p.samples.forEach((id, i) => {
      const n = byId.get(id);
      const k = n
        ? `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*\/(src|node_modules)\//, '$1/')}:${n.callFrame.lineNumber + 1}`
        : '(unknown)';
      self.set(k, (self.get(k) ?? 0) + (p.timeDeltas[i] ?? 0) / 1000);
    });
    return { file: t.file, totalMs: t.totalMs, phases: Object.fromEntries(t.phases), top: [...self].sort((a, b) => b[1] - a[1]).slice(0, 12) };
  });
  for (const t of report.profile) {
    say(`  ${t.file}: ${f1(t.totalMs / 1000)} s sampled`);
    for (const [k, v] of t.top) say(`    ${f2(v / 1000).padStart(7)} s ${k}`);
  }
}

function onSignal(sig: NodeJS.Signals): void {
  say(`${sig}: stopping the service and the range server`);
  void Promise.all([...[...live].map((s) => s.stop().catch(() => undefined)), files?.stop()]).finally(() => process.exit(130));
}

async function main(): Promise<void> {
  mkdirSync(OUT_DIR, { recursive: true });
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const busyBefore = await waitIdle('the benchmark');
  const report: Report = { meta: runMeta(busyBefore), runs: [], scaling: [], errors: [] };
  files = await startChild(['--import', 'tsx', 'bench/raster/server.ts', DATA_DIR]);
  const fport = Number(files.info['port']);
  const attempt = async (name: string, fn: () => Promise<void>) => {
    try {
      await fn();
    } catch (e) {
      report.errors.push(`${name}: ${(e as Error).stack ?? String(e)}`);
      say(`${name} FAILED: ${(e as Error).stack ?? String(e)}`);
    }
    writeReport(report);
  };
  try {
    if (PROFILE !== undefined) {
      say(`profile: one request under node --cpu-prof into ${PROFILE} …`);
      await attempt('profile', () => profileRun(report, fport));
    } else {
      say(`${RUNS} runs: 100 districts × 8,760 steps over ${LATENCY} ms, the service (fresh, warmed up) and the anchor …`);
      for (let run = 1; run <= RUNS; run++) await attempt(`run ${run}`, () => oneRun(report, fport, run));
      if (SCALING) {
        say('peak RSS against the number of steps …');
        for (const [end, steps] of SCALES) {
          await attempt(`scaling ${steps}`, async () => {
            const { side } = await serviceRequest(fport, end, steps, false);
            if (side.problem) report.errors.push(`scaling ${steps}: ${side.problem}`);
            say(`  ${int(steps)} steps: ${describeService(side)}`);
            report.scaling.push(side);
          });
        }
      }
    }
  } finally {
    await files.stop();
  }
  const md = writeReport(report);
  say(`\n${md}\n(bench/out/${REPORT_NAME}.md and .json)`);
  if (report.errors.length) process.exitCode = 1;
}

await main();
