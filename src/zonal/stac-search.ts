/**
 * Zones × time (issue 11), the STAC plug-in of the zones × units engine: the units are the Items of a STAC
 * search (or a static ItemCollection); a zone needs those its bbox meets that its time rule picks. Each
 * Item is answered by the raster plug-in (zonal/raster.ts) for all the zones that need it, on the Item's
 * own grid and CRS (its tiles read once for those zones). Rows come out zone by zone in input order, each
 * zone's sorted by the Items' time, a zone as soon as its last Item is in. A problem of one Item (its
 * asset missing or unreadable) is the error of that zone × Item row.
 */
import { ZonalError } from '../errors.ts';
import { bboxOfPolygons } from '../geometry/bbox.ts';
import type { Aoi, BBox } from '../geometry/types.ts';
import { itemMeets, searchItems, type FoundItem } from '../stac/search.ts';
import { parseInstant, pickItems } from '../stac/time.ts';
import { rasterZones } from './raster.ts';
import { tiffHref } from './stac.ts';
import { ITEMS_IN_FLIGHT, itemSources, noItems, rasterPart, rowOf, shared, type ItemAnswer, type StacSearchDeps } from './stac-items.ts';
import { dayGroups, dayWork, zoneDays } from './stac-mosaic.ts';
import { answerZones, type Planned, type Work } from './engine.ts';
import { parseZones, zoneError } from './zones.ts';
import type { StacSearchQuery, Zone, ZoneOutcome } from './model.ts';

export type { StacSearchDeps } from './stac-items.ts';

/** The zone's date: its own property, else the request's; null when the rule needs none. */
function dateOf(zone: Zone, time: StacSearchQuery['time']): number | null {
  const rule = time?.rule ?? 'all';
  if (rule === 'all') return null;
  const raw = time?.property !== undefined ? zone.properties?.[time.property] : undefined;
  const text = raw ?? time?.date;
  const t = parseInstant(text);
  if (t === null) {
    throw new ZonalError(
      'no_date',
      text === undefined
        ? `Zone ${zone.index} has no date for the "${rule}" rule: give it a "${time?.property ?? 'date'}" property in ISO 8601, or a "date" in "time".`
        : `Zone ${zone.index}'s date ${JSON.stringify(text)} is not an ISO 8601 date (2024-05-31 or 2024-05-31T10:00:00Z).`,
    );
  }
  return t;
}

/** The request's own checks, before any byte is read. */
function checkSearch(q: StacSearchQuery): void {
  if (q.asset === undefined && q.expression === undefined) {
    throw new ZonalError('validation_failed', 'Name the "asset" to answer, or give an "expression" over asset keys such as (nir - red) / (nir + red).', {
      errors: [{ path: '/asset', message: 'required without an expression' }],
    });
  }
  if (q.mask && (q.mask.asset === undefined) === (q.mask.band === undefined)) {
    throw new ZonalError('validation_failed', 'A mask names either its classification "asset" or a "band" of the answered asset.', {
      errors: [{ path: '/mask', message: 'asset or band' }],
    });
  }
  if (q.mosaic === 'day' && (q.approx_stats === true || q.weights !== undefined)) {
    throw new ZonalError(
      'mosaic_unsupported',
      q.approx_stats === true
        ? 'approx_stats reads overviews, which the Items of a mosaic need not share: drop it, or ask without "mosaic".'
        : 'A weights raster is not mosaicked: ask without "weights", or without "mosaic".',
    );
  }
  if (q.time?.rule === 'window' && q.time.days === undefined) {
    throw new ZonalError('validation_failed', 'The "window" rule needs "days": the half-width of the window around each zone\'s date.', {
      errors: [{ path: '/time/days', message: 'required for window' }],
    });
  }
}

export async function* stacSearchOutcomes(q: StacSearchQuery, zones: readonly Zone[], deps: StacSearchDeps): AsyncGenerator<ZoneOutcome> {
  const { config, signal } = deps;
  checkSearch(q);
  // Each zone's AOI (parsed once for all its Items), its lon/lat bbox and its date.
  const aois = parseZones(zones, config.maxVertices);
  const dated = aois.map((aoi, z): { aoi: Aoi; bbox: BBox; date: number | null } | { error: unknown } => {
    if ('error' in aoi) return aoi;
    try {
      const bbox: BBox = aoi.kind === 'point' ? [aoi.lon, aoi.lat, aoi.lon, aoi.lat] : bboxOfPolygons(aoi.polygons);
      return { aoi, bbox, date: dateOf(zones[z] as Zone, q.time) };
    } catch (error) {
      return { error };
    }
  });
  const boxes = dated.flatMap((d) => ('bbox' in d ? [d.bbox] : []));
  const all: BBox =
    boxes.length === 0
      ? [0, 0, 0, 0]
      : [Math.min(...boxes.map((b) => b[0])), Math.min(...boxes.map((b) => b[1])), Math.max(...boxes.map((b) => b[2])), Math.max(...boxes.map((b) => b[3]))];
  const items = boxes.length === 0 ? [] : await searchItems(q.stac, all, deps.json, config.maxStacItems, signal);
  // mosaic "day": a zone's units are its days (the Items of one collection and UTC date), else its Items.
  const groups = q.mosaic === 'day' ? dayGroups(items) : null;
  const whole = q.time?.rule === 'asof' || q.time?.rule === 'nearest';
  const days = dated.map((d) =>
    'error' in d || groups === null ? null : zoneDays(itemsOf(q, d, items), whole, (j) => itemMeets((items[j] as FoundItem).bbox, d.bbox), groups),
  );
  const planned = dated.map((d, z): Planned<number> => ('error' in d ? d : { units: days[z] ? [...(days[z]?.keys() ?? [])] : itemsOf(q, d, items) }));
  const rows = planned.reduce((n, p) => n + ('units' in p ? p.units.length : 0), 0);
  if (rows > config.maxZoneItems) {
    throw new ZonalError(
      'too_many_items',
      `The zones take ${rows.toLocaleString('en')} zone × Item rows, above the limit of ${config.maxZoneItems.toLocaleString('en')} per request: split the zones, or narrow the search or the time rule.`,
      { limit_rows: config.maxZoneItems, rows },
    );
  }
  let z = 0;
  const answers = groups ? answerZones(planned, dayWork(q, zones, aois, items, days, deps)) : answerZones(planned, searchWork(q, zones, aois, items, deps));
  for await (const answer of answers) {
    const zone = zones[z++] as Zone;
    if ('error' in answer) {
      const error = zoneError(answer.error);
      if (error === null) throw answer.error;
      yield { zone, item: null, error, cause: answer.error };
    } else yield* answer.map((row) => ({ ...row, zone }));
  }
}

/** The Items a zone takes (indexes into `items`, ascending time). */
function itemsOf(q: StacSearchQuery, zone: { bbox: BBox; date: number | null }, items: readonly FoundItem[]): number[] {
  const meeting = items.flatMap((it, i) => (itemMeets(it.bbox, zone.bbox) ? [i] : []));
  return pickItems(
    meeting.map((i) => (items[i] as FoundItem).time),
    q.time?.rule ?? 'all',
    zone.date,
    q.time?.days ?? 0,
  ).map((k) => meeting[k] as number);
}

/** The engine's STAC work: a unit is an Item, answered by the raster plug-in for the zones that need it. */
function searchWork(
  q: StacSearchQuery,
  zones: readonly Zone[],
  aois: readonly (Aoi | { error: unknown })[],
  items: readonly FoundItem[],
  deps: StacSearchDeps,
): Work<number, { item: number; answer: ItemAnswer }, Omit<ZoneOutcome, 'zone'>[]> {
  const raster = rasterPart(q);
  const rule = q.time?.rule ?? 'all';
  // Items of one grid (a tile over time) share each zone's plan, and the workers its coverage.
  const common = shared(deps);
  return {
    id: (i) => i,
    compare: (a, b) => a - b,
    inFlight: ITEMS_IN_FLIGHT,
    run: async ([unit]) => {
      const { key: i, zones: members } = unit as { key: number; zones: number[] };
      const found = items[i] as FoundItem;
      const answers: ItemAnswer[] = [];
      try {
        const { primary, sources } = itemSources(q, found);
        const options = { sources, keys: members.map(String), aois: members.map((m) => aois[m] as Aoi) };
        const itemDeps = { ...deps, bandDefaults: primary.bandDefaults, ...common };
        const weights =
          q.weights?.asset === undefined ? {} : { weights: { url: tiffHref(found.item, found.base, q.weights.asset), band: q.weights.band ?? 1 } };
        for await (const a of rasterZones(
          { ...raster, ...weights, url: primary.url },
          members.map((m) => zones[m] as Zone),
          itemDeps,
          options,
        ))
          answers.push(a);
      } catch (error) {
        if (deps.signal?.aborted) throw error;
        while (answers.length < members.length) answers.push({ error });
      }
      return members.map((zone, k) => ({ zone, key: i, result: { item: i, answer: answers[k] as ItemAnswer } }));
    },
    answer: (z, results) => {
      if (results.length === 0) throw noItems(zones[z] as Zone, rule);
      return results.map(({ item: i, answer }) => rowOf({ id: (items[i] as FoundItem).id, datetime: (items[i] as FoundItem).datetime }, answer));
    },
    ...(deps.signal ? { signal: deps.signal } : {}),
  };
}
