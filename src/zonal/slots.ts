/** Task slots that the rasters of one request share, so that reads ahead of the workers stay bounded. */

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

/** Runs `fn` holding one of `slots` (none: at once). */
export async function withSlot<T>(slots: Slots | undefined, fn: () => Promise<T>): Promise<T> {
  await slots?.acquire();
  try {
    return await fn();
  } finally {
    slots?.release();
  }
}
