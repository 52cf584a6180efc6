/** The output formats, and how a request or a command line names one. */
import type { Format } from './format.ts';
import { csv } from './csv.ts';
import { geojson, json } from './geojson.ts';
import { geoparquet } from './geoparquet.ts';
import { ndjson } from './ndjson.ts';

export type { Format, FormatOptions } from './format.ts';

/** Every format; the first is the default of an HTTP answer. */
export const FORMATS: readonly Format[] = [json, geojson, ndjson, csv, geoparquet];

export function formatNamed(name: string): Format | undefined {
  return FORMATS.find((f) => f.name === name);
}

/** The format an output path's extension names, if any. */
export function formatOfPath(path: string): Format | undefined {
  const ext = /\.([a-z]+)$/i.exec(path)?.[1]?.toLowerCase();
  return ext === undefined ? undefined : FORMATS.find((f) => f.extensions.includes(ext));
}

/** The format an Accept header asks for (the first match in the client's order of preference); JSON by default. */
export function formatOfAccept(accept: string | undefined): Format {
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
    const format = FORMATS.find((f) => f.accepts.includes(type));
    if (format) return format;
  }
  return FORMATS[0] as Format;
}
