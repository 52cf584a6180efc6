/**
 * src/vector/columns.ts: the requested columns against the file's (contract §5 vector rules). Expectations
 * by hand from the rule: case-insensitive match answered in the file's spelling, order of the request
 * kept, duplicates once, a missing name is 422 `unknown_column` listing the file's columns, non-numeric
 * columns skipped, none numeric left is 422 `no_numeric_column`.
 */
import { describe, expect, it } from 'vitest';
import { resolveColumns } from '../../src/vector/columns.ts';
import type { ColumnInfo } from '../../src/vector/reader.ts';
import { ZonalError } from '../../src/errors.ts';

/** nc.parquet's columns (geometry aside), with whether each is numeric, plus a boolean and a nested one. */
const FILE: ColumnInfo[] = [
  { name: 'AREA', numeric: true },
  { name: 'PERIMETER', numeric: true },
  { name: 'CNTY_', numeric: true },
  { name: 'NAME', numeric: false },
  { name: 'FIPS', numeric: false },
  { name: 'BIR74', numeric: true },
  { name: 'SID74', numeric: true },
  { name: 'flag', numeric: false },
  { name: 'bbox', numeric: false },
  { name: 'dec9_2', numeric: true, decimalScale: 2 },
];

function thrown(f: () => unknown): ZonalError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ZonalError);
    return e as ZonalError;
  }
  throw new Error('expected a ZonalError, nothing was thrown');
}

describe('resolveColumns', () => {
  it('matches case-insensitively and answers in the file spelling', () => {
    expect(resolveColumns(['bir74'], FILE)).toEqual(['BIR74']);
    expect(resolveColumns(['Area', 'sId74', 'DEC9_2'], FILE)).toEqual(['AREA', 'SID74', 'dec9_2']);
  });

  it('keeps the order of the request, not of the file', () => {
    expect(resolveColumns(['SID74', 'AREA', 'BIR74', 'PERIMETER'], FILE)).toEqual(['SID74', 'AREA', 'BIR74', 'PERIMETER']);
  });

  it('answers duplicates once, at their first place, whatever their spelling', () => {
    expect(resolveColumns(['BIR74', 'AREA', 'bir74', 'Bir74', 'AREA', 'SID74'], FILE)).toEqual(['BIR74', 'AREA', 'SID74']);
  });

  it('skips text, boolean and nested columns silently', () => {
    expect(resolveColumns(['NAME', 'BIR74', 'flag', 'FIPS', 'bbox', 'AREA'], FILE)).toEqual(['BIR74', 'AREA']);
  });

  it('a missing name is 422 unknown_column naming it and listing every column of the file', () => {
    const e = thrown(() => resolveColumns(['BIR74', 'nope', 'Other'], FILE));
    expect(e.code).toBe('unknown_column');
    expect(e.status).toBe(422);
    expect(e.detail).toContain('"nope"');
    expect(e.detail).toContain('"Other"');
    for (const c of FILE) expect(e.detail).toContain(c.name);
    expect(e.extras['columns']).toEqual(FILE.map((c) => c.name));
    // One human sentence.
    expect(e.detail).not.toMatch(/\n/);
  });

  it('a missing name wins over non-numeric ones (the user is told about the typo first)', () => {
    expect(thrown(() => resolveColumns(['NAME', 'nope'], FILE)).code).toBe('unknown_column');
  });

  it('no numeric column left is 422 no_numeric_column', () => {
    for (const req of [['NAME'], ['name', 'FIPS', 'flag'], ['bbox']]) {
      const e = thrown(() => resolveColumns(req, FILE));
      expect(e.code).toBe('no_numeric_column');
      expect(e.status).toBe(422);
      expect(e.detail).toContain(req[0]);
    }
  });

  it('a file without any column at all: any request is unknown_column', () => {
    const e = thrown(() => resolveColumns(['x'], []));
    expect(e.code).toBe('unknown_column');
    expect(e.extras['columns']).toEqual([]);
  });

  // A file may hold columns differing only in case: an exact spelling wins.
  it('two columns differing only in case: an exact-case request gets the column it names', () => {
    const cols: ColumnInfo[] = [
      { name: 'pop', numeric: true },
      { name: 'POP', numeric: true },
    ];
    expect(resolveColumns(['pop'], cols)).toEqual(['pop']);
    expect(resolveColumns(['POP'], cols)).toEqual(['POP']);
  });
});
