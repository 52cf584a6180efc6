/**
 * The counted cells of a zone, for exactextract's per-cell operations (values, coverage, cell_id, centres):
 * growable buffers of (cell id, value, cᵢ), merged by concatenation and read once in cell-id order (row by row
 * on the raster's full grid, as exactextract lists them). Pure.
 */

export interface CellArrays {
  readonly ids: Float64Array;
  readonly values: Float64Array;
  readonly weights: Float64Array;
}

const EMPTY = new Float64Array(0);

export class CellList {
  private ids: Float64Array = new Float64Array(16);
  private values: Float64Array = new Float64Array(16);
  private weights: Float64Array = new Float64Array(16);
  private n = 0;
  private sorted = true;

  add(id: number, value: number, weight: number): void {
    if (this.n === this.ids.length) this.grow(this.n * 2);
    if (this.n > 0 && id < (this.ids[this.n - 1] as number)) this.sorted = false;
    this.ids[this.n] = id;
    this.values[this.n] = value;
    this.weights[this.n] = weight;
    this.n++;
  }

  append(o: CellArrays): void {
    if (o.ids.length === 0) return;
    if (this.n + o.ids.length > this.ids.length) this.grow(Math.max(this.n + o.ids.length, this.n * 2));
    if (this.n > 0 && (o.ids[0] as number) < (this.ids[this.n - 1] as number)) this.sorted = false;
    this.ids.set(o.ids, this.n);
    this.values.set(o.values, this.n);
    this.weights.set(o.weights, this.n);
    this.n += o.ids.length;
    for (let i = 1; i < o.ids.length && this.sorted; i++) if ((o.ids[i] as number) < (o.ids[i - 1] as number)) this.sorted = false;
  }

  /** The cells as exact-length copies (for a snapshot), in the order added. */
  copy(): CellArrays {
    if (this.n === 0) return { ids: EMPTY, values: EMPTY, weights: EMPTY };
    return { ids: this.ids.slice(0, this.n), values: this.values.slice(0, this.n), weights: this.weights.slice(0, this.n) };
  }

  /** The cells in cell-id order (sorted once). */
  inOrder(): CellArrays {
    if (!this.sorted) {
      const order = Array.from({ length: this.n }, (_, i) => i).sort((a, b) => (this.ids[a] as number) - (this.ids[b] as number));
      const [ids, values, weights] = [this.ids, this.values, this.weights];
      this.ids = Float64Array.from(order, (i) => ids[i] as number);
      this.values = Float64Array.from(order, (i) => values[i] as number);
      this.weights = Float64Array.from(order, (i) => weights[i] as number);
      this.sorted = true;
    }
    return { ids: this.ids.subarray(0, this.n), values: this.values.subarray(0, this.n), weights: this.weights.subarray(0, this.n) };
  }

  private grow(size: number): void {
    const grown = (a: Float64Array): Float64Array => {
      const b = new Float64Array(size);
      b.set(a.subarray(0, this.n));
      return b;
    };
    this.ids = grown(this.ids);
    this.values = grown(this.values);
    this.weights = grown(this.weights);
  }
}
