/**
 * A zone's packed rows (ZoneRows: a cube's zone × steps) in every format: NDJSON writes them without an
 * object per row, the other formats row by row. Each format's text must be the text of the same rows given
 * as one outcome each, and the NDJSON lines must be the JSON written here by hand: nulls for NaN and the
 * infinities, values that are not numbers kept, a dimension named like a line's own member in its place.
 */
import { describe, expect, it } from 'vitest';
import type { Answered, ZoneOutcome, ZoneRows } from '../../src/zonal/model.ts';
import { FORMATS, formatNamed, type FormatOptions } from '../../src/formats/index.ts';
import { eachRow } from '../../src/zonal/rows.ts';
import { rowsPieceBytes, type RowsPiece } from '../../src/workers/ndjson-rows.ts';

const ZONE = { index: 3, id: 'z"3', properties: { name: 'Zone é' }, geometry: null };
const STEPS = [{ time: '2021-01-01T00:00:00Z' }, { time: '2021-01-01T01:00:00Z' }, { time: '2021-01-01T02:00:00Z' }];
const NAN = Number.NaN;

function rowsOf(coords: Record<string, string | number>[], extra: ZoneRows['rows']['extra'] = null): ZoneRows {
  return {
    zone: ZONE,
    rows: {
      count: coords.length,
      key: 't2m',
      names: ['mean', 'count', 'histogram'],
      // row 0: plain numbers; row 1: NaN (null) and an infinity (null, as JSON.stringify writes it); row 2: -0 and a tiny number.
      values: new Float64Array([281.45600000000002, 12.5, NAN, NAN, Infinity, NAN, -0, 1e-7, NAN]),
      extra,
      coords: (i) => coords[i] as Record<string, string | number>,
    },
  };
}

async function text(format: string, answers: Answered[], more: Partial<FormatOptions> = {}): Promise<string> {
  const options: FormatOptions = { keyName: 'variable', includeGeometry: false, ...more };
  async function* given(): AsyncGenerator<Answered> {
    yield* answers;
  }
  const pieces: (string | Uint8Array)[] = [];
  for await (const p of (formatNamed(format) as (typeof FORMATS)[number]).write(given(), options)) pieces.push(p);
  const binary = formatNamed(format)?.binary === true;
  return pieces.map((p) => (typeof p === 'string' ? p : Buffer.from(p).toString(binary ? 'base64' : 'utf8'))).join('');
}

async function expanded(answers: Answered[]): Promise<ZoneOutcome[]> {
  async function* given(): AsyncGenerator<Answered> {
    yield* answers;
  }
  const out: ZoneOutcome[] = [];
  for await (const o of eachRow(given())) out.push(o);
  return out;
}

describe('packed rows (a cube zone × steps)', () => {
  const extra = [null, { histogram: [1, 2] }, null];

  it('NDJSON: each row the line written by hand', async () => {
    const lines = (await text('ndjson', [rowsOf(STEPS, extra)])).split('\n');
    expect(lines).toEqual([
      '{"index":3,"id":"z\\"3","properties":{"name":"Zone é"},"time":"2021-01-01T00:00:00Z","statistics":{"t2m":{"mean":281.456,"count":12.5,"histogram":null}}}',
      '{"index":3,"id":"z\\"3","properties":{"name":"Zone é"},"time":"2021-01-01T01:00:00Z","statistics":{"t2m":{"mean":null,"count":null,"histogram":[1,2]}}}',
      '{"index":3,"id":"z\\"3","properties":{"name":"Zone é"},"time":"2021-01-01T02:00:00Z","statistics":{"t2m":{"mean":0,"count":1e-7,"histogram":null}}}',
      '',
    ]);
  });

  it('a dimension named like a member of the line takes its place, as for one outcome a row', async () => {
    const odd = STEPS.map((s, i) => ({ ...s, index: i * 10 }));
    const rows = rowsOf(odd);
    const one = await text('ndjson', await expanded([rows]));
    expect(await text('ndjson', [rows])).toBe(one);
    expect(JSON.parse(one.split('\n')[1] as string)).toMatchObject({ index: 10, id: 'z"3', time: '2021-01-01T01:00:00Z' });
  });

  it('every format writes the same text as for the rows given one by one', async () => {
    const rows = rowsOf(STEPS, extra);
    const error: ZoneOutcome = { zone: { ...ZONE, index: 4 }, coords: null, error: { status: 422, code: 'invalid_geometry', detail: 'no' } };
    for (const f of FORMATS) {
      expect(await text(f.name, [rows, error]), f.name).toBe(await text(f.name, [...(await expanded([rows])), error]));
    }
  });

  it('NDJSON: a column whose number repeats, turns to -0, 0, null and back, as JSON.stringify writes each row', async () => {
    const column = [1.5, 1.5, -0, 0, -0, NAN, NAN, Infinity, 1.5, 0.1 + 0.2, 0.30000000000000004];
    const steps = column.map((_, i) => ({ time: i }));
    const rows: ZoneRows = {
      zone: ZONE,
      rows: {
        count: column.length,
        key: 'v',
        names: ['mean'],
        values: Float64Array.from(column),
        extra: null,
        coords: (i) => steps[i] as Record<string, number>,
      },
    };
    const lines = (await text('ndjson', [rows])).trimEnd().split('\n');
    expect(lines).toEqual(
      column.map((v, i) =>
        JSON.stringify({ index: 3, id: 'z"3', properties: ZONE.properties, time: i, statistics: { v: { mean: Number.isFinite(v) ? v : null } } }),
      ),
    );
  });

  it('NDJSON written by a renderer (the workers) is the text written here, in order, whatever order the pieces finish in', async () => {
    const many = Array.from({ length: 9000 }, (_, i) => ({ time: `t${i}` }));
    const big: ZoneRows = {
      zone: ZONE,
      rows: {
        count: many.length,
        key: 'v',
        names: ['mean', 'count'],
        values: Float64Array.from({ length: many.length * 2 }, (_, i) => (i % 7 === 0 ? NAN : i / 3)),
        extra: null,
        coords: (i) => many[i] as Record<string, string>,
      },
    };
    const error: ZoneOutcome = { zone: { ...ZONE, index: 4 }, coords: null, error: { status: 422, code: 'invalid_geometry', detail: 'no' } };
    const answers: Answered[] = [rowsOf(STEPS, extra), big, error, rowsOf(STEPS.map((s, i) => ({ ...s, index: i })))];
    let calls = 0;
    // Later pieces finish first: the first piece waits longest.
    const rowsText = async (piece: RowsPiece): Promise<Uint8Array> => {
      const wait = 30 - 10 * calls++;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, wait)));
      return rowsPieceBytes(piece);
    };
    const byRenderer = await text('ndjson', answers, { rowsText });
    expect(calls).toBeGreaterThan(2);
    expect(byRenderer).toBe(await text('ndjson', answers));
  });

  it('NDJSON by a renderer: a zone of many rows asks for a few pieces ahead of the one taken, not for all of them', async () => {
    const count = 4096 * 20 + 7;
    const rows: ZoneRows = {
      zone: ZONE,
      rows: {
        count,
        key: 'v',
        names: ['mean'],
        values: Float64Array.from({ length: count }, (_, i) => i),
        extra: null,
        coords: () => STEPS[0] as Record<string, string>,
      },
    };
    async function* given(): AsyncGenerator<Answered> {
      yield rows;
    }
    let asked = 0;
    const rowsText = async (piece: RowsPiece): Promise<Uint8Array> => {
      asked++;
      return rowsPieceBytes(piece);
    };
    const options: FormatOptions = { keyName: 'variable', includeGeometry: false, rowsText };
    let taken = 0;
    let lines = 0;
    let most = 0;
    for await (const piece of (formatNamed('ndjson') as (typeof FORMATS)[number]).write(given(), options)) {
      taken++;
      most = Math.max(most, asked - taken);
      lines += Buffer.from(piece).toString('utf8').split('\n').length - 1;
    }
    expect(taken).toBe(21);
    expect(lines).toBe(count);
    expect(most).toBeLessThanOrEqual(8);
  });

  it("NDJSON by the workers' writer: each line JSON.stringify's of its row, for the longest numbers, repeats across its texts, coordinates and values beyond ASCII", () => {
    // 10,000 rows × 3 numbers: several of its JSON texts of 4,096 numbers, a column that repeats (copied from the
    // line before), -0 after 0, NaN and the infinities (null), and numbers of every length up to 25 characters.
    const longest = [-0.0000012345678901234567, -1.2345678901234567e-308, -1.7976931348623157e308, -123456789012345680000, 5e-324, -0.000001];
    const rows = 10_000;
    const names = ['mean', 'count', 'histogram', 'max'];
    const values = new Float64Array(rows * names.length);
    const extra: (Record<string, unknown> | null)[] = [];
    const coords: string[] = [];
    for (let i = 0; i < rows; i++) {
      values[i * 4] = i < longest.length ? (longest[i] as number) : i % 97 === 0 ? NAN : Math.sin(i) * 1e3;
      values[i * 4 + 1] = i % 500 < 250 ? 42.51492438948241 : i % 3 === 0 ? -0 : 0;
      values[i * 4 + 2] = NAN;
      values[i * 4 + 3] = i % 11 === 0 ? Infinity : i / 7;
      extra.push(i % 1000 === 5 ? { histogram: ['ü', i] } : null);
      coords.push(`,"time":"t${i}${i % 13 === 0 ? 'é' : ''}","level":${i % 3}`);
    }
    let joined = '';
    const coordEnds = new Int32Array(rows);
    coords.forEach((c, i) => {
      joined += c;
      coordEnds[i] = joined.length;
    });
    const prefix = '{"index":7,"id":"å","properties":{"name":"Zone é"}';
    const piece: RowsPiece = {
      prefix,
      coords: joined,
      coordEnds,
      open: ',"statistics":{"t2m":{',
      heads: names.map((n, k) => `${k === 0 ? '' : ','}"${n}":`),
      names,
      values,
      extra,
    };
    const want = coords.map((c, i) => {
      const stats: Record<string, unknown> = {};
      names.forEach((n, k) => (stats[n] = extra[i]?.[n] ?? values[i * 4 + k]));
      return `${prefix}${c},"statistics":${JSON.stringify({ t2m: stats })}}\n`;
    });
    expect(Buffer.from(rowsPieceBytes(piece)).toString('utf8')).toBe(want.join(''));
    expect(String(longest[0]).length).toBe(25);
  });

  it("NDJSON by the workers' writer: a piece larger than the thread's buffer keeps (a zone of large properties) is written whole, and the next one too", () => {
    const rows = 4096;
    const piece = (name: string): RowsPiece => {
      const coords = Array.from({ length: rows }, (_, i) => `,"time":"t${i}"`);
      const ends = new Int32Array(rows);
      coords.reduce((end, c, i) => (ends[i] = end + c.length), 0);
      return {
        prefix: JSON.stringify({ index: 0, id: 'a', properties: { name } }).slice(0, -1),
        coords: coords.join(''),
        coordEnds: ends,
        open: ',"statistics":{"v":{',
        heads: ['"mean":'],
        names: ['mean'],
        values: Float64Array.from({ length: rows }, (_, i) => i / 7),
        extra: null,
      };
    };
    for (const name of ['x'.repeat(3000), 'short', 'ü'.repeat(2500)]) {
      const want = Array.from(
        { length: rows },
        (_, i) => `${JSON.stringify({ index: 0, id: 'a', properties: { name }, time: `t${i}`, statistics: { v: { mean: i / 7 } } })}\n`,
      );
      expect(Buffer.from(rowsPieceBytes(piece(name))).toString('utf8')).toBe(want.join(''));
    }
  });

  it('row by row: each row its zone, coordinates and statistics', async () => {
    const out = await expanded([rowsOf(STEPS, extra)]);
    expect(out).toHaveLength(3);
    expect(out[1]).toEqual({ zone: ZONE, coords: STEPS[1], statistics: { t2m: { mean: null, count: Infinity, histogram: [1, 2] } } });
    expect(out[2]?.statistics?.['t2m']?.['mean']).toBe(-0);
  });
});
