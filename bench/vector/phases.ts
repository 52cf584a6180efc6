/**
 * Where a warm query's time goes: the phases of the service's vector path (src/zonal/vector.ts), run
 * in-process on the primary AOI with the file in memory (no HTTP, no cache, no worker threads), through
 * the same src modules the service calls, each timed alone; p50 and min over BENCH_PHASE_RUNS (20) after
 * 5 warm-ups:
 *   - footer: openGeoParquet (footer parse, geometry column, row groups);
 *   - read: readGroup of the row groups left after pruning (hyparquet; geometry stays WKB bytes);
 *   - select: each row's WKB scanned for its box, rows meeting the AOI kept (what zonal/vector.ts does);
 *   - tally: vector/tally.ts on the kept rows with the AOI prepared by GEOS (what a worker does);
 *   - data_area: vector/data-area.ts on the counted pieces (unions inline).
 *
 *     node --import tsx bench/vector/phases.ts       (run.sh runs it; also writes bench/out/vector-phases.md)
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemorySource } from '../../src/source/memory.ts';
import { openGeoParquet } from '../../src/vector/reader.ts';
import { pruneRowGroups } from '../../src/vector/prune.ts';
import { parseAoi } from '../../src/geometry/aoi.ts';
import { bboxesIntersect, bboxesOfPolygons } from '../../src/geometry/bbox.ts';
import { wkbBBox, wkbFromPolygons } from '../../src/geometry/wkb.ts';
import { geometryEngine } from '../../src/geometry/geos.ts';
import { tallyChunk } from '../../src/vector/tally.ts';
import { dataAreaM2, overlapGroups } from '../../src/vector/data-area.ts';
import { unionAreas } from '../../src/workers/fold-worker.ts';
import { aoiPolygon, benchAois, type Grid } from './aois.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DATA = join(ROOT, 'bench', 'data');
const RUNS = Number(process.env['BENCH_PHASE_RUNS'] ?? 20);
const WARMUP = 5;
const COLUMNS = ['pop', 'value'];

const side = JSON.parse(readFileSync(join(DATA, 'vector_1m.json'), 'utf8')) as { params: Grid };
const buf = readFileSync(join(DATA, 'vector_1m.parquet'));
const primary = benchAois(side.params, 0)[0]!;

const times = new Map<string, number[]>();
const time = async <T>(name: string, f: () => T | Promise<T>): Promise<T> => {
  const t0 = performance.now();
  const r = await f();
  (times.get(name) ?? times.set(name, []).get(name)!).push(performance.now() - t0);
  return r;
};

const aoi = parseAoi(aoiPolygon(primary), { maxVertices: 100_000 });
if (aoi.kind !== 'area') throw new Error('the primary AOI is a polygon');
const boxes = bboxesOfPolygons(aoi.polygons);
const engine = await geometryEngine();
let counted = 0;
for (let run = 0; run < WARMUP + RUNS; run++) {
  if (run === WARMUP) times.clear();
  const reader = await time('footer', () => openGeoParquet(new MemorySource(buf), undefined));
  const groups = pruneRowGroups(reader.info.rowGroups, boxes);
  const batches = await time('read', () => Promise.all(groups.map((g) => reader.readGroup(g, COLUMNS))));
  const chunks = await time('select', () =>
    batches.map((b) => {
      const keep: number[] = [];
      b.wkb.forEach((w, i) => {
        const box = w ? wkbBBox(w) : null;
        if (box && boxes.some((a) => bboxesIntersect(a, box))) keep.push(i);
      });
      const size = keep.reduce((n, i) => n + (b.wkb[i] as Uint8Array).length, 0);
      const bytes = new Uint8Array(size);
      const offsets = new Uint32Array(keep.length + 1);
      let o = 0;
      keep.forEach((i, k) => {
        bytes.set(b.wkb[i] as Uint8Array, o);
        o += (b.wkb[i] as Uint8Array).length;
        offsets[k + 1] = o;
      });
      const values = COLUMNS.map((c) => Float64Array.from(keep, (i) => (b.values.get(c) as Float64Array)[i] as number));
      return { bytes, offsets, values };
    }),
  );
  const partials = await time('tally', () => {
    const prepared = engine.prepare(wkbFromPolygons(aoi.polygons));
    try {
      return chunks.map((c) =>
        tallyChunk({ aoi: { kind: 'area', wkb: new Uint8Array(0) }, weighted: true, byArea: true, names: ['count', 'mean', 'sum', 'median'], ...c }, prepared),
      );
    } finally {
      prepared.dispose();
    }
  });
  counted = partials.reduce((n, p) => n + (p.columns[0]?.n ?? 0), 0);
  await time('data_area', () =>
    dataAreaM2(
      partials.map((p) => p.pieces),
      COLUMNS.length,
      0,
      { unionAreas, overlapGroups: async (b) => overlapGroups(b) },
    ),
  );
}

const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))] as number;
const head = `Phases of a warm query on the primary AOI (${counted} features counted), ${RUNS} runs, ms\n\n| phase | p50 | min |\n|---|---|---|`;
const lines = [...times].map(([k, xs]) => `| ${k} | ${q(xs, 0.5).toFixed(2)} | ${Math.min(...xs).toFixed(2)} |`);
console.log(`${head}\n${lines.join('\n')}`);
mkdirSync(join(ROOT, 'bench', 'out'), { recursive: true });
writeFileSync(join(ROOT, 'bench', 'out', 'vector-phases.md'), `${head}\n${lines.join('\n')}\n`);
