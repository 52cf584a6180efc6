/**
 * Polygon clip/union engine benchmark: geos-wasm 3.1.1 (GEOS 3.13), clipper2-ts 2.0.1 (integer
 * coordinates, lon/lat × 1e9), polyclip-ts 0.16.8 (the current engine) and martinez-polygon-clipping
 * 0.8.1, in one process, against shapely's answers in expected.json (written by expected.py).
 *
 *   cd bench/clip && npm ci && npx tsx bench.mts          # see README.md
 *
 * Workloads (generated here with the same PRNG and arithmetic as expected.py; checksums must match):
 * - clip: 2,000 jittered 0.0075° quads, each crossing the edge of a 0.6° × 0.4° rectangle AOI, and 2,000
 *   crossing a 256-vertex circle AOI; µs per intersection, from the feature's input form (WKB bytes for
 *   GEOS, [x, y] arrays for the JS engines) to the result's coordinates as numbers in JS.
 * - inside: 100,000 quads over the AOI's box grown by 10 %, tested against a prepared AOI.
 * - union: 1,000 and 20,000 overlapping 0.0075° squares (pitch 0.006°) in one call.
 * - robustness: the cases of expected.json, each engine's area against shapely's (relative 1e-9).
 * Each timing: every variant of a workload warmed up once, then BENCH_RUNS (9) rounds in which each runs
 * once (interleaved, so load from other processes falls on all alike); median wall-clock time reported,
 * with min–max and the median of this process's CPU time.
 *
 * Output: stdout, bench/out/clip.md and bench/out/clip.json. Environment: BENCH_RUNS (9), BENCH_ONLY
 * (comma-separated: clip,inside,union,robust), BENCH_ENGINES (name prefixes, for a quick look).
 *
 * The engines are loaded by name at run time (`load`), with the few types used declared below: they live
 * in bench/clip/node_modules, which the root typecheck (tsconfig includes bench/) does not install.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';

// ---------------------------------------------------------------------------------------------------
// Types

type Ring = number[][]; // [[x, y], ...], closed
type Poly = Ring[]; // shell, then holes
type MPoly = Poly[];

interface GeosModule {
  _malloc(n: number): number;
  _free(p: number): void;
  HEAPU8: Uint8Array;
  HEAPU32: Uint32Array;
}
interface Geos {
  Module: GeosModule;
  GEOSWKBReader_create(): number;
  GEOSWKBReader_destroy(r: number): void;
  GEOSWKBReader_read(r: number, p: number, n: number): number;
  GEOSGeomToWKB_buf(g: number, sizePtr: number): number;
  GEOSFree(p: number): void;
  GEOSGeom_destroy(g: number): void;
  GEOSIntersection(a: number, b: number): number;
  GEOSClipByRect(g: number, xmin: number, ymin: number, xmax: number, ymax: number): number;
  GEOSUnaryUnion(g: number): number;
  GEOSMakeValid(g: number): number;
  GEOSPrepare(g: number): number;
  GEOSPreparedGeom_destroy(p: number): void;
  GEOSPreparedContainsProperly(p: number, g: number): number;
  GEOSPreparedIntersects(p: number, g: number): number;
}
interface Pt64 {
  x: number;
  y: number;
}
interface Rect64 {
  left: number;
  top: number;
  right: number;
  bottom: number;
}
interface ClipperStatic {
  intersect(s: Pt64[][], c: Pt64[][], fill: number): Pt64[][];
  union(s: Pt64[][], fill: number): Pt64[][];
  rectClip(r: Rect64, paths: Pt64[][]): Pt64[][];
  pointInPolygon(p: Pt64, path: Pt64[]): number;
}
interface ClipperModule {
  Clipper: ClipperStatic;
  FillRule: { NonZero: number };
  PointInPolygonResult: { IsInside: number };
}
interface PolyclipModule {
  intersection(g: MPoly, ...more: MPoly[]): MPoly;
  union(g: MPoly, ...more: MPoly[]): MPoly;
}
type MartinezGeom = Poly | MPoly;
interface MartinezModule {
  intersection(a: MartinezGeom, b: MartinezGeom): MartinezGeom | null;
  union(a: MartinezGeom, b: MartinezGeom): MartinezGeom | null;
}

const load = (name: string): Promise<unknown> => import(name);

// ---------------------------------------------------------------------------------------------------
// Setup

const HERE = fileURLToPath(new URL('.', import.meta.url));
const OUT = fileURLToPath(new URL('../out/', import.meta.url));
const RUNS = Number(process.env['BENCH_RUNS'] ?? 9);
const ONLY = new Set((process.env['BENCH_ONLY'] ?? 'clip,inside,union,robust').split(','));
/** BENCH_ENGINES=geos,clipper: only engines whose name starts with one of these (a quick look; not for the table). */
const PICK = process.env['BENCH_ENGINES']?.split(',');
const picked = (name: string): boolean => !PICK || PICK.some((p) => name.startsWith(p));

interface Case {
  name: string;
  what: string;
  feature: Poly | MPoly;
  aoi: Poly | MPoly;
  repair?: boolean;
  union?: boolean;
  tolerance?: number;
  expected: {
    intersection_area: number;
    union_area?: number;
    union_polygons?: number;
    union_rings?: number;
    make_valid_area?: number;
    feature_valid: boolean;
    shapely_raw_error?: string;
  };
}
interface Expected {
  shapely: string;
  geos: string;
  aois: Record<'rect' | 'circle', Poly>;
  seeds: Record<string, number>;
  n_clip: number;
  n_inside: number;
  union_grids: Record<string, [number, number]>;
  checksums: Record<string, number>;
  clip: Record<string, { areas: number[]; total: number }>;
  inside: Record<string, { contains_properly: number; intersects: number }>;
  union: Record<string, { area: number; polygons: number; holes: number; vertices: number }>;
  cases: Case[];
}
const EXP = JSON.parse(readFileSync(`${HERE}expected.json`, 'utf8')) as Expected;

// ---------------------------------------------------------------------------------------------------
// Workload generation: line for line as expected.py (only + - * / sqrt, so the doubles are identical).

function rng(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 48271) % 2147483647;
    return s / 2147483647;
  };
}
const HALF = 0.00375;
const JITTER = 0.0019;
function quad(r: () => number, cx: number, cy: number): Poly {
  const ring: Ring = [];
  for (const [dx, dy] of [
    [-HALF, -HALF],
    [HALF, -HALF],
    [HALF, HALF],
    [-HALF, HALF],
  ] as const) {
    const x = cx + dx + (r() - 0.5) * JITTER;
    const y = cy + dy + (r() - 0.5) * JITTER;
    ring.push([x, y]);
  }
  ring.push(ring[0] as number[]);
  return [ring];
}
function clipSet(aoi: Ring, seed: number, n: number): Poly[] {
  const r = rng(seed);
  const out: Poly[] = [];
  const edges = aoi.length - 1;
  for (let i = 0; i < n; i++) {
    const k = Math.floor(r() * edges);
    const t = r();
    const s = (r() - 0.5) * 0.004;
    const [ax, ay] = aoi[k] as [number, number];
    const [bx, by] = aoi[k + 1] as [number, number];
    const dx = bx - ax;
    const dy = by - ay;
    const length = Math.sqrt(dx * dx + dy * dy);
    const px = ax + t * dx;
    const py = ay + t * dy;
    out.push(quad(r, px + (s * dy) / length, py - (s * dx) / length));
  }
  return out;
}
function insideSet(aoi: Ring, seed: number, n: number): Poly[] {
  const r = rng(seed);
  const xs = aoi.map((p) => p[0] as number);
  const ys = aoi.map((p) => p[1] as number);
  const w = Math.max(...xs) - Math.min(...xs);
  const h = Math.max(...ys) - Math.min(...ys);
  const x0 = Math.min(...xs) - 0.1 * w;
  const y0 = Math.min(...ys) - 0.1 * h;
  const out: Poly[] = [];
  for (let i = 0; i < n; i++) {
    const cx = x0 + r() * (1.2 * w);
    const cy = y0 + r() * (1.2 * h);
    out.push(quad(r, cx, cy));
  }
  return out;
}
const SIDE = 0.0075;
const PITCH = 0.006;
function unionSet(cols: number, rows: number, seed: number): Poly[] {
  const r = rng(seed);
  const out: Poly[] = [];
  for (let row = 0; row < rows; row++) {
    for (let c = 0; c < cols; c++) {
      const x = 10.0 + c * PITCH + (r() - 0.5) * 0.001;
      const y = 50.0 + row * PITCH + (r() - 0.5) * 0.001;
      out.push([
        [
          [x, y],
          [x + SIDE, y],
          [x + SIDE, y + SIDE],
          [x, y + SIDE],
          [x, y],
        ],
      ]);
    }
  }
  return out;
}
function checksum(polys: Poly[]): number {
  let s = 0;
  for (const poly of polys)
    for (const ring of poly)
      for (const [x, y] of ring) {
        s += x as number;
        s += y as number;
      }
  return s;
}
function checked(name: string, polys: Poly[]): Poly[] {
  const want = EXP.checksums[name];
  const got = checksum(polys);
  if (got !== want) throw new Error(`workload ${name}: checksum ${got} ≠ expected.json's ${want}: rerun expected.py`);
  return polys;
}

// ---------------------------------------------------------------------------------------------------
// Geometry helpers: areas (planar, GEOS's shifted shoelace), WKB in and out.

function ringSigned(r: Ring): number {
  const n = r.length;
  if (n < 4) return 0;
  const x0 = (r[0] as number[])[0] as number;
  let sum = 0;
  for (let i = 1; i < n - 1; i++) {
    const x = ((r[i] as number[])[0] as number) - x0;
    sum += x * (((r[i + 1] as number[])[1] as number) - ((r[i - 1] as number[])[1] as number));
  }
  return sum / 2; // > 0 for counter-clockwise (y up)
}
/** Area of GeoJSON-nested polygons: shells minus holes. */
function mpArea(mp: MPoly): number {
  let a = 0;
  for (const p of mp)
    p.forEach((r, i) => {
      a += i === 0 ? Math.abs(ringSigned(r)) : -Math.abs(ringSigned(r));
    });
  return a;
}
/** Area of flat rings whose orientation tells holes (Clipper's output): |Σ signed|. */
function flatArea(mp: MPoly): number {
  let a = 0;
  for (const p of mp) for (const r of p) a += ringSigned(r);
  return Math.abs(a);
}
function shapeOf(mp: MPoly, flat: boolean): { polygons: number; rings: number } {
  if (!flat) return { polygons: mp.length, rings: mp.reduce((s, p) => s + p.length, 0) };
  const signs = mp.flatMap((p) => p.map(ringSigned));
  const big = signs.reduce((m, a) => (Math.abs(a) > Math.abs(m) ? a : m), 0);
  return { polygons: signs.filter((a) => Math.sign(a) === Math.sign(big)).length, rings: signs.length };
}
const asMPoly = (g: Poly | MPoly): MPoly => (typeof (g as Poly)[0]?.[0]?.[0] === 'number' ? [g as Poly] : (g as MPoly));
const vertexCount = (mp: MPoly): number => mp.reduce((s, p) => s + p.reduce((t, r) => t + r.length, 0), 0);

function wkbSize(mp: MPoly): number {
  let n = 9;
  for (const p of mp) {
    n += 9;
    for (const r of p) n += 4 + 16 * r.length;
  }
  return n;
}
/** MULTIPOLYGON (or POLYGON for one polygon) as little-endian WKB. */
function toWkb(mp: MPoly): Uint8Array {
  const single = mp.length === 1;
  const bytes = new Uint8Array(single ? wkbSize(mp) - 9 : wkbSize(mp));
  const dv = new DataView(bytes.buffer);
  let o = 0;
  const header = (type: number, count: number): void => {
    dv.setUint8(o, 1);
    dv.setUint32(o + 1, type, true);
    dv.setUint32(o + 5, count, true);
    o += 9;
  };
  const poly = (p: Poly): void => {
    header(3, p.length);
    for (const r of p) {
      dv.setUint32(o, r.length, true);
      o += 4;
      for (const pt of r) {
        dv.setFloat64(o, pt[0] as number, true);
        dv.setFloat64(o + 8, pt[1] as number, true);
        o += 16;
      }
    }
  };
  if (single) poly(mp[0] as Poly);
  else {
    header(6, mp.length);
    for (const p of mp) poly(p);
  }
  return bytes;
}
/** Polygons of a WKB geometry (any type; points and lines are skipped) as [x, y] arrays. */
function fromWkb(dv: DataView): MPoly {
  const out: MPoly = [];
  let o = 0;
  const read = (): void => {
    const le = dv.getUint8(o) === 1;
    const type = dv.getUint32(o + 1, le) % 1000;
    o += 5;
    const u32 = (): number => {
      const v = dv.getUint32(o, le);
      o += 4;
      return v;
    };
    const ring = (): Ring => {
      const n = u32();
      const r: Ring = new Array(n);
      for (let i = 0; i < n; i++) {
        r[i] = [dv.getFloat64(o, le), dv.getFloat64(o + 8, le)];
        o += 16;
      }
      return r;
    };
    switch (type) {
      case 1:
        o += 16;
        break;
      case 2:
        ring();
        break;
      case 3: {
        const n = u32();
        const p: Poly = [];
        for (let i = 0; i < n; i++) p.push(ring());
        if (p.length > 0) out.push(p);
        break;
      }
      case 4:
      case 5:
      case 6:
      case 7: {
        const n = u32();
        for (let i = 0; i < n; i++) read();
        break;
      }
      default:
        throw new Error(`WKB type ${type}`);
    }
  };
  read();
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Engines

interface Engine {
  name: string;
  /** Output rings are flat with orientation (Clipper) rather than GeoJSON-nested. */
  flat: boolean;
  /** Intersect features with a fixed AOI: returns a function of (coords, wkb). */
  clipper(aoi: MPoly): { run(f: MPoly, wkb: Uint8Array): MPoly; dispose(): void };
  union(parts: MPoly[]): MPoly;
  /** The engine's own repair of an invalid (self-crossing) feature. */
  repair(f: MPoly): MPoly;
  /** repair(f), then ∩ aoi. */
  repairThenClip(f: MPoly, aoi: MPoly): MPoly;
  note: string;
}

// geos-wasm: errors are reported to a handler that records them (GEOS then returns NULL and its C++
// stack unwinds normally); the default handler throws a JS exception through the wasm frames instead.
let geosError: string | null = null;
const geosT0 = performance.now();
const geosInit = (await load('geos-wasm')) as { default: (cfg: object) => Promise<Geos> };
const geos = await geosInit.default({
  errorHandler: (m: string) => {
    geosError = m;
  },
});
const geosInitMs = performance.now() - geosT0;
const GM = geos.Module;
const wkbReader = geos.GEOSWKBReader_create();
const sizePtr = GM._malloc(4);
let scratch = GM._malloc(1024);
let scratchLen = 1024;
/** WKB bytes → GEOS geometry: copied into one reused scratch buffer on the wasm heap. */
function gRead(bytes: Uint8Array): number {
  if (bytes.length > scratchLen) {
    GM._free(scratch);
    scratchLen = bytes.length * 2;
    scratch = GM._malloc(scratchLen);
  }
  GM.HEAPU8.set(bytes, scratch);
  const g = geos.GEOSWKBReader_read(wkbReader, scratch, bytes.length);
  if (g === 0) throw new Error(`GEOS WKB read: ${geosError}`);
  return g;
}
function gCheck(g: number, what: string): number {
  if (g === 0) {
    const e = geosError;
    geosError = null;
    throw new Error(`GEOS ${what}: ${e}`);
  }
  return g;
}
/** GEOS geometry → WKB in the wasm heap → [x, y] arrays; the buffer is freed. */
function gOut(g: number): MPoly {
  const buf = geos.GEOSGeomToWKB_buf(g, sizePtr);
  const size = GM.HEAPU32[sizePtr >> 2] as number;
  const mp = fromWkb(new DataView(GM.HEAPU8.buffer, buf, size));
  geos.GEOSFree(buf);
  return mp;
}
const geosEngine: Engine = {
  name: 'geos-wasm',
  flat: false,
  note: 'WKB in (copied to the wasm heap) → GEOSWKBReader_read → GEOSIntersection → GEOSGeomToWKB_buf → parsed in JS',
  clipper(aoi) {
    const a = gRead(toWkb(aoi));
    return {
      run(_f, wkb) {
        const g = gRead(wkb);
        const r = geos.GEOSIntersection(g, a);
        geos.GEOSGeom_destroy(g);
        gCheck(r, 'intersection');
        const out = gOut(r);
        geos.GEOSGeom_destroy(r);
        return out;
      },
      dispose() {
        geos.GEOSGeom_destroy(a);
      },
    };
  },
  union(parts) {
    const g = gRead(toWkb(parts.flat()));
    const r = geos.GEOSUnaryUnion(g);
    geos.GEOSGeom_destroy(g);
    gCheck(r, 'unary union');
    const out = gOut(r);
    geos.GEOSGeom_destroy(r);
    return out;
  },
  repair(f) {
    const g = gRead(toWkb(f));
    const r = geos.GEOSMakeValid(g);
    geos.GEOSGeom_destroy(g);
    gCheck(r, 'make valid');
    const out = gOut(r);
    geos.GEOSGeom_destroy(r);
    return out;
  },
  repairThenClip(f, aoi) {
    const fixed = geosEngine.repair(f);
    const k = geosEngine.clipper(aoi);
    try {
      return k.run(fixed, toWkb(fixed));
    } finally {
      k.dispose();
    }
  },
};
/** The same, with the feature given as coordinates: the JS WKB encoding is part of the time. */
const geosFromCoords: Engine = {
  ...geosEngine,
  name: 'geos-wasm (coords in)',
  note: 'as geos-wasm, but the feature comes as [x, y] arrays and is encoded to WKB in JS inside the timing',
  clipper(aoi) {
    const c = geosEngine.clipper(aoi);
    return { run: (f) => c.run(f, toWkb(f)), dispose: c.dispose };
  },
};

const clipperMod = (await load('clipper2-ts')) as ClipperModule;
const { Clipper } = clipperMod;
const NONZERO = clipperMod.FillRule.NonZero;
const INSIDE = clipperMod.PointInPolygonResult.IsInside;
/** lon/lat → integer paths (× scale, rounded); shells made positive (CCW), holes negative, so NonZero
 * keeps holes and dissolves overlaps. The closing vertex is dropped (Clipper paths are implicitly closed). */
function toPaths(mp: MPoly, scale: number): Pt64[][] {
  const out: Pt64[][] = [];
  for (const p of mp) {
    p.forEach((ring, k) => {
      const n = ring.length - 1;
      const path: Pt64[] = new Array(n);
      let a = 0;
      for (let i = 0; i < n; i++) {
        const q = ring[i] as number[];
        path[i] = { x: Math.round((q[0] as number) * scale), y: Math.round((q[1] as number) * scale) };
      }
      const p0 = path[0] as Pt64;
      for (let i = 1; i + 1 < n; i++) {
        const b = path[i] as Pt64;
        const c = path[i + 1] as Pt64;
        a += (b.x - p0.x) * (c.y - p0.y) - (c.x - p0.x) * (b.y - p0.y);
      }
      if ((k === 0) !== a > 0) path.reverse();
      out.push(path);
    });
  }
  return out;
}
function fromPaths(paths: Pt64[][], scale: number): MPoly {
  return paths.map((path) => {
    const ring: Ring = path.map((q) => [q.x / scale, q.y / scale]);
    ring.push(ring[0] as number[]);
    return [ring];
  });
}
function clipperEngine(scale: number): Engine {
  return {
    name: `clipper2-ts ×${scale.toExponential(0).replace('e+', 'e')}`,
    flat: true,
    note: `lon/lat × ${scale} rounded to integers (grid ${1 / scale}°), Clipper.intersect/union NonZero, output paths ÷ scale (flat rings, holes by orientation)`,
    clipper(aoi) {
      const a = toPaths(aoi, scale);
      return { run: (f) => fromPaths(Clipper.intersect(toPaths(f, scale), a, NONZERO), scale), dispose() {} };
    },
    union: (parts) =>
      fromPaths(
        Clipper.union(
          parts.flatMap((p) => toPaths(p, scale)),
          NONZERO,
        ),
        scale,
      ),
    repair: (f) => fromPaths(Clipper.union(toPaths(f, scale), NONZERO), scale),
    // Clipper's union output keeps holes by orientation: intersect those paths as they are.
    repairThenClip: (f, aoi) => fromPaths(Clipper.intersect(Clipper.union(toPaths(f, scale), NONZERO), toPaths(aoi, scale), NONZERO), scale),
  };
}
const clipper9 = clipperEngine(1e9);
const clipper7 = clipperEngine(1e7);

const pc = (await load('polyclip-ts')) as PolyclipModule;
const polyclipEngine: Engine = {
  name: 'polyclip-ts',
  flat: false,
  note: 'intersection(feature, aoi); union(...all)',
  clipper: (aoi) => ({ run: (f) => pc.intersection(f, aoi), dispose() {} }),
  union: (parts) => (parts.length === 0 ? [] : pc.union(parts[0] as MPoly, ...parts.slice(1))),
  repair: (f) => pc.union(f),
  repairThenClip: (f, aoi) => pc.intersection(pc.union(f), aoi),
};

const mz = (await load('martinez-polygon-clipping')) as MartinezModule;
const mzOut = (g: MartinezGeom | null): MPoly => (g === null || g.length === 0 ? [] : asMPoly(g));
const martinezEngine: Engine = {
  name: 'martinez',
  flat: false,
  note: 'intersection(feature, aoi); no n-ary union: pairwise union in a balanced tree (cascaded)',
  clipper: (aoi) => ({ run: (f) => mzOut(mz.intersection(f, aoi)), dispose() {} }),
  union(parts) {
    let level = parts;
    while (level.length > 1) {
      const next: MPoly[] = [];
      for (let i = 0; i < level.length; i += 2)
        next.push(i + 1 < level.length ? mzOut(mz.union(level[i] as MPoly, level[i + 1] as MPoly)) : (level[i] as MPoly));
      level = next;
    }
    return level[0] ?? [];
  },
  // martinez has no unary union (union(f, []) throws): a union of the feature with itself.
  repair: (f) => mzOut(mz.union(f, f)),
  repairThenClip: (f, aoi) => mzOut(mz.intersection(mzOut(mz.union(f, f)), aoi)),
};

const ENGINES = [geosEngine, clipper9, polyclipEngine, martinezEngine];
const MAIN = ENGINES.map((e) => e.name);

// ---------------------------------------------------------------------------------------------------
// Timing

const gc = (globalThis as { gc?: () => void }).gc;
let sink = 0;
interface Timing {
  median: number;
  min: number;
  max: number;
  cpu: number;
  runs: number[];
  cpuRuns: number[];
}
const median = (a: number[]): number => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)] as number;
/**
 * Times functions interleaved: each is warmed up once (an Error if that throws), then RUNS rounds in which
 * every function runs once, so load from elsewhere falls on all of them alike. Wall-clock ms per run, and
 * this process's CPU time (user + system, all threads) per run.
 */
function timeAll(fns: Map<string, () => number>, runs = RUNS): Map<string, Timing | Error> {
  const out = new Map<string, Timing | Error>();
  const live: [string, () => number, number[], number[]][] = [];
  for (const [k, fn] of fns) {
    try {
      sink += fn();
      live.push([k, fn, [], []]);
    } catch (e) {
      out.set(k, e instanceof Error ? e : new Error(String(e)));
    }
  }
  for (let i = 0; i < runs; i++) {
    for (const [, fn, wall, cpu] of live) {
      gc?.();
      const c0 = process.cpuUsage();
      const s = performance.now();
      sink += fn();
      wall.push(performance.now() - s);
      const c = process.cpuUsage(c0);
      cpu.push((c.user + c.system) / 1000);
    }
  }
  for (const [k, , wall, cpu] of live)
    out.set(k, { median: median(wall), min: Math.min(...wall), max: Math.max(...wall), cpu: median(cpu), runs: wall, cpuRuns: cpu });
  return out;
}
const fmt = (v: number, d = 3): string => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toPrecision(d));
const errMsg = (e: unknown): string =>
  ((e instanceof Error ? e.message : String(e)).split('\n')[0] ?? '').replace(/ at -?[0-9.]+ -?[0-9.]+.*$/, '').slice(0, 80);

interface Row {
  workload: string;
  unit: string;
  results: Record<string, { t: Timing; per: number; cpuPer: number; check: string; mark?: string } | { skip: string }>;
}
const fmtRatio = (r: number): string => (r >= 10 ? r.toFixed(0) : r >= 1 ? r.toFixed(1) : r.toFixed(2));
const rows: Row[] = [];
const log = (s: string): void => {
  process.stdout.write(s + '\n');
};

log(
  `clip bench: Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, load ${loadavg()[0]?.toFixed(2)}; runs ${RUNS} (+1 warm-up)${gc ? ', gc between runs' : ''}`,
);
log(`oracle: shapely ${EXP.shapely}, GEOS ${EXP.geos}`);

const AOIS = { rect: [EXP.aois.rect], circle: [EXP.aois.circle] } as Record<'rect' | 'circle', MPoly>;

// ---------------------------------------------------------------------------------------------------
// 1. clip

if (ONLY.has('clip')) {
  for (const aoiName of ['rect', 'circle'] as const) {
    const aoi = AOIS[aoiName];
    const feats = checked(`clip_${aoiName}`, clipSet(EXP.aois[aoiName][0] as Ring, EXP.seeds[`clip_${aoiName}`] as number, EXP.n_clip)).map((p) => [p]);
    const wkbs = feats.map(toWkb);
    const want = EXP.clip[aoiName] as { areas: number[]; total: number };
    const row: Row = { workload: `clip, ${aoiName === 'rect' ? 'rectangle' : '256-gon circle'} AOI`, unit: 'µs / intersection', results: {} };
    const variants: Engine[] = [...ENGINES, geosFromCoords, clipper7];
    if (aoiName === 'rect') {
      const [x0, y0, x1, y1] = [10.0, 50.0, 10.6, 50.4];
      variants.push({
        ...geosEngine,
        name: 'GEOSClipByRect',
        note: 'GEOSClipByRect (rectangle AOIs only; result not guaranteed valid)',
        clipper: () => ({
          run(_f, wkb) {
            const g = gRead(wkb);
            const r = gCheck(geos.GEOSClipByRect(g, x0, y0, x1, y1), 'clip by rect');
            geos.GEOSGeom_destroy(g);
            const out = gOut(r);
            geos.GEOSGeom_destroy(r);
            return out;
          },
          dispose() {},
        }),
      });
      const rect: Rect64 = { left: x0 * 1e9, top: y0 * 1e9, right: x1 * 1e9, bottom: y1 * 1e9 };
      variants.push({
        ...clipper9,
        name: 'Clipper.rectClip ×1e9',
        note: 'Clipper.rectClip (rectangle AOIs only), × 1e9',
        clipper: () => ({ run: (f) => fromPaths(Clipper.rectClip(rect, toPaths(f, 1e9)), 1e9), dispose() {} }),
      });
    }
    const entries = variants.filter((e) => picked(e.name)).map((eng) => ({ eng, c: eng.clipper(aoi), outs: [] as MPoly[], errors: 0 }));
    const times = timeAll(
      new Map(
        entries.map((st) => [
          st.eng.name,
          (): number => {
            st.outs = new Array(feats.length);
            let v = 0;
            for (let i = 0; i < feats.length; i++) {
              try {
                const o = st.c.run(feats[i] as MPoly, wkbs[i] as Uint8Array);
                st.outs[i] = o;
                v += vertexCount(o);
              } catch {
                st.errors++;
                st.outs[i] = [];
              }
            }
            return v;
          },
        ]),
      ),
    );
    for (const { eng, c, outs, errors } of entries) {
      c.dispose();
      const t = times.get(eng.name) as Timing;
      // Accuracy of the last run against shapely.
      let maxRel = 0;
      let off = 0;
      let total = 0;
      outs.forEach((o, i) => {
        const a = eng.flat ? flatArea(o) : mpArea(o);
        total += a;
        const e = want.areas[i] as number;
        const rel = Math.abs(a - e) / e;
        if (rel > maxRel) maxRel = rel;
        if (rel > 1e-9) off++;
      });
      const totalRel = Math.abs(total - want.total) / want.total;
      const check = `${errors ? `${errors / (RUNS + 1)} errors, ` : ''}${off} of ${feats.length} off by > 1e-9 (max ${maxRel.toExponential(1)}); total ${totalRel.toExponential(1)}`;
      row.results[eng.name] = { t, per: (t.median * 1000) / feats.length, cpuPer: (t.cpu * 1000) / feats.length, check };
      log(
        `clip ${aoiName.padEnd(6)} ${eng.name.padEnd(22)} ${fmt((t.median * 1000) / feats.length).padStart(7)} µs (cpu ${fmt((t.cpu * 1000) / feats.length)}; ${fmt(t.min)}–${fmt(t.max)} ms / run)  ${check}`,
      );
    }
    rows.push(row);
  }
}

// ---------------------------------------------------------------------------------------------------
// 2. inside: 100,000 features against a prepared AOI

function segmentHitsBox(x1: number, y1: number, x2: number, y2: number, b: number[]): boolean {
  const [bx0, by0, bx1, by1] = b as [number, number, number, number];
  if (Math.max(x1, x2) < bx0 || Math.min(x1, x2) > bx1 || Math.max(y1, y2) < by0 || Math.min(y1, y2) > by1) return false;
  if ((x1 >= bx0 && x1 <= bx1 && y1 >= by0 && y1 <= by1) || (x2 >= bx0 && x2 <= bx1 && y2 >= by0 && y2 <= by1)) return true;
  let t0 = 0;
  let t1 = 1;
  const dx = x2 - x1;
  const dy = y2 - y1;
  const clip = (p: number, q: number): boolean => {
    if (p === 0) return q >= 0;
    const r = q / p;
    if (p < 0) {
      if (r > t1) return false;
      if (r > t0) t0 = r;
    } else {
      if (r < t0) return false;
      if (r < t1) t1 = r;
    }
    return true;
  };
  return clip(-dx, x1 - bx0) && clip(dx, bx1 - x1) && clip(-dy, y1 - by0) && clip(dy, by1 - y1) && t0 <= t1;
}
function pip(ring: Ring, x: number, y: number): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i] as [number, number];
    const [xj, yj] = ring[j] as [number, number];
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}
function bboxOf(p: Poly): number[] {
  const b = [Infinity, Infinity, -Infinity, -Infinity];
  for (const [x, y] of p[0] as Ring) {
    if ((x as number) < (b[0] as number)) b[0] = x as number;
    if ((y as number) < (b[1] as number)) b[1] = y as number;
    if ((x as number) > (b[2] as number)) b[2] = x as number;
    if ((y as number) > (b[3] as number)) b[3] = y as number;
  }
  return b;
}

const SUB = 500;
if (ONLY.has('inside')) {
  for (const aoiName of ['rect', 'circle'] as const) {
    const aoiRing = EXP.aois[aoiName][0] as Ring;
    const feats = checked(`inside_${aoiName}`, insideSet(aoiRing, EXP.seeds[`inside_${aoiName}`] as number, EXP.n_inside));
    const wkbs = feats.map((p) => toWkb([p]));
    const want = EXP.inside[aoiName] as { contains_properly: number; intersects: number };
    const label = aoiName === 'rect' ? 'rectangle' : '256-gon circle';
    const rowCp: Row = { workload: `inside (ContainsProperly), ${label}, 100k`, unit: 'µs / feature', results: {} };
    const rowIn: Row = { workload: `intersects, ${label}, 100k`, unit: 'µs / feature', results: {} };

    const fns = new Map<string, () => number>();
    const counts = new Map<string, number>();
    const count = (k: string, n: number): number => {
      counts.set(k, n);
      return n;
    };

    // GEOS: GEOSPrepare once; per feature WKB read + prepared predicate + destroy.
    const a = gRead(toWkb([[aoiRing]]));
    const prep = gCheck(geos.GEOSPrepare(a), 'prepare');
    const geosPreds = { 'geos ContainsProperly': geos.GEOSPreparedContainsProperly, 'geos Intersects': geos.GEOSPreparedIntersects };
    for (const [k, pred] of Object.entries(geosPreds)) {
      if (!picked('geos')) break;
      fns.set(k, () => {
        let n = 0;
        for (const w of wkbs) {
          const g = gRead(w);
          if (pred(prep, g) === 1) n++;
          geos.GEOSGeom_destroy(g);
        }
        return count(k, n);
      });
    }

    // clipper2: no predicate; pointInPolygon of every vertex (necessary, not sufficient, for containment).
    const aoiPath = toPaths([[aoiRing]], 1e9)[0] as Pt64[];
    if (picked('clipper')) {
      fns.set('clipper', () => {
        let n = 0;
        for (const f of feats) {
          const ring = f[0] as Ring;
          let all = true;
          for (let i = 0; i + 1 < ring.length && all; i++) {
            const q = ring[i] as number[];
            all = Clipper.pointInPolygon({ x: Math.round((q[0] as number) * 1e9), y: Math.round((q[1] as number) * 1e9) }, aoiPath) === INSIDE;
          }
          if (all) n++;
        }
        return count('clipper', n);
      });
    }

    // polyclip, martinez: no predicate at all; the only test is a full intersection (first SUB features).
    const sub = feats.slice(0, SUB);
    for (const eng of [polyclipEngine, martinezEngine].filter((e) => picked(e.name))) {
      const c = eng.clipper([[aoiRing]]);
      fns.set(eng.name, () => {
        let n = 0;
        for (const f of sub) {
          const o = c.run([f], new Uint8Array());
          if (o.length > 0) n++;
        }
        return n;
      });
    }

    // No engine: bbox test, scan of the AOI's edges against the feature's box, point-in-polygon of one
    // vertex when no edge reaches the box (what the service's weights.ts did before GEOS). Conservative:
    // "edge in box" features go to a clip.
    const edges: number[] = [];
    for (let i = 0; i + 1 < aoiRing.length; i++) edges.push(...(aoiRing[i] as number[]), ...(aoiRing[i + 1] as number[]));
    const aoiBox = bboxOf([aoiRing]);
    let maybe = 0;
    if (picked('JS')) {
      fns.set('JS', () => {
        let inside = 0;
        maybe = 0;
        for (const f of feats) {
          const b = bboxOf(f);
          if (
            (b[2] as number) < (aoiBox[0] as number) ||
            (b[0] as number) > (aoiBox[2] as number) ||
            (b[3] as number) < (aoiBox[1] as number) ||
            (b[1] as number) > (aoiBox[3] as number)
          )
            continue;
          let hit = false;
          for (let i = 0; i < edges.length && !hit; i += 4)
            hit = segmentHitsBox(edges[i] as number, edges[i + 1] as number, edges[i + 2] as number, edges[i + 3] as number, b);
          if (hit) maybe++;
          else {
            const p = (f[0] as Ring)[0] as number[];
            if (pip(aoiRing, p[0] as number, p[1] as number)) inside++;
          }
        }
        return count('JS', inside);
      });
    }

    const times = timeAll(fns);
    geos.GEOSPreparedGeom_destroy(prep);
    geos.GEOSGeom_destroy(a);
    const put = (row: Row, name: string, k: string, n: number, check: string, mark?: string): void => {
      const t = times.get(k);
      if (!(t && 'cpu' in t)) return;
      row.results[name] = { t, per: (t.median * 1000) / n, cpuPer: (t.cpu * 1000) / n, check, ...(mark ? { mark } : {}) };
      if (row === rowIn && k === name) return; // polyclip, martinez: the same timing in both rows, logged once
      log(
        `inside ${aoiName.padEnd(6)} ${`${name} (${k})`.padEnd(44)} ${fmt((t.median * 1000) / n).padStart(7)} µs/feature (cpu ${fmt((t.cpu * 1000) / n)})  ${check}`,
      );
    };
    const eq = (k: string, w: number): string => {
      const n = counts.get(k) as number;
      return n === w ? `${n} = shapely` : `${n} ≠ shapely ${w}`;
    };
    put(rowCp, 'geos-wasm', 'geos ContainsProperly', feats.length, eq('geos ContainsProperly', want.contains_properly));
    put(rowIn, 'geos-wasm', 'geos Intersects', feats.length, eq('geos Intersects', want.intersects));
    put(rowCp, clipper9.name, 'clipper', feats.length, `${eq('clipper', want.contains_properly)} (vertices only, no edge test)`, '‡');
    rowIn.results[clipper9.name] = { skip: 'none' };
    for (const eng of [polyclipEngine, martinezEngine]) {
      put(rowCp, eng.name, eng.name, sub.length, `no predicate: a full intersection per feature (first ${SUB} features)`, '†');
      put(rowIn, eng.name, eng.name, sub.length, `no predicate: a full intersection per feature (first ${SUB} features)`, '†');
    }
    put(rowCp, 'JS bbox+edge scan', 'JS', feats.length, `${counts.get('JS')} inside + ${maybe} to clip; shapely ${want.contains_properly} inside`);
    rows.push(rowCp, rowIn);
  }
}

// ---------------------------------------------------------------------------------------------------
// 3. union

if (ONLY.has('union')) {
  for (const [key, [cols, rowsN]] of Object.entries(EXP.union_grids)) {
    const feats = checked(`union_${key}`, unionSet(cols, rowsN, EXP.seeds[`union_${key}`] as number)).map((p) => [p]);
    const want = EXP.union[key] as { area: number; polygons: number; holes: number; vertices: number };
    const row: Row = { workload: `union of ${Number(key).toLocaleString('en')} squares`, unit: 'ms', results: {} };
    const engs = [...ENGINES, clipper7].filter((e) => picked(e.name));
    const outs = new Map<string, MPoly>();
    const times = timeAll(
      new Map(
        engs.map((eng) => [
          eng.name,
          (): number => {
            const o = eng.union(feats);
            outs.set(eng.name, o);
            return vertexCount(o);
          },
        ]),
      ),
    );
    for (const eng of engs) {
      const t = times.get(eng.name);
      if (!(t && 'cpu' in t)) {
        row.results[eng.name] = { skip: `error: ${errMsg(t)}` };
        log(`union ${key} ${eng.name}: error ${errMsg(t)}`);
        continue;
      }
      const out = outs.get(eng.name) as MPoly;
      const a = eng.flat ? flatArea(out) : mpArea(out);
      const s = shapeOf(out, eng.flat);
      const rel = Math.abs(a - want.area) / want.area;
      const check = `area ${rel <= 1e-9 ? '=' : `off ${rel.toExponential(1)}`}; ${s.polygons} polygon(s), ${s.rings - s.polygons} hole(s), ${vertexCount(out)} vertices (shapely: ${want.polygons}, ${want.holes}, ${want.vertices})`;
      row.results[eng.name] = { t, per: t.median, cpuPer: t.cpu, check };
      log(`union ${key.padStart(5)} ${eng.name.padEnd(16)} ${fmt(t.median).padStart(7)} ms (cpu ${fmt(t.cpu)}; ${fmt(t.min)}–${fmt(t.max)})  ${check}`);
    }
    rows.push(row);
  }
}

// ---------------------------------------------------------------------------------------------------
// 4. robustness

interface Verdict {
  verdict: string;
  area?: number;
  rel?: number;
}
const robust: Record<string, Record<string, Verdict>> = {};
if (ONLY.has('robust')) {
  const judge = (eng: Engine, fn: () => MPoly, want: number, tol: number, shape?: { polygons: number; rings: number }): Verdict => {
    let out: MPoly;
    try {
      out = fn();
    } catch (e) {
      return { verdict: `error: ${errMsg(e)}` };
    }
    const a = eng.flat ? flatArea(out) : mpArea(out);
    const rel = want === 0 ? Math.abs(a) : Math.abs(a - want) / want;
    const s = shapeOf(out, eng.flat);
    const shapeOk = !shape || (s.polygons === shape.polygons && s.rings === shape.rings);
    if (rel <= tol && shapeOk) return { verdict: 'correct', area: a, rel };
    const why = [
      rel > tol
        ? a === 0
          ? 'area 0'
          : rel < 0.01
            ? `area off ${rel.toExponential(1)}`
            : a / want < 1e-6
              ? `area ≈ 0: ${(a / want).toExponential(0)} of shapely's`
              : `area ${(a / want).toPrecision(3)}× shapely's`
        : '',
      shapeOk ? '' : `${s.polygons} polygon(s), ${s.rings} ring(s) (want ${shape?.polygons}, ${shape?.rings})`,
    ]
      .filter(Boolean)
      .join('; ');
    return { verdict: `wrong (${why})`, area: a, rel };
  };
  for (const c of EXP.cases) {
    const f = asMPoly(c.feature);
    const aoi = asMPoly(c.aoi);
    const tol = c.tolerance ?? 1e-9;
    const e = c.expected;
    const checks: [string, (eng: Engine) => Verdict][] = [];
    if (c.repair) {
      checks.push([
        `${c.name}: ∩ raw`,
        (eng) => {
          const v = judge(
            eng,
            () => {
              const k = eng.clipper(aoi);
              try {
                return k.run(f, toWkb(f));
              } finally {
                k.dispose();
              }
            },
            e.intersection_area,
            tol,
          );
          return v.verdict === 'correct' ? { ...v, verdict: 'repaired (= make_valid)' } : v;
        },
      ]);
      checks.push([`${c.name}: engine's repair, then ∩`, (eng) => judge(eng, () => eng.repairThenClip(f, aoi), e.intersection_area, tol)]);
    } else {
      checks.push([
        `${c.name}: ∩`,
        (eng) =>
          judge(
            eng,
            () => {
              const k = eng.clipper(aoi);
              try {
                return k.run(f, toWkb(f));
              } finally {
                k.dispose();
              }
            },
            e.intersection_area,
            tol,
          ),
      ]);
    }
    if (c.union) {
      const parts = c.name === 'identical' ? [...f.map((p) => [p]), aoi] : f.map((p) => [p]);
      checks.push([
        `${c.name}: ∪`,
        (eng) => judge(eng, () => eng.union(parts), e.union_area as number, tol, { polygons: e.union_polygons as number, rings: e.union_rings as number }),
      ]);
    }
    for (const [label, run] of checks) {
      robust[label] = {};
      for (const eng of [...ENGINES, clipper7]) {
        geosError = null;
        (robust[label] as Record<string, Verdict>)[eng.name] = run(eng);
      }
      log(
        `robust ${label.padEnd(36)} ${Object.entries(robust[label] as Record<string, Verdict>)
          .map(([k, v]) => `${k}: ${v.verdict}`)
          .join(' | ')}`,
      );
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Report

const heap = GM.HEAPU8.length;
GM._free(scratch);
GM._free(sizePtr);
geos.GEOSWKBReader_destroy(wkbReader);

const md: string[] = [];
const stamp = new Date().toISOString().replace('T', ' ').slice(0, 16);
md.push(
  `Run ${stamp} UTC: Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, 1-min load at the end ${loadavg()[0]?.toFixed(2)}; ${RUNS} timed runs after 1 warm-up, median. Oracle: shapely ${EXP.shapely} (GEOS ${EXP.geos}). geos-wasm: import + instantiate ${geosInitMs.toFixed(0)} ms, wasm heap at the end ${(heap / 2 ** 20).toFixed(0)} MiB.`,
  '',
);
md.push(`| workload | unit | ${MAIN.join(' | ')} |`, `|---|---|${MAIN.map(() => '---:').join('|')}|`);
for (const r of rows) {
  const base = r.results['geos-wasm'];
  const cell = (name: string): string => {
    const x = r.results[name];
    if (!x) return '—';
    if ('skip' in x) return x.skip;
    const ratio = base && 'per' in base && name !== 'geos-wasm' ? ` (${fmtRatio(x.per / base.per)}×)` : '';
    return `${fmt(x.per)}${x.mark ?? ''}${ratio}`;
  };
  md.push(`| ${r.workload} | ${r.unit} | ${MAIN.map(cell).join(' | ')} |`);
}
md.push(
  '',
  `† no predicate: a full intersection per feature (first ${SUB} features). ‡ pointInPolygon of every vertex: no edge test, so not a containment test for a concave AOI.`,
);
md.push(
  '',
  "Other variants and the checks of every timed result (wall-clock median, and the median of this process's CPU time per run):",
  '',
  '| workload | variant | wall | ×geos-wasm | CPU | ×geos-wasm | check against shapely |',
  '|---|---|---:|---:|---:|---:|---|',
);
for (const r of rows) {
  const base = r.results['geos-wasm'];
  for (const [name, x] of Object.entries(r.results)) {
    if ('skip' in x) continue;
    const ratio = base && 'per' in base ? fmtRatio(x.per / base.per) : '';
    const cpuRatio = base && 'per' in base ? fmtRatio(x.cpuPer / base.cpuPer) : '';
    md.push(`| ${r.workload} | ${name} | ${fmt(x.per)} ${r.unit.split(' ')[0]} | ${ratio} | ${fmt(x.cpuPer)} | ${cpuRatio} | ${x.check} |`);
  }
}
if (Object.keys(robust).length > 0) {
  const names = [...MAIN, clipper7.name];
  md.push('', `| case | ${names.join(' | ')} |`, `|---|${names.map(() => '---').join('|')}|`);
  for (const [label, v] of Object.entries(robust)) md.push(`| ${label} | ${names.map((n) => v[n]?.verdict ?? '—').join(' | ')} |`);
}
mkdirSync(OUT, { recursive: true });
writeFileSync(`${OUT}clip.md`, md.join('\n') + '\n');
writeFileSync(`${OUT}clip.json`, JSON.stringify({ date: stamp, node: process.version, cpu: cpus()[0]?.model, runs: RUNS, rows, robust, sink }, null, 1));
log('\n' + md.join('\n'));
log(`\nwrote ${OUT}clip.md and clip.json`);
