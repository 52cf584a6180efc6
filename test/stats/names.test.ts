import { describe, expect, it } from 'vitest';
import { ZonalError } from '../../src/errors.ts';
import { isStatName, needsOf, parseStatNames, percentileOf, validStatNames } from '../../src/stats/names.ts';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return e instanceof ZonalError ? e.code : 'not a ZonalError';
  }
  return undefined;
}

describe('parseStatNames', () => {
  it('accepts every catalogue name for its kind, in order', () => {
    const raster = ['count', 'min', 'max', 'mean', 'sum', 'std', 'median', 'percentile_90', 'range', 'majority', 'minority', 'unique', 'freq_hist', 'nodata'];
    expect(parseStatNames(raster, 'raster')).toEqual(raster);
    const vector = ['density', 'count', 'percentile_2.5', 'freq_hist'];
    expect(parseStatNames(vector, 'vector')).toEqual(vector);
  });

  it('de-duplicates keeping the first order', () => {
    expect(parseStatNames(['mean', 'count', 'mean', 'min', 'count'], 'raster')).toEqual(['mean', 'count', 'min']);
  });

  it('accepts aoi_area and data_area as no-ops (they are always in the response)', () => {
    expect(parseStatNames(['aoi_area', 'mean', 'data_area'], 'raster')).toEqual(['mean']);
    expect(parseStatNames(['aoi_area'], 'vector')).toEqual([]);
  });

  it('rejects an empty list with validation_failed', () => {
    expect(codeOf(() => parseStatNames([], 'raster'))).toBe('validation_failed');
  });

  it.each([
    'percentile_abc',
    'percentile_101',
    'percentile_-1',
    'percentile_',
    'percentile_.5',
    'percentile_1e1',
    'percentile_5.',
    'Mean',
    'stat',
    'percentile_100.01',
  ])('rejects %s with unknown_stat', (name) => {
    expect(codeOf(() => parseStatNames([name], 'raster'))).toBe('unknown_stat');
  });

  it('lists the valid names in the unknown_stat message and points at each bad entry', () => {
    try {
      parseStatNames(['mean', 'avg', 'percentile_101'], 'raster');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ZonalError);
      const err = e as ZonalError;
      expect(err.code).toBe('unknown_stat');
      expect(err.detail).toContain("'avg'");
      expect(err.detail).toContain("'percentile_101'");
      for (const n of [
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
      ]) {
        expect(err.detail).toContain(n);
      }
      expect(err.detail).not.toContain('density');
      expect(err.extras['errors']).toEqual([
        { path: '/stats/1', message: "unknown statistic 'avg'" },
        { path: '/stats/2', message: "unknown statistic 'percentile_101'" },
      ]);
    }
  });

  it('accepts percentile bounds and decimals', () => {
    expect(parseStatNames(['percentile_0', 'percentile_100', 'percentile_2.5', 'percentile_99.99'], 'raster')).toHaveLength(4);
  });

  it('rejects density on a raster and nodata on a vector with stat_not_applicable', () => {
    expect(codeOf(() => parseStatNames(['mean', 'density'], 'raster'))).toBe('stat_not_applicable');
    expect(codeOf(() => parseStatNames(['nodata'], 'vector'))).toBe('stat_not_applicable');
  });

  it('reports unknown names before inapplicable ones', () => {
    expect(codeOf(() => parseStatNames(['density', 'foo'], 'raster'))).toBe('unknown_stat');
  });
});

describe('percentileOf / isStatName / validStatNames', () => {
  it('parses q', () => {
    expect(percentileOf('percentile_2.5')).toBe(2.5);
    expect(percentileOf('percentile_0')).toBe(0);
    expect(percentileOf('percentile_100')).toBe(100);
    expect(percentileOf('percentile_100.5')).toBeNull();
    expect(percentileOf('median')).toBeNull();
  });
  it('knows the names', () => {
    expect(isStatName('freq_hist')).toBe(true);
    expect(isStatName('aoi_area')).toBe(false);
    expect(validStatNames('vector')).toContain('density');
    expect(validStatNames('vector')).not.toContain('nodata');
  });
});

describe('needsOf', () => {
  it('asks for moments only for mean/sum/std, and the second moment only for std', () => {
    expect(needsOf(['count', 'min', 'max'])).toEqual({
      moments: false,
      spread: false,
      minMax: true,
      values: false,
      distinct: false,
      percentiles: [],
      cells: false,
    });
    expect(needsOf(['mean'])).toMatchObject({ moments: true, spread: false });
    expect(needsOf(['sum', 'mean'])).toMatchObject({ moments: true, spread: false });
    expect(needsOf(['std'])).toMatchObject({ moments: true, spread: true, values: false });
  });
  it('keeps values for the order statistics, and caps distinct values only for unique/freq_hist', () => {
    expect(needsOf(['median', 'percentile_10', 'percentile_50'])).toMatchObject({ values: true, distinct: false, percentiles: [50, 10] });
    expect(needsOf(['majority'])).toMatchObject({ values: true, distinct: false });
    expect(needsOf(['minority'])).toMatchObject({ values: true, distinct: false });
    expect(needsOf(['unique'])).toMatchObject({ values: true, distinct: true });
    expect(needsOf(['freq_hist'])).toMatchObject({ values: true, distinct: true });
  });
});
