/**
 * The one error catalogue (contract §6): every failure a user can cause is a ZonalError with a stable
 * snake_case `code`; this file alone maps codes to HTTP statuses and titles. Pure modules throw these
 * and know nothing of HTTP.
 */

const ERROR_CATALOGUE = {
  bad_json: { status: 400, title: 'Bad Request' },
  url_forbidden: { status: 403, title: 'Forbidden' },
  not_found: { status: 404, title: 'Not Found' },
  no_such_process: { status: 404, title: 'Not Found' },
  no_such_job: { status: 404, title: 'Not Found' },
  result_not_ready: { status: 404, title: 'Not Found' },
  job_dismissed: { status: 410, title: 'Gone' },
  too_many_jobs: { status: 429, title: 'Too Many Requests' },
  method_not_allowed: { status: 405, title: 'Method Not Allowed' },
  payload_too_large: { status: 413, title: 'Payload Too Large' },
  unsupported_media_type: { status: 415, title: 'Unsupported Media Type' },
  validation_failed: { status: 422, title: 'Unprocessable Content' },
  unsupported_protocol: { status: 422, title: 'Unprocessable Content' },
  invalid_geometry: { status: 422, title: 'Unprocessable Content' },
  too_many_vertices: { status: 422, title: 'Unprocessable Content' },
  unknown_stat: { status: 422, title: 'Unprocessable Content' },
  stat_not_applicable: { status: 422, title: 'Unprocessable Content' },
  unknown_band: { status: 422, title: 'Unprocessable Content' },
  unknown_column: { status: 422, title: 'Unprocessable Content' },
  unknown_asset: { status: 422, title: 'Unprocessable Content' },
  unsupported_asset: { status: 422, title: 'Unprocessable Content' },
  mosaic_unsupported: { status: 422, title: 'Unprocessable Content' },
  no_numeric_column: { status: 422, title: 'Unprocessable Content' },
  too_many_features: { status: 422, title: 'Unprocessable Content' },
  too_many_zones: { status: 413, title: 'Payload Too Large' },
  too_many_items: { status: 422, title: 'Unprocessable Content' },
  no_items: { status: 422, title: 'Unprocessable Content' },
  no_date: { status: 422, title: 'Unprocessable Content' },
  aoi_too_large: { status: 422, title: 'Unprocessable Content' },
  too_many_pixels: { status: 422, title: 'Unprocessable Content' },
  too_many_unique_values: { status: 422, title: 'Unprocessable Content' },
  source_not_found: { status: 422, title: 'Unprocessable Content' },
  source_too_large: { status: 422, title: 'Unprocessable Content' },
  invalid_source: { status: 422, title: 'Unprocessable Content' },
  unsupported_raster: { status: 422, title: 'Unprocessable Content' },
  missing_crs: { status: 422, title: 'Unprocessable Content' },
  unsupported_grid: { status: 422, title: 'Unprocessable Content' },
  unknown_variable: { status: 422, title: 'Unprocessable Content' },
  selection_not_found: { status: 422, title: 'Unprocessable Content' },
  unsupported_codec: { status: 422, title: 'Unprocessable Content' },
  unsupported_calendar: { status: 422, title: 'Unprocessable Content' },
  too_many_rows: { status: 422, title: 'Unprocessable Content' },
  upstream_failed: { status: 502, title: 'Bad Gateway' },
  source_changed: { status: 502, title: 'Bad Gateway' },
  overloaded: { status: 503, title: 'Service Unavailable' },
  draining: { status: 503, title: 'Service Unavailable' },
  jobs_unavailable: { status: 503, title: 'Service Unavailable' },
  upstream_timeout: { status: 504, title: 'Gateway Timeout' },
  internal_error: { status: 500, title: 'Internal Server Error' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** One entry of a validation error list: a JSON pointer into the request and a human message. */
export interface FieldError {
  path: string;
  message: string;
}

/** A failure the user can act on. `detail` is one human sentence: no stack, no library text, no server path. */
export class ZonalError extends Error {
  readonly code: ErrorCode;
  readonly detail: string;
  readonly extras: Record<string, unknown>;

  constructor(code: ErrorCode, detail: string, extras: Record<string, unknown> = {}) {
    super(detail);
    this.name = 'ZonalError';
    this.code = code;
    this.detail = detail;
    this.extras = extras;
  }

  get status(): number {
    return ERROR_CATALOGUE[this.code].status;
  }
}

export function statusOf(code: ErrorCode): number {
  return ERROR_CATALOGUE[code].status;
}

export function titleOf(code: ErrorCode): string {
  return ERROR_CATALOGUE[code].title;
}
