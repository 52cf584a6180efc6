/**
 * Writes bench/data/vector_1m.parquet: 1,000,000 small lon/lat squares on a 1000 × 1000 grid, in Hilbert
 * order, 100 row groups of 10,000 rows, GeoParquet 1.1 `geo` metadata (WKB, bbox covering), ZSTD.
 * Then checks the file with hyparquet (a different implementation from the writer): footer, `geo`,
 * codec, and min/max statistics on every bbox leaf of every row group equal to the group's true extent,
 * plus three row groups read back value by value.
 *
 * Writer: parquet-wasm 0.8.0 fed by apache-arrow 21.2.0 tables, as tools/fixtures/make_vector.mjs does;
 * both are bench-only dependencies in bench/vector/package.json, as is hyparquet (the service's version).
 *
 *     node bench/vector/make-data.mjs        # skips the work when bench/data/vector_1m.json matches
 *
 * Grid: cell (x, y), 0 ≤ x, y < 1000, holds the lon/lat rectangle [LON0 + x·P + j1, LON0 + x·P + S − j3] ×
 * [LAT0 + y·P + j2, LAT0 + y·P + S − j4], P = 0.01°, S = 0.0075°, j1…j4 hashed offsets in [0, P/10): every
 * feature lies inside its cell (none touch) and every coordinate is a distinct full-precision double, as
 * in real data (a regular grid would compress to a third of the size). Hilbert order over the 1024 × 1024 curve, cells outside the
 * 1000 × 1000 grid skipped. Columns: id int32 (y·1000 + x), pop int32, value double, geometry (WKB
 * Polygon, one counter-clockwise ring of 5 points), bbox struct<xmin, ymin, xmax, ymax: double>.
 * Deterministic: two runs give byte-identical files.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as A from 'apache-arrow';
import * as pw from 'parquet-wasm';
import { parquetMetadataAsync, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DATA = join(ROOT, 'bench', 'data');
const NAME = 'vector_1m.parquet';
const PATH = join(DATA, NAME);
const SIDECAR = join(DATA, 'vector_1m.json');

export const GRID = {
  n: 1000,
  lon0: 10,
  lat0: 40,
  pitch: 0.01,
  side: 0.0075,
  curve: 1024,
  rowGroupSize: 10_000,
  codec: 'ZSTD',
  order: 'hilbert',
  version: 2,
};

/** Hilbert index → (x, y) on an n × n curve (n a power of two). */
function d2xy(n, d) {
  let x = 0,
    y = 0,
    t = d;
  for (let s = 1; s < n; s *= 2) {
    const rx = 1 & (t >> 1);
    const ry = 1 & (t ^ rx);
    if (ry === 0) {
      if (rx === 1) {
        x = s - 1 - x;
        y = s - 1 - y;
      }
      const q = x;
      x = y;
      y = q;
    }
    x += s * rx;
    y += s * ry;
    t >>= 2;
  }
  return [x, y];
}

/** Deterministic offset in [0, pitch/10) of cell (x, y), stream k (an integer hash, no state). */
function jitter(x, y, k) {
  let h = Math.imul(x + 1, 0x9e3779b1) ^ Math.imul(y + 1, 0x85ebca77) ^ Math.imul(k, 0xc2b2ae3d);
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
  h = Math.imul(h ^ (h >>> 12), 0x297a2d39);
  h ^= h >>> 15;
  return ((h >>> 0) / 2 ** 32) * GRID.pitch * 0.1;
}

const popOf = (x, y) => (x * 7 + y * 13) % 1000;
const valueOf = (x, y) => Math.round((100 + 50 * Math.sin(x / 37) + 30 * Math.cos(y / 23) + (x % 10) * 0.125) * 1024) / 1024;

function sameParams(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

function generate() {
  const g = GRID;
  const N = g.n * g.n;
  const ids = new Int32Array(N),
    pops = new Int32Array(N),
    values = new Float64Array(N);
  const xmin = new Float64Array(N),
    ymin = new Float64Array(N),
    xmax = new Float64Array(N),
    ymax = new Float64Array(N);
  const WKB_LEN = 1 + 4 + 4 + 4 + 5 * 16; // 93: one ring of five points
  const wkb = Buffer.alloc(N * WKB_LEN);
  const offsets = new Int32Array(N + 1);
  let k = 0;
  for (let d = 0; d < g.curve * g.curve && k < N; d++) {
    const [x, y] = d2xy(g.curve, d);
    if (x >= g.n || y >= g.n) continue;
    const x0 = g.lon0 + x * g.pitch + jitter(x, y, 1),
      y0 = g.lat0 + y * g.pitch + jitter(x, y, 2);
    const x1 = x0 + g.side - jitter(x, y, 3),
      y1 = y0 + g.side - jitter(x, y, 4);
    ids[k] = y * g.n + x;
    pops[k] = popOf(x, y);
    values[k] = valueOf(x, y);
    xmin[k] = x0;
    ymin[k] = y0;
    xmax[k] = x1;
    ymax[k] = y1;
    let o = k * WKB_LEN;
    offsets[k] = o;
    o = wkb.writeUInt8(1, o);
    o = wkb.writeUInt32LE(3, o);
    o = wkb.writeUInt32LE(1, o);
    o = wkb.writeUInt32LE(5, o);
    for (const [px, py] of [
      [x0, y0],
      [x1, y0],
      [x1, y1],
      [x0, y1],
      [x0, y0],
    ]) {
      o = wkb.writeDoubleLE(px, o);
      o = wkb.writeDoubleLE(py, o);
    }
    k++;
  }
  offsets[N] = N * WKB_LEN;

  const f64 = (data) => A.makeData({ type: new A.Float64(), length: N, nullCount: 0, data });
  const bboxType = new A.Struct(['xmin', 'ymin', 'xmax', 'ymax'].map((n) => new A.Field(n, new A.Float64(), false)));
  const bbox = A.makeVector(A.makeData({ type: bboxType, length: N, nullCount: 0, children: [f64(xmin), f64(ymin), f64(xmax), f64(ymax)] }));
  const geometry = A.makeVector(
    A.makeData({ type: new A.Binary(), length: N, nullCount: 0, valueOffsets: offsets, data: new Uint8Array(wkb.buffer, wkb.byteOffset, wkb.byteLength) }),
  );
  const table = new A.Table({
    id: A.makeVector(ids),
    pop: A.makeVector(pops),
    value: A.makeVector(values),
    geometry,
    bbox,
  });
  let ex = [Infinity, Infinity, -Infinity, -Infinity];
  for (let i = 0; i < N; i++) ex = [Math.min(ex[0], xmin[i]), Math.min(ex[1], ymin[i]), Math.max(ex[2], xmax[i]), Math.max(ex[3], ymax[i])];
  const extent = ex;
  const geo = {
    version: '1.1.0',
    primary_column: 'geometry',
    columns: {
      geometry: {
        encoding: 'WKB',
        geometry_types: ['Polygon'],
        bbox: extent,
        covering: { bbox: { xmin: ['bbox', 'xmin'], ymin: ['bbox', 'ymin'], xmax: ['bbox', 'xmax'], ymax: ['bbox', 'ymax'] } },
      },
    },
  };
  const props = new pw.WriterPropertiesBuilder()
    .setCompression(pw.Compression[g.codec])
    .setMaxRowGroupSize(g.rowGroupSize)
    .setStatisticsEnabled(pw.EnabledStatistics.Page)
    .setKeyValueMetadata(new Map([['geo', JSON.stringify(geo)]]))
    .build();
  const bytes = pw.writeParquet(pw.Table.fromIPCStream(A.tableToIPC(table, 'stream')), props);
  mkdirSync(DATA, { recursive: true });
  writeFileSync(PATH, bytes);
  // Each row group's true extent, for the check below.
  const groups = [];
  for (let s = 0; s < N; s += g.rowGroupSize) {
    const e = Math.min(N, s + g.rowGroupSize);
    let a = Infinity,
      b = Infinity,
      c = -Infinity,
      dd = -Infinity;
    for (let i = s; i < e; i++) {
      a = Math.min(a, xmin[i]);
      b = Math.min(b, ymin[i]);
      c = Math.max(c, xmax[i]);
      dd = Math.max(dd, ymax[i]);
    }
    groups.push([a, b, c, dd]);
  }
  return { geo, groups, expect: (i) => ({ id: ids[i], pop: pops[i], value: values[i], bbox: { xmin: xmin[i], ymin: ymin[i], xmax: xmax[i], ymax: ymax[i] } }) };
}

async function verify({ geo, groups, expect }) {
  const fh = await open(PATH, 'r');
  const size = (await fh.stat()).size;
  const file = {
    byteLength: size,
    async slice(start, end = size) {
      const buf = Buffer.alloc(end - start);
      await fh.read(buf, 0, end - start, start);
      return buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
    },
  };
  const md = await parquetMetadataAsync(file);
  const problems = [];
  const say = (m) => problems.push(m);
  const kv = Object.fromEntries((md.key_value_metadata ?? []).map((e) => [e.key, e.value]));
  if (!kv.geo || JSON.stringify(JSON.parse(kv.geo)) !== JSON.stringify(geo)) say('geo metadata missing or different');
  if (Number(md.num_rows) !== GRID.n * GRID.n) say(`num_rows ${md.num_rows}`);
  if (md.row_groups.length !== groups.length) say(`row groups ${md.row_groups.length}, meant ${groups.length}`);
  const codecs = new Set(md.row_groups.flatMap((rg) => rg.columns.map((c) => c.meta_data.codec)));
  if (codecs.size !== 1 || !codecs.has(GRID.codec)) say(`codecs ${[...codecs]}`);
  let withStats = 0;
  for (const [gi, rg] of md.row_groups.entries()) {
    const got = ['xmin', 'ymin', 'xmax', 'ymax'].map((leaf, j) => {
      const c = rg.columns.find((cc) => cc.meta_data.path_in_schema.join('.') === `bbox.${leaf}`);
      const st = c?.meta_data?.statistics;
      if (!st || st.min_value === undefined || st.max_value === undefined) return undefined;
      return j < 2 ? st.min_value : st.max_value;
    });
    if (got.some((v) => v === undefined)) {
      say(`row group ${gi}: no min/max statistics on a bbox leaf`);
      continue;
    }
    if (got.some((v, j) => v !== groups[gi][j])) say(`row group ${gi}: bbox statistics ${got} differ from the extent ${groups[gi]}`);
    else withStats++;
  }
  // Three row groups read back value by value (raw WKB bytes aside: hyparquet decodes them as GeoJSON).
  for (const gi of [0, Math.floor(groups.length / 2), groups.length - 1]) {
    const rowStart = gi * GRID.rowGroupSize;
    const rows = await parquetReadObjects({ file, metadata: md, compressors, rowStart, rowEnd: rowStart + GRID.rowGroupSize });
    for (let r = 0; r < rows.length; r++) {
      const want = expect(rowStart + r);
      const row = rows[r];
      const ring = row.geometry?.coordinates?.[0];
      const b = want.bbox;
      const ok =
        row.id === want.id &&
        row.pop === want.pop &&
        row.value === want.value &&
        row.bbox.xmin === b.xmin &&
        row.bbox.ymax === b.ymax &&
        ring?.length === 5 &&
        ring[0][0] === b.xmin &&
        ring[0][1] === b.ymin &&
        ring[2][0] === b.xmax &&
        ring[2][1] === b.ymax;
      if (!ok) {
        say(`row group ${gi} row ${r}: read ${JSON.stringify(row)}`);
        break;
      }
    }
  }
  await fh.close();
  const footer = Number(md.metadata_length);
  if (problems.length) {
    for (const p of problems) console.error(`VERIFY FAILED ${p}`);
    process.exit(1);
  }
  console.log(
    `hyparquet read back ${NAME}: ${md.row_groups.length} row groups, min/max bbox statistics on all ${withStats}, geo 1.1 metadata, ${GRID.codec}, 3 row groups value by value`,
  );
  return { bytes: size, rows: Number(md.num_rows), rowGroups: md.row_groups.length, footerBytes: footer, groups };
}

const params = { ...GRID };
const old = existsSync(SIDECAR) ? JSON.parse(readFileSync(SIDECAR, 'utf8')) : null;
if (old && sameParams(old.params, params) && existsSync(PATH) && statSync(PATH).size === old.bytes) {
  console.log(`${NAME} up to date (${old.bytes} bytes); delete bench/data/vector_1m.json to rewrite it`);
} else {
  const t0 = performance.now();
  const made = generate();
  const t1 = performance.now();
  console.log(`wrote ${PATH} in ${((t1 - t0) / 1000).toFixed(1)} s`);
  const info = await verify(made);
  console.log(`checked in ${((performance.now() - t1) / 1000).toFixed(1)} s`);
  writeFileSync(SIDECAR, JSON.stringify({ params, ...info, name: NAME }, null, 1) + '\n');
}
