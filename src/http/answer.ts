/**
 * A zonal route's handler, the same for every kind: the checked body's zones (schemas/zones.ts), the one
 * entry point of the use cases (zonal/answer.ts), then the answer's representation (zones.ts).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AoiRequest } from '../schemas/aoi.ts';
import { zonesOfAoi } from '../schemas/zones.ts';
import { answer } from '../zonal/answer.ts';
import type { Question, Zone } from '../zonal/model.ts';
import { ZonalError } from '../errors.ts';
import type { AppDeps } from './deps.ts';
import { useCaseDeps } from './context.ts';
import { replyZones } from './zones.ts';
import type { RowsPiece } from '../workers/ndjson-rows.ts';

/** What every zonal request body has beside its question. */
interface ZonesPart {
  /** Absent only where `zones` gives them as a raster (raster endpoints). */
  aoi?: AoiRequest;
  zones?: unknown;
  radius?: number;
  include_geometry?: boolean;
}

/** The zones of a body: its `aoi`, or none where a zones raster gives them (found by the use case); exactly one of the two. */
function zonesOfBody(body: ZonesPart, maxZones: number): Zone[] {
  if ((body.aoi === undefined) === (body.zones === undefined)) {
    const detail =
      body.aoi === undefined
        ? 'Give the zones: "aoi" (a GeoJSON geometry, Feature or FeatureCollection) or "zones" (a raster whose values are the zones).'
        : 'Give either "aoi" or "zones" (a zones raster), not both.';
    throw new ZonalError('validation_failed', detail, { errors: [{ path: body.aoi === undefined ? '/aoi' : '/zones', message: detail }] });
  }
  return body.aoi === undefined ? [] : zonesOfAoi(body.aoi, body.radius, maxZones);
}

/** `x-zonal-level`: the level read (0 full resolution, n the n-th overview), its size and pixel size (CRS units). */
function levelHeader(l: { index: number; width: number; height: number; pixelSize: number }): string {
  return `${l.index}; size=${l.width}x${l.height}; pixel=${Number(l.pixelSize.toPrecision(6))}`;
}

/**
 * Answers a zonal request. A single AOI (`aoi` a geometry or a Feature) is answered as its statistics,
 * with the level read and a note for the user in headers; `alwaysZones` answers even one AOI as zones
 * (zones × time: a row per Item).
 */
export function answerZonal(
  deps: AppDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  body: ZonesPart,
  question: Question,
  options: { keyName: 'band' | 'column' | 'variable'; alwaysZones?: boolean },
) {
  const zones = zonesOfBody(body, deps.config.maxZones);
  const single = body.aoi !== undefined && body.aoi.type !== 'FeatureCollection' && options.alwaysZones !== true;
  const tell = single
    ? {
        onLevel: (l: Parameters<typeof levelHeader>[0]) => void reply.header('x-zonal-level', levelHeader(l)),
        onNote: (n: string) => void reply.header('x-zonal-note', n),
      }
    : {};
  const outcomes = answer(question, zones, { ...useCaseDeps(deps, request), ...tell });
  // Packed rows (a cube's) are written as NDJSON by the workers, each piece a buffer the answer alone holds.
  const owned = new WeakSet<Uint8Array>();
  const rowsText = async (piece: RowsPiece): Promise<Uint8Array> => {
    const bytes = await deps.runner.ndjsonRows(piece, request.abortSignal);
    owned.add(bytes);
    return bytes;
  };
  return replyZones(request, reply, outcomes, { single, includeGeometry: body.include_geometry === true, keyName: options.keyName, rowsText, owned });
}
