/**
 * The AOI request schema (contract §3). The schema checks shapes and number ranges; geometric validity
 * (closed rings, self-intersections, antimeridian rules) is checked by geometry/aoi.ts with clearer messages.
 */
import { Type, type Static } from '@sinclair/typebox';

const Lon = Type.Number({ minimum: -180, maximum: 180 });
const Lat = Type.Number({ minimum: -90, maximum: 90 });
// Polygon rings may continue across the antimeridian up to ±360 (contract §3).
const RingLon = Type.Number({ minimum: -360, maximum: 360 });
const RingPosition = Type.Union([Type.Tuple([RingLon, Lat]), Type.Tuple([RingLon, Lat, Type.Number()])]);
const Ring = Type.Array(RingPosition, { minItems: 4 });
// RFC 7946 §5 allows a `bbox` member on any geometry; it is accepted and not used.
const GeoJsonBBox = Type.Optional(Type.Array(Type.Number(), { minItems: 4, maxItems: 6 }));

const PointAoiSchema = Type.Object(
  {
    type: Type.Literal('Point'),
    coordinates: Type.Union([Type.Tuple([Lon, Lat]), Type.Tuple([Lon, Lat, Type.Number()])]),
    bbox: GeoJsonBBox,
    radius: Type.Optional(Type.Number({ minimum: 0, maximum: 20_000_000, description: 'Radius in metres (geodesic, WGS84); absent or 0 = a bare point.' })),
  },
  { additionalProperties: false, title: 'PointAoi' },
);

const PolygonAoiSchema = Type.Object(
  { type: Type.Literal('Polygon'), coordinates: Type.Array(Ring, { minItems: 1 }), bbox: GeoJsonBBox },
  { additionalProperties: false, title: 'PolygonAoi' },
);

const MultiPolygonAoiSchema = Type.Object(
  { type: Type.Literal('MultiPolygon'), coordinates: Type.Array(Type.Array(Ring, { minItems: 1 }), { minItems: 1 }), bbox: GeoJsonBBox },
  { additionalProperties: false, title: 'MultiPolygonAoi' },
);

type GeometryInput = Static<typeof PointAoiSchema> | Static<typeof PolygonAoiSchema> | Static<typeof MultiPolygonAoiSchema>;

/** The geometry schema of each AOI type, for checking one zone of a FeatureCollection on its own. */
export const GEOMETRY_SCHEMAS = { Point: PointAoiSchema, Polygon: PolygonAoiSchema, MultiPolygon: MultiPolygonAoiSchema } as const;

const GeometrySchema = Type.Unsafe<GeometryInput>({
  type: 'object',
  required: ['type'],
  oneOf: [PointAoiSchema, PolygonAoiSchema, MultiPolygonAoiSchema],
  discriminator: { propertyName: 'type' },
});

const FeatureId = Type.Optional(Type.Union([Type.String({ maxLength: 1024 }), Type.Number()], { description: 'Kept in the answer.' }));
const Properties = Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], { description: 'Kept in the answer.' }));

// GeoJSON allows foreign members on features and collections: they are accepted and not used.
const FeatureAoiSchema = Type.Object(
  { type: Type.Literal('Feature'), id: FeatureId, geometry: GeometrySchema, properties: Properties, bbox: GeoJsonBBox },
  { additionalProperties: true, title: 'FeatureAoi', description: 'One zone: its geometry is the AOI, answered exactly as the bare geometry.' },
);

const FeatureCollectionAoiSchema = Type.Object(
  {
    type: Type.Literal('FeatureCollection'),
    // Each zone's geometry is checked on its own (a bad zone is reported on that zone, contract §8).
    features: Type.Array(
      Type.Object(
        { type: Type.Literal('Feature'), id: FeatureId, geometry: Type.Unknown(), properties: Properties, bbox: GeoJsonBBox },
        { additionalProperties: true },
      ),
      { description: 'One zone per feature, answered in this order.' },
    ),
    bbox: GeoJsonBBox,
  },
  { additionalProperties: true, title: 'FeatureCollectionAoi' },
);

type FeatureAoi = Static<typeof FeatureAoiSchema>;
type FeatureCollectionAoi = Static<typeof FeatureCollectionAoiSchema>;
type AoiInput = GeometryInput | FeatureAoi | FeatureCollectionAoi;

/**
 * oneOf + discriminator rather than TypeBox's anyOf: the validator then reports the errors of the
 * branch the `type` names instead of every branch's.
 */
export const AoiSchema = Type.Unsafe<AoiInput>({
  type: 'object',
  required: ['type'],
  oneOf: [PointAoiSchema, PolygonAoiSchema, MultiPolygonAoiSchema, FeatureAoiSchema, FeatureCollectionAoiSchema],
  discriminator: { propertyName: 'type' },
  description:
    'GeoJSON Point (with optional `radius` in metres), Polygon or MultiPolygon in WGS84 lon/lat; or a Feature of one (answered as its geometry); or a FeatureCollection: many zones in one request (contract §8), answered per zone in the format `Accept` asks for: `application/json` (default) or `application/geo+json` (a FeatureCollection), `application/x-ndjson` (a line per zone, streamed), `text/csv` (a row per zone and band or column), `application/vnd.apache.parquet` (GeoParquet, a row per zone).',
});
export type AoiRequest = AoiInput;
export type GeometryRequest = GeometryInput;
