/**
 * What one `zonal` run asks: the endpoint kind and the request body without its `aoi` (the service's own
 * request, so the same schema checks it before anything is read).
 */
import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { RasterRequestSchema } from '../schemas/raster.ts';
import { VectorRequestSchema } from '../schemas/vector.ts';
import { CliError } from './errors.ts';

export type JobKind = 'raster' | 'vector';

export interface Job {
  kind: JobKind;
  /** The request body without `aoi`: url, stats, bands, pixels, radius, approx_stats / columns, weighting_method, geometry_column. */
  body: Record<string, unknown> & { url: string; radius?: number };
}

// A zones raster is the service's (POST /raster with `zones`); the command line reads zones files.
const RASTER_BODY = Type.Omit(RasterRequestSchema, ['aoi', 'zones']);
const VECTOR_BODY = Type.Omit(VectorRequestSchema, ['aoi']);

/** The option each request field comes from, for messages. */
const OPTION_OF: Record<string, string> = {
  url: 'the source',
  stats: '--stats',
  bands: '--bands',
  pixels: '--pixels',
  radius: '--radius',
  approx_stats: '--approx',
  columns: '--columns',
  weighting_method: '--weighting',
  geometry_column: '--source-geometry-column',
};

/** Checks the body as the service's schema would (CliError naming the option otherwise). */
export function checkJob(job: Job): Job {
  const body = Object.fromEntries(Object.entries(job.body).filter(([, v]) => v !== undefined));
  const first = Value.Errors(job.kind === 'raster' ? RASTER_BODY : VECTOR_BODY, body).First();
  if (first) {
    const field = first.path.split('/')[1] ?? '';
    throw new CliError(`${OPTION_OF[field] ?? field}: ${first.message.replace(/^Expected/, 'expected')} (got ${JSON.stringify(first.value)}).`);
  }
  return { kind: job.kind, body: body as Job['body'] };
}
