/**
 * Frees a buffer's memory now rather than at V8's next mark-compact, for a buffer this thread alone holds
 * and no longer reads (a task's chunk bytes moved to its worker, LZ4's decoded streams). A worker's heap is
 * small, so V8 gives it a small old-generation limit, and the ArrayBuffers made or moved in since its last
 * mark-compact count against it: each of the cube benchmark's workers mark-compacted ~25 times a request for
 * such garbage alone; with them released, 3–8 times (bench/cube). Pure: no I/O.
 */

type Detachable = ArrayBuffer & { transfer?: (length?: number) => ArrayBuffer };

/**
 * Detaches the buffer under `view` (ArrayBuffer.prototype.transfer, Node ≥ 21; elsewhere nothing happens),
 * only where the view spans all of it (never a slice of a pool) and it is not shared memory. Every view of
 * it reads as empty afterwards: the caller must hold the only ones.
 */
export function release(view: ArrayBufferView | ArrayBuffer): void {
  const buffer = (ArrayBuffer.isView(view) ? view.buffer : view) as Detachable;
  if (!(buffer instanceof ArrayBuffer) || buffer.transfer === undefined || buffer.byteLength === 0) return;
  if (ArrayBuffer.isView(view) && (view.byteOffset !== 0 || view.byteLength !== buffer.byteLength)) return;
  try {
    buffer.transfer(0);
  } catch {
    // A buffer that cannot be detached (WebAssembly memory, a non-detachable external one) is left to V8.
  }
}
