/**
 * piscina, the worker-thread pool, in one file: the pool (workers/pool.ts) and, in the threads, a result whose
 * buffers move back to the main thread instead of being copied (fold-worker.ts).
 */
import { Piscina } from 'piscina';

export { Piscina };

/**
 * `value` as a task's result whose `buffers` are moved to the main thread, not copied: each is detached here,
 * so none may be used again in this thread. The main thread receives `value` itself.
 */
export function moved<T>(value: T, buffers: ArrayBuffer[]): T {
  // piscina's Transferable: its two symbols (typed as unique symbols, which computed keys lose).
  const transferable = { [Piscina.transferableSymbol]: buffers, [Piscina.valueSymbol]: value } as unknown as Parameters<typeof Piscina.move>[0];
  return Piscina.move(transferable) as unknown as T;
}
