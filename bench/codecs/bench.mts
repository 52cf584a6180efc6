/**
 * Codec benchmark driver: decodes level 0 of each COG in bench/data/codecs/ three ways, in one run, and
 * reports the ratios. Run through `bash bench/codecs/run.sh`, which makes the data first; see README.md.
 *
 * - GDAL (gdal_decode.py --serve, one Python process kept up, GDAL_NUM_THREADS=1, GDAL_CACHEMAX=16 MB):
 *   ReadAsArray() of every band, timed after open (1 warm-up read, then RUNS reads).
 * - the service: each run opens the file with openRaster(MemorySource) for the header (timed apart, as
 *   GDAL's open is not in its time), then decodes every block as a worker does: readBlocks → decodeBlock
 *   (decompress → toSamples; output buffers recycled), one at a time on the main thread
 *   (UV_THREADPOOL_SIZE=1 from run.sh). LZW and PackBits go through the project's own decoders
 *   (src/raster/codecs/lzw.ts, packbits.ts), DEFLATE through libdeflate where it is built. Warm-up runs for
 *   WARMUP_MS, then RUNS timed runs.
 * - geotiff.js (npm `geotiff`, the decoders the previous version used), for information: fromArrayBuffer →
 *   getImage → readRasters(), timed from the file's bytes in memory, first round only; "fails" when it throws.
 * ROUNDS rounds; each round takes every file in turn, GDAL then the service, so both sides of a file are
 * timed within seconds of each other (the machine may be shared). Medians over ROUNDS × RUNS runs. In the
 * first round an untimed pass of the service (and of geotiff.js) assembles the bands and checks them against
 * GDAL's: per-band sums (and float32 bit-pattern sums) for lossless files, max |difference| per band for
 * lossy ones.
 *
 * Writes bench/out/codecs.json and bench/out/codecs.md. Environment: BENCH_ROUNDS (3), BENCH_RUNS (5),
 * BENCH_WARMUP_MS (300), BENCH_ONLY (comma-separated file names without .tif), BENCH_PYTHON (/usr/bin/python3).
 */
import { execFileSync, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fromArrayBuffer } from 'geotiff';
import { MemorySource } from '../../src/source/memory.ts';
import { openRaster, type CogReader } from '../../src/raster/reader.ts';
import { decodeBlock, recycle } from '../../src/raster/decode.ts';
import { type SampleArray } from '../../src/raster/samples.ts';
import { preloadImageCodecs } from '../../src/raster/codecs/image.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DATA = join(ROOT, 'bench', 'data', 'codecs');
const OUT = join(ROOT, 'bench', 'out');
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const RUNS = Number(process.env['BENCH_RUNS'] ?? 5);
const WARMUP_MS = Number(process.env['BENCH_WARMUP_MS'] ?? 300);
const ONLY = process.env['BENCH_ONLY']?.split(',').filter((s) => s !== '');
const PY = process.env['BENCH_PYTHON'] ?? '/usr/bin/python3';
/** Files whose compression is lossy: compared pixel by pixel, not by sums. */
const LOSSY = new Set(['rgb_jpeg_q90', 'rgb_webp_q90']);
/** Table order: the order make-data.py writes them in. */
const ORDER = [
  'int16_deflate_p2',
  'int16_lzw_p2',
  'int16_zstd_p2',
  'int16_lzma',
  'int16_packbits',
  'int16_none',
  'int16_lerc',
  'int16_lerc_zstd',
  'float32_deflate_p3',
  'float32_zstd_p3',
  'rgb_jpeg_q90',
  'rgb_webp_q90',
  'rgb_webp_lossless',
  'byte_nbits4_deflate',
];

interface GdalBand {
  sum: number;
  bits_sum?: number;
}
/** One answer of gdal_decode.py --serve: the runs, and the band sums when asked for (the first round). */
interface GdalResult {
  runs_ms: number[];
  gdal: string;
  dtype?: string;
  shape?: number[];
  bands?: GdalBand[];
}
type Bands = SampleArray[];

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/**
 * Warm-up: runs until WARMUP_MS have passed (at least one), so that a file decoded in a few milliseconds is
 * timed with optimized code (a server runs hot; one 3 ms warm-up left V8 half-way through tiering up).
 */
async function warmUp(fn: () => Promise<unknown>): Promise<void> {
  const t0 = performance.now();
  do await fn();
  while (performance.now() - t0 < WARMUP_MS);
}

async function timed(fn: () => Promise<unknown>): Promise<number[]> {
  await warmUp(fn);
  const runs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await fn();
    runs.push(performance.now() - t0);
  }
  return runs;
}

const openService = (bytes: Uint8Array, name: string): Promise<CogReader> => openRaster(new MemorySource(bytes, `file:///bench/${name}.tif`));

/** The service's runs: each opens the file (the header, timed apart) then decodes every tile (timed). */
async function timedService(bytes: Uint8Array, name: string): Promise<{ runs: number[]; open: number[] }> {
  const runs: number[] = [];
  const open: number[] = [];
  await warmUp(async () => serviceDecode(await openService(bytes, name), false));
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const reader = await openService(bytes, name);
    const t1 = performance.now();
    await serviceDecode(reader, false);
    open.push(t1 - t0);
    runs.push(performance.now() - t1);
  }
  return { runs, open };
}

/**
 * The service's path, as a worker decodes a block: every block of level 0 read (reader.readBlocks), decoded
 * (decode.ts decodeBlock: decompress → toSamples, the output buffers taken from and given back to the
 * thread's spares with recycle(), as the fold does), one at a time; with `assemble`, copied into one array
 * per band for the check.
 */
async function serviceDecode(reader: CogReader, assemble: boolean): Promise<Bands | number> {
  const level = reader.info.levels[0]!;
  const { ifd, grid } = level;
  const across = Math.ceil(grid.width / ifd.tileWidth);
  const down = Math.ceil(grid.height / ifd.tileHeight);
  const bands = [...Array(reader.info.bandCount).keys()].map((b) => b + 1);
  const format = reader.blockFormat(level, bands);
  const out: Bands = [];
  let samples = 0;
  for (let index = 0; index < across * down; index++) {
    const [encoded] = await reader.readBlocks(level, [index], bands);
    const block = await decodeBlock(format, encoded!, false);
    const { window } = block;
    block.bands.forEach((s, b) => {
      if (s.values === null) return;
      samples += s.values.length;
      if (!assemble) return;
      const ctor = s.values.constructor as new (n: number) => SampleArray;
      const dst = (out[b] ??= new ctor(grid.width * grid.height));
      for (let r = 0; r < window.height; r++) {
        const base = (window.row0 + r) * grid.width + window.col0;
        for (let c = 0; c < window.width; c++) dst[base + c] = s.values[r * s.rowStride + c * s.step + s.offset]!;
      }
    });
    recycle(block);
  }
  return assemble ? out : samples;
}

/** geotiff.js on its own: its header parsing, its decoders, its mosaicking into one array per band. */
async function geotiffDecode(buffer: ArrayBuffer): Promise<Bands> {
  const tiff = await fromArrayBuffer(buffer);
  const image = await tiff.getImage();
  const rasters = await image.readRasters();
  return Array.from(rasters as unknown as ArrayLike<SampleArray>);
}

interface Check {
  ok: boolean;
  text: string;
}

/** Sums of a band: values (exact for integers) and, for float32, the bit patterns as integers. */
function sums(a: SampleArray): { sum: number; bits_sum?: number } {
  let sum = 0;
  let comp = 0; // Neumaier: close to exact for floats (the exact test is bits_sum)
  for (let i = 0; i < a.length; i++) {
    const v = Number(a[i]);
    const t = sum + v;
    comp += Math.abs(sum) >= Math.abs(v) ? sum - t + v : v - t + sum;
    sum = t;
  }
  if (!(a instanceof Float32Array)) return { sum: sum + comp };
  const bits = new Uint32Array(a.buffer, a.byteOffset, a.length);
  let big = 0n;
  for (let i = 0; i < bits.length; i += 65536) {
    let part = 0;
    for (let j = i; j < Math.min(i + 65536, bits.length); j++) part += bits[j]!;
    big += BigInt(part);
  }
  return { sum: sum + comp, bits_sum: Number(big) };
}

function check(name: string, bands: Bands, want: GdalResult): Check {
  const wanted = want.bands ?? [];
  if (bands.length !== wanted.length) return { ok: false, text: `${bands.length} bands, GDAL ${wanted.length}` };
  if (LOSSY.has(name)) {
    const gdal = new Uint8Array(readFileSync(join(DATA, `${name}.gdal.bin`)));
    const n = bands[0]!.length;
    const worst: number[] = [];
    let differ = 0;
    bands.forEach((band, b) => {
      let w = 0;
      for (let i = 0; i < n; i++) {
        const d = Math.abs(Number(band[i]) - gdal[b * n + i]!);
        if (d > 0) differ++;
        if (d > w) w = d;
      }
      worst.push(w);
    });
    const ok = worst.every((w) => w === 0);
    return { ok, text: `max abs diff ${worst.join('/')}${differ ? ` (${differ} samples differ)` : ''}` };
  }
  const bad: string[] = [];
  bands.forEach((band, b) => {
    const got = sums(band);
    const exp = wanted[b]!;
    const same = exp.bits_sum !== undefined ? got.bits_sum === exp.bits_sum : got.sum === exp.sum;
    if (!same) bad.push(`band ${b + 1}: sum ${got.sum} vs GDAL ${exp.sum}`);
  });
  return bad.length ? { ok: false, text: bad.join('; ') } : { ok: true, text: 'sums equal' };
}

// --- run ---
const loadStart = loadavg()[0]!;
await preloadImageCodecs();
const names = readdirSync(DATA)
  .filter((f) => f.endsWith('.tif'))
  .map((f) => f.slice(0, -4))
  .filter((n) => !ONLY || ONLY.includes(n))
  .sort((a, b) => (ORDER.indexOf(a) + 1 || 99) - (ORDER.indexOf(b) + 1 || 99));
if (names.length === 0) throw new Error(`no files in ${DATA}: run bench/codecs/make-data.py`);

// GDAL stays up (gdal_decode.py --serve) and each round times every file on both sides in turn, so that GDAL's
// runs of a file and the service's are minutes apart at most, not a whole table: the machine is shared.
const gdalProc = spawn(PY, [join(ROOT, 'bench', 'codecs', 'gdal_decode.py'), '--serve', '--dump', DATA, '--lossy', [...LOSSY].join(',')], {
  env: { ...process.env, GDAL_NUM_THREADS: '1', GDAL_CACHEMAX: '16' },
  stdio: ['pipe', 'pipe', 'inherit'],
});
const gdalLines = createInterface({ input: gdalProc.stdout })[Symbol.asyncIterator]();
async function gdalMeasure(name: string, stats: boolean): Promise<GdalResult> {
  gdalProc.stdin.write(`${JSON.stringify({ path: join(DATA, `${name}.tif`), runs: RUNS, stats })}\n`);
  const next = await gdalLines.next();
  if (next.done === true) throw new Error('gdal_decode.py ended early');
  return JSON.parse(next.value as string) as GdalResult;
}

interface Row {
  name: string;
  mb: number;
  pixels: number;
  bands: number;
  gdal_ms: number;
  gdal_runs: number[];
  geotiff_ms: number | null;
  geotiff_runs: number[] | null;
  geotiff_error: string | null;
  geotiff_check: Check | null;
  service_ms: number | null;
  service_runs: number[] | null;
  service_error: string | null;
  service_check: Check | null;
  /** The service's header (openRaster), timed apart: GDAL's open is not in its time either. */
  service_open_ms: number | null;
  service_open_runs: number[] | null;
}
const rows: Row[] = [];
let gdalVersion = '';
console.error(`${names.length} files, ${ROUNDS} rounds of ${RUNS} runs a side`);
for (let round = 0; round < ROUNDS; round++) {
  for (const [k, name] of names.entries()) {
    const file = readFileSync(join(DATA, `${name}.tif`));
    const bytes = new Uint8Array(file.buffer, file.byteOffset, file.byteLength);
    const g = await gdalMeasure(name, round === 0);
    gdalVersion = g.gdal;
    if (round === 0) {
      const row: Row = {
        name,
        mb: statSync(join(DATA, `${name}.tif`)).size / 1e6,
        pixels: g.shape![1]! * g.shape![2]!,
        bands: g.shape![0]!,
        gdal_ms: 0,
        gdal_runs: [],
        geotiff_ms: null,
        geotiff_runs: null,
        geotiff_error: null,
        geotiff_check: null,
        service_ms: null,
        service_runs: [],
        service_error: null,
        service_check: null,
        service_open_ms: null,
        service_open_runs: [],
      };
      rows.push(row);
      // geotiff.js, for information only (the previous version's decoders): the first round only.
      const buffer = file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength) as ArrayBuffer;
      try {
        row.geotiff_runs = await timed(() => geotiffDecode(buffer));
        row.geotiff_ms = median(row.geotiff_runs);
        row.geotiff_check = check(name, await geotiffDecode(buffer), g);
      } catch (e) {
        row.geotiff_error = (e as Error).message.split('\n')[0]!.slice(0, 120);
      }
    }
    const row = rows[k]!;
    row.gdal_runs.push(...g.runs_ms);
    if (row.service_error !== null) continue;
    try {
      const service = await timedService(bytes, name);
      row.service_runs!.push(...service.runs);
      row.service_open_runs!.push(...service.open);
      if (round === 0) row.service_check = check(name, (await serviceDecode(await openService(bytes, name), true)) as Bands, g);
    } catch (e) {
      row.service_error = (e as Error).message.split('\n')[0]!.slice(0, 120);
    }
  }
  console.error(`round ${round + 1}/${ROUNDS} done`);
}
gdalProc.stdin.end();
for (const row of rows) {
  row.gdal_ms = median(row.gdal_runs);
  if (row.service_error === null) {
    row.service_ms = median(row.service_runs!);
    row.service_open_ms = median(row.service_open_runs!);
  }
  console.error(
    `${row.name}: GDAL ${row.gdal_ms.toFixed(1)} ms, geotiff.js ${row.geotiff_ms?.toFixed(1) ?? 'fails'}, ` +
      `service ${row.service_ms?.toFixed(1) ?? 'fails'} ms — ${row.service_check?.text ?? row.service_error}`,
  );
}

// --- report ---
const f1 = (x: number): string => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
const ratio = (a: number | null, b: number | null): string => (a === null || b === null ? '—' : `${(a / b).toFixed(2)}×`);
const lines = [
  '| file | MB | GDAL ms | geotiff.js ms | service ms | service / GDAL | fastest runs: service / GDAL | service / geotiff.js | service Mpx/s ' +
    '| service open ms | service = GDAL? |',
  '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  ...rows
    .map((r) =>
      [
        `\`${r.name}\``,
        r.mb.toFixed(2),
        f1(r.gdal_ms),
        r.geotiff_ms === null ? 'fails' : f1(r.geotiff_ms),
        r.service_ms === null ? 'fails' : f1(r.service_ms),
        ratio(r.service_ms, r.gdal_ms),
        r.service_ms === null ? '—' : ratio(Math.min(...r.service_runs!), Math.min(...r.gdal_runs)),
        ratio(r.service_ms, r.geotiff_ms),
        r.service_ms === null ? '—' : (r.pixels / 1e3 / r.service_ms).toFixed(0),
        r.service_open_ms === null ? '—' : r.service_open_ms.toFixed(2),
        r.service_error ? `**FAILS: ${r.service_error}**` : r.service_check!.ok ? r.service_check!.text : `**MISMATCH: ${r.service_check!.text}**`,
      ].join(' | '),
    )
    .map((l) => `| ${l} |`),
];
const mismatches = rows.filter((r) => r.service_error || (r.service_check && !r.service_check.ok && !LOSSY.has(r.name)));
const geotiffNotes = rows
  .filter((r) => r.geotiff_error || (r.geotiff_check && !r.geotiff_check.ok))
  .map((r) => `- geotiff.js on \`${r.name}\`: ${r.geotiff_error ? `fails (${r.geotiff_error})` : r.geotiff_check!.text}`);
const table = lines.join('\n');
const cpu = cpus()[0]?.model ?? 'unknown CPU';
let commit = 'unknown';
try {
  commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] })
    .toString()
    .trim();
} catch {
  /* not a checkout */
}
const load = [loadStart, loadavg()[0]!].map((x) => x.toFixed(1));
const meta = {
  date: new Date().toISOString(),
  commit,
  node: process.version,
  gdal: gdalVersion,
  cpu,
  cores: cpus().length,
  rounds: ROUNDS,
  runs: RUNS,
  load_1min: load,
};
mkdirSync(OUT, { recursive: true });
writeFileSync(join(OUT, 'codecs.json'), `${JSON.stringify({ ...meta, rows }, null, 2)}\n`);
const md =
  `${table}\n\n${geotiffNotes.join('\n')}\n\nNode ${meta.node}, GDAL ${meta.gdal}, ${cpu} (${meta.cores} cores), median of ${ROUNDS} × ${RUNS} runs ` +
  `(the service after ${WARMUP_MS} ms of warm-up a round; geotiff.js ${RUNS} runs, first round); commit ${commit}; ` +
  `1-minute load average ${load[0]} at start, ${load[1]} at end.\n`;
writeFileSync(join(OUT, 'codecs.md'), md);
console.log(md);
if (mismatches.length) {
  console.log(`!!! ${mismatches.length} LOSSLESS FILE(S) WHERE THE SERVICE DOES NOT MATCH GDAL: ${mismatches.map((r) => r.name).join(', ')} !!!`);
  process.exitCode = 1;
}
