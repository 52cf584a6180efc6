/**
 * exactextract benchmark driver (issue 24: exactextract's operations). Run through `bash bench/exactextract/run.sh`,
 * which makes the data and builds dist/ first. See bench/exactextract/README.md.
 *
 * The service as `npm start` runs it (node dist/server.js, configured by the environment, on 127.0.0.1), over
 * the Sentinel-2-layout COG bench/data/s2_B04.tif (10980² UInt16, 1024 px tiles, DEFLATE + predictor 2), next to
 * the exactextract CLI on the same files and zones (in EPSG:32633), in the same run:
 *
 *   1. weights: 1,000 random 1 km squares in one request (NDJSON), `pixels: "fractional"`, stats mean and count,
 *      against the same with `weights` (bench/data/weights_20m.tif: 20 m Float32 cells on the value grid) and
 *      weighted_mean, weighted_sum; BENCH_EE_RUNS rounds, each side timed in every round, and exactextract with
 *      and without `-w` beside it. Target: with weights ≤ 1.6 × without (same round). Every zone's mean, count,
 *      weighted_mean and weighted_sum checked against exactextract's to 1e-6 relative.
 *   2. memory: 10,000 field-sized squares (0.5–5 ha) with `values`, `coverage` and `count` as NDJSON, in a
 *      fresh service process; its VmRSS sampled every BENCH_EE_SAMPLE_MS from /proc and VmHWM (reset after the
 *      warm-up) at the end. Target: peak RSS ≤ 600 MiB. Every row checked against exactextract's values,
 *      coverage and count (--nested-output CSV), which is also timed.
 *   3. zones: zones given as a raster (`"zones": {"url": s2_SCL.tif, "band": 1}`: the 20 m scene classes), stats
 *      count, sum, mean, min, max as NDJSON, against numpy (zones_anchor.py: both rasters read whole with GDAL, the
 *      zones repeated ×2, bincounts) in the same run; BENCH_EE_RUNS rounds, alternating which goes first. Every
 *      zone's count, min and max checked exactly, sum and mean to 1e-9 relative; service / numpy time for
 *      information.
 * Writes bench/out/exactextract-results.md and bench/out/exactextract-results.json.
 *
 * Environment: BENCH_PARTS (weights,memory,zones), BENCH_EE_RUNS (3: rounds of parts 1 and 3), BENCH_EE_SAMPLE_MS
 * (200), BENCH_EXACTEXTRACT (/usr/local/bin/exactextract), BENCH_EE_ARGS (extra exactextract arguments, e.g.
 * "--strategy raster-sequential"), BENCH_WAIT_IDLE_S (120), BENCH_TIMEOUT_S (600 per request). The service inherits
 * the environment (ZONAL_WORKERS and the limits apply); it runs with ZONAL_WORKERS=2 unless that is set, and in
 * part 3 with ZONAL_MAX_PIXELS=150000000 unless that is set.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DATA_DIR, logKey, OUT_DIR, ROOT, startServer } from '../lib/child.ts';
import { rssOf, waitIdle as waitIdleFor, Watch } from '../lib/machine.ts';
import { scrape } from '../lib/metrics.ts';
import { f1, f2, int, median, num, runMeta, say, sci } from '../lib/report.ts';

const VALUES = join(DATA_DIR, 's2_B04.tif');
/** The same layout, another file: the warm-ups decode its tiles, never VALUES'. */
const WARM_VALUES = join(DATA_DIR, 's2_B08.tif');
const WEIGHTS = join(DATA_DIR, 'weights_20m.tif');
const SQUARES = join(DATA_DIR, 'ee_squares_1k.geojson');
const SQUARES_UTM = join(DATA_DIR, 'ee_squares_1k_utm.gpkg');
const FIELDS = join(DATA_DIR, 'ee_fields_10k.geojson');
const FIELDS_UTM = join(DATA_DIR, 'ee_fields_10k_utm.gpkg');
/** Part 3's zones: the Sentinel-2 scene classes, 20 m cells on the values' grid. */
const ZONES = join(DATA_DIR, 's2_SCL.tif');
/** Part 3's anchor, run with Debian's python3 (GDAL bindings + numpy). */
const ZONES_ANCHOR = join(ROOT, 'bench', 'exactextract', 'zones_anchor.py');
const PYTHON = '/usr/bin/python3';
const ENDPOINT = '/api/v1/zonal-stats/raster';

const PARTS = new Set((process.env['BENCH_PARTS'] ?? 'weights,memory,zones').split(',').map((s) => s.trim()));
const RUNS = num('BENCH_EE_RUNS', 3);
const SAMPLE_MS = num('BENCH_EE_SAMPLE_MS', 200);
const EE = process.env['BENCH_EXACTEXTRACT'] ?? '/usr/local/bin/exactextract';
const EE_ARGS = (process.env['BENCH_EE_ARGS'] ?? '').split(/\s+/).filter((s) => s !== '');
const WAIT_IDLE_S = num('BENCH_WAIT_IDLE_S', 120);
const TIMEOUT_MS = num('BENCH_TIMEOUT_S', 600) * 1000;

// Targets (issue 24) and the comparison's tolerance.
const T_WEIGHTS = 1.6;
const T_MEM_MIB = 600;
const TOL = 1e-6;
/** Part 3: sum and mean against numpy's, relative (count, min and max: exactly). */
const ZONES_TOL = 1e-9;
/**
 * Part 3's service runs with this ZONAL_MAX_PIXELS unless the environment sets it: the zones raster covers the whole
 * tile, 10980² = 120,560,400 value cells, above the default limit (100,000,000), and so does its largest zone's window.
 */
const ZONES_MAX_PIXELS = 150_000_000;
/** Other jobs' share of the CPU under which a measurement counts as quiet, %. */
const QUIET = 10;

const fileUrl = (p: string) => pathToFileURL(realpathSync(p)).href;

// ------------------------------------------------------------------------------------------------
// CPU and memory: /proc (bench/lib/machine.ts)

const waitIdle = (what: string) => waitIdleFor(WAIT_IDLE_S, what);

// ------------------------------------------------------------------------------------------------
// the service: node dist/server.js on 127.0.0.1

interface Service {
  pid: number;
  port: number;
  log: string[];
  stop(): Promise<void>;
}

const live = new Set<Service>();

/**
 * The service as `npm start` runs it (node dist/server.js), configured by the environment (then `env`); ready once
 * GET /health answers.
 */
async function startService(env: Record<string, string> = {}): Promise<Service> {
  const srv = await startServer('the service', { ZONAL_WORKERS: process.env['ZONAL_WORKERS'] ?? '2', ...env });
  const s: Service = {
    pid: srv.pid,
    port: srv.port,
    log: srv.log,
    stop: async () => {
      live.delete(s);
      await srv.signal('SIGTERM', 20_000);
    },
  };
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

/** What a request's body asks, in words (for a failure's report). */
type Ask = { what: string; body: string };

interface Answer {
  status: number;
  ms: number;
  firstByteMs: number;
  bytes: number;
  /** The body's chunks (NDJSON), kept to be checked after the timing. */
  chunks: Buffer[];
  problem: string | undefined;
}

/** POST `body` with Accept: application/x-ndjson; the body read to its end as it streams (chunks kept, nothing parsed). */
async function post(port: number, ask: Ask): Promise<Answer> {
  const t = performance.now();
  const res = await fetch(`http://127.0.0.1:${port}${ENDPOINT}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/x-ndjson' },
    body: ask.body,
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  const chunks: Buffer[] = [];
  let bytes = 0;
  let firstByteMs = NaN;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    if (Number.isNaN(firstByteMs)) firstByteMs = performance.now() - t;
    bytes += chunk.byteLength;
    chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  }
  const ms = performance.now() - t;
  let problem: string | undefined;
  if (res.status !== 200) {
    const text = Buffer.concat(chunks).toString('utf8');
    problem = `HTTP ${res.status} to ${ask.what}: ${text.slice(0, 600)}`;
  }
  return { status: res.status, ms, firstByteMs, bytes, chunks, problem };
}

/** The NDJSON lines of an answer, parsed; lines without an index (a request-level error line) go to `problems`. */
function rowsOf(a: Answer, problems: string[]): { index: number; id: string; band: Record<string, unknown> | undefined; error: string | undefined }[] {
  const out: { index: number; id: string; band: Record<string, unknown> | undefined; error: string | undefined }[] = [];
  for (const line of Buffer.concat(a.chunks).toString('utf8').split('\n')) {
    if (line.trim() === '') continue;
    const o = JSON.parse(line) as {
      index?: number;
      id?: string;
      statistics?: Record<string, Record<string, unknown>>;
      error?: { code: string; detail: string };
    };
    if (typeof o.index !== 'number') {
      problems.push(`line without index: ${line.slice(0, 400)}`);
      continue;
    }
    out.push({
      index: o.index,
      id: String(o.id),
      band: o.statistics?.['band_1'],
      error: o.error ? `${o.error.code}: ${o.error.detail}` : undefined,
    });
  }
  return out;
}

/** Deltas of the service's /metrics over a request: planes decoded, file reads and bytes, fold phases. */
const METRICS = {
  planes: 'zonal_fold_planes_total',
  tasks: 'zonal_fold_tasks_total',
  reads: 'zonal_upstream_requests_total{scheme="file"}',
  readBytes: 'zonal_upstream_bytes_total{scheme="file"}',
  inflateS: 'zonal_fold_phase_seconds_total{phase="inflate"}',
  coverageS: 'zonal_fold_phase_seconds_total{phase="coverage"}',
  foldS: 'zonal_fold_phase_seconds_total{phase="fold"}',
  workerS: 'zonal_fold_phase_seconds_total{phase="worker"}',
} as const;
type MetricDeltas = Record<keyof typeof METRICS, number>;

function deltas(a: Map<string, number>, b: Map<string, number>): MetricDeltas {
  const out = {} as MetricDeltas;
  for (const [k, name] of Object.entries(METRICS) as [keyof typeof METRICS, string][]) out[k] = (b.get(name) ?? 0) - (a.get(name) ?? 0);
  return out;
}

// ------------------------------------------------------------------------------------------------
// exactextract

interface EeRun {
  wallMs: number;
  cpuS: number;
  maxRssMiB: number;
  outBytes: number;
  out: string;
  args: string[];
}

let tmp = '';

/**
 * `cmd args` in `cwd` under /usr/bin/time (its CPU seconds and peak RSS), timed from spawn to exit; with `keepStdout`,
 * its stdout kept (the numpy anchor prints its answer there). `timeName`: /usr/bin/time's file in the temporary folder.
 */
async function runTimed(
  name: string,
  cmd: string,
  args: string[],
  cwd: string,
  timeName: string,
  keepStdout = false,
): Promise<{ wallMs: number; cpuS: number; maxRssMiB: number; stdout: string }> {
  const timeFile = join(tmp, timeName);
  let stdout = '';
  const t = performance.now();
  await new Promise<void>((resolve, reject) => {
    const p = spawn('/usr/bin/time', ['-f', '%e %U %S %M', '-o', timeFile, cmd, ...args], { cwd, stdio: ['ignore', keepStdout ? 'pipe' : 'ignore', 'pipe'] });
    let err = '';
    p.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    p.once('error', reject);
    p.once('exit', (c) => (c === 0 ? resolve() : reject(new Error(`${name} ${args.join(' ')} failed (${c}): ${err.slice(-1500)}`))));
  });
  const wallMs = performance.now() - t;
  const [, user, sys, maxKb] = readFileSync(timeFile, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
  return { wallMs, cpuS: user! + sys!, maxRssMiB: maxKb! / 1024, stdout };
}

/** exactextract in data/ under /usr/bin/time (its CPU seconds and peak RSS); its output file read back. */
async function runEe(args: string[], outName: string): Promise<EeRun> {
  const out = join(tmp, outName);
  const full = [...args, ...EE_ARGS, '-o', out];
  const r = await runTimed('exactextract', EE, full, DATA_DIR, `${outName}.time`);
  const text = readFileSync(out, 'utf8');
  return { wallMs: r.wallMs, cpuS: r.cpuS, maxRssMiB: r.maxRssMiB, outBytes: Buffer.byteLength(text), out: text, args: full };
}

/** exactextract's CSV (flat numeric columns) as id → column → number (NaN for an empty or "nan" cell). */
function eeTable(csv: string): Map<string, Record<string, number>> {
  const lines = csv.split('\n').filter((l) => l !== '');
  const head = lines[0]!.split(',');
  const m = new Map<string, Record<string, number>>();
  for (const l of lines.slice(1)) {
    const cells = l.split(',');
    const row: Record<string, number> = {};
    head.forEach((h, i) => {
      if (i > 0) row[h] = cells[i] === '' || cells[i] === undefined ? NaN : Number(cells[i]);
    });
    m.set(cells[0]!, row);
  }
  return m;
}

// ------------------------------------------------------------------------------------------------
// part 1: weights

interface Compare {
  zones: number;
  keys: string[];
  maxRel: Record<string, number>;
  mismatches: number;
  first: string[];
  errors: number;
}

/** Every zone's statistics `keys` of the service against exactextract's, to TOL relative (null = NaN on both sides). */
function compare(rows: ReturnType<typeof rowsOf>, ee: Map<string, Record<string, number>>, keys: string[]): Compare {
  const c: Compare = { zones: rows.length, keys, maxRel: Object.fromEntries(keys.map((k) => [k, 0])), mismatches: 0, first: [], errors: 0 };
  for (const r of rows) {
    if (r.error) {
      c.errors++;
      if (c.first.length < 5) c.first.push(`${r.id}: error ${r.error}`);
      continue;
    }
    const e = ee.get(r.id);
    let bad = false;
    for (const k of keys) {
      const s = r.band?.[k];
      const x = typeof s === 'number' ? s : NaN;
      const y = e?.[k] ?? NaN;
      if (Number.isNaN(x) && Number.isNaN(y)) continue;
      const rel = Math.abs(x - y) / Math.max(Math.abs(y), 1e-300);
      if (!(rel <= TOL)) bad = true;
      c.maxRel[k] = Math.max(c.maxRel[k]!, Number.isNaN(rel) ? Infinity : rel);
    }
    if (bad) {
      c.mismatches++;
      if (c.first.length < 5)
        c.first.push(`${r.id}: service ${JSON.stringify(Object.fromEntries(keys.map((k) => [k, r.band?.[k]])))} vs exactextract ${JSON.stringify(e)}`);
    }
  }
  return c;
}

interface Side {
  ms: number;
  cpuS: number;
  mainS: number;
  others: number;
  rows: number;
  problems: string[];
  metrics: MetricDeltas | undefined;
  vsEe: Compare | undefined;
}

interface EeSide {
  ms: number;
  cpuS: number;
  maxRssMiB: number;
  others: number;
}

interface WeightsRound {
  round: number;
  order: string;
  plain: Side;
  weighted: Side;
  eePlain: EeSide;
  eeWeighted: EeSide;
  /** The service's mean and count with and without weights: equal to the bit? */
  sameWithout: string;
}

const PLAIN_STATS = ['mean', 'count'];
const WEIGHTED_STATS = ['mean', 'count', 'weighted_mean', 'weighted_sum'];

function weightsBodies(valuesPath: string): { plain: Ask; weighted: Ask } {
  const aoi = readFileSync(SQUARES, 'utf8');
  const url = JSON.stringify(fileUrl(valuesPath));
  const plain = `{"url":${url},"pixels":"fractional","stats":${JSON.stringify(PLAIN_STATS)},"aoi":${aoi}}`;
  const weighted = `{"url":${url},"pixels":"fractional","stats":${JSON.stringify(WEIGHTED_STATS)},"weights":{"url":${JSON.stringify(fileUrl(WEIGHTS))}},"aoi":${aoi}}`;
  const name = valuesPath.replace(/.*\//, '');
  return {
    plain: { what: `POST ${ENDPOINT} {"url": "file://…/${name}", "pixels": "fractional", "stats": ["mean","count"], "aoi": <the 1,000 squares>}`, body: plain },
    weighted: {
      what: `POST ${ENDPOINT} {"url": "file://…/${name}", "pixels": "fractional", "stats": ["mean","count","weighted_mean","weighted_sum"], "weights": {"url": "file://…/weights_20m.tif"}, "aoi": <the 1,000 squares>}`,
      body: weighted,
    },
  };
}

/** exactextract runs in bench/data: file names relative to it. */
const EE_PLAIN = ['-r', `v:${basename(VALUES)}`, '-p', basename(SQUARES_UTM), '-f', 'id', '-s', 'mean=mean(v)', '-s', 'count=count(v)'];
const EE_WEIGHTED = [
  ...EE_PLAIN.slice(0, 2),
  '-w',
  `w:${basename(WEIGHTS)}`,
  ...EE_PLAIN.slice(2),
  '-s',
  'weighted_mean=weighted_mean(v,w)',
  '-s',
  'weighted_sum=weighted_sum(v,w)',
];

/** One request timed, with the service's CPU (/proc) and its /metrics deltas over it. */
async function measured(svc: Service, ask: Ask): Promise<{ a: Answer; cpu: ReturnType<Watch['stop']>; metrics: MetricDeltas | undefined }> {
  const m0 = await scrape(svc.port);
  const w = new Watch(svc.pid);
  const a = await post(svc.port, ask);
  const cpu = w.stop();
  const m1 = await scrape(svc.port).catch(() => undefined);
  return { a, cpu, metrics: m1 ? deltas(m0, m1) : undefined };
}

async function serviceSide(
  svc: Service,
  ask: Ask,
  keys: string[],
  ee: Map<string, Record<string, number>> | undefined,
  report: Report,
): Promise<{ side: Side; rows: ReturnType<typeof rowsOf> }> {
  const { a, cpu, metrics } = await measured(svc, ask);
  const problems: string[] = [];
  if (a.problem) problems.push(a.problem);
  const rows = a.status === 200 ? rowsOf(a, problems) : [];
  if (a.status === 200 && rows.length !== 1000) problems.push(`${rows.length} rows, not 1,000, to ${ask.what}`);
  for (const p of problems) report.errors.push(p);
  return {
    side: {
      ms: a.ms,
      cpuS: cpu.serviceCpuS,
      mainS: cpu.serviceMainS,
      others: cpu.othersPct,
      rows: rows.length,
      problems,
      metrics,
      vsEe: ee ? compare(rows, ee, keys) : undefined,
    },
    rows,
  };
}

async function eeSide(args: string[], name: string): Promise<{ side: EeSide; table: Map<string, Record<string, number>> }> {
  const w = new Watch(undefined);
  const r = await runEe(args, name);
  const cpu = w.stop();
  return { side: { ms: r.wallMs, cpuS: r.cpuS, maxRssMiB: r.maxRssMiB, others: cpu.othersPct }, table: eeTable(r.out) };
}

async function weights(report: Report): Promise<void> {
  const svc = await startService();
  const rounds: WeightsRound[] = [];
  report.weights = { rounds, inflate: 'unknown' };
  try {
    report.weights.inflate =
      [...(await scrape(svc.port)).keys()].find((k) => k.startsWith('zonal_inflate_backend'))?.replace(/.*backend="([^"]+)".*/, '$1') ?? 'unknown';
    // Warm-up on s2_B08.tif (the same layout, another file): JIT, both workers, the inflater, the weights path.
    const warm = weightsBodies(WARM_VALUES);
    for (const ask of [warm.plain, warm.weighted]) {
      const a = await post(svc.port, ask);
      if (a.problem) report.errors.push(`warm-up: ${a.problem}`);
      say(`  warm-up on s2_B08.tif: ${f2(a.ms / 1000)} s (HTTP ${a.status})`);
    }
    const asks = weightsBodies(VALUES);
    for (let round = 1; round <= RUNS; round++) {
      await waitIdle(`round ${round}`);
      // Odd rounds without weights first, even rounds with weights first (on both tools).
      const plainFirst = round % 2 === 1;
      const order = plainFirst ? 'without, with' : 'with, without';
      const ee: { plain?: Awaited<ReturnType<typeof eeSide>>; weighted?: Awaited<ReturnType<typeof eeSide>> } = {};
      for (const which of plainFirst ? (['plain', 'weighted'] as const) : (['weighted', 'plain'] as const)) {
        ee[which] = await eeSide(which === 'plain' ? EE_PLAIN : EE_WEIGHTED, `weights-${which}-${round}.csv`);
      }
      const s: { plain?: Awaited<ReturnType<typeof serviceSide>>; weighted?: Awaited<ReturnType<typeof serviceSide>> } = {};
      for (const which of plainFirst ? (['plain', 'weighted'] as const) : (['weighted', 'plain'] as const)) {
        s[which] = await serviceSide(svc, asks[which], which === 'plain' ? PLAIN_STATS : WEIGHTED_STATS, ee[which]!.table, report);
      }
      const plain = s.plain!;
      const weighted = s.weighted!;
      let same = 0;
      let differ = 0;
      const byId = new Map(weighted.rows.map((r) => [r.id, r.band]));
      for (const r of plain.rows) {
        const b = byId.get(r.id);
        if (b && r.band && b['mean'] === r.band['mean'] && b['count'] === r.band['count']) same++;
        else differ++;
      }
      const r: WeightsRound = {
        round,
        order,
        plain: plain.side,
        weighted: weighted.side,
        eePlain: ee.plain!.side,
        eeWeighted: ee.weighted!.side,
        sameWithout: differ === 0 ? `all ${int(same)} equal` : `${int(differ)} of ${int(same + differ)} differ`,
      };
      rounds.push(r);
      say(
        `  round ${round} (${order}): service ${f2(r.plain.ms / 1000)} s without weights, ${f2(r.weighted.ms / 1000)} s with = ${f2(r.weighted.ms / r.plain.ms)}×; ` +
          `exactextract ${f2(r.eePlain.ms / 1000)} s, ${f2(r.eeWeighted.ms / 1000)} s = ${f2(r.eeWeighted.ms / r.eePlain.ms)}×; ` +
          `vs exactextract: ${compareLine(r.plain.vsEe)} / ${compareLine(r.weighted.vsEe)}; other jobs ${f1(r.plain.others)} / ${f1(r.weighted.others)} / ${f1(r.eePlain.others)} / ${f1(r.eeWeighted.others)} %`,
      );
    }
  } finally {
    await svc.stop();
    noteLog(svc);
  }
}

const compareLine = (c: Compare | undefined) =>
  c === undefined
    ? 'not compared'
    : c.mismatches === 0 && c.errors === 0
      ? `all ${int(c.zones)} within ${sci(TOL)} (max ${c.keys.map((k) => `${k} ${sci(c.maxRel[k]!)}`).join(', ')})`
      : `${int(c.mismatches)} of ${int(c.zones)} differ, ${c.errors} errors (${c.first.join('; ')})`;

// ------------------------------------------------------------------------------------------------
// part 2: per-cell lists of 10,000 zones, memory

/** One service process answering the 10,000 fields once (after a warm-up on s2_B08.tif, or first thing). */
interface MemRun {
  warm: boolean;
  ms: number;
  firstRowMs: number;
  bytes: number;
  rows: number;
  /** VmRSS once ready (before any request), and just before the measured request. */
  rssIdleMiB: number;
  rssBeforeMiB: number;
  peakSampledMiB: number;
  /** VmHWM after the request: since the reset after the warm-up (warm), or since the process started. */
  hwmMiB: number;
  hwmReset: boolean;
  samples: number;
  series: [number, number][];
  cpuS: number;
  mainS: number;
  others: number;
  metrics: MetricDeltas | undefined;
  warmUpMs: number;
  problems: string[];
}

interface MemoryResult {
  runs: MemRun[];
  check: ListCheck | undefined;
  ee: (EeSide & { outBytes: number }) | undefined;
}

interface ListCheck {
  rows: number;
  inOrder: boolean;
  errors: number;
  cells: number;
  eeCells: number;
  lengthsDiffer: number;
  valuesDiffer: number;
  maxCoverageAbs: number;
  maxCountRel: number;
  maxOwnSumRel: number;
  emptyZones: number;
  first: string[];
}

/** exactextract's --nested-output CSV of values, coverage, count: id → lists and count. */
function eeLists(csv: string): Map<string, { values: number[]; coverage: number[]; count: number }> {
  const m = new Map<string, { values: number[]; coverage: number[]; count: number }>();
  const list = (s: string) =>
    s
      .replace(/[[\]\s]/g, '')
      .split(',')
      .filter((x) => x !== '')
      .map(Number);
  for (const line of csv.split('\n').slice(1)) {
    if (line === '') continue;
    // A list is quoted when it holds a comma: "[ 1, 2 ]"; an empty one is not: [ ].
    const g = /^([^,]*),("?)(\[[^\]]*\])\2,("?)(\[[^\]]*\])\4,(.*)$/.exec(line);
    if (!g) throw new Error(`exactextract CSV: cannot read ${line.slice(0, 200)}`);
    m.set(g[1]!, { values: list(g[3]!), coverage: list(g[5]!), count: Number(g[6]) });
  }
  return m;
}

function checkLists(rows: ReturnType<typeof rowsOf>, ee: Map<string, { values: number[]; coverage: number[]; count: number }>): ListCheck {
  const c: ListCheck = {
    rows: rows.length,
    inOrder: rows.every((r, i) => r.index === i),
    errors: 0,
    cells: 0,
    eeCells: 0,
    lengthsDiffer: 0,
    valuesDiffer: 0,
    maxCoverageAbs: 0,
    maxCountRel: 0,
    maxOwnSumRel: 0,
    emptyZones: 0,
    first: [],
  };
  const note = (s: string) => c.first.length < 5 && c.first.push(s);
  for (const r of rows) {
    const e = ee.get(r.id);
    if (r.error || !r.band) {
      c.errors++;
      note(`${r.id}: ${r.error ?? 'no band_1'}`);
      continue;
    }
    const values = r.band['values'] as number[];
    const coverage = r.band['coverage'] as number[];
    const count = r.band['count'] as number;
    c.cells += values.length;
    if (values.length === 0) c.emptyZones++;
    const own = coverage.reduce((x, y) => x + y, 0);
    if (count > 0) c.maxOwnSumRel = Math.max(c.maxOwnSumRel, Math.abs(own - count) / count);
    if (!e) {
      c.lengthsDiffer++;
      note(`${r.id}: not in exactextract's output`);
      continue;
    }
    c.eeCells += e.values.length;
    if (values.length !== e.values.length || coverage.length !== e.coverage.length) {
      c.lengthsDiffer++;
      note(`${r.id}: ${values.length} values, ${coverage.length} coverages; exactextract ${e.values.length}, ${e.coverage.length}`);
      continue;
    }
    if (values.some((v, i) => v !== e.values[i])) {
      c.valuesDiffer++;
      note(`${r.id}: values differ from exactextract's (same length ${values.length})`);
    }
    coverage.forEach((x, i) => (c.maxCoverageAbs = Math.max(c.maxCoverageAbs, Math.abs(x - e.coverage[i]!))));
    if (e.count > 0) c.maxCountRel = Math.max(c.maxCountRel, Math.abs(count - e.count) / e.count);
  }
  return c;
}

const peakOf = (r: MemRun) => Math.max(r.peakSampledMiB, r.hwmMiB);

/**
 * The 10,000 fields in a fresh service process: with `warm`, first answered once on s2_B08.tif (dropped), then
 * VmHWM reset; VmRSS sampled every SAMPLE_MS during the measured request. The rows are parsed after the timing.
 */
async function memoryRun(warm: boolean, report: Report): Promise<{ run: MemRun; rows: ReturnType<typeof rowsOf> }> {
  const aoi = readFileSync(FIELDS, 'utf8');
  const body = (p: string) => `{"url":${JSON.stringify(fileUrl(p))},"pixels":"fractional","stats":["values","coverage","count"],"aoi":${aoi}}`;
  const what = (name: string) =>
    `POST ${ENDPOINT} (Accept: application/x-ndjson) {"url": "file://…/${name}", "pixels": "fractional", "stats": ["values","coverage","count"], "aoi": <the 10,000 fields>}`;
  const svc = await startService();
  const m: MemRun = {
    warm,
    ms: NaN,
    firstRowMs: NaN,
    bytes: 0,
    rows: 0,
    rssIdleMiB: rssOf(svc.pid).rss,
    rssBeforeMiB: NaN,
    peakSampledMiB: NaN,
    hwmMiB: NaN,
    hwmReset: false,
    samples: 0,
    series: [],
    cpuS: NaN,
    mainS: NaN,
    others: NaN,
    metrics: undefined,
    warmUpMs: NaN,
    problems: [],
  };
  try {
    if (warm) {
      const w = await post(svc.port, { what: what('s2_B08.tif'), body: body(WARM_VALUES) });
      m.warmUpMs = w.ms;
      if (w.problem) m.problems.push(`warm-up: ${w.problem}`);
      w.chunks.length = 0;
      say(`  warm-up on s2_B08.tif: ${f2(w.ms / 1000)} s, ${int(w.bytes)} bytes (HTTP ${w.status}); VmHWM ${f1(rssOf(svc.pid).hwm)} MiB`);
    }
    await waitIdle(warm ? 'part 2 (warm)' : 'part 2 (first request)');
    if (warm) {
      // /proc/<pid>/clear_refs "5" sets VmHWM to the current VmRSS (Linux ≥ 4.0): VmHWM at the end is then this request's peak.
      try {
        writeFileSync(`/proc/${svc.pid}/clear_refs`, '5');
        m.hwmReset = true;
      } catch {
        m.hwmReset = false;
      }
    }
    m.rssBeforeMiB = rssOf(svc.pid).rss;
    const m0 = await scrape(svc.port);
    const watch = new Watch(svc.pid);
    const t0 = performance.now();
    let peak = m.rssBeforeMiB;
    const sample = () => {
      const { rss } = rssOf(svc.pid);
      if (Number.isNaN(rss)) return;
      peak = Math.max(peak, rss);
      m.series.push([Math.round(performance.now() - t0), Math.round(rss * 10) / 10]);
    };
    const timer = setInterval(sample, SAMPLE_MS);
    let a: Answer;
    try {
      a = await post(svc.port, { what: what('s2_B04.tif'), body: body(VALUES) });
    } finally {
      clearInterval(timer);
    }
    sample();
    const cpu = watch.stop();
    m.hwmMiB = rssOf(svc.pid).hwm;
    m.peakSampledMiB = peak;
    m.samples = m.series.length;
    m.ms = a.ms;
    m.firstRowMs = a.firstByteMs;
    m.bytes = a.bytes;
    m.cpuS = cpu.serviceCpuS;
    m.mainS = cpu.serviceMainS;
    m.others = cpu.othersPct;
    m.metrics = deltas(m0, await scrape(svc.port));
    if (a.problem) m.problems.push(a.problem);
    const rows = a.status === 200 ? rowsOf(a, m.problems) : [];
    a.chunks.length = 0;
    m.rows = rows.length;
    if (a.status === 200 && rows.length !== 10_000) m.problems.push(`${rows.length} rows, not 10,000`);
    for (const p of m.problems) report.errors.push(`memory (${warm ? 'warm' : 'first request'}): ${p}`);
    say(
      `  service, ${warm ? 'after a warm-up' : 'first request'}: ${f2(m.ms / 1000)} s (first row ${f2(m.firstRowMs / 1000)} s), ${int(m.bytes)} bytes, ${int(m.rows)} rows; ` +
        `RSS ${f1(m.rssIdleMiB)} MiB idle, ${f1(m.rssBeforeMiB)} before, peak sampled ${f1(m.peakSampledMiB)} MiB, VmHWM ${f1(m.hwmMiB)} MiB; other jobs ${f1(m.others)} %`,
    );
    return { run: m, rows };
  } finally {
    await svc.stop();
    noteLog(svc);
  }
}

async function memory(report: Report): Promise<void> {
  const result: MemoryResult = { runs: [], check: undefined, ee: undefined };
  report.memory = result;
  const first = await memoryRun(false, report);
  result.runs.push(first.run);
  first.rows.length = 0;
  const warm = await memoryRun(true, report);
  result.runs.push(warm.run);
  // The anchor: exactextract's values, coverage and count, one row per zone with lists (--nested-output), CSV.
  await waitIdle('exactextract, part 2');
  const wEe = new Watch(undefined);
  const r = await runEe(
    [
      '-r',
      `v:${basename(VALUES)}`,
      '-p',
      basename(FIELDS_UTM),
      '-f',
      'id',
      '-s',
      'values=values(v)',
      '-s',
      'coverage=coverage(v)',
      '-s',
      'count=count(v)',
      '--nested-output',
    ],
    'fields.csv',
  );
  result.ee = { ms: r.wallMs, cpuS: r.cpuS, maxRssMiB: r.maxRssMiB, others: wEe.stop().othersPct, outBytes: r.outBytes };
  say(`  exactextract: ${f2(r.wallMs / 1000)} s, CPU ${f1(r.cpuS)} s, peak RSS ${f1(r.maxRssMiB)} MiB, ${int(r.outBytes)} bytes of CSV`);
  if (warm.rows.length) result.check = checkLists(warm.rows, eeLists(r.out));
}

// ------------------------------------------------------------------------------------------------
// part 3: zones given as a raster, against numpy

const ZONES_STATS = ['count', 'sum', 'mean', 'min', 'max'] as const;

/** One zone's answer: numpy's, or the service's row (`index`, `id` and `properties.zone` besides). */
interface ZoneStats {
  zone: number;
  count: number | null;
  sum: number | null;
  mean: number | null;
  min: number | null;
  max: number | null;
}

interface ServiceZoneRow extends ZoneStats {
  index: number;
  id: unknown;
  error: string | undefined;
}

/** What zones_anchor.py prints. */
interface AnchorAnswer {
  zones: ZoneStats[];
  cells: number;
  factor: number;
  nodata: { values: number | null; zones: number | null };
  read_s: number;
  compute_s: number;
}

interface ZonesCheck {
  /** numpy's zones and the service's rows. */
  zones: number;
  rows: number;
  /** Row i has index i, id = properties.zone, and the zones ascend. */
  inOrder: boolean;
  errors: number;
  /** Zones numpy found that the service did not answer, and the reverse. */
  missing: number[];
  extra: number[];
  countDiffer: number;
  minMaxDiffer: number;
  sumDiffer: number;
  meanDiffer: number;
  maxSumRel: number;
  maxMeanRel: number;
  /** Every zone that differs, with both sides' numbers. */
  differences: string[];
}

interface ZonesRound {
  round: number;
  order: string;
  service: {
    ms: number;
    firstRowMs: number;
    cpuS: number;
    mainS: number;
    others: number;
    bytes: number;
    rows: number;
    metrics: MetricDeltas | undefined;
    problems: string[];
  };
  numpy: EeSide & { readS: number; computeS: number };
  /** Service / numpy, wall time of the same round. */
  ratio: number;
  check: ZonesCheck | undefined;
}

interface ZonesResult {
  maxPixels: string;
  warmUpMs: number;
  rounds: ZonesRound[];
  /** numpy's answer and the service's rows of the last round. */
  numpy: AnchorAnswer | undefined;
  service: ServiceZoneRow[];
}

function zonesAsk(valuesPath: string): Ask {
  const name = valuesPath.replace(/.*\//, '');
  return {
    what: `POST ${ENDPOINT} (Accept: application/x-ndjson) {"url": "file://…/${name}", "zones": {"url": "file://…/s2_SCL.tif", "band": 1}, "stats": ${JSON.stringify(ZONES_STATS)}}`,
    body: JSON.stringify({ url: fileUrl(valuesPath), zones: { url: fileUrl(ZONES), band: 1 }, stats: ZONES_STATS }),
  };
}

/** The NDJSON rows of a zones answer; lines without an index go to `problems`. */
function zoneRowsOf(a: Answer, problems: string[]): ServiceZoneRow[] {
  const out: ServiceZoneRow[] = [];
  for (const line of Buffer.concat(a.chunks).toString('utf8').split('\n')) {
    if (line.trim() === '') continue;
    const o = JSON.parse(line) as {
      index?: number;
      id?: unknown;
      properties?: { zone?: number };
      statistics?: Record<string, Record<string, number | null>>;
      error?: { code: string; detail: string };
    };
    if (typeof o.index !== 'number') {
      problems.push(`line without index: ${line.slice(0, 400)}`);
      continue;
    }
    const b = o.statistics?.['band_1'];
    const stat = (k: string) => (b?.[k] === undefined ? null : b[k]!);
    out.push({
      index: o.index,
      id: o.id,
      zone: o.properties?.zone ?? NaN,
      count: stat('count'),
      sum: stat('sum'),
      mean: stat('mean'),
      min: stat('min'),
      max: stat('max'),
      error: o.error ? `${o.error.code}: ${o.error.detail}` : undefined,
    });
  }
  return out;
}

/** The service's rows against numpy's zones: count, min, max exactly, sum and mean within ZONES_TOL relative (null = null). */
function checkZones(rows: ServiceZoneRow[], np: AnchorAnswer): ZonesCheck {
  const c: ZonesCheck = {
    zones: np.zones.length,
    rows: rows.length,
    inOrder: rows.every((r, i) => r.index === i && r.id === r.zone && (i === 0 || r.zone > rows[i - 1]!.zone)),
    errors: 0,
    missing: [],
    extra: [],
    countDiffer: 0,
    minMaxDiffer: 0,
    sumDiffer: 0,
    meanDiffer: 0,
    maxSumRel: 0,
    maxMeanRel: 0,
    differences: [],
  };
  const byZone = new Map(rows.map((r) => [r.zone, r]));
  const numpyZones = new Set(np.zones.map((z) => z.zone));
  c.extra = rows.filter((r) => !numpyZones.has(r.zone)).map((r) => r.zone);
  const rel = (x: number | null, y: number | null): number =>
    x === null && y === null ? 0 : x === null || y === null ? Infinity : x === y ? 0 : Math.abs(x - y) / Math.max(Math.abs(y), 1e-300);
  for (const e of np.zones) {
    const r = byZone.get(e.zone);
    if (!r) {
      c.missing.push(e.zone);
      continue;
    }
    if (r.error) {
      c.errors++;
      c.differences.push(`zone ${e.zone}: error ${r.error}`);
      continue;
    }
    const bad: string[] = [];
    if (r.count !== e.count) {
      c.countDiffer++;
      bad.push('count');
    }
    if (r.min !== e.min || r.max !== e.max) {
      c.minMaxDiffer++;
      bad.push('min/max');
    }
    const sumRel = rel(r.sum, e.sum);
    const meanRel = rel(r.mean, e.mean);
    c.maxSumRel = Math.max(c.maxSumRel, sumRel);
    c.maxMeanRel = Math.max(c.maxMeanRel, meanRel);
    if (!(sumRel <= ZONES_TOL)) {
      c.sumDiffer++;
      bad.push(`sum (${sci(sumRel)} relative)`);
    }
    if (!(meanRel <= ZONES_TOL)) {
      c.meanDiffer++;
      bad.push(`mean (${sci(meanRel)} relative)`);
    }
    if (bad.length) {
      const nums = (z: ZoneStats) => ZONES_STATS.map((k) => `${k} ${z[k]}`).join(', ');
      c.differences.push(`zone ${e.zone} differs in ${bad.join(', ')}: service ${nums(r)}; numpy ${nums(e)}`);
    }
  }
  return c;
}

const zonesOk = (c: ZonesCheck | undefined): boolean =>
  c !== undefined &&
  c.inOrder &&
  c.rows === c.zones &&
  c.errors === 0 &&
  c.missing.length === 0 &&
  c.extra.length === 0 &&
  c.countDiffer + c.minMaxDiffer + c.sumDiffer + c.meanDiffer === 0;

const zonesLine = (c: ZonesCheck | undefined): string =>
  c === undefined
    ? 'not compared'
    : zonesOk(c)
      ? `all ${c.zones} zones equal (count, min, max exactly; sum within ${sci(c.maxSumRel)}, mean within ${sci(c.maxMeanRel)} relative)`
      : `${c.rows} rows for numpy's ${c.zones} zones${c.inOrder ? '' : ', **not in ascending zone order**'}; ` +
        `missing ${c.missing.join(', ') || 'none'}, extra ${c.extra.join(', ') || 'none'}, ${c.errors} errors; ` +
        `differ: count ${c.countDiffer}, min/max ${c.minMaxDiffer}, sum ${c.sumDiffer}, mean ${c.meanDiffer}` +
        (c.differences.length ? `: ${c.differences.join('; ')}` : '');

async function zonesServiceSide(svc: Service, ask: Ask): Promise<{ side: ZonesRound['service']; rows: ServiceZoneRow[] }> {
  const { a, cpu, metrics } = await measured(svc, ask);
  const problems: string[] = [];
  if (a.problem) problems.push(a.problem);
  const rows = a.status === 200 ? zoneRowsOf(a, problems) : [];
  return {
    side: {
      ms: a.ms,
      firstRowMs: a.firstByteMs,
      cpuS: cpu.serviceCpuS,
      mainS: cpu.serviceMainS,
      others: cpu.othersPct,
      bytes: a.bytes,
      rows: rows.length,
      metrics,
      problems,
    },
    rows,
  };
}

async function zonesNumpySide(round: number): Promise<{ side: ZonesRound['numpy']; answer: AnchorAnswer }> {
  const w = new Watch(undefined);
  const r = await runTimed('zones_anchor.py', PYTHON, [ZONES_ANCHOR, VALUES, ZONES], ROOT, `zones-numpy-${round}.time`, true);
  const cpu = w.stop();
  const answer = JSON.parse(r.stdout.trim().split('\n').pop() ?? '') as AnchorAnswer;
  return {
    side: { ms: r.wallMs, cpuS: r.cpuS, maxRssMiB: r.maxRssMiB, others: cpu.othersPct, readS: answer.read_s, computeS: answer.compute_s },
    answer,
  };
}

async function zones(report: Report): Promise<void> {
  const maxPixels = process.env['ZONAL_MAX_PIXELS'] ?? String(ZONES_MAX_PIXELS);
  const result: ZonesResult = { maxPixels, warmUpMs: NaN, rounds: [], numpy: undefined, service: [] };
  report.zones = result;
  const svc = await startService({ ZONAL_MAX_PIXELS: maxPixels });
  try {
    // Warm-up on s2_B08.tif by the same zones: JIT, both workers, the inflater, the scan of the zones raster.
    const w = await post(svc.port, zonesAsk(WARM_VALUES));
    result.warmUpMs = w.ms;
    if (w.problem) report.errors.push(`zones warm-up: ${w.problem}`);
    w.chunks.length = 0;
    say(`  warm-up on s2_B08.tif: ${f2(w.ms / 1000)} s (HTTP ${w.status})`);
    const ask = zonesAsk(VALUES);
    for (let round = 1; round <= RUNS; round++) {
      await waitIdle(`zones round ${round}`);
      // Odd rounds numpy first, even rounds the service first.
      const numpyFirst = round % 2 === 1;
      let np: Awaited<ReturnType<typeof zonesNumpySide>> | undefined;
      let sv: Awaited<ReturnType<typeof zonesServiceSide>> | undefined;
      for (const side of numpyFirst ? (['numpy', 'service'] as const) : (['service', 'numpy'] as const)) {
        if (side === 'numpy') np = await zonesNumpySide(round);
        else sv = await zonesServiceSide(svc, ask);
      }
      const check = sv!.side.problems.length === 0 ? checkZones(sv!.rows, np!.answer) : undefined;
      for (const p of sv!.side.problems) report.errors.push(`zones, round ${round}: ${p}`);
      const r: ZonesRound = {
        round,
        order: numpyFirst ? 'numpy, service' : 'service, numpy',
        service: sv!.side,
        numpy: np!.side,
        ratio: sv!.side.ms / np!.side.ms,
        check,
      };
      result.rounds.push(r);
      result.numpy = np!.answer;
      result.service = sv!.rows;
      say(
        `  round ${round} (${r.order}): service ${f2(r.service.ms / 1000)} s (CPU ${f1(r.service.cpuS)} s), numpy ${f2(r.numpy.ms / 1000)} s (CPU ${f1(r.numpy.cpuS)} s) = ${f2(r.ratio)}×; ` +
          `vs numpy: ${zonesLine(check)}; other jobs ${f1(r.service.others)} / ${f1(r.numpy.others)} %`,
      );
    }
  } finally {
    await svc.stop();
    noteLog(svc);
  }
}

// ------------------------------------------------------------------------------------------------
// the report

interface Report {
  meta: Record<string, string | number>;
  weights?: { rounds: WeightsRound[]; inflate: string };
  memory?: MemoryResult;
  zones?: ZonesResult;
  errors: string[];
}

const verdict = (ok: boolean | undefined) => (ok === undefined ? 'n/a' : ok ? 'PASS' : '**FAIL**');

function weightsSection(w: NonNullable<Report['weights']>, L: string[]): void {
  L.push(
    `## 1. weights: 1,000 squares of 1 km, \`pixels: "fractional"\` (inflater ${w.inflate})`,
    '',
    "| round | order | service without / with weights (s) | with / without | exactextract without / with `-w` (s) | its with / without | service / exactextract without, with | CPU s service without / with; exactextract without / with | other jobs' CPU (service ×2, exactextract ×2) |",
    '|---|---|---|---|---|---|---|---|---|',
  );
  for (const r of w.rounds) {
    L.push(
      `| ${r.round} | ${r.order} | ${f2(r.plain.ms / 1000)} / ${f2(r.weighted.ms / 1000)} | **${f2(r.weighted.ms / r.plain.ms)}** | ${f2(r.eePlain.ms / 1000)} / ${f2(r.eeWeighted.ms / 1000)} | ${f2(r.eeWeighted.ms / r.eePlain.ms)} | ${f2(r.plain.ms / r.eePlain.ms)}, ${f2(r.weighted.ms / r.eeWeighted.ms)} | ${f1(r.plain.cpuS)} / ${f1(r.weighted.cpuS)}; ${f1(r.eePlain.cpuS)} / ${f1(r.eeWeighted.cpuS)} | ${f1(r.plain.others)}, ${f1(r.weighted.others)}, ${f1(r.eePlain.others)}, ${f1(r.eeWeighted.others)} % |`,
    );
  }
  L.push('', "Inside the service (its /metrics over each request: planes decoded, file reads, the workers' phase seconds):", '');
  L.push('| round | request | planes | file reads | MiB read | inflate s | coverage s | fold s | worker tasks s |', '|---|---|---|---|---|---|---|---|---|');
  for (const r of w.rounds) {
    for (const [name, s] of [
      ['without', r.plain],
      ['with', r.weighted],
    ] as const) {
      const m = s.metrics;
      if (!m) continue;
      L.push(
        `| ${r.round} | ${name} | ${int(m.planes)} | ${int(m.reads)} | ${f1(m.readBytes / 2 ** 20)} | ${f2(m.inflateS)} | ${f2(m.coverageS)} | ${f2(m.foldS)} | ${f2(m.workerS)} |`,
      );
    }
  }
  L.push('', 'Answers against exactextract (every zone, relative difference, tolerance 1e-6):', '');
  for (const r of w.rounds) {
    L.push(
      `- round ${r.round}: without weights ${compareLine(r.plain.vsEe)}; with weights ${compareLine(r.weighted.vsEe)}; the service's mean and count with and without weights: ${r.sameWithout}`,
    );
  }
  L.push('');
}

function memorySection(m: MemoryResult, L: string[]): void {
  L.push('## 2. per-cell lists: 10,000 fields (0.5–5 ha), `values`, `coverage`, `count`, NDJSON', '');
  L.push(
    "| side | time (s) | first row (s) | peak RSS (MiB) | RSS idle / before (MiB) | CPU s (main thread) | output | other jobs' CPU |",
    '|---|---|---|---|---|---|---|---|',
  );
  for (const r of m.runs) {
    const how = r.warm ? `fresh process, after a warm-up on s2_B08.tif (${f2(r.warmUpMs / 1000)} s)` : 'fresh process, its first request';
    const hwm = r.warm ? (r.hwmReset ? 'VmHWM since the reset' : 'VmHWM since start (not reset)') : 'VmHWM since start';
    L.push(
      `| service, ${how} | ${f2(r.ms / 1000)} | ${f2(r.firstRowMs / 1000)} | **${f1(peakOf(r))}** (VmRSS every ${SAMPLE_MS} ms: ${f1(r.peakSampledMiB)} over ${r.samples} samples; ${hwm}: ${f1(r.hwmMiB)}) | ${f1(r.rssIdleMiB)} / ${f1(r.rssBeforeMiB)} | ${f1(r.cpuS)} (${f1(r.mainS)}) | ${int(r.bytes)} bytes, ${int(r.rows)} rows | ${f1(r.others)} % |`,
    );
  }
  const ee = m.ee;
  if (ee)
    L.push(
      `| exactextract (--nested-output CSV) | ${f2(ee.ms / 1000)} | – | ${f1(ee.maxRssMiB)} | – | ${f1(ee.cpuS)} | ${int(ee.outBytes)} bytes CSV | ${f1(ee.others)} % |`,
    );
  L.push('');
  if (ee) L.push(`Service / exactextract time: ${m.runs.map((r) => `${r.warm ? 'warm' : 'first request'} **${f2(r.ms / ee.ms)}×**`).join(', ')}.`, '');
  for (const r of m.runs) {
    const x = r.metrics;
    if (x)
      L.push(
        `- inside the service (${r.warm ? 'warm' : 'first request'}): ${int(x.planes)} planes decoded, ${int(x.reads)} file reads (${f1(x.readBytes / 2 ** 20)} MiB), inflate ${f2(x.inflateS)} s, coverage ${f2(x.coverageS)} s, fold ${f2(x.foldS)} s, worker tasks ${f2(x.workerS)} s.`,
      );
  }
  L.push('');
  const c = m.check;
  if (c)
    L.push(
      `Rows of the warm run: ${int(c.rows)} (${c.inOrder ? 'in input order' : '**not in input order**'}), ${c.errors} zone errors; ${int(c.cells)} cells (exactextract ${int(c.eeCells)}); ` +
        `zones whose list lengths differ from exactextract's: ${c.lengthsDiffer}; whose values differ: ${c.valuesDiffer}; largest coverage difference ${sci(c.maxCoverageAbs)} (absolute); ` +
        `largest count difference ${sci(c.maxCountRel)} (relative); Σ coverage against the service's own count: ${sci(c.maxOwnSumRel)} (relative); zones with no cell: ${c.emptyZones}` +
        (c.first.length ? `; first: ${c.first.join('; ')}` : '') +
        '.',
      '',
    );
}

function zonesSection(z: ZonesResult, L: string[]): void {
  const np = z.numpy;
  L.push(
    `## 3. zones as a raster: s2_B04.tif (10 m) by the classes of s2_SCL.tif (20 m, ×${np?.factor ?? '?'}), stats ${ZONES_STATS.join(', ')}, NDJSON`,
    '',
    `The service with ZONAL_MAX_PIXELS=${z.maxPixels}; warm-up on s2_B08.tif by the same zones ${f2(z.warmUpMs / 1000)} s. numpy: \`${basename(ZONES_ANCHOR)}\` ` +
      `(${PYTHON}), timed from spawn to exit; "read" is its two ReadAsArray calls, "compute" the rest (repeat, masks, bincounts).`,
    '',
    "| round | order | service (s) | numpy (s) | **service / numpy** | CPU s: service (main thread) / numpy | numpy read / compute (s) | numpy peak RSS (MiB) | other jobs' CPU (service, numpy) |",
    '|---|---|---|---|---|---|---|---|---|',
  );
  for (const r of z.rounds) {
    L.push(
      `| ${r.round} | ${r.order} | ${f2(r.service.ms / 1000)} | ${f2(r.numpy.ms / 1000)} | **${f2(r.ratio)}** | ${f1(r.service.cpuS)} (${f1(r.service.mainS)}) / ${f1(r.numpy.cpuS)} | ${f2(r.numpy.readS)} / ${f2(r.numpy.computeS)} | ${f1(r.numpy.maxRssMiB)} | ${f1(r.service.others)}, ${f1(r.numpy.others)} % |`,
    );
  }
  L.push('', "Inside the service (its /metrics over each request: planes decoded, file reads, the workers' phase seconds):", '');
  L.push('| round | planes | file reads | MiB read | inflate s | coverage s | fold s | worker tasks s |', '|---|---|---|---|---|---|---|---|');
  for (const r of z.rounds) {
    const m = r.service.metrics;
    if (m)
      L.push(
        `| ${r.round} | ${int(m.planes)} | ${int(m.reads)} | ${f1(m.readBytes / 2 ** 20)} | ${f2(m.inflateS)} | ${f2(m.coverageS)} | ${f2(m.foldS)} | ${f2(m.workerS)} |`,
      );
  }
  if (np) {
    const sv = new Map(z.service.map((r) => [r.zone, r]));
    const nd = (x: number | null) => (x === null ? 'none' : String(x));
    L.push(
      '',
      `numpy's answer (${int(np.cells)} value cells in a zone and not nodata; nodata: values ${nd(np.nodata.values)}, zones ${nd(np.nodata.zones)}), and the service's last round:`,
      '',
      '| zone | count | sum | mean | min | max | the service |',
      '|---|---|---|---|---|---|---|',
    );
    for (const e of np.zones) {
      const r = sv.get(e.zone);
      const same = r !== undefined && ZONES_STATS.every((k) => r[k] === e[k]);
      const svc = r === undefined ? 'no row' : same ? 'the same' : ZONES_STATS.map((k) => `${k} ${r[k]}`).join(', ');
      L.push(`| ${e.zone} | ${int(e.count ?? NaN)} | ${e.sum} | ${e.mean} | ${e.min} | ${e.max} | ${svc} |`);
    }
  }
  L.push('', `Answers against numpy (count, min, max exactly; sum and mean within ${sci(ZONES_TOL)} relative):`, '');
  for (const r of z.rounds) L.push(`- round ${r.round}: ${zonesLine(r.check)}`);
  L.push('');
}

function targetsSection(r: Report, L: string[]): void {
  L.push('## Targets', '', '| target | measured | verdict |', '|---|---|---|');
  const w = r.weights;
  if (w && w.rounds.length) {
    const ratios = w.rounds.map((x) => x.weighted.ms / x.plain.ms);
    L.push(
      `| with weights ≤ ${T_WEIGHTS} × without (same round; median of ${ratios.length}) | ${ratios.map(f2).join(', ')} → ${f2(median(ratios))} | ${verdict(median(ratios) <= T_WEIGHTS)} |`,
    );
    const quiet = w.rounds.filter((x) => x.plain.others < QUIET && x.weighted.others < QUIET).map((x) => x.weighted.ms / x.plain.ms);
    L.push(
      `| the same, rounds with other jobs' CPU < ${QUIET} % on both requests | ${quiet.length ? `${quiet.map(f2).join(', ')} → ${f2(median(quiet))}` : 'none'} | ${verdict(quiet.length ? median(quiet) <= T_WEIGHTS : undefined)} |`,
    );
    const ee = w.rounds.map((x) => x.eeWeighted.ms / x.eePlain.ms);
    L.push(`| exactextract's own with / without \`-w\` (the anchor, for information) | ${ee.map(f2).join(', ')} → ${f2(median(ee))} | – |`);
    const bad = w.rounds.reduce(
      (k, x) => k + (x.plain.vsEe?.mismatches ?? 1) + (x.weighted.vsEe?.mismatches ?? 1) + (x.plain.vsEe?.errors ?? 0) + (x.weighted.vsEe?.errors ?? 0),
      0,
    );
    L.push(
      `| every zone's mean, count, weighted_mean, weighted_sum = exactextract's within ${sci(TOL)} | ${bad === 0 ? 'all equal' : `${bad} zone answers differ`} | ${verdict(bad === 0)} |`,
    );
  }
  const m = r.memory;
  if (m && m.runs.length) {
    const peaks = m.runs.map(peakOf);
    const peak = Math.max(...peaks.filter((x) => Number.isFinite(x)));
    L.push(
      `| 10,000 zones with values and coverage, NDJSON: peak RSS ≤ ${T_MEM_MIB} MiB | ${m.runs.map((x, i) => `${x.warm ? 'warm' : 'first request'} ${f1(peaks[i]!)}`).join(', ')} MiB | ${verdict(peak <= T_MEM_MIB)} |`,
    );
    const c = m.check;
    const ok =
      c !== undefined &&
      c.rows === 10_000 &&
      m.runs.every((x) => x.rows === 10_000) &&
      c.inOrder &&
      c.errors === 0 &&
      c.lengthsDiffer === 0 &&
      c.valuesDiffer === 0 &&
      c.maxCoverageAbs <= TOL &&
      c.maxCountRel <= TOL;
    L.push(
      `| 10,000 rows; every zone's values = exactextract's, coverage within ${sci(TOL)} | ${c ? `${m.runs.map((x) => int(x.rows)).join(' and ')} rows; ${c.lengthsDiffer} lengths and ${c.valuesDiffer} values differ, coverage ≤ ${sci(c.maxCoverageAbs)}, count ≤ ${sci(c.maxCountRel)}` : 'not checked'} | ${verdict(ok)} |`,
    );
  }
  const z = r.zones;
  if (z && z.rounds.length) {
    const ok = z.rounds.every((x) => zonesOk(x.check));
    const bad = z.rounds.filter((x) => !zonesOk(x.check)).length;
    L.push(
      `| zones as a raster: answers equal numpy's (every zone's count, min, max exactly; sum, mean within ${sci(ZONES_TOL)}; ascending zones) | ${ok ? `all ${z.numpy?.zones.length ?? '?'} zones equal in ${z.rounds.length} round${z.rounds.length === 1 ? '' : 's'}` : `${bad} of ${z.rounds.length} rounds differ (see part 3)`} | ${verdict(ok)} |`,
    );
    const ratios = z.rounds.map((x) => x.ratio);
    L.push(`| zones as a raster: service / numpy time, same round (for information, no target) | ${ratios.map(f2).join(', ')} → ${f2(median(ratios))} | – |`);
  }
  L.push('');
}

function render(r: Report): string {
  const L: string[] = [`# exactextract benchmark (issue 24): ${r.meta['date']}`, ''];
  L.push(
    `Machine: ${r.meta['cpus']}; ${r.meta['memory']}; Node ${process.version}; commit ${r.meta['commit']}; ${r.meta['exactextract']}${EE_ARGS.length ? ` (extra arguments: ${EE_ARGS.join(' ')})` : ''}. ` +
      `1-min load average ${r.meta['loadStart']} → ${r.meta['loadEnd']}; machine busy in the 3 s before: ${r.meta['busyBefore']} %.`,
    '',
  );
  if (r.weights) weightsSection(r.weights, L);
  if (r.memory) memorySection(r.memory, L);
  if (r.zones) zonesSection(r.zones, L);
  targetsSection(r, L);
  if (r.errors.length) L.push('Errors:', '', ...r.errors.map((e) => `- ${e.replace(/\n/g, ' ')}`), '');
  if (logged.size) L.push('The service logged (warn and above), count × message:', '', ...[...logged].map(([k, n]) => `- ${n} × ${k.replace(/`/g, "'")}`), '');
  L.push(
    "Other jobs' CPU: the share of the machine's CPU used by processes other than this benchmark's (its driver, the service, exactextract and the numpy anchor) during that measurement; above ~10 % the timing is inflated.",
  );
  return L.join('\n') + '\n';
}

function writeReport(report: Report): string {
  report.meta['loadEnd'] = loadavg()[0]!.toFixed(2);
  const md = render(report);
  writeFileSync(join(OUT_DIR, 'exactextract-results.md'), md);
  writeFileSync(join(OUT_DIR, 'exactextract-results.json'), JSON.stringify(report, null, 1));
  return md;
}

function eeVersion(): string {
  try {
    const v = execFileSync(EE, ['--help'], { encoding: 'utf8' })
      .split('\n')[0]!
      .replace(/^.*version\s*/, '');
    return `exactextract ${v} (${EE})`;
  } catch (e) {
    return `exactextract unavailable (${(e as Error).message})`;
  }
}

function onSignal(sig: NodeJS.Signals): void {
  say(`${sig}: stopping the service`);
  void Promise.all([...live].map((s) => s.stop().catch(() => undefined))).finally(() => {
    rmSync(tmp, { recursive: true, force: true });
    process.exit(130);
  });
}

async function main(): Promise<void> {
  mkdirSync(OUT_DIR, { recursive: true });
  tmp = mkdtempSync(join(tmpdir(), 'zonal-bench-ee-'));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const busyBefore = await waitIdle('the benchmark');
  const report: Report = { meta: runMeta(busyBefore, { exactextract: eeVersion() }), errors: [] };
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
    if (PARTS.has('weights')) {
      say(`1. weights, ${RUNS} rounds: 1,000 squares without and with weights, the service and exactextract …`);
      await attempt('weights', () => weights(report));
    }
    if (PARTS.has('memory')) {
      say('2. memory: 10,000 fields with values and coverage as NDJSON …');
      await attempt('memory', () => memory(report));
    }
    if (PARTS.has('zones')) {
      say(`3. zones as a raster, ${RUNS} rounds: s2_B04.tif by s2_SCL.tif's classes, the service and numpy …`);
      await attempt('zones', () => zones(report));
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  const md = writeReport(report);
  say(`\n${md}\n(bench/out/exactextract-results.md and .json)`);
  if (report.errors.length) process.exitCode = 1;
}

await main();
