/**
 * Zones × time (issue 11), the STAC plug-in of the zones × units engine: the units are the Items of a STAC
 * search (or a static ItemCollection); a zone needs those its bbox meets that its time rule picks. Each
 * Item is answered by the raster plug-in (zonal/raster.ts) for all the zones that need it, on the Item's
 * own grid and CRS (its tiles read once for those zones). Rows come out zone by zone in input order, each
 * zone's sorted by the Items' time, a zone as soon as its last Item is in. A problem of one Item (its
 * asset missing or unreadable) is the error of that zone × Item row.
 */
import { ZonalError } from '../errors.ts';
import type { JsonClient } from '../source/resolve.ts';
import { bboxOfPolygons } from '../geometry/bbox.ts';
import type { Aoi, BBox } from '../geometry/types.ts';
import { isGeoTiffAsset, pickAsset, rasterBandsOf, resolveHref } from '../stac/item.ts';
import { itemMeets, searchItems, type FoundItem } from '../stac/search.ts';
import { parseInstant, pickItems } from '../stac/time.ts';
import { expressionInputs } from '../stats/expression.ts';
import { rasterZones, type PlanCache, type RasterDeps } from './raster.ts';
import type { RasterInput, RasterSources } from './raster-context.ts';
import { tiffHref } from './stac.ts';
import { answerZones, type Planned, type Work } from './engine.ts';
import { Slots } from './slots.ts';
import { parseZones, zoneError } from './zones.ts';
import type { StacSearchQuery, StatsResponse, Zone, ZoneOutcome } from './model.ts';

export interface StacSearchDeps extends RasterDeps {
  json: JsonClient;
}

/**
 * Items open at once: while some decode, the next ones read their headers and plan. Their tasks share
 * TASK_SLOTS_PER_WORKER × workers slots, which bound the blocks read ahead of the workers (about 4 tiles
 * of each asset a task).
 */
const ITEMS_IN_FLIGHT = 4;
const TASK_SLOTS_PER_WORKER = 4;

type ItemAnswer = { statistics: StatsResponse } | { error: unknown };

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
  const planned = dated.map((d): Planned<number> => ('error' in d ? d : { units: itemsOf(q, d, items) }));
  const rows = planned.reduce((n, p) => n + ('units' in p ? p.units.length : 0), 0);
  if (rows > config.maxZoneItems) {
    throw new ZonalError(
      'too_many_items',
      `The zones take ${rows.toLocaleString('en')} zone × Item rows, above the limit of ${config.maxZoneItems.toLocaleString('en')} per request: split the zones, or narrow the search or the time rule.`,
      { limit_rows: config.maxZoneItems, rows },
    );
  }
  let z = 0;
  for await (const answer of answerZones(planned, searchWork(q, zones, aois, items, deps))) {
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
  const { stac: _stac, asset, time: _time, ...raster } = q;
  const rule = q.time?.rule ?? 'all';
  // Items of one grid (a tile over time) share each zone's plan, and the workers its coverage.
  const plans: PlanCache = new Map();
  const slots = new Slots(TASK_SLOTS_PER_WORKER * Math.max(1, deps.config.workers));
  return {
    id: (i) => i,
    compare: (a, b) => a - b,
    inFlight: ITEMS_IN_FLIGHT,
    run: async ([unit]) => {
      const { key: i, zones: members } = unit as { key: number; zones: number[] };
      const found = items[i] as FoundItem;
      const answers: ItemAnswer[] = [];
      try {
        const { primary, sources } = itemSources(q, asset, found);
        const options = { sources, keys: members.map(String), aois: members.map((m) => aois[m] as Aoi) };
        const itemDeps = { ...deps, bandDefaults: primary.bandDefaults, plans, slots };
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
      if (results.length === 0) {
        const where = rule === 'all' ? '' : ` under the "${rule}" rule at its date`;
        throw new ZonalError('no_items', `No Item of the search covers zone ${(zones[z] as Zone).index}${where}.`);
      }
      return results.map(({ item: i, answer }) => {
        const found = items[i] as FoundItem;
        const item = { id: found.id, datetime: found.datetime };
        if ('statistics' in answer) return { item, statistics: answer.statistics };
        const e = answer.error;
        const error = e instanceof ZonalError ? { status: e.status, code: e.code, detail: e.detail } : zoneError(e);
        if (error === null) throw e;
        return { item, error, cause: e };
      });
    },
    ...(deps.signal ? { signal: deps.signal } : {}),
  };
}

/** The rasters an Item's answer reads: the asset (or band math's assets), and a class mask's asset. */
function itemSources(q: StacSearchQuery, assetKey: string | undefined, found: FoundItem): { primary: RasterInput; sources: RasterSources | undefined } {
  const input = (key: string): RasterInput => {
    const [, asset] = pickAsset(found.item, key);
    if (!isGeoTiffAsset(asset)) throw new ZonalError('unsupported_asset', `The asset "${key}" of Item "${found.id}" is ${String(asset.type)}, not a GeoTIFF.`);
    return { name: key, url: resolveHref(found.base, asset.href as string), bandDefaults: rasterBandsOf(asset) };
  };
  // Band math over assets (no `asset`): the expression's names are the Item's GeoTIFF asset keys.
  const tiffKeys = Object.entries(found.item.assets)
    .filter(([, a]) => a && typeof a === 'object' && isGeoTiffAsset(a))
    .map(([k]) => k);
  const inputs = assetKey === undefined ? expressionInputs(q.expression as string, tiffKeys).map(input) : undefined;
  const primary = inputs?.[0] ?? input(assetKey as string);
  const classes = q.mask?.asset !== undefined ? input(q.mask.asset) : undefined;
  const sources: RasterSources | undefined = inputs || classes ? { ...(inputs ? { inputs } : {}), ...(classes ? { classes } : {}) } : undefined;
  return { primary, sources };
}
