/**
 * exactextract's weighted quantile (src/weighted_quantiles.cpp, after https://stats.stackexchange.com/a/13223),
 * which its `quantile` and `median` operations answer. Pure.
 */

/**
 * Over the distinct values x₁ < … < xₙ with total weights wᵢ (their summed coverage), sₖ = (k − 1)·wₖ +
 * (n − 1)·Σ_{i<k} wᵢ; the q-quantile (q from 0 to 1) interpolates linearly in s at q·(n − 1)·Σw. Equal
 * weights give numpy's linear rule over the distinct values. Null when there are none.
 */
export function weightedQuantile(xs: readonly number[], ws: readonly number[], q: number): number | null {
  const n = xs.length;
  if (n === 0) return null;
  const s = new Array<number>(n);
  let sumW = 0;
  let cum = 0;
  for (let k = 0; k < n; k++) {
    const w = ws[k] as number;
    sumW += w;
    s[k] = k === 0 ? 0 : k * w + (n - 1) * cum;
    cum += w;
  }
  const target = q * (sumW * (n - 1));
  // The first element whose s exceeds the target (upper_bound), and the one before it.
  let right = 0;
  while (right < n && !((s[right] as number) > target)) right++;
  const left = right - 1;
  if (right === n) return xs[left] as number;
  const [xl, xr, sl, sr] = [xs[left] as number, xs[right] as number, s[left] as number, s[right] as number];
  return xl + ((target - sl) * (xr - xl)) / (sr - sl);
}
