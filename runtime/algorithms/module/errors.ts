// What a learner module did wrong, in words: loading it, building its loss, or training with it.
import { InputError } from '../../../shared/input-error.js';

/** A learner module that cannot be loaded, whose buildLoss fails or returns the wrong thing; the message names the module and the call. */
export class LearnerModuleError extends InputError {
  override name = 'LearnerModuleError';
}
