// The reward model's pairwise loss on a batch of pairs, from each answer's scalar reward (the score
// head on its last non-pad token): the loss, its derivative by each reward, and the numbers logged.
// Computed in float64 outside the graph, as DPO's preference loss is (../dpo/preference-loss.ts):
// the gradient step can then take a loss linear in the rewards with these derivatives as weights,
// whose gradient is exactly this loss's, so micro-batches split it exactly however they cut pairs.
//
// TRL's RewardTrainer.compute_loss, with r_w, r_l the chosen and rejected rewards of pair i and m_i
// its margin (TRL's `margin` column; 0 without one), averaged over the batch's B pairs:
//   loss = mean_i -log s(r_w - r_l - m_i)  +  c * mean_i (r_w + r_l)^2
// where c is center_rewards_coefficient (TRL adds c * torch.mean((rewards_chosen + rewards_rejected) ** 2)).
// Folders of runtime/algorithms/ never import each other (test/architecture.test.ts), so the two
// one-line helpers DPO also has are written here.

export interface BradleyTerrySettings {
  /** TRL's center_rewards_coefficient; 0: no centring term. */
  readonly center_rewards_coefficient: number;
}

export interface PairRewards {
  readonly chosen: Float64Array;
  readonly rejected: Float64Array;
  /** Each pair's margin; null: 0 for every pair. */
  readonly margin: Float64Array | null;
}

export interface BradleyTerryResult {
  /** The batch's mean loss. */
  readonly loss: number;
  /** d loss / d r of pair i's chosen answer, and of its rejected one. */
  readonly dChosen: Float64Array;
  readonly dRejected: Float64Array;
  /** train/accuracy (r_w > r_l) and train/margin (mean r_w - r_l), as TRL's reward trainer reports them. */
  readonly metrics: { readonly 'train/loss': number; readonly 'train/accuracy': number; readonly 'train/margin': number };
}

/** log(sigmoid(x)), without overflow for large |x|. */
function logSigmoid(x: number): number {
  return x >= 0 ? -Math.log1p(Math.exp(-x)) : x - Math.log1p(Math.exp(x));
}

function sigmoid(x: number): number {
  return x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x));
}

export function bradleyTerryLoss(s: BradleyTerrySettings, r: PairRewards): BradleyTerryResult {
  const B = r.chosen.length;
  const c = s.center_rewards_coefficient;
  const dChosen = new Float64Array(B);
  const dRejected = new Float64Array(B);
  let loss = 0;
  let correct = 0;
  let margins = 0;
  for (let i = 0; i < B; i++) {
    const rw = r.chosen[i]!;
    const rl = r.rejected[i]!;
    const z = rw - rl - (r.margin ? r.margin[i]! : 0);
    // d/dz -log s(z) = -s(-z).
    const dz = -sigmoid(-z) / B;
    const sum = rw + rl;
    loss += -logSigmoid(z) / B + (c * sum * sum) / B;
    dChosen[i] = dz + (2 * c * sum) / B;
    dRejected[i] = -dz + (2 * c * sum) / B;
    correct += rw > rl ? 1 : 0;
    margins += rw - rl;
  }
  return { loss, dChosen, dRejected, metrics: { 'train/loss': loss, 'train/accuracy': correct / B, 'train/margin': margins / B } };
}
