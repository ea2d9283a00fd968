// An off-policy learner's loss as one GradientStep over the weights one optimiser trains (SAC's
// critics or actor, a numeric learner module's critics or actor): the graph reads several
// networks, the ones this loss does not train frozen.
import { GradientStep, type Compute, type Graph, type Tensor, type WeightStore } from '../../tensor/index.js';

export interface OffPolicyLoss {
  readonly graph: Graph;
  readonly loss: Tensor;
  readonly metrics: Readonly<Record<string, Tensor>>;
  /**
   * The loss cut into terms over disjoint weights (the two critics: qf1_loss moves only Q1),
   * each with its metrics: GradientStep runs them at once on two threads where it can.
   */
  readonly parts?: readonly { readonly loss: Tensor; readonly prefix: string; readonly metrics: Readonly<Record<string, Tensor>> }[];
}

/**
 * `loss` as one gradient step over the weights of `trained`; `store` holds every weight the
 * graph reads (WeightStore.union of the networks), the others frozen: no gradient is computed
 * for them. The gradients come back in `store`'s order.
 */
export function offPolicyGradientStep(loss: OffPolicyLoss, store: WeightStore, trained: WeightStore, options: { readonly compute: Compute; readonly maxRows: number }): Promise<GradientStep> {
  const names = new Set(trained.names);
  // Each critic's term from its own model: both models compute the target (a forward pass of
  // the actor and the target critics, a third of the work), but the two run at once.
  const parts = loss.parts?.map((p) => ({ loss: p.loss, weights: trained.names.filter((n) => n.startsWith(p.prefix)), metrics: p.metrics }))
    ?? [{ loss: loss.loss, weights: trained.names, metrics: loss.metrics }];
  return GradientStep.create(loss.graph, parts, {
    weights: store,
    compute: options.compute,
    dimLimits: { B: options.maxRows },
    frozen: store.names.filter((n) => !names.has(n)),
  });
}
