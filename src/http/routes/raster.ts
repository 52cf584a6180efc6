/** The raster routes (a COG, a STAC Item's asset, zones × time): schema + one call to answerZonal. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { RasterRequestSchema } from '../../schemas/raster.ts';
import { ProblemResponses, StatsResponseSchema } from '../../schemas/response.ts';
import { RasterStacRequestSchema, RasterStacSearchRequestSchema } from '../../schemas/stac.ts';
import type { AppDeps } from '../deps.ts';
import { answerZonal } from '../answer.ts';
import { questionOf } from '../../schemas/zones.ts';

export const rasterRoutes: FastifyPluginAsyncTypebox<AppDeps> = async (app, deps) => {
  app.post(
    '/api/v1/zonal-stats/raster',
    {
      schema: {
        tags: ['zonal-stats'],
        summary: 'Statistics of a Cloud Optimized GeoTIFF inside an area of interest',
        description:
          "Pixels whose centre lies inside the AOI count (a bare point selects the pixel that contains it). Values are scaled by the file's scale/offset; nodata, NaN and masked pixels are excluded and counted in `nodata`.",
        body: RasterRequestSchema,
        response: { 200: StatsResponseSchema, ...ProblemResponses },
      },
    },
    async (request, reply) => answerZonal(deps, request, reply, request.body, questionOf('raster', request.body), { keyName: 'band' }),
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
    async (request, reply) => answerZonal(deps, request, reply, request.body, questionOf('raster-stac', request.body), { keyName: 'band' }),
  );

  app.post(
    '/api/v1/zonal-stats/raster/stac/search',
    {
      schema: {
        tags: ['zonal-stats'],
        summary: 'Zones × time: statistics of a raster asset of every STAC Item a search finds, per zone',
        description:
          "`stac` is a STAC API (landing page or /search: searched with the bbox of all the zones, `collections`, `datetime` and a CQL2-JSON `filter`, next pages followed) or a static ItemCollection. Each zone takes the Items its bbox meets that `time` picks (all, asof, nearest, window ± days; the zone's date from `time.property` or `time.date`), and each Item is answered as the raster/stac endpoint would, on its own grid. One row per zone and Item, zones in input order, each zone's rows by time, with `item_id` and `datetime`; JSON (a FeatureCollection), NDJSON, CSV or GeoParquet by Accept.",
        body: RasterStacSearchRequestSchema,
        response: { ...ProblemResponses },
      },
    },
    async (request, reply) =>
      answerZonal(deps, request, reply, request.body, questionOf('raster-stac-search', request.body), { keyName: 'band', alwaysZones: true }),
  );
};
