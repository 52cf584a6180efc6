/**
 * The Sentinel-2 tile (issue 21): what decoding one 1024 × 1024 UInt16 DEFLATE + predictor-2 tile costs,
 * single-threaded, the service against GDAL's ReadBlock. Run through `bash bench/codecs/run.sh` (after the
 * per-file table), or alone: `node --import tsx bench/codecs/s2.mts`; see README.md ("The Sentinel-2 tile").
 *
 * Tiles: TILES (9 whole tiles) of bench/data/s2_B04.tif (bench/lib/s2_data.py: 10980² UInt16, 1024² tiles,
 * DEFLATE, PREDICTOR=2, ~2.2:1, the layout of the public L2A COGs). The file is read into memory once;
 * each tile's compressed bytes are read once (reader.readBlocks), then only decoding is timed.
 *
 * ROUNDS rounds, each: GDAL (gdal_s2.py in its own process: ReadBlock, GDAL_NUM_THREADS=1, the dataset
 * reopened each pass), then every measurement of the service; each measurement is 1 warm-up pass over
 * the tiles and PASSES timed passes. Alternating rounds spreads a shared machine's load over both sides.
 * Reported: the median ms per tile over ROUNDS × PASSES × 9 tiles (and the lower quartile).
 *
 * The service, as a worker decodes a block (src/raster/decode.ts decodeBlock, keep = false, the plane's
 * buffer given back with recycle() as the fold does), with libdeflate and with node:zlib
 * (useInflateBackend); its phases alone: inflate (codecs/deflate.ts inflate) and predictor + sample view
 * (samples.ts toSamples on a copy of the inflated bytes); and the prefix decode: decodeBlock on the
 * span {row0: 0, row1, col1: 1024} for 10, 25, 50, 75 and 100 % of the rows (and inflate alone to the
 * same bytes). Checked once, untimed: every decode's samples equal GDAL's ReadBlock array (whole tile; the
 * prefix rows for prefix decodes). Exit code 1 on a mismatch.
 *
 * Writes bench/out/codecs-s2.json and .md. Environment: BENCH_S2_ROUNDS (5), BENCH_S2_PASSES (3),
 * BENCH_PYTHON (/usr/bin/python3), BENCH_S2_FILE (bench/data/s2_B04.tif).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemorySource } from '../../src/source/memory.ts';
import { openRaster } from '../../src/raster/reader.ts';
import { decodeBlock, recycle, type BlockSpan, type EncodedBlock } from '../../src/raster/decode.ts';
import { inflate, inflateBackend, useInflateBackend, type InflateBackend } from '../../src/codecs/deflate.ts';
import { toSamples } from '../../src/raster/samples.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FILE = process.env['BENCH_S2_FILE'] ?? join(ROOT, 'bench', 'data', 's2_B04.tif');
const OUT = join(ROOT, 'bench', 'out');
const ROUNDS = Number(process.env['BENCH_S2_ROUNDS'] ?? 5);
const PASSES = Number(process.env['BENCH_S2_PASSES'] ?? 3);
const PY = process.env['BENCH_PYTHON'] ?? '/usr/bin/python3';
/** Nine whole tiles spread over the 11 × 11 grid (column 10 and row 10 are the partial edge tiles). */
const TILES: [number, number][] = [
  [1, 1],
  [5, 1],
  [9, 1],
  [1, 5],
  [5, 5],
  [9, 5],
  [1, 9],
  [5, 9],
  [9, 9],
];
const FRACTIONS = [0.1, 0.25, 0.5, 0.75, 1];

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const quartile = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 4)]!;

// --- the tiles ---
const loadStart = loadavg()[0]!;
const file = readFileSync(FILE);
const reader = await openRaster(new MemorySource(file, 'file:///bench/s2_B04.tif'));
const level = reader.info.levels[0]!;
const { codec } = level.ifd;
const format = reader.blockFormat(level, [1]);
const across = Math.ceil(level.grid.width / level.ifd.tileWidth);
if (codec.compression !== 8 && codec.compression !== 32946) throw new Error(`${FILE}: not DEFLATE`);
if (codec.tileWidth !== 1024 || codec.tileHeight !== 1024 || codec.bitsPerSample[0] !== 16 || codec.predictor !== 2) {
  throw new Error(`${FILE}: expected 1024 × 1024 UInt16 tiles with predictor 2`);
}
const blocks: EncodedBlock[] = await reader.readBlocks(
  level,
  TILES.map(([tx, ty]) => ty * across + tx),
  [1],
);
const compressed = blocks.map((b) => new Uint8Array(b.planes[0]!));
const SIZE = 1024 * 1024 * 2;
const ROWS = 1024;
const spanOf = (f: number): BlockSpan => ({ row0: 0, row1: Math.round(ROWS * f), col1: 1024 });

/** One output buffer for inflate alone (as the worker's spare buffers are reused). */
let scratch = new ArrayBuffer(0);
const reuse = (n: number, most: number): Uint8Array => {
  if (scratch.byteLength < most) scratch = new ArrayBuffer(most);
  return new Uint8Array(scratch, 0, n);
};
/** The inflated bytes of each tile (the predictor's input), and a buffer to undo the predictor on. */
const inflated = compressed.map((c) => inflate(c, SIZE, SIZE, 'libdeflate', (n) => new Uint8Array(n)).slice());
const work = new Uint8Array(SIZE);

// --- the measurements: each returns ms for tile k ---
type Measure = (k: number) => Promise<number> | number;
async function service(k: number, backend: InflateBackend, need?: BlockSpan): Promise<number> {
  useInflateBackend(backend);
  const t0 = performance.now();
  const block = await decodeBlock(format, blocks[k]!, false, need);
  const ms = performance.now() - t0;
  recycle(block);
  return ms;
}
function inflateOnly(k: number, backend: InflateBackend, need = SIZE): number {
  const t0 = performance.now();
  inflate(compressed[k]!, SIZE, need, backend, reuse);
  return performance.now() - t0;
}
function predictorOnly(k: number): number {
  work.set(inflated[k]!);
  const t0 = performance.now();
  toSamples(codec, { bytes: work, native: false }, ROWS);
  return performance.now() - t0;
}
const MEASURES: Record<string, Measure> = {
  'service libdeflate': (k) => service(k, 'libdeflate'),
  'service node:zlib': (k) => service(k, 'node:zlib'),
  'inflate libdeflate': (k) => inflateOnly(k, 'libdeflate'),
  'inflate node:zlib': (k) => inflateOnly(k, 'node:zlib'),
  'predictor + samples': predictorOnly,
};
for (const f of FRACTIONS) {
  MEASURES[`prefix ${f * 100}% service libdeflate`] = (k) => service(k, 'libdeflate', spanOf(f));
  MEASURES[`prefix ${f * 100}% inflate libdeflate`] = (k) => inflateOnly(k, 'libdeflate', spanOf(f).row1 * 2048);
  MEASURES[`prefix ${f * 100}% service node:zlib`] = (k) => service(k, 'node:zlib', spanOf(f));
}
const before = inflateBackend().backend;
if (before !== 'libdeflate') throw new Error(`libdeflate is not loaded (${inflateBackend().reason}): node scripts/build-native.mjs`);

const samples: Record<string, number[]> = { 'GDAL ReadBlock': [] };
for (const name of Object.keys(MEASURES)) samples[name] = [];
const tilesArg = TILES.map(([x, y]) => `${x},${y}`).join(';');
const dump = join(OUT, 'codecs-s2.gdal.bin');
mkdirSync(OUT, { recursive: true });
let gdalVersion = '';
for (let round = 0; round < ROUNDS; round++) {
  const args = [join(ROOT, 'bench', 'codecs', 'gdal_s2.py'), '--runs', String(PASSES), '--tiles', tilesArg, ...(round === 0 ? ['--dump', dump] : []), FILE];
  const g = JSON.parse(
    execFileSync(PY, args, { env: { ...process.env, GDAL_NUM_THREADS: '1', GDAL_CACHEMAX: '16' }, stdio: ['ignore', 'pipe', 'inherit'] }).toString(),
  ) as { gdal: string; runs_ms: number[][] };
  gdalVersion = g.gdal;
  samples['GDAL ReadBlock']!.push(...g.runs_ms.flat());
  for (const [name, measure] of Object.entries(MEASURES)) {
    for (let pass = -1; pass < PASSES; pass++) {
      for (let k = 0; k < TILES.length; k++) {
        const ms = await measure(k);
        if (pass >= 0) samples[name]!.push(ms);
      }
    }
  }
  const m = (name: string): string => median(samples[name]!).toFixed(2);
  console.error(
    `round ${round + 1}/${ROUNDS}: GDAL ${m('GDAL ReadBlock')} ms, service libdeflate ${m('service libdeflate')}, ` +
      `node:zlib ${m('service node:zlib')} (medians so far)`,
  );
}
useInflateBackend('libdeflate');

// --- the check: every decode's samples against GDAL's ReadBlock arrays ---
const gdalTiles = new Uint16Array(readFileSync(dump).buffer.slice(0));
rmSync(dump);
const problems: string[] = [];
for (const backend of ['libdeflate', 'node:zlib'] as const) {
  for (const f of FRACTIONS) {
    useInflateBackend(backend);
    for (let k = 0; k < TILES.length; k++) {
      const span = spanOf(f);
      const block = await decodeBlock(format, blocks[k]!, false, span);
      const got = block.bands[0]!.values as Uint16Array;
      const want = gdalTiles.subarray(k * 1024 * 1024, k * 1024 * 1024 + span.row1 * 1024);
      let differ = 0;
      for (let i = 0; i < want.length; i++) if (got[i] !== want[i]) differ++;
      if (differ) problems.push(`${backend}, tile ${TILES[k]!.join(',')}, rows 0..${span.row1}: ${differ} samples differ`);
      recycle(block);
    }
  }
}
useInflateBackend('libdeflate');
const checkText =
  problems.length === 0
    ? `equal to GDAL's ReadBlock on all ${TILES.length} tiles: whole tiles and the first 10/25/50/75 % of the rows, libdeflate and node:zlib`
    : `**MISMATCH**: ${problems.slice(0, 5).join('; ')}`;

// --- report ---
const med = (name: string): number => median(samples[name]!);
const gdalMs = med('GDAL ReadBlock');
const row = (what: string, name: string, vs = true): string =>
  `| ${what} | ${med(name).toFixed(2)} | ${quartile(samples[name]!).toFixed(2)} | ${vs ? `${(med(name) / gdalMs).toFixed(2)}×` : '—'} |`;
const whole = med('prefix 100% service libdeflate');
// Least squares ms = a + b × share of the rows, over the five prefixes: a is the fixed cost per tile.
const fit = (prefix: string): { a: number; b: number; worst: number } => {
  const ys = FRACTIONS.map((f) => med(`prefix ${f * 100}% ${prefix}`));
  const mx = FRACTIONS.reduce((s, x) => s + x, 0) / FRACTIONS.length;
  const my = ys.reduce((s, y) => s + y, 0) / ys.length;
  const b = FRACTIONS.reduce((s, x, i) => s + (x - mx) * (ys[i]! - my), 0) / FRACTIONS.reduce((s, x) => s + (x - mx) ** 2, 0);
  const a = my - b * mx;
  return { a, b, worst: Math.max(...FRACTIONS.map((x, i) => Math.abs(ys[i]! - (a + b * x)))) };
};
const lines = [
  `| ${TILES.length} tiles × ${ROUNDS * PASSES} passes, ms per tile | median | lower quartile | / GDAL |`,
  '|---|---:|---:|---:|',
  row('GDAL `ReadBlock` (read + inflate + predictor)', 'GDAL ReadBlock', false),
  row('**service, libdeflate** (`decodeBlock`: inflate + predictor)', 'service libdeflate'),
  row('service, node:zlib (`decodeBlock`)', 'service node:zlib'),
  row('inflate alone, libdeflate', 'inflate libdeflate'),
  row('inflate alone, node:zlib', 'inflate node:zlib'),
  row('predictor 2 + sample view alone (`toSamples`)', 'predictor + samples'),
  '',
  '| rows decoded | service libdeflate ms | share of the whole tile | inflate alone, libdeflate ms | service node:zlib ms |',
  '|---|---:|---:|---:|---:|',
  ...FRACTIONS.map((f) => {
    const p = (what: string): number => med(`prefix ${f * 100}% ${what}`);
    const cells = [
      p('service libdeflate').toFixed(2),
      `${((100 * p('service libdeflate')) / whole).toFixed(0)} %`,
      p('inflate libdeflate').toFixed(2),
      p('service node:zlib').toFixed(2),
    ];
    return `| first ${f * 100} % (${spanOf(f).row1} rows) | ${cells.join(' | ')} |`;
  }),
];
const fits = (['service libdeflate', 'inflate libdeflate', 'service node:zlib'] as const).map((p) => {
  const { a, b, worst } = fit(p);
  return `${p}: ${a.toFixed(2)} + ${b.toFixed(2)} × share of rows (ms), worst deviation ${worst.toFixed(2)} ms`;
});
let commit = 'unknown';
try {
  commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] })
    .toString()
    .trim();
} catch {
  /* not a checkout */
}
const load = [loadStart, loadavg()[0]!].map((x) => x.toFixed(1));
const cpu = cpus()[0]?.model ?? 'unknown CPU';
const meta = {
  date: new Date().toISOString(),
  commit,
  node: process.version,
  gdal: gdalVersion,
  cpu,
  cores: cpus().length,
  rounds: ROUNDS,
  passes: PASSES,
  load_1min: load,
};
const compressedBytes = compressed.reduce((s, c) => s + c.length, 0) / compressed.length;
const md =
  `${lines.join('\n')}\n\nLinear fits over the prefixes: ${fits.join('; ')}.\n\nCheck: ${checkText}.\n\n` +
  `Tiles ${TILES.map((t) => t.join(',')).join(' ')} of ${FILE.replace(ROOT, '')} (mean ${(compressedBytes / 1e3).toFixed(0)} KB compressed, ` +
  `${(SIZE / compressedBytes).toFixed(2)}:1). Node ${meta.node}, GDAL ${gdalVersion}, ${cpu} (${meta.cores} cores); ` +
  `commit ${commit}; 1-minute load average ${load[0]} at start, ${load[1]} at end.\n`;
const medians = Object.fromEntries(Object.keys(samples).map((k) => [k, med(k)]));
writeFileSync(join(OUT, 'codecs-s2.json'), `${JSON.stringify({ ...meta, tiles: TILES, medians, samples, problems }, null, 2)}\n`);
writeFileSync(join(OUT, 'codecs-s2.md'), md);
console.log(md);
if (problems.length) {
  console.log(`!!! THE SERVICE'S SAMPLES DIFFER FROM GDAL'S ON ${problems.length} DECODE(S) !!!`);
  process.exitCode = 1;
}
