/**
 * exactextract's operations through the API against exactextract itself (fixtures/exactextract/README.md):
 * the cases of its own Python test suite, ported as data (ported.json, the numbers its tests assert), and
 * its CLI run over real and synthetic rasters for every operation and argument set (oracle/*.json).
 *
 * How answers are compared, where the contract and exactextract differ on purpose (issue 24):
 * - exactextract's `majority` ties to the larger value: it is this service's `mode` (our `majority` ties to the
 *   smaller, as rasterstats); its `median` is its quantile at 0.5, asked here as `quantile(q=0.5)` (our `median`
 *   is numpy's). Its quantiles are cast to the raster's type (truncated on integer rasters, float32 on float32
 *   ones): the service's are not, so they are compared after the same cast.
 * - An empty zone's `sum` is 0 to exactextract and null here (the contract); its NaN is null here.
 * - `unique` and `frac` come in hash order from exactextract: compared as sets and maps.
 * - exactextract keeps coverage fractions and cell areas in float32: numbers agree to 3e-7 relative (issue 24);
 *   counts of whole cells and `variety` exactly.
 * - exactextract starts its running max at the type's lowest value and its min at the highest, and moves them
 *   (and their centres) only on a strict change (src/raster_stats.h): where every value is that extreme (a uint8
 *   zone all 0), it answers the centre (0, 0). Those rows are left out, by that rule.
 * Operations this service does not answer yet (weights, per-cell output) are counted and left out, by name.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, fixtureUrl } from '../helpers/build-app.ts';
import { agrees, asked, batches, NOT_YET, type Cast } from '../helpers/exactextract.ts';

const DIR = new URL('../../fixtures/exactextract/', import.meta.url);
const read = (f: string): unknown => JSON.parse(readFileSync(new URL(f, DIR), 'utf8'));

interface OracleFile {
  raster: string;
  weights: { raster: string; band: number } | null;
  band: number;
  zones: { id: string; aoi: unknown; results: { op: string; key: string; value?: unknown; error?: string }[] }[];
}

describe("exactextract's operations against exactextract", () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await buildTestApp();
  });
  afterAll(async () => app.close());

  async function ask(raster: string, band: number, aoi: unknown, body: Record<string, unknown>) {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/zonal-stats/raster',
      payload: { url: fixtureUrl(raster), aoi, bands: [band], pixels: 'fractional', ...body },
    });
    return { status: res.statusCode, body: res.json() as Record<string, Record<string, unknown>> };
  }

  const oracle: [string, Cast][] = [
    ['elev.json', 'int'],
    ['elev_scaled.json', 'none'],
    ['float32.json', 'float32'],
    ['classes_uint8.json', 'int'],
    // Weights of twice the value cell size, on its cell edges: every value pixel in one weights cell.
    ['float32_weighted_coarse.json', 'float32'],
    ['classes_uint8_weighted_coarse.json', 'int'],
    // Weights of half the value cell size: exactextract computes every statistic on the weights' finer grid.
    // Its weighted statistics are ours; its unweighted ones count the finer cells (count × 4), where ours keep
    // the value cells (the contract's meaning): only the weighted ones are compared.
    ['float32_weighted.json', 'float32'],
    ['classes_uint8_weighted.json', 'int'],
  ];
  it.each(oracle)("oracle/%s: every operation and argument set this service answers, on every zone, as exactextract's CLI", async (file, cast) => {
    const o = read(`oracle/${file}`) as OracleFile;
    const finer = !file.endsWith('_coarse.json') && o.weights !== null;
    const weights = o.weights ? { weights: { url: fixtureUrl(o.weights.raster), band: o.weights.band } } : {};
    let compared = 0;
    const left = new Set<string>();
    for (const zone of o.zones) {
      // Left out, by rule: a row the CLI failed on; and with weights, default_value on cells beyond the value
      // raster (the CLI computes on the union of both extents and fills them; here they are outside the grid).
      const beyond = (op: string): boolean => o.weights !== null && zone.id === 'partly_outside' && op.includes('default_value');
      // On the finer grid exactextract gives the cells beside a polygon edge that lies on a cell edge a sliver of
      // coverage (~1e-13, its grid's edges rounded); with coverage_weight=none a sliver counts its cell whole.
      // The service's coverage there is exactly 0: such a zone's coverage_weight=none answers are left out.
      const sliver = (op: string): boolean => zone.id === 'tie' && op.includes('coverage_weight=none');
      const rows = zone.results
        .filter((r) => r.error === undefined && !beyond(r.op) && (!finer || r.op.startsWith('weighted_')) && !(finer && sliver(r.op)))
        .flatMap((r) => {
          const a = asked(r.op);
          if (a === null) left.add(r.op.split('(')[0] as string);
          return a === null ? [] : [{ ...a, op: r.op, want: r.value }];
        });
      // Whether a channel counted nothing: exactextract's count with the same weighting arguments is 0 (default_weight changes no count).
      const argsOf = (op: string): string =>
        (/\((.*)\)$/.exec(op)?.[1] ?? '')
          .split(',')
          .filter((a) => !a.startsWith('q=') && !a.startsWith('default_weight='))
          .join(',');
      const emptyWith = (op: string): boolean => {
        const args = argsOf(op);
        return zone.results.find((r) => r.op === (args === '' ? 'count' : `count(${args})`))?.value === 0;
      };
      // exactextract's unmoved extremes (above): its min / max with the same arguments is the type's own.
      const lowest = cast === 'int' && file.startsWith('classes_uint8') ? 0 : Number.NaN;
      const unmoved = (op: string): boolean => {
        const m = /^(min|max)_center_[xy](?:\((.*)\))?$/.exec(op);
        if (!m) return false;
        const value = zone.results.find((r) => r.op === (m[2] ? `${m[1]}(${m[2]})` : m[1]))?.value;
        return m[1] === 'max' && value === lowest;
      };
      for (const batch of batches(rows.filter((r) => !unmoved(r.op)))) {
        const res = await ask(o.raster, o.band, zone.aoi, { ...weights, stats: batch.map((b) => b.stat) });
        expect(res.status, `${zone.id}: ${JSON.stringify(res.body)}`).toBe(200);
        const band = res.body[`band_${o.band}`] as Record<string, unknown>;
        for (const b of batch) {
          expect(
            agrees(b.op, band[b.key], b.want, b.cast ? cast : null, emptyWith(b.op)),
            `${file} ${zone.id} ${b.op}: got ${JSON.stringify(band[b.key])}, exactextract ${JSON.stringify(b.want)}`,
          ).toBe(true);
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(finer ? 200 : 500);
    expect([...left].sort()).toEqual([...NOT_YET].filter((n) => left.has(n)).sort());
  });

  interface Ported {
    id: string;
    raster: string;
    band: number;
    weights: { raster: string; band: number } | null;
    aoi: unknown;
    body: { stats: string[]; [k: string]: unknown };
    expected: Record<string, unknown>;
    /** exactextract refuses the case (its message): so must the service, with a 422. */
    expected_error?: string;
    tolerance?: number;
    rtol?: number;
  }
  const ported = read('ported.json') as Ported[];
  // Zones are areas or points here: a line zone (test_linear_geom) is a 422, not a statistic.
  const isLine = (c: Ported): boolean => /LineString/.test(JSON.stringify(c.aoi));
  /** Cases where the contract answers on purpose what exactextract refuses. */
  const DIFFERS: Record<string, string> = {
    // A bare point takes the pixel that contains it (contract §3); exactextract takes polygons only.
    point_geom: 'a point is a zone here',
    // Values are doubles after scale and offset here: default_value=128 on an int8 raster is 128, not out of range.
    default_value_out_of_range_int_128: 'default_value is a double here',
  };
  const answerable = ported.filter(
    (c) => c.body['grid_compat_tol'] === undefined && !isLine(c) && !(c.id in DIFFERS) && c.body.stats.every((s) => asked(s) !== null),
  );

  it('ports most of the cases exactextract asserts', () => {
    expect(answerable.length).toBeGreaterThanOrEqual(90);
  });
  it.each(answerable.map((c) => [c.id, c] as const))('ported %s', async (_id, c) => {
    const stats = c.body.stats.map((s) => asked(s) as { stat: string; key: string; cast: boolean });
    const { stats: _s, pixels: _p, ...rest } = c.body;
    // count too (when not asked), to tell an empty zone, whose sum is null here and 0 to exactextract.
    const extra = stats.some((s) => s.key === 'count') ? [] : ['count'];
    const weights = c.weights ? { weights: { url: fixtureUrl(c.weights.raster), band: c.weights.band } } : {};
    const res = await ask(c.raster, c.band, c.aoi, { ...rest, ...weights, stats: [...stats.map((s) => s.stat), ...extra] });
    if (c.expected_error !== undefined) {
      expect(res.status, `exactextract: ${c.expected_error}`).toBe(422);
      return;
    }
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const band = res.body[`band_${c.band}`] as Record<string, unknown>;
    const empty = band['count'] === 0;
    c.body.stats.forEach((op, i) => {
      const s = stats[i] as { key: string; cast: boolean };
      const want = c.expected[op.split('(')[0] === 'quantile' ? s.key : (op.split('(')[0] as string)];
      if (want === undefined) return;
      const got = band[s.key];
      if (typeof want === 'number' && typeof got === 'number' && !s.cast && !empty) {
        expect(Math.abs(got - want), `${op}: ${got} vs ${want}`).toBeLessThanOrEqual((c.tolerance ?? 0) + ((c.rtol ?? 0) + 3e-7) * Math.abs(want));
      } else {
        expect(agrees(op, got, want, s.cast ? 'int' : null, empty), `${op}: got ${JSON.stringify(got)}, asserted ${JSON.stringify(want)}`).toBe(true);
      }
    });
  });
});
