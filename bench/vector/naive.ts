/**
 * The naive reader of the scale benchmark (issue 9), in its own process: what a plain script does with
 * hyparquet and polyclip-ts, as an anchor for the service's time. It shares no code with src/. Per query,
 * with no state kept between queries:
 *   1. hyparquet reads the footer over HTTP (a HEAD for the size, then hyparquet's 512 KiB suffix read);
 *   2. the row groups are pruned by the min/max statistics of the `geo` covering's bbox columns (without a
 *      covering nothing is pruned: every row group is read);
 *   3. the geometry column (decoded by hyparquet to GeoJSON) and the value column of each row group left are
 *      read, one row group at a time;
 *   4. features whose bbox misses the AOI's are rejected; when the AOI is a lon/lat rectangle, a feature
 *      whose bbox lies inside it counts whole; every other feature meeting the AOI's bbox is clipped with
 *      polyclip-ts `intersection` (so only the features an AOI edge crosses are clipped here);
 *   5. count (positive intersection area), mean (Σ v·A∩ / Σ A∩), sum (Σ v·A∩/A_feature), min, max.
 * No data_area union is computed.
 *
 * Areas: the region bounded by lon/lat-straight edges on the WGS84 ellipsoid, as a line integral of the
 * authalic-latitude zone area (exact for edges along meridians and parallels, Gauss–Legendre otherwise).
 *
 * fork(naive.ts) with IPC: sends {ready}; answers {cmd:'query', url, aoi, column} with {answer} (or
 * {error}); {cmd:'mem'} with {peakRss} (VmHWM, bytes); exits on {cmd:'exit'}.
 */
import { readFileSync } from 'node:fs';
import { parquetMetadataAsync, parquetReadObjects, type AsyncBuffer, type FileMetaData } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
// polyclip-ts is a bench-only dependency (bench/vector/package.json, no longer the service's): loaded by
// name so that the root type check, which covers bench/, does not need it installed.
type Geom = number[][][] | number[][][][];
const POLYCLIP = 'polyclip-ts';
const { intersection } = (await import(POLYCLIP)) as { intersection: (a: Geom, b: Geom) => Geom };

type Ring = [number, number][];
type Poly = Ring[];

export interface NaiveAnswer {
  count: number;
  mean: number | null;
  sum: number | null;
  min: number | null;
  max: number | null;
  /** Row groups read, of all. */
  rowGroups: number;
  rowGroupsTotal: number;
  /** Features clipped with polyclip-ts, and counted whole. */
  clipped: number;
  inside: number;
  requests: number;
  bytes: number;
}

// ---- areas (WGS84) ----------------------------------------------------------------------------------
const A = 6378137;
const F = 1 / 298.257223563;
const E2 = F * (2 - F);
const E = Math.sqrt(E2);
const B2 = A * A * (1 - E2);
const DEG = Math.PI / 180;
/** Area per radian of longitude between the equator and latitude φ (degrees). */
const zone = (latDeg: number): number => {
  const s = Math.sin(latDeg * DEG);
  return (B2 / 2) * (s / (1 - E2 * s * s) + Math.atanh(E * s) / E);
};
const GL_T = [0.0694318442029737, 0.33000947820757187, 0.6699905217924281, 0.9305681557970262];
const GL_W = [0.17392742256872692, 0.3260725774312731, 0.3260725774312731, 0.17392742256872692];

/** |area| in m² of a ring with lon/lat-straight edges: |∮ (Z(φ) − Z(φ₀)) dλ|. */
function ringArea(ring: Ring): number {
  const z0 = zone(ring[0]![1]);
  let sum = 0;
  for (let i = 0; i + 1 < ring.length; i++) {
    const [x1, y1] = ring[i]!;
    const [x2, y2] = ring[i + 1]!;
    const dl = (x2 - x1) * DEG;
    if (dl === 0) continue;
    if (y1 === y2) {
      sum += dl * (zone(y1) - z0);
      continue;
    }
    let m = 0;
    for (let k = 0; k < 4; k++) m += GL_W[k]! * (zone(y1 + GL_T[k]! * (y2 - y1)) - z0);
    sum += dl * m;
  }
  return Math.abs(sum);
}

const polyArea = (p: Poly): number => p.reduce((a, r, i) => (i === 0 ? a + ringArea(r) : a - ringArea(r)), 0);

// ---- HTTP file --------------------------------------------------------------------------------------
async function httpFile(url: string, tally: { requests: number; bytes: number }): Promise<AsyncBuffer> {
  const head = await fetch(url, { method: 'HEAD' });
  tally.requests++;
  const byteLength = Number(head.headers.get('content-length'));
  return {
    byteLength,
    async slice(start: number, end: number = byteLength): Promise<ArrayBuffer> {
      const res = await fetch(url, { headers: { range: `bytes=${start}-${end - 1}` } });
      if (res.status !== 206) throw new Error(`range read answered ${res.status}`);
      const buf = await res.arrayBuffer();
      tally.requests++;
      tally.bytes += buf.byteLength;
      return buf;
    },
  };
}

/** The covering's bbox leaf paths (xmin, ymin, xmax, ymax) of the primary geometry column, or null. */
function covering(meta: FileMetaData): { geometry: string; leaves: string[] | null } {
  const kv = meta.key_value_metadata?.find((e) => e.key === 'geo')?.value;
  if (kv === undefined) throw new Error('no geo metadata');
  const geo = JSON.parse(kv) as { primary_column: string; columns: Record<string, { covering?: { bbox?: Record<string, string[]> } }> };
  const bbox = geo.columns[geo.primary_column]?.covering?.bbox;
  const leaves = bbox ? ['xmin', 'ymin', 'xmax', 'ymax'].map((k) => (bbox[k] ?? []).join('.')) : null;
  return { geometry: geo.primary_column, leaves };
}

/** Indices of the row groups whose covering statistics meet the box (all of them without a covering). */
function pruned(meta: FileMetaData, leaves: string[] | null, box: number[]): number[] {
  const out: number[] = [];
  meta.row_groups.forEach((rg, g) => {
    if (leaves === null) return void out.push(g);
    const stat = (leaf: string, which: 'min_value' | 'max_value'): number => {
      const v = rg.columns.find((c) => c.meta_data?.path_in_schema.join('.') === leaf)?.meta_data?.statistics?.[which];
      return typeof v === 'number' ? v : Number.NaN;
    };
    const [w, s, e, n] = box as [number, number, number, number];
    const xmin = stat(leaves[0]!, 'min_value');
    const ymin = stat(leaves[1]!, 'min_value');
    const xmax = stat(leaves[2]!, 'max_value');
    const ymax = stat(leaves[3]!, 'max_value');
    // A missing statistic (NaN) keeps the group.
    if (!(xmin > e || xmax < w || ymin > n || ymax < s)) out.push(g);
  });
  return out;
}

interface GeoJsonGeometry {
  type: string;
  coordinates: unknown;
}

function polygonsOf(g: GeoJsonGeometry | null): Poly[] {
  if (g === null) return [];
  if (g.type === 'Polygon') return [g.coordinates as Poly];
  if (g.type === 'MultiPolygon') return g.coordinates as Poly[];
  return [];
}

export async function naiveQuery(url: string, aoi: { type: 'Polygon'; coordinates: number[][][] }, column: string): Promise<NaiveAnswer> {
  const tally = { requests: 0, bytes: 0 };
  const file = await httpFile(url, tally);
  const meta = await parquetMetadataAsync(file);
  const { geometry, leaves } = covering(meta);
  const aoiRing = aoi.coordinates[0] as Ring;
  let aw = Infinity,
    as = Infinity,
    ae = -Infinity,
    an = -Infinity;
  for (const [x, y] of aoiRing) {
    aw = Math.min(aw, x);
    ae = Math.max(ae, x);
    as = Math.min(as, y);
    an = Math.max(an, y);
  }
  const aoiIsRect = aoi.coordinates.length === 1 && aoiRing.length === 5 && aoiRing.every(([x, y]) => (x === aw || x === ae) && (y === as || y === an));
  const aoiGeom = aoi.coordinates as Geom;
  const groups = pruned(meta, leaves, [aw, as, ae, an]);
  const starts: number[] = [];
  meta.row_groups.reduce((s, rg) => (starts.push(s), s + Number(rg.num_rows)), 0);

  let n = 0,
    sw = 0,
    swv = 0,
    share = 0,
    min = Infinity,
    max = -Infinity,
    clipped = 0,
    inside = 0;
  for (const g of groups) {
    const rowStart = starts[g]!;
    const rowEnd = rowStart + Number(meta.row_groups[g]!.num_rows);
    const rows = await parquetReadObjects({ file, metadata: meta, columns: [geometry, column], rowStart, rowEnd, compressors });
    for (const row of rows) {
      const v = row[column];
      if (typeof v !== 'number' || Number.isNaN(v)) continue;
      const polys = polygonsOf(row[geometry] as GeoJsonGeometry | null);
      if (polys.length === 0) continue;
      let w = Infinity,
        s = Infinity,
        e = -Infinity,
        nn = -Infinity;
      for (const p of polys) {
        for (const [x, y] of p[0]!) {
          if (x < w) w = x;
          if (x > e) e = x;
          if (y < s) s = y;
          if (y > nn) nn = y;
        }
      }
      if (w >= ae || e <= aw || s >= an || nn <= as) continue;
      const featureArea = polys.reduce((t, p) => t + polyArea(p), 0);
      let inter: number;
      if (aoiIsRect && w >= aw && e <= ae && s >= as && nn <= an) {
        inter = featureArea;
        inside++;
      } else {
        const pieces = intersection(polys as Geom, aoiGeom) as Poly[];
        inter = pieces.reduce((t, p) => t + polyArea(p), 0);
        clipped++;
      }
      if (!(inter > 0)) continue;
      n++;
      sw += inter;
      swv += v * inter;
      share += (v * inter) / featureArea;
      if (v < min) min = v;
      if (v > max) max = v;
    }
  }
  return {
    count: n,
    mean: n === 0 ? null : swv / sw,
    sum: n === 0 ? null : share,
    min: n === 0 ? null : min,
    max: n === 0 ? null : max,
    rowGroups: groups.length,
    rowGroupsTotal: meta.row_groups.length,
    clipped,
    inside,
    requests: tally.requests,
    bytes: tally.bytes,
  };
}

if (process.send !== undefined) {
  const send = (m: unknown): void => void process.send!(m);
  process.on('message', (m: { cmd: string; url?: string; aoi?: { type: 'Polygon'; coordinates: number[][][] }; column?: string }) => {
    if (m.cmd === 'query') {
      naiveQuery(m.url!, m.aoi!, m.column!).then(
        (answer) => send({ answer }),
        (e: unknown) => send({ error: String((e as Error)?.stack ?? e) }),
      );
    } else if (m.cmd === 'mem') {
      const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
      send({ peakRss: hwm ? Number(hwm[1]) * 1024 : Number.NaN });
    } else if (m.cmd === 'exit') process.exit(0);
  });
  send({ ready: true });
}
