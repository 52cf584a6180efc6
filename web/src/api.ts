/** The service's public HTTP API as the page uses it: same origin, JSON in, JSON or problem+json out. */
import type { FeatureCollection, Polygon } from 'geojson';

export interface Basemap {
  tiles: string;
  attribution?: string;
}
interface DemoSource {
  label: string;
  kind: 'raster' | 'vector' | 'cube';
  url: string;
}
export interface UiConfig {
  basemap: Basemap | null;
  demo: DemoSource[];
}

export interface Preview {
  width: number;
  height: number;
  /** top-left, top-right, bottom-right, bottom-left, [lon, lat] */
  corners: [[number, number], [number, number], [number, number], [number, number]];
  min: number | null;
  max: number | null;
  values: (number | null)[];
}

interface RasterInfo {
  kind: 'raster';
  url: string;
  width: number;
  height: number;
  crs: string | null;
  bands: { band: number; data_type: string; nodata: number | string | null }[];
  bounds: [number, number, number, number];
  footprint: Polygon;
  preview?: Preview | null;
}

interface VectorInfo {
  kind: 'vector';
  url: string;
  rows: number;
  geometry_column: string;
  columns: { name: string; type?: string; numeric: boolean }[];
  bounds: [number, number, number, number] | null;
  footprint: Polygon | null;
}

/** A data cube's coordinate: time as ISO 8601 text in its calendar, other axes as numbers. */
type CubeCoordinate = string | number | null;

/** A Zarr store or kerchunk reference file: its data variables and, of its first gridded variable, the dimensions' extents. */
export interface CubeInfo {
  kind: 'cube';
  url: string;
  store: 'zarr' | 'references';
  variables: { name: string; dimensions: string[]; shape: number[]; chunks: number[]; data_type: string; units: string | null; long_name: string | null }[];
  dimensions: { name: string; size: number; first: CubeCoordinate; last: CubeCoordinate }[];
  bounds: [number, number, number, number] | null;
  footprint: Polygon | null;
  note?: string;
}

export type SourceInfo = RasterInfo | VectorInfo | CubeInfo;

/** A STAC Item: its assets, each with what the service reads it as (raster, vector) or null. */
export interface StacItemInfo {
  kind: 'stac_item';
  url: string;
  id: string | null;
  datetime: string | null;
  bounds: [number, number, number, number] | null;
  footprint: Polygon | null;
  assets: { key: string; title: string | null; type: string | null; kind: 'raster' | 'vector' | null }[];
}

/** Statistics of a STAC Item's asset: the Item's URL and the asset key (raster/stac, vector/stac). */
export interface StacSource {
  item: string;
  asset: string;
}

interface RasterRequest {
  url: string;
  asset?: string;
  aoi: FeatureCollection;
  stats: string[];
  bands: number[];
  pixels: 'center' | 'all_touched' | 'fractional';
  approx_stats: boolean;
  histogram?: { bins: number };
}

interface VectorRequest {
  url: string;
  asset?: string;
  aoi: FeatureCollection;
  columns: string[];
  stats: string[];
  weighting_method: 'area' | 'ratio';
}

/** A dimension's steps: an inclusive range (either end may be left open); a dimension not named is iterated whole. */
export type CubeSel = Record<string, { start?: string | number; end?: string | number }>;

interface CubeRequest {
  url: string;
  variable: string;
  sel?: CubeSel;
  aoi: FeatureCollection;
  stats: string[];
  pixels: 'center' | 'all_touched' | 'fractional';
  histogram?: { bins: number };
}

/** `stac`: the body's url is a STAC Item and it names an `asset` (the …/stac endpoints; never a cube). */
export type StatsRequest = ({ kind: 'raster'; body: RasterRequest } | { kind: 'vector'; body: VectorRequest } | { kind: 'cube'; body: CubeRequest }) & {
  stac: boolean;
};

export type StatValue = number | null | number[] | Record<string, number> | { edges: number[]; counts: number[] } | string;
type Statistics = Record<string, Record<string, StatValue>>;
export interface ZoneError {
  status: number;
  code: string;
  detail: string;
}

/**
 * One NDJSON line of a statistics answer: the zone (`index` in the request's aoi, `id`, its own `properties`),
 * `statistics` or `error`, and, where the endpoint answers several rows per zone, the row's coordinates beside
 * them (raster/stac/search: `item_id`, `datetime`; a cube: its iterated dimensions).
 */
export interface AnswerLine {
  index: number;
  id: string | number | null;
  properties: Record<string, unknown> | null;
  statistics?: Statistics;
  error?: ZoneError;
  [coordinate: string]: unknown;
}

/** A request to a statistics endpoint: its path and JSON body. */
export interface Outgoing {
  path: string;
  body: unknown;
}

/** A whole-request failure: the problem+json `detail` (or what the page could tell) as the message. */
export class ProblemError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | null,
  ) {
    super(message);
    this.name = 'ProblemError';
  }
}

/** What the page asks the statistics endpoints for (and the curl command shows). */
const ANSWER_TYPE = 'application/x-ndjson';

export function statsPath(request: Pick<StatsRequest, 'kind' | 'stac'>): string {
  return `/api/v1/zonal-stats/${request.kind}${request.stac ? '/stac' : ''}`;
}

function parseJson(text: string): unknown {
  try {
    return text === '' ? null : JSON.parse(text);
  } catch {
    return null;
  }
}

/** The answer's text; a failure as a ProblemError with the problem+json `detail` (or what the page could tell). */
async function callText(path: string, init: RequestInit): Promise<string> {
  let response: Response;
  try {
    response = await fetch(path, init);
  } catch (err) {
    throw new ProblemError(`The service did not answer (${(err as Error).message}).`, 0, null);
  }
  const text = await response.text();
  if (!response.ok) {
    const problem = (parseJson(text) ?? {}) as { detail?: unknown; title?: unknown; code?: unknown };
    const detail =
      typeof problem.detail === 'string'
        ? problem.detail
        : typeof problem.title === 'string'
          ? problem.title
          : `HTTP ${response.status} ${response.statusText}`;
    throw new ProblemError(detail, response.status, typeof problem.code === 'string' ? problem.code : null);
  }
  return text;
}

async function call<T>(path: string, init: RequestInit): Promise<T> {
  const body = parseJson(await callText(path, init));
  if (body === null) throw new ProblemError('The service answered without JSON.', 200, null);
  return body as T;
}

function postJson<T>(path: string, body: unknown, signal?: AbortSignal): Promise<T> {
  return call<T>(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
    signal: signal ?? null,
  });
}

export function getConfig(): Promise<UiConfig> {
  return call<UiConfig>('/ui/config.json', { headers: { accept: 'application/json' } });
}

export function getInfo(url: string, signal?: AbortSignal): Promise<SourceInfo> {
  return postJson<SourceInfo>('/api/v1/sources/info', { url }, signal);
}

export function getItemInfo(url: string, signal?: AbortSignal): Promise<StacItemInfo> {
  return postJson<StacItemInfo>('/api/v1/sources/info', { url, stac: true }, signal);
}

export function getAssetInfo(source: StacSource, signal?: AbortSignal): Promise<SourceInfo> {
  return postJson<SourceInfo>('/api/v1/sources/info', { url: source.item, stac: true, asset: source.asset }, signal);
}

/**
 * The answer of a statistics endpoint as NDJSON lines: one per zone, or per zone and row where the endpoint
 * answers several (each line names its zone by `index`, which the GeoJSON answer does not). A failure after
 * the first lines ends the stream with a line `{"error": …}`: thrown as the request's problem.
 */
export async function postStats(request: Outgoing, signal?: AbortSignal): Promise<AnswerLine[]> {
  const text = await callText(request.path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ANSWER_TYPE },
    body: JSON.stringify(request.body),
    signal: signal ?? null,
  });
  const lines: AnswerLine[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const value = parseJson(line) as Partial<AnswerLine> | null;
    if (value === null || typeof value !== 'object') throw new ProblemError('The service answered a line that is not JSON.', 200, null);
    if (typeof value.index !== 'number') {
      const error = value.error;
      throw new ProblemError(error?.detail ?? 'The answer broke off.', error?.status ?? 500, error?.code ?? null);
    }
    lines.push(value as AnswerLine);
  }
  return lines;
}

/** The statistics endpoints the service lists in its index (`GET /`), e.g. `/api/v1/zonal-stats/raster/stac/search`. */
export async function getStatsEndpoints(): Promise<string[]> {
  const index = await call<{ endpoints?: Record<string, unknown> }>('/', { headers: { accept: 'application/json' } });
  return Object.values(index.endpoints ?? {}).filter((p): p is string => typeof p === 'string' && p.startsWith('/api/v1/zonal-stats/'));
}

/** The same request as a shell command (single-quoted JSON). */
export function curlCommand(origin: string, request: Outgoing): string {
  const json = JSON.stringify(request.body).replace(/'/g, `'\\''`);
  return `curl -s ${origin}${request.path} -H 'content-type: application/json' -H 'accept: ${ANSWER_TYPE}' -d '${json}'`;
}
