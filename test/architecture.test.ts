/**
 * The import structure of src/ (docs/architecture.md): imports follow the data flow and never run back
 * up it, pure folders import no I/O, there are no cycles, each heavy library is imported by exactly one
 * adapter file, and every runtime dependency is imported by src/.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(ROOT, 'src');

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

interface Imports {
  local: string[];
  packages: string[];
}

// Static and dynamic imports, and a CommonJS package loaded through createRequire (`require('name')`).
const IMPORT = /^\s*(?:import|export)\s[^'"]*?from\s+'([^']+)'|import\(\s*'([^']+)'\s*\)|\brequire\(\s*'([^']+)'\s*\)/gm;

const files = new Map<string, Imports>();
for (const file of walk(SRC)) {
  const text = readFileSync(file, 'utf8');
  const imports: Imports = { local: [], packages: [] };
  for (const m of text.matchAll(IMPORT)) {
    const spec = (m[1] ?? m[2] ?? m[3]) as string;
    if (spec.startsWith('.')) imports.local.push(relative(SRC, resolve(dirname(file), spec)));
    else imports.packages.push(spec);
  }
  files.set(relative(SRC, file), imports);
}

/** The folder (or top-level file) a src path belongs to. */
const area = (path: string): string => (path.includes('/') ? (path.split('/')[0] as string) : path.replace(/\.ts$/, ''));

/**
 * The layers, lowest first: an area imports only areas of lower layers (never one of its own layer or
 * above), so imports follow the data flow and never run back up it. Pure areas import no Node I/O.
 */
const LAYERS: string[][] = [
  // Plain errors and counts that any layer may raise or count (http/metrics.ts reads the counts).
  ['errors', 'observe'],
  // Bounded in-memory caches (lru-cache) that source, stac and the readers keep; they count into observe.
  ['memo'],
  // Which addresses, protocols and folders a source may reach (pure; config validates its settings with it).
  ['policy'],
  ['config'],
  ['geometry', 'stats'],
  ['coverage'],
  // Byte codecs shared by the raster and vector readers (each library in its own adapter).
  ['codecs'],
  ['source'],
  ['stac'],
  ['raster', 'vector'],
  // Data cubes (Zarr, kerchunk references): stores, CF conventions, a cube's steps as a raster's bands.
  ['cube'],
  ['workers'],
  // Use cases: domain types in, outcomes out; they never see the wire schemas.
  ['zonal'],
  // The wire: request and response schemas (TypeBox, OpenAPI) and the output formats, read by the HTTP layer and the CLI only;
  // and the inputs given by reference (a zones file read by slices through a ByteSource), read by the CLI and jobs.
  ['schemas', 'formats', 'inputs'],
  // Jobs: submissions cut into tasks, each answered by the one entry point; records, queue and results behind interfaces.
  ['jobs'],
  ['http', 'cli'],
  ['app'],
  ['server'],
];
const LAYER = new Map(LAYERS.flatMap((areas, i) => areas.map((a): [string, number] => [a, i])));

/** Folders whose modules must stay free of I/O (no node: modules). */
const PURE = ['geometry', 'coverage', 'stats', 'schemas', 'formats', 'errors', 'observe'];
const PURE_FILES = [
  'raster/fold.ts',
  'raster/fold-types.ts',
  'raster/fold-coverage.ts',
  'raster/fold-merge.ts',
  'raster/fold-plain.ts',
  'raster/fold-cells.ts',
  'workers/ndjson-rows.ts',
  'jobs/redis-down.ts',
  'raster/fold-mosaic.ts',
  'raster/plan.ts',
  'raster/window.ts',
  'raster/samples.ts',
  'raster/pixels.ts',
  'raster/predictor.ts',
  'raster/pixel-area.ts',
  'raster/gdal-metadata.ts',
  'vector/geoparquet.ts',
  'vector/prune.ts',
  'vector/columns.ts',
  'vector/touch.ts',
  'vector/tally.ts',
  'vector/data-area.ts',
  'vector/geoarrow.ts',
  'raster/tile-cache.ts',
  'jobs/model.ts',
  'jobs/rows.ts',
  'cube/cf.ts',
  'cube/cf-time.ts',
  'cube/select.ts',
  'cube/zarr-meta.ts',
  'codecs/blosc.ts',
  'codecs/release.ts',
  'codecs/zarr-types.ts',
];

/** Each heavy library and the one adapter file that may import it. */
const ADAPTERS: Record<string, string> = {
  geotiff: 'raster/geotiff-adapter.ts',
  sharp: 'raster/codecs/image.ts',
  lerc: 'raster/codecs/lerc.ts',
  zstddec: 'codecs/zstd.ts',
  'node-liblzma': 'codecs/lzma.ts',
  '@petamoriken/float16': 'raster/samples.ts',
  hyparquet: 'vector/reader.ts',
  flatbush: 'vector/select.ts',
  jsep: 'stats/expression.ts',
  'prom-client': 'http/metrics.ts',
  'hyparquet-compressors': 'vector/reader.ts',
  proj4: 'geometry/reproject.ts',
  'geotiff-geokeys-to-proj4': 'geometry/crs.ts',
  'geographiclib-geodesic': 'geometry/geodesic.ts',
  'geos-wasm': 'geometry/geos.ts',
  '@aws-sdk/client-s3': 'source/s3.ts',
  piscina: 'workers/piscina.ts',
  'ipaddr.js': 'policy.ts',
  'lru-cache': 'memo.ts',
  commander: 'cli/main.ts',
  'csv-parse': 'inputs/zones-file.ts',
  wkx: 'inputs/geometry.ts',
  bullmq: 'jobs/redis.ts',
  ioredis: 'jobs/redis.ts',
  'p-queue': 'jobs/local-queue.ts',
  'cli-progress': 'cli/progress.ts',
  'hyparquet-writer': 'formats/geoparquet.ts',
  zarrita: 'codecs/zarr.ts',
  'lz4-napi': 'codecs/lz4.ts',
  'seek-bzip': 'codecs/zarr.ts',
  'reference-spec-reader': 'cube/store.ts',
};

const packageName = (spec: string): string => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : (spec.split('/')[0] as string));

describe('architecture: imports of src/', () => {
  it('reads the source tree', () => {
    expect(files.size).toBeGreaterThan(60);
    expect(files.get('zonal/raster.ts')?.local).toContain('raster/reader.ts');
  });

  it('imports only from lower layers (no exception, no two areas importing each other)', () => {
    const wrong: string[] = [];
    for (const [file, { local }] of files) {
      const from = area(file);
      const layer = LAYER.get(from);
      if (layer === undefined) {
        wrong.push(`${file}: its area has no layer (add it to LAYERS and docs/architecture.md)`);
        continue;
      }
      for (const target of local) {
        const to = area(target);
        if (to === from) continue;
        const below = LAYER.get(to);
        if (below === undefined || below >= layer) wrong.push(`${file} → ${target}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('keeps pure modules free of Node I/O', () => {
    const wrong = [...files]
      .filter(([file, { packages }]) => (PURE.includes(area(file)) || PURE_FILES.includes(file)) && packages.some((p) => p.startsWith('node:')))
      .map(([f]) => f);
    expect(wrong).toEqual([]);
    for (const f of PURE_FILES) expect(files.has(f), f).toBe(true);
  });

  it('has no import cycles', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const visit = (file: string): void => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        cycles.push([...stack.slice(stack.indexOf(file)), file].join(' → '));
        return;
      }
      state.set(file, 'open');
      stack.push(file);
      for (const next of files.get(file)?.local ?? []) if (files.has(next)) visit(next);
      stack.pop();
      state.set(file, 'done');
    };
    for (const file of files.keys()) visit(file);
    expect(cycles).toEqual([]);
  });

  it('imports each heavy library in exactly one adapter file', () => {
    const users = new Map<string, Set<string>>();
    for (const [file, { packages }] of files) {
      for (const p of packages.map(packageName)) if (p in ADAPTERS) users.set(p, (users.get(p) ?? new Set()).add(file));
    }
    for (const [lib, adapter] of Object.entries(ADAPTERS)) expect([...(users.get(lib) ?? [])], lib).toEqual([adapter]);
  });

  it('imports every runtime dependency somewhere in src/ (tsx runs it)', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const used = new Set([...files.values()].flatMap((i) => i.packages.map(packageName)));
    const unused = Object.keys(pkg.dependencies).filter((d) => d !== 'tsx' && !used.has(d));
    expect(unused).toEqual([]);
  });
});
