/**
 * Configuration from the environment (issue 2 §2), validated once at start-up. Names are part of the
 * operator contract: see README "Configuration".
 */
import { tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { invalidCidrs } from './policy.ts';

export interface Config {
  port: number;
  host: string;
  /** Absolute folders that file:// URLs may read (after realpath). */
  dataRoots: string[];
  /**
   * Whether private, loopback and link-local addresses may be fetched: `true` allows all of them,
   * a list of CIDR ranges allows only those (for example `127.0.0.1/32`), `false` none.
   */
  allowPrivateNetworks: boolean | string[];
  upstreamTimeoutMs: number;
  maxAreaKm2: number;
  maxPixels: number;
  /** Hard cap on pixels read even with approx_stats (memory guard). */
  maxApproxPixels: number;
  /** Max features a vector request may consider (rows of the row groups it must read). */
  maxFeatures: number;
  /** Max vertices of an AOI (after circle construction). */
  maxVertices: number;
  /** Max request body size in bytes. */
  /** Bytes of decoded tiles kept (split between the worker threads), 0 to disable. */
  tileCacheBytes: number;
  /** Seconds an http(s) object's size and ETag, once learnt, are trusted without asking the server again. */
  revalidateSeconds: number;
  /** Zones (features of a FeatureCollection `aoi`) per request. */
  maxZones: number;
  /** SIGTERM: how long readiness fails before new connections stop (ZONAL_DRAIN_DELAY_MS). */
  drainDelayMs: number;
  /** Event loop delay past which new requests are shed with 503 (ZONAL_MAX_EVENT_LOOP_DELAY_MS; 0: never). */
  maxEventLoopDelayMs: number;
  /** SIGTERM: how long in-flight requests may take once new connections stop (ZONAL_DRAIN_GRACE_MS). */
  drainGraceMs: number;
  /** Most STAC Items one zones × time request may take (ZONAL_MAX_STAC_ITEMS). */
  maxStacItems: number;
  /** Most (zone, Item) rows of one request (ZONAL_MAX_ZONE_ITEMS). */
  maxZoneItems: number;
  /** Most zone × step rows of one cube request. */
  maxCubeRows: number;
  maxBodyBytes: number;
  /** Max bytes one request may read from its source. */
  maxSourceBytes: number;
  /** Bytes kept in the shared read cache (headers and tiles), 0 to disable. */
  cacheBytes: number;
  /** Worker threads for decoding and pixel loops (0 = run inline, for tests). */
  workers: number;
  logLevel: string;
  /** The built web page (index.html and assets/), served at / to browsers; absent: / answers JSON only. */
  webDir: string;
  /** A raster tile URL template ({z}/{x}/{y}) the page shows under the data, or null (a graticule). */
  basemap: { tiles: string; attribution: string } | null;
  /** Jobs (OGC API – Processes): where they run and what bounds them. */
  jobs: JobsConfig;
}

export interface JobsConfig {
  /** ZONAL_REDIS_URL: jobs on BullMQ through this Redis; null: in this process, one at a time. */
  redisUrl: string | null;
  /** Key prefix of everything the jobs keep in Redis (ZONAL_REDIS_PREFIX). */
  redisPrefix: string;
  /** ZONAL_RESULTS_URL: file:///folder or s3://bucket/prefix for the parts of results. */
  resultsUrl: string;
  /** Zones of one job (ZONAL_MAX_JOB_ZONES). */
  maxZones: number;
  /** Jobs queued or running at once (ZONAL_MAX_ACTIVE_JOBS). */
  maxActive: number;
  /** How long records and results are kept, seconds (ZONAL_JOB_TTL). */
  ttlSeconds: number;
  /** Zones per task (ZONAL_JOB_TASK_ZONES). */
  taskZones: number;
  /** Whether this process takes tasks (ZONAL_JOB_WORKER; `zonal worker` always does). */
  worker: boolean;
  /** Tries of a task whose failure may pass (upstream errors), and the first wait between them, ms. */
  attempts: number;
  retryMs: number;
  /** BullMQ's lock of a running task: a task whose process died is taken again after about this long, ms. */
  lockMs: number;
  /** Whether GET /jobs lists the jobs (ZONAL_JOB_LIST): off, a job is reached only by the id its submitter was given. */
  list: boolean;
  /** Bytes of a GeoJSON or CSV zones file a job may read (GeoParquet is read by row group). */
  zonesFileMaxBytes: number;
}

export const DEFAULT_DATA_ROOT = fileURLToPath(new URL('../fixtures/demo/', import.meta.url));
/** Where scripts/build-web.mjs writes the page (the same from src/ and dist/). */
const DEFAULT_WEB_DIR = fileURLToPath(new URL('../dist/web/', import.meta.url));

/** ZONAL_BASEMAP_URL: an http(s) template with {z}, {x} and {y}; a typo stops the start. */
function basemap(env: Env): Config['basemap'] {
  const tiles = env['ZONAL_BASEMAP_URL']?.trim();
  if (!tiles) return null;
  let ok = false;
  try {
    ok = ['http:', 'https:'].includes(new URL(tiles.replace(/[{}]/g, '')).protocol) && ['{z}', '{x}', '{y}'].every((k) => tiles.includes(k));
  } catch {
    ok = false;
  }
  if (!ok) throw new Error('ZONAL_BASEMAP_URL: give an http(s) tile URL template with {z}, {x} and {y}, e.g. https://tile.example.org/{z}/{x}/{y}.png');
  return { tiles, attribution: env['ZONAL_BASEMAP_ATTRIBUTION']?.trim() ?? '' };
}

type Env = Record<string, string | undefined>;

/**
 * The decoded-tile cache's default: 512 MiB (a 10000 × 10000 Float32 COG decodes to 400 MiB), or a quarter
 * of the memory the process may use (its container's limit, else the machine's) when that is less.
 */
function defaultTileCacheBytes(): number {
  const total = totalmem();
  const limit = process.constrainedMemory?.() ?? 0;
  const memory = limit > 0 && limit < total ? limit : total;
  return Math.min(512 * 1024 * 1024, Math.floor(memory / 4));
}

function int(env: Env, name: string, dflt: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return dflt;
  const v = Number(raw);
  if (!Number.isFinite(v) || v < min) throw new Error(`${name} must be a number ≥ ${min}, got "${raw}"`);
  return v;
}

function privateNetworks(raw: string | undefined): boolean | string[] {
  if (raw === undefined || raw.trim() === '') return false;
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  const list = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  // A typo must stop the start, not silently allow nothing.
  const bad = invalidCidrs(list);
  if (bad.length > 0) throw new Error(`ZONAL_ALLOW_PRIVATE_NETWORKS: not a CIDR range: ${bad.join(', ')}`);
  return list;
}

/** Reads and checks the environment; throws with a message naming the variable on bad input. */
export function loadConfig(env: Env = process.env): Config {
  const roots = env['ZONAL_DATA_ROOTS'];
  return {
    port: int(env, 'PORT', 3000),
    host: env['HOST'] ?? '0.0.0.0',
    dataRoots: roots ? roots.split(':').filter((s) => s !== '') : [DEFAULT_DATA_ROOT],
    allowPrivateNetworks: privateNetworks(env['ZONAL_ALLOW_PRIVATE_NETWORKS']),
    upstreamTimeoutMs: int(env, 'ZONAL_UPSTREAM_TIMEOUT_MS', 20_000, 1),
    maxAreaKm2: int(env, 'ZONAL_MAX_AREA_KM2', 1_000_000, 0),
    maxPixels: int(env, 'ZONAL_MAX_PIXELS', 100_000_000, 1),
    maxApproxPixels: int(env, 'ZONAL_MAX_APPROX_PIXELS', 16_000_000, 1),
    maxFeatures: int(env, 'ZONAL_MAX_FEATURES', 1_000_000, 1),
    maxVertices: int(env, 'ZONAL_MAX_VERTICES', 100_000, 4),
    maxZones: int(env, 'ZONAL_MAX_ZONES', 10_000, 1),
    drainDelayMs: int(env, 'ZONAL_DRAIN_DELAY_MS', 5_000, 0),
    maxEventLoopDelayMs: int(env, 'ZONAL_MAX_EVENT_LOOP_DELAY_MS', 2_000, 0),
    drainGraceMs: int(env, 'ZONAL_DRAIN_GRACE_MS', 30_000, 0),
    maxStacItems: int(env, 'ZONAL_MAX_STAC_ITEMS', 1_000, 1),
    maxZoneItems: int(env, 'ZONAL_MAX_ZONE_ITEMS', 100_000, 1),
    maxCubeRows: int(env, 'ZONAL_MAX_CUBE_ROWS', 2_000_000, 1),
    revalidateSeconds: int(env, 'ZONAL_REVALIDATE_SECONDS', 30, 0),
    tileCacheBytes: int(env, 'ZONAL_TILE_CACHE_BYTES', defaultTileCacheBytes(), 0),
    // Fits 10,000 zones of ~100 vertices each (a 5 MiB limit refused ~20,000-vertex inputs).
    maxBodyBytes: int(env, 'ZONAL_MAX_BODY_BYTES', 32 * 1024 * 1024, 1024),
    maxSourceBytes: int(env, 'ZONAL_MAX_SOURCE_BYTES', 1024 * 1024 * 1024, 1024),
    cacheBytes: int(env, 'ZONAL_CACHE_BYTES', 64 * 1024 * 1024, 0),
    workers: int(env, 'ZONAL_WORKERS', 2, 0),
    logLevel: env['LOG_LEVEL'] ?? 'info',
    webDir: env['ZONAL_WEB_DIR'] ?? DEFAULT_WEB_DIR,
    basemap: basemap(env),
    jobs: jobsConfig(env),
  };
}

const DEFAULT_RESULTS_URL = pathToFileURL(join(tmpdir(), 'zonal-results')).href;

const OFF = ['0', 'false', 'no', 'off'];

/** Seconds, or a number with a unit: 90s, 30m, 12h, 7d. */
function duration(env: Env, name: string, dflt: number): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return dflt;
  const m = /^(\d+(?:\.\d+)?)\s*([smhd]?)$/i.exec(raw);
  const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[(m?.[2] ?? '').toLowerCase() as '' | 's' | 'm' | 'h' | 'd'];
  const v = m ? Number(m[1]) * unit : Number.NaN;
  if (!(v >= 1)) throw new Error(`${name} must be a duration of at least 1 s (seconds, or 90s, 30m, 12h, 7d), got "${raw}"`);
  return v;
}

function jobsConfig(env: Env): JobsConfig {
  const redisUrl = env['ZONAL_REDIS_URL']?.trim() || null;
  if (redisUrl !== null && !/^rediss?:\/\//.test(redisUrl)) throw new Error('ZONAL_REDIS_URL must be a redis:// or rediss:// URL.');
  const resultsUrl = env['ZONAL_RESULTS_URL']?.trim() || DEFAULT_RESULTS_URL;
  if (!/^(file:\/\/\/|s3:\/\/[^/]+)/.test(resultsUrl)) throw new Error('ZONAL_RESULTS_URL must be file:///absolute/folder or s3://bucket/prefix.');
  const worker = (env['ZONAL_JOB_WORKER'] ?? '1').trim().toLowerCase();
  return {
    redisUrl,
    redisPrefix: env['ZONAL_REDIS_PREFIX']?.trim() || 'zonal:',
    resultsUrl,
    maxZones: int(env, 'ZONAL_MAX_JOB_ZONES', 10_000_000, 1),
    maxActive: int(env, 'ZONAL_MAX_ACTIVE_JOBS', 100, 1),
    ttlSeconds: duration(env, 'ZONAL_JOB_TTL', 7 * 24 * 3600),
    taskZones: int(env, 'ZONAL_JOB_TASK_ZONES', 10_000, 1),
    worker: !OFF.includes(worker),
    list: !OFF.includes((env['ZONAL_JOB_LIST'] ?? '1').trim().toLowerCase()),
    attempts: int(env, 'ZONAL_JOB_ATTEMPTS', 4, 1),
    retryMs: int(env, 'ZONAL_JOB_RETRY_MS', 1_000, 0),
    lockMs: int(env, 'ZONAL_JOB_LOCK_MS', 30_000, 1_000),
    zonesFileMaxBytes: int(env, 'ZONAL_ZONES_FILE_MAX_BYTES', 256 * 1024 * 1024, 1),
  };
}
