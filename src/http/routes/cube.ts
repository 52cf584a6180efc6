/** The cube route (a Zarr store or kerchunk references per zone and step): schema + one call to answerZonal. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CubeRequestSchema } from '../../schemas/cube.ts';
import { ProblemResponses } from '../../schemas/response.ts';
import type { AppDeps } from '../deps.ts';
import { answerZonal } from '../answer.ts';
import { questionOf } from '../../schemas/zones.ts';

export const cubeRoutes: FastifyPluginAsyncTypebox<AppDeps> = async (app, deps) => {
  app.post(
    '/api/v1/zonal-stats/cube',
    {
      schema: {
        tags: ['zonal-stats'],
        summary: 'Zones × steps: statistics of a data cube variable (Zarr v2/v3, NetCDF through kerchunk references) per zone and step',
        description:
          "The variable's spatial axes are found by CF attributes or their usual names; its CRS from its grid_mapping (else WGS84 for longitude/latitude); values decoded as CF says (scale_factor, add_offset, _FillValue, missing_value, valid_*). Every non-spatial dimension `sel` does not pin to one value is iterated: one row per zone and step, zones in input order, each zone's steps in axis order, each row with the iterated dimensions' coordinates (time as ISO 8601) and the statistics under the variable's name. Each chunk is read and decoded once for all the zones and steps it holds. JSON (a FeatureCollection), NDJSON, CSV or GeoParquet by Accept.",
        body: CubeRequestSchema,
        response: { ...ProblemResponses },
      },
    },
    async (request, reply) => answerZonal(deps, request, reply, request.body, questionOf('cube', request.body), { keyName: 'variable', alwaysZones: true }),
  );
};
