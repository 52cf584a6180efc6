/**
 * Codec benchmark driver: decodes level 0 of each COG in bench/data/codecs/ three ways, in one run, and
 * reports the ratios. Run through `bash bench/codecs/run.sh`, which makes the data first; see README.md.
 *
 * - GDAL (gdal_decode.py, one Python process, GDAL_NUM_THREADS=1, GDAL_CACHEMAX=16 MB): ReadAsArray() of
 *   every band, timed after open.
 * - geotiff.js (npm `geotiff`, the decoders the previous version used): fromArrayBuffer → getImage →
 *   readRasters(), timed from the file's bytes in memory; "fails" when it throws.
 * - the service: openRaster(MemorySource) for the header, then every tile: readTile → decompress →
 *   toSamples, one at a time on the main thread (UV_THREADPOOL_SIZE=1 from run.sh).
 * Each: 1 warm-up, then RUNS timed runs, median reported. Then one untimed pass of the service (and of
 * geotiff.js) assembles the bands and checks them against GDAL's: per-band sums (and float32 bit-pattern
 * sums) for lossless files, max |difference| per band for lossy ones.
 *
 * Writes bench/out/codecs.json and bench/out/codecs.md. Environment: BENCH_RUNS (5), BENCH_ONLY
 * (comma-separated file names without .tif), BENCH_PYTHON (/usr/bin/python3).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fromArrayBuffer } from 'geotiff';
import { MemorySource } from '../../src/source/memory.ts';
import { openRaster } from '../../src/raster/reader.ts';
import { decompress } from '../../src/raster/codecs/index.ts';
import { toSamples, type SampleArray } from '../../src/raster/samples.ts';
import { preloadImageCodecs } from '../../src/raster/codecs/image.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DATA = join(ROOT, 'bench', 'data', 'codecs');
const OUT = join(ROOT, 'bench', 'out');
const RUNS = Number(process.env['BENCH_RUNS'] ?? 5);
const ONLY = process.env['BENCH_ONLY']?.split(',').filter((s) => s !== '');
const PY = process.env['BENCH_PYTHON'] ?? '/usr/bin/python3';
/** Files whose compression is lossy: compared pixel by pixel, not by sums. */
const LOSSY = new Set(['rgb_jpeg_q90', 'rgb_webp_q90']);
/** Table order: the order make-data.py writes them in. */
const ORDER = [
  'int16_deflate_p2', 'int16_lzw_p2', 'int16_zstd_p2', 'int16_lzma', 'int16_packbits', 'int16_none', 'int16_lerc',
  'int16_lerc_zstd', 'float32_deflate_p3', 'float32_zstd_p3', 'rgb_jpeg_q90', 'rgb_webp_q90', 'rgb_webp_lossless',
  'byte_nbits4_deflate',
];

interface GdalBand { sum: number; bits_sum?: number }
interface GdalResult { runs_ms: number[]; dtype: string; shape: number[]; bands: GdalBand[]; gdal: string }
type Bands = SampleArray[];

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function timed(fn: () => Promise<unknown>): Promise<number[]> {
  await fn(); // warm-up
  const runs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await fn();
    runs.push(performance.now() - t0);
  }
  return runs;
}

/** The service's path: header, then every tile of level 0 read, decompressed and turned into samples. */
async function serviceDecode(bytes: Uint8Array, name: string, assemble: boolean): Promise<Bands | number> {
  const reader = await openRaster(new MemorySource(bytes, `file:///bench/${name}.tif`));
  const level = reader.info.levels[0]!;
  const { ifd, grid } = level;
  const { codec } = ifd;
  const across = Math.ceil(grid.width / ifd.tileWidth);
  const down = Math.ceil(grid.height / ifd.tileHeight);
  const bands = reader.info.bandCount;
  const planar = codec.planarConfiguration === 2;
  const spp = planar ? 1 : codec.samplesPerPixel;
  const out: Bands = [];
  let samples = 0;
  for (let ty = 0; ty < down; ty++) {
    for (let tx = 0; tx < across; tx++) {
      const index = ty * across + tx;
      const rows = Math.min(ifd.tileHeight, grid.height - ty * ifd.tileHeight);
      const cols = Math.min(ifd.tileWidth, grid.width - tx * ifd.tileWidth);
      for (let plane = 0; plane < (planar ? bands : 1); plane++) {
        const tile = await reader.readTile(ifd, planar ? plane * across * down + index : index);
        if (!tile) continue;
        const { array } = toSamples(codec, await decompress(codec, tile), rows);
        samples += array.length;
        if (!assemble) continue;
        for (const band of planar ? [plane] : [...Array(bands).keys()]) {
          const ctor = array.constructor as new (n: number) => SampleArray;
          const dst = (out[band] ??= new ctor(grid.width * grid.height));
          for (let r = 0; r < rows; r++) {
            const base = (ty * ifd.tileHeight + r) * grid.width + tx * ifd.tileWidth;
            for (let c = 0; c < cols; c++) dst[base + c] = array[(r * ifd.tileWidth + c) * spp + (planar ? 0 : band)]!;
          }
        }
      }
    }
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

interface Check { ok: boolean; text: string }

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
  if (bands.length !== want.bands.length) return { ok: false, text: `${bands.length} bands, GDAL ${want.bands.length}` };
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
    const exp = want.bands[b]!;
    const same = exp.bits_sum !== undefined ? got.bits_sum === exp.bits_sum : got.sum === exp.sum;
    if (!same) bad.push(`band ${b + 1}: sum ${got.sum} vs GDAL ${exp.sum}`);
  });
  return bad.length ? { ok: false, text: bad.join('; ') } : { ok: true, text: 'sums equal' };
}

// --- run ---
const loadStart = loadavg()[0]!;
await preloadImageCodecs();
const names = readdirSync(DATA).filter((f) => f.endsWith('.tif')).map((f) => f.slice(0, -4))
  .filter((n) => !ONLY || ONLY.includes(n))
  .sort((a, b) => (ORDER.indexOf(a) + 1 || 99) - (ORDER.indexOf(b) + 1 || 99));
if (names.length === 0) throw new Error(`no files in ${DATA}: run bench/codecs/make-data.py`);

console.error(`GDAL: ${names.length} files, ${RUNS} runs each`);
const gdalOut = execFileSync(PY, [join(ROOT, 'bench', 'codecs', 'gdal_decode.py'), '--runs', String(RUNS), '--dump', DATA,
  '--lossy', [...LOSSY].join(','), ...names.map((n) => join(DATA, `${n}.tif`))],
{ env: { ...process.env, GDAL_NUM_THREADS: '1', GDAL_CACHEMAX: '16' }, stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 24 });
const gdal = JSON.parse(gdalOut.toString()) as Record<string, GdalResult>;

interface Row {
  name: string; mb: number; pixels: number; bands: number;
  gdal_ms: number; gdal_runs: number[];
  geotiff_ms: number | null; geotiff_runs: number[] | null; geotiff_error: string | null; geotiff_check: Check | null;
  service_ms: number | null; service_runs: number[] | null; service_error: string | null; service_check: Check | null;
}
const rows: Row[] = [];
for (const name of names) {
  const file = readFileSync(join(DATA, `${name}.tif`));
  const bytes = new Uint8Array(file.buffer, file.byteOffset, file.byteLength);
  const buffer = file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength) as ArrayBuffer;
  const g = gdal[name]!;
  const row: Row = {
    name, mb: statSync(join(DATA, `${name}.tif`)).size / 1e6, pixels: g.shape[1]! * g.shape[2]!, bands: g.shape[0]!,
    gdal_ms: median(g.runs_ms), gdal_runs: g.runs_ms,
    geotiff_ms: null, geotiff_runs: null, geotiff_error: null, geotiff_check: null,
    service_ms: null, service_runs: null, service_error: null, service_check: null,
  };
  try {
    row.geotiff_runs = await timed(() => geotiffDecode(buffer));
    row.geotiff_ms = median(row.geotiff_runs);
    row.geotiff_check = check(name, await geotiffDecode(buffer), g);
  } catch (e) {
    row.geotiff_error = (e as Error).message.split('\n')[0]!.slice(0, 120);
  }
  try {
    row.service_runs = await timed(() => serviceDecode(bytes, name, false));
    row.service_ms = median(row.service_runs);
    row.service_check = check(name, (await serviceDecode(bytes, name, true)) as Bands, g);
  } catch (e) {
    row.service_error = (e as Error).message.split('\n')[0]!.slice(0, 120);
  }
  console.error(`${name}: GDAL ${row.gdal_ms.toFixed(1)} ms, geotiff.js ${row.geotiff_ms?.toFixed(1) ?? 'fails'}, service ${row.service_ms?.toFixed(1) ?? 'fails'} ms — ${row.service_check?.text ?? row.service_error}`);
  rows.push(row);
}

// --- report ---
const f1 = (x: number): string => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
const ratio = (a: number | null, b: number | null): string => (a === null || b === null ? '—' : `${(a / b).toFixed(2)}×`);
const lines = [
  '| file | MB | GDAL ms | geotiff.js ms | service ms | service / GDAL | service / geotiff.js | service Mpx/s | service = GDAL? |',
  '|---|---:|---:|---:|---:|---:|---:|---:|---|',
  ...rows.map((r) => [
    `\`${r.name}\``, r.mb.toFixed(2), f1(r.gdal_ms),
    r.geotiff_ms === null ? 'fails' : f1(r.geotiff_ms),
    r.service_ms === null ? 'fails' : f1(r.service_ms),
    ratio(r.service_ms, r.gdal_ms), ratio(r.service_ms, r.geotiff_ms),
    r.service_ms === null ? '—' : (r.pixels / 1e3 / r.service_ms).toFixed(0),
    r.service_error ? `**FAILS: ${r.service_error}**` : r.service_check!.ok ? r.service_check!.text : `**MISMATCH: ${r.service_check!.text}**`,
  ].join(' | ')).map((l) => `| ${l} |`),
];
const mismatches = rows.filter((r) => r.service_error || (r.service_check && !r.service_check.ok && !LOSSY.has(r.name)));
const geotiffNotes = rows.filter((r) => r.geotiff_error || (r.geotiff_check && !r.geotiff_check.ok))
  .map((r) => `- geotiff.js on \`${r.name}\`: ${r.geotiff_error ? `fails (${r.geotiff_error})` : r.geotiff_check!.text}`);
const table = lines.join('\n');
const cpu = cpus()[0]?.model ?? 'unknown CPU';
let commit = 'unknown';
try { commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim(); } catch { /* not a checkout */ }
const load = [loadStart, loadavg()[0]!].map((x) => x.toFixed(1));
const meta = { date: new Date().toISOString(), commit, node: process.version, gdal: Object.values(gdal)[0]?.gdal, cpu, cores: cpus().length, runs: RUNS, load_1min: load };
mkdirSync(OUT, { recursive: true });
writeFileSync(join(OUT, 'codecs.json'), `${JSON.stringify({ ...meta, rows }, null, 2)}\n`);
const md = `${table}\n\n${geotiffNotes.join('\n')}\n\nNode ${meta.node}, GDAL ${meta.gdal}, ${cpu} (${meta.cores} cores), median of ${RUNS} runs after 1 warm-up; commit ${commit}; 1-minute load average ${load[0]} at start, ${load[1]} at end.\n`;
writeFileSync(join(OUT, 'codecs.md'), md);
console.log(md);
if (mismatches.length) {
  console.log(`!!! ${mismatches.length} LOSSLESS FILE(S) WHERE THE SERVICE DOES NOT MATCH GDAL: ${mismatches.map((r) => r.name).join(', ')} !!!`);
  process.exitCode = 1;
}
