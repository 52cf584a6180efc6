#!/usr/bin/env node
/**
 * The job half of deploy/smoke-jobs.sh: submits ZONES zones over the demo raster (COG) as one job through
 * URL (nginx), SIGKILLs the process KILL_PID once the job is running with tasks still queued, waits for the
 * job to end, reads its rows through URL and asks the direct endpoint for the same zones in slices of
 * SLICE (≤ the replicas' ZONAL_MAX_ZONES). Then one JSON line: zones, rows, duplicates (indexes seen more
 * than once), gaps (indexes missing), mismatches (rows that differ from the direct answer), the job's tasks
 * and status, the queue depth when the worker was killed, and the seconds from submission to the end.
 * Exit 1 unless every zone has exactly one row, equal to the direct one, and the kill happened mid-job.
 */
const url = process.env.URL ?? 'http://127.0.0.1:8080';
const cog = process.env.COG;
const count = Number(process.env.ZONES ?? 3000);
const slice = Number(process.env.SLICE ?? 1000);
const killPid = Number(process.env.KILL_PID ?? 0);
const timeoutS = Number(process.env.TIMEOUT_S ?? 600);
const log = (line) => process.stderr.write(`jobs-check: ${line}\n`);

/** Squares and 3 km circles spread over the demo raster (Luxembourg), each zone a little different. */
function zones() {
  const features = [];
  for (let i = 0; i < count; i++) {
    const x = 5.76 + ((i * 0.0137) % 0.7);
    const y = 49.46 + ((i * 0.0071) % 0.6);
    const geometry =
      i % 2
        ? { type: 'Point', coordinates: [x, y] }
        : {
            type: 'Polygon',
            coordinates: [
              [
                [x, y],
                [x + 0.1, y],
                [x + 0.1, y + 0.08],
                [x, y + 0.08],
                [x, y],
              ],
            ],
          };
    features.push({ type: 'Feature', id: `z${i}`, properties: { i }, geometry });
  }
  return features;
}

const features = zones();
const question = { url: cog, radius: 3000, pixels: 'fractional', stats: ['count', 'mean', 'median', 'std', 'percentile_90'] };
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function json(path, init) {
  const res = await fetch(`${url}${path}`, init);
  const text = await res.text();
  if (!res.ok) throw new Error(`${init?.method ?? 'GET'} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

async function ndjson(path, init) {
  const res = await fetch(`${url}${path}`, { ...init, headers: { ...init?.headers, accept: 'application/x-ndjson' } });
  const text = await res.text();
  if (!res.ok) throw new Error(`${init?.method ?? 'GET'} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));
}

/** Tasks waiting or running, as /metrics reports them (the same figure from every replica). */
async function queueDepth() {
  const text = await (await fetch(`${url}/metrics`)).text();
  const m = /^zonal_job_queue_depth (\S+)$/m.exec(text);
  return m ? Number(m[1]) : Number.NaN;
}

const t0 = performance.now();
const submitted = await json('/processes/zonal-stats-raster/execution', {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ inputs: { ...question, aoi: { type: 'FeatureCollection', features } } }),
});
const id = submitted.jobID;
log(`job ${id}: ${submitted.message}`);

// Kill once the job runs and some task is done, while tasks are still queued: the killed worker then holds
// a task (one at a time per worker, two workers, more tasks than that left), which another must take again.
let killed = null;
let status;
const deadline = Date.now() + timeoutS * 1000;
for (;;) {
  status = await json(`/jobs/${id}`);
  if (['successful', 'failed', 'dismissed'].includes(status.status)) break;
  if (Date.now() > deadline) throw new Error(`job ${id} still ${status.status} after ${timeoutS} s`);
  if (killed === null && killPid && status.status === 'running' && status.progress > 0) {
    const depth = await queueDepth();
    process.kill(killPid, 'SIGKILL');
    killed = { progress: status.progress, depth };
    log(`worker ${killPid} killed (SIGKILL) at ${status.progress} % with ${depth} task(s) waiting or running`);
  }
  await sleep(killed === null ? 100 : 500);
}
const seconds = (performance.now() - t0) / 1000;
log(`job ${id}: ${status.status} after ${seconds.toFixed(1)} s: ${status.message}`);

const rows = await ndjson(`/jobs/${id}/results`);
const direct = [];
for (let start = 0; start < count; start += slice) {
  const part = await ndjson('/api/v1/zonal-stats/raster', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...question, aoi: { type: 'FeatureCollection', features: features.slice(start, start + slice) } }),
  });
  for (const row of part) direct.push({ ...row, index: row.index + start });
}

const seen = new Map();
for (const row of rows) seen.set(row.index, (seen.get(row.index) ?? 0) + 1);
const duplicates = [...seen.values()].filter((n) => n > 1).length;
let gaps = 0;
for (let i = 0; i < count; i++) if (!seen.has(i)) gaps++;
const byIndex = new Map(rows.map((r) => [r.index, JSON.stringify(r)]));
const mismatches = direct.filter((r) => byIndex.get(r.index) !== JSON.stringify(r)).length + Math.abs(direct.length - count);
const errors = rows.filter((r) => r.error).length;

const summary = {
  zones: count,
  rows: rows.length,
  duplicates,
  gaps,
  mismatches,
  errors,
  tasks: Number(/in ([\d,]+) task/.exec(submitted.message)?.[1]?.replace(/,/g, '') ?? Number.NaN),
  status: status.status,
  killed_at_progress: killed?.progress ?? null,
  queue_depth_at_kill: killed?.depth ?? null,
  seconds: Math.round(seconds * 10) / 10,
};
console.log(JSON.stringify(summary));
const ok =
  status.status === 'successful' &&
  rows.length === count &&
  duplicates === 0 &&
  gaps === 0 &&
  mismatches === 0 &&
  errors === 0 &&
  (killed !== null || !killPid);
process.exit(ok ? 0 : 1);
