/**
 * TIFF LZW (compression 5), decoded as libtiff 4.5's tif_lzw.c decodes it (what GDAL reads with), in
 * plain TypeScript: geotiff.js's decoder builds an array per code and was 16× slower than GDAL.
 *
 * The format: codes of 9 to 12 bits, most significant bit first; 256 ClearCode, 257 EndOfInformation,
 * new table entries from 258. The code width grows one code early ("early change", as Aldus wrote it and
 * libtiff reads it): to 10 bits once the next free entry is 511, 11 at 1023, 12 at 2047. Streams that
 * start with a 0 byte and an odd second byte are libtiff's pre-1991 "compat" flavour (see decodeCompat).
 *
 * What libtiff does and this decoder does the same:
 * - it decodes until the caller's buffer is full (one tile or strip) and never looks further;
 * - a stream must start with ClearCode (or be just EOI): libtiff rejects a data code before it;
 * - a code above the next free entry is an error ("Using code not yet in table");
 * - an encoder that does not clear a full table: the width stays 12 and libtiff keeps counting entries
 *   (none can be referenced) for 1024 more codes, then errors unless a ClearCode or EOI comes;
 * - running out of input before the buffer is full, without EOI, is an error ("not terminated with EOI").
 * An EOI before the buffer is full ends the output short; libtiff then errors unless the caller asked
 * for fewer bytes (the last strip of a file is shorter than the others): callers check the length.
 *
 * Decoding without per-code allocations: a table entry is the (offset, length) of its string in the
 * output itself (an entry is the previous code's string plus one byte, and those bytes sit next to each
 * other in the output), so emitting a code is one copy from earlier output.
 */

const CLEAR = 256;
const EOI = 257;
const FIRST = 258;
/** libtiff's table: 4096 codes, plus 1024 entries it tolerates past a full table before it errors. */
const CSIZE = 4095 + 1024;
/** Strings of more than 8 bytes: byte by byte below this length, with copyWithin (a native memmove) from it. */
const LONG = 24;
/** Output limit standing for "no expected size" (kept a small integer for V8). */
const UNLIMITED = 0x7fffffff;

/*
 * One table for every call (decoding is synchronous, one call at a time per thread): offset in the
 * output and length of each entry's string. Entries past 4095 are only counted, never stored.
 */
const tableStart = new Int32Array(4096);
const tableLength = new Int32Array(4096);

/**
 * Decodes one LZW tile or strip. With `expected`, the output is preallocated to that size and decoding
 * stops as soon as it is full (the rest of the stream is not read, as in libtiff); without it, the whole
 * stream up to EOI is decoded into a buffer that grows as needed. Throws on a corrupt or truncated stream.
 */
export function decodeLzw(input: Uint8Array, expected?: number): Uint8Array {
  if (expected !== undefined && !(Number.isInteger(expected) && expected >= 0 && expected < UNLIMITED)) {
    throw new RangeError(`LZW: expected size ${expected}`);
  }
  if (expected === 0) return new Uint8Array(0);
  const limit = expected ?? UNLIMITED;
  // A stream starting 0x00 then an odd byte is a ClearCode written least significant bit first (an
  // MSB-first one starts 0x80): libtiff's own encoder before 1991. The check is libtiff's.
  const compat = input.length >= 2 && input[0] === 0 && ((input[1] as number) & 1) === 1;
  return compat ? decodeCompat(input, limit) : decodeMsb(input, limit);
}

/** The output so far, at its final length (the buffer is only larger when the stream ended short). */
function finish(out: Uint8Array, pos: number): Uint8Array {
  return pos === out.length ? out : out.slice(0, pos);
}

function grow(out: Uint8Array, need: number): Uint8Array {
  const bigger = new Uint8Array(Math.min(UNLIMITED, Math.max(need, out.length * 2)));
  bigger.set(out);
  return bigger;
}

/** A code the table does not hold yet. `free` is EOI right after a ClearCode in decodeMsb, where the next entry is FIRST. */
function notInTable(code: number, free: number): Error {
  return new Error(
    free < EOI ? `LZW: stream does not start with ClearCode (code ${code})` : `LZW: code ${code} not yet in table (next free ${Math.max(free, FIRST)})`,
  );
}

function tableOverflow(): Error {
  return new Error('LZW: table full and no ClearCode');
}

function noEoi(pos: number, limit: number): Error {
  return new Error(limit === UNLIMITED ? `LZW: stream ends without EOI after ${pos} bytes` : `LZW: stream ends without EOI after ${pos} of ${limit} bytes`);
}

/** A code of `width` bits at bit `bitPos` (MSB first) near the end of the input, where 4 bytes are not there. */
function codeAtEnd(input: Uint8Array, bitPos: number, width: number): number {
  let word = 0;
  for (let k = 0, p = bitPos >>> 3; k < 4; k++, p++) word = (word << 8) | (p < input.length ? (input[p] as number) : 0);
  return (word >>> (32 - width - (bitPos & 7))) & ((1 << width) - 1);
}

/**
 * The usual TIFF LZW: MSB-first codes, early change. The hot loop of this file: one function, so that its
 * state stays in locals; the rare steps (the last codes, a bigger buffer, long strings) are helpers.
 * - Codes are read as 32-bit big-endian words at their byte (a code of ≤ 12 bits at bit offset ≤ 7 lies
 *   within 19 bits) while 4 bytes remain; the last few bytes go through lastCode.
 * - `free`: the next free entry, 0 until the first ClearCode. A ClearCode sets it to EOI: the literal after
 *   it then makes entry EOI (a code never looked up) instead of none, so the code after that makes FIRST,
 *   as in libtiff. `switchAt`: the free entry at which the width grows (early change), or past CSIZE once
 *   the width is 12 (the table-overflow check).
 * - Each code makes a new entry: the previous code's string (`prevStart`, `prevLength`: offset and length
 *   in the output) plus this code's first byte, which is written right after it.
 * - Most strings (4 to 8 bytes here) are copied as two 4-byte words, whatever n: the bytes written past
 *   the string are overwritten by the next ones (or cut off by finish()).
 */
function decodeMsb(input: Uint8Array, limit: number): Uint8Array {
  const start = tableStart;
  const length = tableLength;
  const inView = new DataView(input.buffer, input.byteOffset, input.byteLength);
  const wordBits = (input.length - 4) * 8;
  let out: Uint8Array = new Uint8Array(limit === UNLIMITED ? Math.max(1024, input.length * 4) : limit);
  let outView = new DataView(out.buffer);
  let cap = Math.min(limit, out.length);
  let pos = 0;
  let bitPos = 0;
  let width = 9;
  let mask = 511;
  let free = 0;
  let switchAt = 0;
  let prevStart = 0;
  let prevLength = 0;
  while (pos < limit) {
    const code = bitPos <= wordBits ? (inView.getInt32(bitPos >>> 3) >>> (32 - width - (bitPos & 7))) & mask : lastCode(input, bitPos, width, pos, limit);
    bitPos += width;
    if (code >= FIRST) {
      // KwKwK (code === free): the entry being made (previous string + its own first byte) is this code's string.
      let from = prevStart;
      let n = prevLength + 1;
      if (code < free) {
        from = start[code] as number;
        n = length[code] as number;
      } else if (code !== free) {
        throw notInTable(code, free);
      }
      if (free < 4096) {
        start[free] = prevStart;
        length[free] = prevLength + 1;
      }
      if (++free >= switchAt) {
        if (free > CSIZE) throw tableOverflow();
        if (width < 12) mask = (1 << ++width) - 1;
        switchAt = width < 12 ? mask : CSIZE + 1;
      }
      if (pos + n > cap) {
        if (cap < limit) ({ out, outView, cap } = grown(out, pos + n, limit));
        // The output is full within this string: its first bytes, and stop.
        if (pos + n > cap) n = cap - pos;
      }
      prevStart = pos;
      prevLength = n;
      if (n <= 8 && pos + 8 <= out.length && from + 8 <= pos) {
        outView.setInt32(pos, outView.getInt32(from));
        outView.setInt32(pos + 4, outView.getInt32(from + 4));
      } else {
        copyForward(out, pos, from, n);
      }
      pos += n;
      continue;
    }
    if (code < CLEAR) {
      if (free < EOI) throw notInTable(code, free);
      if (free < 4096) {
        start[free] = prevStart;
        length[free] = prevLength + 1;
      }
      if (++free >= switchAt) {
        if (free > CSIZE) throw tableOverflow();
        if (width < 12) mask = (1 << ++width) - 1;
        switchAt = width < 12 ? mask : CSIZE + 1;
      }
      if (pos >= cap) ({ out, outView, cap } = grown(out, pos + 1, limit));
      prevStart = pos;
      prevLength = 1;
      out[pos++] = code;
      continue;
    }
    if (code === EOI) break;
    // ClearCode: an empty table (see `free` above), 9-bit codes.
    free = EOI;
    width = 9;
    mask = 511;
    switchAt = 511;
  }
  return finish(out, pos);
}

/** The code at `bitPos` in the last 4 bytes of the input; an error if the input ends within it (no EOI). */
function lastCode(input: Uint8Array, bitPos: number, width: number, pos: number, limit: number): number {
  if (bitPos + width > input.length * 8) throw noEoi(pos, limit);
  return codeAtEnd(input, bitPos, width);
}

/** A bigger output buffer holding at least `need` bytes (no expected size), its view, and how much of it may be written. */
function grown(out: Uint8Array, need: number, limit: number): { out: Uint8Array; outView: DataView; cap: number } {
  const bigger = grow(out, need);
  return { out: bigger, outView: new DataView(bigger.buffer), cap: Math.min(limit, bigger.length) };
}

/** A string of more than 8 bytes, or near the end of the buffer, or KwKwK (it reads its own first byte back): copied forward. */
function copyForward(out: Uint8Array, pos: number, from: number, n: number): void {
  if (n < LONG || from + n > pos) {
    for (let i = 0; i < n; i++) out[pos + i] = out[from + i] as number;
  } else {
    out.copyWithin(pos, from, from + n);
  }
}

/**
 * libtiff's LZWDecodeCompat: codes least significant bit first, and the width grows when the next free
 * entry reaches 512/1024/2048 (no early change); otherwise the same rules. Rare: a plain loop.
 */
function decodeCompat(input: Uint8Array, limit: number): Uint8Array {
  const inLength = input.length;
  let out: Uint8Array = new Uint8Array(limit === UNLIMITED ? Math.max(1024, inLength * 4) : limit);
  let pos = 0;
  let ip = 0;
  let buffer = 0;
  let bits = 0;
  let width = 9;
  let free = 0;
  let prevStart = 0;
  let prevLength = 0;
  const next = (): number => {
    while (bits < width && ip < inLength) {
      buffer |= (input[ip] as number) << bits;
      ip++;
      bits += 8;
    }
    if (bits < width) throw noEoi(pos, limit);
    const code = buffer & ((1 << width) - 1);
    buffer >>>= width;
    bits -= width;
    return code;
  };
  const emit = (from: number, n: number): void => {
    if (pos + n > out.length) out = grow(out, pos + n);
    prevStart = pos;
    prevLength = n;
    for (let i = 0; i < n; i++) out[pos + i] = out[from + i] as number;
    pos += n;
  };
  while (pos < limit) {
    const code = next();
    if (code === EOI) break;
    if (code === CLEAR) {
      free = FIRST;
      width = 9;
      let first = next();
      while (first === CLEAR) first = next();
      if (first === EOI) break;
      if (first > EOI) throw notInTable(first, free);
      if (pos >= out.length) out = grow(out, pos + 1);
      prevStart = pos;
      prevLength = 1;
      out[pos++] = first;
      continue;
    }
    if (free < FIRST) throw notInTable(code, free);
    if (free >= CSIZE) throw tableOverflow();
    if (code >= FIRST && code > free) throw notInTable(code, free);
    const from = code < CLEAR ? -1 : code < free ? (tableStart[code] as number) : prevStart;
    const n = code < CLEAR ? 1 : code < free ? (tableLength[code] as number) : prevLength + 1;
    if (free < 4096) {
      tableStart[free] = prevStart;
      tableLength[free] = prevLength + 1;
    }
    if (++free >= 1 << width && width < 12) width++;
    const room = Math.min(n, limit - pos);
    if (from < 0) {
      if (pos >= out.length) out = grow(out, pos + 1);
      prevStart = pos;
      prevLength = 1;
      out[pos++] = code;
    } else {
      emit(from, room);
    }
  }
  return finish(out, pos);
}
