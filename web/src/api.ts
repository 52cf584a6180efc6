/** The service's public HTTP API as the page uses it: same origin, JSON in, JSON or problem+json out. */
import type { Feature, FeatureCollection, Geometry, Polygon } from 'geojson';

export interface Basemap {
  tiles: string;
  attribution?: string;
}
interface DemoSource {
  label: string;
  kind: 'raster' | 'vector';
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

export type SourceInfo = RasterInfo | VectorInfo;

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

/** `stac`: the body's url is a STAC Item and it names an `asset` (the …/stac endpoints). */
export type StatsRequest = ({ kind: 'raster'; body: RasterRequest } | { kind: 'vector'; body: VectorRequest }) & { stac: boolean };

export type StatValue = number | null | number[] | Record<string, number> | { edges: number[]; counts: number[] } | string;
type Statistics = Record<string, Record<string, StatValue>>;
export interface ZoneError {
  status: number;
  code: string;
  detail: string;
}
type ZoneFeature = Feature<Geometry | null, { statistics?: Statistics; error?: ZoneError; [key: string]: unknown }>;
export type StatsAnswer = FeatureCollection<Geometry | null, ZoneFeature['properties']>;

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

function statsPath(request: Pick<StatsRequest, 'kind' | 'stac'>): string {
  return `/api/v1/zonal-stats/${request.kind}${request.stac ? '/stac' : ''}`;
}

async function call<T>(path: string, init: RequestInit): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, init);
  } catch (err) {
    throw new ProblemError(`The service did not answer (${(err as Error).message}).`, 0, null);
  }
  const text = await response.text();
  let body: unknown = null;
  try {
    body = text === '' ? null : JSON.parse(text);
  } catch {
    body = null;
  }
  if (!response.ok) {
    const problem = (body ?? {}) as { detail?: unknown; title?: unknown; code?: unknown };
    const detail =
      typeof problem.detail === 'string'
        ? problem.detail
        : typeof problem.title === 'string'
          ? problem.title
          : `HTTP ${response.status} ${response.statusText}`;
    throw new ProblemError(detail, response.status, typeof problem.code === 'string' ? problem.code : null);
  }
  if (body === null) throw new ProblemError(`The service answered ${response.status} without JSON.`, response.status, null);
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

export function postStats(request: StatsRequest, signal?: AbortSignal): Promise<StatsAnswer> {
  return postJson<StatsAnswer>(statsPath(request), request.body, signal);
}

/** The same request as a shell command (single-quoted JSON). */
export function curlCommand(origin: string, request: StatsRequest): string {
  const json = JSON.stringify(request.body).replace(/'/g, `'\\''`);
  return `curl -s ${origin}${statsPath(request)} -H 'content-type: application/json' -H 'accept: application/json' -d '${json}'`;
}
