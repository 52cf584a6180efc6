/**
 * Many zones in one request (CONTRACT §8). Over a raster, zonal/raster.ts answers them all in one pass over
 * the blocks (zoneOutcomes); elsewhere (vector) a FeatureCollection's features are answered by the
 * single-zone use case, a few at a time (answerZones). Either way they are handed out in input order. A problem of one
 * zone (its geometry, a limit, a statistic) is that zone's answer; a problem of the request (the source,
 * an unknown statistic or band, too many zones) stops the request.
 */
import { Value } from '@sinclair/typebox/value';
import { ZonalError } from '../errors.ts';
import { GEOMETRY_SCHEMAS, type AoiRequest, type FeatureCollectionAoi, type GeometryRequest } from '../schemas/aoi.ts';
import type { StatsResponse } from '../schemas/response.ts';

export interface Zone {
  index: number;
  id: string | number | null;
  properties: Record<string, unknown> | null;
  geometry: unknown;
}

export interface ZoneError {
  status: number;
  code: string;
  detail: string;
}

export interface ZoneOutcome {
  zone: Zone;
  statistics?: StatsResponse;
  error?: ZoneError;
}

/** Codes that belong to one zone; any other error is the request's. */
const ZONE_CODES = new Set(['invalid_geometry', 'too_many_vertices', 'aoi_too_large', 'too_many_pixels', 'too_many_features', 'too_many_unique_values', 'validation_failed']);

function withRadius(g: GeometryRequest, radius: number | undefined): GeometryRequest {
  return g.type === 'Point' && g.radius === undefined && radius !== undefined ? { ...g, radius } : g;
}

/** The AOI geometry of a request whose `aoi` is a geometry or a Feature (CONTRACT §8: a Feature is its geometry). */
export function geometryOf(aoi: AoiRequest, radius?: number): GeometryRequest {
  if (aoi.type === 'FeatureCollection') throw new Error('geometryOf: a FeatureCollection has many zones');
  return withRadius(aoi.type === 'Feature' ? aoi.geometry : aoi, radius);
}

/** The zones of a FeatureCollection; 413 past the zone limit. */
export function zonesOf(fc: FeatureCollectionAoi, maxZones: number): Zone[] {
  if (fc.features.length > maxZones) {
    throw new ZonalError(
      'too_many_zones',
      `The FeatureCollection has ${fc.features.length.toLocaleString('en')} features, above the limit of ${maxZones.toLocaleString('en')} zones per request: split it into several requests.`,
      { limit_zones: maxZones, zones: fc.features.length },
    );
  }
  return fc.features.map((f, index) => ({ index, id: f.id ?? null, properties: (f.properties as Record<string, unknown> | null | undefined) ?? null, geometry: f.geometry }));
}

/** One zone's geometry checked as the schema checks a single AOI (ZonalError validation_failed otherwise). */
export function zoneGeometry(zone: Zone, radius: number | undefined): GeometryRequest {
  const g = zone.geometry as { type?: unknown } | null;
  const schema = g && typeof g === 'object' && typeof g.type === 'string' ? GEOMETRY_SCHEMAS[g.type as keyof typeof GEOMETRY_SCHEMAS] : undefined;
  if (!schema) {
    throw new ZonalError('validation_failed', `Zone ${zone.index} has no Point, Polygon or MultiPolygon geometry (GeoJSON, WGS84 longitude/latitude in degrees).`);
  }
  const first = Value.Errors(schema, g).First();
  if (first) throw new ZonalError('validation_failed', `Zone ${zone.index}'s ${String(g?.type)} ${whatToFix(first.path, first.message)}`);
  return withRadius(g as GeometryRequest, radius);
}

/** The user's words for what is wrong at a JSON path of a geometry. */
function whatToFix(path: string, message: string): string {
  if (path.startsWith('/radius')) return 'has a radius that is not a number of metres from 0 to 20,000,000.';
  if (path.startsWith('/coordinates') && /array length to be greater/i.test(message)) {
    return 'has too few positions: every ring needs at least 4 [longitude, latitude] positions, the first repeated last.';
  }
  if (path.startsWith('/coordinates')) {
    return 'has a position that is not [longitude, latitude] in WGS84 degrees (longitude −180..180, or up to ±360 for a ring crossing the antimeridian; latitude −90..90).';
  }
  return `has a member that GeoJSON does not allow (${path || 'the geometry'}).`;
}

function zoneError(e: unknown): ZoneError | null {
  if (e instanceof ZonalError && ZONE_CODES.has(e.code)) return { status: e.status, code: e.code, detail: e.detail };
  return null;
}

/** The outcome of each zone, in order, from an engine that answers many zones at once (zonal/raster.ts). */
export async function* zoneOutcomes(zones: readonly Zone[], answers: AsyncIterable<{ statistics: StatsResponse } | { error: unknown }>): AsyncGenerator<ZoneOutcome> {
  let i = 0;
  for await (const answer of answers) {
    const zone = zones[i++] as Zone;
    if ('statistics' in answer) {
      yield { zone, statistics: answer.statistics };
      continue;
    }
    const error = zoneError(answer.error);
    if (error === null) throw answer.error;
    yield { zone, error };
  }
}

/** Each zone's geometry, checked when the engine plans it (a problem is that zone's answer). */
export function zoneGeometries(zones: readonly Zone[], radius: number | undefined): (() => GeometryRequest)[] {
  return zones.map((zone) => () => zoneGeometry(zone, radius));
}

/** Zones sorted by place together, at most this many: the first line waits for at most this many zones. */
const SORT_WINDOW = 512;

/** A Z-order (Morton) key of a zone's box centre on a 2^15 × 2^15 lon/lat grid; 0 for a zone without coordinates. */
export function placeKey(zone: Zone): number {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  const visit = (c: unknown): void => {
    if (!Array.isArray(c)) return;
    if (typeof c[0] === 'number' && typeof c[1] === 'number') {
      x0 = Math.min(x0, c[0]);
      x1 = Math.max(x1, c[0]);
      y0 = Math.min(y0, c[1]);
      y1 = Math.max(y1, c[1]);
      return;
    }
    for (const d of c) visit(d);
  };
  visit((zone.geometry as { coordinates?: unknown } | null)?.coordinates);
  if (!(x0 <= x1)) return 0;
  const gx = Math.max(0, Math.min(32767, Math.floor((((x0 + x1) / 2 + 360) % 360) / 360 * 32768)));
  const gy = Math.max(0, Math.min(32767, Math.floor(((y0 + y1) / 2 + 90) / 180 * 32768)));
  let key = 0;
  for (let b = 14; b >= 0; b--) key = key * 4 + ((gx >> b) & 1) * 2 + ((gy >> b) & 1);
  return key;
}

/**
 * The outcome of every zone, in input order, with `concurrency` zones answered at once. Within windows of
 * SORT_WINDOW zones (input order), zones are answered in order of place, so that zones side by side follow
 * each other and find their tiles (or row groups) still in the caches. A request-level error rejects the
 * iteration (for the first zone the caller has sent nothing yet, so it becomes the request's problem).
 */
export async function* answerZones(
  zones: readonly Zone[],
  answer: (geometry: GeometryRequest) => Promise<StatsResponse>,
  options: { radius?: number; concurrency: number; signal?: AbortSignal },
): AsyncGenerator<ZoneOutcome> {
  const run = async (zone: Zone): Promise<ZoneOutcome> => {
    try {
      return { zone, statistics: await answer(zoneGeometry(zone, options.radius)) };
    } catch (e) {
      const error = zoneError(e);
      if (error === null) throw e;
      return { zone, error };
    }
  };
  // The order zones are started in: each window of SORT_WINDOW input zones by place.
  const order: number[] = [];
  for (let w = 0; w < zones.length; w += SORT_WINDOW) {
    const idx = Array.from({ length: Math.min(SORT_WINDOW, zones.length - w) }, (_, i) => w + i);
    const keys = new Map(idx.map((i) => [i, placeKey(zones[i] as Zone)]));
    idx.sort((a, b) => (keys.get(a) as number) - (keys.get(b) as number) || a - b);
    order.push(...idx);
  }
  const results = new Array<Promise<ZoneOutcome> | undefined>(zones.length);
  const started = new Uint8Array(zones.length);
  let next = 0;
  let running = 0;
  let wake: (() => void) | null = null;
  const start = (i: number): void => {
    started[i] = 1;
    running++;
    const p = run(zones[i] as Zone);
    p.catch(() => undefined).finally(() => {
      running--;
      const w = wake;
      wake = null;
      w?.();
    });
    results[i] = p;
  };
  const launch = (): void => {
    // The first zone goes first, so the first line leaves at once; the others follow by place.
    if (handed === 0 && zones.length > 0 && !started[0] && running < options.concurrency) start(0);
    // Then by place, never more than one window ahead of the next one to hand out (bounded memory).
    while (running < options.concurrency && next < order.length && (order[next] as number) < handed + 2 * SORT_WINDOW) {
      const i = order[next++] as number;
      if (!started[i]) start(i);
    }
  };
  let handed = 0;
  launch();
  while (handed < zones.length) {
    if (options.signal?.aborted) throw options.signal.reason;
    // A zone may have finished (and freed its slot) since the last launch: launch before waiting, and
    // wait only while the zone to hand out is still not started.
    for (launch(); results[handed] === undefined; launch()) await new Promise<void>((resolve) => (wake = resolve));
    const outcome = await (results[handed] as Promise<ZoneOutcome>);
    results[handed] = undefined;
    started[handed] = 1;
    handed++;
    launch();
    yield outcome;
  }
}
