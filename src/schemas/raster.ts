/** Raster request schema (CONTRACT §2). */
import { Type, type Static } from '@sinclair/typebox';
import { AoiSchema } from './aoi.ts';
import { StatsSchema, UrlSchema } from './common.ts';

export const RasterRequestSchema = Type.Object(
  {
    aoi: AoiSchema,
    url: UrlSchema,
    stats: Type.Optional(StatsSchema),
    bands: Type.Optional(
      Type.Array(Type.Integer({ minimum: 1, maximum: 65535 }), { minItems: 1, maxItems: 256, description: '1-based band numbers; default [1]; duplicates are answered once.' }),
    ),
    approx_stats: Type.Optional(
      Type.Boolean({ description: 'Read the coarsest overview that still gives ≥ 1,000,000 AOI pixels, skipping the area and pixel limits. Default false.' }),
    ),
  },
  {
    additionalProperties: false,
    title: 'RasterRequest',
    examples: [
      {
        url: 'https://example.com/cogs/elevation.tif',
        aoi: { type: 'Polygon', coordinates: [[[6.0, 49.6], [6.2, 49.6], [6.2, 49.8], [6.0, 49.8], [6.0, 49.6]]] },
        stats: ['count', 'min', 'max', 'mean', 'median', 'nodata'],
        bands: [1],
      },
    ],
  },
);
export type RasterRequest = Static<typeof RasterRequestSchema>;
