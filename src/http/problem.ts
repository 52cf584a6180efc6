/**
 * The only writer of problem+json (contract §6): error handler, not-found handler and the mapping of
 * Fastify's own errors. Anything unexpected becomes a 500 whose detail carries the request id that
 * is also in the log line; no stack, library message or server path ever reaches a client.
 */
import fp from 'fastify-plugin';
import type { IncomingMessage } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ZonalError, statusOf, titleOf, type ErrorCode, type FieldError } from '../errors.ts';
import { SourceError } from '../source/source.ts';
import { toZonalError } from '../source/errors.ts';

function problemBody(code: ErrorCode, detail: string, extras: Record<string, unknown> = {}) {
  return {
    type: `urn:zonal-stats:problem:${code}`,
    title: titleOf(code),
    status: statusOf(code),
    detail,
    code,
    ...extras,
  };
}

export function sendProblem(reply: FastifyReply, code: ErrorCode, detail: string, extras: Record<string, unknown> = {}) {
  return reply
    .code(statusOf(code))
    .type('application/problem+json')
    .send(problemBody(code, detail, { instance: reply.request.url.split('?')[0], ...extras }));
}

interface AjvError {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** Ajv errors → [{path, message}] with JSON pointers into the request body. */
function fieldErrors(validation: AjvError[]): FieldError[] {
  return validation.slice(0, 20).map((e) => {
    let path = e.instancePath ?? '';
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'additionalProperties' && typeof e.params?.['additionalProperty'] === 'string') {
      path = `${path}/${e.params['additionalProperty']}`;
      message = 'is not a known field';
    } else if (e.keyword === 'required' && typeof e.params?.['missingProperty'] === 'string') {
      path = `${path}/${e.params['missingProperty']}`;
      message = 'is required';
    }
    return { path: path === '' ? '/' : path, message };
  });
}

/** The value at a JSON pointer of the body (for messages). */
function valueAt(body: unknown, pointer: string): unknown {
  let v: unknown = body;
  for (const key of pointer.split('/').slice(1)) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined;
  return v;
}

const AOI_TYPES = ['Point', 'Polygon', 'MultiPolygon', 'Feature', 'FeatureCollection'];
const GEOMETRY_TYPES = ['Point', 'Polygon', 'MultiPolygon'];

/**
 * The user's words for the validator's commonest findings (issue 12): a GeoJSON type that does not exist
 * (or in the wrong case), coordinates that are not WGS84 degrees, a value outside a list. Null: the
 * generic sentence from the first error.
 */
function userDetail(validation: AjvError[], body: unknown): string | null {
  const tag = validation.find((e) => e.keyword === 'discriminator' || /value of tag "type"/.test(e.message ?? ''));
  if (tag) {
    const path = tag.instancePath ?? '';
    const given = valueAt(body, `${path}/type`);
    const allowed = /\/features\/\d+$/.test(path) || path.endsWith('/geometry') ? GEOMETRY_TYPES : AOI_TYPES;
    const near = typeof given === 'string' ? allowed.find((t) => t.toLowerCase() === given.toLowerCase()) : undefined;
    return `${path || '/'} has "type": ${JSON.stringify(given ?? null)}; it must be one of ${allowed.join(', ')}${near ? ` (GeoJSON type names are case-sensitive: "${near}")` : ''}.`;
  }
  const coord = validation.find((e) => /\/coordinates(\/|$)/.test(e.instancePath ?? '') && (e.keyword === 'maximum' || e.keyword === 'minimum'));
  if (coord) {
    const v = valueAt(body, coord.instancePath ?? '');
    const metres = typeof v === 'number' && Math.abs(v) > 1000;
    return `Coordinates are WGS84 longitude/latitude in degrees, [longitude, latitude] (longitude −180..180, up to ±360 across the antimeridian; latitude −90..90)${metres ? `: ${v} looks like projected metres; transform the geometry to EPSG:4326 first` : `: ${coord.instancePath} is ${JSON.stringify(v)}`}.`;
  }
  const consts = validation.filter((e) => e.keyword === 'const' && e.params?.['allowedValue'] !== undefined);
  if (consts.length > 1) {
    const path = consts[0]?.instancePath ?? '';
    const values = consts.filter((e) => e.instancePath === path).map((e) => String(e.params?.['allowedValue']));
    return `${path} is ${JSON.stringify(valueAt(body, path))}; it must be one of ${values.join(', ')}.`;
  }
  return null;
}

function fastifyCode(error: FastifyError): ErrorCode | null {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' ? 'unsupported_media_type' : 'bad_json';
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return 'bad_json';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'payload_too_large';
    default:
      break;
  }
  if (error instanceof SyntaxError || error.statusCode === 400) return 'bad_json';
  if (error.statusCode === 415) return 'unsupported_media_type';
  if (error.statusCode === 413) return 'payload_too_large';
  if (error.statusCode === 404) return 'not_found';
  if (error.statusCode === 405) return 'method_not_allowed';
  return null;
}

const FASTIFY_DETAIL: Partial<Record<ErrorCode, string>> = {
  bad_json: 'The request body is not valid JSON.',
  unsupported_media_type: 'The request body must be JSON (Content-Type: application/json).',
  payload_too_large: 'The request body is larger than this service accepts.',
  not_found: 'There is no such route.',
  method_not_allowed: 'This method is not allowed on this route.',
};

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;

/**
 * How much more of a refused body (over the limit) is read, and for how long, before the 413 goes out. A
 * client still sending it then gets the answer: with `Connection: close` (as `agent: false` and many clients
 * ask) Node closes the socket once the answer is written, and a client still writing read a reset instead of
 * the 413 whenever the reset came first (test/http/body-limit.test.ts saw it under load). A larger body is
 * not waited for: the 413 goes out, and that client may see the reset.
 */
const DRAIN_BYTES = 64 * 1024 * 1024;
const DRAIN_MS = 10_000;

/** Resolves once the request's body has all come in (read and dropped), or after DRAIN_BYTES or DRAIN_MS. */
function drained(raw: IncomingMessage): Promise<void> {
  if (raw.complete || raw.readableEnded || raw.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let bytes = 0;
    const done = (): void => {
      clearTimeout(timer);
      raw.off('data', onData);
      raw.off('end', done);
      raw.off('close', done);
      raw.off('error', done);
      resolve();
    };
    const onData = (chunk: Buffer): void => {
      bytes += chunk.length;
      if (bytes > DRAIN_BYTES) done();
    };
    const timer = setTimeout(done, DRAIN_MS);
    raw.on('data', onData);
    raw.once('end', done);
    raw.once('close', done);
    raw.once('error', done);
    raw.resume();
  });
}

export const problemPlugin = fp(async (app: FastifyInstance) => {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error.validation) {
      const errors = fieldErrors(error.validation as AjvError[]);
      const first = errors[0];
      const plain = first ? `The request is invalid: ${first.path} ${first.message}.` : 'The request is invalid.';
      const detail = userDetail(error.validation as AjvError[], request.body) ?? plain;
      return sendProblem(reply, 'validation_failed', detail, { errors });
    }
    if (error instanceof ZonalError) {
      request.log.info({ code: error.code }, 'request refused');
      // Worth trying again shortly: the job store unreachable, the most jobs running.
      if (error.code === 'jobs_unavailable' || error.code === 'too_many_jobs') void reply.header('retry-after', '5');
      return sendProblem(reply, error.code, error.detail, error.extras);
    }
    if (error instanceof SourceError) {
      request.log.info({ reason: error.reason, upstreamStatus: error.upstreamStatus, err: error.message }, 'source failed');
      const z = toZonalError(error);
      return sendProblem(reply, z.code, z.detail, z.extras);
    }
    const code = fastifyCode(error);
    if (code === 'payload_too_large') {
      // The rest of the body read first, so that a client still sending it gets the 413 (drained).
      return drained(request.raw).then(() => sendProblem(reply.header('connection', 'close'), code, FASTIFY_DETAIL[code] as string));
    }
    if (code !== null) return sendProblem(reply, code, FASTIFY_DETAIL[code] ?? 'The request was refused.');
    if (error.statusCode === 503) {
      return sendProblem(reply, 'overloaded', 'The service is overloaded; retry shortly.');
    }
    // A static path that leaves its folder or cannot be a file name (an encoded ../ or \\, a NUL, a name too
    // long): @fastify/send's 403/404, @fastify/static's FST_STATIC_FORBIDDEN_PATH. To the client, no such file.
    if (
      error.code === 'FST_STATIC_FORBIDDEN_PATH' ||
      ((error.statusCode === 403 || error.statusCode === 404) && /^(Forbidden|NotFound)Error$/.test(error.name))
    ) {
      return sendProblem(reply, 'not_found', FASTIFY_DETAIL.not_found as string);
    }
    if (request.abortSignal?.aborted) {
      // The client went away and its work was stopped: nothing failed, and nobody reads this answer.
      request.log.info({ err: error.message }, 'client gone, request stopped');
      return sendProblem(reply, 'internal_error', 'The client closed the connection before the answer.');
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendProblem(reply, 'internal_error', `An internal error occurred; quote request id ${request.id} when reporting it.`, {
      request_id: request.id,
    });
  });
  app.setNotFoundHandler((request, reply) => {
    // A known path asked with another method: 405 naming the methods it has (RFC 9110 §15.5.6).
    const url = request.url.split('?')[0] ?? request.url;
    const allowed: string[] = METHODS.filter((method) => app.hasRoute({ url, method }));
    if (allowed.length > 0) {
      if (allowed.includes('GET')) allowed.push('HEAD');
      reply.header('allow', allowed.join(', '));
      return sendProblem(reply, 'method_not_allowed', `${request.method} is not allowed on ${url}: use ${allowed.join(' or ')}.`);
    }
    return sendProblem(reply, 'not_found', FASTIFY_DETAIL.not_found as string);
  });
});
