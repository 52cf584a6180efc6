/**
 * The wire of jobs (OGC API – Processes Part 1): an execution request is `{"inputs": <the endpoint's body>}`
 * whose `aoi` may also be a reference to a zones file; the description of each process is read from the same
 * TypeBox schema as its endpoint.
 */
import { Type, type TObject } from '@sinclair/typebox';
import { AoiSchema } from './aoi.ts';
import { RasterRequestSchema } from './raster.ts';
import { VectorRequestSchema } from './vector.ts';
import { RasterStacRequestSchema, RasterStacSearchRequestSchema, VectorStacRequestSchema } from './stac.ts';

/** The request body each process takes as its inputs. */
const PROCESS_BODIES = {
  'zonal-stats-raster': RasterRequestSchema,
  'zonal-stats-raster-stac': RasterStacRequestSchema,
  'zonal-stats-raster-stac-search': RasterStacSearchRequestSchema,
  'zonal-stats-vector': VectorRequestSchema,
  'zonal-stats-vector-stac': VectorStacRequestSchema,
} as const satisfies Record<string, TObject>;

export type ProcessId = keyof typeof PROCESS_BODIES;

const ZonesRefSchema = Type.Object(
  {
    href: Type.String({
      minLength: 1,
      maxLength: 4096,
      description: 'A zones file: http(s)://, s3:// or file:// (inside the data roots), read under the same rules as a source.',
    }),
    type: Type.Optional(
      Type.String({
        maxLength: 128,
        description:
          'Its media type: application/vnd.apache.parquet (GeoParquet: one zone per row, read by row group), application/geo+json (a FeatureCollection) or text/csv (a WKT or GeoJSON geometry column); default: by the name, then the first bytes.',
      }),
    ),
  },
  { additionalProperties: false, description: 'A reference to a zones file instead of inline zones.' },
);

const UriSchema = Type.String({ minLength: 1, maxLength: 4096, description: 'An http(s) URL, called with a POST of the status document.' });

const SubscriberSchema = Type.Object(
  { successUri: Type.Optional(UriSchema), failedUri: Type.Optional(UriSchema), inProgressUri: Type.Optional(UriSchema) },
  { additionalProperties: false, description: 'URLs told of the job: on success, on failure, after each task.' },
);

/** The body of `POST /processes/{id}/execution` for a process. */
export function executeSchema(id: ProcessId) {
  const body: TObject = PROCESS_BODIES[id];
  // Zones given as a raster are one request's work (a scan of the raster), not a job's: jobs take polygons.
  const inputs = Type.Composite([Type.Omit(body, ['aoi', 'zones']), Type.Object({ aoi: Type.Union([AoiSchema, ZonesRefSchema]) })], {
    additionalProperties: false,
    description: `The body of ${id.replace('zonal-stats-', 'the ')} endpoint, whose \`aoi\` may also be a reference to a zones file.`,
  });
  return Type.Object(
    {
      inputs,
      subscriber: Type.Optional(SubscriberSchema),
      response: Type.Optional(Type.Literal('document')),
    },
    {
      additionalProperties: false,
      examples: ((body.examples as Record<string, unknown>[] | undefined) ?? []).filter((e) => 'aoi' in e).map((inputs) => ({ inputs })),
    },
  );
}

/** OGC's description of a process's inputs, from the endpoint's schema. */
export function processInputs(id: ProcessId): Record<string, unknown> {
  const body: TObject = PROCESS_BODIES[id];
  const required = new Set([...(body.required ?? []), 'aoi']);
  return Object.fromEntries(
    Object.entries(body.properties)
      .filter(([name]) => name !== 'zones')
      .map(([name, schema]) => {
        const s = name === 'aoi' ? { oneOf: [schema, ZonesRefSchema] } : schema;
        return [
          name,
          { title: name, description: (schema as { description?: string }).description ?? '', schema: s, minOccurs: required.has(name) ? 1 : 0, maxOccurs: 1 },
        ];
      }),
  );
}

export const JobListQuerySchema = Type.Object(
  {
    limit: Type.Optional(Type.String({ pattern: '^([1-9][0-9]{0,2}|1000)$', description: 'Jobs per page, 1 to 1000 (default 50).' })),
    after: Type.Optional(Type.String({ maxLength: 64, description: 'The last job id of the previous page (its `next` link has it).' })),
  },
  { additionalProperties: false },
);

export const JobIdParamsSchema = Type.Object({ jobId: Type.String({ maxLength: 64 }) });

const LinkSchema = Type.Object({ href: Type.String(), rel: Type.String(), type: Type.Optional(Type.String()), title: Type.Optional(Type.String()) });

/** OGC's statusInfo, with the job's zones and how many were answered with an error. */
export const StatusInfoSchema = Type.Object(
  {
    jobID: Type.String({ description: 'A random UUID: the only way to the job and its results.' }),
    processID: Type.String(),
    type: Type.Literal('process'),
    status: Type.Union(['accepted', 'running', 'successful', 'failed', 'dismissed'].map((s) => Type.Literal(s))),
    message: Type.String(),
    created: Type.String({ format: 'date-time' }),
    started: Type.Optional(Type.String({ format: 'date-time' })),
    finished: Type.Optional(Type.String({ format: 'date-time' })),
    updated: Type.String({ format: 'date-time' }),
    progress: Type.Integer({ minimum: 0, maximum: 100, description: 'Zones answered, in percent (100 once successful).' }),
    zones: Type.Integer({ description: 'Zones of the job.' }),
    failedZones: Type.Integer({ description: 'Zones answered with an error (each row carries it).' }),
    links: Type.Array(LinkSchema),
  },
  { title: 'StatusInfo' },
);
