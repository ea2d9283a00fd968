// A learner module's calls on the trainer's thread, where a watchdog can stop them. The probe
// (load.ts) tries the module in a worker thread first, but a module may behave there and loop
// here (it may test isMainThread, or loop on its second call): a synchronous call that never
// returns would hang `rlx train`, deaf to SIGINT and SIGTERM, whose listeners run only between
// calls. So each call runs inside a vm script with a timeout and breakOnSigint, which stop any
// JavaScript running on this thread, the module's included, at the deadline or on Ctrl-C (the
// editor's Stop sends SIGINT too). SIGTERM is heard once the call is stopped at its deadline.
// Each call must also leave JavaScript's built-ins as it found them (intrinsics.ts).
import * as vm from 'node:vm';
import { LearnerModuleError } from './errors.js';
import { changedIntrinsicsError, restoreIntrinsics, snapshotIntrinsics } from './intrinsics.js';

const CALL_KEY = Symbol.for('rlx.learnerModuleCall');
const call = new vm.Script(`globalThis[Symbol.for(${JSON.stringify(CALL_KEY.description)})]()`, { filename: 'rlx-learner-watchdog' });

/**
 * Wraps each function a learner module exports for rlx to call (`buildLoss`, `buildLosses`) so
 * that a call that does not return within `timeoutMs`, or is interrupted by SIGINT, is stopped
 * and becomes a LearnerModuleError naming the module (`label`) and the call.
 */
export function watched<F extends (...args: never[]) => unknown>(label: string, name: string, timeoutMs: number, fn: F): F {
  return ((...args: Parameters<F>) => callWatched(label, name, timeoutMs, () => fn(...args))) as F;
}

/**
 * Runs `body` (rlx's call into the module) under the watchdog; `name` says what runs, in the
 * message, and `advice` what the module must do instead.
 */
export function callWatched<T>(label: string, name: string, timeoutMs: number, body: () => T, advice = `${name} must build the graph and return`): T {
  const intrinsics = snapshotIntrinsics();
  const slot = globalThis as Record<symbol, unknown>;
  const outer = slot[CALL_KEY];
  let result: T | undefined;
  slot[CALL_KEY] = () => {
    result = body();
  };
  let changed: string[] = [];
  try {
    // breakOnSigint only where someone listens for SIGINT (rlx train does): otherwise the
    // signal's default, ending the process, is left alone.
    call.runInThisContext({ timeout: timeoutMs, breakOnSigint: process.listenerCount('SIGINT') > 0 });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException | undefined)?.code;
    if (code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') {
      throw new LearnerModuleError(`${label}: ${name} did not return within ${timeoutMs / 1000} s on the trainer's thread (a loop that never ends?) and was stopped; ${advice} (build_timeout sets the limit)`);
    }
    if (code === 'ERR_SCRIPT_EXECUTION_INTERRUPTED') {
      throw new LearnerModuleError(`${label}: ${name} was interrupted by Ctrl-C (SIGINT) before it returned; the run stops`);
    }
    throw err;
  } finally {
    slot[CALL_KEY] = outer;
    changed = restoreIntrinsics(intrinsics); // put back even when the call failed: rlx's report of it needs them
  }
  if (changed.length > 0) throw changedIntrinsicsError(changed, label, name);
  return result as T;
}
