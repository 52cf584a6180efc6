/**
 * buildApp(config, deps?): the whole HTTP application as one Fastify instance. Plugins and routes are
 * registered explicitly, in flow order (docs/architecture.md).
 */
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import underPressure from '@fastify/under-pressure';
import accepts from '@fastify/accepts';
import { DEFAULT_DATA_ROOT, type Config } from './config.ts';
import { metricsPlugin } from './http/metrics.ts';
import { problemPlugin, sendProblem } from './http/problem.ts';
import { docsPlugin } from './http/docs.ts';
import { pagePlugin } from './http/page.ts';
import { infoRoutes } from './http/routes/info.ts';
import { contextPlugin } from './http/context.ts';
import { metaRoutes } from './http/routes/meta.ts';
import { rasterRoutes } from './http/routes/raster.ts';
import { cubeRoutes } from './http/routes/cube.ts';
import { vectorRoutes } from './http/routes/vector.ts';
import { processRoutes } from './http/routes/processes.ts';
import { jobRoutes } from './http/routes/jobs.ts';
import { createJobsEngine } from './jobs/engine.ts';
import { openSource as defaultOpenSource } from './source/resolve.ts';
import { createFoldRunner, type InflateInfo } from './workers/pool.ts';
import type { AppDeps } from './http/deps.ts';

export interface BuildOptions {
  /** Replace the source opener (tests that need a different resolver). */
  openSource?: typeof defaultOpenSource;
  /** pino logger options, or false to silence logs (tests). */
  logger?: boolean | Record<string, unknown>;
  /** The demo folder the /docs examples name (default: the bundled one; `npm run openapi` uses the container's). */
  demoDir?: string;
}

export async function buildApp(config: Config, options: BuildOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? { level: config.logLevel },
    // Fastify's two lines per request are replaced by one richer line (http/context.ts).
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.maxBodyBytes,
    // A client's x-request-id is kept only when it is a short plain token (it reaches logs and headers).
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(given) ? given : crypto.randomUUID();
    },
    ajv: {
      customOptions: {
        // Unknown fields are 422 (contract §1), never silently dropped or coerced.
        removeAdditional: false,
        coerceTypes: false,
        useDefaults: false,
        allErrors: false,
        discriminator: true,
      },
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Only JSON bodies are accepted (contract §1): text/plain would otherwise parse and fail the schema (422).
  app.removeContentTypeParser('text/plain');
  // Responses are plain JSON: the schemas document them, JSON.stringify writes them exactly.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  const lifecycle = { draining: false };
  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('x-request-id', request.id);
    // Draining: each keep-alive socket closes after its current response.
    if (lifecycle.draining) reply.header('connection', 'close');
    return payload;
  });

  const runner = createFoldRunner(config.workers);
  const openSource = options.openSource ?? defaultOpenSource;
  const engine = await createJobsEngine(config, { runner, openSource, warn: (message, extra) => app.log.warn(extra ?? {}, message) });
  const deps: AppDeps = { config, openSource, runner, lifecycle, jobs: engine.jobs };
  // Requests in flight finish before the worker pool goes (a close used to fail them with 500s).
  const inFlight = new Set<object>();
  app.addHook('onRequest', async (request, reply) => {
    inFlight.add(request.raw);
    // 'close' comes once the answer is sent or the client is gone, whichever happens.
    reply.raw.once('close', () => inFlight.delete(request.raw));
  });
  app.addHook('onClose', async () => {
    while (inFlight.size > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    // A task in flight is given back to the queue (Redis) or lost with the process's own queue.
    await engine.close();
    await runner.close();
  });

  await registerAll(app, deps, options);
  app.decorate('startDrain', () => {
    lifecycle.draining = true;
  });
  app.decorate('inflate', runner.inflate);
  app.decorate('jobsEngine', engine.kind);
  return app;
}

/** The plugins and routes, in flow order. */
async function registerAll(app: FastifyInstance, deps: AppDeps, options: BuildOptions): Promise<void> {
  const { config, runner, lifecycle } = deps;
  await app.register(problemPlugin);
  await app.register(contextPlugin);
  await app.register(underPressure, {
    maxEventLoopDelay: config.maxEventLoopDelayMs,
    retryAfter: 5,
    exposeStatusRoute: false,
    healthCheck: async () => runner.pending < Math.max(8, config.workers * 16),
    healthCheckInterval: 500,
    pressureHandler: (_req, reply) => {
      reply.header('retry-after', '5');
      void sendProblem(reply, 'overloaded', 'The service is overloaded; retry shortly.');
    },
  });
  await app.register(metricsPlugin, { runner, jobs: deps.jobs });
  await app.register(docsPlugin, { demoDir: options.demoDir ?? DEFAULT_DATA_ROOT });
  await app.register(accepts);
  await app.register(pagePlugin, { config, demoDir: options.demoDir ?? DEFAULT_DATA_ROOT });
  await app.register(metaRoutes, { lifecycle });
  await app.register(infoRoutes, deps);
  await app.register(rasterRoutes, deps);
  await app.register(cubeRoutes, deps);
  await app.register(vectorRoutes, deps);
  await app.register(processRoutes, deps);
  await app.register(jobRoutes, deps);
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Readiness fails from now on (the first step of a drain; server.ts does the rest). */
    startDrain(): void;
    /** The worker threads' inflater (libdeflate, or node:zlib and why), for the start-up log. */
    inflate: Promise<InflateInfo>;
    /** Where jobs run (in-process, or redis), for the start-up log. */
    jobsEngine: 'in-process' | 'redis';
  }
}
