/**
 * Coverage benchmark (issue 5): exact fractional coverage of a 1,000,000-cell window for a 1,000-vertex polygon
 * (target ≤ 50 ms), against 10× supersampling of the same polygon (100 sample points per cell, even-odd test) in
 * the same run (target: ours ≥ 10× faster at better accuracy). A script, not a test: nothing here asserts.
 *
 *     npx tsx bench/raster/coverage-bench.ts          # ~30 s; BENCH_RUNS (default 15) timed runs per method
 *
 * Supersampling is measured in two forms, both sampling the cell at the 10 × 10 points ((i + ½)/10, (j + ½)/10):
 * - "supersample 10× (spans)": the fastest form we could write — an edge-table scanline per sample row, even-odd
 *   spans, and the samples of each span counted per cell by arithmetic (no mask);
 * - "supersample 10× (mask)": what titiler does through rasterio — rasterize at 10× resolution into a
 *   (10·W) × (10·H) byte mask (100 MB here), then sum 10 × 10 blocks.
 * Accuracy: Σ weights against the polygon's shoelace area, and per-cell errors against an independent
 * Sutherland–Hodgman clip of the polygon to the cell, on every boundary cell (cells crossed by an edge).
 */
import { fractionalCoverage } from '../../src/coverage/fractional.ts';
import { allTouchedCoverage } from '../../src/coverage/all-touched.ts';
import { centerCoverage } from '../../src/coverage/center.ts';
import type { Coverage, PixelGeometry } from '../../src/coverage/coverage.ts';
import type { Position } from '../../src/geometry/types.ts';
import type { PixelWindow } from '../../src/geometry/grid.ts';
import { mulberry32 } from '../lib/metrics.ts';

const RUNS = Number(process.env['BENCH_RUNS'] ?? 15);
const SIDE = 1000;
const WINDOW: PixelWindow = { col0: 20000, row0: 30000, width: SIDE, height: SIDE };
const K = 10; // samples per cell side

// --------------------------------------------------------------------------------------------- polygons

/** 1,000-vertex star: radii smoothly varying (sum of 5 random harmonics) plus per-vertex jitter. */
function starPolygon(n: number, seed: number): Position[] {
  const rnd = mulberry32(seed);
  const harmonics = Array.from({ length: 5 }, (_, k) => ({ f: k + 2, a: 20 + rnd() * 40, p: rnd() * 2 * Math.PI }));
  const cx = WINDOW.col0 + SIDE / 2 + 0.37;
  const cy = WINDOW.row0 + SIDE / 2 + 0.61;
  const ring: Position[] = [];
  for (let i = 0; i < n; i++) {
    const a = (2 * Math.PI * i) / n;
    let r = 330 + (rnd() - 0.5) * 8;
    for (const h of harmonics) r += h.a * Math.sin(h.f * a + h.p);
    ring.push([cx + r * Math.cos(a), cy + r * 0.95 * Math.sin(a)]);
  }
  ring.push(ring[0] as Position);
  return ring;
}

function circlePolygon(n: number): Position[] {
  const cx = WINDOW.col0 + SIDE / 2 + 0.123;
  const cy = WINDOW.row0 + SIDE / 2 - 0.456;
  const ring: Position[] = [];
  for (let i = 0; i < n; i++) {
    const a = (2 * Math.PI * i) / n;
    ring.push([cx + 470 * Math.cos(a), cy + 470 * Math.sin(a)]);
  }
  ring.push(ring[0] as Position);
  return ring;
}

// --------------------------------------------------------------------------------------------- supersampling

interface EdgeTable {
  n: number;
  x0: Float64Array;
  y0: Float64Array;
  slope: Float64Array;
  yMin: Float64Array;
  yMax: Float64Array;
  order: Int32Array;
}

function edgeTable(geometry: PixelGeometry): EdgeTable {
  const edges: [number, number, number, number][] = [];
  for (const poly of geometry) {
    for (const ring of poly) {
      for (let i = 0; i + 1 < ring.length; i++) {
        const p = ring[i] as Position;
        const q = ring[i + 1] as Position;
        if (p[1] !== q[1]) edges.push(p[1] < q[1] ? [p[0], p[1], q[0], q[1]] : [q[0], q[1], p[0], p[1]]);
      }
    }
  }
  const n = edges.length;
  const t: EdgeTable = {
    n,
    x0: new Float64Array(n),
    y0: new Float64Array(n),
    slope: new Float64Array(n),
    yMin: new Float64Array(n),
    yMax: new Float64Array(n),
    order: new Int32Array(n),
  };
  edges.forEach(([ax, ay, bx, by], i) => {
    t.x0[i] = ax;
    t.y0[i] = ay;
    t.slope[i] = (bx - ax) / (by - ay);
    t.yMin[i] = ay;
    t.yMax[i] = by;
  });
  const idx = [...Array(n).keys()].sort((a, b) => (t.yMin[a] as number) - (t.yMin[b] as number));
  t.order.set(idx);
  return t;
}

/**
 * Even-odd spans of every sample row y = row + (j + ½)/K of the window, passed to `span(sampleRow, xa, xb)`
 * (window-relative sample row, absolute x). Edge y-ranges are half-open [yMin, yMax).
 */
function sampleRowSpans(t: EdgeTable, w: PixelWindow, span: (sr: number, xa: number, xb: number) => void): void {
  const active: number[] = [];
  const xs: number[] = [];
  let cursor = 0;
  for (let sr = 0; sr < w.height * K; sr++) {
    const y = w.row0 + (sr + 0.5) / K;
    while (cursor < t.n && (t.yMin[t.order[cursor] as number] as number) <= y) active.push(t.order[cursor++] as number);
    let keep = 0;
    for (const e of active) if ((t.yMax[e] as number) > y) active[keep++] = e;
    active.length = keep;
    xs.length = 0;
    for (const e of active) if ((t.yMin[e] as number) <= y) xs.push((t.x0[e] as number) + (y - (t.y0[e] as number)) * (t.slope[e] as number));
    xs.sort((a, b) => a - b);
    for (let i = 0; i + 1 < xs.length; i += 2) span(sr, xs[i] as number, xs[i + 1] as number);
  }
}

/** First sample index s (sample x = (s + ½)/K, window-relative) at or right of x. */
function firstSample(x: number): number {
  return Math.ceil(x * K - 0.5);
}

function supersampleSpans(geometry: PixelGeometry, w: PixelWindow): Coverage {
  const counts = new Float64Array(w.width * w.height);
  const t = edgeTable(geometry);
  const maxS = w.width * K;
  sampleRowSpans(t, w, (sr, xa, xb) => {
    const s0 = Math.max(0, firstSample(xa - w.col0));
    const s1 = Math.min(maxS, firstSample(xb - w.col0)); // samples s0 … s1 − 1 are inside
    if (s0 >= s1) return;
    const base = Math.floor(sr / K) * w.width;
    const c0 = Math.floor(s0 / K);
    const c1 = Math.floor((s1 - 1) / K);
    if (c0 === c1) {
      counts[base + c0]! += s1 - s0;
      return;
    }
    counts[base + c0]! += (c0 + 1) * K - s0;
    for (let c = c0 + 1; c < c1; c++) counts[base + c]! += K;
    counts[base + c1]! += s1 - c1 * K;
  });
  for (let i = 0; i < counts.length; i++) counts[i] = (counts[i] as number) / (K * K);
  return { window: w, weights: counts };
}

function supersampleMask(geometry: PixelGeometry, w: PixelWindow): Coverage {
  const mw = w.width * K;
  const mask = new Uint8Array(mw * w.height * K);
  const t = edgeTable(geometry);
  sampleRowSpans(t, w, (sr, xa, xb) => {
    const s0 = Math.max(0, firstSample(xa - w.col0));
    const s1 = Math.min(mw, firstSample(xb - w.col0));
    if (s0 < s1) mask.fill(1, sr * mw + s0, sr * mw + s1);
  });
  const weights = new Float64Array(w.width * w.height);
  for (let sr = 0; sr < w.height * K; sr++) {
    const base = Math.floor(sr / K) * w.width;
    const row = sr * mw;
    for (let s = 0; s < mw; s++) if (mask[row + s] === 1) weights[base + Math.floor(s / K)]! += 1;
  }
  for (let i = 0; i < weights.length; i++) weights[i] = (weights[i] as number) / (K * K);
  return { window: w, weights };
}

// --------------------------------------------------------------------------------------------- reference

function shoelace(ring: readonly Position[]): number {
  let s = 0;
  for (let i = 0; i + 1 < ring.length; i++) {
    const p = ring[i] as Position;
    const q = ring[i + 1] as Position;
    s += p[0] * q[1] - q[0] * p[1];
  }
  return s / 2;
}

function clip(pts: Position[], inside: (p: Position) => boolean, cut: (a: Position, b: Position) => Position): Position[] {
  const out: Position[] = [];
  for (let i = 0; i < pts.length; i++) {
    const a = pts[(i + pts.length - 1) % pts.length] as Position;
    const b = pts[i] as Position;
    if (inside(b)) {
      if (!inside(a)) out.push(cut(a, b));
      out.push(b);
    } else if (inside(a)) out.push(cut(a, b));
  }
  return out;
}

/**
 * Area of a ring (open, window-relative) inside the unit cell (c, r): Sutherland–Hodgman in cell-relative
 * coordinates (with window-relative ones, the shoelace of the clipped ring loses ~1e-10 to cancellation).
 */
function cellArea(ring: Position[], c: number, r: number): number {
  const rel = ring.map(([x, y]): Position => [x - c, y - r]);
  const atX =
    (x: number) =>
    (a: Position, b: Position): Position => [x, a[1] + ((x - a[0]) * (b[1] - a[1])) / (b[0] - a[0])];
  const atY =
    (y: number) =>
    (a: Position, b: Position): Position => [a[0] + ((y - a[1]) * (b[0] - a[0])) / (b[1] - a[1]), y];
  let p = clip(rel, (q) => q[0] >= 0, atX(0));
  p = clip(p, (q) => q[0] <= 1, atX(1));
  p = clip(p, (q) => q[1] >= 0, atY(0));
  p = clip(p, (q) => q[1] <= 1, atY(1));
  if (p.length < 3) return 0;
  p.push(p[0] as Position);
  return Math.abs(shoelace(p));
}

/** Boundary cells (those an edge passes through), window-relative, from a dense walk of every edge. */
function boundaryCells(ring: Position[], w: PixelWindow): number[] {
  const set = new Set<number>();
  for (let i = 0; i + 1 < ring.length; i++) {
    const p = ring[i] as Position;
    const q = ring[i + 1] as Position;
    const steps = Math.ceil(Math.hypot(q[0] - p[0], q[1] - p[1]) * 8) + 1;
    for (let s = 0; s <= steps; s++) {
      const x = p[0] + ((q[0] - p[0]) * s) / steps - w.col0;
      const y = p[1] + ((q[1] - p[1]) * s) / steps - w.row0;
      for (const dx of [-1, 0, 1]) {
        for (const dy of [-1, 0, 1]) {
          const c = Math.floor(x) + dx;
          const r = Math.floor(y) + dy;
          if (c >= 0 && r >= 0 && c < w.width && r < w.height) set.add(r * w.width + c);
        }
      }
    }
  }
  return [...set];
}

// --------------------------------------------------------------------------------------------- run

interface Row {
  shape: string;
  method: string;
  medianMs: number;
  minMs: number;
  sumError: number;
  maxCellError: number;
  rmsCellError: number;
  bytes: number;
}

function time(fn: () => Coverage, runs: number): { median: number; min: number; result: Coverage } {
  let result = fn();
  fn(); // warm-up
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    result = fn();
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  return { median: ms[Math.floor(ms.length / 2)] as number, min: ms[0] as number, result };
}

function main(): void {
  const shapes: [string, Position[]][] = [
    ['star, 1,000 vertices', starPolygon(1000, 20240505)],
    ['circle, 1,000 vertices', circlePolygon(1000)],
  ];
  const rows: Row[] = [];
  for (const [shape, ring] of shapes) {
    const geometry: PixelGeometry = [[ring]];
    const area = Math.abs(shoelace(ring));
    const local: Position[] = ring.slice(0, -1).map(([x, y]): Position => [x - WINDOW.col0, y - WINDOW.row0]);
    const boundary = boundaryCells(ring, WINDOW);
    const exact = boundary.map((i) => cellArea(local, i % WINDOW.width, Math.floor(i / WINDOW.width)));
    const methods: [string, () => Coverage, number][] = [
      ['fractional (ours, exact)', () => fractionalCoverage(geometry, WINDOW), SIDE * SIDE * 8 + boundary.length * 20],
      ['supersample 10× (spans)', () => supersampleSpans(geometry, WINDOW), SIDE * SIDE * 8],
      ['supersample 10× (mask)', () => supersampleMask(geometry, WINDOW), SIDE * SIDE * (8 + K * K)],
      ['all_touched (ours)', () => allTouchedCoverage(geometry, WINDOW), SIDE * SIDE * 8],
      ['center (ours)', () => centerCoverage(geometry, WINDOW), SIDE * SIDE * 8],
    ];
    for (const [method, fn, bytes] of methods) {
      const runs = method.includes('mask') ? Math.max(3, Math.ceil(RUNS / 3)) : RUNS;
      const { median, min, result } = time(fn, runs);
      let sum = 0;
      for (const x of result.weights) sum += x;
      let maxErr = 0;
      let sq = 0;
      boundary.forEach((i, k) => {
        const d = Math.abs((result.weights[i] as number) - (exact[k] as number));
        if (d > maxErr) maxErr = d;
        sq += d * d;
      });
      rows.push({
        shape,
        method,
        medianMs: median,
        minMs: min,
        sumError: (sum - area) / area,
        maxCellError: maxErr,
        rmsCellError: Math.sqrt(sq / boundary.length),
        bytes,
      });
      process.stderr.write(`${shape} · ${method}: ${median.toFixed(2)} ms\n`);
    }
    process.stderr.write(`${shape}: ${boundary.length} boundary cells checked against Sutherland–Hodgman, area ${area.toFixed(3)} px²\n`);
  }

  const fmtE = (x: number) => (x === 0 ? '0' : x.toExponential(1));
  const lines = [
    `Window ${SIDE} × ${SIDE} = ${(SIDE * SIDE).toLocaleString('en')} cells, Node ${process.version}, ${RUNS} timed runs (mask: fewer), median / min.`,
    '',
    '| polygon | method | median ms | min ms | Σ weights vs area (relative) | max cell error | RMS cell error (boundary cells) | output + scratch |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.shape} | ${r.method} | ${r.medianMs.toFixed(1)} | ${r.minMs.toFixed(1)} | ${r.method.startsWith('all') || r.method.startsWith('center') ? '—' : fmtE(r.sumError)} | ${r.method.startsWith('all') || r.method.startsWith('center') ? '—' : fmtE(r.maxCellError)} | ${r.method.startsWith('all') || r.method.startsWith('center') ? '—' : fmtE(r.rmsCellError)} | ${(r.bytes / 2 ** 20).toFixed(0)} MiB |`,
    ),
    '',
  ];
  for (const [shape] of shapes) {
    const ours = rows.find((r) => r.shape === shape && r.method.startsWith('fractional')) as Row;
    for (const ss of rows.filter((r) => r.shape === shape && r.method.startsWith('supersample'))) {
      lines.push(
        `- ${shape}: ${ss.method} takes ${(ss.medianMs / ours.medianMs).toFixed(1)}× (medians; ${(ss.minMs / ours.minMs).toFixed(1)}× minima) ` +
          `the time of the exact method, with a max cell error ${fmtE(ss.maxCellError)} vs ${fmtE(ours.maxCellError)}.`,
      );
    }
  }
  process.stdout.write(lines.join('\n') + '\n');
}

main();
