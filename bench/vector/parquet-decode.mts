/**
 * Parquet column-chunk decoding: hyparquet (the service's reader) against parquet-wasm 0.8.0 + apache-arrow
 * 21.2.0, on bench/data/vector_1m.parquet held in memory (no I/O is timed). Results: bench/vector/PARQUET.md.
 *
 *     cd bench/vector && npm ci && node make-data.mjs && npx tsx parquet-decode.mts     (~2–3 min)
 *
 * For 1 row group (#50) and for 10 row groups (#45–#54) it times, each case in its own process:
 *   - geometry: the WKB bytes of every row reachable from JS. hyparquet with the footer parsed with
 *     `geoparquet: false` and `utf8: false` (raw Uint8Array per row), and hyparquet's default path
 *     (GeoJSON objects); parquet-wasm: Arrow Binary vectors (valueOffsets + values). Every case reads the
 *     first vertex's x (a float64 at byte 13 of each WKB) to prove the bytes are there;
 *   - numeric: `value` (double) into a Float64Array and `pop` (int32) into an Int32Array;
 *   - bbox: the four covering leaves bbox.{xmin,ymin,xmax,ymax} into four Float64Arrays.
 * hyparquet runs three ways: parquetReadObjects (row objects, what src/vector/reader.ts called before; for 10 row
 * groups also as 10 sequential one-row-group calls), parquetRead with only `onPage` (column pages, no
 * row assembly), and parquetRead with `onChunk`. ZSTD goes through hyparquet-compressors' JavaScript
 * fzstd, and for onPage also through zstddec (zstd compiled to WASM); onChunk + zstddec is what
 * src/vector/reader.ts decodeGroup does since af99db4. parquet-wasm runs two ways:
 * readParquet(whole file as a Uint8Array) and ParquetFile.fromFile(Blob of the file).read(), the async
 * reader that fetches only the selected column chunks; both then go through intoIPCStream() and
 * apache-arrow's tableFromIPC. Each case's sums are checked equal across libraries (and the geometry's
 * Σ x of the first vertex equal to Σ bbox.xmin).
 *
 * Per case: one cold call whose process.memoryUsage() before/after (and after a GC, the result still
 * held) gives the memory figures, then WARMUP (2) warm-ups, then RUNS (21) timed calls, each after a GC;
 * median and min. Then, in this process, a loopback HTTP server that honours Range logs the requests
 * and bytes each library needs to open the file and read selected column chunks.
 *
 * Environment: PARQUET_RUNS (21), PARQUET_WARMUP (2), PARQUET_ONLY (case ids, comma-separated),
 * PW_BATCH (parquet-wasm batchSize; its default, 1024, if unset).
 *
 * parquet-wasm and apache-arrow are bench-only dependencies (bench/vector/package.json). They are
 * imported through a variable so that the root `tsc --noEmit` (which covers bench/) does not need them
 * installed; the few members used are typed below.
 */
import { fork } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { asyncBufferFromUrl, parquetMetadata, parquetMetadataAsync, parquetRead, parquetReadObjects } from 'hyparquet';
import type { FileMetaData } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { ZSTDDecoder } from 'zstddec';

// ------------------------------------------------------------------------------------------------
// the two bench-only libraries, loosely typed

interface ArrowData {
  length: number;
  offset: number;
  valueOffsets: Int32Array;
  values: Uint8Array;
}
interface ArrowVector {
  data: ArrowData[];
  length: number;
  toArray(): ArrayLike<number>;
  getChild(name: string): ArrowVector | null;
}
interface ArrowTable {
  numRows: number;
  schema: { fields: { name: string }[] };
  getChild(name: string): ArrowVector | null;
}
interface WasmTable {
  numBatches: number;
  intoIPCStream(): Uint8Array;
}
interface ReaderOptions {
  rowGroups?: number[];
  columns?: string[];
  batchSize?: number;
}
interface WasmParquetFile {
  read(options?: ReaderOptions): Promise<WasmTable>;
}
interface ParquetWasm {
  readParquet(file: Uint8Array, options?: ReaderOptions): WasmTable;
  wasmMemory(): { buffer: ArrayBuffer };
  ParquetFile: { fromFile(blob: Blob): Promise<WasmParquetFile>; fromUrl(url: string): Promise<WasmParquetFile> };
}
interface Arrow {
  tableFromIPC(bytes: Uint8Array): ArrowTable;
}
const PW_NAME = 'parquet-wasm';
const ARROW_NAME = 'apache-arrow';
const pw = (await import(PW_NAME)) as ParquetWasm;
const arrow = (await import(ARROW_NAME)) as Arrow;
const pwVersion = (JSON.parse(readFileSync(new URL('./node_modules/parquet-wasm/package.json', import.meta.url), 'utf8')) as { version: string }).version;
const arrowVersion = (JSON.parse(readFileSync(new URL('./node_modules/apache-arrow/package.json', import.meta.url), 'utf8')) as { version: string }).version;
const hyVersion = (JSON.parse(readFileSync(new URL('./node_modules/hyparquet/package.json', import.meta.url), 'utf8')) as { version: string }).version;

// ------------------------------------------------------------------------------------------------
// setup

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FILE = join(ROOT, 'bench', 'data', 'vector_1m.parquet');
const OUT = join(ROOT, 'bench', 'out');
const RUNS = Number(process.env['PARQUET_RUNS'] ?? 21);
const WARMUP = Number(process.env['PARQUET_WARMUP'] ?? 2);
const PW_BATCH = process.env['PW_BATCH'] ? Number(process.env['PW_BATCH']) : undefined;
const ROWS_PER_GROUP = 10_000;
const GROUPS: Record<number, number[]> = { 1: [50], 10: [45, 46, 47, 48, 49, 50, 51, 52, 53, 54] };
const BBOX = ['xmin', 'ymin', 'xmax', 'ymax'] as const;

type ColSet = 'geometry' | 'numeric' | 'bbox';
type Lib = 'hyparquet' | 'parquet-wasm';
type Api = 'objects' | 'pages' | 'chunks' | 'readParquet' | 'ParquetFile';
interface CaseDef {
  id: string;
  cols: ColSet;
  groups: 1 | 10;
  lib: Lib;
  api: Api;
  /** geometry only: hyparquet's default GeoJSON decoding instead of raw WKB. */
  geojson?: boolean;
  /** hyparquet objects: one call per row group, in sequence. */
  split?: boolean;
  /** hyparquet: ZSTD through zstddec (WASM) instead of hyparquet-compressors' fzstd (JavaScript). */
  zstddec?: boolean;
  label: string;
}

const LABEL: Record<string, string> = {
  'hyparquet/objects': 'hyparquet parquetReadObjects',
  'hyparquet/pages': 'hyparquet parquetRead onPage',
  'hyparquet/chunks': 'hyparquet parquetRead onChunk + zstddec (src/vector/reader.ts decodeGroup)',
  'parquet-wasm/readParquet': 'parquet-wasm readParquet (whole file)',
  'parquet-wasm/ParquetFile': 'parquet-wasm ParquetFile.fromFile(Blob).read',
};
const CASES: CaseDef[] = [];
for (const groups of [1, 10] as const) {
  for (const cols of ['geometry', 'numeric', 'bbox'] as const) {
    for (const [lib, api] of [
      ['hyparquet', 'objects'],
      ['hyparquet', 'pages'],
      ['hyparquet', 'chunks'],
      ['parquet-wasm', 'readParquet'],
      ['parquet-wasm', 'ParquetFile'],
    ] as const) {
      const base = `${LABEL[`${lib}/${api}`]}`;
      CASES.push({
        id: `${cols}-${groups}-${lib === 'hyparquet' ? 'hy' : 'pw'}-${api}`,
        cols,
        groups,
        lib,
        api,
        label: cols === 'geometry' && lib === 'hyparquet' ? `${base}, raw WKB` : base,
      });
      if (cols === 'geometry' && lib === 'hyparquet' && api !== 'chunks') {
        CASES.push({ id: `${cols}-${groups}-hy-${api}-geojson`, cols, groups, lib, api, geojson: true, label: `${base}, GeoJSON (default)` });
      }
      if (lib === 'hyparquet' && api === 'pages') {
        CASES.push({
          id: `${cols}-${groups}-hy-pages-zstddec`,
          cols,
          groups,
          lib,
          api,
          zstddec: true,
          label: `${base}${cols === 'geometry' ? ', raw WKB' : ''} + zstddec`,
        });
      }
      if (groups === 10 && lib === 'hyparquet' && api === 'objects') {
        const what = cols === 'geometry' ? ', raw WKB' : '';
        CASES.push({ id: `${cols}-${groups}-hy-objects-split`, cols, groups, lib, api, split: true, label: `${base}${what}, 10 calls of 1 row group` });
      }
    }
  }
}

const COLUMNS: Record<ColSet, string[]> = { geometry: ['geometry'], numeric: ['value', 'pop'], bbox: ['bbox'] };

/** What a case hands back: the decoded columns (kept alive for the memory figures) and check sums. */
interface Decoded {
  rows: number;
  keep: unknown;
  sums: number[];
}

// ------------------------------------------------------------------------------------------------
// consumers: the same work on each library's output

/** Σ of the first vertex's x over WKB blobs given as (bytes, start) pairs through one DataView per buffer. */
function sumFirstX(blobs: ArrayLike<Uint8Array>): number {
  let s = 0;
  let lastBuf: ArrayBufferLike | undefined;
  let dv: DataView | undefined;
  for (let i = 0; i < blobs.length; i++) {
    const b = blobs[i]!;
    if (b.buffer !== lastBuf) {
      lastBuf = b.buffer;
      dv = new DataView(b.buffer);
    }
    if (b[0] !== 1 || b.length !== 93) throw new Error(`row ${i}: not the 93-byte little-endian WKB polygon`);
    s += dv!.getFloat64(b.byteOffset + 13, true);
  }
  return s;
}

interface GeoJsonPolygon {
  type: string;
  coordinates: number[][][];
}
function sumGeoJsonFirstX(geoms: ArrayLike<GeoJsonPolygon>): number {
  let s = 0;
  for (let i = 0; i < geoms.length; i++) s += geoms[i]!.coordinates[0]![0]![0]!;
  return s;
}

function sum(a: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]!;
  return s;
}

/** Arrow side: WKB through the Binary vector's offsets and data, no per-row object. */
function arrowGeometry(t: ArrowTable): Decoded {
  const col = t.getChild('geometry');
  if (!col) throw new Error('no geometry column');
  let s = 0;
  let rows = 0;
  for (const d of col.data) {
    const offs = d.valueOffsets;
    const vals = d.values;
    const dv = new DataView(vals.buffer, vals.byteOffset, vals.byteLength);
    for (let i = d.offset; i < d.offset + d.length; i++) {
      const start = offs[i]!;
      if (vals[start] !== 1 || offs[i + 1]! - start !== 93) throw new Error(`row ${rows}: not the 93-byte little-endian WKB polygon`);
      s += dv.getFloat64(start + 13, true);
      rows++;
    }
  }
  return { rows, keep: t, sums: [s] };
}

function arrowNumeric(t: ArrowTable): Decoded {
  const value = t.getChild('value')!.toArray() as Float64Array;
  const pop = t.getChild('pop')!.toArray() as Int32Array;
  if (!(value instanceof Float64Array) || !(pop instanceof Int32Array)) throw new Error('unexpected Arrow array types');
  return { rows: value.length, keep: [t, value, pop], sums: [sum(value), sum(pop)] };
}

function arrowBbox(t: ArrowTable): Decoded {
  const s = t.getChild('bbox')!;
  const leaves = BBOX.map((n) => s.getChild(n)!.toArray() as Float64Array);
  return { rows: leaves[0]!.length, keep: [t, leaves], sums: leaves.map(sum) };
}

// ------------------------------------------------------------------------------------------------
// the cases

interface Inputs {
  ab?: ArrayBuffer;
  metaRaw?: FileMetaData;
  metaGeo?: FileMetaData;
  u8?: Uint8Array;
  pf?: WasmParquetFile;
}

async function prepare(c: CaseDef): Promise<Inputs> {
  const buf = readFileSync(FILE);
  if (c.lib === 'hyparquet') {
    // The file as an ArrayBuffer (hyparquet slices it); footers parsed once, outside the timing.
    const whole = buf.byteOffset === 0 && buf.byteLength === buf.buffer.byteLength;
    const ab = (whole ? buf.buffer : buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength)) as ArrayBuffer;
    if (c.api === 'chunks' || c.zstddec) await zstdCompressors(); // the WASM decoder instantiated outside the timing
    return c.geojson ? { ab, metaGeo: parquetMetadata(ab) } : { ab, metaRaw: parquetMetadata(ab, { geoparquet: false }) };
  }
  if (c.api === 'readParquet') return { u8: new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength) };
  // The async reader over a Blob of the file: opened once (footer parsed), outside the timing.
  const pf = await pw.ParquetFile.fromFile(new Blob([buf]));
  return { pf };
}

function hyRange(c: CaseDef): { rowStart: number; rowEnd: number } {
  const g = GROUPS[c.groups]!;
  return { rowStart: g[0]! * ROWS_PER_GROUP, rowEnd: (g[g.length - 1]! + 1) * ROWS_PER_GROUP };
}

async function runHyObjects(c: CaseDef, inp: Inputs): Promise<Decoded> {
  const { rowStart, rowEnd } = hyRange(c);
  const read = (from: number, to: number): Promise<Record<string, unknown>[]> =>
    parquetReadObjects({
      file: inp.ab!,
      metadata: c.geojson ? inp.metaGeo! : inp.metaRaw!,
      columns: COLUMNS[c.cols],
      rowStart: from,
      rowEnd: to,
      compressors,
      utf8: false,
    });
  let rows: Record<string, unknown>[];
  if (c.split) {
    rows = [];
    for (let r = rowStart; r < rowEnd; r += ROWS_PER_GROUP) for (const row of await read(r, r + ROWS_PER_GROUP)) rows.push(row);
  } else {
    rows = await read(rowStart, rowEnd);
  }
  const n = rows.length;
  if (c.cols === 'geometry') {
    const g = rows.map((r) => r['geometry'] as unknown);
    return { rows: n, keep: rows, sums: [c.geojson ? sumGeoJsonFirstX(g as GeoJsonPolygon[]) : sumFirstX(g as Uint8Array[])] };
  }
  if (c.cols === 'numeric') {
    const value = new Float64Array(n);
    const pop = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const r = rows[i]!;
      value[i] = r['value'] as number;
      pop[i] = r['pop'] as number;
    }
    return { rows: n, keep: [rows, value, pop], sums: [sum(value), sum(pop)] };
  }
  const leaves = BBOX.map(() => new Float64Array(n));
  for (let i = 0; i < n; i++) {
    const b = rows[i]!['bbox'] as Record<string, number>;
    leaves[0]![i] = b['xmin']!;
    leaves[1]![i] = b['ymin']!;
    leaves[2]![i] = b['xmax']!;
    leaves[3]![i] = b['ymax']!;
  }
  return { rows: n, keep: [rows, leaves], sums: leaves.map(sum) };
}

async function runHyPages(c: CaseDef, inp: Inputs): Promise<Decoded> {
  const { rowStart, rowEnd } = hyRange(c);
  const n = rowEnd - rowStart;
  const pages = new Map<string, { rowStart: number; data: ArrayLike<unknown> }[]>();
  await parquetRead({
    file: inp.ab!,
    metadata: c.geojson ? inp.metaGeo! : inp.metaRaw!,
    columns: COLUMNS[c.cols],
    rowStart,
    rowEnd,
    compressors: c.zstddec ? await zstdCompressors() : compressors,
    utf8: false,
    // Only onPage: hyparquet then skips assembling rows and struct columns.
    onPage: (p) => {
      const key = p.pathInSchema.join('.');
      (pages.get(key) ?? pages.set(key, []).get(key)!).push({ rowStart: p.rowStart, data: p.columnData });
    },
  });
  /** The pages of one leaf column in row order, each clipped to the requested rows. */
  const clipped = (path: string): { at: number; from: number; to: number; data: ArrayLike<unknown> }[] => {
    const ps = (pages.get(path) ?? []).sort((a, b) => a.rowStart - b.rowStart);
    let filled = 0;
    const out = ps.map((p) => {
      const from = Math.max(0, rowStart - p.rowStart);
      const to = Math.min(p.data.length, rowEnd - p.rowStart);
      filled += Math.max(0, to - from);
      return { at: p.rowStart + from - rowStart, from, to, data: p.data };
    });
    if (filled !== n) throw new Error(`${path}: ${filled} rows from pages, wanted ${n}`);
    return out;
  };
  /**
   * A numeric leaf into a typed array. Top-level columns come as arrays of numbers (TypedArray.set);
   * the leaves of the OPTIONAL bbox struct come from hyparquet 1.31.5's onPage as one-element arrays
   * per row ([x]), unwrapped here (TypedArray.set would convert each through a string).
   */
  const typed = <A extends Float64Array | Int32Array>(path: string, out: A): A => {
    for (const p of clipped(path)) {
      if (p.to > p.from && Array.isArray(p.data[p.from])) {
        const d = p.data as ArrayLike<number[]>;
        for (let i = p.from, j = p.at; i < p.to; i++, j++) out[j] = d[i]![0]!;
      } else {
        const d = p.data as ArrayLike<number>;
        out.set(p.from === 0 && p.to === d.length ? d : Array.prototype.slice.call(d, p.from, p.to), p.at);
      }
    }
    return out;
  };
  if (c.cols === 'geometry') {
    const g: unknown[] = [];
    for (const p of clipped('geometry')) for (let i = p.from; i < p.to; i++) g.push(p.data[i]);
    return { rows: n, keep: g, sums: [c.geojson ? sumGeoJsonFirstX(g as GeoJsonPolygon[]) : sumFirstX(g as Uint8Array[])] };
  }
  if (c.cols === 'numeric') {
    const value = typed('value', new Float64Array(n));
    const pop = typed('pop', new Int32Array(n));
    return { rows: n, keep: [value, pop], sums: [sum(value), sum(pop)] };
  }
  const leaves = BBOX.map((b) => typed(`bbox.${b}`, new Float64Array(n)));
  return { rows: n, keep: leaves, sums: leaves.map(sum) };
}

/** zstd's own decoder compiled to WASM, as src/raster/codecs/zstd.ts wraps it for src/vector/reader.ts. */
let withZstddec: typeof compressors | undefined;
async function zstdCompressors(): Promise<typeof compressors> {
  if (!withZstddec) {
    const d = new ZSTDDecoder();
    await d.init();
    withZstddec = { ...compressors, ZSTD: (input: Uint8Array, outputLength: number) => d.decode(input, outputLength) };
  }
  return withZstddec;
}

/**
 * What src/vector/reader.ts decodeGroup does (since af99db4): parquetRead with onChunk (columns assembled,
 * struct columns as one object per row), ZSTD through zstddec, each chunk copied to its row offsets.
 */
async function runHyChunks(c: CaseDef, inp: Inputs): Promise<Decoded> {
  const { rowStart, rowEnd } = hyRange(c);
  const n = rowEnd - rowStart;
  const cols = COLUMNS[c.cols];
  const data = new Map<string, unknown[]>(cols.map((k) => [k, new Array<unknown>(n)]));
  await parquetRead({
    file: inp.ab!,
    metadata: inp.metaRaw!,
    columns: cols,
    rowStart,
    rowEnd,
    compressors: await zstdCompressors(),
    utf8: false,
    onChunk: (chunk) => {
      const out = data.get(chunk.columnName);
      if (!out) return;
      const values = chunk.columnData;
      for (let i = 0; i < values.length; i++) {
        const r = chunk.rowStart + i - rowStart;
        if (r >= 0 && r < n) out[r] = values[i];
      }
    },
  });
  if (c.cols === 'geometry') {
    const g = data.get('geometry')!;
    return { rows: n, keep: g, sums: [sumFirstX(g as Uint8Array[])] };
  }
  if (c.cols === 'numeric') {
    const value = new Float64Array(n);
    value.set(data.get('value') as number[]);
    const pop = new Int32Array(n);
    pop.set(data.get('pop') as number[]);
    return { rows: n, keep: [value, pop], sums: [sum(value), sum(pop)] };
  }
  const b = data.get('bbox') as Record<string, number>[];
  const leaves = BBOX.map(() => new Float64Array(n));
  for (let i = 0; i < n; i++) {
    const o = b[i]!;
    leaves[0]![i] = o['xmin']!;
    leaves[1]![i] = o['ymin']!;
    leaves[2]![i] = o['xmax']!;
    leaves[3]![i] = o['ymax']!;
  }
  return { rows: n, keep: [b, leaves], sums: leaves.map(sum) };
}

function pwOptions(c: CaseDef): ReaderOptions {
  const o: ReaderOptions = { rowGroups: GROUPS[c.groups]!, columns: COLUMNS[c.cols] };
  if (PW_BATCH !== undefined) o.batchSize = PW_BATCH;
  return o;
}

const fromArrow = (c: CaseDef, t: ArrowTable): Decoded => (c.cols === 'geometry' ? arrowGeometry(t) : c.cols === 'numeric' ? arrowNumeric(t) : arrowBbox(t));

async function runCase(c: CaseDef, inp: Inputs): Promise<Decoded & { arrowColumns?: string[] }> {
  if (c.lib === 'hyparquet') return c.api === 'objects' ? runHyObjects(c, inp) : c.api === 'pages' ? runHyPages(c, inp) : runHyChunks(c, inp);
  const wt = c.api === 'readParquet' ? pw.readParquet(inp.u8!, pwOptions(c)) : await inp.pf!.read(pwOptions(c));
  const t = arrow.tableFromIPC(wt.intoIPCStream());
  return { ...fromArrow(c, t), arrowColumns: t.schema.fields.map((f) => f.name) };
}

// ------------------------------------------------------------------------------------------------
// one case, in its own process

const MiB = 1024 * 1024;
interface CaseResult {
  id: string;
  rows: number;
  sums: number[];
  arrowColumns?: string[];
  times: number[];
  median: number;
  min: number;
  mem: {
    /** cold first call, before → after (no GC in between): what it allocated and left */
    rss: number;
    heapUsed: number;
    external: number;
    arrayBuffers: number;
    /** after a GC with the result still referenced: what the decoded columns hold */
    heapRetained: number;
    arrayBuffersRetained: number;
    externalRetained: number;
    /** parquet-wasm's linear memory before → after the first call, and at the end (it never shrinks) */
    wasmBefore: number;
    wasmAfter: number;
    wasmEnd: number;
    /** process RSS right after setup (file in memory, GC done) and its high-water marks (VmHWM, reset
     * through /proc/self/clear_refs) over the cold call and over the warm-ups and timed runs */
    baseRss: number;
    peakCold: number;
    peakRuns: number;
  };
}

function vmHwm(): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) * 1024 : Number.NaN;
}
/** Linux: writing 5 to clear_refs resets VmHWM to the current RSS. */
function resetHwm(): void {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    // not Linux, or not allowed: the peaks then include the setup
  }
}

async function child(id: string): Promise<void> {
  const c = CASES.find((k) => k.id === id);
  if (!c) throw new Error(`no case ${id}`);
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  const wasm = (): number => pw.wasmMemory().buffer.byteLength;
  const inp = await prepare(c);
  gc();
  gc();
  resetHwm();
  const m0 = process.memoryUsage();
  const w0 = wasm();
  let first: Decoded | undefined = await runCase(c, inp);
  const m1 = process.memoryUsage();
  const w1 = wasm();
  const peakCold = vmHwm();
  gc();
  const m2 = process.memoryUsage();
  const { rows, sums, arrowColumns } = first as Decoded & { arrowColumns?: string[] };
  first = undefined;
  gc();
  resetHwm();
  for (let i = 0; i < WARMUP; i++) await runCase(c, inp);
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    gc();
    const t0 = performance.now();
    const r = await runCase(c, inp);
    times.push(performance.now() - t0);
    if (r.sums.some((s, j) => s !== sums[j])) throw new Error(`${id}: run ${i} sums differ`);
  }
  const sorted = [...times].sort((a, b) => a - b);
  const result: CaseResult = {
    id,
    rows,
    sums,
    ...(arrowColumns ? { arrowColumns } : {}),
    times,
    median: sorted[Math.floor(sorted.length / 2)]!,
    min: sorted[0]!,
    mem: {
      rss: m1.rss - m0.rss,
      heapUsed: m1.heapUsed - m0.heapUsed,
      external: m1.external - m0.external,
      arrayBuffers: m1.arrayBuffers - m0.arrayBuffers,
      heapRetained: m2.heapUsed - m0.heapUsed,
      arrayBuffersRetained: m2.arrayBuffers - m0.arrayBuffers,
      externalRetained: m2.external - m0.external,
      wasmBefore: w0,
      wasmAfter: w1,
      wasmEnd: wasm(),
      baseRss: m0.rss,
      peakCold,
      peakRuns: vmHwm(),
    },
  };
  process.send!(result);
}

function runChild(id: string): Promise<CaseResult> {
  return new Promise((resolve, reject) => {
    const proc = fork(fileURLToPath(import.meta.url), ['--case', id], {
      execArgv: [...process.execArgv, '--expose-gc'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let got: CaseResult | undefined;
    proc.on('message', (m) => (got = m as CaseResult));
    proc.on('error', reject);
    proc.on('exit', (code) => (got && code === 0 ? resolve(got) : reject(new Error(`case ${id} exited ${code}`))));
  });
}

// ------------------------------------------------------------------------------------------------
// byte ranges over HTTP: what each library asks for

interface RangeLog {
  what: string;
  requests: string[];
  bytes: number;
}

async function rangeCheck(): Promise<{ fileBytes: number; log: RangeLog[]; sums: Record<string, number[]> }> {
  const buf = readFileSync(FILE);
  let reqs: string[] = [];
  let bytes = 0;
  const server = createServer((req, res) => {
    const r = req.headers.range;
    reqs.push(r ? `${req.method} ${r}` : req.method === 'HEAD' ? 'HEAD' : `${req.method} (whole file)`);
    if (req.method === 'HEAD') {
      res.writeHead(200, { 'content-length': buf.length, 'accept-ranges': 'bytes' });
      res.end();
      return;
    }
    const m = r ? /^bytes=(\d*)-(\d*)$/.exec(r) : null;
    if (!m) {
      bytes += buf.length;
      res.writeHead(200, { 'content-length': buf.length, 'accept-ranges': 'bytes' });
      res.end(buf);
      return;
    }
    const start = m[1] === '' ? buf.length - Number(m[2]) : Number(m[1]);
    const end = m[1] === '' || m[2] === '' ? buf.length - 1 : Math.min(Number(m[2]), buf.length - 1);
    bytes += end - start + 1;
    res.writeHead(206, { 'content-range': `bytes ${start}-${end}/${buf.length}`, 'content-length': end - start + 1, 'accept-ranges': 'bytes' });
    res.end(buf.subarray(start, end + 1));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/vector_1m.parquet`;
  const log: RangeLog[] = [];
  const take = (what: string): void => {
    log.push({ what, requests: reqs, bytes });
    reqs = [];
    bytes = 0;
  };
  const sums: Record<string, number[]> = {};
  const geom1 = CASES.find((c) => c.id === 'geometry-1-pw-ParquetFile')!;
  const bbox10 = CASES.find((c) => c.id === 'bbox-10-pw-ParquetFile')!;
  try {
    // parquet-wasm: the async reader over HTTP
    const pf = await pw.ParquetFile.fromUrl(url);
    take('parquet-wasm ParquetFile.fromUrl (open)');
    sums['pw geometry 1'] = fromArrow(geom1, arrow.tableFromIPC((await pf.read(pwOptions(geom1))).intoIPCStream())).sums;
    take('parquet-wasm read: geometry, 1 row group');
    sums['pw bbox 10'] = fromArrow(bbox10, arrow.tableFromIPC((await pf.read(pwOptions(bbox10))).intoIPCStream())).sums;
    take('parquet-wasm read: bbox, 10 row groups');
    // hyparquet: asyncBufferFromUrl (a HEAD for the length), footer, then the column chunks
    const file = await asyncBufferFromUrl({ url });
    const meta = await parquetMetadataAsync(file, { geoparquet: false });
    take('hyparquet asyncBufferFromUrl + parquetMetadataAsync (open)');
    const g = hyRange(geom1);
    const rows = await parquetReadObjects({ file, metadata: meta, columns: ['geometry'], ...g, compressors, utf8: false });
    sums['hy geometry 1'] = [sumFirstX(rows.map((r) => r['geometry'] as Uint8Array))];
    take('hyparquet read: geometry, 1 row group');
    const b = hyRange(bbox10);
    const brows = await parquetReadObjects({ file, metadata: meta, columns: ['bbox'], ...b, compressors });
    sums['hy bbox 10'] = BBOX.map((k) => brows.reduce((s, r) => s + (r['bbox'] as Record<string, number>)[k]!, 0));
    take('hyparquet read: bbox, 10 row groups');
  } finally {
    server.close();
  }
  return { fileBytes: buf.length, log, sums };
}

// ------------------------------------------------------------------------------------------------
// driver

async function main(): Promise<void> {
  const only = process.env['PARQUET_ONLY']?.split(',').filter(Boolean);
  const cases = only ? CASES.filter((c) => only.includes(c.id)) : CASES;
  const meta = parquetMetadata(readFileSync(FILE));
  const chunkBytes = (cols: ColSet, groups: number[]): { compressed: number; uncompressed: number } => {
    let compressed = 0;
    let uncompressed = 0;
    for (const g of groups) {
      for (const col of meta.row_groups[g]!.columns) {
        const p = col.meta_data!.path_in_schema;
        const hit = cols === 'bbox' ? p[0] === 'bbox' : COLUMNS[cols].includes(p[0]!);
        if (hit) {
          compressed += Number(col.meta_data!.total_compressed_size);
          uncompressed += Number(col.meta_data!.total_uncompressed_size);
        }
      }
    }
    return { compressed, uncompressed };
  };
  const load0 = loadavg()[0]!;
  const started = new Date();
  console.log(
    `hyparquet ${hyVersion}, parquet-wasm ${pwVersion}, apache-arrow ${arrowVersion}; Node ${process.version}; ${cpus().length} × ${cpus()[0]?.model}; load ${load0.toFixed(2)}`,
  );
  console.log(
    `${RUNS} timed runs after ${WARMUP} warm-ups (and one cold call for memory), each case in its own process; PW batchSize ${PW_BATCH ?? 'default (1024)'}`,
  );
  const results: (CaseResult & CaseDef & { load: number })[] = [];
  for (const c of cases) {
    const load = loadavg()[0]!;
    const r = await runChild(c.id);
    results.push({ ...c, ...r, load });
    console.log(
      `${c.id.padEnd(34)} median ${r.median.toFixed(2).padStart(8)} ms  min ${r.min.toFixed(2).padStart(8)} ms  rows ${r.rows}  load ${load.toFixed(1)}${r.arrowColumns ? `  arrow columns: ${r.arrowColumns.join(',')}` : ''}`,
    );
  }
  const load1 = loadavg()[0]!;

  // checks: the same sums for the same columns and row groups, whatever the library
  const problems: string[] = [];
  for (const groups of [1, 10]) {
    for (const cols of ['geometry', 'numeric', 'bbox'] as const) {
      const same = results.filter((r) => r.groups === groups && r.cols === cols);
      for (const r of same) {
        if (r.rows !== groups * ROWS_PER_GROUP) problems.push(`${r.id}: ${r.rows} rows`);
        if (JSON.stringify(r.sums) !== JSON.stringify(same[0]!.sums)) problems.push(`${r.id}: sums ${r.sums} ≠ ${same[0]!.id}'s ${same[0]!.sums}`);
      }
    }
    const g = results.find((r) => r.groups === groups && r.cols === 'geometry' && !r.geojson);
    const b = results.find((r) => r.groups === groups && r.cols === 'bbox');
    if (g && b && g.sums[0] !== b.sums[0]) problems.push(`${groups} groups: Σ first-vertex x ${g.sums[0]} ≠ Σ bbox.xmin ${b.sums[0]}`);
  }

  const ranges = only ? undefined : await rangeCheck();
  if (ranges) {
    const want = (id: string): number[] | undefined => results.find((r) => r.id === id)?.sums;
    if (JSON.stringify(ranges.sums['pw geometry 1']) !== JSON.stringify(want('geometry-1-hy-objects')))
      problems.push('HTTP: parquet-wasm geometry sums differ');
    if (JSON.stringify(ranges.sums['hy geometry 1']) !== JSON.stringify(want('geometry-1-hy-objects'))) problems.push('HTTP: hyparquet geometry sums differ');
    if (JSON.stringify(ranges.sums['pw bbox 10']) !== JSON.stringify(want('bbox-10-hy-objects'))) problems.push('HTTP: parquet-wasm bbox sums differ');
    if (JSON.stringify(ranges.sums['hy bbox 10']) !== JSON.stringify(want('bbox-10-hy-objects'))) problems.push('HTTP: hyparquet bbox sums differ');
  }

  // report
  const f = (ms: number): string => (ms < 10 ? ms.toFixed(2) : ms.toFixed(1));
  const mb = (b: number): string => (b / MiB).toFixed(1);
  const lines: string[] = [];
  lines.push(
    `Run ${started.toISOString()}: hyparquet ${hyVersion} + hyparquet-compressors, parquet-wasm ${pwVersion} + apache-arrow ${arrowVersion}, Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB; 1-min load average ${load0.toFixed(2)} at the start, ${load1.toFixed(2)} at the end.`,
  );
  lines.push(`${RUNS} timed runs after ${WARMUP} warm-ups per case, each case in its own process; parquet-wasm batchSize ${PW_BATCH ?? 'default (1024)'}.`);
  lines.push(
    'ratio = this case ÷ hyparquet parquetReadObjects (raw WKB for geometry) for the same columns and row groups, on the medians and on the minima; < 1 is faster.',
  );
  lines.push(
    'Memory, MiB, over the cold first call in a fresh process: peak RSS (VmHWM) − RSS before it; Δheap = heapUsed after − before, garbage included; retained = heapUsed / arrayBuffers after a GC with the result still held, − before; wasm = parquet-wasm linear memory at the end (it never shrinks).',
  );
  lines.push('');
  lines.push(
    '| columns | row groups | library / API | median ms | min ms | ratio (median) | ratio (min) | peak RSS − base | Δheap | heap retained | arrayBuffers retained | wasm memory |',
  );
  lines.push('|---|---|---|---|---|---|---|---|---|---|---|---|');
  const colName = (c: ColSet): string => (c === 'geometry' ? 'geometry (WKB)' : c === 'numeric' ? 'value + pop' : 'bbox (4 leaves)');
  for (const r of results) {
    const ref = results.find((x) => x.cols === r.cols && x.groups === r.groups && x.lib === 'hyparquet' && x.api === 'objects' && !x.geojson && !x.split);
    lines.push(
      `| ${colName(r.cols)} | ${r.groups} | ${r.label} | ${f(r.median)} | ${f(r.min)} | ${ref ? (r.median / ref.median).toFixed(2) : ''} | ${ref ? (r.min / ref.min).toFixed(2) : ''} | ${mb(r.mem.peakCold - r.mem.baseRss)} | ${mb(r.mem.heapUsed)} | ${mb(r.mem.heapRetained)} | ${mb(r.mem.arrayBuffersRetained)} | ${r.lib === 'parquet-wasm' ? mb(r.mem.wasmEnd) : '–'} |`,
    );
  }
  lines.push('');
  lines.push('Column chunk sizes read (MiB, compressed → uncompressed, from the footer):');
  lines.push('');
  lines.push('| columns | 1 row group | 10 row groups |');
  lines.push('|---|---|---|');
  for (const c of ['geometry', 'numeric', 'bbox'] as const) {
    const one = chunkBytes(c, GROUPS[1]!);
    const ten = chunkBytes(c, GROUPS[10]!);
    lines.push(`| ${colName(c)} | ${mb(one.compressed)} → ${mb(one.uncompressed)} | ${mb(ten.compressed)} → ${mb(ten.uncompressed)} |`);
  }
  if (ranges) {
    lines.push('');
    lines.push(`Byte ranges over loopback HTTP (file ${ranges.fileBytes} bytes):`);
    lines.push('');
    lines.push('| step | requests | bytes | ranges |');
    lines.push('|---|---|---|---|');
    for (const l of ranges.log) lines.push(`| ${l.what} | ${l.requests.length} | ${l.bytes} | ${l.requests.join('; ')} |`);
  }
  lines.push('');
  lines.push(
    problems.length
      ? `CHECKS FAILED:\n${problems.map((p) => `- ${p}`).join('\n')}`
      : 'Checks: every case returned the same sums as the others for its columns and row groups, and Σ first-vertex x = Σ bbox.xmin.',
  );
  const md = lines.join('\n');
  console.log(`\n${md}`);
  mkdirSync(OUT, { recursive: true });
  writeFileSync(join(OUT, 'parquet-decode.md'), md + '\n');
  writeFileSync(
    join(OUT, 'parquet-decode.json'),
    JSON.stringify({ started, load: [load0, load1], runs: RUNS, warmup: WARMUP, pwBatch: PW_BATCH ?? null, results, ranges, problems }, null, 1) + '\n',
  );
  if (problems.length) process.exitCode = 1;
}

if (process.argv[2] === '--case') await child(process.argv[3]!);
else await main();
