/**
 * Zones in, outcomes out: each zone's AOI parsed before any byte is read, and a use case's answers turned
 * into outcomes. A problem of one zone (its geometry, a limit, a statistic) is that zone's answer; a
 * problem of the request (the source, an unknown statistic or band, too many zones) ends the request.
 */
import { ZonalError } from '../errors.ts';
import { parseAoi } from '../geometry/aoi.ts';
import type { Aoi } from '../geometry/types.ts';
import type { StatsResponse, Zone, ZoneError, ZoneInput, ZoneOutcome } from './model.ts';

/** Codes that belong to one zone; any other error is the request's. */
const ZONE_CODES = new Set([
  'invalid_geometry',
  'too_many_vertices',
  'aoi_too_large',
  'too_many_pixels',
  'too_many_features',
  'too_many_unique_values',
  'validation_failed',
  'no_items',
  'no_date',
]);

/** Zones planned between two turns of the event loop. */
const PLAN_SLICE = 64;

/** A zone's problem as its answer carries it, or null when the error is the request's. */
export function zoneError(e: unknown): ZoneError | null {
  if (e instanceof ZonalError && ZONE_CODES.has(e.code)) return { status: e.status, code: e.code, detail: e.detail };
  return null;
}

/** The zones' AOIs (a problem is that zone's answer). */
export function parseZones(zones: readonly Zone[], maxVertices: number): (Aoi | { error: unknown })[] {
  return zones.map((zone) => {
    if (zone.aoi instanceof ZonalError) return { error: zone.aoi };
    try {
      return parseAoi(zone.aoi, { maxVertices });
    } catch (error) {
      return { error };
    }
  });
}

/**
 * Each input planned in turn (a throw is that input's `{ error }`). Planning is main-thread work
 * (projection, tile walks): other requests get in between slices, and an abort stops it.
 */
export async function planEach<T, P>(inputs: readonly T[], plan: (input: T, i: number) => P, signal?: AbortSignal): Promise<(P | { error: unknown })[]> {
  const out: (P | { error: unknown })[] = [];
  for (let i = 0; i < inputs.length; i++) {
    try {
      out.push(plan(inputs[i] as T, i));
    } catch (error) {
      out.push({ error });
    }
    if (i % PLAN_SLICE === PLAN_SLICE - 1) await new Promise<void>((resolve) => setImmediate(resolve));
    if (signal?.aborted) throw signal.reason;
  }
  return out;
}

/** The outcome of each zone, in order, from a use case's answers (one per zone, in input order). */
export async function* outcomesOf(
  zones: readonly ZoneInput[],
  answers: AsyncIterable<{ statistics: StatsResponse } | { error: unknown }>,
): AsyncGenerator<ZoneOutcome> {
  let i = 0;
  for await (const answer of answers) {
    const zone = zones[i++] as ZoneInput;
    if ('statistics' in answer) {
      yield { zone, statistics: answer.statistics };
      continue;
    }
    const error = zoneError(answer.error);
    if (error === null) throw answer.error;
    yield { zone, error, cause: answer.error };
  }
}
