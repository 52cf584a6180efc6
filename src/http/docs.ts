/** OpenAPI document (generated from the route schemas) at /openapi.json and interactive docs at /docs. */
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

export const SERVICE_VERSION = '0.1.0';

export const docsPlugin = fp(async (app: FastifyInstance) => {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Zonal statistics service',
        version: SERVICE_VERSION,
        description:
          'Statistics of a Cloud Optimized GeoTIFF, a STAC raster asset or a GeoParquet file inside a GeoJSON area of interest. Errors are RFC 9457 problem+json.',
        license: { name: 'MIT' },
      },
      tags: [
        { name: 'zonal-stats', description: 'Zonal statistics' },
        { name: 'meta', description: 'Service information' },
      ],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
});
