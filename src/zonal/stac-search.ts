/**
 * Zones × time (issue 11): the Items of a STAC search (or a static ItemCollection), each zone taking those
 * its bbox meets and its time rule picks; each Item answered by the raster engine (zonal/raster.ts) for all
 * the zones that take it, on the Item's own grid and CRS (its tiles read once for those zones). Rows come
 * out zone by zone in input order, each zone's sorted by the Items' time, a zone as soon as its last Item
 * is in. A problem of one Item (its asset missing or unreadable) is the error of that zone × Item row.
 */
import { ZonalError } from '../errors.ts';
import type { RasterStacSearchRequest } from '../schemas/stac.ts';
import type { StatsResponse } from '../schemas/response.ts';
import type { JsonClient } from '../source/resolve.ts';
import { parseAoi } from '../geometry/aoi.ts';
import { bboxOfPolygons } from '../geometry/bbox.ts';
import type { BBox } from '../geometry/types.ts';
import { isGeoTiffAsset, pickAsset, rasterBandsOf, resolveHref } from '../stac/item.ts';
import { itemMeets, searchItems, type FoundItem } from '../stac/search.ts';
import { parseInstant, pickItems } from '../stac/time.ts';
import { rasterZonesStats, type PlanCache, type RasterDeps, type RasterInput, type RasterSources } from './raster.ts';
import { Slots } from './schedule.ts';
import { expressionInputs } from '../stats/expression.ts';
import { zoneError, zoneGeometry, type Zone, type ZoneOutcome } from './zones.ts';
import type { GeometryRequest } from '../schemas/aoi.ts';

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

interface Planned {
  zone: Zone;
  geometry?: GeometryRequest;
  bbox?: BBox;
  date: number | null;
  error?: unknown;
}

/** The zone's date: its own property, else the request's; null when the rule needs none. */
function dateOf(zone: Zone, time: RasterStacSearchRequest['time']): number | null {
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

export async function* stacSearchOutcomes(req: RasterStacSearchRequest, zones: readonly Zone[], deps: StacSearchDeps): AsyncGenerator<ZoneOutcome> {
  const { config, signal } = deps;
  const rule = req.time?.rule ?? 'all';
  if (req.asset === undefined && req.expression === undefined) {
    throw new ZonalError('validation_failed', 'Name the "asset" to answer, or give an "expression" over asset keys such as (nir - red) / (nir + red).', {
      errors: [{ path: '/asset', message: 'required without an expression' }],
    });
  }
  if (req.mask && (req.mask.asset === undefined) === (req.mask.band === undefined)) {
    throw new ZonalError('validation_failed', 'A mask names either its classification "asset" or a "band" of the answered asset.', {
      errors: [{ path: '/mask', message: 'asset or band' }],
    });
  }
  if (rule === 'window' && req.time?.days === undefined) {
    throw new ZonalError('validation_failed', 'The "window" rule needs "days": the half-width of the window around each zone\'s date.', {
      errors: [{ path: '/time/days', message: 'required for window' }],
    });
  }
  // Each zone checked as a single AOI, with its lon/lat bbox and its date.
  const planned: Planned[] = zones.map((zone) => {
    try {
      const geometry = zoneGeometry(zone, req.radius);
      const aoi = parseAoi(geometry, { maxVertices: config.maxVertices });
      const bbox: BBox = aoi.kind === 'point' ? [aoi.lon, aoi.lat, aoi.lon, aoi.lat] : bboxOfPolygons(aoi.polygons);
      return { zone, geometry, bbox, date: dateOf(zone, req.time) };
    } catch (e) {
      return { zone, date: null, error: e };
    }
  });
  const boxes = planned.flatMap((p) => (p.bbox ? [p.bbox] : []));
  const all: [number, number, number, number] =
    boxes.length === 0
      ? [0, 0, 0, 0]
      : [Math.min(...boxes.map((b) => b[0])), Math.min(...boxes.map((b) => b[1])), Math.max(...boxes.map((b) => b[2])), Math.max(...boxes.map((b) => b[3]))];
  const items = boxes.length === 0 ? [] : await searchItems(req.stac, all, deps.json, config.maxStacItems, signal);

  // Which Items each zone takes (indexes into `items`, ascending time).
  const picks: number[][] = planned.map((p) => {
    if (p.error !== undefined || !p.bbox) return [];
    const meeting = items.flatMap((it, i) => (itemMeets(it.bbox, p.bbox as BBox) ? [i] : []));
    return pickItems(
      meeting.map((i) => (items[i] as FoundItem).time),
      rule,
      p.date,
      req.time?.days ?? 0,
    ).map((k) => meeting[k] as number);
  });
  const rows = picks.reduce((n, p) => n + p.length, 0);
  if (rows > config.maxZoneItems) {
    throw new ZonalError(
      'too_many_items',
      `The zones take ${rows.toLocaleString('en')} zone × Item rows, above the limit of ${config.maxZoneItems.toLocaleString('en')} per request: split the zones, or narrow the search or the time rule.`,
      { limit_rows: config.maxZoneItems, rows },
    );
  }
  const byItem = items.map(() => [] as number[]);
  picks.forEach((p, z) => p.forEach((i) => (byItem[i] as number[]).push(z)));

  // Per zone, its rows by Item index, and how many Items it still waits for.
  const answers = planned.map(() => new Map<number, { statistics: StatsResponse } | { error: unknown }>());
  const waiting = picks.map((p) => p.length);
  const { stac: _stac, asset: assetKey, time: _time, aoi: _aoi, ...raster } = req;

  // Items of one grid (a tile over time) share each zone's plan, and the workers its coverage.
  const plans: PlanCache = new Map();
  const slots = new Slots(TASK_SLOTS_PER_WORKER * Math.max(1, config.workers));
  const answerItem = async (i: number): Promise<void> => {
    const found = items[i] as FoundItem;
    const members = byItem[i] as number[];
    try {
      const input = (key: string): RasterInput => {
        const [, asset] = pickAsset(found.item, key);
        if (!isGeoTiffAsset(asset))
          throw new ZonalError('unsupported_asset', `The asset "${key}" of Item "${found.id}" is ${String(asset.type)}, not a GeoTIFF.`);
        return { name: key, url: resolveHref(found.base, asset.href as string), bandDefaults: rasterBandsOf(asset) };
      };
      // Band math over assets (no `asset`): the expression's names are the Item's GeoTIFF asset keys.
      const tiffKeys = Object.entries(found.item.assets)
        .filter(([, a]) => a && typeof a === 'object' && isGeoTiffAsset(a))
        .map(([k]) => k);
      const inputs = assetKey === undefined ? expressionInputs(req.expression as string, tiffKeys).map(input) : undefined;
      const primary = inputs?.[0] ?? input(assetKey as string);
      const classes = req.mask?.asset !== undefined ? input(req.mask.asset) : undefined;
      const sources: RasterSources | undefined = inputs || classes ? { ...(inputs ? { inputs } : {}), ...(classes ? { classes } : {}) } : undefined;
      const geometries = members.map((z) => () => (planned[z] as Planned).geometry as GeometryRequest);
      let k = 0;
      const keys = members.map(String);
      for await (const a of rasterZonesStats(
        { ...raster, url: primary.url },
        geometries,
        { ...deps, bandDefaults: primary.bandDefaults, plans, slots },
        sources,
        keys,
      )) {
        (answers[members[k++] as number] as Map<number, unknown>).set(i, a);
      }
    } catch (e) {
      if (signal?.aborted) throw e;
      for (const z of members) (answers[z] as Map<number, unknown>).set(i, { error: e });
    }
    for (const z of members) waiting[z] = (waiting[z] as number) - 1;
  };

  // Items in time order, a few at a time; zones handed out in input order once complete.
  let next = 0;
  let inFlight = 0;
  let failure: unknown;
  let wake: (() => void) | null = null;
  const launch = (): void => {
    while (failure === undefined && inFlight < ITEMS_IN_FLIGHT && next < items.length) {
      const i = next++;
      inFlight++;
      answerItem(i)
        .catch((e: unknown) => {
          failure ??= e;
        })
        .finally(() => {
          inFlight--;
          const w = wake;
          wake = null;
          w?.();
        });
    }
  };
  for (let z = 0; z < planned.length; z++) {
    for (launch(); (waiting[z] as number) > 0 && failure === undefined; launch()) {
      if (signal?.aborted) throw signal.reason;
      await new Promise<void>((resolve) => (wake = resolve));
    }
    if (failure !== undefined) throw failure;
    const p = planned[z] as Planned;
    if (p.error !== undefined) {
      const error = zoneError(p.error);
      if (error === null) throw p.error;
      yield { zone: p.zone, item: null, error };
      continue;
    }
    const own = picks[z] as number[];
    if (own.length === 0) {
      const error = zoneError(
        new ZonalError(
          'no_items',
          rule === 'all'
            ? `No Item of the search covers zone ${p.zone.index}.`
            : `No Item of the search covers zone ${p.zone.index} under the "${rule}" rule at its date.`,
        ),
      );
      yield { zone: p.zone, item: null, error: error as NonNullable<ReturnType<typeof zoneError>> };
      continue;
    }
    for (const i of own) {
      const found = items[i] as FoundItem;
      const item = { id: found.id, datetime: found.datetime };
      const a = (answers[z] as Map<number, { statistics: StatsResponse } | { error: unknown }>).get(i);
      if (a === undefined || 'error' in a) {
        const e = a === undefined ? new Error('missing answer') : a.error;
        const error = e instanceof ZonalError ? { status: e.status, code: e.code, detail: e.detail } : zoneError(e);
        if (error === null) throw e;
        yield { zone: p.zone, item, error };
      } else {
        yield { zone: p.zone, item, statistics: a.statistics };
      }
    }
    answers[z] = new Map();
  }
}
