/**
 * A GeoJSON FeatureCollection: one Feature per zone (or zone × Item row), its properties plus `statistics`
 * or `error`, its geometry when asked. Sent as application/json (the default) or application/geo+json.
 */
import type { Answered, ZoneOutcome } from '../zonal/model.ts';
import { eachRow } from '../zonal/rows.ts';
import type { Format, FormatOptions } from './format.ts';

/** The GeoJSON Feature of a zone: its properties plus `statistics` or `error`; its geometry only when asked. */
function zoneFeature(o: ZoneOutcome, includeGeometry: boolean): Record<string, unknown> {
  const item =
    o.item === undefined ? {} : { item_id: o.item?.id ?? null, datetime: o.item?.datetime ?? null, ...(o.item?.item_ids ? { item_ids: o.item.item_ids } : {}) };
  // A cube's row: each iterated dimension's coordinate beside the statistics.
  const properties = { ...(o.zone.properties ?? {}), ...item, ...(o.coords ?? {}), ...(o.error ? { error: o.error } : { statistics: o.statistics }) };
  return { type: 'Feature', id: o.zone.id, geometry: includeGeometry ? (o.zone.geometry ?? null) : null, properties };
}

async function* featureCollection(outcomes: AsyncIterable<Answered>, options: FormatOptions): AsyncGenerator<string> {
  yield '{"type":"FeatureCollection","features":[';
  let first = true;
  for await (const o of eachRow(outcomes)) {
    yield `${first ? '\n' : ',\n'}${JSON.stringify(zoneFeature(o, options.includeGeometry))}`;
    first = false;
  }
  yield `${first ? '' : '\n'}]}\n`;
}

export const geojson: Format = {
  name: 'geojson',
  mediaType: 'application/geo+json; charset=utf-8',
  accepts: ['application/geo+json'],
  extensions: ['geojson'],
  streams: false,
  write: featureCollection,
};

/** The same FeatureCollection as plain JSON: what a client gets unless it asks for another type. */
export const json: Format = {
  name: 'json',
  mediaType: 'application/json; charset=utf-8',
  accepts: ['application/json', 'application/*', '*/*'],
  extensions: ['json'],
  streams: false,
  write: featureCollection,
};
