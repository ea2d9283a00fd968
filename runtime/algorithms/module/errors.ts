// What a learner module did wrong, in words: loading it, building its loss, or training with it.
import { InputError } from '../../../shared/input-error.js';
import { describeThrown } from '../../envs/module-errors.js';

/** A learner module that cannot be loaded, whose buildLoss fails or returns the wrong thing; the message names the module and the call. */
export class LearnerModuleError extends InputError {
  override name = 'LearnerModuleError';
}

/**
 * Runs `read`, rlx's reading of a value the module handed over (its exports, what a call
 * returned). The value may be a Proxy or carry getters, so any read may run the module's code
 * and throw; that becomes an error naming the module (`label`) and `what` was read.
 */
export function readingModuleValue<T>(label: string, what: string, read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof LearnerModuleError) throw err;
    throw new LearnerModuleError(`${label}: reading ${what} threw: ${describeThrown(err)}; hand rlx plain objects (no Proxy, no getters that throw)`);
  }
}
