// Writes to trained weights that their optimiser did not make. Adam on worker threads keeps its
// own copy of the parameters between steps (parallel-adam.ts: copying 85M parameters in costs
// ~50 ms a step on one thread), so whatever else writes a trained array must say so here, and
// the optimiser copies it in again before its next step. WeightStore's own writes (load,
// copyFrom, lerpFrom) do; code that writes a weight's array directly must call markWritten.
// Reads (feeding a session, checkpoints, export) need nothing.

const counts = new WeakMap<Float32Array, number>();

/** Records that `array`'s values changed outside its optimiser. */
export function markWritten(array: Float32Array): void {
  counts.set(array, (counts.get(array) ?? 0) + 1);
}

/** How many writes markWritten has recorded for `array`: an optimiser compares it with the count it last saw. */
export function writeCount(array: Float32Array): number {
  return counts.get(array) ?? 0;
}
