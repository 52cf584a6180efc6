/**
 * data_area (contract §5): the area of the union of the counted intersections, exact for any number of
 * features. Pieces whose boxes overlap no other piece's box cannot overlap anything, so their areas add;
 * the others are grouped, in one sweep over the boxes sorted by west edge, into connected groups of
 * overlapping boxes, and each group is dissolved by one union (`unionAreas`, in the worker pool). Adjacent
 * parcels of a coverage share edges, so their boxes overlap and they form groups too: the union then
 * dissolves the shared edges, and its area is exactly their sum.
 */
/** The counted intersections of a chunk (feature ∩ AOI), for data_area. */
export interface PieceSet {
  /** Piece i is bytes[offsets[i], offsets[i + 1]) (WKB). */
  bytes: Uint8Array;
  offsets: Uint32Array;
  /** xmin, ymin, xmax, ymax per piece. */
  boxes: Float64Array;
  /** Area of each piece, m². */
  areas: Float64Array;
  /** present[i × columns + c] is 1 when piece i counts for column c (its value there is not null). */
  present: Uint8Array;
  /** 1 when the piece's box overlaps another piece's box of the same chunk (found by the worker). */
  linked: Uint8Array;
}

/** One union to measure: WKB pieces, and the lon/lat rectangle to keep of them (null: all of them). */
export interface UnionJob {
  pieces: Uint8Array[];
  rect: [number, number, number, number] | null;
}

/** Where the heavy parts run (the worker pool in the service). */
export interface DataAreaRunner {
  /** Areas (m²) of the unions of the jobs, in order. */
  unionAreas(jobs: UnionJob[]): Promise<number[]>;
  /** overlapGroups(boxes), off the event loop (a sort and sweep of every counted piece's box). */
  overlapGroups(boxes: Float64Array): Promise<number[][]>;
}

/**
 * A group larger than this is cut by a grid of lon/lat rectangles into jobs of about TILE_PIECES pieces:
 * the area of a union is the sum of the areas of its parts in rectangles that tile the plane, the parts
 * can be unioned in parallel, and many small unions cost far less than one big one (a 92,000-piece
 * overlapping group: 29 s as one union).
 */
const TILE_PIECES = 2000;

/** Whether column c counts the same pieces as column 0 (then they share one data_area). */
export function samePresence(sets: readonly PieceSet[], columns: number, a: number, b: number): boolean {
  for (const s of sets) {
    for (let i = 0; i < s.areas.length; i++) if (s.present[i * columns + a] !== s.present[i * columns + b]) return false;
  }
  return true;
}

function find(parent: Int32Array, i: number): number {
  while (parent[i] !== i) {
    parent[i] = parent[parent[i] as number] as number;
    i = parent[i] as number;
  }
  return i;
}

/**
 * Groups of (≥ 2) indexes whose boxes strictly overlap, transitively (boxes that only touch do not);
 * every index not in a group overlaps nothing. boxes: xmin, ymin, xmax, ymax per index.
 */
export function overlapGroups(boxes: Float64Array): number[][] {
  const n = boxes.length / 4;
  const west = new Float64Array(n);
  for (let i = 0; i < n; i++) west[i] = boxes[4 * i] as number;
  const order = Uint32Array.from({ length: n }, (_, i) => i).sort((a, b) => (west[a] as number) - (west[b] as number));
  const parent = Int32Array.from({ length: n }, (_, i) => i);
  const linked = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const a = order[i] as number;
    const ax1 = boxes[4 * a + 2] as number;
    const ay0 = boxes[4 * a + 1] as number;
    const ay1 = boxes[4 * a + 3] as number;
    const ax0 = boxes[4 * a] as number;
    for (let j = i + 1; j < n; j++) {
      const b = order[j] as number;
      if ((boxes[4 * b] as number) >= ax1) break;
      if ((boxes[4 * b + 1] as number) < ay1 && (boxes[4 * b + 3] as number) > ay0 && (boxes[4 * b + 2] as number) > ax0) {
        parent[find(parent, a)] = find(parent, b);
        linked[a] = 1;
        linked[b] = 1;
      }
    }
  }
  const groups = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    if (!linked[i]) continue;
    const r = find(parent, i);
    let g = groups.get(r);
    if (!g) groups.set(r, (g = []));
    g.push(i);
  }
  return [...groups.values()];
}

function extentOf(s: PieceSet): [number, number, number, number] {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (let i = 0; i < s.areas.length; i++) {
    x0 = Math.min(x0, s.boxes[4 * i] as number);
    y0 = Math.min(y0, s.boxes[4 * i + 1] as number);
    x1 = Math.max(x1, s.boxes[4 * i + 2] as number);
    y1 = Math.max(y1, s.boxes[4 * i + 3] as number);
  }
  return [x0, y0, x1, y1];
}

const overlaps = (b: ArrayLike<number>, o: number, e: readonly number[]): boolean =>
  (b[o] as number) < (e[2] as number) &&
  (b[o + 2] as number) > (e[0] as number) &&
  (b[o + 1] as number) < (e[3] as number) &&
  (b[o + 3] as number) > (e[1] as number);

/**
 * data_area in m² of column `column` (of `columns`) over the pieces of every chunk. Only candidates go
 * through the sweep: pieces linked within their chunk, and pieces whose box reaches into another chunk's
 * extent; any other piece overlaps nothing and adds its area.
 */
export async function dataAreaM2(sets: readonly PieceSet[], columns: number, column: number, run: DataAreaRunner): Promise<number> {
  const extents = sets.map(extentOf);
  let area = 0;
  const setOf: number[] = [];
  const pieceOf: number[] = [];
  const candidateBoxes: number[] = [];
  sets.forEach((s, si) => {
    const mine = extents[si] as number[];
    const others = extents.filter((e, sj) => sj !== si && overlaps(e, 0, mine));
    for (let i = 0; i < s.areas.length; i++) {
      if (!s.present[i * columns + column]) continue;
      let candidate = s.linked[i] === 1;
      for (let k = 0; !candidate && k < others.length; k++) candidate = overlaps(s.boxes, 4 * i, others[k] as number[]);
      if (!candidate) {
        area += s.areas[i] as number;
        continue;
      }
      setOf.push(si);
      pieceOf.push(i);
      for (let d = 0; d < 4; d++) candidateBoxes.push(s.boxes[4 * i + d] as number);
    }
  });
  if (setOf.length === 0) return area;
  const boxes = Float64Array.from(candidateBoxes);
  const groups = await run.overlapGroups(boxes.slice());
  const grouped = new Uint8Array(setOf.length);
  for (const g of groups) for (const e of g) grouped[e] = 1;
  for (let e = 0; e < setOf.length; e++) if (!grouped[e]) area += (sets[setOf[e] as number] as PieceSet).areas[pieceOf[e] as number] as number;
  if (groups.length === 0) return area;
  const piece = (e: number): Uint8Array => {
    const s = sets[setOf[e] as number] as PieceSet;
    const i = pieceOf[e] as number;
    return s.bytes.subarray(s.offsets[i] as number, s.offsets[i + 1] as number);
  };
  const jobs: UnionJob[] = [];
  for (const g of groups) {
    if (g.length <= TILE_PIECES) jobs.push({ pieces: g.map(piece), rect: null });
    else jobs.push(...tiledJobs(g, boxes, piece));
  }
  for (const a of await run.unionAreas(jobs)) area += a;
  return area;
}

/** A big group as jobs on a grid of rectangles over its extent; each piece goes to every cell its box overlaps. */
function tiledJobs(group: number[], boxes: Float64Array, piece: (k: number) => Uint8Array): UnionJob[] {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const k of group) {
    x0 = Math.min(x0, boxes[4 * k] as number);
    y0 = Math.min(y0, boxes[4 * k + 1] as number);
    x1 = Math.max(x1, boxes[4 * k + 2] as number);
    y1 = Math.max(y1, boxes[4 * k + 3] as number);
  }
  const side = Math.ceil(Math.sqrt(group.length / TILE_PIECES));
  const dx = (x1 - x0) / side;
  const dy = (y1 - y0) / side;
  // Cell edges are computed once, so neighbouring cells share them exactly.
  const xs = Array.from({ length: side + 1 }, (_, i) => (i === side ? x1 : x0 + i * dx));
  const ys = Array.from({ length: side + 1 }, (_, j) => (j === side ? y1 : y0 + j * dy));
  const cells: Uint8Array[][] = Array.from({ length: side * side }, () => []);
  const cellOf = (v: number, lo: number, d: number): number => Math.min(side - 1, Math.max(0, Math.floor((v - lo) / d)));
  for (const k of group) {
    const bx0 = boxes[4 * k] as number;
    const by0 = boxes[4 * k + 1] as number;
    const bx1 = boxes[4 * k + 2] as number;
    const by1 = boxes[4 * k + 3] as number;
    const wkb = piece(k);
    for (let i = cellOf(bx0, x0, dx); i <= cellOf(bx1, x0, dx); i++) {
      if (!((xs[i] as number) < bx1 && (xs[i + 1] as number) > bx0)) continue;
      for (let j = cellOf(by0, y0, dy); j <= cellOf(by1, y0, dy); j++) {
        if ((ys[j] as number) < by1 && (ys[j + 1] as number) > by0) (cells[j * side + i] as Uint8Array[]).push(wkb);
      }
    }
  }
  const jobs: UnionJob[] = [];
  cells.forEach((pieces, c) => {
    const i = c % side;
    const j = Math.floor(c / side);
    if (pieces.length > 0) jobs.push({ pieces, rect: [xs[i] as number, ys[j] as number, xs[i + 1] as number, ys[j + 1] as number] });
  });
  return jobs;
}
