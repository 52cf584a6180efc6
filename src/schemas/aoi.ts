/**
 * The AOI request schema (CONTRACT §3). The schema checks shapes and number ranges; geometric validity
 * (closed rings, self-intersections, antimeridian rules) is checked by geometry/aoi.ts with clearer messages.
 */
import { Type, type Static } from '@sinclair/typebox';

const Lon = Type.Number({ minimum: -180, maximum: 180 });
const Lat = Type.Number({ minimum: -90, maximum: 90 });
// Polygon rings may continue across the antimeridian up to ±360 (CONTRACT §3).
const RingLon = Type.Number({ minimum: -360, maximum: 360 });
const RingPosition = Type.Union([Type.Tuple([RingLon, Lat]), Type.Tuple([RingLon, Lat, Type.Number()])]);
const Ring = Type.Array(RingPosition, { minItems: 4 });
// RFC 7946 §5 allows a `bbox` member on any geometry; it is accepted and not used.
const GeoJsonBBox = Type.Optional(Type.Array(Type.Number(), { minItems: 4, maxItems: 6 }));

export const PointAoiSchema = Type.Object(
  {
    type: Type.Literal('Point'),
    coordinates: Type.Union([Type.Tuple([Lon, Lat]), Type.Tuple([Lon, Lat, Type.Number()])]),
    bbox: GeoJsonBBox,
    radius: Type.Optional(Type.Number({ minimum: 0, maximum: 20_000_000, description: 'Radius in metres (geodesic, WGS84); absent or 0 = a bare point.' })),
  },
  { additionalProperties: false, title: 'PointAoi' },
);

export const PolygonAoiSchema = Type.Object(
  { type: Type.Literal('Polygon'), coordinates: Type.Array(Ring, { minItems: 1 }), bbox: GeoJsonBBox },
  { additionalProperties: false, title: 'PolygonAoi' },
);

export const MultiPolygonAoiSchema = Type.Object(
  { type: Type.Literal('MultiPolygon'), coordinates: Type.Array(Type.Array(Ring, { minItems: 1 }), { minItems: 1 }), bbox: GeoJsonBBox },
  { additionalProperties: false, title: 'MultiPolygonAoi' },
);

type AoiInput = Static<typeof PointAoiSchema> | Static<typeof PolygonAoiSchema> | Static<typeof MultiPolygonAoiSchema>;

/**
 * oneOf + discriminator rather than TypeBox's anyOf: the validator then reports the errors of the
 * branch the `type` names instead of every branch's.
 */
export const AoiSchema = Type.Unsafe<AoiInput>({
  type: 'object',
  required: ['type'],
  oneOf: [PointAoiSchema, PolygonAoiSchema, MultiPolygonAoiSchema],
  discriminator: { propertyName: 'type' },
  description: 'GeoJSON Point (with optional `radius` in metres), Polygon or MultiPolygon in WGS84 lon/lat.',
});
export type AoiRequest = AoiInput;
