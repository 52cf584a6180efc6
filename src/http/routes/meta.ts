/** GET / and GET /health (CONTRACT §1). */
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { SERVICE_VERSION } from '../docs.ts';

const HealthSchema = Type.Object({ status: Type.Literal('ok') }, { title: 'Health' });
const RootSchema = Type.Object(
  {
    name: Type.String(),
    version: Type.String(),
    endpoints: Type.Record(Type.String(), Type.String()),
    docs: Type.String(),
    openapi: Type.String(),
  },
  { title: 'ServiceInfo' },
);

export const metaRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/', { schema: { tags: ['meta'], summary: 'Service name, version and links', response: { 200: RootSchema } } }, async () => ({
    name: 'zonal-stats-service',
    version: SERVICE_VERSION,
    endpoints: {
      raster: '/api/v1/zonal-stats/raster',
      raster_stac: '/api/v1/zonal-stats/raster/stac',
      raster_stac_search: '/api/v1/zonal-stats/raster/stac/search',
      vector: '/api/v1/zonal-stats/vector',
      vector_stac: '/api/v1/zonal-stats/vector/stac',
    },
    docs: '/docs',
    openapi: '/openapi.json',
  }));
  app.get('/health', { schema: { tags: ['meta'], summary: 'Liveness: 200 while the process can serve', response: { 200: HealthSchema } } }, async () => ({
    status: 'ok' as const,
  }));
};
