/**
 * Data cubes against an independent oracle: fixtures/cube/oracle/*.json were computed by
 * tools/oracle/cube_oracle.py (xarray decoding, shapely coverage, numpy), never by this service. Each case's
 * store is served by a real HTTP server honouring Range (Zarr keys as objects, kerchunk references as byte
 * ranges of the NetCDF file), and every row must match: zones in input order, steps in axis order, the
 * iterated dimensions' coordinates, and each statistic.
 */
import { readFileSync, existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildTestApp } from '../helpers/build-app.ts';
import { startRangeServer, type RangeServer } from '../helpers/range-server.ts';

const ROOT = new URL('../../fixtures/cube/', import.meta.url).pathname;

interface Case {
  name: string;
  request: Record<string, unknown> & { url: string };
  aoi: { type: 'FeatureCollection'; features: unknown[] };
}
interface OracleRow {
  zone: number;
  coords: Record<string, string | number>;
  stats: Record<string, number | null>;
}

const cases = (JSON.parse(readFileSync(`${ROOT}cases.json`, 'utf8')) as Case[]).filter((c) => existsSync(`${ROOT}oracle/${c.name}.json`));

/** Whether two statistics agree: exact for nulls, to `tol` (relative, or absolute near 0) for numbers. */
function close(a: unknown, b: number | null, tol: number): boolean {
  if (b === null) return a === null;
  if (typeof a !== 'number') return false;
  return Math.abs(a - b) <= tol * Math.max(1, Math.abs(b));
}

/**
 * The tolerance of a zone's statistic: 1e-9, except where the oracle measured how much the answer moves
 * when a zone's lon/lat edges are densified to 1/100 of a cell instead of its 0.002° (a projected grid:
 * the service densifies to 1/100 of a cell); then one and a half times that drift.
 */
function toleranceOf(checks: OracleChecks | undefined, zone: number, stat: string): number {
  const drift = checks?.zones?.[zone]?.['stats_max_rel_diff_at_0.01_cell_densify']?.[stat];
  return drift === undefined ? 1e-9 : Math.max(1e-9, 1.5 * drift);
}

interface OracleChecks {
  zones?: { 'stats_max_rel_diff_at_0.01_cell_densify'?: Record<string, number> }[];
}

let app: FastifyInstance;
let files: RangeServer;

beforeAll(async () => {
  files = await startRangeServer({ root: ROOT });
  app = await buildTestApp();
});
afterAll(async () => {
  await app.close();
  await files.close();
});

describe('cube: every case of fixtures/cube/cases.json equals the xarray oracle', () => {
  it('has the cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(30);
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const oracle = JSON.parse(readFileSync(`${ROOT}oracle/${c.name}.json`, 'utf8')) as { rows: OracleRow[]; checks?: OracleChecks };
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/zonal-stats/cube',
      headers: { accept: 'application/x-ndjson' },
      payload: { ...c.request, url: files.url(`/${c.request.url}`), aoi: c.aoi },
    });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    const lines = res.body
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown> & { index: number; statistics: Record<string, Record<string, unknown>> });
    expect(lines.length).toBe(oracle.rows.length);
    // An expression's answer is keyed `expression`, a variable's by its name.
    const variable = c.request['expression'] !== undefined ? 'expression' : (c.request['variable'] as string);
    oracle.rows.forEach((row, k) => {
      const line = lines[k] as (typeof lines)[number];
      expect(line.index, `row ${k}`).toBe(row.zone);
      for (const [dim, value] of Object.entries(row.coords)) expect(line[dim], `row ${k} ${dim}`).toBe(value);
      const stats = line.statistics[variable] as Record<string, unknown>;
      for (const [stat, value] of Object.entries(row.stats)) {
        expect(
          close(stats[stat], value, toleranceOf(oracle.checks, row.zone, stat)),
          `row ${k} (zone ${row.zone} ${JSON.stringify(row.coords)}) ${stat}: ${String(stats[stat])} against ${String(value)}`,
        ).toBe(true);
      }
    });
  });
});
