/** POST /api/v1/sources/info: schema + one call to the use case (the web page asks it before anything else). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { InfoRequestSchema, InfoResponseSchema } from '../../schemas/info.ts';
import { ProblemResponses } from '../../schemas/response.ts';
import { sourceInfo } from '../../zonal/info.ts';
import type { AppDeps } from '../deps.ts';
import { useCaseDeps } from '../context.ts';

export const infoRoutes: FastifyPluginAsyncTypebox<AppDeps> = async (app, deps) => {
  app.post(
    '/api/v1/sources/info',
    {
      schema: {
        tags: ['sources'],
        summary: 'What a source is: its WGS84 footprint, bands or columns, and a coarse preview of a raster',
        description:
          'A COG (any url the raster endpoint takes) or a GeoParquet file (a path ending in .parquet/.geoparquet), or with `stac: true` a STAC Item (its assets) or one asset of it, under the same policy, limits and errors as the statistics endpoints. Reads the header or footer, and for a raster preview the tiles of one overview of at most 1024 pixels a side.',
        body: InfoRequestSchema,
        response: { 200: InfoResponseSchema, ...ProblemResponses },
      },
    },
    async (request) => sourceInfo(request.body, useCaseDeps(deps, request)),
  );
};
