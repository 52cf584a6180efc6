/**
 * Independent references for the geometry tests, computed without the code under test.
 */
import geographiclib from 'geographiclib-geodesic';

const { Geodesic } = geographiclib;
const geod = Geodesic.WGS84;

// 16-point Gauss–Legendre nodes and weights on [-1, 1].
const GL_X = [
  -0.9894009349916499, -0.9445750230732326, -0.8656312023878318, -0.755404408355003, -0.6178762444026438, -0.4580167776572274, -0.2816035507792589,
  -0.0950125098376374, 0.0950125098376374, 0.2816035507792589, 0.4580167776572274, 0.6178762444026438, 0.755404408355003, 0.8656312023878318,
  0.9445750230732326, 0.9894009349916499,
];
const GL_W = [
  0.0271524594117541, 0.0622535239386479, 0.0951585116824928, 0.1246289712555339, 0.1495959888165767, 0.1691565193950025, 0.1826034150449236,
  0.1894506104550685, 0.1894506104550685, 0.1826034150449236, 0.1691565193950025, 0.1495959888165767, 0.1246289712555339, 0.0951585116824928,
  0.0622535239386479, 0.0271524594117541,
];

/**
 * Area in m² of the true geodesic circle (the set of points within `radiusM` of the centre) on WGS84,
 * with no polygon at all: in geodesic polar coordinates (s, α) the area element is m(s, α) ds dα, m the
 * reduced length, so A = ∫₀^{2π} ∫₀^r m ds dα. The inner integral by Gauss–Legendre (16 points), the outer
 * by the trapezoid rule, which converges geometrically for a periodic integrand. Valid while the circle
 * stays inside the cut locus (all the tested radii).
 */
export function trueCircleAreaM2(lon: number, lat: number, radiusM: number, azimuths = 720): number {
  const caps = Geodesic.REDUCEDLENGTH | Geodesic.DISTANCE_IN;
  let total = 0;
  for (let i = 0; i < azimuths; i++) {
    const line = geod.DirectLine(lat, lon, (360 * i) / azimuths, radiusM, caps);
    let inner = 0;
    for (let k = 0; k < GL_X.length; k++) {
      const s = (((GL_X[k] as number) + 1) / 2) * radiusM;
      inner += ((GL_W[k] as number) / 2) * radiusM * (line.Position(s, Geodesic.REDUCEDLENGTH).m12 as number);
    }
    total += inner * ((2 * Math.PI) / azimuths);
  }
  return total;
}

const A = 6378137;
const F = 1 / 298.257223563;
const E2 = F * (2 - F);

/**
 * Area in m² of a lon/lat cell by brute-force quadrature of the area element M(φ)·N(φ)·cosφ dφ dλ
 * (meridional and prime-vertical radii of curvature), an independent check of the closed form.
 */
export function cellAreaByQuadrature(lat1: number, lat2: number, dLonDeg: number, steps = 2000): number {
  const p1 = (lat1 * Math.PI) / 180;
  const p2 = (lat2 * Math.PI) / 180;
  const h = (p2 - p1) / steps;
  const g = (p: number) => {
    const w = 1 - E2 * Math.sin(p) ** 2;
    const m = (A * (1 - E2)) / w ** 1.5;
    const n = A / Math.sqrt(w);
    return m * n * Math.cos(p);
  };
  // Composite Simpson.
  let s = g(p1) + g(p2);
  for (let i = 1; i < steps; i++) s += (i % 2 === 1 ? 4 : 2) * g(p1 + i * h);
  return Math.abs(((s * h) / 3) * ((dLonDeg * Math.PI) / 180));
}
