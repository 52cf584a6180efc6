import { describe, expect, it } from 'vitest';
import { DEFAULT_DATA_ROOT, loadConfig } from '../src/config.ts';

describe('configuration from the environment', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 3000,
      host: '0.0.0.0',
      dataRoots: [DEFAULT_DATA_ROOT],
      allowPrivateNetworks: false,
      upstreamTimeoutMs: 20000,
      maxAreaKm2: 1_000_000,
      maxPixels: 100_000_000,
      logLevel: 'info',
    });
    expect(DEFAULT_DATA_ROOT).toMatch(/fixtures\/demo\/$/);
  });

  it('reads the documented variables', () => {
    const c = loadConfig({
      PORT: '8080',
      HOST: '127.0.0.1',
      ZONAL_DATA_ROOTS: '/data/a:/data/b',
      ZONAL_ALLOW_PRIVATE_NETWORKS: 'true',
      ZONAL_UPSTREAM_TIMEOUT_MS: '500',
      ZONAL_MAX_AREA_KM2: '10',
      ZONAL_MAX_PIXELS: '1000',
      LOG_LEVEL: 'debug',
    });
    expect(c).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      dataRoots: ['/data/a', '/data/b'],
      allowPrivateNetworks: true,
      upstreamTimeoutMs: 500,
      maxAreaKm2: 10,
      maxPixels: 1000,
      logLevel: 'debug',
    });
  });

  it('takes a CIDR allow-list for private networks and refuses a typo', () => {
    expect(loadConfig({ ZONAL_ALLOW_PRIVATE_NETWORKS: '10.0.0.0/8, 127.0.0.1/32' }).allowPrivateNetworks).toEqual(['10.0.0.0/8', '127.0.0.1/32']);
    expect(loadConfig({ ZONAL_ALLOW_PRIVATE_NETWORKS: 'no' }).allowPrivateNetworks).toBe(false);
    expect(() => loadConfig({ ZONAL_ALLOW_PRIVATE_NETWORKS: '10.0.0.0/33' })).toThrow(/ZONAL_ALLOW_PRIVATE_NETWORKS/);
  });

  it('refuses numbers that are not numbers', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadConfig({ ZONAL_MAX_PIXELS: '0' })).toThrow(/ZONAL_MAX_PIXELS/);
  });
  it('reads the jobs variables, with the documented defaults, and stops on a typo', () => {
    const d = loadConfig({}).jobs;
    expect(d).toMatchObject({
      redisUrl: null,
      redisPrefix: 'zonal:',
      maxZones: 10_000_000,
      maxActive: 100,
      ttlSeconds: 604_800,
      taskZones: 10_000,
      worker: true,
      list: true,
    });
    expect(d.resultsUrl).toMatch(/^file:\/\/\/.*zonal-results$/);
    const c = loadConfig({
      ZONAL_REDIS_URL: 'redis://redis:6379/2',
      ZONAL_RESULTS_URL: 's3://bucket/jobs',
      ZONAL_JOB_TTL: '12h',
      ZONAL_JOB_WORKER: '0',
      ZONAL_JOB_LIST: 'off',
      ZONAL_MAX_JOB_ZONES: '5',
    }).jobs;
    expect(c).toMatchObject({ redisUrl: 'redis://redis:6379/2', resultsUrl: 's3://bucket/jobs', ttlSeconds: 43_200, worker: false, list: false, maxZones: 5 });
    expect(loadConfig({ ZONAL_JOB_TTL: '90' }).jobs.ttlSeconds).toBe(90);
    expect(() => loadConfig({ ZONAL_JOB_TTL: '7 days' })).toThrow(/ZONAL_JOB_TTL/);
    expect(() => loadConfig({ ZONAL_REDIS_URL: 'localhost:6379' })).toThrow(/ZONAL_REDIS_URL/);
    expect(() => loadConfig({ ZONAL_RESULTS_URL: '/tmp/results' })).toThrow(/ZONAL_RESULTS_URL/);
  });
});
