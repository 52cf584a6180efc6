/** POST /api/v1/zonal-stats/raster: schema + one call to the use case. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { RasterRequestSchema } from '../../schemas/raster.ts';
import { ProblemResponses, StatsResponseSchema } from '../../schemas/response.ts';
import { rasterZonalStats } from '../../zonal/raster.ts';
import { rasterStacStats } from '../../zonal/stac.ts';
import { RasterStacRequestSchema } from '../../schemas/stac.ts';
import type { AppDeps } from '../deps.ts';
import { useCaseDeps } from '../context.ts';

export const rasterRoutes: FastifyPluginAsyncTypebox<AppDeps> = async (app, deps) => {
  app.post(
    '/api/v1/zonal-stats/raster',
    {
      schema: {
        tags: ['zonal-stats'],
        summary: 'Statistics of a Cloud Optimized GeoTIFF inside an area of interest',
        description:
          'Pixels whose centre lies inside the AOI count (a bare point selects the pixel that contains it). Values are scaled by the file\'s scale/offset; nodata, NaN and masked pixels are excluded and counted in `nodata`.',
        body: RasterRequestSchema,
        response: { 200: StatsResponseSchema, ...ProblemResponses },
      },
    },
    async (request) =>
      rasterZonalStats(request.body, useCaseDeps(deps, request)),
  );

  app.post(
    '/api/v1/zonal-stats/raster/stac',
    {
      schema: {
        tags: ['zonal-stats'],
        summary: 'Statistics of a raster asset of a STAC Item inside an area of interest',
        description:
          "`url` is the STAC Item (http or https). The asset (`asset`, default the Item's first) is resolved against the Item's URL and answered exactly as the raster endpoint would; its `raster:bands` nodata/scale/offset apply where the file has none.",
        body: RasterStacRequestSchema,
        response: { 200: StatsResponseSchema, ...ProblemResponses },
      },
    },
    async (request) =>
      rasterStacStats(request.body, useCaseDeps(deps, request)),
  );
};
