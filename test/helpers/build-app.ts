/** buildApp with a test configuration: fixtures as the data root, loopback allowed, logs silenced. */
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { buildApp, type BuildOptions } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';

export const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));

export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    ...loadConfig({}),
    dataRoots: [FIXTURES],
    allowPrivateNetworks: true,
    upstreamTimeoutMs: 2000,
    workers: 1,
    // No caches unless a test asks: the bytes a request reads are then what it needs.
    cacheBytes: 0,
    tileCacheBytes: 0,
    revalidateSeconds: 0,
    // A loaded test machine stalls the event loop for seconds: load shedding by delay would answer 503 at
    // random. The tests of shedding trip the worker-queue check instead.
    maxEventLoopDelayMs: 0,
    ...overrides,
  };
}

export async function buildTestApp(overrides: Partial<Config> = {}, options: BuildOptions = {}): Promise<FastifyInstance> {
  const app = await buildApp(testConfig(overrides), { logger: false, ...options });
  await app.ready();
  return app;
}

/** file:// URL of a fixture. */
export function fixtureUrl(relative: string): string {
  return new URL(relative, `file://${FIXTURES}`).href;
}
