/** GET / and GET /health (contract §1). */
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { SERVICE_VERSION } from '../docs.ts';
import { sendProblem } from '../problem.ts';
import { ProblemSchema } from '../../schemas/response.ts';

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

const ReadySchema = Type.Object({ status: Type.Literal('ready') }, { title: 'Ready' });

/** Probes answer under pressure too: liveness stays 200, readiness says why it is not ready. */
const PROBE = { pressureHandler: () => undefined };

export const metaRoutes: FastifyPluginAsyncTypebox<{ lifecycle: { draining: boolean } }> = async (app, opts) => {
  app.get(
    '/',
    {
      schema: { tags: ['meta'], summary: 'Service name, version and links (a browser asking for text/html gets the web page)', response: { 200: RootSchema } },
    },
    async (request, reply) => {
      // Content negotiation: API clients (curl's */*, application/json) keep the JSON index.
      if (request.accepts().type(['application/json', 'text/html']) === 'text/html' && app.sendPage(reply)) return reply;
      void reply.header('vary', 'accept');
      return rootIndex();
    },
  );
  const rootIndex = () => ({
    name: 'zonal-stats-service',
    version: SERVICE_VERSION,
    endpoints: {
      raster: '/api/v1/zonal-stats/raster',
      raster_stac: '/api/v1/zonal-stats/raster/stac',
      raster_stac_search: '/api/v1/zonal-stats/raster/stac/search',
      cube: '/api/v1/zonal-stats/cube',
      vector: '/api/v1/zonal-stats/vector',
      vector_stac: '/api/v1/zonal-stats/vector/stac',
      sources_info: '/api/v1/sources/info',
    },
    docs: '/docs',
    openapi: '/openapi.json',
  });
  app.get(
    '/health',
    { config: PROBE, schema: { tags: ['meta'], summary: 'Liveness: 200 while the process can serve', response: { 200: HealthSchema } } },
    async () => ({
      status: 'ok' as const,
    }),
  );
  app.get(
    '/health/live',
    {
      config: PROBE,
      schema: { tags: ['meta'], summary: 'Liveness (for probes): 200 while the process runs and its event loop turns', response: { 200: HealthSchema } },
    },
    async () => ({
      status: 'ok' as const,
    }),
  );
  app.get(
    '/health/ready',
    {
      config: PROBE,
      schema: {
        tags: ['meta'],
        summary: 'Readiness: 200 while the instance takes new work; 503 while overloaded and from the first moment of a drain',
        response: { 200: ReadySchema, 503: ProblemSchema },
      },
    },
    async (_request, reply) => {
      if (opts.lifecycle.draining) return sendProblem(reply, 'draining', 'The instance is shutting down: send new requests to another one.');
      if (app.isUnderPressure())
        return sendProblem(reply, 'overloaded', 'The instance is overloaded (its worker queue or event loop): send new requests to another one.');
      return { status: 'ready' as const };
    },
  );
};
