// Waiting for a user env module's answer without giving up Ctrl-C. The env API is synchronous,
// so the trainer's thread blocks in Atomics.wait while the module's worker computes; a blocked
// thread runs no SIGINT listener, so a long wait runs under vm's breakOnSigint, which wakes it.
import * as vm from 'node:vm';
import { SLOT } from './module-protocol.js';

/**
 * Waits shorter than this skip the SIGINT watchdog: starting it costs ~170 us, nothing for a
 * step that takes this long. (A SIGINT that arrives before the watchdog runs reaches the event
 * loop instead, and is heard when the step returns or times out.)
 */
const PLAIN_WAIT_MS = 10;

/**
 * Waits until `control[answer]` leaves `previous`, at most `ms`; false if Ctrl-C came first.
 * A short wait is plain; a longer one runs under vm's breakOnSigint, which wakes Atomics.wait on
 * SIGINT (the process's own listeners cannot run while this thread is blocked), but only when
 * someone listens for SIGINT: otherwise the signal's default, ending the process, is left alone.
 */
export function waitForAnswer(control: Int32Array, previous: number, ms: number): boolean {
  if (ms <= PLAIN_WAIT_MS || process.listenerCount('SIGINT') === 0) {
    Atomics.wait(control, SLOT.answer, previous, Math.min(ms, PLAIN_WAIT_MS));
    return true;
  }
  Atomics.wait(control, SLOT.answer, previous, PLAIN_WAIT_MS);
  if (Atomics.load(control, SLOT.answer) !== previous) return true;
  pendingWait.control = control;
  pendingWait.previous = previous;
  pendingWait.ms = ms - PLAIN_WAIT_MS;
  try {
    interruptibleWait.runInThisContext({ breakOnSigint: true });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_SCRIPT_EXECUTION_INTERRUPTED') return false;
    throw err;
  }
}

const WAIT_KEY = Symbol.for('rlx.envModuleWait');
const pendingWait: { control: Int32Array; previous: number; ms: number } = { control: new Int32Array(new SharedArrayBuffer(4)), previous: 0, ms: 0 };
(globalThis as Record<symbol, unknown>)[WAIT_KEY] = pendingWait;
const interruptibleWait = new vm.Script(`{ const w = globalThis[Symbol.for('rlx.envModuleWait')]; Atomics.wait(w.control, ${SLOT.answer}, w.previous, w.ms); }`);
