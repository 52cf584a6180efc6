/** Raster request schema (CONTRACT §2). */
import { Type, type Static } from '@sinclair/typebox';
import { AoiSchema } from './aoi.ts';
import { StatsSchema, UrlSchema } from './common.ts';

export const RasterRequestSchema = Type.Object(
  {
    aoi: AoiSchema,
    url: UrlSchema,
    radius: Type.Optional(
      Type.Number({ minimum: 0, maximum: 20_000_000, description: 'FeatureCollection only: the radius in metres of every Point zone that has none of its own.' }),
    ),
    include_geometry: Type.Optional(Type.Boolean({ description: 'FeatureCollection only: each answered feature carries its input geometry (default false: null).' })),
    stats: Type.Optional(StatsSchema),
    bands: Type.Optional(
      Type.Array(Type.Integer({ minimum: 1, maximum: 65535 }), { minItems: 1, maxItems: 256, description: '1-based band numbers; default [1]; duplicates are answered once.' }),
    ),
    pixels: Type.Optional(
      Type.Union([Type.Literal('center'), Type.Literal('all_touched'), Type.Literal('fractional')], {
        description:
          'Pixel selection for polygons and circles: center (default; a pixel counts when its centre is inside), all_touched (every pixel the AOI touches, weight 1), fractional (each pixel weighted by the exact fraction of its area inside the AOI). A bare point ignores it.',
      }),
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
