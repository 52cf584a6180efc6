/**
 * A coverage's selected cells as the fold visits them (raster/fold.ts): in order, each with its weight, its
 * row and column in the coverage's window, its row in the block and its area. Pure.
 */
import type { Coverage } from '../coverage/coverage.ts';
import type { PixelAreaRows } from './pixel-area.ts';

/**
 * A coverage's selected cells in order (a dense one's by position, a sparse one's from its list: a zone of a
 * zones raster): each cell's weight, row and column in the window, row in the block, and its row's areas.
 */
export class CellWalk {
  w = 0;
  r = -1;
  c = 0;
  tr = 0;
  areaRow: Float64Array | undefined;
  #k = -1;
  readonly #n: number;

  constructor(
    private readonly cov: Coverage,
    /** The block's first row on the level. */
    private readonly row0: number,
    private readonly areas: PixelAreaRows | null,
  ) {
    this.#n = cov.cells ? cov.cells.length : cov.window.width * cov.window.height;
  }

  next(): boolean {
    const { cov } = this;
    const list = cov.cells;
    const width = cov.window.width;
    while (++this.#k < this.#n) {
      const w = cov.weights[this.#k] as number;
      if (w <= 0) continue;
      const idx = list ? (list[this.#k] as number) : this.#k;
      const rr = (idx / width) | 0;
      if (rr !== this.r) {
        this.r = rr;
        this.tr = cov.window.row0 + rr - this.row0;
        this.areaRow = this.areas?.row(rr);
      }
      this.c = idx - rr * width;
      this.w = w;
      return true;
    }
    return false;
  }
}

/** A coverage's selected cells as CellWalk visits them, listed once for every band of a block (a cube's 24 steps and more). */
export interface CellList {
  n: number;
  w: Float64Array;
  r: Int32Array;
  c: Int32Array;
  tr: Int32Array;
  /** Each cell's area (its row's), or null without areas. */
  area: Float64Array | null;
}

/** Cells a thread's kept list holds at most (~7 MB of arrays); a bigger coverage gets its own arrays. */
const KEPT_CELLS = 1 << 18;
let kept: CellList | null = null;

/** The list's arrays: the thread's own, grown as needed (the list is read before foldZone returns, never kept). */
function listFor(size: number, withArea: boolean): CellList {
  const fresh = (n: number, area: boolean): CellList => ({
    n: 0,
    w: new Float64Array(n),
    r: new Int32Array(n),
    c: new Int32Array(n),
    tr: new Int32Array(n),
    area: area ? new Float64Array(n) : null,
  });
  if (size > KEPT_CELLS) return fresh(size, withArea);
  if (kept === null || kept.w.length < size) kept = fresh(Math.max(size, 4096), true);
  return { ...kept, n: 0, area: withArea ? kept.area : null };
}

export function cellsOf(cov: Coverage, row0: number, areas: PixelAreaRows | null): CellList {
  const list = listFor(cov.cells ? cov.cells.length : cov.window.width * cov.window.height, areas !== null);
  const walk = new CellWalk(cov, row0, areas);
  while (walk.next()) {
    const k = list.n++;
    list.w[k] = walk.w;
    list.r[k] = walk.r;
    list.c[k] = walk.c;
    list.tr[k] = walk.tr;
    if (list.area) list.area[k] = (walk.areaRow as Float64Array)[walk.c] as number;
  }
  return list;
}
