/**
 * What zones × time (stac-search.ts) and its mosaics (stac-mosaic.ts) share: the rasters an Item's answer
 * reads, the raster question without its STAC fields, and a zone's row from an answer.
 */
import { ZonalError } from '../errors.ts';
import type { JsonClient } from '../source/resolve.ts';
import { isGeoTiffAsset, pickAsset, rasterBandsOf, resolveHref } from '../stac/item.ts';
import type { FoundItem } from '../stac/search.ts';
import { expressionInputs } from '../stats/expression.ts';
import type { PlanCache, RasterDeps } from './raster.ts';
import { Slots } from './slots.ts';
import type { RasterInput, RasterSources } from './raster-context.ts';
import { zoneError } from './zones.ts';
import type { RasterQuery, StacSearchQuery, StatsResponse, Zone, ZoneOutcome } from './model.ts';

export interface StacSearchDeps extends RasterDeps {
  json: JsonClient;
}

/**
 * Items (or days) open at once: while some decode, the next ones read their headers and plan. Their tasks
 * share TASK_SLOTS_PER_WORKER × workers slots, which bound the blocks read ahead of the workers (about 4
 * tiles of each asset a task).
 */
export const ITEMS_IN_FLIGHT = 4;
const TASK_SLOTS_PER_WORKER = 4;

/** What the answers of a request's Items share: each zone's plan on each grid, and the task slots. */
export function shared(deps: StacSearchDeps): { plans: PlanCache; slots: Slots } {
  return { plans: new Map(), slots: new Slots(TASK_SLOTS_PER_WORKER * Math.max(1, deps.config.workers)) };
}

/** The row of a zone that takes no Item. */
export function noItems(zone: Zone, rule: string): ZonalError {
  const where = rule === 'all' ? '' : ` under the "${rule}" rule at its date`;
  return new ZonalError('no_items', `No Item of the search covers zone ${zone.index}${where}.`);
}

/** An answer of the raster use case for one zone: its statistics, or its problem. */
export type ItemAnswer = { statistics: StatsResponse } | { error: unknown };

/** The raster question each Item answers, without its source: the request less its STAC fields. */
export function rasterPart(q: StacSearchQuery): Omit<RasterQuery, 'url'> {
  const { stac: _stac, asset: _asset, time: _time, mosaic: _mosaic, ...raster } = q;
  return raster;
}

/** The rasters an Item's answer reads: the asset (or band math's assets), and a class mask's asset. */
export function itemSources(q: StacSearchQuery, found: FoundItem): { primary: RasterInput; sources: RasterSources | undefined } {
  const input = (key: string): RasterInput => {
    const [, asset] = pickAsset(found.item, key);
    if (!isGeoTiffAsset(asset)) throw new ZonalError('unsupported_asset', `The asset "${key}" of Item "${found.id}" is ${String(asset.type)}, not a GeoTIFF.`);
    return { name: key, url: resolveHref(found.base, asset.href as string), bandDefaults: rasterBandsOf(asset) };
  };
  // Band math over assets (no `asset`): the expression's names are the Item's GeoTIFF asset keys.
  const tiffKeys = Object.entries(found.item.assets)
    .filter(([, a]) => a && typeof a === 'object' && isGeoTiffAsset(a))
    .map(([k]) => k);
  const inputs = q.asset === undefined ? expressionInputs(q.expression as string, tiffKeys).map(input) : undefined;
  const primary = inputs?.[0] ?? input(q.asset as string);
  const classes = q.mask?.asset !== undefined ? input(q.mask.asset) : undefined;
  const sources: RasterSources | undefined = inputs || classes ? { ...(inputs ? { inputs } : {}), ...(classes ? { classes } : {}) } : undefined;
  return { primary, sources };
}

/** A zone's row for an Item (or a mosaic of several): its statistics, or its problem (a request's problem throws). */
export function rowOf(item: NonNullable<ZoneOutcome['item']>, answer: ItemAnswer): Omit<ZoneOutcome, 'zone'> {
  if ('statistics' in answer) return { item, statistics: answer.statistics };
  const e = answer.error;
  const error = e instanceof ZonalError ? { status: e.status, code: e.code, detail: e.detail } : zoneError(e);
  if (error === null) throw e;
  return { item, error, cause: e };
}
