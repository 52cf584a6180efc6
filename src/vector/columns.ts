/**
 * Pure: the requested columns against the file's (contract §5 vector rules): matched
 * case-insensitively and answered under the file's spelling; a name the file lacks is 422 listing the
 * file's columns; non-numeric columns are skipped silently; none left is 422.
 */
import { ZonalError } from '../errors.ts';
import type { ColumnInfo } from './reader.ts';

/** The numeric columns to answer, in the order asked, de-duplicated, spelled as the file spells them. */
export function resolveColumns(requested: readonly string[], fileColumns: readonly ColumnInfo[]): string[] {
  const byLower = new Map<string, ColumnInfo>();
  for (const c of fileColumns) if (!byLower.has(c.name.toLowerCase())) byLower.set(c.name.toLowerCase(), c);
  const exact = new Map(fileColumns.map((c) => [c.name, c]));
  // An exact spelling wins over a case-insensitive match (a file may hold both "pop" and "POP").
  const find = (r: string): ColumnInfo | undefined => exact.get(r) ?? byLower.get(r.toLowerCase());
  const missing = requested.filter((r) => find(r) === undefined);
  if (missing.length > 0) {
    const list = fileColumns.map((c) => c.name).join(', ');
    throw new ZonalError('unknown_column', `The file has no column ${missing.map((m) => `"${m}"`).join(', ')}; its columns are: ${list}.`, {
      columns: fileColumns.map((c) => c.name),
    });
  }
  const out: string[] = [];
  for (const r of requested) {
    const col = find(r) as ColumnInfo;
    if (col.numeric && !out.includes(col.name)) out.push(col.name);
  }
  if (out.length === 0) {
    throw new ZonalError(
      'no_numeric_column',
      `None of the requested columns is numeric (${requested.join(', ')}); statistics need integer, float or decimal columns.`,
    );
  }
  return out;
}
