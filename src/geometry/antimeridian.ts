/**
 * The antimeridian, pure: polygons whose longitudes run past ±180 (straight edges in lon/lat, GeoJSON's
 * reading) cut at x = ±180 into pieces with every longitude in [−180, 180], the far side turned by 360°;
 * circles winding round a pole closed along that pole; and edges longer than 180° of longitude cut into
 * shorter pieces so that none reads as a short hop across the antimeridian.
 */
import type { PolygonCoords, Position, Ring } from './types.ts';
import { bboxOfRing } from './bbox.ts';
import { dedupe, interiorPoint, planarArea, pointInRing } from './planar.ts';

/** Longitudes made continuous (whole turns added), and the turn count of each position. */
export function unwrap(ring: Ring): { ring: Ring; turns: number[] } {
  const out: Ring = [];
  const turns: number[] = [];
  let turn = 0;
  ring.forEach(([x, y], i) => {
    if (i > 0) {
      const prev = (ring[i - 1] as Position)[0];
      if (x - prev > 180) turn -= 1;
      else if (x - prev < -180) turn += 1;
    }
    turns.push(turn);
    out.push([x + 360 * turn, y]);
  });
  return { ring: out, turns };
}

/**
 * The cap between a circle that winds once round a pole and that pole: the circle cut where it meets the
 * antimeridian, from −180 to 180 (eastwards round the north pole, westwards round the south pole), then
 * along the pole back.
 */
export function poleCap(vertices: Ring, unwrapped: Ring, turns: number[], north: boolean): Ring {
  const n = unwrapped.length; // closed: the last position is the first one turned once round
  const L = (i: number) => (unwrapped[i] as Position)[0];
  const L0 = L(0);
  // The antimeridian value c (180 + 360k) met first after the start, going round the pole.
  const k = north ? Math.ceil((L0 - 180) / 360) : Math.floor((L0 + 180) / 360);
  const c = north ? 180 + 360 * k : -180 + 360 * k;
  let j = 0;
  while (j < n - 2 && !(north ? L(j) <= c && c < L(j + 1) : L(j) >= c && c > L(j + 1))) j++;
  const a = unwrapped[j] as Position;
  const b = unwrapped[j + 1] as Position;
  const yc = a[0] === c ? a[1] : a[1] + ((c - a[0]) / (b[0] - a[0])) * (b[1] - a[1]);
  // Shift taking c to −180 (north) or 180 (south), in whole turns so that longitudes stay exact.
  const shiftTurns = north ? k + 1 : k - 1;
  const out: Ring = [[north ? -180 : 180, yc]];
  const m = n - 1;
  for (let t = 1; t <= m; t++) {
    const i = (j + t) % m;
    const extra = j + t >= m ? (north ? 1 : -1) : 0;
    const [lon, lat] = vertices[i] as Position;
    out.push([lon + 360 * ((turns[i] as number) + extra - shiftTurns), lat]);
  }
  const pole = north ? 90 : -90;
  const end = north ? 180 : -180;
  out.push([end, yc], [end, pole], [-end, pole], [-end, yc]);
  return dedupe(out);
}

/**
 * Edges longer than 180° of longitude (a band's edge from −180 to 180, the pole edge of a cap, or a
 * deliberate long way round) cut into shorter pieces along the same straight line, so that no consumer
 * can mistake one for a short hop across the antimeridian.
 */
export function splitLongEdges(polygon: PolygonCoords): PolygonCoords {
  return polygon.map((ring) => {
    const out: Ring = [];
    ring.forEach((b, i) => {
      const a = ring[i - 1];
      const dx = a ? b[0] - a[0] : 0;
      if (a && Math.abs(dx) > 180) {
        const n = Math.floor(Math.abs(dx) / 180) + 1;
        for (let k = 1; k < n; k++) out.push([a[0] + (dx * k) / n, a[1] + ((b[1] - a[1]) * k) / n]);
      }
      out.push(b);
    });
    return out;
  });
}

function shift(polygon: PolygonCoords, dx: number): PolygonCoords {
  return polygon.map((ring) => ring.map(([x, y]) => [x + dx, y] as Position));
}

/**
 * A polygon (exterior CCW, holes CW) whose longitudes may run past ±180 as the pieces that cover the
 * same ground with every longitude in [−180, 180]: cut at the antimeridian, the far side turned by 360°.
 * Its longitude span is at most 360°, so it meets at most one of the lines x = 180, x = −180.
 * `unsplittable` is called (and must throw) when the cut pieces cannot be joined back into rings, which
 * happens only for rings that cross.
 */
export function toWorld(polygon: PolygonCoords, unsplittable: () => never): PolygonCoords[] {
  const [minX, , maxX] = bboxOfRing(polygon[0] as Ring);
  if (minX >= -180 && maxX <= 180) return [polygon];
  if (minX >= 180) return [shift(polygon, -360)];
  if (maxX <= -180) return [shift(polygon, 360)];
  const c = maxX > 180 ? 180 : -180;
  const left = clipSide(polygon, c, 'left', unsplittable);
  const right = clipSide(polygon, c, 'right', unsplittable);
  return c === 180 ? [...left, ...right.map((p) => shift(p, -360))] : [...left.map((p) => shift(p, 360)), ...right];
}

/** Where edge a→b meets x = c (exactly an endpoint when one lies on the line). */
function crossingAt(a: Position, b: Position, c: number): Position {
  if (a[0] === c) return [c, a[1]];
  if (b[0] === c) return [c, b[1]];
  return [c, a[1] + ((c - a[0]) / (b[0] - a[0])) * (b[1] - a[1])];
}

/**
 * The part of a polygon on one side of the vertical line x = c ('left': x ≤ c, 'right': x > c), as
 * polygons. Rings are cut into chains that enter and leave across the line; each chain's exit is joined
 * along the line to the next entry (upwards on the left side, downwards on the right, which keeps the
 * interior on the left), the usual rejoin of a polygon cut by a line.
 */
function clipSide(polygon: PolygonCoords, c: number, side: 'left' | 'right', unsplittable: () => never): PolygonCoords[] {
  const inside = side === 'left' ? (x: number) => x <= c : (x: number) => x > c;
  const chains: Position[][] = [];
  const shells: Ring[] = [];
  const holes: Ring[] = [];
  polygon.forEach((ring, r) => {
    const m = ring.length - 1;
    const ins = ring.slice(0, m).map(([x]) => inside(x));
    const count = ins.filter(Boolean).length;
    if (count === m) {
      (r === 0 ? shells : holes).push(ring);
      return;
    }
    if (count === 0) return;
    const start = ins.indexOf(false);
    let chain: Position[] = [];
    for (let t = 0; t < m; t++) {
      const i = (start + t) % m;
      const j = (i + 1) % m;
      if (ins[i]) chain.push(ring[i] as Position);
      if (ins[i] !== ins[j]) {
        const p = crossingAt(ring[i] as Position, ring[j] as Position, c);
        if (ins[j]) {
          chain = [p];
        } else {
          chain.push(p);
          if (chain.some(([x]) => x !== c)) chains.push(chain);
        }
      }
    }
  });
  if (polygon.length > 0 && shells.length === 0 && chains.length === 0) return [];
  shells.push(...rejoin(chains, side === 'left', unsplittable));
  const out: PolygonCoords[] = shells.map((s) => [s]);
  for (const hole of holes) {
    const [x, y] = interiorPoint([hole]);
    const home = out.find((p) => pointInRing(p[0] as Ring, x, y) > 0) ?? out[0];
    home?.push(hole);
  }
  return out;
}

/** Chains joined into closed rings along the cut line (see clipSide). */
function rejoin(chains: Position[][], upwards: boolean, unsplittable: () => never): Ring[] {
  const entryY = chains.map((ch) => (ch[0] as Position)[1]);
  const used = chains.map(() => false);
  const rings: Ring[] = [];
  for (let s = 0; s < chains.length; s++) {
    if (used[s]) continue;
    const ring: Position[] = [];
    let cur = s;
    for (let guard = 0; guard <= chains.length; guard++) {
      used[cur] = true;
      const chain = chains[cur] as Position[];
      ring.push(...chain);
      const exitY = (chain[chain.length - 1] as Position)[1];
      let next = -1;
      for (let e = 0; e < chains.length; e++) {
        if (used[e] && e !== s) continue;
        const y = entryY[e] as number;
        if (upwards ? y < exitY : y > exitY) continue;
        if (next === -1 || (upwards ? y < (entryY[next] as number) : y > (entryY[next] as number))) next = e;
      }
      if (next === -1) unsplittable();
      if (next === s) break;
      cur = next;
    }
    const closed = dedupe(ring);
    if (closed.length >= 4 && planarArea(closed) > 0) rings.push(closed);
  }
  return rings;
}
