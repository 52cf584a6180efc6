/**
 * Each statistic is declared once (src/stats/catalogue.ts) and the schema, the accumulator's result, the
 * request's parser and the page's form all read that declaration: every declared statistic is accepted by
 * the schema and described in it, parsed for the kinds it applies to, answered by the accumulator and offered
 * by the form; an undeclared name is refused with the message that lists the declared ones.
 */
import { fileURLToPath } from 'node:url';
import { Value } from '@sinclair/typebox/value';
import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';
import { ZonalError } from '../../src/errors.ts';
import { StatsSchema } from '../../src/schemas/common.ts';
import { createAccumulator } from '../../src/stats/accumulator.ts';
import { DEFAULT_STATS, FORM_GROUPS, PERCENTILE, STATISTICS, type SourceKind, type StatDeclaration, type StatName } from '../../src/stats/catalogue.ts';
import { holesOf, listedName, needsOfStat, resolveStat, spell } from '../../src/stats/spelling.ts';
import { needsOf, parseStatNames, validStatNames } from '../../src/stats/names.ts';
import { statChoices, typedPercentiles } from '../../web/src/stat-choices.ts';

const KINDS: SourceKind[] = ['raster', 'vector'];
const declared: readonly StatDeclaration[] = STATISTICS;

/** Names that ask for a declaration: its name, or its template's offered instances and the ends of each range. */
function instances(d: StatDeclaration): string[] {
  const holes = holesOf(d);
  if (holes.length === 0) return [d.name];
  const ends = ['min', 'max'] as const;
  const params = d.params ?? {};
  return [...(d.form.offer ?? []).map((a) => spell(d, a)), ...ends.map((end) => spell(d, Object.fromEntries(holes.map((h) => [h, params[h]![end]]))))];
}

function errorOf(fn: () => unknown): ZonalError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ZonalError) return e;
    throw e;
  }
  throw new Error('no error');
}

describe('the declarations', () => {
  it('have unique names, a description, at least one kind, and a form group', () => {
    const names = declared.map((d) => d.name);
    expect(new Set(names).size).toBe(names.length);
    const groups: string[] = FORM_GROUPS.map((g) => g.id);
    for (const d of declared) {
      expect(d.description, d.name).toMatch(/^\S.*\.$/);
      expect(d.appliesTo.length, d.name).toBeGreaterThan(0);
      expect(groups, d.name).toContain(d.form.group);
      expect(Object.keys(d.params ?? {}), d.name).toEqual(holesOf(d));
    }
  });

  it('keep the contract order and names', () => {
    expect(declared.map((d) => d.name)).toEqual([
      'count',
      'min',
      'max',
      'mean',
      'sum',
      'std',
      'median',
      'percentile_<q>',
      'range',
      'majority',
      'minority',
      'unique',
      'freq_hist',
      'nodata',
      'density',
      'stdev',
      'variance',
      'coefficient_of_variation',
      'variety',
      'mode',
      'frac',
      'quantile',
      'weighted_mean',
      'weighted_sum',
      'weighted_stdev',
      'weighted_variance',
      'weighted_frac',
      'weights',
      'values',
      'coverage',
      'cell_id',
      'center_x',
      'center_y',
      'min_center_x',
      'min_center_y',
      'max_center_x',
      'max_center_y',
    ]);
  });

  it('resolve a template instance to its arguments, and refuse one out of range or misspelt', () => {
    expect(resolveStat('percentile_2.5')).toMatchObject({ key: 'percentile_2.5', declaration: PERCENTILE, args: { q: 2.5 } });
    expect(resolveStat('percentile_05')?.args).toEqual({ q: 5 });
    for (const name of ['percentile_100.01', 'percentile_.5', 'percentile_1e1', 'percentile_', 'percentile_-1', 'Percentile_5'])
      expect(resolveStat(name), name).toBeNull();
    expect(spell(PERCENTILE, { q: 90 })).toBe('percentile_90');
    expect(listedName(PERCENTILE)).toBe('percentile_<q> (q from 0 to 100)');
  });

  it('the default list is declared, applies to both kinds, and is the schema module’s too', () => {
    expect(DEFAULT_STATS).toEqual(['min', 'max', 'mean', 'count']);
    for (const kind of KINDS) expect(parseStatNames(DEFAULT_STATS, kind)).toEqual(DEFAULT_STATS);
  });
});

describe.each(declared.map((d) => [d.name, d] as const))('%s', (_name, d) => {
  const names = instances(d);

  it('is accepted by the schema and described in it', () => {
    expect(Value.Check(StatsSchema, names)).toBe(true);
    const description = StatsSchema.description ?? '';
    expect(description).toContain(`\`${d.name}\``);
    expect(description).toContain(d.description);
  });

  it('is parsed for the kinds it applies to and refused as not applicable for the others', () => {
    for (const kind of KINDS) {
      if (d.appliesTo.includes(kind)) {
        expect(parseStatNames(names, kind)).toEqual(names);
        expect(validStatNames(kind)).toContain(listedName(d));
      } else {
        const e = errorOf(() => parseStatNames(names, kind));
        expect(e.code).toBe('stat_not_applicable');
        expect(e.detail).toBe(`The statistic ${names.map((n) => `'${n}'`).join(', ')} does not apply to ${kind} sources.`);
        expect(validStatNames(kind)).not.toContain(listedName(d));
      }
    }
  });

  it('makes the accumulator track what it declares, and is answered by it, with something counted and with nothing', () => {
    for (const name of names) {
      const stat = resolveStat(name)!;
      const needs = needsOfStat(stat);
      expect(needsOf([name as StatName])).toMatchObject({
        moments: needs.moments === true,
        spread: needs.spread === true,
        minMax: needs.minMax === true,
        values: needs.values === true,
        distinct: needs.distinct === true,
        percentiles: needs.quantiles ?? [],
      });
    }
    for (const weighted of [false, true]) {
      const full = createAccumulator({ names: names as StatName[], weighted });
      [3, 1, 10, 2, 2].forEach((v, i) => full.add(v, weighted ? 0.5 + i / 10 : 1));
      full.addNodata(1);
      const empty = createAccumulator({ names: names as StatName[], weighted });
      for (const acc of [full, empty]) {
        const result = acc.result({ aoiAreaM2: 2e6 });
        // Keyed as exactextract names its columns: quantile(q=0.25) → quantile_25.
        const keys = names.map((n) => resolveStat(n)!.key);
        expect(Object.keys(result)).toEqual(keys);
        for (const key of keys) expect(result[key], key).not.toBeUndefined();
      }
    }
  });

  it('is offered by the form for the kinds it applies to, with its description as the tooltip', () => {
    for (const kind of KINDS) {
      const choices = statChoices(kind).flatMap((g) => g.choices);
      const offered = holesOf(d).length === 0 ? [d.name] : (d.form.offer ?? []).map((a) => spell(d, a));
      for (const value of offered) {
        const choice = choices.find((c) => c.value === value);
        if (d.appliesTo.includes(kind))
          expect(choice, `${value} on the ${kind} form`).toMatchObject({ title: d.description, checked: d.form.checked === true });
        else expect(choice, `${value} on the ${kind} form`).toBeUndefined();
      }
    }
  });
});

describe('an undeclared name', () => {
  it.each(['avg', 'Mean', 'percentile_101', 'aoi_areas'])('%s is refused with the message listing the declared names', (name) => {
    const raster = errorOf(() => parseStatNames(['mean', name], 'raster'));
    expect(raster.code).toBe('unknown_stat');
    const common = 'count, min, max, mean, sum, std, median, range, majority, minority, unique, freq_hist';
    const exactextract =
      'stdev, variance, coefficient_of_variation, variety, mode, frac, weighted_mean, weighted_sum, weighted_stdev, weighted_variance, weighted_frac, weights, values, coverage, cell_id, center_x, center_y, min_center_x, min_center_y, max_center_x, max_center_y';
    expect(raster.detail).toBe(
      `Unknown statistic '${name}'; valid names are ${common}, nodata, ${exactextract}, percentile_<q> (q from 0 to 100), quantile(q=…) (q from 0 to 1).`,
    );
    expect(raster.extras['errors']).toEqual([{ path: '/stats/1', message: `unknown statistic '${name}'` }]);
    const vector = errorOf(() => parseStatNames([name], 'vector'));
    expect(vector.detail).toBe(`Unknown statistic '${name}'; valid names are ${common}, density, percentile_<q> (q from 0 to 100).`);
  });

  it('passes the schema (which checks strings only) so that the parser can name it', () => {
    expect(Value.Check(StatsSchema, ['avg'])).toBe(true);
    expect(Value.Check(StatsSchema, [])).toBe(false);
  });
});

describe('the schema', () => {
  it('lists the declared names, the one kind of those that apply to one, and the default, as before', () => {
    expect((StatsSchema.description ?? '').split('\n')[0]).toBe(
      'Statistics to compute: count, min, max, mean, sum, std, median, percentile_<q>, range, majority, minority, unique, freq_hist, ' +
        'nodata (raster), density (vector), stdev (raster), variance (raster), coefficient_of_variation (raster), variety (raster), ' +
        'mode (raster), frac (raster), quantile (raster), weighted_mean (raster), weighted_sum (raster), weighted_stdev (raster), weighted_variance (raster), weighted_frac (raster), weights (raster), ' +
        'values (raster), coverage (raster), cell_id (raster), center_x (raster)' +
        ', center_y (raster), min_center_x (raster), min_center_y (raster), max_center_x (raster), max_center_y (raster). Default ["min","max","mean","count"].',
    );
  });
});

describe('the form', () => {
  it('offers each kind its statistics by group, the defaults ticked', () => {
    const shown = (kind: SourceKind) => statChoices(kind).map((g) => [g.label, g.choices.map((c) => (c.checked ? `${c.value}*` : c.value))]);
    expect(shown('raster')).toEqual([
      ['Summary', ['count*', 'min*', 'max*', 'mean*', 'sum', 'std*', 'range', 'nodata', 'stdev', 'variance', 'coefficient_of_variation']],
      ['Quantiles', ['median*', 'percentile_10', 'percentile_90', 'quantile(q=0.25)', 'quantile(q=0.75)']],
      ['Distinct values', ['majority', 'minority', 'unique', 'freq_hist', 'variety', 'mode', 'frac']],
      ['Weighted (with weights)', ['weighted_mean', 'weighted_sum', 'weighted_stdev', 'weighted_variance', 'weighted_frac']],
      ['Per pixel', ['weights', 'values', 'coverage', 'cell_id', 'center_x', 'center_y', 'min_center_x', 'min_center_y', 'max_center_x', 'max_center_y']],
    ]);
    expect(shown('vector')).toEqual([
      ['Summary', ['count*', 'min*', 'max*', 'mean*', 'sum', 'std*', 'range', 'density']],
      ['Quantiles', ['median*', 'percentile_10', 'percentile_90']],
      ['Distinct values', ['majority', 'minority', 'unique', 'freq_hist']],
    ]);
  });

  it('spells typed-in percentiles as typed (the service names a bad one)', () => {
    expect(typedPercentiles(' 25, 7.5;abc  05 ')).toEqual(['percentile_25', 'percentile_7.5', 'percentile_abc', 'percentile_05']);
    expect(typedPercentiles('')).toEqual([]);
  });

  it('bundles for the browser with the catalogue and its pure helpers as its only imports', async () => {
    const entry = fileURLToPath(new URL('../../web/src/stat-choices.ts', import.meta.url));
    const result = await esbuild.build({
      entryPoints: [entry],
      bundle: true,
      write: false,
      platform: 'browser',
      format: 'esm',
      metafile: true,
      logLevel: 'silent',
    });
    expect(Object.keys(result.metafile.inputs).sort()).toEqual([
      'src/stats/catalogue.ts',
      'src/stats/declaration.ts',
      'src/stats/exactextract.ts',
      'src/stats/spelling.ts',
      'src/stats/weighted-quantile.ts',
      'src/stats/weighting.ts',
      'web/src/stat-choices.ts',
    ]);
  });
});
