/** Predictors undone in place, against encodings written by hand from the TIFF rules. */
import { describe, expect, it } from 'vitest';
import { undoFloatingPoint, undoHorizontal } from '../../src/raster/predictor.ts';

/** TIFF Technical Note 3 encoding of one row of little-endian floats: planes MSB first, then byte differences. */
function encodeFloatRow(values: Float32Array | Float64Array, spp: number): Uint8Array {
  const bps = values.BYTES_PER_ELEMENT;
  const le = new Uint8Array(values.buffer.slice(0));
  const wc = values.length;
  const planes = new Uint8Array(wc * bps);
  for (let i = 0; i < wc; i++) for (let b = 0; b < bps; b++) planes[b * wc + i] = le[i * bps + (bps - 1 - b)] as number;
  const out = planes.slice();
  for (let k = planes.length - 1; k >= spp; k--) out[k] = ((planes[k] as number) - (planes[k - spp] as number)) & 0xff;
  return out;
}

describe('predictors', () => {
  it('horizontal (2), 16-bit, 2 samples per pixel, 2 rows', () => {
    // rows of [a0 b0 a1 b1 a2 b2]; encoded: first pixel as is, then differences per sample
    const values = [10, 500, 13, 400, 65535, 0, 7, 7, 8, 9, 1, 2];
    const enc = new Uint16Array(12);
    for (let r = 0; r < 2; r++)
      for (let i = 0; i < 6; i++) enc[r * 6 + i] = i < 2 ? values[r * 6 + i]! : (values[r * 6 + i]! - values[r * 6 + i - 2]!) & 0xffff;
    undoHorizontal(enc.buffer, 3, 2, 2, 16);
    expect(Array.from(enc)).toEqual(values);
  });

  it.each([
    ['float32', new Float32Array([1.5, -2.25, 3e-30, 1e30, Number.NaN, 0, -0, 7])],
    ['float64', new Float64Array([1.5, -2.25, 3e-300, 1e300, Number.NaN, 0, -0, 7])],
  ])('floating point (3), %s, 2 rows of 4', (_name, values) => {
    const rowLen = 4;
    const bps = values.BYTES_PER_ELEMENT;
    const enc = new Uint8Array(values.length * bps);
    for (let r = 0; r < 2; r++) enc.set(encodeFloatRow(values.slice(r * rowLen, (r + 1) * rowLen), 1), r * rowLen * bps);
    const out = undoFloatingPoint(enc.buffer, rowLen, 2, 1, bps * 8);
    const got = bps === 4 ? new Float32Array(out) : new Float64Array(out);
    expect(Array.from(got)).toEqual(Array.from(values));
  });

  it.each([
    ['float32', new Float32Array([1.5, -2.25, 3e-30, 1e30, Number.NaN, 0, -0, 7, 255.5, -1e-3, 42, 1 / 3])],
    ['float64', new Float64Array([1.5, -2.25, 3e-300, 1e300, Number.NaN, 0, -0, 7, 255.5, -1e-3, 42, 1 / 3])],
  ])('floating point (3), %s, 2 samples per pixel, 2 rows of 3 pixels', (_name, values) => {
    const rowLen = 6;
    const bps = values.BYTES_PER_ELEMENT;
    const enc = new Uint8Array(values.length * bps);
    for (let r = 0; r < 2; r++) enc.set(encodeFloatRow(values.slice(r * rowLen, (r + 1) * rowLen), 2), r * rowLen * bps);
    const out = undoFloatingPoint(enc.buffer, 3, 2, 2, bps * 8);
    const got = bps === 4 ? new Float32Array(out) : new Float64Array(out);
    expect(Array.from(got)).toEqual(Array.from(values));
  });
});

describe('predictor 2 on 16-bit samples, two per word', () => {
  it('equals the sample-by-sample sum for even and odd widths, spans and wrap-around', () => {
    for (const width of [2, 7, 8, 1024, 1025]) {
      const rows = 5;
      const enc = new Uint16Array(width * rows);
      let s = 12345;
      for (let i = 0; i < enc.length; i++) enc[i] = (s = (Math.imul(s, 1103515245) + 12345) >>> 0) >>> 16;
      const expected = enc.slice();
      for (let r = 0; r < rows; r++)
        for (let c = 1; c < width; c++) expected[r * width + c] = ((expected[r * width + c - 1] as number) + (expected[r * width + c] as number)) & 0xffff;
      const whole = enc.slice();
      undoHorizontal(whole.buffer, width, rows, 1, 16);
      expect(Array.from(whole), `width ${width}`).toEqual(Array.from(expected));
      // Rows 1..3, columns up to an odd and an even end: those samples equal, the rest untouched.
      for (const col1 of [1, Math.max(1, width - 1), width]) {
        const part = enc.slice();
        undoHorizontal(part.buffer, width, rows, 1, 16, { row0: 1, row1: 4, col1 });
        for (let r = 0; r < rows; r++) {
          for (let c = 0; c < width; c++) {
            const inSpan = r >= 1 && r < 4 && c < col1;
            expect(part[r * width + c], `width ${width} col1 ${col1} r ${r} c ${c}`).toBe(inSpan ? expected[r * width + c] : enc[r * width + c]);
          }
        }
      }
    }
  });
});
