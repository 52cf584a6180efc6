/**
 * One task of a job: its zones (carried inline, or a slice of the job's zones file read under the source
 * policy), answered by the one entry point (zonal/answer.ts), the rows written as one part of the results.
 * A task that fails for good still writes its part: each of its zones with the task's error.
 */
import { ZonalError } from '../errors.ts';
import { checkZones } from '../schemas/zones.ts';
import { SourceError, versionKey, type ByteSource } from '../source/source.ts';
import { toZonalError } from '../source/errors.ts';
import { answer, type AnswerDeps } from '../zonal/answer.ts';
import { eachRow } from '../zonal/rows.ts';
import type { Zone, ZoneError, ZoneInput, ZoneOutcome } from '../zonal/model.ts';
import { mediaTypeFormat, openZonesFile, ZonesFileError, type ZonesReader } from '../inputs/zones-file.ts';
import { memo } from '../memo.ts';
import { rowLine } from './rows.ts';
import type { TaskResult, TaskSpec } from './model.ts';
import type { ResultsStore } from './results.ts';

/** What a task needs: the use cases' dependencies (with the task's abort signal), the results store, and where to report progress. */
export interface TaskDeps {
  answer: AnswerDeps;
  results: ResultsStore;
  /** Most bytes of a GeoJSON or CSV zones file. */
  zonesFileMaxBytes: number;
  /** Zones answered so far, now and then. */
  onProgress?: (zones: number) => void;
}

/** The zones files this process has open: the last two (one job's, the next one's). */
const readers = memo<ZonesReader>({ name: 'zones_files', maxEntries: 2 });

/** Outcomes between two progress reports. */
const REPORT_EVERY = 500;

/**
 * A zones file's reader. A process takes many tasks of one job, so a GeoJSON or CSV file (read and parsed
 * whole) is kept while it has not changed; a GeoParquet file is opened by each task (its footer is cached
 * anyway), so that each task reads its row groups under its own byte budget.
 */
async function zonesReader(source: ByteSource, ref: { href: string; type?: string | undefined }, maxBytes: number): Promise<ZonesReader> {
  await source.size();
  const key = versionKey(source);
  const kept = key === undefined ? undefined : readers.get(key);
  if (kept) return kept;
  const reader = await openZonesFile(source, ref.href, { format: mediaTypeFormat(ref.type), maxBytes });
  if (key !== undefined && reader.format !== 'geoparquet') readers.set(key, reader);
  return reader;
}

/** A task's zones: inline, or [start, end) of its zones file; a geometry the file could not give is that zone's validation error. */
async function zonesOf(task: TaskSpec, deps: TaskDeps): Promise<Zone[]> {
  if (task.zones) return checkZones(task.zones, task.radius);
  const ref = task.ref as NonNullable<TaskSpec['ref']>;
  const source = await deps.answer.openSource(ref.href);
  let file;
  try {
    const reader = await zonesReader(source, ref, deps.zonesFileMaxBytes);
    file = await reader.read(task.start, task.end);
  } catch (e) {
    if (e instanceof ZonesFileError) throw new ZonalError('validation_failed', e.message);
    throw e;
  }
  return checkZones(file.zones, task.radius).map((z) => {
    const why = file.unreadable.get(z.index);
    return why === undefined ? z : { ...z, aoi: new ZonalError('validation_failed', why) };
  });
}

/** Answers the task and writes its part; a problem of the whole task (its source, a limit) throws. */
export async function runTask(task: TaskSpec, deps: TaskDeps): Promise<TaskResult> {
  const zones = await zonesOf(task, deps);
  const lines: string[] = [];
  let failedZones = 0;
  let answered = 0;
  let lastIndex = -1;
  for await (const o of eachRow(answer(task.question, zones, deps.answer))) {
    lines.push(rowLine(o));
    if (o.error) failedZones += 1;
    // zones × time: several rows per zone, counted once.
    if (o.zone.index !== lastIndex) {
      lastIndex = o.zone.index;
      answered += 1;
      if (answered % REPORT_EVERY === 0) deps.onProgress?.(answered);
    }
  }
  await deps.results.putPart(task.jobId, task.index, new TextEncoder().encode(lines.join('')));
  return { zones: task.end - task.start, failedZones, failed: false };
}

/** A thrown error as a row's error. */
export function problemOf(e: unknown): ZoneError {
  const z = e instanceof ZonalError ? e : e instanceof SourceError ? toZonalError(e) : null;
  return z
    ? { status: z.status, code: z.code, detail: z.detail }
    : { status: 500, code: 'internal_error', detail: 'The task failed unexpectedly; the service log has its request id.' };
}

/** Whether trying again may help: upstream and unexpected failures, not a problem of the request. */
export function mayPass(e: unknown): boolean {
  const p = problemOf(e);
  return p.status >= 500;
}

/** The part of a task that failed for good: each of its zones with the task's error. */
export async function writeFailedTask(task: TaskSpec, error: ZoneError, results: ResultsStore): Promise<TaskResult> {
  const lines: string[] = [];
  for (let index = task.start; index < task.end; index++) {
    const given: ZoneInput | undefined = task.zones?.[index - task.start];
    const zone: ZoneInput = given ?? { index, id: null, properties: null, geometry: null };
    const row: ZoneOutcome = { zone, error };
    lines.push(rowLine(row));
  }
  await results.putPart(task.jobId, task.index, new TextEncoder().encode(lines.join('')));
  return { zones: task.end - task.start, failedZones: task.end - task.start, failed: true, reason: error.detail };
}
