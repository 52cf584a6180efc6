/**
 * Plan once per grid (issue 21): rasters of one grid answered in one request (the Items of a tile over
 * time) share each zone's plan, and their zones share one name across Items, so the workers reuse each
 * coverage; a raster on another grid gets plans of its own. The answers are those of planning afresh.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MemorySource } from '../../src/source/memory.ts';
import { createFoldRunner } from '../../src/workers/pool.ts';
import { rasterZones, type PlanCache, type RasterDeps } from '../../src/zonal/raster.ts';
import { checkZones } from '../../src/schemas/zones.ts';
import { testConfig, FIXTURES } from '../helpers/build-app.ts';
import type { GeometryRequest } from '../../src/schemas/aoi.ts';
import { tally } from '../../src/observe.ts';

const bytes = (f: string) => readFileSync(`${FIXTURES}${f}`);
const sources: Record<string, Buffer> = {
  // Two "Items" of one grid (the same file under two URLs), and a raster of another grid.
  'mem://a/L7.tif': bytes('raster/L7_ETMs.cog.tif'),
  'mem://b/L7.tif': bytes('raster/L7_ETMs.cog.tif'),
  'mem://c/elev.tif': bytes('raster/elev.cog.tif'),
};
const zones: GeometryRequest[] = [
  { type: 'Point', coordinates: [-34.87, -7.99], radius: 500 } as GeometryRequest,
  {
    type: 'Polygon',
    coordinates: [
      [
        [-34.9, -8.02],
        [-34.86, -8.02],
        [-34.86, -7.98],
        [-34.9, -7.98],
        [-34.9, -8.02],
      ],
    ],
  },
  {
    type: 'Polygon',
    coordinates: [
      [
        [6.0, 49.6],
        [6.2, 49.6],
        [6.2, 49.8],
        [6.0, 49.8],
        [6.0, 49.6],
      ],
    ],
  },
];

async function answers(url: string, deps: RasterDeps, keys?: string[]): Promise<unknown[]> {
  const out: unknown[] = [];
  const given = checkZones(
    zones.map((geometry, index) => ({ index, id: null, properties: null, geometry })),
    undefined,
  );
  for await (const a of rasterZones({ url, stats: ['count', 'mean', 'min', 'max'], pixels: 'fractional' }, given, deps, keys ? { keys } : {})) {
    out.push('error' in a ? (a.error as Error).message : a.statistics);
  }
  return out;
}

describe('plans shared by rasters of one grid', () => {
  it('plans each zone once per grid; the same answers as planning afresh', async () => {
    const runner = createFoldRunner(1);
    try {
      const base = { config: testConfig(), runner, openSource: async (url: string) => new MemorySource(sources[url] as Buffer, url) };
      const plans: PlanCache = new Map();
      const keys = zones.map((_, i) => `zone ${i}`);
      const a = await answers('mem://a/L7.tif', { ...base, plans }, keys);
      expect(plans.size).toBe(zones.length);
      const first = [...plans.values()];
      const worked = tally.fold.coverages;
      const reused = tally.fold.reused;
      const b = await answers('mem://b/L7.tif', { ...base, plans }, keys);
      // The one worker reused every coverage of the first raster's blocks for the second's.
      expect(tally.fold.coverages).toBe(worked);
      expect(tally.fold.reused - reused).toBeGreaterThan(0);
      // The second raster of the grid planned nothing: the same plan objects, the same shared names.
      expect(plans.size).toBe(zones.length);
      expect([...plans.values()]).toEqual(first);
      expect(first.every((p) => 'share' in p && typeof p.share === 'string')).toBe(true);
      const c = await answers('mem://c/elev.tif', { ...base, plans }, keys);
      expect(plans.size).toBe(2 * zones.length);
      // Every answer equals the one planned afresh, without the cache.
      expect(a).toEqual(await answers('mem://a/L7.tif', base));
      expect(b).toEqual(a);
      expect(c).toEqual(await answers('mem://c/elev.tif', base));
      expect((a[0] as Record<string, { count: number }>)['band_1']?.count).toBeGreaterThan(0);
      expect((c[2] as Record<string, { count: number }>)['band_1']?.count).toBeGreaterThan(0);
    } finally {
      await runner.close();
    }
  });
});
