/**
 * Writes a GeoParquet zones file of the jobs benchmark from the raw lon/lat coordinates make-data.py wrote
 * (bench/data/jobs_*.f64: float64 little-endian, zone after zone, `vertices` positions each):
 *
 *     node bench/jobs/make-parquet.mjs <in.f64> <out.parquet> <vertices: 5 (squares) or 1 (points)> [rowGroupSize] [zones]
 *
 * GDAL 3.6 from Debian has no Parquet driver and Python's pyarrow is not in Debian, so the writer is
 * parquet-wasm 0.8.0 (the Rust parquet crate) fed by an apache-arrow 21.2.0 table, as bench/vector does; both
 * are bench-only dependencies in bench/jobs/package.json. The file is laid out as `ogr2ogr -f Parquet` writes
 * one by default: row groups of 65,536 rows (the argument changes it), SNAPPY, GeoParquet 1.1 `geo` metadata
 * (WKB, no `crs`: OGC:CRS84), a `bbox` covering column. Columns: n int32 (the zone's number, 0-based), geometry
 * (WKB Polygon with one ring of 5 positions, or Point), bbox struct<xmin, ymin, xmax, ymax: double>.
 * Skipped when <out.parquet> exists with a sidecar <out>.json of the same parameters. Then the footer is read
 * back with hyparquet (the service's reader library) and its row count and row groups checked.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import * as A from 'apache-arrow';
import * as pw from 'parquet-wasm';
import { parquetMetadataAsync } from 'hyparquet';

const [input, output, verticesArg, groupArg, zonesArg] = process.argv.slice(2);
if (!input || !output || !verticesArg) {
  console.error('usage: node bench/jobs/make-parquet.mjs <in.f64> <out.parquet> <vertices> [rowGroupSize] [zones: the first N only]');
  process.exit(2);
}
const vertices = Number(verticesArg);
const rowGroupSize = Number(groupArg ?? 65_536);
const sidecar = output.replace(/\.parquet$/, '.json');
const limit = zonesArg === undefined ? Infinity : Number(zonesArg);
const params = {
  input: input.split('/').pop(),
  inputBytes: statSync(input).size,
  vertices,
  rowGroupSize,
  zones: zonesArg ?? 'all',
  codec: 'SNAPPY',
  version: 1,
};

if (existsSync(output) && existsSync(sidecar) && readFileSync(sidecar, 'utf8') === JSON.stringify(params)) {
  console.log(`${output} is up to date`);
  process.exit(0);
}

const raw = readFileSync(input);
const coords = new Float64Array(raw.buffer, raw.byteOffset, raw.byteLength / 8);
const all = coords.length / (2 * vertices);
if (!Number.isInteger(all)) throw new Error(`${input}: ${coords.length} doubles is not a whole number of zones of ${vertices} positions`);
const n = Math.min(all, limit);

/** WKB of zone i: a Polygon of one ring, or a Point (little-endian). */
const wkbLength = vertices === 1 ? 1 + 4 + 16 : 1 + 4 + 4 + 4 + vertices * 16;
const wkb = Buffer.alloc(n * wkbLength);
const offsets = new Int32Array(n + 1);
const ids = new Int32Array(n);
const [xmin, ymin, xmax, ymax] = [0, 1, 2, 3].map(() => new Float64Array(n));
const extent = [Infinity, Infinity, -Infinity, -Infinity];
for (let i = 0; i < n; i++) {
  let o = i * wkbLength;
  offsets[i] = o;
  ids[i] = i;
  o = wkb.writeUInt8(1, o);
  if (vertices === 1) o = wkb.writeUInt32LE(1, o);
  else {
    o = wkb.writeUInt32LE(3, o);
    o = wkb.writeUInt32LE(1, o);
    o = wkb.writeUInt32LE(vertices, o);
  }
  let [a, b, c, d] = [Infinity, Infinity, -Infinity, -Infinity];
  for (let v = 0; v < vertices; v++) {
    const x = coords[(i * vertices + v) * 2];
    const y = coords[(i * vertices + v) * 2 + 1];
    o = wkb.writeDoubleLE(x, o);
    o = wkb.writeDoubleLE(y, o);
    [a, b, c, d] = [Math.min(a, x), Math.min(b, y), Math.max(c, x), Math.max(d, y)];
  }
  [xmin[i], ymin[i], xmax[i], ymax[i]] = [a, b, c, d];
  [extent[0], extent[1], extent[2], extent[3]] = [Math.min(extent[0], a), Math.min(extent[1], b), Math.max(extent[2], c), Math.max(extent[3], d)];
}
offsets[n] = n * wkbLength;

const f64 = (data) => A.makeData({ type: new A.Float64(), length: n, nullCount: 0, data });
const bboxType = new A.Struct(['xmin', 'ymin', 'xmax', 'ymax'].map((k) => new A.Field(k, new A.Float64(), false)));
const table = new A.Table({
  n: A.makeVector(ids),
  geometry: A.makeVector(
    A.makeData({ type: new A.Binary(), length: n, nullCount: 0, valueOffsets: offsets, data: new Uint8Array(wkb.buffer, wkb.byteOffset, wkb.byteLength) }),
  ),
  bbox: A.makeVector(A.makeData({ type: bboxType, length: n, nullCount: 0, children: [f64(xmin), f64(ymin), f64(xmax), f64(ymax)] })),
});
const geo = {
  version: '1.1.0',
  primary_column: 'geometry',
  columns: {
    geometry: {
      encoding: 'WKB',
      geometry_types: [vertices === 1 ? 'Point' : 'Polygon'],
      bbox: extent,
      covering: { bbox: { xmin: ['bbox', 'xmin'], ymin: ['bbox', 'ymin'], xmax: ['bbox', 'xmax'], ymax: ['bbox', 'ymax'] } },
    },
  },
};
const props = new pw.WriterPropertiesBuilder()
  .setCompression(pw.Compression.SNAPPY)
  .setMaxRowGroupSize(rowGroupSize)
  .setStatisticsEnabled(pw.EnabledStatistics.Chunk)
  .setKeyValueMetadata(new Map([['geo', JSON.stringify(geo)]]))
  .build();
const bytes = pw.writeParquet(pw.Table.fromIPCStream(A.tableToIPC(table, 'stream')), props);
writeFileSync(`${output}.tmp`, bytes);

// The footer read back by another implementation: rows, row groups, the geo metadata.
const fh = await open(`${output}.tmp`, 'r');
const size = (await fh.stat()).size;
const md = await parquetMetadataAsync({
  byteLength: size,
  async slice(start, end = size) {
    const buf = Buffer.alloc(end - start);
    await fh.read(buf, 0, end - start, start);
    return buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
  },
});
await fh.close();
const groups = Math.ceil(n / rowGroupSize);
const kv = Object.fromEntries((md.key_value_metadata ?? []).map((e) => [e.key, e.value]));
if (Number(md.num_rows) !== n || md.row_groups.length !== groups || !kv.geo) {
  throw new Error(
    `${output}: read back ${md.num_rows} rows in ${md.row_groups.length} row groups (meant ${n} in ${groups}), geo ${kv.geo ? 'present' : 'missing'}`,
  );
}
await rename(`${output}.tmp`, output);
writeFileSync(sidecar, JSON.stringify(params));
console.log(
  `wrote ${output} (${n.toLocaleString('en')} zones, ${groups} row groups of ${rowGroupSize.toLocaleString('en')}, ${size.toLocaleString('en')} bytes)`,
);
