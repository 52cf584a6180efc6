/**
 * AOIs of the vector benchmark and the exact area of a lon/lat rectangle, shared by bench.ts, scale.ts,
 * fullscan.ts and naive.ts. Every AOI is a lon/lat rectangle whose edges cut through the squares of its
 * border cells (a cell's square spans [0.0, 0.1) … (0.65, 0.75] of the pitch). bench.ts's AOIs span about
 * 17 × 17 grid cells: 18 × 18 = 324 features meet each and the 68 border ones are clipped.
 */

export interface Grid {
  n: number;
  lon0: number;
  lat0: number;
  pitch: number;
}

export interface RectAoi {
  name: string;
  /** [west, south, east, north], degrees. */
  box: [number, number, number, number];
}

/** The rectangle from cell (x, y) + 0.3 to cell (x + 17, y + 17) + 0.5, in grid units. */
export function aoiAt(grid: Grid, name: string, x: number, y: number): RectAoi {
  const lon = (u: number) => grid.lon0 + u * grid.pitch;
  const lat = (v: number) => grid.lat0 + v * grid.pitch;
  return { name, box: [lon(x + 0.3), lat(y + 0.3), lon(x + 17.5), lat(y + 17.5)] };
}

/** The primary AOI and `n` more at seeded pseudo-random places (mulberry32, seed 20240601). */
export function benchAois(grid: Grid, n: number): RectAoi[] {
  let s = 20240601;
  const rnd = (): number => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [aoiAt(grid, 'primary', 420, 610)];
  for (let i = 0; i < n; i++) out.push(aoiAt(grid, `random${i + 1}`, Math.floor(rnd() * (grid.n - 20)), Math.floor(rnd() * (grid.n - 20))));
  return out;
}

/**
 * The rectangle over the nx × ny grid cells from cell (x, y): from (x + 0.6, y + 0.6) to
 * (x + nx − 1 + 0.2, y + ny − 1 + 0.2) in grid units. Both edges cut through the squares of the border
 * cells (a square spans [< 0.1, > 0.65] of the pitch), so exactly nx · ny features meet it and the
 * 2·(nx + ny) − 4 border ones are clipped.
 */
export function aoiCells(grid: Grid, name: string, x: number, y: number, nx: number, ny: number): RectAoi {
  const lon = (u: number) => grid.lon0 + u * grid.pitch;
  const lat = (v: number) => grid.lat0 + v * grid.pitch;
  return { name, box: [lon(x + 0.6), lat(y + 0.6), lon(x + nx - 1 + 0.2), lat(y + ny - 1 + 0.2)] };
}

/**
 * The scale cases of issue 9 (scale.ts): `small` 10 × 10 features (63.5 km², 1 row group), `medium`
 * 100 × 100 (8,020 km², 5 row groups), `large` 400 × 400 (134,064 km², 35 of the 100 row groups, a
 * placement picked for that count: a 400 × 400 square meets 26 at the median).
 */
export function scaleAois(grid: Grid): { small: RectAoi; medium: RectAoi; large: RectAoi } {
  return {
    small: aoiCells(grid, 'small', 420, 610, 10, 10),
    medium: aoiCells(grid, 'medium', 300, 780, 100, 100),
    large: aoiCells(grid, 'large', 380, 510, 400, 400),
  };
}

export function aoiPolygon(a: RectAoi): { type: 'Polygon'; coordinates: number[][][] } {
  const [w, s, e, n] = a.box;
  return {
    type: 'Polygon',
    coordinates: [
      [
        [w, s],
        [e, s],
        [e, n],
        [w, n],
        [w, s],
      ],
    ],
  };
}

// WGS84
const A = 6378137;
const F = 1 / 298.257223563;
const B = A * (1 - F);
const E2 = F * (2 - F);
const E = Math.sqrt(E2);

function q(phiDeg: number): number {
  const s = Math.sin((phiDeg * Math.PI) / 180);
  return s / (1 - E2 * s * s) + Math.log((1 + E * s) / (1 - E * s)) / (2 * E);
}

/**
 * Exact area (m²) on the WGS84 ellipsoid of the lon/lat rectangle [w, e] × [s, n] (edges along
 * meridians and parallels): (b²/2)·Δλ·(q(n) − q(s)), Δλ in radians (authalic-latitude formula).
 */
export function rectAreaM2(w: number, s: number, e: number, n: number): number {
  return ((B * B) / 2) * (((e - w) * Math.PI) / 180) * (q(n) - q(s));
}
