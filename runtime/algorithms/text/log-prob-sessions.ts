// The forward passes a text learner runs besides its gradient step: log pi(target) at every
// position under the sampling policy's weights (pi_old) or a copy of them kept as the stage began
// (pi_ref). Shared by the policy-gradient learner (policy-gradient.ts) and learner modules
// (../module/text-learner.ts).
import { graphWeights, type LanguageModel } from '../../policies/index.js';
import { Session, type Compute, type Dim, type WeightStore } from '../../tensor/index.js';
import { buildLogProbs } from './tokens.js';

/**
 * A session giving log pi(target) at every position for `weights`. A model's frozen weights are
 * baked into it on a GPU, where a feed would be copied to the device at every run (as the
 * gradient step does: GradientParts' `fed`).
 */
export function logProbSession(model: LanguageModel, T: Dim, weights: WeightStore, compute: Compute): Promise<Session> {
  const forward = buildLogProbs(model, T);
  const bake = compute.providers.some((p) => p !== 'cpu') ? model.frozenWeights : undefined;
  return Session.create(forward.graph, { logp: forward.logProb }, { providers: compute.providers, weights, bake, intraOpNumThreads: compute.opThreads });
}

/** pi_ref: a copy of the model's weights as they are now, and its log-probability session. */
export async function referencePolicy(model: LanguageModel, T: Dim, compute: Compute): Promise<{ readonly weights: WeightStore; readonly session: Session }> {
  const weights = model.weights.clone();
  return { weights, session: await logProbSession(model, T, graphWeights(model, weights), compute) };
}
