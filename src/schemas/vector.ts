/** Vector request schema (contract §2). */
import { Type } from '@sinclair/typebox';
import { AoiSchema } from './aoi.ts';
import { DEMO_URL, StatsSchema, UrlSchema } from './common.ts';

export const VectorRequestSchema = Type.Object(
  {
    aoi: AoiSchema,
    radius: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 20_000_000,
        description: 'FeatureCollection only: the radius in metres of every Point zone that has none of its own.',
      }),
    ),
    include_geometry: Type.Optional(
      Type.Boolean({ description: 'FeatureCollection only: each answered feature carries its input geometry (default false: null).' }),
    ),
    url: Type.String({ ...UrlSchema, description: 'http(s)://, s3:// or file:// URL of a GeoParquet file; the path must end in .parquet or .geoparquet.' }),
    columns: Type.Array(Type.String({ minLength: 1, maxLength: 256 }), {
      minItems: 1,
      maxItems: 256,
      description: 'Columns to summarise, matched case-insensitively; non-numeric ones are skipped.',
    }),
    stats: Type.Optional(StatsSchema),
    geometry_column: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'Geometry column (default: the GeoParquet primary column).' })),
    weighting_method: Type.Optional(
      Type.Union([Type.Literal('area'), Type.Literal('ratio')], {
        description: 'Weight of a feature in intersect mode: its intersection area (area, default) or intersection area / feature area (ratio).',
      }),
    ),
    approx_stats: Type.Optional(Type.Boolean({ description: 'Accepted for compatibility; no effect on vectors.' })),
  },
  {
    additionalProperties: false,
    title: 'VectorRequest',
    examples: [
      {
        url: `${DEMO_URL}nc.parquet`,
        aoi: { type: 'Point', coordinates: [-78.64, 35.78], radius: 20000 },
        columns: ['BIR74', 'SID74'],
        stats: ['count', 'mean', 'sum', 'density'],
        weighting_method: 'area',
      },
    ],
  },
);
