// Where and how the tensor work of training runs: onnxruntime's execution providers, whether
// independent gradient parts may use worker threads (gradient-parts.ts), and how many threads
// one op of a large model may use. The trainer passes this through to the algorithms
// untouched; only tensor/ reads it.
import * as os from 'node:os';
import { GradientParts, MIN_CORES_FOR_THREADS } from './gradient-parts.js';
import type { ExecutionProvider } from './session.js';
import type { Precision } from './mixed-precision.js';
import { allowOptimizerThreads } from './optimizer-threads.js';

/** What a caller of the trainer may choose about compute (the device is chosen apart). */
export interface ComputeOptions {
  /**
   * Gradient parts on worker threads: on by default where the machine has a core to spare
   * and onnxruntime runs on the CPU. The results are the same either way; turn it off when
   * running one training per core.
   */
  readonly threads?: boolean;
}

/** The compute an algorithm builds its sessions for. */
export interface Compute extends ComputeOptions {
  /** onnxruntime's execution providers, in order of preference. */
  readonly providers: readonly ExecutionProvider[];
  /**
   * Threads onnxruntime may split one op across, in the sessions that opt in because their ops
   * are large (a transformer's gradient step and log-probability pass); 1 when absent. An
   * MLP's ops are too small to split well (gradient-parts.ts), so its sessions keep one.
   */
  readonly opThreads?: number;
  /**
   * 'fp16': gradient steps compute their matrix products in float16 from float32 master weights,
   * with dynamic loss scaling (mixed-precision.ts, loss-scale.ts), and on a GPU so do the text
   * learners' log-probability passes (algorithms/text/log-prob-sessions.ts) and a LoRA model's
   * chunked rollouts (lm/rollout-device.ts); 'fp32' (the default) throughout.
   */
  readonly precision?: Precision;
}

/**
 * Two threads per large op where the options allow threads, onnxruntime runs on the CPU and
 * there are two cores: on our 2-core machines a transformer's SFT step (the example's model,
 * batch 64 and 256) took 20-30% less time; sampling, one position at a time, gained nothing.
 * A fixed two, not every core: a seed's numbers depend on how the ops are split (in the last
 * bits, against threads off), and with two they do not depend on how many cores above two
 * the machine has. More threads on larger machines were not measured.
 */
export function opThreadsFor(options: ComputeOptions, providers: readonly ExecutionProvider[]): number {
  const cpu = providers.every((p) => p === 'cpu');
  return options.threads !== false && cpu && os.availableParallelism() >= MIN_CORES_FOR_THREADS ? 2 : 1;
}

/**
 * Starts what compute will need ahead of time (a gradient worker thread takes ~60 ms to
 * boot), so that it overlaps whatever the caller does next: choosing the device, building
 * the graphs.
 */
export function warmUpCompute(options: ComputeOptions = {}): void {
  allowOptimizerThreads(options.threads !== false);
  if (options.threads !== false) GradientParts.warmUp();
}

