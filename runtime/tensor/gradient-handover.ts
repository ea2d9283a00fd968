// Gradients handed to the optimiser's threads instead of copied by the calling thread.
//
// Adam on worker threads (parallel-adam.ts) needs the gradients in its shared WebAssembly
// memory, and onnxruntime writes them into ordinary (not shared) ArrayBuffers, which only the
// thread that owns them can read: so the calling thread copied all of them in, one thread's
// memory bandwidth for the whole model (85M parameters: ~54 ms of a step on an H200's host).
// Instead a gradient step that writes its gradients as a few whole buffers ("pieces": one per
// optimiser thread, each holding whole tensors end to end: gradient-parts.ts) hands them over:
// the optimiser transfers each piece to a worker thread (a transfer moves the buffer, not its
// bytes), each worker copies its piece into the shared memory, and sends the buffer back; the
// optimiser then gives the pieces back to the step, which has onnxruntime write the next
// gradients into them. Between the transfer and the give-back the step's arrays are detached.

/** A gradient step's gradients as whole buffers, lent to the optimiser for one step. */
export interface GradientHandover {
  /** The buffers the gradients are views of, each a whole (not shared) ArrayBuffer. */
  readonly pieces: readonly Float32Array[];
  /**
   * Takes back the pieces, in the same order: new arrays over the same memory for those the
   * optimiser transferred (the old ones are detached), the same arrays for the others.
   */
  giveBack(pieces: readonly Float32Array[]): void;
}

/**
 * Where each gradient lies in the pieces: [piece, first float] per gradient, or null for a
 * gradient that is no piece's view (a frozen weight's zeros). Null as a whole where the pieces
 * cannot be handed over: one is a view of part of a buffer, shared memory, or the same buffer twice.
 */
export function locateInPieces(grads: readonly Float32Array[], pieces: readonly Float32Array[]): ([number, number] | null)[] | null {
  const index = new Map<ArrayBufferLike, number>();
  for (const [k, piece] of pieces.entries()) {
    const buffer = piece.buffer;
    if (!(buffer instanceof ArrayBuffer) || piece.byteOffset !== 0 || piece.byteLength !== buffer.byteLength || index.has(buffer)) return null;
    index.set(buffer, k);
  }
  return grads.map((g) => {
    const k = index.get(g.buffer);
    return k === undefined ? null : [k, g.byteOffset / 4];
  });
}
