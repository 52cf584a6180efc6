/**
 * "Send a request as JSON": any statistics endpoint the service lists (raster/stac/search for zones × time,
 * a cube…) with a body written or pasted by hand, or started from the form's request. Its answer goes to the
 * same table and chart as the form's.
 */
import { getStatsEndpoints, type Outgoing } from './api.ts';
import { byId, h } from './dom.ts';

const PREFIX = '/api/v1/zonal-stats/';
/** Offered first: the endpoint the form cannot build. */
const PREFERRED = `${PREFIX}raster/stac/search`;

export class RequestEditor {
  private readonly endpoint = byId<HTMLSelectElement>('json-endpoint');
  private readonly body = byId<HTMLTextAreaElement>('json-body');
  private readonly hint = byId('json-hint');

  /** `fromForm`: the form's request, or why there is none. */
  constructor(onSend: (request: Outgoing) => void, fromForm: () => Outgoing | string) {
    byId('json-send').addEventListener('click', () => {
      const request = this.request();
      if (request) onSend(request);
    });
    byId('json-from-form').addEventListener('click', () => {
      const request = fromForm();
      this.hint.textContent = typeof request === 'string' ? request : '';
      if (typeof request === 'string') return;
      this.offer([request.path]);
      this.endpoint.value = request.path;
      this.body.value = JSON.stringify(request.body, null, 2);
    });
  }

  /** The endpoints from the service's index (`GET /`); the ones the page knows if it cannot be read. */
  async load(): Promise<void> {
    let paths = ['raster', 'raster/stac', 'raster/stac/search', 'vector', 'vector/stac', 'cube'].map((p) => PREFIX + p);
    try {
      paths = await getStatsEndpoints();
    } catch {
      // the fallback above
    }
    this.offer(paths);
    if (paths.includes(PREFERRED)) this.endpoint.value = PREFERRED;
  }

  private offer(paths: readonly string[]): void {
    const known = new Set(Array.from(this.endpoint.options, (o) => o.value));
    for (const p of paths) if (!known.has(p)) this.endpoint.append(h('option', { value: p }, p.slice(PREFIX.length)));
  }

  private request(): Outgoing | null {
    let body: unknown;
    try {
      body = JSON.parse(this.body.value);
    } catch (err) {
      this.hint.textContent = `Not JSON: ${(err as Error).message}`;
      return null;
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      this.hint.textContent = 'The body is a JSON object.';
      return null;
    }
    this.hint.textContent = '';
    return { path: this.endpoint.value, body };
  }
}
