/**
 * TIFF predictors undone in place (pure). geotiff.js's JavaScript version copies every row, works byte
 * by byte and ignores the file's byte order; on Float32 COGs it was half the CPU of a query (bench/raster).
 * Both functions leave samples in the machine's (little-endian) byte order: predictor 2 expects its input
 * already swapped to machine order (as libtiff swaps before accumulating), predictor 3's byte planes are
 * most-significant first whatever the file's byte order.
 */

/** Horizontal differencing (predictor 2) for 8/16/32/64-bit samples in machine order, `spp` samples per pixel. */
export function undoHorizontal(buf: ArrayBuffer, width: number, rows: number, spp: number, bits: number): void {
  const stride = width * spp;
  if (bits === 64) {
    const big = new BigUint64Array(buf, 0, buf.byteLength >> 3);
    const n = Math.min(rows, Math.floor(big.length / stride));
    // Typed-array stores wrap modulo 2^64, as libtiff's unsigned sums do.
    for (let r = 0; r < n; r++) {
      const base = r * stride;
      for (let i = base + spp; i < base + stride; i++) big[i] = (big[i] as bigint) + (big[i - spp] as bigint);
    }
    return;
  }
  const arr = bits === 8 ? new Uint8Array(buf) : bits === 16 ? new Uint16Array(buf, 0, buf.byteLength >> 1) : bits === 32 ? new Uint32Array(buf, 0, buf.byteLength >> 2) : null;
  if (arr === null) throw new Error(`predictor 2 with ${bits}-bit samples`);
  const n = Math.min(rows, Math.floor(arr.length / stride));
  for (let r = 0; r < n; r++) {
    const base = r * stride;
    for (let i = base + spp; i < base + stride; i++) arr[i] = (arr[i] as number) + (arr[i - spp] as number);
  }
}

/**
 * Floating-point predictor (predictor 3, TIFF Technical Note 3): per row, undo byte differencing with
 * stride `spp`, then re-interleave the byte planes (most significant first) into little-endian samples.
 * Returns the buffer that holds the samples: `buf` itself, or for one 32-bit sample per pixel (the common
 * Float32 COG) a new buffer written in one pass (each plane's running sum starts from the sum of the
 * planes before it; ~2× faster than summing then interleaving).
 */
export function undoFloatingPoint(buf: ArrayBuffer, width: number, rows: number, spp: number, bits: number): ArrayBuffer {
  const bps = bits / 8;
  const wc = width * spp;
  const rowBytes = wc * bps;
  const bytes = new Uint8Array(buf);
  const n = Math.min(rows, Math.floor(bytes.length / rowBytes));
  if (bps === 4 && spp === 1) {
    const out = new ArrayBuffer(buf.byteLength);
    const out32 = new Uint32Array(out, 0, buf.byteLength >> 2);
    for (let r = 0; r < n; r++) {
      const base = r * rowBytes;
      let s0 = 0;
      for (let k = base; k < base + wc; k++) s0 += bytes[k] as number;
      let s1 = s0;
      for (let k = base + wc; k < base + 2 * wc; k++) s1 += bytes[k] as number;
      let s2 = s1;
      for (let k = base + 2 * wc; k < base + 3 * wc; k++) s2 += bytes[k] as number;
      let a0 = 0;
      let a1 = s0 & 0xff;
      let a2 = s1 & 0xff;
      let a3 = s2 & 0xff;
      const o = base >> 2;
      for (let i = 0; i < wc; i++) {
        a0 = (a0 + (bytes[base + i] as number)) & 0xff;
        a1 = (a1 + (bytes[base + wc + i] as number)) & 0xff;
        a2 = (a2 + (bytes[base + 2 * wc + i] as number)) & 0xff;
        a3 = (a3 + (bytes[base + 3 * wc + i] as number)) & 0xff;
        out32[o + i] = ((a0 << 24) | (a1 << 16) | (a2 << 8) | a3) >>> 0;
      }
    }
    return out;
  }
  const tmp = new Uint8Array(rowBytes);
  const out32 = bps === 4 ? new Uint32Array(buf, 0, buf.byteLength >> 2) : null;
  for (let r = 0; r < n; r++) {
    const base = r * rowBytes;
    for (let k = 0; k < rowBytes; k++) tmp[k] = k < spp ? (bytes[base + k] as number) : ((bytes[base + k] as number) + (tmp[k - spp] as number)) & 0xff;
    if (out32 !== null) {
      const o = base >> 2;
      for (let i = 0; i < wc; i++) {
        out32[o + i] = (((tmp[i] as number) << 24) | ((tmp[wc + i] as number) << 16) | ((tmp[2 * wc + i] as number) << 8) | (tmp[3 * wc + i] as number)) >>> 0;
      }
    } else {
      for (let i = 0; i < wc; i++) {
        for (let b = 0; b < bps; b++) bytes[base + i * bps + b] = tmp[(bps - 1 - b) * wc + i] as number;
      }
    }
  }
  return buf;
}
