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
 */
export function undoFloatingPoint(buf: ArrayBuffer, width: number, rows: number, spp: number, bits: number): void {
  const bps = bits / 8;
  const wc = width * spp;
  const rowBytes = wc * bps;
  const bytes = new Uint8Array(buf);
  const n = Math.min(rows, Math.floor(bytes.length / rowBytes));
  const tmp = new Uint8Array(rowBytes);
  const out32 = bps === 4 ? new Uint32Array(buf, 0, buf.byteLength >> 2) : null;
  for (let r = 0; r < n; r++) {
    const base = r * rowBytes;
    for (let k = base + spp; k < base + rowBytes; k++) bytes[k] = ((bytes[k] as number) + (bytes[k - spp] as number)) & 0xff;
    tmp.set(bytes.subarray(base, base + rowBytes));
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
}
