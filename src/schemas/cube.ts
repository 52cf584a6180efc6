/** The cube request schema (issue 25): a Zarr store or kerchunk references, a variable, its steps, the raster options. */
import { Type } from '@sinclair/typebox';
import { AoiSchema } from './aoi.ts';
import { DEMO_URL, UrlSchema } from './common.ts';
import { RasterRequestSchema } from './raster.ts';

const r = RasterRequestSchema.properties;

const SelValue = Type.Union([Type.Number(), Type.String({ minLength: 1, maxLength: 64 })]);

export const CubeRequestSchema = Type.Object(
  {
    aoi: AoiSchema,
    url: {
      ...UrlSchema,
      description:
        'A Zarr store root (v2 or v3; consolidated metadata used when present), or a kerchunk reference file (JSON, version 0 or 1, its path ending in .json) mapping chunks of NetCDF4/HDF5 files to byte ranges.',
    },
    variable: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 256,
        description: 'The data variable (array) of the store; required without an `expression`.',
      }),
    ),
    expression: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1000,
        description:
          'Math over variables of one grid, chunking and steps, answered per step under the key `expression`: the variables by name (e.g. `(u10 ** 2 + v10 ** 2) ** 0.5`, `t2m - 273.15`), numbers, + - * / % **, parentheses, comparisons and abs, sqrt, exp, log, log10, floor, ceil, round, pow, min, max. Each variable is decoded first (scale, offset, nodata); a cell invalid in any of them, or whose result is not finite, counts as nodata.',
      }),
    ),
    sel: Type.Optional(
      Type.Record(
        Type.String({ minLength: 1, maxLength: 256 }),
        Type.Union([
          SelValue,
          Type.Array(SelValue, { minItems: 1, maxItems: 100_000 }),
          Type.Object({ start: Type.Optional(SelValue), end: Type.Optional(SelValue) }, { additionalProperties: false }),
        ]),
        {
          description:
            'Per non-spatial dimension: one coordinate value (pins it: `{"level": 850}`), an inclusive range (`{"time": {"start": "2020-01-01", "end": "2020-01-31"}}`; a date-only end takes that whole day) or a list of values. Times are ISO 8601 text in the axis calendar. A dimension not named is iterated whole: one row per zone and step.',
        },
      ),
    ),
    sel_method: Type.Optional(
      Type.Union([Type.Literal('exact'), Type.Literal('nearest')], {
        description: 'How single values and list items match the axis: exact (default: a value not on the axis is a 422 naming the nearest ones) or nearest.',
      }),
    ),
    radius: r.radius,
    include_geometry: r.include_geometry,
    stats: r.stats,
    pixels: r.pixels,
    coverage_weight: r.coverage_weight,
    min_coverage_frac: r.min_coverage_frac,
    default_value: r.default_value,
    default_weight: r.default_weight,
    histogram: r.histogram,
    categorical: r.categorical,
  },
  {
    additionalProperties: false,
    title: 'CubeRequest',
    examples: [
      {
        url: `${DEMO_URL}era5.zarr`,
        variable: 't2m',
        sel: { time: { start: '2020-01-01T00:00:00Z', end: '2020-01-01' } },
        aoi: {
          type: 'FeatureCollection',
          features: [
            {
              type: 'Feature',
              id: 'box',
              properties: {},
              geometry: {
                type: 'Polygon',
                coordinates: [
                  [
                    [-7, 40],
                    [8, 40],
                    [8, 50],
                    [-7, 50],
                    [-7, 40],
                  ],
                ],
              },
            },
          ],
        },
        stats: ['count', 'mean', 'min', 'max'],
        pixels: 'fractional',
      },
    ],
  },
);
