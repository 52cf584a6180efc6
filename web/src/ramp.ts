/** A viridis-like colour ramp and the preview grid drawn on a canvas with it. */
import type { Preview } from './api.ts';

/** Viridis at 9 stops (matplotlib's, sampled), linearly interpolated between them. */
const STOPS: readonly [number, number, number][] = [
  [68, 1, 84],
  [72, 40, 120],
  [62, 74, 137],
  [49, 104, 142],
  [38, 130, 142],
  [31, 158, 137],
  [53, 183, 121],
  [109, 205, 89],
  [180, 222, 44],
  [253, 231, 37],
];

/** RGB of t in [0, 1]. */
function viridis(t: number): [number, number, number] {
  const x = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0)) * (STOPS.length - 1);
  const i = Math.min(STOPS.length - 2, Math.floor(x));
  const f = x - i;
  const a = STOPS[i]!;
  const b = STOPS[i + 1]!;
  return [Math.round(a[0] + (b[0] - a[0]) * f), Math.round(a[1] + (b[1] - a[1]) * f), Math.round(a[2] + (b[2] - a[2]) * f)];
}

/** RGBA bytes of the preview grid: min → max along the ramp, null (or non-finite) transparent. */
function previewPixels(preview: Preview): Uint8ClampedArray<ArrayBuffer> {
  const { width, height, values } = preview;
  const finite = values.filter((v): v is number => v !== null && Number.isFinite(v));
  let min = preview.min ?? Infinity;
  let max = preview.max ?? -Infinity;
  if (!Number.isFinite(min) || !Number.isFinite(max)) {
    min = Math.min(...finite);
    max = Math.max(...finite);
  }
  const span = max - min;
  const rgba = new Uint8ClampedArray(new ArrayBuffer(width * height * 4));
  for (let i = 0; i < width * height; i++) {
    const v = values[i];
    if (v === null || v === undefined || !Number.isFinite(v)) continue;
    const [r, g, b] = viridis(span > 0 ? (v - min) / span : 0.5);
    rgba[i * 4] = r;
    rgba[i * 4 + 1] = g;
    rgba[i * 4 + 2] = b;
    rgba[i * 4 + 3] = 255;
  }
  return rgba;
}

/** A canvas of preview.width × preview.height pixels holding the coloured grid. */
export function previewCanvas(preview: Preview): HTMLCanvasElement {
  const canvas = document.createElement('canvas');
  canvas.width = preview.width;
  canvas.height = preview.height;
  const ctx = canvas.getContext('2d');
  if (ctx) ctx.putImageData(new ImageData(previewPixels(preview), preview.width, preview.height), 0, 0);
  return canvas;
}
