/** STAC request schemas (contract §2): the raster / vector fields, `url` is the Item, plus `asset`. */
import { Type } from '@sinclair/typebox';
import { DEMO_STAC_URL, PUBLIC_S2_ITEM } from './common.ts';
import { AoiSchema } from './aoi.ts';
import { RasterRequestSchema } from './raster.ts';
import { VectorRequestSchema } from './vector.ts';

const ItemUrl = Type.String({ minLength: 1, maxLength: 4096, description: 'http(s) URL of a STAC Item.' });
const Asset = Type.String({ minLength: 1, maxLength: 256, description: "Asset key; default: the Item's first asset (JSON order)." });

export const RasterStacRequestSchema = Type.Composite([Type.Omit(RasterRequestSchema, ['url']), Type.Object({ url: ItemUrl, asset: Type.Optional(Asset) })], {
  additionalProperties: false,
  title: 'RasterStacRequest',
  examples: [
    {
      url: `${DEMO_STAC_URL}elev-item.json`,
      asset: 'elevation',
      aoi: { type: 'Point', coordinates: [6.13, 49.61], radius: 2000 },
      stats: ['count', 'mean', 'std'],
    },
    { url: PUBLIC_S2_ITEM, asset: 'red', aoi: { type: 'Point', coordinates: [14.5, 46.05], radius: 500 }, stats: ['count', 'mean'] },
  ],
});

export const VectorStacRequestSchema = Type.Composite([Type.Omit(VectorRequestSchema, ['url']), Type.Object({ url: ItemUrl, asset: Type.Optional(Asset) })], {
  additionalProperties: false,
  title: 'VectorStacRequest',
  examples: [
    {
      url: `${DEMO_STAC_URL}nc-item.json`,
      asset: 'counties',
      aoi: {
        type: 'Polygon',
        coordinates: [
          [
            [-80, 35],
            [-79, 35],
            [-79, 36],
            [-80, 36],
            [-80, 35],
          ],
        ],
      },
      columns: ['BIR74'],
      stats: ['count', 'mean', 'sum'],
      weighting_method: 'ratio',
    },
  ],
});

export const RasterStacSearchRequestSchema = Type.Composite(
  [
    // Zones × time takes polygons: a zones raster would be one grid among the Items' many.
    Type.Omit(RasterRequestSchema, ['url', 'aoi', 'zones']),
    Type.Object({
      aoi: AoiSchema,
      stac: Type.Object(
        {
          url: Type.String({
            minLength: 1,
            maxLength: 4096,
            description: 'A STAC API (its landing page or its /search) or a static ItemCollection JSON (http or https).',
          }),
          collections: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { minItems: 1, maxItems: 100 })),
          datetime: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 100,
              description: 'RFC 3339 instant or interval: 2024-01-01T00:00:00Z, 2024-01-01/2024-12-31, ../2024-06-30.',
            }),
          ),
          filter: Type.Optional(
            Type.Record(Type.String(), Type.Unknown(), { description: 'A CQL2-JSON filter, passed to the API as is (not for a static ItemCollection).' }),
          ),
          max_items: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: 100_000,
              description: 'Take at most this many Items (in the order the API sends them; at most ZONAL_MAX_STAC_ITEMS).',
            }),
          ),
        },
        { additionalProperties: false, description: 'Where the Items come from; searched with the bbox of all the zones.' },
      ),
      asset: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 256,
          description: 'The asset answered in every Item; omit it when `expression` names assets (e.g. (nir - red) / (nir + red)).',
        }),
      ),
      time: Type.Optional(
        Type.Object(
          {
            rule: Type.Union([Type.Literal('all'), Type.Literal('asof'), Type.Literal('nearest'), Type.Literal('window')], {
              description:
                "all (default): every Item; asof: the latest Item on or before the zone's date; nearest: the closest (a tie goes to the earlier); window: every Item within ± days.",
            }),
            date: Type.Optional(
              Type.String({ minLength: 10, maxLength: 40, description: 'The date of every zone (ISO 8601), unless `property` gives a zone its own.' }),
            ),
            property: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'The zone property holding its date (ISO 8601).' })),
            days: Type.Optional(Type.Number({ minimum: 0, maximum: 36_500, description: 'window: the half-width in days.' })),
          },
          { additionalProperties: false },
        ),
      ),
      mosaic: Type.Optional(
        Type.Union([Type.Literal('none'), Type.Literal('day')], {
          description:
            "none (default): one row per zone and Item. day: the Items of one collection and UTC date merged into one row per zone and day, each pixel from the first Item (in search order) valid under its centre, on the grid of the first Item whose raster holds the whole zone (Items in another CRS read by nearest neighbour); the row's item_ids are the Items merged, item_id the one whose grid it is on, datetime the first one's.",
        }),
      ),
    }),
  ],
  {
    additionalProperties: false,
    title: 'RasterStacSearchRequest',
    examples: [
      {
        stac: { url: `${DEMO_STAC_URL}items.json`, datetime: '2024-02-01/2024-12-31' },
        asset: 'elevation',
        aoi: {
          type: 'FeatureCollection',
          features: [
            { type: 'Feature', id: 'city', properties: { visited: '2024-03-01' }, geometry: { type: 'Point', coordinates: [6.13, 49.61], radius: 2000 } },
          ],
        },
        time: { rule: 'asof', property: 'visited' },
        stats: ['count', 'mean'],
        histogram: { bins: 3 },
      },
      {
        stac: { url: 'https://earth-search.aws.element84.com/v1', collections: ['sentinel-2-l2a'], datetime: '2024-01-01/2024-12-31', max_items: 50 },
        asset: 'red',
        aoi: { type: 'Point', coordinates: [-34.87, -8.0], radius: 500 },
        stats: ['count', 'mean'],
        time: { rule: 'all' },
      },
    ],
  },
);
