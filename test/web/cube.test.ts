/**
 * How the page's form reads a cube's sources/info (web/src/cube.ts; no DOM): the variable offered first, which
 * dimensions get a range (not the grid's axes), their extents as text, and the ranges typed as `sel`. The
 * browser test (page.test.ts) sends the ERA5 demo store's; this pins the other shapes.
 */
import { describe, expect, it } from 'vitest';
import type { CubeInfo } from '../../web/src/api.ts';
import { defaultVariable, extentText, selOf, variableDimensions } from '../../web/src/cube.ts';

const variable = (name: string, dimensions: string[], shape: number[]) => ({
  name,
  dimensions,
  shape,
  chunks: shape,
  data_type: 'float32',
  units: null,
  long_name: null,
});

/** As sources/info answers a kerchunk reference file of a CMIP6 NetCDF (its bounds arrays are variables too). */
const cmip6: CubeInfo = {
  kind: 'cube',
  url: 'https://example.org/tas.json',
  store: 'references',
  variables: [variable('lat_bnds', ['lat', 'bnds'], [49, 2]), variable('t', ['time', 'level', 'rlat', 'rlon'], [3, 4, 15, 20])],
  dimensions: [
    { name: 'time', size: 3, first: '2001-02-29T00:00:00', last: '2001-03-01T00:00:00' },
    { name: 'level', size: 4, first: 1000, last: 250 },
    { name: 'rlat', size: 15, first: -7, last: 7 },
    { name: 'rlon', size: 20, first: -9.5, last: 9.5 },
  ],
  bounds: null,
  footprint: null,
};

describe('the page reads a cube', () => {
  it('offers first the variable sources/info describes, and ranges on its non-spatial dimensions only', () => {
    expect(defaultVariable(cmip6)).toBe('t');
    const dims = variableDimensions(cmip6, 't');
    expect(dims.map((d) => [d.name, d.spatial])).toEqual([
      ['time', false],
      ['level', false],
      ['rlat', true],
      ['rlon', true],
    ]);
    expect(dims.map(extentText)).toEqual([
      'time 2001-02-29T00:00:00 … 2001-03-01T00:00:00 (3)',
      'level 1000 … 250 (4)',
      'rlat -7 … 7 (15)',
      'rlon -9.5 … 9.5 (20)',
    ]);
    // A variable whose dimensions sources/info did not describe: sizes from its shape, no extent; two dimensions
    // are the grid's (the service reads no other kind).
    expect(variableDimensions(cmip6, 'lat_bnds').map((d) => [extentText(d), d.spatial])).toEqual([
      ['lat (49)', true],
      ['bnds (2)', true],
    ]);
    // Axes of names the page does not know: the last two (CF's order T, Z, Y, X).
    const odd: CubeInfo = { ...cmip6, variables: [variable('v', ['member', 'time', 'north', 'east'], [2, 3, 4, 5])], dimensions: [] };
    expect(variableDimensions(odd, 'v').map((d) => d.spatial)).toEqual([false, false, true, true]);
  });

  it('sends the ranges picked (numbers on a numeric axis, text as typed otherwise), nothing for a dimension taken whole', () => {
    const dims = variableDimensions(cmip6, 't');
    expect(selOf(dims, {})).toBeUndefined();
    expect(selOf(dims, { time: { all: true, start: '2001-02-30', end: '' } })).toBeUndefined();
    expect(
      selOf(dims, {
        time: { all: false, start: ' 2001-02-30 ', end: '' },
        level: { all: false, start: '850', end: '500.5' },
        rlat: { all: false, start: '0', end: '1' },
      }),
    ).toEqual({ time: { start: '2001-02-30' }, level: { start: 850, end: 500.5 } });
    // Text on a numeric axis is sent as typed: the service names what it cannot read.
    expect(selOf(dims, { level: { all: false, start: 'top', end: '' } })).toEqual({ level: { start: 'top' } });
    expect(selOf(dims, { level: { all: false, start: '', end: '' } })).toBeUndefined();
  });
});
