/**
 * OGC API – Processes jobs: the list (newest first, paged), a job's status, its results (the rows in input
 * order, in the format Accept asks for, streamed from the results store), and dismissal.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ZonalError } from '../../errors.ts';
import { statusDocument } from '../../jobs/model.ts';
import { JobIdParamsSchema, JobListQuerySchema, StatusInfoSchema } from '../../schemas/processes.ts';
import { ProblemResponses } from '../../schemas/response.ts';
import type { AppDeps } from '../deps.ts';
import { replyZones } from '../zones.ts';
import { baseOf } from './processes.ts';

const DEFAULT_LIMIT = 50;

export const jobRoutes: FastifyPluginAsyncTypebox<AppDeps> = async (app, deps) => {
  const jobs = deps.jobs;
  app.get(
    '/jobs',
    { schema: { tags: ['jobs'], summary: 'The jobs, newest first (`limit` per page, a `next` link to the following page)', querystring: JobListQuerySchema } },
    async (request) => {
      if (!deps.config.jobs.list) {
        throw new ZonalError('not_found', 'This service does not list its jobs (ZONAL_JOB_LIST=0): a job is reached by the id its submission answered.');
      }
      const limit = request.query.limit === undefined ? DEFAULT_LIMIT : Number(request.query.limit);
      const base = baseOf(request);
      const { jobs: page, next } = await jobs.list(limit, request.query.after);
      const links = [
        { href: `${base}/jobs?limit=${limit}${request.query.after ? `&after=${request.query.after}` : ''}`, rel: 'self', type: 'application/json' },
      ];
      if (next) links.push({ href: `${base}/jobs?limit=${limit}&after=${next}`, rel: 'next', type: 'application/json' });
      return { jobs: page.map((r) => statusDocument(r, base)), links };
    },
  );
  app.get(
    '/jobs/:jobId',
    {
      schema: {
        tags: ['jobs'],
        summary: "A job's status: status, progress (0–100), times, and a results link once successful",
        params: JobIdParamsSchema,
        response: { 200: StatusInfoSchema, ...ProblemResponses },
      },
    },
    async (request) => {
      request.jobId = request.params.jobId;
      return statusDocument(await jobs.get(request.params.jobId), baseOf(request));
    },
  );
  app.get(
    '/jobs/:jobId/results',
    {
      schema: {
        tags: ['jobs'],
        summary: "A finished job's rows, in input order: JSON/GeoJSON (default), NDJSON, CSV or GeoParquet by Accept",
        params: JobIdParamsSchema,
        response: { ...ProblemResponses },
      },
    },
    async (request, reply) => {
      request.jobId = request.params.jobId;
      const { record, rows } = await jobs.rows(request.params.jobId);
      return replyZones(request, reply, rows, { single: false, includeGeometry: record.includeGeometry, keyName: record.keyName });
    },
  );
  app.delete(
    '/jobs/:jobId',
    {
      schema: {
        tags: ['jobs'],
        summary: 'Dismiss a job: a running job stops within seconds, its results are deleted, its status is dismissed',
        params: JobIdParamsSchema,
        response: { 200: StatusInfoSchema, ...ProblemResponses },
      },
    },
    async (request) => {
      request.jobId = request.params.jobId;
      return statusDocument(await jobs.dismiss(request.params.jobId), baseOf(request));
    },
  );
};
