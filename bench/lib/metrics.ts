/** The service's GET /metrics for the benchmark drivers: one scrape as sample → value, and the fold's phases. */

/** GET /metrics of the service on `port` as sample → value (`name` or `name{labels}` as written). */
export async function scrape(port: number): Promise<Map<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const m = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const sp = line.lastIndexOf(' ');
    m.set(line.slice(0, sp), Number(line.slice(sp + 1)));
  }
  return m;
}

/** The phases of `zonal_fold_phase_seconds_total` (src/observe.ts countFold). */
export const PHASES = ['inflate', 'samples', 'coverage', 'fold', 'worker', 'fetch', 'run'] as const;

/** mulberry32: a small seeded generator of uniform numbers in [0, 1) (the benchmarks' random places). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
