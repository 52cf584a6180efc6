/**
 * How an exactextract answer is asked of this service and compared (test/zonal/exactextract.test.ts states
 * the rules; raster-zones.test.ts uses the same).
 */

/** Operations not answered yet: left out of these checks, by name (none today). */
export const NOT_YET = new Set<string>();

export type Cast = 'int' | 'float32' | 'none';

/** An exactextract operation as this service is asked it, and the key of its answer. */
export function asked(op: string): { stat: string; key: string; cast: boolean } | null {
  const m = /^(\w+)(?:\((.*)\))?$/.exec(op);
  if (!m) throw new Error(`unreadable op ${op}`);
  const [, name = '', inner] = m;
  if (NOT_YET.has(name)) return null;
  const args = inner ?? '';
  const call = (n: string, a: string): string => (a === '' ? n : `${n}(${a})`);
  if (name === 'majority') return { stat: call('mode', args), key: 'mode', cast: false };
  if (name === 'median') return { stat: `quantile(${['q=0.5', args].filter((a) => a !== '').join(',')})`, key: 'quantile_50', cast: true };
  if (name === 'quantile') {
    const q = Number(/q=([^,]+)/.exec(args)?.[1]);
    return { stat: call(name, args), key: `quantile_${Math.trunc(q * 100)}`, cast: true };
  }
  return { stat: call(name, args), key: name, cast: false };
}

const castTo = (cast: Cast, x: number): number => (cast === 'int' ? Math.trunc(x) : cast === 'float32' ? Math.fround(x) : x);

/** Whether the service's answer `got` is exactextract's `want` under the rules above. */
export function agrees(op: string, got: unknown, want: unknown, cast: Cast | null, empty: boolean): boolean {
  const base = op.split('(')[0] as string;
  if (want === 'NaN' || want === null) return got === null;
  if ((base === 'sum' || base === 'weighted_sum') && empty && want === 0) return got === null;
  // A weighted list or map with NaN in it (a pixel without a weight): null here.
  const nan = (x: unknown): boolean => x === 'NaN';
  if (got === null && Array.isArray(want) && want.some(nan)) return true;
  if (got === null && typeof want === 'object' && Object.values(want as object).some(nan)) return true;
  if (Array.isArray(want)) {
    if (!Array.isArray(got) || got.length !== want.length) return false;
    // unique in hash order; the per-cell lists in cell order (coverage in float32, centres to the last bits).
    if (base === 'unique') {
      const a = [...(want as number[])].sort((x, y) => x - y);
      const b = [...(got as number[])].sort((x, y) => x - y);
      return a.every((x, i) => x === b[i]);
    }
    if (base === 'values' || base === 'cell_id') return want.every((x, i) => x === got[i]);
    // A partly covered cell's cᵢ is off by float32's step of a whole cell's, not of its own.
    const whole = Math.max(...(want as number[]).map(Math.abs), 1e-300);
    return want.every((x, i) => Math.abs((got[i] as number) - (x as number)) <= 3e-7 * Math.max(whole, Math.abs(x as number)));
  }
  if (typeof want === 'object') {
    if (got === null || typeof got !== 'object') return false;
    // exactextract's slivers (a fraction below 1e-9, from a polygon edge that lies on a cell edge of the finer
    // grid, rounded off it) name a value the cell holds none of: left out when the service has no such value.
    const g = new Map(Object.entries(got as Record<string, number>).map(([k, v]) => [Number(k), v]));
    const w = new Map(
      Object.entries(want as Record<string, number>)
        .map(([k, v]): [number, number] => [Number(k), v])
        .filter(([k, v]) => v > 1e-9 || g.has(k)),
    );
    return w.size === g.size && [...w].every(([k, v]) => g.has(k) && close(g.get(k) as number, v));
  }
  if (typeof got !== 'number' || typeof want !== 'number') return false;
  if (base === 'variety') return got === want;
  if (cast !== null) return castTo(cast, got) === want || close(got, want);
  return close(got, want);
}

function close(got: number, want: number): boolean {
  return Math.abs(got - want) <= 3e-7 * Math.max(1, Math.abs(want));
}

/** Requests with distinct answer keys (two operations with one key cannot share one). */
export function batches<T extends { key: string }>(items: T[]): T[][] {
  const out: T[][] = [];
  for (const item of items) {
    let batch = out.find((b) => !b.some((x) => x.key === item.key));
    if (!batch) out.push((batch = []));
    batch.push(item);
  }
  return out;
}
