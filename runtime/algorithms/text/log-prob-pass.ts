// One log-probability pass as an onnxruntime session: log pi(target) at every position of a token
// batch, the graph of tokens.ts's buildLogProbs. pi_old's and pi_ref's passes are built from it
// (log-prob-sessions.ts, token-step.ts).
import type { LanguageModel } from '../../policies/index.js';
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
 * float16 (mixed-precision.ts), half its bytes. `precision`: logProbPrecision's unless given;
 * `bake`: the weights baked (the others of `weights` fed), the frozen ones on a GPU unless given.
 */
export function logProbSession(model: LanguageModel, T: Dim, weights: WeightStore, compute: Compute, precision: Precision = logProbPrecision(compute), bake: WeightStore | undefined = onGpu(compute) ? model.frozenWeights : undefined): Promise<Session> {
  const forward = buildLogProbs(model, T);
  return Session.create(forward.graph, { logp: forward.logProb }, { providers: compute.providers, weights, bake, precision, intraOpNumThreads: compute.opThreads });
}

/** Whether the compute has a GPU provider. */
export function onGpu(compute: Compute): boolean {
  return compute.providers.some((p) => p !== 'cpu');
}
