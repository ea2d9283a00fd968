// What a WorkerSession (worker-session.ts, the calling thread) and its worker
// (session-worker.ts) share: the layout of the control block and the description of every
// buffer. Runs are requested and answered through shared memory, not messages: a message
// costs ~25 us each way on our machines (a futex wake), a spinning Atomics.load ~0.3 us.

import { ARRAY_TYPES, type DType, type Dim, type HostArray } from './types.js';

/**
 * Int32 slots of the control block. The slot each side spins on gets a cache line (64 bytes,
 * 16 slots) of its own, so that writing the other slots does not pull the line away from the
 * spinning core at every store.
 */
export const CONTROL = {
  /** The number of the latest run asked for (the caller increments it). */
  request: 0,
  /** The number of the latest run answered (the worker sets it, failed or not). */
  done: 16,
  /** 1 while the worker sleeps in Atomics.wait: only then does a request need a notify. */
  sleeping: 32,
  /** 1 when the answered run failed; the message is in the error block. */
  failed: 33,
  /** 1 asks the worker to exit. */
  stop: 34,
  /** Byte length of the UTF-8 error message. */
  errorLength: 35,
  /**
   * The number of the latest run claimed, by the worker as it begins the run or by the
   * caller taking it back (compare-and-swap, so exactly one of them computes each run).
   */
  claim: 36,
  /** Microseconds the worker's latest run took, to judge when a late answer is stalled. */
  computeMicros: 37,
  /** Run-time dims of each input, MAX_RANK slots per input, from this slot on. */
  dims: 48,
} as const;

export const MAX_RANK = 8;
export const ERROR_BYTES = 4096;

/** An input or output of the model, with the shared buffer that carries it. */
export interface SharedSlot {
  readonly name: string;
  readonly dtype: DType;
  readonly shape: readonly Dim[];
  /** Elements the buffer holds: the largest feed (inputs), the static size (outputs). */
  readonly capacity: number;
  readonly buffer: SharedArrayBuffer;
}

/** The worker's workerData. */
export interface WorkerSetup {
  readonly model: Uint8Array;
  readonly providers: readonly string[];
  readonly graphOptimizationLevel: 'disabled' | 'basic' | 'extended' | 'all';
  readonly control: SharedArrayBuffer;
  readonly error: SharedArrayBuffer;
  readonly inputs: readonly SharedSlot[];
  readonly outputs: readonly SharedSlot[];
  /** How long to spin on the control block before sleeping, in microseconds. */
  readonly spinMicros: number;
}

/** The first message a worker sends: ready, or why it could not start. */
export type WorkerHello = { readonly ready: true } | { readonly ready: false; readonly error: string };

/**
 * Claims run `run` for the calling side unless it (or a later run) is claimed already; true
 * if this side now owns the run.
 */
export function claimRun(control: Int32Array, run: number): boolean {
  const seen = Atomics.load(control, CONTROL.claim);
  return seen < run && Atomics.compareExchange(control, CONTROL.claim, seen, run) === seen;
}

/**
 * Spins until `slot` is at least `value` or `micros` pass; true if it got there. The slots
 * waited on (request, done) only grow: run numbers.
 */
export function spinUntilAtLeast(control: Int32Array, slot: number, value: number, micros: number): boolean {
  const deadline = performance.now() + micros / 1000;
  for (let i = 0; ; i++) {
    if (Atomics.load(control, slot) >= value) return true;
    // performance.now() costs more than a load: look at the clock now and then.
    if ((i & 63) === 63 && performance.now() > deadline) return false;
  }
}

/** A typed array of `dtype` over a whole shared buffer. */
export function sharedArray(dtype: DType, buffer: SharedArrayBuffer): HostArray {
  return new ARRAY_TYPES[dtype](buffer);
}
