/**
 * Zones × time as one row per zone and day (issue 25, `mosaic: "day"`): a zone near a tile edge lies in
 * two or three Items of one date, and gets one row for them. The units of the engine are the days: the
 * Items of one collection and UTC date. A zone's day is answered by the raster use case on the grid of the
 * first Item (in search order) whose raster holds the whole zone, each pixel from the first Item in search
 * order valid under its centre (raster-mosaic.ts; other CRSs by nearest neighbour). A zone that no Item of
 * the day holds whole is answered on the one Item that meets it, and refused by name when several do
 * (their pixels beyond that grid would be lost).
 */
import { ZonalError } from '../errors.ts';
import { toPixel } from '../geometry/grid.ts';
import { placeAoi } from '../geometry/place.ts';
import type { Aoi } from '../geometry/types.ts';
import { openRaster, type RasterLevel, type RasterReader } from '../raster/reader.ts';
import { toPixelGeometry, windowOf } from '../raster/window.ts';
import type { FoundItem } from '../stac/search.ts';
import { rasterZones, type PlanCache } from './raster.ts';
import type { RasterInput, RasterSources } from './raster-context.ts';
import type { MosaicEntry, MosaicInput } from './raster-mosaic.ts';
import { ITEMS_IN_FLIGHT, itemSources, noItems, rasterPart, rowOf, shared, type ItemAnswer, type StacSearchDeps } from './stac-items.ts';
import type { Slots } from './slots.ts';
import type { Unit, Work } from './engine.ts';
import type { StacSearchQuery, Zone, ZoneOutcome } from './model.ts';

/** The Items of each day (one collection, one UTC date) in search order, days by time; and each Item's day. */
export function dayGroups(items: readonly FoundItem[]): { days: number[][]; dayOf: number[] } {
  const keyOf = (it: FoundItem): string => `${new Date(it.time).toISOString().slice(0, 10)}\n${String((it.item as { collection?: unknown }).collection ?? '')}`;
  const byKey = new Map<string, number[]>();
  items.forEach((it, i) => {
    const key = keyOf(it);
    byKey.set(key, [...(byKey.get(key) ?? []), i]);
  });
  // `items` are sorted by time: a day's first Item in that order is its earliest.
  const days = [...byKey.values()].map((d) => d.sort((a, b) => (items[a] as FoundItem).rank - (items[b] as FoundItem).rank));
  days.sort((a, b) => Math.min(...a) - Math.min(...b));
  const dayOf: number[] = [];
  days.forEach((d, k) => d.forEach((i) => (dayOf[i] = k)));
  return { days, dayOf };
}

/**
 * A zone's days and the Items it takes of each, in search order. `whole`: the rule picked Items (asof,
 * nearest), so the zone takes the whole day of each, every Item of it that `meets` the zone.
 */
export function zoneDays(
  taken: readonly number[],
  whole: boolean,
  meets: (item: number) => boolean,
  groups: ReturnType<typeof dayGroups>,
): Map<number, number[]> {
  const picked = new Map<number, Set<number>>();
  for (const i of taken) {
    const day = groups.dayOf[i] as number;
    const set = picked.get(day) ?? new Set<number>();
    if (whole) for (const j of groups.days[day] as number[]) if (meets(j)) set.add(j);
    set.add(i);
    picked.set(day, set);
  }
  return new Map([...picked].sort((a, b) => a[0] - b[0]).map(([day, set]) => [day, (groups.days[day] as number[]).filter((j) => set.has(j))]));
}

/** An Item of a day, opened: its rasters, and (when a zone merges it with others) its answered raster's header: its grid and CRS. */
type OpenItem = { primary: RasterInput; sources: RasterSources | undefined; reader: RasterReader | null } | { error: unknown };

/** Where a zone lies on an Item's raster: wholly inside it, or meeting it. */
function placement(aoi: Aoi, reader: RasterReader): { holds: boolean; meets: boolean } {
  const grid = (reader.info.levels[0] as RasterLevel).grid;
  const placed = placeAoi(aoi, reader.info.crs, grid);
  if ('point' in placed) {
    const [col, row] = toPixel(grid, ...placed.point);
    const hit = col >= 0 && row >= 0 && col < grid.width && row < grid.height;
    return { holds: hit, meets: hit };
  }
  const inside = ([x, y]: [number, number]): boolean => x >= 0 && y >= 0 && x <= grid.width && y <= grid.height;
  const geometry = toPixelGeometry(grid, placed.polygons);
  // The raster is a rectangle in pixel space: a polygon is inside it when every vertex is.
  return { holds: geometry.every((p) => p.every((ring) => ring.every(inside))), meets: windowOf(geometry, grid) !== null };
}

/** The Item of `list` (indexes into `opened`) whose grid answers the zone. */
function gridOf(zone: Zone, aoi: Aoi, list: readonly number[], opened: ReadonlyMap<number, OpenItem>, items: readonly FoundItem[]): number {
  if (list.length === 1) return list[0] as number;
  const places = list.map((i) => placement(aoi, (opened.get(i) as { reader: RasterReader }).reader));
  const holding = places.findIndex((p) => p.holds);
  if (holding >= 0) return list[holding] as number;
  const meeting = list.filter((_, k) => places[k]?.meets);
  if (meeting.length > 1) {
    const ids = meeting.map((i) => `"${(items[i] as FoundItem).id}"`).join(', ');
    throw new ZonalError(
      'mosaic_unsupported',
      `Zone ${zone.index} lies partly in each of the Items ${ids} and wholly in none: a mosaic is answered on one Item's grid, so split the zone, or ask without "mosaic".`,
    );
  }
  return meeting[0] ?? (list[0] as number);
}

/** The other Items' rasters, for each raster the answered Item reads, in search order (null: the answered Item). */
function mosaicInput(
  q: StacSearchQuery,
  list: readonly number[],
  grid: number,
  opened: ReadonlyMap<number, OpenItem>,
  items: readonly FoundItem[],
): MosaicInput {
  const entry = (i: number, pick: (o: Exclude<OpenItem, { error: unknown }>) => RasterInput): MosaicEntry => ({
    item: (items[i] as FoundItem).id,
    input: pick(opened.get(i) as Exclude<OpenItem, { error: unknown }>),
  });
  const count = (opened.get(grid) as { sources: RasterSources | undefined }).sources?.inputs?.length ?? 1;
  const rasters = Array.from({ length: count }, (_, r) =>
    list.map((i) => (i === grid ? null : entry(i, (o) => (o.sources?.inputs?.[r] ?? o.primary) as RasterInput))),
  );
  const classes = q.mask?.asset === undefined ? undefined : list.map((i) => entry(i, (o) => o.sources?.classes as RasterInput));
  return { rasters, ...(classes ? { classes } : {}) };
}

/** What a day's answer of a zone holds: its answer, the Item whose grid it is on, and the Items merged. */
interface DayAnswer {
  answer: ItemAnswer;
  grid: number | null;
  items: readonly number[];
}

/** One zone of a day: the zone, its parsed AOI and the Items it takes of that day (search order). */
interface DayZone {
  zone: Zone;
  aoi: Aoi;
  items: readonly number[];
}

/**
 * The answers of the zones of one day: each zone's grid chosen, the zones of one grid and one list of Items
 * answered together by the raster use case (a single Item: as without mosaic).
 */
async function answerDay(
  q: StacSearchQuery,
  members: readonly DayZone[],
  items: readonly FoundItem[],
  deps: StacSearchDeps & { plans: PlanCache; slots: Slots },
): Promise<DayAnswer[]> {
  const all = [...new Set(members.flatMap((m) => m.items))];
  // Only an Item merged with others needs its grid before the answer (a lone Item is answered as without mosaic).
  const merged = new Set(members.flatMap((m) => (m.items.length > 1 ? m.items : [])));
  const opened = new Map<number, OpenItem>(
    await Promise.all(
      all.map(async (i): Promise<[number, OpenItem]> => {
        try {
          const { primary, sources } = itemSources(q, items[i] as FoundItem);
          const reader = merged.has(i) ? await openRaster(await deps.openSource(primary.url), deps.signal) : null;
          return [i, { primary, sources, reader }];
        } catch (error) {
          if (deps.signal?.aborted) throw error;
          return [i, { error }];
        }
      }),
    ),
  );
  const out: DayAnswer[] = members.map((m) => ({ answer: { error: null }, grid: null, items: m.items }));
  // The zones by grid and Items: each such set is one answer of the raster use case.
  const sets = new Map<string, number[]>();
  members.forEach((m, k) => {
    try {
      const failed = m.items.map((i) => opened.get(i) as OpenItem).find((o) => 'error' in o);
      if (failed && 'error' in failed) throw failed.error;
      const grid = gridOf(m.zone, m.aoi, m.items, opened, items);
      (out[k] as DayAnswer).grid = grid;
      const key = `${grid}:${m.items.join(',')}`;
      sets.set(key, [...(sets.get(key) ?? []), k]);
    } catch (error) {
      (out[k] as DayAnswer).answer = { error };
    }
  });
  await Promise.all(
    [...sets.values()].map(async (ks) => {
      const first = members[ks[0] as number] as DayZone;
      const grid = (out[ks[0] as number] as DayAnswer).grid as number;
      const { primary, sources } = opened.get(grid) as Exclude<OpenItem, { error: unknown }>;
      const answers: ItemAnswer[] = [];
      try {
        const options = {
          sources,
          keys: ks.map((k) => String((members[k] as DayZone).zone.index)),
          aois: ks.map((k) => (members[k] as DayZone).aoi),
          ...(first.items.length > 1 ? { mosaic: mosaicInput(q, first.items, grid, opened, items) } : {}),
        };
        const zones = ks.map((k) => (members[k] as DayZone).zone);
        for await (const a of rasterZones({ ...rasterPart(q), url: primary.url }, zones, { ...deps, bandDefaults: primary.bandDefaults }, options))
          answers.push(a);
      } catch (error) {
        if (deps.signal?.aborted) throw error;
        while (answers.length < ks.length) answers.push({ error });
      }
      ks.forEach((k, j) => ((out[k] as DayAnswer).answer = answers[j] as ItemAnswer));
    }),
  );
  return out;
}

/** The engine's work for mosaics: a unit is a day, answered for the zones that take it; a zone's rows by day. */
export function dayWork(
  q: StacSearchQuery,
  zones: readonly Zone[],
  aois: readonly (Aoi | { error: unknown })[],
  items: readonly FoundItem[],
  days: readonly (ReadonlyMap<number, readonly number[]> | null)[],
  deps: StacSearchDeps,
): Work<number, DayAnswer, Omit<ZoneOutcome, 'zone'>[]> {
  const rule = q.time?.rule ?? 'all';
  const common = { ...deps, ...shared(deps) };
  return {
    id: (day) => day,
    compare: (a, b) => a - b,
    inFlight: ITEMS_IN_FLIGHT,
    run: async ([unit]) => {
      const { key: day, zones: members } = unit as Unit<number>;
      const dayZones = members.map((z) => ({ zone: zones[z] as Zone, aoi: aois[z] as Aoi, items: days[z]?.get(day) ?? [] }));
      const answers = await answerDay(q, dayZones, items, common);
      return members.map((zone, k) => ({ zone, key: day, result: answers[k] as DayAnswer }));
    },
    answer: (z, results) => {
      if (results.length === 0) throw noItems(zones[z] as Zone, rule);
      return results.map(({ answer, grid, items: ids }) => {
        const first = items[ids[0] as number] as FoundItem;
        const item = {
          id: (items[grid ?? (ids[0] as number)] as FoundItem).id,
          datetime: first.datetime,
          item_ids: ids.map((i) => (items[i] as FoundItem).id),
        };
        return rowOf(item, answer);
      });
    },
    ...(deps.signal ? { signal: deps.signal } : {}),
  };
}
