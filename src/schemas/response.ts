/** Response schemas (contract §4, §6). */
import { Type } from '@sinclair/typebox';

const HistogramValue = Type.Object({ edges: Type.Array(Type.Number()), counts: Type.Array(Type.Number()) }, { title: 'Histogram' });
const ClassesValue = Type.Record(
  Type.String(),
  Type.Object({ count: Type.Number(), fraction: Type.Number(), area_m2: Type.Number(), name: Type.Optional(Type.String()) }),
  { title: 'Classes' },
);

const StatValue = Type.Union([Type.Number(), Type.Null(), Type.Array(Type.Number()), HistogramValue, Type.Record(Type.String(), Type.Number()), ClassesValue]);

const BandStatsSchema = Type.Object(
  {
    aoi_area: Type.Number({ description: 'Area of the AOI in m² on the WGS84 ellipsoid; 0 for a bare point.' }),
    data_area: Type.Number({
      description: 'Area in m² covered by valid data: the counted pixels (raster) or the counted features ∩ AOI (vector); 0 for a bare point.',
    }),
  },
  { additionalProperties: StatValue, title: 'BandStats' },
);

export const StatsResponseSchema = Type.Record(Type.String({ pattern: '^(band_[0-9]+|expression)$' }), BandStatsSchema, {
  title: 'StatsResponse',
  description: 'One key per band (band_1, band_2, … in the order asked), or `expression` for band math, each with the requested statistics.',
});
export const VectorResponseSchema = Type.Record(Type.String(), BandStatsSchema, {
  title: 'VectorStatsResponse',
  description: 'One key per numeric column asked (spelled as the file spells it, in the order asked), each with the requested statistics.',
});

export const ProblemSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String(),
    instance: Type.Optional(Type.String()),
    request_id: Type.Optional(Type.String()),
    errors: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String() }))),
  },
  { additionalProperties: true, title: 'Problem', description: 'RFC 9457 problem details.' },
);

/** The problem+json answers every zonal-stats endpoint can give (contract §6). */
export const ProblemResponses = {
  400: ProblemSchema,
  403: ProblemSchema,
  415: ProblemSchema,
  422: ProblemSchema,
  500: ProblemSchema,
  502: ProblemSchema,
  503: ProblemSchema,
  504: ProblemSchema,
};
