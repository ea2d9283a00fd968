// The observation encoders this runtime implements (encoder.ts says what one is and how to add
// one), and the choice of one for a network.
import type { Rng } from '../../shared/random.js';
import type { WeightStore } from '../tensor/index.js';
import type { EncoderDefinition, ObservationEncoder } from './encoder.js';
import { FLATTEN } from './flatten-encoder.js';
import type { PolicySpaces } from './policy.js';

/** The encoders this runtime implements. */
export const ENCODERS: readonly EncoderDefinition[] = [FLATTEN];

/**
 * Encoder `name` (of ENCODERS) of one network over `spaces`' observations, its weights in
 * `store` as `${prefix}.*`. Every network asks for `flatten` today; a policy setting that names
 * another (declared in dsl/schema/) would be passed here.
 */
export function encoderFor(spaces: PolicySpaces, store: WeightStore, prefix: string, rng: Rng, name = FLATTEN.name): ObservationEncoder {
  const definition = ENCODERS.find((e) => e.name === name);
  if (!definition) throw new Error(`observation encoder "${name}" is not implemented in this runtime; implemented: ${ENCODERS.map((e) => e.name).join(', ')}`);
  return definition.build(spaces, store, prefix, rng);
}
