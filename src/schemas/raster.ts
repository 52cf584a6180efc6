/** Raster request schema (contract §2). */
import { Type } from '@sinclair/typebox';
import { AoiSchema } from './aoi.ts';
import { DEMO_URL, StatsSchema, UrlSchema } from './common.ts';

export const RasterRequestSchema = Type.Object(
  {
    aoi: Type.Optional(AoiSchema),
    url: UrlSchema,
    zones: Type.Optional(
      Type.Object(
        {
          url: Type.Optional(UrlSchema),
          asset: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'On raster/stac: the asset of the Item that holds the zones.' })),
          band: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535, description: 'Its band (1-based); default 1.' })),
        },
        {
          additionalProperties: false,
          description:
            'Zones given as a raster, in place of `aoi` (a land-cover or district raster): each distinct value of its band is one zone, answered as a row keyed `zone` (ascending), with the same statistics. Same CRS as the value raster, cells of the same size, a whole multiple, or a whole fraction of the value cells, edges on edges. A zone covers a value cell by the share of the cell its zone cells fill (1 or 0 unless the zones raster is finer; then `pixels` decides: fractional counts the share, center the zone cell at the cell centre, all_touched any). Nodata zone cells and zone cells beyond the value raster belong to no zone.',
        },
      ),
    ),
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
    stats: Type.Optional(StatsSchema),
    bands: Type.Optional(
      Type.Array(Type.Integer({ minimum: 1, maximum: 65535 }), {
        minItems: 1,
        maxItems: 256,
        description: '1-based band numbers; default [1]; duplicates are answered once.',
      }),
    ),
    pixels: Type.Optional(
      Type.Union([Type.Literal('center'), Type.Literal('all_touched'), Type.Literal('fractional')], {
        description:
          'Pixel selection for polygons and circles: center (default; a pixel counts when its centre is inside), all_touched (every pixel the AOI touches, weight 1), fractional (each pixel weighted by the exact fraction of its area inside the AOI). A bare point ignores it.',
      }),
    ),
    coverage_weight: Type.Optional(
      Type.Union(
        [Type.Literal('fraction'), Type.Literal('none'), Type.Literal('area_cartesian'), Type.Literal('area_spherical_m2'), Type.Literal('area_spherical_km2')],
        {
          description:
            "exactextract's cᵢ for every statistic that does not give its own (`mean(coverage_weight=none)`): fraction (default: the covered fraction, 1 for a pixel the centre or all-touched rule selects), none (1 for every counted pixel), area_cartesian (× the pixel's area in CRS units), area_spherical_m2 / area_spherical_km2 (× the pixel's area on a sphere of radius 6,378,137 m, lon/lat rasters only).",
        },
      ),
    ),
    min_coverage_frac: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 1,
        description: "exactextract's min_coverage_frac: pixels covered less than this fraction are left out (default 0: every covered pixel).",
      }),
    ),
    default_value: Type.Optional(
      Type.Number({
        description: "exactextract's default_value: the value of nodata pixels, which then count as values (default: nodata pixels are left out).",
      }),
    ),
    default_weight: Type.Optional(
      Type.Number({
        description:
          "exactextract's default_weight: the weight of pixels whose weight is nodata or outside the weights raster (default: their zone's weighted statistics are null).",
      }),
    ),
    weights: Type.Optional(
      Type.Object(
        {
          url: Type.Optional(UrlSchema),
          asset: Type.Optional(
            Type.String({ minLength: 1, maxLength: 256, description: 'On the STAC endpoints: the asset of each Item that holds the weights.' }),
          ),
          band: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535, description: 'Its band (1-based); default 1.' })),
        },
        {
          additionalProperties: false,
          description:
            "exactextract's weighting raster wᵢ for the weighted_* statistics (weighted_mean = Σxᵢcᵢwᵢ / Σcᵢwᵢ …), by `url` (or, on the STAC endpoints, the Item's `asset`): same CRS, cells the size of the value raster's, a whole multiple or a whole fraction of them, their edges on the value raster's cell edges. Finer weights are laid as exactextract lays them: a weighted statistic counts each weights cell of a pixel with its own weight and coverage.",
        },
      ),
    ),
    expression: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1000,
        description:
          'Band math answered instead of the bands, under the key `expression`: the bands are b1, b2, …; numbers, + - * / % **, parentheses, comparisons (1 or 0) and abs, sqrt, exp, log, log10, floor, ceil, round, pow, min, max. Scale/offset apply first; a pixel invalid in any band it reads, or whose result is not finite (a division by zero), counts as nodata. Example: (b4 - b3) / (b4 + b3).',
      }),
    ),
    mask: Type.Optional(
      Type.Object(
        {
          band: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535, description: 'The classification band (1-based) of the same file.' })),
          asset: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 256,
              description:
                'zones × time only: the classification asset of each Item (band 1), taken by nearest neighbour onto the data grid when its resolution differs (Sentinel-2 SCL at 20 m under 10 m bands).',
            }),
          ),
          include: Type.Optional(
            Type.Array(Type.Number(), { minItems: 1, maxItems: 1000, description: 'Keep only pixels of these classes (a nodata class is dropped).' }),
          ),
          exclude: Type.Optional(
            Type.Array(Type.Number(), { minItems: 1, maxItems: 1000, description: 'Drop pixels of these classes (a nodata class is kept).' }),
          ),
        },
        {
          additionalProperties: false,
          description:
            'Drop pixels by class (raw values of a classification band of the same file, or of an asset) before any statistic; each answer counts what the mask removed in `masked` (summed weights).',
        },
      ),
    ),
    histogram: Type.Optional(
      Type.Object(
        {
          bins: Type.Union([Type.Integer({ minimum: 1, maximum: 10_000 }), Type.Array(Type.Number(), { minItems: 2, maxItems: 10_001 })], {
            description: 'A number of equal-width bins, or the bin edges in ascending order.',
          }),
          range: Type.Optional(
            Type.Tuple([Type.Number(), Type.Number()], { description: "[low, high] of equal-width bins; default the values' min and max." }),
          ),
        },
        {
          additionalProperties: false,
          description:
            "A histogram of each band's counted values, as numpy.histogram computes it: bins half-open [a, b) but the last, closed; values outside the edges not counted; counts are summed weights (pixel counts unless `pixels` is fractional). Answered as `histogram: {edges, counts}`.",
        },
      ),
    ),
    categorical: Type.Optional(
      Type.Boolean({
        description:
          "Treat each band as classes: answer `classes`, per distinct value its `count` (summed weights), `fraction` of the counted pixels and `area_m2` (ground area of its counted pixels, weighted by coverage with fractional pixels), and its `name` when a STAC asset's classification:classes gives one. At most 10,000 classes.",
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
        url: `${DEMO_URL}elev.cog.tif`,
        aoi: {
          type: 'Polygon',
          coordinates: [
            [
              [6.0, 49.6],
              [6.2, 49.6],
              [6.2, 49.8],
              [6.0, 49.8],
              [6.0, 49.6],
            ],
          ],
        },
        stats: ['count', 'min', 'max', 'mean', 'median', 'nodata'],
        bands: [1],
      },
      {
        url: `${DEMO_URL}elev.cog.tif`,
        aoi: {
          type: 'FeatureCollection',
          features: [
            { type: 'Feature', id: 'site-1', properties: { name: 'north' }, geometry: { type: 'Point', coordinates: [6.1, 49.75] } },
            {
              type: 'Feature',
              id: 'site-2',
              properties: { name: 'south' },
              geometry: {
                type: 'Polygon',
                coordinates: [
                  [
                    [6.0, 49.5],
                    [6.1, 49.5],
                    [6.1, 49.6],
                    [6.0, 49.6],
                    [6.0, 49.5],
                  ],
                ],
              },
            },
          ],
        },
        radius: 2000,
        stats: ['count', 'mean', 'max'],
        pixels: 'fractional',
        histogram: { bins: 4, range: [200, 400] },
      },
      { url: `${DEMO_URL}elev.cog.tif`, zones: { url: `${DEMO_URL}elev_zones.tif` }, stats: ['count', 'mean', 'stdev', 'quantile(q=0.9)'] },
    ],
  },
);
