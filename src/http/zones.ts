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
import type { Answered, StatsResponse, ZoneError } from '../zonal/model.ts';
import { isRows, rowAt } from '../zonal/rows.ts';
import { formatOfAccept, type Format, type FormatOptions } from '../formats/index.ts';
import { release } from '../codecs/release.ts';

/** What a failure after the first bytes says, in the format's own failure line. */
function problemOf(e: unknown): ZoneError {
  const z = e instanceof ZonalError ? e : e instanceof SourceError ? toZonalError(e) : null;
  return z
    ? { status: z.status, code: z.code, detail: z.detail }
    : { status: 500, code: 'internal_error', detail: 'The request failed while its zones were being answered.' };
}

/**
 * The outcomes again, the first one (already taken) in front: the rest forwarded call for call (a generator
 * here was one more await per row, and a cube answers a million rows).
 */
function withFirst(first: IteratorResult<Answered>, rest: AsyncGenerator<Answered>): AsyncIterable<Answered> {
  let taken = false;
  const iterator: AsyncIterator<Answered> = {
    next: () => {
      if (taken || first.done) return rest.next();
      taken = true;
      return Promise.resolve(first);
    },
    return: (value?: unknown) => rest.return(value),
    throw: (e?: unknown) => rest.throw(e),
  };
  return { [Symbol.asyncIterator]: () => iterator };
}

/** Sends the outcomes of a request: `single`, the one zone's statistics; otherwise every zone in the format asked for. */
export async function replyZones(
  request: FastifyRequest,
  reply: FastifyReply,
  outcomes: AsyncGenerator<Answered>,
  options: FormatOptions & { single: boolean; owned?: WeakSet<Uint8Array> },
): Promise<FastifyReply> {
  // The first zone decides whether the request as a whole fails (thrown here, before any byte is sent).
  const first = await outcomes.next();
  if (options.single) {
    const answered = first.value as Answered;
    const o = isRows(answered) ? rowAt(answered, 0) : answered;
    if (o.error) throw o.cause ?? new ZonalError(o.error.code as ErrorCode, o.error.detail);
    return reply.send(o.statistics as StatsResponse);
  }
  const format = formatOfAccept(request.headers.accept);
  const pieces = format.write(withFirst(first, outcomes), options);
  if (format.streams) {
    const { owned } = options;
    // Nothing the stream handed over is still queued: neither in it, nor in the response, nor in its socket.
    const spent: Spent | undefined = owned && { owned, written: () => stream.readableLength === 0 && reply.raw.writableLength === 0 };
    const stream: Readable = Readable.from(streamed(request.abortSignal, format, pieces, spent));
    return reply.type(format.mediaType).send(stream);
  }
  const all: (string | Uint8Array)[] = [];
  for await (const piece of pieces) all.push(piece);
  const body = all.every((p) => typeof p === 'string') ? all.join('') : Buffer.concat(all.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));
  return reply.type(format.mediaType).send(body);
}

/** Past this many bytes a batch of ready pieces is sent without waiting for more. */
const BATCH_BYTES = 64 * 1024;
const TICK = Symbol('tick');

/** Resolves after the pending I/O callbacks: a piece not ready by then waits for I/O. */
function tick(): { promise: Promise<typeof TICK>; cancel: () => void } {
  let handle: NodeJS.Immediate | undefined;
  const promise = new Promise<typeof TICK>((resolve) => (handle = setImmediate(() => resolve(TICK))));
  return { promise, cancel: () => clearImmediate(handle) };
}

const joined = (batch: (string | Uint8Array)[]): string | Uint8Array =>
  batch.length === 1
    ? (batch[0] as string | Uint8Array)
    : batch.every((p) => typeof p === 'string')
      ? batch.join('')
      : Buffer.concat(batch.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));

/**
 * The pieces a stream may free once written (a cube's NDJSON from the workers, ~1 MB each): `owned` are the
 * stream's alone, and `written()` says that every piece handed over so far has gone to the socket. Freed then,
 * not at V8's next mark-compact of the main thread's heap (bench/cube).
 */
interface Spent {
  owned: WeakSet<Uint8Array>;
  written(): boolean;
}

/**
 * A streaming format's pieces until the client goes (at once, whatever the zones in flight wait for) or the
 * request fails. Pieces already answered go out together (up to BATCH_BYTES): a job's million stored rows
 * were a million socket writes; a piece that waits for I/O sends what is ready first.
 */
export async function* streamed(
  signal: AbortSignal,
  format: Format,
  pieces: AsyncGenerator<string | Uint8Array>,
  spent?: Spent,
): AsyncGenerator<string | Uint8Array> {
  // Owned pieces handed over and not yet freed.
  const handed: Uint8Array[] = [];
  // Listening only while waiting: a race against one pending promise would keep every piece sent.
  const next = (): Promise<IteratorResult<string | Uint8Array>> => {
    const p = raceAbort(pieces.next(), signal);
    // Whoever awaits it sees its failure; one left pending when the client goes must not be unhandled.
    p.catch(() => undefined);
    return p;
  };
  try {
    let pending = next();
    for (;;) {
      const first = await pending;
      if (first.done) return;
      const batch = [first.value];
      let bytes = first.value.length;
      let end: { failure: unknown } | 'done' | null = null;
      pending = next();
      // One tick a batch: the pieces answered before pending I/O runs go together (a cube's 8,760 rows of a
      // zone are ready at once: a timer a row was a tenth of the main thread).
      const t = tick();
      while (bytes < BATCH_BYTES) {
        let ready: IteratorResult<string | Uint8Array> | typeof TICK;
        try {
          ready = await Promise.race([pending, t.promise]);
        } catch (e) {
          end = { failure: e };
          break;
        }
        if (ready === TICK) break;
        if (ready.done) {
          end = 'done';
          break;
        }
        batch.push(ready.value);
        bytes += ready.value.length;
        pending = next();
      }
      t.cancel();
      const out = joined(batch);
      if (spent !== undefined) {
        if (handed.length > 0 && spent.written()) for (const p of handed.splice(0)) release(p);
        // Pieces copied into a batch are done with at once.
        for (const p of batch) if (p !== out && typeof p !== 'string' && spent.owned.has(p)) release(p);
        if (typeof out !== 'string' && spent.owned.has(out)) handed.push(out);
      }
      yield out;
      if (end === 'done') return;
      if (end !== null) throw end.failure;
      // Pieces that are all ready (a cube's zone of 8,760 rows) would otherwise be written in one run of
      // microtasks, and other requests (a health check) wait for the last byte: let I/O in between batches.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  } catch (e) {
    if (!signal.aborted && format.failure) yield format.failure(problemOf(e));
  }
}
