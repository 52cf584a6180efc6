/**
 * The naive full scan of the vector benchmark, in its own process (for a clean peak RSS): reads EVERY
 * row group of the file over HTTP with hyparquet (geometry, pop and value columns; hyparquet decodes
 * the WKB to GeoJSON), tests every feature against every AOI and folds the statistics the service is
 * asked for, by the contract's rules (contract §5, intersect mode, weighting by intersection area):
 *   count  = features whose intersection has positive area (value not null);
 *   min, max = of the values of those features;
 *   mean   = Σ v·A∩ / Σ A∩;          sum = Σ v·A∩/A_feature (areal share);
 *   median = smallest value whose cumulative weight A∩ reaches half of Σ A∩ (relative tolerance 1e-12).
 * Areas are exact: every feature and every AOI is a lon/lat rectangle (checked for each feature: a ring of
 * five points on two longitudes and two latitudes; anything else aborts the scan), so each intersection is
 * one too and its area on the ellipsoid has a closed form (aois.ts). It shares no code with src/.
 *
 * fork(fullscan.ts) with IPC: it sends {ready} first; send {url, aois, columns?} (columns: default pop and
 * value; scale.ts asks for value only); it answers {result} once and exits.
 */
import { readFileSync } from 'node:fs';
import { parquetMetadataAsync, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { rectAreaM2, type RectAoi } from './aois.ts';

export interface ColumnTruth {
  count: number;
  min: number | null;
  max: number | null;
  mean: number | null;
  sum: number | null;
  median: number | null;
  /** Σ A∩ (m²): the counted intersections' total area (not a union; shown next to data_area). */
  interArea: number;
}

export interface ScanResult {
  ms: number;
  requests: number;
  bytes: number;
  rowGroups: number;
  features: number;
  peakRss: number;
  truth: Record<string, Record<string, ColumnTruth>>;
}

const DEFAULT_COLUMNS = ['pop', 'value'];

interface Fold {
  n: number;
  sw: number;
  swv: number;
  share: number;
  min: number;
  max: number;
  pairs: [number, number][];
}

function finish(f: Fold): ColumnTruth {
  if (f.n === 0) return { count: 0, min: null, max: null, mean: null, sum: null, median: null, interArea: 0 };
  const pairs = f.pairs.sort((a, b) => a[0] - b[0]);
  const total = pairs.reduce((t, p) => t + p[1], 0);
  const target = 0.5 * total - 1e-12 * total;
  let cum = 0;
  let median = pairs[0]![0];
  for (const [v, w] of pairs) {
    cum += w;
    median = v;
    if (cum >= target) break;
  }
  return { count: f.n, min: f.min, max: f.max, mean: f.swv / f.sw, sum: f.share, median, interArea: f.sw };
}

async function scan(url: string, aois: RectAoi[], columns: string[]): Promise<ScanResult> {
  const t0 = performance.now();
  let requests = 0;
  let bytes = 0;
  const head = await fetch(url, { method: 'HEAD' });
  requests++;
  const byteLength = Number(head.headers.get('content-length'));
  const file = {
    byteLength,
    async slice(start: number, end: number = byteLength): Promise<ArrayBuffer> {
      const res = await fetch(url, { headers: { range: `bytes=${start}-${end - 1}` } });
      if (res.status !== 206) throw new Error(`range read answered ${res.status}`);
      const buf = await res.arrayBuffer();
      requests++;
      bytes += buf.byteLength;
      return buf;
    },
  };
  const meta = await parquetMetadataAsync(file);
  const folds = aois.map(() => columns.map((): Fold => ({ n: 0, sw: 0, swv: 0, share: 0, min: Infinity, max: -Infinity, pairs: [] })));
  let rowStart = 0;
  let features = 0;
  for (const g of meta.row_groups) {
    const rowEnd = rowStart + Number(g.num_rows);
    const rows = await parquetReadObjects({ file, metadata: meta, columns: ['geometry', ...columns], rowStart, rowEnd, compressors });
    for (const row of rows) {
      features++;
      const geom = row['geometry'] as { type: string; coordinates: number[][][] } | null;
      if (geom === null) continue;
      const ring = geom.type === 'Polygon' && geom.coordinates.length === 1 ? geom.coordinates[0]! : null;
      if (ring === null || ring.length !== 5) throw new Error(`feature ${features}: not a one-ring Polygon of five points`);
      let w = Infinity,
        s = Infinity,
        e = -Infinity,
        n = -Infinity;
      for (const [x, y] of ring as [number, number][]) {
        w = Math.min(w, x);
        e = Math.max(e, x);
        s = Math.min(s, y);
        n = Math.max(n, y);
      }
      if (!ring.every(([x, y]) => (x === w || x === e) && (y === s || y === n))) throw new Error(`feature ${features}: not a lon/lat rectangle`);
      let featureArea = -1;
      for (let k = 0; k < aois.length; k++) {
        const [aw, as, ae, an] = aois[k]!.box;
        const iw = Math.max(w, aw),
          ie = Math.min(e, ae),
          is = Math.max(s, as),
          inn = Math.min(n, an);
        if (!(ie > iw && inn > is)) continue;
        if (featureArea < 0) featureArea = rectAreaM2(w, s, e, n);
        const inter = rectAreaM2(iw, is, ie, inn);
        columns.forEach((c, j) => {
          const v = row[c];
          if (typeof v !== 'number' || Number.isNaN(v)) return;
          const f = folds[k]![j]!;
          f.n++;
          f.sw += inter;
          f.swv += v * inter;
          f.share += (v * inter) / featureArea;
          if (v < f.min) f.min = v;
          if (v > f.max) f.max = v;
          f.pairs.push([v, inter]);
        });
      }
    }
    rowStart = rowEnd;
  }
  const ms = performance.now() - t0;
  const truth: ScanResult['truth'] = {};
  aois.forEach((a, k) => {
    truth[a.name] = Object.fromEntries(columns.map((c, j) => [c, finish(folds[k]![j]!)]));
  });
  const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return { ms, requests, bytes, rowGroups: meta.row_groups.length, features, peakRss: hwm ? Number(hwm[1]) * 1024 : NaN, truth };
}

if (process.send !== undefined) {
  process.once('message', (m: { url: string; aois: RectAoi[]; columns?: string[] }) => {
    scan(m.url, m.aois, m.columns ?? DEFAULT_COLUMNS).then(
      (result) => process.send!({ result }, () => process.exit(0)),
      (e: unknown) => process.send!({ error: String((e as Error)?.stack ?? e) }, () => process.exit(1)),
    );
  });
  process.send({ ready: true });
}
