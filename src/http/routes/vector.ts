/** POST /api/v1/zonal-stats/vector: schema + one call to the use case. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { VectorRequestSchema } from '../../schemas/vector.ts';
import { ProblemResponses, VectorResponseSchema } from '../../schemas/response.ts';
import { vectorZonalStats, vectorZonesStats } from '../../zonal/vector.ts';
import { vectorStacStats, vectorStacZonesStats } from '../../zonal/stac.ts';
import { VectorStacRequestSchema } from '../../schemas/stac.ts';
import type { AppDeps } from '../deps.ts';
import { useCaseDeps } from '../context.ts';
import { zoneGeometries, zoneOutcomes, zonesOf } from '../../zonal/zones.ts';
import { replyZones } from '../zones.ts';

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
    async (request, reply) => {
      const body = request.body;
      if (body.aoi.type !== 'FeatureCollection') return vectorZonalStats(body, useCaseDeps(deps, request));
      // One footer and one read of each row group for all zones (zonal/vector.ts).
      const zones = zonesOf(body.aoi, deps.config.maxZones);
      const { aoi: _aoi, ...rest } = body;
      const outcomes = zoneOutcomes(zones, vectorZonesStats(rest, zoneGeometries(zones, body.radius), useCaseDeps(deps, request)));
      return replyZones(request, reply, outcomes, { includeGeometry: body.include_geometry === true, keyName: 'column' });
    },
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
    async (request, reply) => {
      const body = request.body;
      if (body.aoi.type !== 'FeatureCollection') return vectorStacStats(body, useCaseDeps(deps, request));
      // The Item is read once, then one read of each row group for all zones.
      const zones = zonesOf(body.aoi, deps.config.maxZones);
      const { aoi: _aoi, ...rest } = body;
      const outcomes = zoneOutcomes(zones, vectorStacZonesStats(rest, zoneGeometries(zones, body.radius), useCaseDeps(deps, request)));
      return replyZones(request, reply, outcomes, { includeGeometry: body.include_geometry === true, keyName: 'column' });
    },
  );
};
