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

/**
 * Parameters from which Adam's update runs on worker threads. Below, a step is a millisecond
 * or two on one thread with its arrays in cache, and threads did not help: on our 2-core
 * machines (shared with other work) 2 threads took 1.2-1.4x the single thread's time from
 * 128K to 4M parameters (best of 30). Past 4M (16 MB a copy) the copies leave the caches and
 * the kernel's work, hidden behind them, is what threads save.
 */
export const MIN_PARAMS_FOR_OPTIMIZER_THREADS = 1 << 22;
/** Parameters per optimiser thread at least, so that each thread's share outweighs its wake. */
const PARAMS_PER_OPTIMIZER_THREAD = 1 << 20;
/**
 * The most optimiser threads. A step costs about the calling thread's three copies of the
 * parameters' bytes (parallel-adam.ts), and a few threads run the kernel behind them; more
 * only add threads that may lose their core mid-slice and hold the step up.
 */
export const MAX_OPTIMIZER_THREADS = 8;

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
