/**
 * Two tags of the first IFD of a classic little-endian TIFF, read by hand (tests check byte counts against
 * them without the service's reader): TileOffsets/TileByteCounts (324/325) or StripOffsets/StripByteCounts
 * (273/279).
 */
import { expect } from 'vitest';

export function blockIndex(bytes: Uint8Array, offsetsTag: 324 | 273, countsTag: 325 | 279): { offsets: number[]; counts: number[] } {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  expect(dv.getUint16(0, true)).toBe(0x4949); // "II"
  expect(dv.getUint16(2, true)).toBe(42); // classic TIFF
  const ifd = dv.getUint32(4, true);
  const n = dv.getUint16(ifd, true);
  const out: Record<number, number[]> = {};
  for (let i = 0; i < n; i++) {
    const at = ifd + 2 + 12 * i;
    const tag = dv.getUint16(at, true);
    if (tag !== offsetsTag && tag !== countsTag) continue;
    const type = dv.getUint16(at + 2, true);
    const count = dv.getUint32(at + 4, true);
    const size = type === 3 ? 2 : 4; // SHORT or LONG
    const base = count * size <= 4 ? at + 8 : dv.getUint32(at + 8, true);
    out[tag] = Array.from({ length: count }, (_, k) => (size === 2 ? dv.getUint16(base + 2 * k, true) : dv.getUint32(base + 4 * k, true)));
  }
  return { offsets: out[offsetsTag] ?? [], counts: out[countsTag] ?? [] };
}
