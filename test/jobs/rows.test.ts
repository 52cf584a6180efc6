/**
 * A part's rows read back (jobs/rows.ts): whatever way the bytes are cut into chunks (inside a line, inside a
 * multi-byte character, at a newline), the same outcomes in the same order, the last line with or without
 * its newline.
 */
import { describe, expect, it } from 'vitest';
import { rowLine, rowsOf } from '../../src/jobs/rows.ts';
import type { ZoneOutcome } from '../../src/zonal/model.ts';

const outcomes = [
  { index: 0, id: 'zone-é', status: 200, stats: { band_1: { mean: 1.5 } } },
  { index: 1, id: '区域', status: 200, stats: { band_1: { mean: null } } },
  { index: 2, id: 'z2', status: 422, error: { status: 422, code: 'invalid_geometry', detail: 'A ring is open.' } },
] as unknown as ZoneOutcome[];

async function* chunked(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function all(chunks: AsyncIterable<Uint8Array>): Promise<ZoneOutcome[]> {
  const out: ZoneOutcome[] = [];
  for await (const o of rowsOf(chunks)) out.push(o);
  return out;
}

describe('rowsOf', () => {
  const text = outcomes.map(rowLine).join('');
  const bytes = new TextEncoder().encode(text);

  it('reads the same rows for every chunk size, from 1 byte to the whole part', async () => {
    for (let size = 1; size <= bytes.length; size++) expect(await all(chunked(bytes, size))).toEqual(outcomes);
  });

  it('reads a last line without its newline, and skips empty lines', async () => {
    const loose = new TextEncoder().encode(`\n${text}\n${text.trimEnd()}`);
    expect(await all(chunked(loose, 7))).toEqual([...outcomes, ...outcomes]);
  });
});
