/**
 * A piece of a zone's packed rows as NDJSON lines (formats/ndjson.ts), from plain data that a worker thread
 * can be sent: a cube's 228 MB of rows are written by the workers while the main thread sends them. Here,
 * below the formats, because the workers run it; it knows nothing of zones or formats. Pure.
 */

/** Rows of one zone, their text parts made once: every line is `prefix coords[i] open (heads[k] value)… }}}`. */
export interface RowsPiece {
  /** The zone's line up to its coordinates: `{"index":…,"id":…,"properties":…`. */
  prefix: string;
  /** The rows' coordinates as members (`,"time":"…"`), one after the other: one string crosses to a worker, not one a row. */
  coords: string;
  /** Where each row's coordinates end in `coords` (UTF-16 units); a row's start is the previous row's end. */
  coordEnds: Int32Array;
  /** `,"statistics":{"<key>":{`. */
  open: string;
  /** Each statistic's `"<name>":`, with the comma before it but the first. */
  heads: string[];
  /** The statistics' names (a value of `extra` by name takes the number's place). */
  names: string[];
  /** Row by row, name by name: the numbers (NaN for null). */
  values: Float64Array;
  /** Per row, the values that are not numbers, by name; null when none. */
  extra: (Record<string, unknown> | null)[] | null;
}

const utf8 = new TextEncoder();
/** The lines' closing of the statistic's object, the statistics and the line. */
const CLOSE = utf8.encode('}}}\n');
/** The thread's buffer the lines are written into, then copied out at their size; grown as pieces need, up to SCRATCH_MAX. */
let scratch = new Uint8Array(1 << 20);
/** A piece that may need more (zones of large properties) gets a buffer of its own, not kept after it. */
const SCRATCH_MAX = 8 << 20;

/**
 * The piece's lines as UTF-8: the bytes JSON.stringify writes for each row's object, written into one buffer.
 * The numbers' texts are JSON.stringify's of arrays of them (numbersText): no string a number (each went
 * through V8's number-string cache, which kept it alive into the old generation: a mark-compact every ~250 ms
 * in a worker), no string a line or a piece (a piece was a 1 MB string, flattened, then copied again).
 */
export function rowsPieceBytes(p: RowsPiece): Uint8Array {
  const { coordEnds, names, values, extra } = p;
  const rows = coordEnds.length;
  const n = names.length;
  const prefix = utf8.encode(p.prefix);
  // Parts that follow each other in every line, as one copy: a line's close and the next one's prefix; the
  // statistics' opening and the first name.
  const between = concat(CLOSE, prefix);
  const heads = n === 0 ? [utf8.encode(p.open)] : p.heads.map((h, k) => utf8.encode(k === 0 ? p.open + h : h));
  const coords = utf8.encode(p.coords);
  // Byte ends of each row's coordinates: their UTF-16 ends where the text is ASCII.
  const ends = coords.length === p.coords.length ? coordEnds : byteEnds(p.coords, coordEnds);
  // The values that are not numbers (rare), as their JSON's bytes, by row and name.
  const others =
    extra === null ? null : extra.map((more) => (more === null ? null : names.map((name) => (name in more ? utf8.encode(JSON.stringify(more[name])) : null))));
  const text = numbersText(values, n, others);
  // A number's text has NUMBER_TEXT_MAX characters at most (a repeated one is copied, not in `text`).
  let bound = rows * (between.length + n * NUMBER_TEXT_MAX) + coords.length;
  for (const h of heads) bound += rows * h.length;
  for (const row of others ?? []) for (const b of row ?? []) bound += b?.length ?? 0;
  if (scratch.length < bound && bound <= SCRATCH_MAX) scratch = new Uint8Array(bound);
  const out = scratch.length >= bound ? scratch : new Uint8Array(bound);
  // Per column: its last number, and where its text was written (a number equal to it is copied from there).
  const last = new Float64Array(n).fill(Number.NaN);
  const lastAt = new Int32Array(n);
  const lastEnd = new Int32Array(n);
  let at = 0;
  let from = 0;
  // The next number's text in `text`: `[a,b,…][c,…]…`.
  let pos = 1;
  for (let i = 0; i < rows; i++) {
    at = put(out, at, i === 0 ? prefix : between);
    const to = ends[i] as number;
    at = putRange(out, at, coords, from, to);
    from = to;
    const more = others?.[i] ?? null;
    // No statistic names: the statistics' opening alone (heads[0]).
    if (n === 0) at = put(out, at, heads[0] as Uint8Array);
    for (let k = 0; k < n; k++) {
      at = put(out, at, heads[k] as Uint8Array);
      const other = more?.[k] ?? null;
      if (other !== null) {
        at = put(out, at, other);
        continue;
      }
      const v = values[i * n + k] as number;
      if (v === last[k]) {
        at = putRange(out, at, out, lastAt[k] as number, lastEnd[k] as number);
        continue;
      }
      last[k] = v;
      lastAt[k] = at;
      // numbersText took the same numbers in the same order: its end is never reached here (a guard, not a case).
      if (pos >= text.length) throw new Error('NDJSON rows: fewer number texts than numbers');
      let c = text[pos] as number;
      while (c !== COMMA && c !== CLOSE_ARRAY) {
        out[at++] = c;
        c = text[++pos] as number;
      }
      // Past the comma, or past `][` to the next array's first number.
      pos += c === COMMA ? 1 : 2;
      lastEnd[k] = at;
    }
  }
  if (rows > 0) at = put(out, at, CLOSE);
  return out.slice(0, at);
}

/** The longest text of a number: `-0.0000012345678901234567` (a sign, "0.", five zeros, 17 digits). */
const NUMBER_TEXT_MAX = 25;
const COMMA = 0x2c;
const CLOSE_ARRAY = 0x5d;
/** Numbers a JSON.stringify writes: its text stays out of the large-object space. */
const NUMBERS_PER_TEXT = 4096;

/**
 * The texts of the numbers rowsPieceBytes writes, in its order, as JSON arrays one after the other (`[a,b][c]`):
 * each number but one equal to its column's previous number (the same text, copied) or taken by a value of
 * `others`. JSON.stringify writes a number as String does, and NaN and the infinities as null.
 */
function numbersText(values: Float64Array, n: number, others: ((Uint8Array | null)[] | null)[] | null): Uint8Array {
  const rows = n === 0 ? 0 : values.length / n;
  const last = new Float64Array(n).fill(Number.NaN);
  const parts: Uint8Array[] = [];
  const fresh: number[] = [];
  for (let i = 0; i < rows; i++) {
    const more = others?.[i] ?? null;
    for (let k = 0; k < n; k++) {
      if ((more?.[k] ?? null) !== null) continue;
      const v = values[i * n + k] as number;
      if (v === last[k]) continue;
      last[k] = v;
      fresh.push(v);
      if (fresh.length === NUMBERS_PER_TEXT) {
        parts.push(utf8.encode(JSON.stringify(fresh)));
        fresh.length = 0;
      }
    }
  }
  if (fresh.length > 0) parts.push(utf8.encode(JSON.stringify(fresh)));
  return parts.length === 1 ? (parts[0] as Uint8Array) : concat(...parts);
}

/** The arrays one after the other. */
function concat(...parts: Uint8Array[]): Uint8Array {
  let size = 0;
  for (const p of parts) size += p.length;
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Copies `src[from, to)` into `out` at `at`; returns the end. Short parts by hand: `set` costs more than it copies. */
function putRange(out: Uint8Array, at: number, src: Uint8Array, from: number, to: number): number {
  const len = to - from;
  if (len > 16) out.set(src.subarray(from, to), at);
  else for (let j = 0; j < len; j++) out[at + j] = src[from + j] as number;
  return at + len;
}

/** Copies `src` into `out` at `at`; returns the end. Short parts by hand: `set` costs more than it copies here. */
function put(out: Uint8Array, at: number, src: Uint8Array): number {
  const len = src.length;
  if (len > 16) out.set(src, at);
  else for (let j = 0; j < len; j++) out[at + j] = src[j] as number;
  return at + len;
}

/** UTF-16 ends of the rows' coordinates as UTF-8 byte ends (a coordinate or dimension name beyond ASCII). */
function byteEnds(text: string, ends: Int32Array): Int32Array {
  const out = new Int32Array(ends.length);
  let from = 0;
  let bytes = 0;
  for (let i = 0; i < ends.length; i++) {
    const to = ends[i] as number;
    bytes += utf8.encode(text.slice(from, to)).length;
    out[i] = bytes;
    from = to;
  }
  return out;
}
