// The forward passes a text learner runs besides its gradient step: log pi(target) at every
// position under the sampling policy's weights (pi_old) or a copy of them kept as the stage began
// (pi_ref). Shared by the policy-gradient learner (policy-gradient.ts) and learner modules
// (../module/text-learner.ts).
import { graphWeights, type LanguageModel } from '../../policies/index.js';
import { Session, type Compute, type Dim, type Precision, type WeightStore } from '../../tensor/index.js';
import { buildLogProbs } from './tokens.js';

/**
 * The precision a log-probability pass is written in: the experiment's on a GPU, so that pi_old's
 * pass computes what the fp16 gradient step's own forward pass does (the first step's ratio
 * pi / pi_old is 1, up to onnxruntime's fusions: docs/gpu.md "Precision") with half the bytes per
 * product; float32 on the CPU, whose provider computes float16 products in float32, so that fp16
 * there would only add casts (the checker warns).
 */
export function logProbPrecision(compute: Compute): Precision {
  return compute.precision === 'fp16' && onGpu(compute) ? 'fp16' : 'fp32';
}

/**
 * A session giving log pi(target) at every position for `weights`. A model's frozen weights are
 * baked into it on a GPU, where a feed would be copied to the device at every run (as the
 * gradient step does: GradientParts' `fed`); in fp16 one read only by a product is baked as
 * float16 (mixed-precision.ts), half its bytes. `precision`: logProbPrecision's unless given.
 */
export function logProbSession(model: LanguageModel, T: Dim, weights: WeightStore, compute: Compute, precision: Precision = logProbPrecision(compute)): Promise<Session> {
  const forward = buildLogProbs(model, T);
  const bake = onGpu(compute) ? model.frozenWeights : undefined;
  return Session.create(forward.graph, { logp: forward.logProb }, { providers: compute.providers, weights, bake, precision, intraOpNumThreads: compute.opThreads });
}

/** pi_ref: a copy of the model's weights as they are now, and its log-probability session. */
export async function referencePolicy(model: LanguageModel, T: Dim, compute: Compute): Promise<{ readonly weights: WeightStore; readonly session: Session }> {
  const weights = model.weights.clone();
  return { weights, session: await logProbSession(model, T, graphWeights(model, weights), compute) };
}

function onGpu(compute: Compute): boolean {
  return compute.providers.some((p) => p !== 'cpu');
}
