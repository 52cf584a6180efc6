/**
 * Per-request I/O context: a byte counter for the log line and an AbortSignal that fires when the
 * client goes away, so upstream reads and worker tasks of abandoned requests stop.
 */
import { setMaxListeners } from 'node:events';
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ByteSource, ReadStats } from '../source/source.ts';
import type { AppDeps } from './deps.ts';
import { jsonClient } from '../source/resolve.ts';

declare module 'fastify' {
  interface FastifyRequest {
    readStats: ReadStats;
    abortSignal: AbortSignal;
    /** Hosts (or file) of the sources this request opened, for its log line. */
    sourceHosts: Set<string>;
    /** The job a request submitted or read, for its log line. */
    jobId: string | null;
  }
}

export const contextPlugin = fp(async (app: FastifyInstance) => {
  app.decorateRequest('readStats', null as unknown as ReadStats);
  app.decorateRequest('abortSignal', null as unknown as AbortSignal);
  app.decorateRequest('sourceHosts', null as unknown as Set<string>);
  app.decorateRequest('jobId', null);
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const controller = new AbortController();
    // Every upstream read, worker task and cache wait of a request listens to this one signal.
    setMaxListeners(256, controller.signal);
    request.readStats = { requests: 0, bytes: 0 };
    request.sourceHosts = new Set();
    request.abortSignal = controller.signal;
    reply.raw.on('close', () => {
      if (!reply.raw.writableFinished) controller.abort();
    });
  });
  // One log line per request: id, route, status, duration, bytes read upstream (issue 2 §10).
  app.addHook('onResponse', async (request: FastifyRequest, reply: FastifyReply) => {
    request.log.info(
      {
        method: request.method,
        route: request.routeOptions.url ?? null,
        status: reply.statusCode,
        durationMs: Math.round(reply.elapsedTime * 10) / 10,
        sourceRequests: request.readStats.requests,
        sourceBytes: request.readStats.bytes,
        sourceHosts: request.sourceHosts.size > 0 ? [...request.sourceHosts] : undefined,
        job: request.jobId ?? undefined,
      },
      'request',
    );
  });
});

/**
 * What a use case needs from one request: config, worker pool, the client's abort signal, and a source
 * opener that counts into this request's log line.
 */
export function useCaseDeps(deps: AppDeps, request: FastifyRequest) {
  return {
    config: deps.config,
    runner: deps.runner,
    signal: request.abortSignal,
    openSource: (url: string): Promise<ByteSource> => {
      request.sourceHosts.add(hostOf(url));
      return deps.openSource(url, deps.config, { stats: request.readStats, signal: request.abortSignal });
    },
    json: jsonClient(deps.config, request.readStats),
  };
}

/** The host of a source URL for logs ("file" for local files, never a path). */
function hostOf(url: string): string {
  try {
    const u = new URL(url);
    return u.protocol === 'file:' ? 'file' : u.protocol === 's3:' ? `s3://${u.host}` : u.host;
  } catch {
    return 'invalid';
  }
}
