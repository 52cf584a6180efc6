/** POST /api/v1/sources/info: what a source is (footprint, bands or columns, a raster preview). */
import { Type } from '@sinclair/typebox';
import { DEMO_STAC_URL, DEMO_URL, UrlSchema } from './common.ts';

export const InfoRequestSchema = Type.Object(
  {
    url: UrlSchema,
    stac: Type.Optional(Type.Boolean({ description: '`url` is a STAC Item (http or https): without `asset`, what the Item holds; with it, that asset.' })),
    asset: Type.Optional(
      Type.String({ minLength: 1, maxLength: 256, description: 'With `stac`: the asset described (read as raster/stac or vector/stac would read it).' }),
    ),
  },
  {
    additionalProperties: false,
    title: 'InfoRequest',
    examples: [
      { url: `${DEMO_URL}elev.cog.tif` },
      { url: `${DEMO_URL}nc.parquet` },
      { url: `${DEMO_URL}era5.zarr` },
      { url: `${DEMO_STAC_URL}elev-item.json`, stac: true },
    ],
  },
);

const Position = Type.Tuple([Type.Number(), Type.Number()]);
const Bounds = Type.Tuple([Type.Number(), Type.Number(), Type.Number(), Type.Number()], {
  description: '[west, south, east, north] in WGS84 degrees; west > east when the source crosses the antimeridian (RFC 7946 §5.2).',
});
const Footprint = Type.Object(
  { type: Type.Literal('Polygon'), coordinates: Type.Array(Type.Array(Position)) },
  {
    description:
      "The source's extent as a WGS84 polygon (edges densified, so a projected grid's curved edges show); its longitudes run continuously (past 180 across the antimeridian), so a map draws it as one shape.",
  },
);

const RasterInfoSchema = Type.Object(
  {
    kind: Type.Literal('raster'),
    url: Type.String(),
    width: Type.Integer(),
    height: Type.Integer(),
    crs: Type.Union([Type.String(), Type.Null()]),
    bands: Type.Array(
      Type.Object({
        band: Type.Integer(),
        data_type: Type.String(),
        nodata: Type.Union([Type.Number(), Type.String(), Type.Null()], {
          description: 'The nodata value; as a string of digits where a 64-bit integer nodata is not exact as a JSON number (2⁶⁴ − 2).',
        }),
        scale: Type.Number(),
        offset: Type.Number(),
      }),
    ),
    bounds: Bounds,
    footprint: Footprint,
    levels: Type.Array(Type.Object({ level: Type.Integer(), width: Type.Integer(), height: Type.Integer() }), {
      description: 'Full resolution (0) and each overview.',
    }),
    preview: Type.Union([
      Type.Object(
        {
          width: Type.Integer(),
          height: Type.Integer(),
          corners: Type.Tuple([Position, Position, Position, Position], {
            description: '[lon, lat] of the top-left, top-right, bottom-right, bottom-left corners.',
          }),
          min: Type.Union([Type.Number(), Type.Null()]),
          max: Type.Union([Type.Number(), Type.Null()]),
          values: Type.Array(Type.Union([Type.Number(), Type.Null()]), {
            description:
              'Band 1, scale and offset applied, row-major; null where nodata, masked or NaN. To look at, not to compute with (7 significant digits, nearest sampling).',
          }),
          level: Type.Integer({ description: 'The overview read (0 = full resolution).' }),
        },
        { description: 'Band 1 of the finest overview of at most 1024 pixels a side, sampled to at most 256 cells a side.' },
      ),
      Type.Null(),
    ]),
    preview_note: Type.Optional(Type.String()),
  },
  { title: 'RasterInfo' },
);

const VectorInfoSchema = Type.Object(
  {
    kind: Type.Literal('vector'),
    url: Type.String(),
    rows: Type.Integer(),
    geometry_column: Type.String(),
    columns: Type.Array(Type.Object({ name: Type.String(), numeric: Type.Boolean() })),
    bounds: Type.Union([Bounds, Type.Null()]),
    footprint: Type.Union([Footprint, Type.Null()]),
  },
  { title: 'VectorInfo' },
);

const StacItemInfoSchema = Type.Object(
  {
    kind: Type.Literal('stac_item'),
    url: Type.String(),
    id: Type.Union([Type.String(), Type.Null()]),
    datetime: Type.Union([Type.String(), Type.Null()]),
    bounds: Type.Union([Bounds, Type.Null()]),
    footprint: Type.Union([Footprint, Type.Null()]),
    assets: Type.Array(
      Type.Object({
        key: Type.String(),
        title: Type.Union([Type.String(), Type.Null()]),
        type: Type.Union([Type.String(), Type.Null()]),
        kind: Type.Union([Type.Literal('raster'), Type.Literal('vector'), Type.Null()], {
          description: 'What raster/stac or vector/stac would read it as; null: neither.',
        }),
      }),
    ),
  },
  { title: 'StacItemInfo', description: "The Item's bbox as footprint and bounds." },
);

const Coordinate = Type.Union([Type.String(), Type.Number(), Type.Null()]);

const CubeInfoSchema = Type.Object(
  {
    kind: Type.Literal('cube'),
    url: Type.String(),
    store: Type.Union([Type.Literal('zarr'), Type.Literal('references')], { description: 'A Zarr store, or a kerchunk reference file.' }),
    variables: Type.Array(
      Type.Object({
        name: Type.String(),
        dimensions: Type.Array(Type.String()),
        shape: Type.Array(Type.Integer()),
        chunks: Type.Array(Type.Integer(), { description: 'The chunk (or shard) shape read as one object.' }),
        data_type: Type.String(),
        units: Type.Union([Type.String(), Type.Null()]),
        long_name: Type.Union([Type.String(), Type.Null()]),
      }),
      { description: 'The data variables (arrays of two dimensions or more that are no coordinate).' },
    ),
    dimensions: Type.Array(Type.Object({ name: Type.String(), size: Type.Integer(), first: Coordinate, last: Coordinate }), {
      description:
        "The first gridded variable's dimensions, with their first and last coordinates (time as ISO 8601 in its calendar; cell centres of the spatial axes).",
    }),
    bounds: Type.Union([Bounds, Type.Null()]),
    footprint: Type.Union([Footprint, Type.Null()]),
    note: Type.Optional(Type.String()),
  },
  { title: 'CubeInfo', description: 'A Zarr store (path ending in .zarr) or kerchunk reference file (.json): its variables and dimensions.' },
);

export const InfoResponseSchema = Type.Union([RasterInfoSchema, VectorInfoSchema, StacItemInfoSchema, CubeInfoSchema], { title: 'SourceInfo' });
