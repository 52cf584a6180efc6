/**
 * The many-zones engines' schedule (zonal/raster.ts: tasks of blocks; zonal/vector.ts: row groups): work
 * units run in their order, at most `limit` at once, each finishing the zones it completes; zone outcomes
 * are handed out in input order as soon as each is done, so the first zone goes out while later units run.
 * The first unit that fails ends it with that unit's error; so does an abort.
 */
export async function* inInputOrder<T>(
  zoneCount: number,
  units: readonly (() => Promise<void>)[],
  limit: number,
  outcome: { isDone(zone: number): boolean; take(zone: number): T },
  signal?: AbortSignal,
): AsyncGenerator<T> {
  let failure: { error: unknown } | null = null;
  let inFlight = 0;
  let next = 0;
  let wake: (() => void) | null = null;
  const launch = (): void => {
    while (failure === null && inFlight < limit && next < units.length) {
      const unit = units[next++] as () => Promise<void>;
      inFlight++;
      unit()
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
    yield outcome.take(zone);
  }
}

/**
 * A counting semaphore shared by the engines of one request (zones × time: every Item's tasks), so that
 * several Items can be open at once, their header reads overlapping other Items' decoding, while the
 * blocks read ahead of the workers stay bounded. Waiters are served in order.
 */
export class Slots {
  #free: number;
  readonly #waiting: (() => void)[] = [];

  constructor(size: number) {
    this.#free = size;
  }

  async acquire(): Promise<void> {
    if (this.#free > 0) {
      this.#free--;
      return;
    }
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#free++;
  }
}
