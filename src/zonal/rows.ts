/**
 * A zone's packed rows (ZoneRows, a cube's zone × steps) taken row by row, as outcomes: for the consumers
 * that need an object per row (the JSON, CSV and GeoParquet formats, a job's stored part, the CLI).
 */
import type { Answered, BandStats, ZoneOutcome, ZoneRows } from './model.ts';

export function isRows(a: Answered): a is ZoneRows {
  return 'rows' in a;
}

/** Row `i` of a zone's packed rows as an outcome. */
export function rowAt(r: ZoneRows, i: number): ZoneOutcome {
  const { names, values, extra, key } = r.rows;
  const more = extra?.[i] ?? null;
  const stats: Record<string, unknown> = {};
  names.forEach((name, k) => {
    const v = values[i * names.length + k] as number;
    stats[name] = more !== null && name in more ? more[name] : v !== v ? null : v;
  });
  return { zone: r.zone, coords: r.rows.coords(i), statistics: { [key]: stats as BandStats } };
}

/** Every row of the answers, in order: packed rows one outcome each. */
export async function* eachRow(answers: AsyncIterable<Answered>): AsyncGenerator<ZoneOutcome> {
  for await (const a of answers) {
    if (!isRows(a)) yield a;
    else for (let i = 0; i < a.rows.count; i++) yield rowAt(a, i);
  }
}
