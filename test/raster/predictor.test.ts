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
    for (let r = 0; r < 2; r++) for (let i = 0; i < 6; i++) enc[r * 6 + i] = i < 2 ? values[r * 6 + i]! : (values[r * 6 + i]! - values[r * 6 + i - 2]!) & 0xffff;
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
