/**
 * The median and percentile rules of contract §5 as small pure functions over sorted data, plus the pair sort
 * the weighted rules need. Used by the accumulator and by the vector endpoint. Pure.
 */

/** Relative tolerance on "cumulative weight reaches the target" so that rounding of the running sum never skips a value. */
const WEIGHTED_REACH_TOLERANCE = 1e-12;

/** (a + b) / 2 without overflow to Infinity for huge operands of the same sign. */
export function midpoint(a: number, b: number): number {
  const m = (a + b) / 2;
  return Number.isFinite(m) ? m : a / 2 + b / 2;
}

/**
 * numpy's `_lerp`: a + (b − a)·t, evaluated from the nearer end (b − (b − a)·(1 − t) when t ≥ 0.5) exactly as
 * numpy does, so results agree with `numpy.percentile` to the last bit. Falls back to a·(1−t) + b·t when
 * b − a overflows.
 */
export function lerp(a: number, b: number, t: number): number {
  const d = b - a;
  const r = t >= 0.5 ? b - d * (1 - t) : a + d * t;
  return Number.isFinite(r) ? r : a * (1 - t) + b * t;
}

/**
 * Unweighted quantile (contract §5): numpy's default "linear" method. With n values sorted ascending, the rank
 * is h = (q/100)·(n − 1) and the result interpolates between sorted[floor(h)] and sorted[floor(h) + 1].
 * When h falls exactly half-way (t = 0.5) the result is the midpoint (a + b) / 2, the median rule ("mean of the
 * two middle values"), so `percentile_50` always equals `median`. q = 0 → min, q = 100 → max.
 *
 * @param sorted ascending values (only the first `n` are read)
 * @param q percentile in [0, 100]
 * @returns null when n = 0
 */
export function quantileSorted(sorted: ArrayLike<number>, q: number, n: number = sorted.length): number | null {
  if (n <= 0) return null;
  const h = (q / 100) * (n - 1);
  const lo = Math.min(Math.max(Math.floor(h), 0), n - 1);
  const hi = Math.min(lo + 1, n - 1);
  const t = h - lo;
  const a = sorted[lo] as number;
  const b = sorted[hi] as number;
  if (t <= 0 || lo === hi) return a;
  if (t === 0.5) return midpoint(a, b);
  return lerp(a, b, t);
}

/** Unweighted median (contract §5): the middle value, or the mean of the two middle values; null when n = 0. */
export function medianSorted(sorted: ArrayLike<number>, n: number = sorted.length): number | null {
  if (n <= 0) return null;
  const k = n >> 1;
  if (n % 2 === 1) return sorted[k] as number;
  return midpoint(sorted[k - 1] as number, sorted[k] as number);
}

/**
 * The cumulative weight a value must reach to be the weighted q-th percentile of a total weight:
 * q/100 · total, lowered by {@link WEIGHTED_REACH_TOLERANCE}·total so that a running sum that rounds a hair
 * below the exact target still counts as reaching it.
 */
export function weightedTarget(total: number, q: number): number {
  return (q / 100) * total - WEIGHTED_REACH_TOLERANCE * total;
}

/**
 * Weighted quantile (contract §5): the smallest value whose cumulative weight reaches q/100 of the total.
 * q = 0 → the smallest value. Values with weight ≤ 0 never count.
 *
 * @param values ascending values (only the first `n` are read)
 * @param weights weight of each value (same index), > 0
 * @param q percentile in [0, 100]
 * @returns null when nothing has positive weight
 */
export function weightedQuantileSorted(values: ArrayLike<number>, weights: ArrayLike<number>, q: number, n: number = values.length): number | null {
  let total = 0;
  for (let i = 0; i < n; i++) {
    const w = weights[i] as number;
    if (w > 0) total += w;
  }
  if (!(total > 0)) return null;
  const target = weightedTarget(total, q);
  let cum = 0;
  let last: number | null = null;
  for (let i = 0; i < n; i++) {
    const w = weights[i] as number;
    if (!(w > 0)) continue;
    cum += w;
    last = values[i] as number;
    if (cum >= target) return last;
  }
  return last;
}

/** Largest value range sorted by counting (Uint32 counts: 16 MiB). */
const COUNTING_SORT_MAX_RANGE = 1 << 22;

/**
 * Sorts the first `n` values ascending in place. Integer data whose range is small (Uint8, Int16, class codes:
 * at most 4·n and 2^22 apart) is sorted by counting in O(n + range); anything else by the engine's native
 * numeric sort. -0 may come back as 0. No NaN allowed.
 */
export function sortValues(values: Float64Array, n: number = values.length): void {
  if (n < 2) return;
  let lo = Infinity;
  let hi = -Infinity;
  let integral = true;
  for (let i = 0; i < n; i++) {
    const v = values[i] as number;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
    if (v !== Math.floor(v)) {
      integral = false;
      break;
    }
  }
  const range = hi - lo;
  if (!integral || !(range <= COUNTING_SORT_MAX_RANGE) || range > 4 * n) {
    values.subarray(0, n).sort();
    return;
  }
  const counts = new Uint32Array(range + 1);
  for (let i = 0; i < n; i++) counts[(values[i] as number) - lo]++;
  let k = 0;
  for (let j = 0; j <= range; j++) {
    const c = counts[j] as number;
    if (c > 0) {
      values.fill(lo + j, k, k + c);
      k += c;
    }
  }
}

/** Lexicographic (value, weight) order: the key that makes every sum over equal values independent of input order. */
function less(v: Float64Array, w: Float64Array, i: number, j: number): boolean {
  const a = v[i] as number;
  const b = v[j] as number;
  return a < b || (a === b && (w[i] as number) < (w[j] as number));
}

function swap(v: Float64Array, w: Float64Array, i: number, j: number): void {
  const tv = v[i] as number;
  v[i] = v[j] as number;
  v[j] = tv;
  const tw = w[i] as number;
  w[i] = w[j] as number;
  w[j] = tw;
}

function insertionSort(v: Float64Array, w: Float64Array, lo: number, hi: number): void {
  for (let i = lo + 1; i <= hi; i++) {
    let j = i;
    while (j > lo && less(v, w, j, j - 1)) {
      swap(v, w, j, j - 1);
      j--;
    }
  }
}

function siftDown(v: Float64Array, w: Float64Array, lo: number, root: number, size: number): void {
  for (;;) {
    let child = 2 * root + 1;
    if (child >= size) return;
    if (child + 1 < size && less(v, w, lo + child, lo + child + 1)) child++;
    if (!less(v, w, lo + root, lo + child)) return;
    swap(v, w, lo + root, lo + child);
    root = child;
  }
}

function heapSort(v: Float64Array, w: Float64Array, lo: number, hi: number): void {
  const size = hi - lo + 1;
  for (let i = (size >> 1) - 1; i >= 0; i--) siftDown(v, w, lo, i, size);
  for (let end = size - 1; end > 0; end--) {
    swap(v, w, lo, lo + end);
    siftDown(v, w, lo, 0, end);
  }
}

function introSort(v: Float64Array, w: Float64Array, lo: number, hi: number, depth: number): void {
  while (hi - lo > 16) {
    if (depth === 0) {
      heapSort(v, w, lo, hi);
      return;
    }
    depth--;
    // Median of three moved to lo, then Hoare partition (splits runs of equal keys evenly).
    const mid = lo + ((hi - lo) >> 1);
    if (less(v, w, mid, lo)) swap(v, w, mid, lo);
    if (less(v, w, hi, lo)) swap(v, w, hi, lo);
    if (less(v, w, hi, mid)) swap(v, w, hi, mid);
    swap(v, w, lo, mid);
    const pv = v[lo] as number;
    const pw = w[lo] as number;
    let i = lo;
    let j = hi + 1;
    for (;;) {
      do i++;
      while (i <= hi && ((v[i] as number) < pv || ((v[i] as number) === pv && (w[i] as number) < pw)));
      do j--;
      while ((v[j] as number) > pv || ((v[j] as number) === pv && (w[j] as number) > pw));
      if (i >= j) break;
      swap(v, w, i, j);
    }
    swap(v, w, lo, j);
    // Recurse into the smaller side, loop on the larger: O(log n) stack.
    if (j - lo < hi - j) {
      introSort(v, w, lo, j - 1, depth);
      lo = j + 1;
    } else {
      introSort(v, w, j + 1, hi, depth);
      hi = j - 1;
    }
  }
  insertionSort(v, w, lo, hi);
}

/**
 * Sorts the first `n` (value, weight) pairs in place, by value then by weight, so that equal values sit
 * together with their weights in a canonical order (sums over them are then bit-identical whatever the
 * insertion order). Introsort: O(n log n) worst case. No NaN allowed.
 */
export function sortPairs(values: Float64Array, weights: Float64Array, n: number = values.length): void {
  if (n < 2) return;
  introSort(values, weights, 0, n - 1, 2 * Math.ceil(Math.log2(n)));
}
