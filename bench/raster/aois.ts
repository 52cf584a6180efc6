/**
 * The three benchmark AOIs, as the service receives them (`aoi`) and as the same area is handed to GDAL
 * and geoblaze (`polygon`, a lon/lat GeoJSON Polygon):
 *
 * - `poly40`: an irregular hexagon of 40 km² (planar area in UTM 33N) that crosses one tile border;
 * - `circle1k`: a Point with radius 1000 m; GDAL and geoblaze get the service's own geodesic polygon of
 *   it (parseAoi from src/geometry/aoi.ts), so all three select pixels inside the same ring;
 * - `poly6000`: an irregular octagon of 6000 km² (about 90 km across, ~6 × 6 tiles).
 *
 * The polygons are drawn in UTM 33N and densified to ≤ 100 m edges before conversion to lon/lat, so a
 * straight edge in lon/lat (service, after its own densification), in UTM (GDAL/OGR transforms vertices)
 * or in geoblaze's reprojection are the same line to well under a millimetre: pixel selections agree.
 */
import proj4 from 'proj4';
import { parseAoi } from '../../src/geometry/aoi.ts';

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

function shoelace(ring: Pos[]): number {
  let a = 0;
  for (let i = 0; i + 1 < ring.length; i++) a += ring[i]![0] * ring[i + 1]![1] - ring[i + 1]![0] * ring[i]![1];
  return Math.abs(a) / 2;
}

/** Irregular polygon (counter-clockwise) of `areaM2` in UTM around (cx, cy), edges densified to ≤ step m, as lon/lat. */
function irregular(cx: number, cy: number, areaM2: number, radii: number[], rotationDeg: number, step = 100): Pos[] {
  const n = radii.length;
  const unit: Pos[] = radii.map((r, k) => {
    const a = ((rotationDeg + (360 * k) / n) * Math.PI) / 180;
    return [r * Math.cos(a), r * Math.sin(a)];
  });
  unit.push(unit[0]!);
  const s = Math.sqrt(areaM2 / shoelace(unit));
  const corners = unit.map(([x, y]): Pos => [cx + s * x, cy + s * y]);
  const dense: Pos[] = [];
  for (let i = 0; i + 1 < corners.length; i++) {
    const [x0, y0] = corners[i]!;
    const [x1, y1] = corners[i + 1]!;
    const k = Math.max(1, Math.ceil(Math.hypot(x1 - x0, y1 - y0) / step));
    for (let j = 0; j < k; j++) dense.push([x0 + ((x1 - x0) * j) / k, y0 + ((y1 - y0) * j) / k]);
  }
  dense.push(dense[0]!);
  return dense.map((p) => toLonLat.forward(p) as Pos);
}

export function benchAois(): Record<string, BenchAoi> {
  // Tile borders of the benchmark COG: x = 350000 + k·15360, y = 5300000 − k·15360.
  const poly40 = irregular(350_000 + 10 * 15_360 + 1_300, 5_300_000 - 9 * 15_360 - 7_400, 40e6, [1, 0.82, 1.12, 0.9, 1.2, 0.86], 17);
  const poly6000 = irregular(472_000, 5_131_000, 6000e6, [1, 0.85, 1.1, 0.92, 1.15, 0.8, 1.05, 0.95], 9);
  const [clon, clat] = toLonLat.forward([541_111, 5_103_333]) as Pos;
  const circle = { type: 'Point', coordinates: [clon, clat], radius: 1000 };
  const parsed = parseAoi(circle as Parameters<typeof parseAoi>[0], { maxVertices: 100_000 });
  if (parsed.kind !== 'area' || parsed.polygons.length !== 1) throw new Error('unexpected circle polygon');
  const ring = parsed.polygons[0]![0]!;
  return {
    poly40: {
      label: '40 km² polygon',
      aoi: { type: 'Polygon', coordinates: [poly40] },
      polygon: { type: 'Polygon', coordinates: [poly40] },
    },
    circle1k: {
      label: '1 km radius circle',
      aoi: circle,
      polygon: { type: 'Polygon', coordinates: [ring.map((p) => [p[0], p[1]] as Pos)] },
    },
    poly6000: {
      label: '6000 km² polygon',
      aoi: { type: 'Polygon', coordinates: [poly6000] },
      polygon: { type: 'Polygon', coordinates: [poly6000] },
    },
  };
}
