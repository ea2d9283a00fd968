// Policies by the names the language uses. Each is built from the plan's policy
// component and the env's spaces; the algorithm then trains its ParamStore.
import type { Rng } from '../random.js';
import { MLP_PARAMS, MlpPolicy, mlpSettings, type PolicySpaces } from './mlp.js';

export { Categorical, DiagGaussian, type ActionBuffer, type ActionDistribution, type ActorOutput } from './distributions.js';
export { DenseStack, type Activation, type DenseLayerSource } from './dense.js';
export { MLP_PARAMS, MlpPolicy, mlpSettings, type MlpSettings, type PolicyGraph, type PolicySpaces } from './mlp.js';

/** The policy kinds this runtime implements, with their params and defaults (for the drift test). */
export const POLICY_PARAMS: Readonly<Record<string, Readonly<Record<string, { readonly default: unknown; readonly doc: string }>>>> = {
  mlp: MLP_PARAMS,
};

export type Policy = MlpPolicy;

/** Builds the plan's policy for these spaces; `rng` draws the initial weights. */
export function makePolicy(component: { readonly kind: string; readonly name: string; readonly params: Readonly<Record<string, unknown>> }, spaces: PolicySpaces, rng: Rng): Policy {
  if (component.kind === 'mlp') return new MlpPolicy(mlpSettings(component.params), spaces, rng);
  throw new Error(`policy ${component.name}: kind "${component.kind}" is not implemented in this runtime; implemented: ${Object.keys(POLICY_PARAMS).join(', ')}`);
}
