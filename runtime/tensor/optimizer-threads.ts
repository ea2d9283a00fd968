// How many threads Adam's update runs on (parallel-adam.ts), from the model's size, the cores
// and the trainer's `threads` compute option. Apart from compute.ts so that the optimisers do
// not load onnxruntime.
import * as os from 'node:os';

/**
 * Whether the optimisers may use worker threads: the trainer's `threads` option as last given
 * to warmUpCompute (compute.ts; the optimisers are built inside the algorithms, which take no
 * compute options of their own). Allowed until told otherwise.
 */
let allowed = true;

export function allowOptimizerThreads(allow: boolean): void {
  allowed = allow;
}

/** Parameters from which Adam's update runs on worker threads (below, the wakes cost more than the threads save; bench/optim.ts). */
export const MIN_PARAMS_FOR_OPTIMIZER_THREADS = 1 << 20;
/** Parameters per optimiser thread at least: with fewer, a thread's wake costs more than its share saves. */
const PARAMS_PER_OPTIMIZER_THREAD = 1 << 19;
/** The most optimiser threads: the update is bound by memory bandwidth, which a few cores fill. */
const MAX_OPTIMIZER_THREADS = 16;

/**
 * Threads Adam splits the update of `params` parameters across (the calling one included):
 * 1 for small models, where threads are off, or on one core; else one per core, up to one
 * per PARAMS_PER_OPTIMIZER_THREAD parameters and MAX_OPTIMIZER_THREADS. The results are the
 * same bits for any count.
 */
export function optimizerThreadsFor(params: number, threads: boolean = allowed, cores: number = os.availableParallelism()): number {
  if (!threads || params < MIN_PARAMS_FOR_OPTIMIZER_THREADS) return 1;
  return Math.max(1, Math.min(cores, MAX_OPTIMIZER_THREADS, Math.floor(params / PARAMS_PER_OPTIMIZER_THREAD)));
}
