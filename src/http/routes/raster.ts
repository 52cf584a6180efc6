/** POST /api/v1/zonal-stats/raster: schema + one call to the use case. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { RasterRequestSchema } from '../../schemas/raster.ts';
import { ProblemResponses, StatsResponseSchema } from '../../schemas/response.ts';
import { rasterZonalStats, rasterZonesStats } from '../../zonal/raster.ts';
import { rasterStacStats, rasterStacZonesStats } from '../../zonal/stac.ts';
import { RasterStacRequestSchema, RasterStacSearchRequestSchema } from '../../schemas/stac.ts';
import { stacSearchOutcomes } from '../../zonal/stac-search.ts';
import type { AppDeps } from '../deps.ts';
import { useCaseDeps } from '../context.ts';
import { zoneGeometries, zoneOutcomes, zonesOf } from '../../zonal/zones.ts';
import { replyZones } from '../zones.ts';

/** `x-zonal-level`: the level read (0 full resolution, n the n-th overview), its size and pixel size (CRS units). */
function levelHeader(l: { index: number; width: number; height: number; pixelSize: number }): string {
  return `${l.index}; size=${l.width}x${l.height}; pixel=${Number(l.pixelSize.toPrecision(6))}`;
}

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
    async (request, reply) => {
      const body = request.body;
      if (body.aoi.type !== 'FeatureCollection')
        return rasterZonalStats(body, {
          ...useCaseDeps(deps, request),
          onLevel: (l) => reply.header('x-zonal-level', levelHeader(l)),
          onNote: (n) => reply.header('x-zonal-note', n),
        });
      // One source and one pass over the blocks for all zones (zonal/raster.ts).
      const zones = zonesOf(body.aoi, deps.config.maxZones);
      const { aoi: _aoi, ...rest } = body;
      const outcomes = zoneOutcomes(zones, rasterZonesStats(rest, zoneGeometries(zones, body.radius), useCaseDeps(deps, request)));
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
      if (body.aoi.type !== 'FeatureCollection')
        return rasterStacStats(body, {
          ...useCaseDeps(deps, request),
          onLevel: (l) => reply.header('x-zonal-level', levelHeader(l)),
          onNote: (n) => reply.header('x-zonal-note', n),
        });
      // The Item is read once, then one pass over the asset's blocks for all zones.
      const zones = zonesOf(body.aoi, deps.config.maxZones);
      const { aoi: _aoi, ...rest } = body;
      const outcomes = zoneOutcomes(zones, rasterStacZonesStats(rest, zoneGeometries(zones, body.radius), useCaseDeps(deps, request)));
      return replyZones(request, reply, outcomes, { includeGeometry: body.include_geometry === true, keyName: 'band' });
    },
  );

  app.post(
    '/api/v1/zonal-stats/raster/stac/search',
    {
      schema: {
        tags: ['zonal-stats'],
        summary: 'Zones × time: statistics of a raster asset of every STAC Item a search finds, per zone',
        description:
          "`stac` is a STAC API (landing page or /search: searched with the bbox of all the zones, `collections`, `datetime` and a CQL2-JSON `filter`, next pages followed) or a static ItemCollection. Each zone takes the Items its bbox meets that `time` picks (all, asof, nearest, window ± days; the zone's date from `time.property` or `time.date`), and each Item is answered as the raster/stac endpoint would, on its own grid. One row per zone and Item, zones in input order, each zone's rows by time, with `item_id` and `datetime`; JSON (a FeatureCollection), NDJSON or CSV by Accept.",
        body: RasterStacSearchRequestSchema,
        response: { ...ProblemResponses },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const zones =
        body.aoi.type === 'FeatureCollection'
          ? zonesOf(body.aoi, deps.config.maxZones)
          : [
              {
                index: 0,
                id: body.aoi.type === 'Feature' ? (body.aoi.id ?? null) : null,
                properties: body.aoi.type === 'Feature' ? ((body.aoi.properties as Record<string, unknown> | null | undefined) ?? null) : null,
                geometry: body.aoi.type === 'Feature' ? body.aoi.geometry : body.aoi,
              },
            ];
      const outcomes = stacSearchOutcomes(body, zones, useCaseDeps(deps, request));
      return replyZones(request, reply, outcomes, { includeGeometry: body.include_geometry === true, keyName: 'band' });
    },
  );
};
