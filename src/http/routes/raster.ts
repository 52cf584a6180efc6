/** POST /api/v1/zonal-stats/raster: schema + one call to the use case. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { RasterRequestSchema } from '../../schemas/raster.ts';
import { ProblemResponses, StatsResponseSchema } from '../../schemas/response.ts';
import { rasterZonalStats } from '../../zonal/raster.ts';
import { rasterStacStats } from '../../zonal/stac.ts';
import { RasterStacRequestSchema } from '../../schemas/stac.ts';
import type { AppDeps } from '../deps.ts';
import { useCaseDeps } from '../context.ts';
import { answerZones, zonesOf } from '../../zonal/zones.ts';
import { replyZones } from '../zones.ts';

/** Zones answered at once (each zone's tiles are decoded in the worker pool). */
const ZONE_CONCURRENCY = 4;

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
    async (request, reply) => {
      const body = request.body;
      if (body.aoi.type !== 'FeatureCollection') return rasterZonalStats(body, useCaseDeps(deps, request));
      // Each zone opens the source as its own request would (its own byte budget); the header, byte
      // and decoded-tile caches make the repeats cheap.
      const shared = useCaseDeps(deps, request);
      const zones = zonesOf(body.aoi, deps.config.maxZones);
      const outcomes = answerZones(zones, (aoi) => rasterZonalStats({ ...body, aoi }, shared), { radius: body.radius, concurrency: ZONE_CONCURRENCY, signal: request.abortSignal });
      return replyZones(request, reply, outcomes, { includeGeometry: body.include_geometry === true, keyName: 'band' });
    },
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
    async (request, reply) => {
      const body = request.body;
      if (body.aoi.type !== 'FeatureCollection') return rasterStacStats(body, useCaseDeps(deps, request));
      // Each zone opens the source as its own request would (its own byte budget); the header, byte
      // and decoded-tile caches make the repeats cheap.
      const shared = useCaseDeps(deps, request);
      const zones = zonesOf(body.aoi, deps.config.maxZones);
      const outcomes = answerZones(zones, (aoi) => rasterStacStats({ ...body, aoi }, shared), { radius: body.radius, concurrency: ZONE_CONCURRENCY, signal: request.abortSignal });
      return replyZones(request, reply, outcomes, { includeGeometry: body.include_geometry === true, keyName: 'band' });
    },
  );
};
