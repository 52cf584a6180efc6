/**
 * The page's reading of answers with several rows per zone (web/src/table.ts, web/src/series.ts; no DOM):
 * raster/stac/search's zones × time, and a cube's lines (iterated dimensions beside the zone: a `time` on a
 * calendar that is not the real one, a numeric `level`; statistics per variable). The browser test
 * (page.test.ts) charts a real stac/search answer; this pins the shapes and the axis order.
 */
import { describe, expect, it } from 'vitest';
import type { AnswerLine } from '../../web/src/api.ts';
import { defaultChoice, holdAt, isoTime, seriesData, seriesOptions } from '../../web/src/series.ts';
import { headerCells, resultTable, rowCells } from '../../web/src/table.ts';

const stats = (mean: number, extra: Record<string, unknown> = {}) => ({ band_1: { count: 10, mean, ...extra } });

describe('the page reads zones × time', () => {
  it('stac/search: a line per zone, times merged across zones in time order, failed rows left out, ids else index', () => {
    const lines: AnswerLine[] = [
      { index: 0, id: 'a', properties: { site: 'x' }, item_id: 'i1', datetime: '2024-01-15T10:00:00Z', statistics: stats(1) },
      { index: 0, id: 'a', properties: { site: 'x' }, item_id: 'i3', datetime: '2024-03-15T10:00:00Z', statistics: stats(3) },
      { index: 1, id: null, properties: {}, item_id: 'i2', datetime: '2024-02-15T10:00:00+01:00', statistics: stats(20) },
      { index: 1, id: null, properties: {}, item_id: 'i4', datetime: '2024-01-01', statistics: stats(10) },
      { index: 1, id: null, properties: {}, item_id: 'i5', datetime: '2024-04-01T00:00:00Z', error: { status: 422, code: 'x', detail: 'broken' } },
      { index: 2, id: 'sea', properties: {}, item_id: null, datetime: null, error: { status: 422, code: 'no_items', detail: 'none' } },
    ];
    const table = resultTable('band', lines);
    expect(headerCells(table)).toEqual(['zone', 'id', 'item_id', 'datetime', 'band', 'count', 'mean', 'error']);
    expect(rowCells(table, table.rows[0]!)).toEqual(['0', 'a', 'i1', '2024-01-15T10:00:00Z', '1', '10', '1', '']);
    const options = seriesOptions(table)!;
    expect(options.dims.map((d) => d.name)).toEqual(['datetime']); // an Item's id is no axis
    const choice = defaultChoice(options);
    expect(choice).toEqual({ key: 'band_1', stat: 'mean', x: 'datetime', at: {} });
    const data = seriesData(table, options, choice);
    expect(data.labels).toEqual(['2024-01-01', '2024-01-15T10:00:00Z', '2024-02-15T10:00:00+01:00', '2024-03-15T10:00:00Z']);
    expect(data.lines).toEqual([
      {
        zone: 0,
        name: 'a',
        points: [
          { x: '2024-01-15T10:00:00Z', y: 1 },
          { x: '2024-03-15T10:00:00Z', y: 3 },
        ],
      },
      {
        zone: 1,
        name: 'zone 1',
        points: [
          { x: '2024-01-01', y: 10 },
          { x: '2024-02-15T10:00:00+01:00', y: 20 },
        ],
      },
    ]);
  });

  it('one row per zone (raster, or stac/search asof): no series, even with several bands', () => {
    const lines: AnswerLine[] = [0, 1].map((index) => ({ index, id: null, properties: {}, statistics: { band_1: { mean: 1 }, band_2: { mean: 2 } } }));
    expect(seriesOptions(resultTable('band', lines))).toBeNull();
    const asof: AnswerLine[] = [{ index: 0, id: 'a', properties: {}, item_id: 'i', datetime: '2024-01-01T00:00:00Z', statistics: stats(1) }];
    expect(seriesOptions(resultTable('band', asof))).toBeNull();
  });

  it('a cube: time on a 360-day calendar in axis order, level held at a value, statistics per variable', () => {
    const times = ['2001-02-29T00:00:00', '2001-02-30T00:00:00', '2001-03-01T00:00:00'];
    const lines: AnswerLine[] = [];
    for (const index of [0, 1])
      for (const time of times)
        for (const level of [1000, 850])
          lines.push({
            index,
            id: index === 0 ? 'lux' : 7,
            properties: { name: `zone${index}` },
            time,
            level,
            statistics: { t2m: { mean: index * 100 + level / 10 + times.indexOf(time), count: 4 }, tp: { sum: level } },
          });
    const table = resultTable('variable', lines);
    expect(headerCells(table)).toEqual(['zone', 'id', 'time', 'level', 'variable', 'mean', 'count', 'sum']);
    const options = seriesOptions(table)!;
    expect(options.keys).toEqual(['t2m', 'tp']);
    expect(options.stats).toEqual({ t2m: ['mean', 'count'], tp: ['sum'] });
    expect(options.dims).toEqual([
      { name: 'time', values: times },
      { name: 'level', values: ['1000', '850'] },
    ]);
    const choice = defaultChoice(options);
    expect(choice).toEqual({ key: 't2m', stat: 'mean', x: 'time', at: { level: '1000' } });
    const at850 = seriesData(table, options, { ...choice, at: { level: '850' } });
    expect(at850.labels).toEqual(times);
    expect(at850.lines.map((l) => [l.name, l.points.map((p) => p.y)])).toEqual([
      ['lux', [85, 86, 87]],
      ['7', [185, 186, 187]],
    ]);
    // Along level instead, time held at its first value.
    const profile = seriesData(table, options, { ...choice, x: 'level', at: holdAt(options, 'level', choice.at) });
    expect(profile.labels).toEqual(['1000', '850']);
    expect(profile.lines[1]!.points).toEqual([
      { x: '1000', y: 200 },
      { x: '850', y: 185 },
    ]);
  });

  it('coordinates written among the zone properties are found: the ones that differ between rows of a zone', () => {
    const lines: AnswerLine[] = ['2020-01-01T06:00:00Z', '2020-01-01T12:00:00Z'].flatMap((time, t) =>
      [0, 1].map((index) => ({ index, id: null, properties: { name: `z${index}`, time }, statistics: { t2m: { mean: index + t } } })),
    );
    const table = resultTable('variable', lines);
    expect(table.coordNames).toEqual(['time']);
    const options = seriesOptions(table)!;
    expect(seriesData(table, options, defaultChoice(options)).lines.map((l) => l.points.map((p) => p.y))).toEqual([
      [0, 1],
      [1, 2],
    ]);
  });

  it('isoTime: ISO 8601 dates of the real calendar only', () => {
    expect(isoTime('2020-01-01T06:00:00Z')).toBe(Date.parse('2020-01-01T06:00:00Z'));
    expect(isoTime('2020-01-01T07:00:00+01:00')).toBe(Date.parse('2020-01-01T06:00:00Z'));
    expect(isoTime('2020-01-01T06:00:00.250Z')).toBe(Date.parse('2020-01-01T06:00:00.250Z'));
    expect(isoTime('2024-02-29')).toBe(Date.parse('2024-02-29T00:00:00Z'));
    expect(isoTime('2001-02-30T00:00:00')).toBeNull(); // Date.parse rolls it over to March 2
    expect(isoTime('2001-02-29')).toBeNull();
    expect(isoTime('850')).toBeNull();
  });
});
