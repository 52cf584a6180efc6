/** STAC request schemas (CONTRACT §2): the raster / vector fields, `url` is the Item, plus `asset`. */
import { Type, type Static } from '@sinclair/typebox';
import { RasterRequestSchema } from './raster.ts';
import { VectorRequestSchema } from './vector.ts';

const ItemUrl = Type.String({ minLength: 1, maxLength: 4096, description: 'http(s) URL of a STAC Item.' });
const Asset = Type.String({ minLength: 1, maxLength: 256, description: "Asset key; default: the Item's first asset (JSON order)." });

export const RasterStacRequestSchema = Type.Composite([Type.Omit(RasterRequestSchema, ['url']), Type.Object({ url: ItemUrl, asset: Type.Optional(Asset) })], {
  additionalProperties: false,
  title: 'RasterStacRequest',
  examples: [
    {
      url: 'https://example.com/stac/olinda-l7.json',
      asset: 'etm',
      aoi: { type: 'Point', coordinates: [-34.87, -8.0], radius: 500 },
      stats: ['count', 'mean', 'std'],
      bands: [1, 4],
    },
  ],
});
export type RasterStacRequest = Static<typeof RasterStacRequestSchema>;

export const VectorStacRequestSchema = Type.Composite([Type.Omit(VectorRequestSchema, ['url']), Type.Object({ url: ItemUrl, asset: Type.Optional(Asset) })], {
  additionalProperties: false,
  title: 'VectorStacRequest',
  examples: [
    {
      url: 'https://example.com/stac/nc-counties.json',
      asset: 'counties',
      aoi: { type: 'Polygon', coordinates: [[[-80, 35], [-79, 35], [-79, 36], [-80, 36], [-80, 35]]] },
      columns: ['BIR74'],
      stats: ['count', 'mean', 'sum'],
      weighting_method: 'ratio',
    },
  ],
});
export type VectorStacRequest = Static<typeof VectorStacRequestSchema>;
