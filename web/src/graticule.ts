/** Lines of longitude and latitude for the visible area, spaced so that about `target` lines cross the view. */
import type { FeatureCollection, LineString } from 'geojson';

const STEPS = [90, 45, 30, 20, 10, 5, 2, 1, 0.5, 0.25, 0.1, 0.05, 0.025, 0.01, 0.005, 0.0025, 0.001];
const MAX_LAT = 85;

/** The largest step from STEPS that gives at least `target` lines over `span` degrees. */
function graticuleStep(span: number, target = 6): number {
  for (const step of STEPS) if (span / step >= target) return step;
  return STEPS[STEPS.length - 1]!;
}

/** west/south/east/north of the view (east may exceed 180 when the view crosses the antimeridian). */
export function graticule(
  west: number,
  south: number,
  east: number,
  north: number,
  target = 6,
): FeatureCollection<LineString, { step: number; major: boolean }> {
  const step = graticuleStep(Math.max(east - west, north - south), target);
  const s = Math.max(south, -MAX_LAT);
  const n = Math.min(north, MAX_LAT);
  const features: FeatureCollection<LineString, { step: number; major: boolean }>['features'] = [];
  const major = (v: number) => Math.abs(v / (step * 5) - Math.round(v / (step * 5))) < 1e-9;
  // Lines a little past the view so panning does not show an edge before the next update.
  const pad = step;
  for (let i = Math.ceil((west - pad) / step); i * step <= east + pad; i++) {
    const lon = round(i * step);
    features.push({
      type: 'Feature',
      properties: { step, major: major(lon) },
      geometry: {
        type: 'LineString',
        coordinates: [
          [lon, s],
          [lon, n],
        ],
      },
    });
  }
  for (let i = Math.ceil((s - pad) / step); i * step <= n + pad; i++) {
    const lat = round(i * step);
    if (lat < -MAX_LAT || lat > MAX_LAT) continue;
    // Parallels are straight in Web Mercator: two points, split so no segment exceeds 180° of longitude.
    const coords: [number, number][] = [];
    for (let lon = west - pad; lon < east + pad; lon += 90) coords.push([lon, lat]);
    coords.push([east + pad, lat]);
    features.push({ type: 'Feature', properties: { step, major: major(lat) }, geometry: { type: 'LineString', coordinates: coords } });
  }
  return { type: 'FeatureCollection', features };
}

function round(v: number): number {
  return Math.round(v * 1e9) / 1e9;
}
