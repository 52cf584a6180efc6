/**
 * Where a warm query's time goes: the phases of the service's vector path (src/zonal/vector.ts), run
 * in-process on the primary AOI with the file in memory (no HTTP, no cache), through the same src
 * modules the service calls, each timed alone; p50 and min over BENCH_PHASE_RUNS (20) after 5 warm-ups.
 * Also times three bench-side alternatives (not in src) that the README's findings suggest:
 *   - the row group read with the WKB left raw (hyparquet `geoparquet: false`) and every feature's bbox
 *     scanned from the bytes, instead of decoding 10,000 geometries to GeoJSON and then to shapes;
 *   - Sutherland–Hodgman clipping of the border features against the (convex) AOI, instead of polyclip;
 *   - data_area as the sum of the pieces' areas when no two pieces' bboxes overlap, instead of a union.
 *
 *     node --import tsx bench/vector/phases.ts       (run.sh runs it after bench.ts; also writes
 *                                                   bench/out/vector-phases.md)
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { MemorySource } from '../../src/source/memory.ts';
import { openGeoParquet } from '../../src/vector/reader.ts';
import { pruneRowGroups } from '../../src/vector/prune.ts';
import { aoiEdgeInBox, indexAoi, polygonOverlap, shapeOf } from '../../src/vector/weights.ts';
import { parseAoi } from '../../src/geometry/aoi.ts';
import { bboxesOfPolygons, bboxOfPolygons } from '../../src/geometry/bbox.ts';
import { ellipsoidalAreaM2 } from '../../src/geometry/geodesic.ts';
import { unionArea } from '../../src/workers/fold-worker.ts';
import type { MultiPolygonCoords, Position } from '../../src/geometry/types.ts';
import { aoiPolygon, benchAois, type Grid } from './aois.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DATA = join(ROOT, 'bench', 'data');
const RUNS = Number(process.env['BENCH_PHASE_RUNS'] ?? 20);
const WARMUP = 5;
const COLUMNS = ['pop', 'value'];

const side = JSON.parse(readFileSync(join(DATA, 'vector_1m.json'), 'utf8')) as { params: Grid };
const buf = readFileSync(join(DATA, 'vector_1m.parquet'));
const bytes = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer;
const primary = benchAois(side.params, 0)[0]!;
const [aw, as, ae, an] = primary.box;

const times = new Map<string, number[]>();
const time = async <T>(name: string, f: () => T | Promise<T>): Promise<T> => {
  const t0 = performance.now();
  const r = await f();
  const ms = performance.now() - t0;
  (times.get(name) ?? times.set(name, []).get(name)!).push(ms);
  return r;
};

/** Sutherland–Hodgman: ring clipped by the axis-aligned box (convex), a ring (possibly empty). */
function clipRingToBox(ring: Position[], w: number, s: number, e: number, n: number): Position[] {
  const edges: [(p: Position) => boolean, (a: Position, b: Position) => Position][] = [
    [(p) => p[0] >= w, (a, b) => [w, a[1] + ((b[1] - a[1]) * (w - a[0])) / (b[0] - a[0])]],
    [(p) => p[0] <= e, (a, b) => [e, a[1] + ((b[1] - a[1]) * (e - a[0])) / (b[0] - a[0])]],
    [(p) => p[1] >= s, (a, b) => [a[0] + ((b[0] - a[0]) * (s - a[1])) / (b[1] - a[1]), s]],
    [(p) => p[1] <= n, (a, b) => [a[0] + ((b[0] - a[0]) * (n - a[1])) / (b[1] - a[1]), n]],
  ];
  let out = ring.slice(0, -1);
  for (const [inside, cut] of edges) {
    const input = out;
    out = [];
    for (let i = 0; i < input.length; i++) {
      const cur = input[i]!;
      const prev = input[(i + input.length - 1) % input.length]!;
      if (inside(cur)) {
        if (!inside(prev)) out.push(cut(prev, cur));
        out.push(cur);
      } else if (inside(prev)) out.push(cut(prev, cur));
    }
    if (out.length === 0) return [];
  }
  return [...out, out[0]!];
}

const aoi = parseAoi(aoiPolygon(primary), { maxVertices: 100_000 });
if (aoi.kind !== 'area') throw new Error('area AOI expected');
const idx = indexAoi(aoi.polygons);

for (let it = 0; it < WARMUP + RUNS; it++) {
  if (it === WARMUP) times.clear();
  const reader = await time('open: footer read + parse (openGeoParquet)', () => openGeoParquet(new MemorySource(bytes, 'mem://v.parquet'), undefined));
  const groups = pruneRowGroups(reader.info.rowGroups, bboxesOfPolygons(aoi.polygons));
  const batches = await time('read row group(s): ZSTD + WKB → GeoJSON, 10,000 rows each (readGroup)', () => Promise.all(groups.map((g) => reader.readGroup(g, COLUMNS))));
  const shapes = await time('shapeOf on every row', () => batches.flatMap((b) => b.geometries.map((g) => shapeOf(g))));
  const clipped: MultiPolygonCoords[] = [];
  const pieces: MultiPolygonCoords[] = [];
  await time('polygonOverlap on every row (all)', () => {
    for (const s of shapes) {
      if (s === null || s.kind !== 'polygon') continue;
      const ov = polygonOverlap(idx, s.polygons);
      if (ov === null) continue;
      pieces.push(ov.pieces);
      if (aoiEdgeInBox(idx, bboxOfPolygons(s.polygons))) clipped.push(s.polygons);
    }
  });
  await time(`  of which: polyclip of the ${clipped.length} features an AOI edge crosses (+ areas)`, () => {
    for (const p of clipped) polygonOverlap(idx, p);
  });
  await time(`data_area: union of the ${pieces.length} pieces (unionArea, in a worker in the service)`, () => unionArea(pieces));

  // Alternatives (bench-side prototypes).
  const rawMeta = parquetMetadata(ab, { geoparquet: false });
  await time('ALT read row group(s) with raw WKB + bbox of every WKB from its bytes', async () => {
    let hits = 0;
    for (const g of groups) {
      const rowStart = reader.info.rowGroups[g]!.rowStart;
      const rows = await parquetReadObjects({ file: ab, metadata: rawMeta, columns: ['geometry', ...COLUMNS], rowStart, rowEnd: rowStart + reader.info.rowGroups[g]!.numRows, compressors, utf8: false });
      for (const r of rows) {
        const w = r['geometry'] as Uint8Array;
        const dv = new DataView(w.buffer, w.byteOffset, w.byteLength);
        const np = dv.getUint32(9, true); // little-endian Polygon, first ring's point count
        let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
        for (let k = 0; k < np; k++) {
          const x = dv.getFloat64(13 + 16 * k, true);
          const y = dv.getFloat64(21 + 16 * k, true);
          x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y);
        }
        if (x1 > aw && x0 < ae && y1 > as && y0 < an) hits++;
      }
    }
    return hits;
  });
  await time(`ALT Sutherland–Hodgman clip of the ${clipped.length} border features (+ areas)`, () => {
    for (const p of clipped) {
      ellipsoidalAreaM2(p);
      ellipsoidalAreaM2([[clipRingToBox(p[0]![0]!, aw, as, ae, an)]]);
    }
  });
  await time('ALT data_area: sum of piece areas after a bbox-overlap check (sort + sweep)', () => {
    const boxes = pieces.map((p) => bboxOfPolygons(p)).sort((a, b) => a[0] - b[0]);
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length && boxes[j]![0] < boxes[i]![2]; j++) {
        if (boxes[j]![1] < boxes[i]![3] && boxes[j]![3] > boxes[i]![1]) throw new Error('overlapping pieces');
      }
    }
    return pieces.reduce((a, p) => a + ellipsoidalAreaM2(p), 0);
  });
}

const head = `Phases of the vector path for the primary AOI (in-process, file in memory), ms over ${RUNS} runs after ${WARMUP} warm-ups:\n`;
const lines = ['| phase | p50 ms | min ms |', '|---|---|---|'];
for (const [name, v] of times) {
  const s = [...v].sort((a, b) => a - b);
  lines.push(`| ${name} | ${s[Math.floor(s.length / 2)]!.toFixed(1)} | ${s[0]!.toFixed(1)} |`);
}
console.log(`${head}\n${lines.join('\n')}`);
mkdirSync(join(ROOT, 'bench', 'out'), { recursive: true });
writeFileSync(join(ROOT, 'bench', 'out', 'vector-phases.md'), `${head}\n${lines.join('\n')}\n`);
