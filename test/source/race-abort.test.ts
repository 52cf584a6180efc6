/**
 * raceAbort, which the streamed answers (http/zones.ts) and the CLI's --server hand-out (cli/remote.ts) wait
 * with on a signal that stays pending for the whole answer: a wait that has settled must leave nothing
 * behind on the signal, neither a listener nor its value (a `Promise.race` against one pending promise kept
 * every piece of a 1,000,000-row answer alive until the end).
 */
import { getEventListeners } from 'node:events';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { raceAbort } from '../../src/source/errors.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Collects garbage after the current job, so that WeakRefs made in it may be cleared. */
async function collect(): Promise<void> {
  await new Promise((r) => setImmediate(r));
  gc();
  await new Promise((r) => setImmediate(r));
  gc();
}

describe('raceAbort', () => {
  it('passes the value, and the abort reason while it waits', async () => {
    const c = new AbortController();
    await expect(raceAbort(Promise.resolve(7), c.signal)).resolves.toBe(7);
    const pending = raceAbort(new Promise(() => undefined), c.signal);
    c.abort(new Error('client went away'));
    await expect(pending).rejects.toThrow('client went away');
    await expect(raceAbort(Promise.resolve(1), c.signal)).rejects.toThrow('client went away');
  });

  it('keeps neither a listener nor a value once a wait has settled, however many waits', async () => {
    const c = new AbortController();
    const refs: WeakRef<object>[] = [];
    for (let i = 0; i < 2000; i++) {
      const piece = { row: i, text: 'x'.repeat(100) };
      refs.push(new WeakRef(piece));
      expect(await raceAbort(Promise.resolve(piece), c.signal)).toBe(piece);
    }
    expect(getEventListeners(c.signal, 'abort')).toHaveLength(0);
    await collect();
    // The signal is still pending and reachable here: none of the pieces may be kept by it (the last may
    // still sit in a stack slot of this function).
    expect(c.signal.aborted).toBe(false);
    expect(refs.filter((r) => r.deref() !== undefined).length).toBeLessThanOrEqual(1);
  });

  it('the same check finds what Promise.race against a pending promise keeps', async () => {
    // The pattern this replaced, so that the check above is known to be able to fail.
    const gone = new Promise<never>(() => undefined);
    const refs: WeakRef<object>[] = [];
    for (let i = 0; i < 200; i++) {
      const piece = { row: i };
      refs.push(new WeakRef(piece));
      await Promise.race([Promise.resolve(piece), gone]);
    }
    await collect();
    expect(refs.filter((r) => r.deref() !== undefined).length).toBeGreaterThan(100);
    void gone;
  });
});
