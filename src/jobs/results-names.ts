/**
 * What both results stores share, below results.ts (which opens them, so they cannot import it): job ids
 * checked as UUIDs (so no name leaves the job's folder or prefix), part names, and PartMissingError.
 */

/** readPart of a part that was never written (or was deleted). */
export class PartMissingError extends Error {
  constructor(jobId: string, part: number) {
    super(`Part ${part} of job ${jobId} is missing.`);
    this.name = 'PartMissingError';
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A job id as a path segment or key part: a lowercase UUID and nothing else (never `..`, `/` or empty). */
export function checkJobId(jobId: string): string {
  if (typeof jobId !== 'string' || !UUID.test(jobId)) throw new Error(`Not a job id: ${JSON.stringify(String(jobId).slice(0, 64))}.`);
  return jobId;
}

/** `part-000042.ndjson`: zero-padded, so names sort as the parts do. */
export function partName(part: number): string {
  if (!Number.isSafeInteger(part) || part < 0) throw new Error(`Not a part number: ${part}.`);
  return `part-${String(part).padStart(6, '0')}.ndjson`;
}

/** The part number of a name partName gave, else undefined (a temporary file, anything else). */
function partOf(name: string): number | undefined {
  const m = /^part-(\d{6,})\.ndjson$/.exec(name);
  return m ? Number(m[1]) : undefined;
}

/** The parts of a listing's names, sorted, anything else left out. */
export function partsOf(names: Iterable<string>): number[] {
  const parts: number[] = [];
  for (const name of names) {
    const p = partOf(name);
    if (p !== undefined) parts.push(p);
  }
  return parts.sort((a, b) => a - b);
}
