/**
 * The one zones × units engine every use case answers through: a zone needs units (raster blocks, Parquet
 * row groups, STAC Items); each unit is worked once for all the zones that need it, a few work items at a
 * time, and each zone is answered as soon as its last unit is in — zones handed out in input order, so the
 * first goes out while later units still run. Plug-ins (zonal/raster.ts, vector.ts, stac-search.ts) say
 * which units each zone needs and how to work a unit and to answer a zone from its results.
 */

/** What a zone needs: its units, and the bytes of state it holds until it is answered (for passes). */
export interface Needs<K> {
  units: readonly K[];
  bytes?: number;
}

/** A zone's needs, or the problem that is its answer (its geometry, a limit). */
export type Planned<K> = Needs<K> | { error: unknown };

/** One unit and the zones that need it (indexes into the zones, ascending). */
export interface Unit<K> {
  key: K;
  zones: number[];
}

export interface Work<K, R, A> {
  /** A unit's identity. */
  id(key: K): string | number;
  /** The order of a zone's results (and of units first needed by the same zone). */
  compare(a: K, b: K): number;
  /** Cuts the units of a pass, in the order of the first zone that needs each, into work items; default one each. */
  items?(units: readonly Unit<K>[]): Unit<K>[][];
  /** Works one item: a result per zone and unit of it. */
  run(item: readonly Unit<K>[]): Promise<Iterable<{ zone: number; key: K; result: R }>>;
  /** A zone's answer from its results, in `compare` order. */
  answer(zone: number, results: R[]): Promise<A> | A;
  /** Work items in flight (default 4). */
  inFlight?: number;
  /** Zones go in passes whose summed `bytes` stay under this (default: one pass). */
  passBytes?: number;
  signal?: AbortSignal;
}

/** Work items in flight unless a plug-in says otherwise: enough to overlap reads with the workers. */
const IN_FLIGHT = 4;

/** Each zone's answer (or its problem), in input order. The first work item that fails ends it with its error. */
export async function* answerZones<K, R, A>(planned: readonly Planned<K>[], work: Work<K, R, A>): AsyncGenerator<A | { error: unknown }> {
  const limit = work.passBytes ?? Infinity;
  for (let start = 0; start < planned.length;) {
    let end = start;
    let bytes = 0;
    do bytes += bytesOf(planned[end] as Planned<K>);
    while (++end < planned.length && bytes + bytesOf(planned[end] as Planned<K>) <= limit);
    yield* pass(planned, start, end, work);
    start = end;
  }
}

function bytesOf<K>(p: Planned<K>): number {
  return 'error' in p ? 0 : (p.bytes ?? 0);
}

/** One pass: zones [start, end) share every unit they need. */
async function* pass<K, R, A>(planned: readonly Planned<K>[], start: number, end: number, work: Work<K, R, A>): AsyncGenerator<A | { error: unknown }> {
  const byId = new Map<string | number, Unit<K>>();
  const remaining = new Int32Array(end - start);
  for (let z = start; z < end; z++) {
    const p = planned[z] as Planned<K>;
    if ('error' in p) continue;
    for (const key of p.units) {
      const id = work.id(key);
      let unit = byId.get(id);
      if (!unit) byId.set(id, (unit = { key, zones: [] }));
      unit.zones.push(z);
    }
    remaining[z - start] = p.units.length;
  }
  const units = [...byId.values()].sort((a, b) => (a.zones[0] as number) - (b.zones[0] as number) || work.compare(a.key, b.key));
  byId.clear();
  const items = work.items ? work.items(units) : units.map((u) => [u]);

  const results: { key: K; result: R }[][] = Array.from({ length: end - start }, () => []);
  const done: (Promise<A | { error: unknown }> | undefined)[] = new Array(end - start);
  const turn = turns();
  const finish = (z: number): void => {
    const p = planned[z] as Planned<K>;
    const own = results[z - start] as { key: K; result: R }[];
    results[z - start] = [];
    done[z - start] =
      'error' in p
        ? Promise.resolve({ error: p.error })
        : turn()
            .then(() =>
              work.answer(
                z,
                own.sort((a, b) => work.compare(a.key, b.key)).map((r) => r.result),
              ),
            )
            .catch((error: unknown) => ({ error }));
  };
  for (let z = start; z < end; z++) if (remaining[z - start] === 0) finish(z);

  const launches = items.map((item) => async (): Promise<void> => {
    for (const r of await work.run(item)) (results[r.zone - start] as { key: K; result: R }[]).push({ key: r.key, result: r.result });
    for (const unit of item) for (const z of unit.zones) if (--remaining[z - start] === 0) finish(z);
  });
  yield* inInputOrder(
    end - start,
    launches,
    work.inFlight ?? IN_FLIGHT,
    {
      isDone: (z) => done[z] !== undefined,
      take: (z) => {
        const answer = done[z] as Promise<A | { error: unknown }>;
        done[z] = undefined;
        return answer;
      },
    },
    work.signal,
  );
}

/**
 * Turns of the event loop handed out one at a time, in order: the zones a work item completes (a cube's group
 * completes all of them, each a merge of ~200 steps) are answered one a turn, so that I/O and other requests
 * get in between instead of waiting for the whole burst (~0.1 s).
 */
function turns(): () => Promise<void> {
  const waiting: (() => void)[] = [];
  const step = (): void => {
    waiting.shift()?.();
    if (waiting.length > 0) setImmediate(step);
  };
  return () =>
    new Promise<void>((resolve) => {
      if (waiting.push(resolve) === 1) setImmediate(step);
    });
}

/**
 * Work items run in their order, at most `limit` at once; zone outcomes are handed out in input order as
 * soon as each is done. The first item that fails ends it with that item's error; so does an abort.
 */
async function* inInputOrder<T>(
  zoneCount: number,
  items: readonly (() => Promise<void>)[],
  limit: number,
  outcome: { isDone(zone: number): boolean; take(zone: number): Promise<T> },
  signal?: AbortSignal,
): AsyncGenerator<T> {
  let failure: { error: unknown } | null = null;
  let inFlight = 0;
  let next = 0;
  let wake: (() => void) | null = null;
  const launch = (): void => {
    while (failure === null && inFlight < limit && next < items.length) {
      const item = items[next++] as () => Promise<void>;
      inFlight++;
      item()
        .catch((e: unknown) => {
          failure ??= { error: e };
        })
        .finally(() => {
          inFlight--;
          const w = wake;
          wake = null;
          w?.();
        });
    }
  };
  for (let zone = 0; zone < zoneCount; zone++) {
    for (launch(); !outcome.isDone(zone) && failure === null; launch()) {
      if (signal?.aborted) throw signal.reason;
      await new Promise<void>((resolve) => (wake = resolve));
    }
    if (failure !== null) throw (failure as { error: unknown }).error;
    yield await outcome.take(zone);
  }
}
