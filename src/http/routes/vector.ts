/** The vector routes (a GeoParquet file, a STAC Item's asset): schema + one call to answerZonal. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { VectorRequestSchema } from '../../schemas/vector.ts';
import { ProblemResponses, VectorResponseSchema } from '../../schemas/response.ts';
import { VectorStacRequestSchema } from '../../schemas/stac.ts';
import type { AppDeps } from '../deps.ts';
import { answerZonal } from '../answer.ts';
import { questionOf } from '../../schemas/zones.ts';

export const vectorRoutes: FastifyPluginAsyncTypebox<AppDeps> = async (app, deps) => {
  app.post(
    '/api/v1/zonal-stats/vector',
    {
      schema: {
        tags: ['zonal-stats'],
        summary: 'Statistics of numeric columns of a GeoParquet file inside an area of interest',
        description:
          'Polygon or circle: features whose intersection with the AOI has an area, weighted by that area (or by the share of the feature, `ratio`); `sum` is the areal share Σ value × intersection / feature area. Bare point: the features that contain or touch it. Point and line datasets are counted unweighted.',
        body: VectorRequestSchema,
        response: { 200: VectorResponseSchema, ...ProblemResponses },
      },
    },
    async (request, reply) => answerZonal(deps, request, reply, request.body, questionOf('vector', request.body), { keyName: 'column' }),
  );

  app.post(
    '/api/v1/zonal-stats/vector/stac',
    {
      schema: {
        tags: ['zonal-stats'],
        summary: 'Statistics of a GeoParquet asset of a STAC Item inside an area of interest',
        description:
          "`url` is the STAC Item (http or https). The asset (`asset`, default the Item's first) must have a .parquet/.geoparquet href or a Parquet media type (else 415); it is answered exactly as the vector endpoint would.",
        body: VectorStacRequestSchema,
        response: { 200: VectorResponseSchema, ...ProblemResponses },
      },
    },
    async (request, reply) => answerZonal(deps, request, reply, request.body, questionOf('vector-stac', request.body), { keyName: 'column' }),
  );
};
