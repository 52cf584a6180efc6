/**
 * Jobs in the domain's terms (OGC API – Processes Part 1, async execution): the processes, a job's record,
 * its tasks (a slice of its zones each), and the status document a client reads. Pure: no I/O.
 */
import type { Question, ZoneInput } from '../zonal/model.ts';
import type { ProcessId } from '../schemas/processes.ts';

/** The processes: one per statistics endpoint, with the question kind it asks and how its rows are keyed. */
export const PROCESSES = {
  'zonal-stats-raster': { kind: 'raster', keyName: 'band', endpoint: '/api/v1/zonal-stats/raster' },
  'zonal-stats-raster-stac': { kind: 'raster-stac', keyName: 'band', endpoint: '/api/v1/zonal-stats/raster/stac' },
  'zonal-stats-raster-stac-search': { kind: 'raster-stac-search', keyName: 'band', endpoint: '/api/v1/zonal-stats/raster/stac/search' },
  'zonal-stats-vector': { kind: 'vector', keyName: 'column', endpoint: '/api/v1/zonal-stats/vector' },
  'zonal-stats-vector-stac': { kind: 'vector-stac', keyName: 'column', endpoint: '/api/v1/zonal-stats/vector/stac' },
} as const satisfies Record<ProcessId, { kind: Question['kind']; keyName: 'band' | 'column'; endpoint: string }>;

export type { ProcessId };

export type JobStatus = 'accepted' | 'running' | 'successful' | 'failed' | 'dismissed';

/** Where a job's zones are: given in the request (each task carries its own), or a zones file read by each task. */
export type ZonesRef = { inline: true } | { inline: false; href: string; type?: string | undefined };

/** URLs told of the job's changes (OGC `subscriber`), under the same address policy as every outbound request. */
export interface Subscriber {
  successUri?: string | undefined;
  failedUri?: string | undefined;
  inProgressUri?: string | undefined;
}

/** A job as the store keeps it. Times are ISO 8601 instants. */
export interface JobRecord {
  id: string;
  processId: ProcessId;
  status: JobStatus;
  message: string;
  created: string;
  started?: string | undefined;
  finished?: string | undefined;
  updated: string;
  /** Zones of the job (rows of a zones × time job are more). */
  zones: number;
  tasks: number;
  tasksDone: number;
  /** Zones answered so far (whole tasks, plus the running tasks' reports). */
  zonesDone: number;
  /** Zones whose row is an error (a bad zone, or a task that failed for good). */
  failedZones: number;
  failedTasks: number;
  keyName: 'band' | 'column';
  includeGeometry: boolean;
  subscriber?: Subscriber | undefined;
}

/** One task: zones [start, end) of a job, the question, and the zones themselves when they came inline. */
export interface TaskSpec {
  jobId: string;
  index: number;
  start: number;
  end: number;
  question: Question;
  radius?: number | undefined;
  zones?: ZoneInput[] | undefined;
  ref?: { href: string; type?: string | undefined } | undefined;
}

/** What a finished task reports: zones answered and those answered with an error; `failed` when the task itself failed for good. */
export interface TaskResult {
  zones: number;
  failedZones: number;
  failed: boolean;
  /** Why the task failed, for the job's message. */
  reason?: string | undefined;
}

/** [start, end) slices of `total` zones, `size` each (the last one shorter). */
export function taskRanges(total: number, size: number): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  for (let start = 0; start < total; start += size) ranges.push([start, Math.min(total, start + size)]);
  return ranges;
}

/** Whether a job can change no more. */
export function isFinal(status: JobStatus): boolean {
  return status === 'successful' || status === 'failed' || status === 'dismissed';
}

/** A finished job's status and message from its tasks: failed only when every task failed. */
export function finalOutcome(
  r: Pick<JobRecord, 'tasks' | 'failedTasks' | 'failedZones' | 'zones'>,
  lastReason?: string,
): { status: JobStatus; message: string } {
  if (r.tasks > 0 && r.failedTasks === r.tasks) {
    return { status: 'failed', message: `Every task of the job failed${lastReason ? `: ${lastReason}` : '.'}` };
  }
  const failed = r.failedZones === 0 ? 'no zone failed' : `${r.failedZones.toLocaleString('en')} zone(s) answered with an error`;
  return { status: 'successful', message: `Done: ${r.zones.toLocaleString('en')} zone(s), ${failed}.` };
}

/** Progress 0–100 by zones answered; 100 only once the job has ended (successful or failed). */
function progressOf(r: Pick<JobRecord, 'zones' | 'zonesDone' | 'status'>): number {
  if (r.status === 'successful' || r.status === 'failed') return 100;
  if (r.zones === 0) return 0;
  return Math.min(99, Math.floor((100 * r.zonesDone) / r.zones));
}

const OGC_RESULTS = 'http://www.opengis.net/def/rel/ogc/1.0/results';

/** The OGC statusInfo document of a job (`base`: the URL prefix the service is reached at, without a trailing slash). */
export function statusDocument(r: JobRecord, base: string) {
  const self = `${base}/jobs/${r.id}`;
  const links: Array<{ href: string; rel: string; type: string; title: string }> = [
    { href: self, rel: 'self', type: 'application/json', title: 'This status document' },
  ];
  if (r.status === 'successful') {
    links.push({
      href: `${self}/results`,
      rel: OGC_RESULTS,
      type: 'application/json',
      title: 'The rows (JSON by default; NDJSON, CSV, GeoJSON or GeoParquet by Accept)',
    });
  }
  return {
    jobID: r.id,
    processID: r.processId,
    type: 'process' as const,
    status: r.status,
    message: r.message,
    created: r.created,
    ...(r.started === undefined ? {} : { started: r.started }),
    ...(r.finished === undefined ? {} : { finished: r.finished }),
    updated: r.updated,
    progress: progressOf(r),
    zones: r.zones,
    failedZones: r.failedZones,
    links,
  };
}
