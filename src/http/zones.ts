/**
 * The answer to a FeatureCollection `aoi` (CONTRACT §8), in the representation the `Accept` header asks
 * for: a GeoJSON FeatureCollection (default), NDJSON streamed zone by zone as zones finish (in input
 * order), or CSV with one row per zone and band (or column). The first zone is answered before anything is
 * sent, so a problem of the request is still the request's problem status; once lines are streaming, a
 * request-level failure ends the stream with an error line. A client that goes away aborts the request's
 * signal, which stops the zones (context.ts).
 */
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ZonalError } from '../errors.ts';
import { SourceError } from '../source/source.ts';
import { toZonalError } from '../source/errors.ts';
import type { ZoneOutcome } from '../zonal/zones.ts';
import { toCsv, zoneFeature, zoneLine } from '../zonal/represent.ts';

export { toCsv };

export type Representation = 'json' | 'geojson' | 'ndjson' | 'csv';

/** The representation `Accept` asks for (first match in the client's order of preference); JSON by default. */
export function representationOf(accept: string | undefined): Representation {
  const types = (accept ?? '')
    .split(',')
    .map((part, i) => {
      const [type = '', ...params] = part.trim().toLowerCase().split(';');
      const q = Number(
        params
          .map((p) => p.trim())
          .find((p) => p.startsWith('q='))
          ?.slice(2) ?? '1',
      );
      return { type: type.trim(), q: Number.isFinite(q) ? q : 0, i };
    })
    .filter((t) => t.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const { type } of types) {
    if (type === 'application/x-ndjson' || type === 'application/ndjson') return 'ndjson';
    if (type === 'text/csv') return 'csv';
    if (type === 'application/geo+json') return 'geojson';
    if (type === 'application/json' || type === 'application/*' || type === '*/*') return 'json';
  }
  return 'json';
}

function problemLine(e: unknown): string {
  const z = e instanceof ZonalError ? e : e instanceof SourceError ? toZonalError(e) : null;
  const error = z
    ? { status: z.status, code: z.code, detail: z.detail }
    : { status: 500, code: 'internal_error', detail: 'The request failed while its zones were being answered.' };
  return `${JSON.stringify({ error })}\n`;
}

/** Sends the zones' outcomes in the representation asked for. */
export async function replyZones(
  request: FastifyRequest,
  reply: FastifyReply,
  outcomes: AsyncGenerator<ZoneOutcome>,
  options: { includeGeometry: boolean; keyName: 'band' | 'column' },
): Promise<FastifyReply> {
  const representation = representationOf(request.headers.accept);
  // The first zone decides whether the request as a whole fails (thrown here, before any byte is sent).
  const first = await outcomes.next();
  if (representation === 'ndjson') {
    const signal = request.abortSignal;
    // A client gone stops the stream at once, whatever the zones in flight are waiting for.
    const gone = new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
    gone.catch(() => undefined);
    async function* lines(): AsyncGenerator<string> {
      if (!first.done) yield `${JSON.stringify(zoneLine(first.value))}\n`;
      try {
        for (;;) {
          const next = await Promise.race([outcomes.next(), gone]);
          if (next.done) return;
          yield `${JSON.stringify(zoneLine(next.value))}\n`;
        }
      } catch (e) {
        if (!signal.aborted) yield problemLine(e);
      }
    }
    return reply.type('application/x-ndjson; charset=utf-8').send(Readable.from(lines()));
  }
  const all: ZoneOutcome[] = first.done ? [] : [first.value];
  for await (const o of outcomes) all.push(o);
  if (representation === 'csv') return reply.type('text/csv; charset=utf-8').send(toCsv(all, options.keyName));
  const body = JSON.stringify({ type: 'FeatureCollection', features: all.map((o) => zoneFeature(o, options.includeGeometry)) });
  return reply.type(representation === 'geojson' ? 'application/geo+json; charset=utf-8' : 'application/json; charset=utf-8').send(body);
}
