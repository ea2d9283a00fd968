// Where and how the tensor work of training runs: onnxruntime's execution providers, and
// whether independent gradient parts may use worker threads (gradient-parts.ts). The trainer
// passes this through to the algorithms untouched; only tensor/ reads it.
import { GradientParts } from './gradient-parts.js';
import type { ExecutionProvider } from './session.js';

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
}

/**
 * Starts what compute will need ahead of time (a gradient worker thread takes ~60 ms to
 * boot), so that it overlaps whatever the caller does next: choosing the device, building
 * the graphs.
 */
export function warmUpCompute(options: ComputeOptions = {}): void {
  if (options.threads !== false) GradientParts.warmUp();
}
