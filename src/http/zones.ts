/**
 * The answer of a request, one call for every zonal route: a single AOI's answer is its statistics (its
 * problem is the request's status); a FeatureCollection's is the format `Accept` asks for (formats/). The
 * first zone is answered before anything is sent, so a problem of the request is still the request's
 * problem status; once a streaming format is under way, a request-level failure ends it with the format's
 * failure line. A client that goes away aborts the request's signal, which stops the zones (context.ts).
 */
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ZonalError, type ErrorCode } from '../errors.ts';
import { SourceError } from '../source/source.ts';
import { raceAbort, toZonalError } from '../source/errors.ts';
import type { StatsResponse, ZoneError, ZoneOutcome } from '../zonal/model.ts';
import { formatOfAccept, type Format, type FormatOptions } from '../formats/index.ts';

/** What a failure after the first bytes says, in the format's own failure line. */
function problemOf(e: unknown): ZoneError {
  const z = e instanceof ZonalError ? e : e instanceof SourceError ? toZonalError(e) : null;
  return z
    ? { status: z.status, code: z.code, detail: z.detail }
    : { status: 500, code: 'internal_error', detail: 'The request failed while its zones were being answered.' };
}

/** The outcomes again, the first one (already taken) in front. */
async function* withFirst(first: IteratorResult<ZoneOutcome>, rest: AsyncIterator<ZoneOutcome>): AsyncGenerator<ZoneOutcome> {
  if (first.done) return;
  yield first.value;
  for (let next = await rest.next(); !next.done; next = await rest.next()) yield next.value;
}

/** Sends the outcomes of a request: `single`, the one zone's statistics; otherwise every zone in the format asked for. */
export async function replyZones(
  request: FastifyRequest,
  reply: FastifyReply,
  outcomes: AsyncGenerator<ZoneOutcome>,
  options: FormatOptions & { single: boolean },
): Promise<FastifyReply> {
  // The first zone decides whether the request as a whole fails (thrown here, before any byte is sent).
  const first = await outcomes.next();
  if (options.single) {
    const o = first.value as ZoneOutcome;
    if (o.error) throw o.cause ?? new ZonalError(o.error.code as ErrorCode, o.error.detail);
    return reply.send(o.statistics as StatsResponse);
  }
  const format = formatOfAccept(request.headers.accept);
  const pieces = format.write(withFirst(first, outcomes), options);
  if (format.streams) return reply.type(format.mediaType).send(Readable.from(streamed(request.abortSignal, format, pieces)));
  const all: (string | Uint8Array)[] = [];
  for await (const piece of pieces) all.push(piece);
  const body = all.every((p) => typeof p === 'string') ? all.join('') : Buffer.concat(all.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));
  return reply.type(format.mediaType).send(body);
}

/** A streaming format's pieces until the client goes (at once, whatever the zones in flight wait for) or the request fails. */
async function* streamed(signal: AbortSignal, format: Format, pieces: AsyncGenerator<string | Uint8Array>): AsyncGenerator<string | Uint8Array> {
  try {
    for (;;) {
      // Listening only while waiting: a race against one pending promise would keep every piece sent.
      const next = await raceAbort(pieces.next(), signal);
      if (next.done) return;
      yield next.value;
    }
  } catch (e) {
    if (!signal.aborted && format.failure) yield format.failure(problemOf(e));
  }
}
