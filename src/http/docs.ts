/** OpenAPI document (generated from the route schemas) at /openapi.json and interactive docs at /docs. */
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { pathToFileURL } from 'node:url';
import { DEMO_URL } from '../schemas/common.ts';

export const SERVICE_VERSION = '0.1.0';

/** `demoDir`: the bundled demo folder of this instance, which the request examples name (schemas/common.ts). */
export const docsPlugin = fp(async (app: FastifyInstance, opts: { demoDir: string }) => {
  const here = pathToFileURL(opts.demoDir.endsWith('/') ? opts.demoDir : `${opts.demoDir}/`).href;
  await app.register(swagger, {
    // So "Try it out" runs as written on this machine, not only in the container.
    transformObject: (doc) => {
      const object = 'openapiObject' in doc ? doc.openapiObject : doc.swaggerObject;
      return here === DEMO_URL ? object : JSON.parse(JSON.stringify(object).replaceAll(DEMO_URL, here));
    },
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
        { name: 'sources', description: 'What a source is (footprint, bands or columns, a preview)' },
        { name: 'meta', description: 'Service information' },
      ],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
});
