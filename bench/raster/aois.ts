/**
 * The benchmark AOIs, as the service receives them (`aoi`) and as the same area is handed to GDAL and
 * geoblaze (`polygon`, a lon/lat GeoJSON Polygon), for each of the benchmark's rasters (`GRIDS`):
 *
 * - `poly40`: an irregular hexagon of 40 km² (planar area in UTM 33N) that crosses one tile border;
 * - `circle1k`: a Point with radius 1000 m; GDAL and geoblaze get the service's own geodesic polygon of
 *   it (parseAoi from src/geometry/aoi.ts), so all three select pixels inside the same ring;
 * - `poly6000`, the big AOI: an irregular octagon of 6000 km² (about 90 km across) on the old raster; on the S2
 *   layout the same octagon at 3000 km² (about 64 km across): at 10 m pixels the 6000 km² octagon's window
 *   (101 million pixels) is above the service's limit of 100 million.
 *
 * `newPlaces` moves one of the two small shapes to seeded random places whose tiles no other place of the
 * list touches (the "new place" mode of bench.ts: tiles never decoded before).
 *
 * The polygons are drawn in UTM 33N and densified to ≤ 100 m edges before conversion to lon/lat, so a
 * straight edge in lon/lat (service, after its own densification), in UTM (GDAL/OGR transforms vertices)
 * or in geoblaze's reprojection are the same line to well under a millimetre: pixel selections agree.
 */
import proj4 from 'proj4';
import { parseAoi } from '../../src/geometry/aoi.ts';
import { mulberry32 } from '../lib/metrics.ts';

type Pos = [number, number];
const UTM33 = '+proj=utm +zone=33 +datum=WGS84 +units=m +no_defs';
const toLonLat = proj4(UTM33, 'WGS84');

export interface BenchAoi {
  label: string;
  /** What the service is sent. */
  aoi: Record<string, unknown>;
  /** The same area as a lon/lat Polygon (GDAL, geoblaze). */
  polygon: { type: 'Polygon'; coordinates: Pos[][] };
}

/** A raster of the benchmark: its file under bench/data and its grid in UTM 33N. */
export interface Grid {
  name: 's2' | 'dem';
  file: string;
  /** What the report says about it. */
  describe: string;
  label: string;
  /** Top-left corner (m), pixel size (m), size (px), tile size (px). */
  x0: number;
  y0: number;
  pixel: number;
  size: number;
  tile: number;
}

export const GRIDS: Record<'s2' | 'dem', Grid> = {
  s2: {
    name: 's2',
    file: 's2_B04.tif',
    label: 'S2 layout',
    describe:
      'bench/data/s2_B04.tif (bench/lib/s2_data.py): 10980×10980 UInt16, 10 m, 1024 px tiles (11 × 11), DEFLATE + predictor 2, ' +
      'no overviews, as the public Sentinel-2 L2A COGs',
    x0: 399_960,
    y0: 5_200_020,
    pixel: 10,
    size: 10_980,
    tile: 1024,
  },
  dem: {
    name: 'dem',
    file: 'dem_10k.cog.tif',
    label: 'old Float32',
    describe: 'bench/data/dem_10k.cog.tif: 10000×10000 Float32, 30 m, 512 px tiles, DEFLATE + predictor 3, internal overviews',
    x0: 350_000,
    y0: 5_300_000,
    pixel: 30,
    size: 10_000,
    tile: 512,
  },
};

function shoelace(ring: Pos[]): number {
  let a = 0;
  for (let i = 0; i + 1 < ring.length; i++) a += ring[i]![0] * ring[i + 1]![1] - ring[i + 1]![0] * ring[i]![1];
  return Math.abs(a) / 2;
}

/** Irregular polygon (counter-clockwise) of `areaM2` in UTM around (0, 0), edges densified to ≤ step m, in UTM metres. */
function irregularUtm(areaM2: number, radii: number[], rotationDeg: number, step = 100): Pos[] {
  const n = radii.length;
  const unit: Pos[] = radii.map((r, k) => {
    const a = ((rotationDeg + (360 * k) / n) * Math.PI) / 180;
    return [r * Math.cos(a), r * Math.sin(a)];
  });
  unit.push(unit[0]!);
  const s = Math.sqrt(areaM2 / shoelace(unit));
  const corners = unit.map(([x, y]): Pos => [s * x, s * y]);
  const dense: Pos[] = [];
  for (let i = 0; i + 1 < corners.length; i++) {
    const [x0, y0] = corners[i]!;
    const [x1, y1] = corners[i + 1]!;
    const k = Math.max(1, Math.ceil(Math.hypot(x1 - x0, y1 - y0) / step));
    for (let j = 0; j < k; j++) dense.push([x0 + ((x1 - x0) * j) / k, y0 + ((y1 - y0) * j) / k]);
  }
  dense.push(dense[0]!);
  return dense;
}

const HEXAGON = irregularUtm(40e6, [1, 0.82, 1.12, 0.9, 1.2, 0.86], 17);
const OCTAGON_RADII = [1, 0.85, 1.1, 0.92, 1.15, 0.8, 1.05, 0.95];
const OCTAGON = irregularUtm(6000e6, OCTAGON_RADII, 9);
const OCTAGON_S2 = irregularUtm(3000e6, OCTAGON_RADII, 9);
const CIRCLE_RADIUS = 1000;

/** A UTM shape moved to (cx, cy), as lon/lat. */
const placed = (shape: Pos[], cx: number, cy: number): Pos[] => shape.map(([x, y]) => toLonLat.forward([cx + x, cy + y]) as Pos);

function polygonAoi(label: string, ring: Pos[]): BenchAoi {
  return { label, aoi: { type: 'Polygon', coordinates: [ring] }, polygon: { type: 'Polygon', coordinates: [ring] } };
}

/** A 1 km circle at UTM (cx, cy): the service gets Point + radius, GDAL and geoblaze its own geodesic ring. */
function circleAoi(label: string, cx: number, cy: number): BenchAoi {
  const [clon, clat] = toLonLat.forward([cx, cy]) as Pos;
  const circle = { type: 'Point', coordinates: [clon, clat], radius: CIRCLE_RADIUS };
  const parsed = parseAoi(circle as Parameters<typeof parseAoi>[0], { maxVertices: 100_000 });
  if (parsed.kind !== 'area' || parsed.polygons.length !== 1) throw new Error('unexpected circle polygon');
  const ring = parsed.polygons[0]![0]!;
  return { label, aoi: circle, polygon: { type: 'Polygon', coordinates: [ring.map((p) => [p[0], p[1]] as Pos)] } };
}

export const LABELS: Record<string, string> = { poly40: '40 km² polygon', circle1k: '1 km radius circle', poly6000: '6000 km² polygon' };

export function benchAois(grid: Grid = GRIDS.dem): Record<string, BenchAoi> {
  // Centres in UTM 33N. The old raster's (unchanged since issue 2): tile borders x = 350000 + k·15360, y = 5300000 − k·15360.
  // The S2 layout's: tile borders x = 399960 + k·10240, y = 5200020 − k·10240; the hexagon (7.3 km × 7.9 km) crosses one
  // vertical border, the circle lies inside one tile, the octagon is centred on the raster (109.8 km across).
  const c =
    grid.name === 'dem'
      ? { poly40: [350_000 + 10 * 15_360 + 1_300, 5_300_000 - 9 * 15_360 - 7_400], circle1k: [541_111, 5_103_333], poly6000: [472_000, 5_131_000] }
      : {
          poly40: [399_960 + 5 * 10_240 + 1_300, 5_200_020 - 4 * 10_240 - 5_120],
          circle1k: [399_960 + 7 * 10_240 + 4_000, 5_200_020 - 6 * 10_240 - 6_000],
          poly6000: [454_860, 5_145_120],
        };
  return {
    poly40: polygonAoi(LABELS['poly40']!, placed(HEXAGON, c.poly40[0]!, c.poly40[1]!)),
    circle1k: circleAoi(LABELS['circle1k']!, c.circle1k[0]!, c.circle1k[1]!),
    poly6000:
      grid.name === 'dem'
        ? polygonAoi(LABELS['poly6000']!, placed(OCTAGON, c.poly6000[0]!, c.poly6000[1]!))
        : polygonAoi('3000 km² polygon', placed(OCTAGON_S2, c.poly6000[0]!, c.poly6000[1]!)),
  };
}

export interface Place extends BenchAoi {
  /** The shape's centre in UTM (m). */
  centre: Pos;
  /** Tiles (column, row) of the shape's bounding box: a superset of the tiles it touches. */
  tiles: [number, number][];
}

/**
 * Up to `n` places of the shape (`poly40` or `circle1k`, same shape and orientation, moved) at seeded random
 * positions inside the raster (bounding box ≥ 200 m inside), each touching only tiles that no other place of
 * the list touches (tiles of the bounding box, a superset of those holding pixels): a query at place k
 * decodes only tiles no earlier query decoded. Fewer than `n` when the raster is full (reported by the driver).
 */
export function newPlaces(grid: Grid, shape: 'poly40' | 'circle1k', n: number, seed: number): Place[] {
  const r = shape === 'circle1k' ? CIRCLE_RADIUS + 5 : 0; // + 5 m: the geodesic circle is ≤ 1000.3 m in UTM here
  const xs = shape === 'circle1k' ? [-r, r] : HEXAGON.map((p) => p[0]);
  const ys = shape === 'circle1k' ? [-r, r] : HEXAGON.map((p) => p[1]);
  const [minx, maxx, miny, maxy] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const extent = grid.size * grid.pixel;
  const tileM = grid.tile * grid.pixel;
  const margin = 200;
  const random = mulberry32(seed);
  const used = new Set<string>();
  const out: Place[] = [];
  for (let attempt = 0; attempt < 100_000 && out.length < n; attempt++) {
    const cx = grid.x0 + margin - minx + random() * (extent - 2 * margin - (maxx - minx));
    const cy = grid.y0 - extent + margin - miny + random() * (extent - 2 * margin - (maxy - miny));
    const tiles: [number, number][] = [];
    for (let ty = Math.floor((grid.y0 - (cy + maxy)) / tileM); ty <= Math.floor((grid.y0 - (cy + miny)) / tileM); ty++)
      for (let tx = Math.floor((cx + minx - grid.x0) / tileM); tx <= Math.floor((cx + maxx - grid.x0) / tileM); tx++) tiles.push([tx, ty]);
    if (tiles.some(([tx, ty]) => used.has(`${tx},${ty}`))) continue;
    for (const [tx, ty] of tiles) used.add(`${tx},${ty}`);
    const label = `${LABELS[shape]!} at place ${out.length}`;
    const aoi = shape === 'circle1k' ? circleAoi(label, cx, cy) : polygonAoi(label, placed(HEXAGON, cx, cy));
    out.push({ ...aoi, centre: [cx, cy], tiles });
  }
  return out;
}
