// Action distributions, twice: as graph ops for the training loss (log-probabilities and
// entropy, differentiable) and as plain JS for acting (sampling, most likely action).
// Categorical for discrete action spaces (CleanRL ppo.py), a diagonal Gaussian with a
// state-independent log-std parameter for boxes (CleanRL ppo_continuous_action.py), and
// independent Bernoullis, one per bit, for MultiBinary spaces (Stable-Baselines3's
// BernoulliDistribution).
import type { Rng } from '../../shared/random.js';
import type { Graph, Tensor } from '../tensor/index.js';
import * as nn from '../tensor/nn.js';

/** Index of the largest of xs[from .. from + n) (the first on ties, as torch.argmax). */
export function argmax(xs: ArrayLike<number>, from: number, n: number): number {
  let best = 0;
  for (let k = 1; k < n; k++) if (xs[from + k] > xs[from + best]) best = k;
  return best;
}


/** What the actor's graph produces: logits, or a mean plus the log-std parameter. */
export interface ActorOutput {
  readonly head: Tensor;
  readonly logStd?: Tensor;
}

/** A flat buffer of env actions: integers for discrete spaces and bits, floats for boxes. */
export type ActionBuffer = Int32Array | Float32Array;

export interface ActionDistribution {
  readonly kind: 'discrete' | 'continuous' | 'multibinary';
  /** Numbers the actor outputs per row (logits, or the mean). */
  readonly headWidth: number;
  /** Numbers per action in the env's action buffer: 1 for discrete, the dimension for boxes, n for n bits. */
  readonly envWidth: number;
  /** Numbers per action fed to the training graph: a one-hot row for discrete, the raw action for boxes and bits. */
  readonly encodedWidth: number;
  /** log pi(a|s) per row, [B], of `action` rows as encoded. */
  logProb(g: Graph, out: ActorOutput, action: Tensor): Tensor;
  /** The entropy averaged over the rows (`invN` is 1 / rows, fed), a scalar. */
  meanEntropy(g: Graph, out: ActorOutput, invN: Tensor): Tensor;
  /**
   * Draws an action for the row of `head` at `headOff`, writes it for the env and encoded
   * for training, and returns its log-probability.
   */
  sample(head: Float32Array, headOff: number, rng: Rng, env: ActionBuffer, envOff: number, encoded: Float32Array, encOff: number): number;
  /** The most likely action (deterministic evaluation). */
  mode(head: Float32Array, headOff: number, env: ActionBuffer, envOff: number): void;
}

/**
 * What an illegal action's logit becomes in the training graph (sb3-contrib's MaskableCategorical
 * uses -1e8): finite, so that p log p is 0 * (-1e8) = 0 rather than 0 * -Infinity = NaN, and so
 * low that exp() of it is exactly 0 in float32 beside any logit a network produces.
 */
export const MASKED_LOGIT = -1e8;

/**
 * The logits of the masked distribution: `mask` [B, A] is 1 for a legal action and 0 for an
 * illegal one (float32, fed); illegal logits become MASKED_LOGIT, with no gradient to them.
 */
export function maskLogits(g: Graph, logits: Tensor, mask: Tensor): Tensor {
  return g.where(g.greater(mask, 0.5), logits, MASKED_LOGIT);
}

/** log-softmax and softmax of logits [..., A], built once per logits tensor and shared. */
function softmaxOf(logits: Tensor): { readonly logp: Tensor; readonly p: Tensor } {
  const g = logits.graph;
  return g.memo(`softmax:#${logits.id}`, () => {
    const logp = g.logSoftmax(logits);
    return { logp, p: g.exp(logp) };
  });
}

/**
 * A categorical over logits, for discrete actions. Under an action mask (../envs/action-mask.ts)
 * acting sees the illegal actions' logits as -Infinity and the training graph as MASKED_LOGIT
 * (maskLogits below): both are the masked distribution, whose illegal actions have probability 0.
 */
export class Categorical implements ActionDistribution {
  readonly kind = 'discrete';
  readonly envWidth = 1;

  constructor(readonly headWidth: number) {}

  get encodedWidth(): number {
    return this.headWidth;
  }

  /**
   * `oneHot` rows must be one-hot (as sample() encodes them). A one-hot product instead of a
   * gather: the actions stay float32, no int64 feeds. The gradient is the closed form
   * d log pi(a) / d logits = onehot(a) - softmax(logits): 3 nodes in the training graph
   * instead of the 7 derived from log-softmax, product and sum.
   */
  logProb(g: Graph, out: ActorOutput, oneHot: Tensor): Tensor {
    const { logp, p } = softmaxOf(out.head);
    const y = g.reduceSum(g.mul(logp, oneHot), { axes: [-1] });
    return g.withGradient(y, [out.head], (dy) => [g.mul(g.unsqueeze(dy, [dy.rank]), g.sub(oneHot, p))]);
  }

  /**
   * With the closed form d H / d logits_k = -p_k (log p_k + H) for each row's entropy H:
   * 6 nodes instead of ~14 derived ones.
   */
  meanEntropy(g: Graph, out: ActorOutput, invN: Tensor): Tensor {
    const { logp, p } = softmaxOf(out.head);
    const rows = g.neg(g.reduceSum(g.mul(p, logp), { axes: [-1] }));
    const y = g.mul(g.reduceSum(rows), invN);
    return g.withGradient(y, [out.head], (dy) => [g.mul(g.mul(p, g.add(logp, g.unsqueeze(rows, [rows.rank]))), g.neg(g.mul(dy, invN)))]);
  }

  sample(head: Float32Array, headOff: number, rng: Rng, env: ActionBuffer, envOff: number, encoded: Float32Array, encOff: number): number {
    const n = this.headWidth;
    let max = -Infinity;
    for (let k = 0; k < n; k++) if (head[headOff + k] > max) max = head[headOff + k];
    let total = 0;
    for (let k = 0; k < n; k++) total += Math.exp(head[headOff + k] - max);
    // Inverse CDF on one uniform draw; the last possible action takes any rounding leftover
    // (a masked action's logit is -Infinity, so its probability is exactly 0: never drawn).
    let u = rng.uniform() * total;
    let action = -1;
    let lastPossible = 0;
    for (let k = 0; k < n; k++) {
      const p = Math.exp(head[headOff + k] - max);
      if (p === 0) continue;
      lastPossible = k;
      u -= p;
      if (u < 0) {
        action = k;
        break;
      }
    }
    if (action < 0) action = lastPossible;
    env[envOff] = action;
    for (let k = 0; k < n; k++) encoded[encOff + k] = k === action ? 1 : 0;
    return head[headOff + action] - max - Math.log(total);
  }

  mode(head: Float32Array, headOff: number, env: ActionBuffer, envOff: number): void {
    let best = 0;
    for (let k = 1; k < this.headWidth; k++) if (head[headOff + k] > head[headOff + best]) best = k;
    env[envOff] = best;
  }
}

const HALF_LOG_2PI = 0.5 * Math.log(2 * Math.PI);

export class DiagGaussian implements ActionDistribution {
  readonly kind = 'continuous';

  /**
   * `logStd` is the live parameter array (read at every sample, so updates show at once);
   * actions sent to the env are clipped to [low, high] (Gymnasium's ClipAction, as CleanRL
   * wraps its envs), while training sees the action as sampled.
   */
  constructor(
    readonly headWidth: number,
    private readonly logStd: Float32Array,
    private readonly low: readonly number[],
    private readonly high: readonly number[],
  ) {}

  get envWidth(): number {
    return this.headWidth;
  }

  get encodedWidth(): number {
    return this.headWidth;
  }

  logProb(g: Graph, out: ActorOutput, action: Tensor): Tensor {
    return nn.gaussianLogProb(action, out.head, this.requireLogStd(out));
  }

  meanEntropy(_g: Graph, out: ActorOutput, _invN: Tensor): Tensor {
    // The std does not depend on the state, so every row has the same entropy.
    return nn.gaussianEntropy(this.requireLogStd(out));
  }

  sample(head: Float32Array, headOff: number, rng: Rng, env: ActionBuffer, envOff: number, encoded: Float32Array, encOff: number): number {
    let logProb = 0;
    for (let k = 0; k < this.headWidth; k++) {
      const logStd = this.logStd[k];
      const z = rng.normal();
      const action = Math.fround(head[headOff + k] + Math.exp(logStd) * z);
      encoded[encOff + k] = action;
      env[envOff + k] = Math.min(Math.max(action, this.low[k]), this.high[k]);
      logProb += -0.5 * z * z - logStd - HALF_LOG_2PI;
    }
    return logProb;
  }

  mode(head: Float32Array, headOff: number, env: ActionBuffer, envOff: number): void {
    for (let k = 0; k < this.headWidth; k++) env[envOff + k] = Math.min(Math.max(head[headOff + k], this.low[k]), this.high[k]);
  }

  private requireLogStd(out: ActorOutput): Tensor {
    if (!out.logStd) throw new Error('DiagGaussian: the actor output has no log-std');
    return out.logStd;
  }
}

/** log(1 + e^x), without overflow for large |x|. */
function softplus(x: number): number {
  return Math.max(x, 0) + Math.log1p(Math.exp(-Math.abs(x)));
}

/**
 * n independent bits, bit k on with probability sigmoid(logit_k): a MultiBinary action space.
 * With l a logit and a its bit, log p(a) = a l - softplus(l) (log sigmoid(l) = l - softplus(l),
 * log(1 - sigmoid(l)) = -softplus(l)); a row's log-probability and entropy are sums over its bits.
 */
export class Bernoulli implements ActionDistribution {
  readonly kind = 'multibinary';

  constructor(readonly headWidth: number) {}

  get envWidth(): number {
    return this.headWidth;
  }

  get encodedWidth(): number {
    return this.headWidth;
  }

  /**
   * `bits` rows of 0/1. The gradient is the closed form d log pi / d l_k = a_k - sigmoid(l_k),
   * as Categorical's: 3 nodes instead of those derived from the product, softplus and sum.
   */
  logProb(g: Graph, out: ActorOutput, bits: Tensor): Tensor {
    const logits = out.head;
    const y = g.reduceSum(g.sub(g.mul(bits, logits), g.softplus(logits)), { axes: [-1] });
    return g.withGradient(y, [logits], (dy) => [g.mul(g.unsqueeze(dy, [dy.rank]), g.sub(bits, g.sigmoid(logits)))]);
  }

  /**
   * A bit's entropy is H = softplus(l) - l sigmoid(l), with d H / d l = -l p (1 - p) for
   * p = sigmoid(l); the mean over rows of the sum over bits.
   */
  meanEntropy(g: Graph, out: ActorOutput, invN: Tensor): Tensor {
    const logits = out.head;
    const p = g.sigmoid(logits);
    const y = g.mul(g.reduceSum(g.sub(g.softplus(logits), g.mul(logits, p))), invN);
    return g.withGradient(y, [logits], (dy) => [g.mul(g.mul(logits, g.mul(p, g.sub(1, p))), g.neg(g.mul(dy, invN)))]);
  }

  sample(head: Float32Array, headOff: number, rng: Rng, env: ActionBuffer, envOff: number, encoded: Float32Array, encOff: number): number {
    let logProb = 0;
    for (let k = 0; k < this.headWidth; k++) {
      const logit = head[headOff + k];
      const bit = rng.uniform() < 1 / (1 + Math.exp(-logit)) ? 1 : 0;
      env[envOff + k] = bit;
      encoded[encOff + k] = bit;
      logProb += bit * logit - softplus(logit);
    }
    return logProb;
  }

  mode(head: Float32Array, headOff: number, env: ActionBuffer, envOff: number): void {
    for (let k = 0; k < this.headWidth; k++) env[envOff + k] = head[headOff + k] > 0 ? 1 : 0;
  }
}
