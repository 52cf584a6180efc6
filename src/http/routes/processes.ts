/**
 * OGC API – Processes Part 1, async execution: the processes (one per statistics endpoint, described from its
 * schema) and their execution, which checks the inputs as the endpoint would, counts the zones (inline, or a
 * zones file read under the source policy), and answers 201 with the job's status document and Location.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { ZonalError } from '../../errors.ts';
import { mediaTypeFormat, openZonesFile, ZonesFileError } from '../../inputs/zones-file.ts';
import { PROCESSES, statusDocument, type ProcessId, type Subscriber } from '../../jobs/model.ts';
import type { Submission } from '../../jobs/jobs.ts';
import { executeSchema, processInputs, StatusInfoSchema } from '../../schemas/processes.ts';
import { ProblemResponses } from '../../schemas/response.ts';
import { questionOf, zonesOfAoi } from '../../schemas/zones.ts';
import type { AoiRequest } from '../../schemas/aoi.ts';
import type { Question, ZoneInput } from '../../zonal/model.ts';
import { useCaseDeps } from '../context.ts';
import type { AppDeps } from '../deps.ts';

const CONFORMANCE = [
  'http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/core',
  'http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/ogc-process-description',
  'http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/json',
  'http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/oas30',
  'http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/job-list',
  'http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/dismiss',
  'http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/callback',
];

/** The URL prefix the client reached the service at (links in documents are absolute, as OGC asks). */
export function baseOf(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

function summary(id: ProcessId, base: string) {
  return {
    id,
    title: `Zonal statistics: ${PROCESSES[id].endpoint}`,
    description: `The statistics of ${PROCESSES[id].endpoint} for every zone, as a job: results in object storage, read back as NDJSON, CSV, GeoJSON or GeoParquet.`,
    version: '1.0.0',
    jobControlOptions: ['async-execute'],
    outputTransmission: ['reference'],
    links: [
      { href: `${base}/processes/${id}`, rel: 'self', type: 'application/json', title: 'The process description' },
      { href: `${base}/processes/${id}/execution`, rel: 'http://www.opengis.net/def/rel/ogc/1.0/execute', type: 'application/json', title: 'Execute' },
    ],
  };
}

const IDS = Object.keys(PROCESSES) as ProcessId[];

/** Inline zones as given (each task checks its own), or the zones file's count (read under the source policy). */
async function zonesOf(
  deps: AppDeps,
  request: FastifyRequest,
  aoi: AoiRequest | { href: string; type?: string },
  radius: number | undefined,
): Promise<Submission['zones']> {
  if ('href' in aoi) {
    const source = await useCaseDeps(deps, request).openSource(aoi.href);
    try {
      const reader = await openZonesFile(source, aoi.href, { format: mediaTypeFormat(aoi.type), maxBytes: deps.config.jobs.zonesFileMaxBytes });
      return { href: aoi.href, type: aoi.type, count: reader.count };
    } catch (e) {
      if (e instanceof ZonesFileError) throw new ZonalError('validation_failed', e.message);
      throw e;
    }
  }
  const zones = zonesOfAoi(aoi, radius, deps.config.jobs.maxZones);
  return { inline: zones.map(({ aoi: _aoi, ...zone }): ZoneInput => zone) };
}

function checkSubscriber(s: Subscriber | undefined): Subscriber | undefined {
  for (const [name, url] of Object.entries(s ?? {})) {
    if (typeof url === 'string' && !/^https?:\/\//i.test(url)) throw new ZonalError('validation_failed', `subscriber.${name} must be an http(s) URL.`);
  }
  return s;
}

export const processRoutes: FastifyPluginAsyncTypebox<AppDeps> = async (app, deps) => {
  const jobs = deps.jobs;
  app.get('/conformance', { schema: { tags: ['jobs'], summary: 'The OGC API conformance classes this service meets' } }, async () => ({
    conformsTo: CONFORMANCE,
  }));
  app.get('/processes', { schema: { tags: ['jobs'], summary: 'The processes: one per statistics endpoint, each run as a job' } }, async (request) => {
    const base = baseOf(request);
    return { processes: IDS.map((id) => summary(id, base)), links: [{ href: `${base}/processes`, rel: 'self', type: 'application/json' }] };
  });
  app.get(
    '/processes/:processId',
    {
      schema: {
        tags: ['jobs'],
        summary: "A process's inputs (its endpoint's body) and output",
        params: Type.Object({ processId: Type.String({ maxLength: 128 }) }),
      },
    },
    async (request) => {
      const id = request.params.processId as ProcessId;
      if (!(id in PROCESSES)) throw noSuchProcess(request.params.processId);
      return {
        ...summary(id, baseOf(request)),
        inputs: processInputs(id),
        outputs: {
          rows: {
            title: 'rows',
            description: 'One row per zone (zones × time: per zone and Item), in input order.',
            schema: { type: 'string', contentMediaType: 'application/x-ndjson' },
          },
        },
      };
    },
  );
  for (const id of IDS) {
    app.post(
      `/processes/${id}/execution`,
      {
        schema: {
          tags: ['jobs'],
          summary: `Run ${PROCESSES[id].endpoint} as a job`,
          description:
            'Answers 201 with the status document and `Location: /jobs/{jobId}` at once; the job runs in the background. Poll the status, then GET its results.',
          body: executeSchema(id),
          response: { 201: StatusInfoSchema, ...ProblemResponses },
        },
      },
      async (request, reply) => {
        const { inputs, subscriber } = request.body as {
          inputs: { aoi: AoiRequest | { href: string; type?: string }; radius?: number; include_geometry?: boolean } & Record<string, unknown>;
          subscriber?: Subscriber;
        };
        const question = questionOf(PROCESSES[id].kind, inputs) as unknown as Question;
        const zones = await zonesOf(deps, request, inputs.aoi, inputs.radius);
        const record = await jobs.submit({
          processId: id,
          question,
          radius: inputs.radius,
          includeGeometry: inputs.include_geometry === true,
          zones,
          subscriber: checkSubscriber(subscriber),
        });
        request.jobId = record.id;
        return reply
          .code(201)
          .header('location', `/jobs/${record.id}`)
          .send(statusDocument(record, baseOf(request)));
      },
    );
  }
  app.post(
    '/processes/:processId/execution',
    { schema: { tags: ['jobs'], summary: 'No such process', params: Type.Object({ processId: Type.String({ maxLength: 128 }) }), hide: true } },
    async (request) => {
      throw noSuchProcess(request.params.processId);
    },
  );
};

function noSuchProcess(id: string): ZonalError {
  return new ZonalError('no_such_process', `There is no process "${id.slice(0, 128)}"; the processes are ${IDS.join(', ')}.`, {
    type: 'http://www.opengis.net/def/exceptions/ogcapi-processes-1/1.0/no-such-process',
  });
}
