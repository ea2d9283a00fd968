// Proximal Policy Optimization (Schulman et al. 2017) with GAE, as CleanRL's ppo.py
// (discrete actions) and ppo_continuous_action.py (continuous): the same rollout, advantage
// estimate, clipped losses, minibatching and optimiser, so the same sample efficiency.
//
// Where the compute goes (measured; see bench/ppo.ts):
// - acting: the actor runs outside onnxruntime on the few rows of one vectorised step, in a
//   WebAssembly SIMD kernel (policies/dense.ts: ~2 us for 4 rows, where a session.run is ~15-25 us);
// - values: the critic runs once per rollout in onnxruntime, batched over every stored
//   observation (the observations do not change while the parameters do not), instead of once
//   per step as CleanRL does; the result is the same;
// - update: one onnxruntime run per minibatch gives the loss, every gradient and the metrics;
//   clipping and Adam then update the parameters in JS.
//
// Differences from CleanRL, each deliberate:
// - truncated episodes (time limits) bootstrap from the value of their final observation,
//   r += gamma * V(final_obs), as Stable-Baselines3 does; CleanRL treats them as terminal;
// - the loss metrics are averaged over all minibatches of the update (CleanRL logs the last).
import type { Algorithm } from './algorithm.js';
import type { Stepper } from './stepper.js';
import type { Policy } from '../policies/index.js';
import { Rng } from '../random.js';
import { isZeroThroughout, scheduleValue, type Schedulable } from '../schedule.js';
import { ParamReader } from './params.js';
import { explainedVariance, normalize } from './stats.js';
import { Adam, Graph, GradientParts, Session, type ExecutionProvider, type Feed, type GradientPart, type ParamSnapshot, type Tensor, type ThreadStats } from '../tensor/index.js';

// ---- settings: the plan's params, with CleanRL's defaults (the registry declares the same) ----

export const PPO_PARAMS = {
  learning_rate: { default: 2.5e-4, doc: 'Adam step size; a number or a schedule, evaluated once per update.' },
  rollout_steps: { default: 128, doc: 'Steps per env copy per rollout (CleanRL num_steps).' },
  epochs: { default: 4, doc: 'Passes over each rollout (update_epochs).' },
  minibatches: { default: 4, doc: 'Minibatches per epoch (num_minibatches).' },
  gamma: { default: 0.99, doc: 'Discount factor.' },
  gae_lambda: { default: 0.95, doc: 'Lambda of generalised advantage estimation.' },
  clip: { default: 0.2, doc: 'Clip range of the probability ratio, and of the value change (clip_coef); schedulable.' },
  clip_value: { default: true, doc: 'Clip the value loss as the policy loss (clip_vloss).' },
  entropy_coef: { default: 0.01, doc: 'Weight of the entropy bonus (ent_coef); schedulable.' },
  value_coef: { default: 0.5, doc: 'Weight of the value loss (vf_coef).' },
  max_grad_norm: { default: 0.5, doc: 'Global gradient norm limit.' },
  normalize_advantages: { default: true, doc: 'Normalise advantages within each minibatch (norm_adv).' },
  target_kl: { default: 'none', doc: 'Stop the epochs of an update once approx KL exceeds this; `none` never.' },
} as const;

/** Rows per minibatch: the rollout (steps x env copies) split into `minibatches`, at least 1 (CleanRL's minibatch_size). */
function minibatchRows(settings: Pick<PpoSettings, 'rollout_steps' | 'minibatches'>, numEnvs: number): number {
  return Math.max(1, Math.floor((settings.rollout_steps * numEnvs) / settings.minibatches));
}

/** The resolved params, named as the language names them (CleanRL's `args`). */
export interface PpoSettings {
  learning_rate: Schedulable;
  rollout_steps: number;
  epochs: number;
  minibatches: number;
  gamma: number;
  gae_lambda: number;
  clip: Schedulable;
  clip_value: boolean;
  entropy_coef: Schedulable;
  value_coef: number;
  max_grad_norm: number;
  normalize_advantages: boolean;
  target_kl: number | null;
}

/** Reads the plan's PPO params, defaults for missing ones; errors name the param. */
export function ppoSettings(params: Readonly<Record<string, unknown>>): PpoSettings {
  const p = new ParamReader('PPO', PPO_PARAMS, params);
  return {
    learning_rate: p.schedule('learning_rate'),
    rollout_steps: p.count('rollout_steps'),
    epochs: p.count('epochs'),
    minibatches: p.count('minibatches'),
    gamma: p.number('gamma'),
    gae_lambda: p.number('gae_lambda'),
    clip: p.schedule('clip'),
    clip_value: p.flag('clip_value'),
    entropy_coef: p.schedule('entropy_coef'),
    value_coef: p.number('value_coef'),
    max_grad_norm: p.number('max_grad_norm'),
    normalize_advantages: p.flag('normalize_advantages'),
    target_kl: p.numberOrNone('target_kl'),
  };
}

// ---- the maths that is easy to get wrong, exported for the tests ----

/**
 * Generalised advantage estimation over a rollout laid out [step][env]. `ended[t, i]` says the
 * episode ended at step t (terminated or truncated): nothing after it is this episode's, so the
 * recursion restarts there. Truncation bootstrapping is already in `rewards` (see rollout()).
 */
export function computeGae(
  rewards: ArrayLike<number>,
  values: ArrayLike<number>,
  ended: ArrayLike<number>,
  nextValues: ArrayLike<number>,
  numSteps: number,
  numEnvs: number,
  gamma: number,
  gaeLambda: number,
  advantages: Float32Array,
  returns: Float32Array,
): void {
  for (let i = 0; i < numEnvs; i++) {
    let lastGaeLam = 0;
    for (let t = numSteps - 1; t >= 0; t--) {
      const b = t * numEnvs + i;
      const nextNonTerminal = 1 - ended[b];
      const nextValue = t === numSteps - 1 ? nextValues[i] : values[b + numEnvs];
      const delta = rewards[b] + gamma * nextValue * nextNonTerminal - values[b];
      lastGaeLam = delta + gamma * gaeLambda * nextNonTerminal * lastGaeLam;
      advantages[b] = lastGaeLam;
      returns[b] = lastGaeLam + values[b];
    }
  }
}

/** The loss metrics, in the order the update reports them. */
export const LOSS_METRICS = ['policy_loss', 'value_loss', 'entropy', 'old_approx_kl', 'approx_kl', 'clipfrac'] as const;
export type LossMetric = (typeof LOSS_METRICS)[number];
/** The metrics of each term: computed with the term's part of the policy (actor or critic). */
const POLICY_METRICS: readonly LossMetric[] = ['policy_loss', 'entropy', 'old_approx_kl', 'approx_kl', 'clipfrac'];
const VALUE_METRICS: readonly LossMetric[] = ['value_loss'];

/**
 * The PPO loss graph, fed one minibatch at a time. It computes CleanRL's loss exactly,
 *   pg = mean(max(-A r, -A clip(r, 1 - c, 1 + c))),  v = 0.5 mean(max((V - R)^2, (V_clipped - R)^2)),
 *   loss = (pg - ent_coef * entropy) + value_coef * v,
 * as two terms, the policy term (actor parameters only) and the value term (critic only), so
 * that separate actor and critic networks get their gradients from two models that run at
 * once (tensor/gradient-parts.ts). Clipping is written with masks instead of max/clip of
 * tensors: the gradient of max(-A r, -A clip(r)) is that of -A r where the unclipped side is
 * the larger (A >= 0 and r <= 1 + c, or A < 0 and r >= 1 - c) and 0 elsewhere, and likewise
 * for the value; the masks are gradient-free comparisons, so the backward graph is about half
 * the ops of a literal max/clip. The surrogate's gradient with respect to log pi, and the
 * categorical distribution's with respect to the logits, are closed forms (Graph.withGradient):
 * the actor's gradient model is ~70 nodes instead of ~85, at ~1 us each per step. Means are
 * sums times `inv_n` (1 / rows), fed, so no run-time size ops are needed.
 */
export function buildPpoLoss(policy: Policy, settings: Pick<PpoSettings, 'clip_value' | 'value_coef' | 'entropy_coef'>) {
  const g = new Graph();
  const dist = policy.distribution;
  const obs = g.input('obs', 'float32', ['B', policy.spaces.obsDim]);
  const action = g.input('action', 'float32', ['B', dist.encodedWidth]);
  const oldLogProb = g.input('old_logprob', 'float32', ['B']);
  const mbAdvantages = g.input('advantages', 'float32', ['B']);
  const mbReturns = g.input('returns', 'float32', ['B']);
  const oldValues = g.input('old_values', 'float32', ['B']);
  const clipCoef = g.input('clip_coef', 'float32', []);
  const entCoef = g.input('ent_coef', 'float32', []);
  const invN = g.input('inv_n', 'float32', []);
  const mean = (x: Tensor) => g.mul(g.reduceSum(x), invN);

  const { actor, value: newValue } = policy.build(g, obs);
  const logProb = dist.logProb(g, actor, action);
  const logRatio = g.sub(logProb, oldLogProb);
  const ratio = g.exp(logRatio);
  const lo = g.sub(1, clipCoef);
  const hi = g.add(1, clipCoef);
  const positive = g.greaterOrEqual(mbAdvantages, 0);
  const unclipped = g.or(g.and(positive, g.lessOrEqual(ratio, hi)), g.and(g.not(positive), g.greaterOrEqual(ratio, lo)));
  const negAdvantages = g.neg(mbAdvantages);
  const pgRow = g.mul(negAdvantages, g.where(unclipped, ratio, g.where(positive, hi, lo)));
  // d pg / d log pi = -A r / n on the unclipped side, 0 elsewhere: 4 nodes, not the 7 derived.
  const policyLoss = g.withGradient(mean(pgRow), [logProb], (dy) => [g.where(unclipped, g.mul(g.mul(negAdvantages, ratio), g.mul(dy, invN)), 0)]);

  const vLossUnclipped = g.square(g.sub(newValue, mbReturns));
  let vRow = vLossUnclipped;
  if (settings.clip_value) {
    // The value may move at most clip_coef from the value it had when the rollout was taken.
    const change = g.stopGradient(g.sub(newValue, oldValues));
    const vLossClipped = g.square(g.sub(g.add(oldValues, g.clip(change, g.neg(clipCoef), clipCoef)), mbReturns));
    const useUnclipped = g.or(g.lessOrEqual(g.abs(change), clipCoef), g.greaterOrEqual(g.stopGradient(vLossUnclipped), vLossClipped));
    vRow = g.where(useUnclipped, vLossUnclipped, vLossClipped);
  }
  const entropy = dist.meanEntropy(g, actor, invN);
  const valueLoss = g.mul(mean(vRow), 0.5);
  // A bonus whose weight is 0 throughout adds exactly nothing: its gradient is left out.
  const policyTerm = isZeroThroughout(settings.entropy_coef) ? policyLoss : g.sub(policyLoss, g.mul(entCoef, entropy));
  const valueTerm = g.mul(valueLoss, settings.value_coef);
  const metrics: Record<LossMetric, Tensor> = {
    policy_loss: policyLoss,
    value_loss: valueLoss,
    entropy,
    old_approx_kl: mean(g.neg(logRatio)),
    approx_kl: mean(g.sub(g.sub(ratio, 1), logRatio)),
    clipfrac: mean(g.cast(g.greater(g.abs(g.sub(ratio, 1)), clipCoef), 'float32')),
  };
  return { graph: g, policyTerm, valueTerm, loss: g.add(policyTerm, valueTerm), metrics };
}

/** One minibatch's loss, the gradient of every parameter (store order) and the metrics (LOSS_METRICS order). */
export interface PpoStepResult {
  readonly loss: number;
  readonly grads: Float32Array[];
  readonly metrics: Float64Array;
}

/**
 * The gradient step's computation: the loss graph cut into parts (tensor/gradient-parts.ts),
 * the policy term and the value term when the actor and critic are separate networks (they
 * then run at once on two threads), the whole loss otherwise (a shared trunk). Each part
 * also outputs its term and its metrics, as one vector: an output costs ~3 us in
 * onnxruntime's bindings.
 */
export class PpoGradients {
  private readonly metrics = new Float64Array(LOSS_METRICS.length);

  private constructor(
    private readonly parts: GradientParts,
    /** Per part: its output name, and the LOSS_METRICS index of each value after the term. */
    private readonly layout: readonly { readonly output: string; readonly slots: readonly number[] }[],
  ) {}

  static async create(
    policy: Policy,
    settings: Pick<PpoSettings, 'clip_value' | 'value_coef' | 'entropy_coef'>,
    options: { readonly providers: readonly ExecutionProvider[]; readonly maxRows: number; readonly threads?: boolean },
  ): Promise<PpoGradients> {
    const built = buildPpoLoss(policy, settings);
    const g = built.graph;
    const networks = policy.separateNetworks();
    const terms = networks
      ? [
          { loss: built.policyTerm, params: networks.actor, metrics: POLICY_METRICS },
          { loss: built.valueTerm, params: networks.critic, metrics: VALUE_METRICS },
        ]
      : [{ loss: built.loss, params: policy.store.names, metrics: LOSS_METRICS }];
    const layout = terms.map((t, i) => ({ output: `part${i}`, slots: t.metrics.map((m) => LOSS_METRICS.indexOf(m)) }));
    const parts = terms.map((t, i): GradientPart => {
      const vector = g.concat([t.loss, ...t.metrics.map((m) => built.metrics[m])].map((x) => g.unsqueeze(x, [0])), 0);
      return { loss: t.loss, params: t.params, extras: { [layout[i]!.output]: vector } };
    });
    const gradients = await GradientParts.create(g, parts, {
      store: policy.store,
      providers: options.providers,
      threads: options.threads,
      dimLimits: { B: options.maxRows },
    });
    return new PpoGradients(gradients, layout);
  }

  /** Whether the parts run on two threads. */
  get threaded(): boolean {
    return this.parts.threaded;
  }

  /** How the second thread's part was computed (the bench prints it). */
  get threadStats(): ThreadStats {
    return this.parts.threadStats;
  }

  /** Readies a sleeping worker thread for the run() that follows a pause; see GradientParts.wake. */
  wake(): void {
    this.parts.wake();
  }

  /** The returned grads and metrics are valid until the next run. */
  async run(feeds: Readonly<Record<string, Feed>>): Promise<PpoStepResult> {
    const { grads, extras } = await this.parts.run(feeds);
    let loss = 0;
    for (const { output, slots } of this.layout) {
      const vector = extras[output]!;
      loss += vector[0]!;
      slots.forEach((slot, k) => (this.metrics[slot] = vector[k + 1]!));
    }
    return { loss, grads, metrics: this.metrics };
  }

  release(): Promise<void> {
    return this.parts.release();
  }
}

// ---- the learner ----

export interface PpoState {
  globalStep: number;
  iteration: number;
  actionRng: number[];
  shuffleRng: number[];
  params: ParamSnapshot;
  optimizer: { step: number; m: Float32Array[]; v: Float32Array[] };
}

export class Ppo implements Algorithm {
  readonly name = 'PPO';
  globalStep = 0;
  iteration = 0;
  private readonly batchSize: number;
  private readonly minibatchSize: number;
  private readonly optimizer: Adam;
  // Rollout storage, [step][env] flattened. Observations sit at the front of valueObs, which
  // also holds the next observations and truncated episodes' final ones for the value pass.
  private readonly valueObs: Float32Array;
  private readonly actions: Float32Array;
  private readonly logprobs: Float32Array;
  private readonly rewards: Float32Array;
  private readonly ended: Uint8Array;
  private readonly values: Float32Array;
  private readonly advantages: Float32Array;
  private readonly returns: Float32Array;
  private readonly bootIndex: Int32Array;
  private readonly head: Float32Array;
  private readonly envActions;
  private readonly mb: Record<'obs' | 'action' | 'old_logprob' | 'advantages' | 'returns' | 'old_values', Float32Array>;
  private readonly clipCoef = new Float32Array(1);
  private readonly entCoef = new Float32Array(1);
  private readonly invN = new Float32Array(1);
  private readonly order: Int32Array;

  private constructor(
    readonly settings: PpoSettings,
    readonly policy: Policy,
    readonly stepper: Stepper,
    readonly budget: number,
    private readonly gradients: PpoGradients,
    private readonly valueSession: Session,
    private readonly actionRng: Rng,
    private readonly shuffleRng: Rng,
  ) {
    const { rollout_steps: rolloutSteps } = settings;
    const { numEnvs, obsDim } = stepper;
    const width = policy.distribution.encodedWidth;
    this.batchSize = rolloutSteps * numEnvs;
    this.minibatchSize = minibatchRows(settings, numEnvs);
    this.optimizer = new Adam(policy.store, { lr: scheduleValue(settings.learning_rate, 0, budget), eps: 1e-5 });
    this.valueObs = new Float32Array((2 * this.batchSize + numEnvs) * obsDim);
    this.actions = new Float32Array(this.batchSize * width);
    this.logprobs = new Float32Array(this.batchSize);
    this.rewards = new Float32Array(this.batchSize);
    this.ended = new Uint8Array(this.batchSize);
    this.values = new Float32Array(this.batchSize);
    this.advantages = new Float32Array(this.batchSize);
    this.returns = new Float32Array(this.batchSize);
    this.bootIndex = new Int32Array(this.batchSize);
    this.head = new Float32Array(numEnvs * policy.distribution.headWidth);
    this.envActions = stepper.vec.createActionBuffer();
    const m = this.minibatchSize;
    this.mb = {
      obs: new Float32Array(m * obsDim),
      action: new Float32Array(m * width),
      old_logprob: new Float32Array(m),
      advantages: new Float32Array(m),
      returns: new Float32Array(m),
      old_values: new Float32Array(m),
    };
    this.order = Int32Array.from({ length: this.batchSize }, (_, b) => b);
  }

  static async create(options: {
    settings: PpoSettings;
    policy: Policy;
    stepper: Stepper;
    budget: number;
    rng: Rng;
    providers: readonly ExecutionProvider[];
    threads?: boolean;
  }): Promise<Ppo> {
    const { settings, policy, providers } = options;
    // Built while the gradient parts' worker starts (it compiles its model on its own thread).
    const maxRows = minibatchRows(settings, options.stepper.numEnvs);
    const gradients = PpoGradients.create(policy, settings, { providers, maxRows, threads: options.threads });
    const valueGraph = new Graph();
    const valueOut = policy.build(valueGraph, valueGraph.input('obs', 'float32', ['B', policy.spaces.obsDim])).value;
    const valueSession = await Session.create(valueGraph, { value: valueOut }, { params: policy.store, providers });
    return new Ppo(settings, policy, options.stepper, options.budget, await gradients, valueSession, options.rng.fork('actions'), options.rng.fork('minibatches'));
  }

  /** Updates until the budget is spent (CleanRL's num_iterations = total_timesteps // batch_size, at least 1). */
  get iterations(): number {
    return Math.max(1, Math.floor(this.budget / this.batchSize));
  }

  get done(): boolean {
    return this.iteration >= this.iterations;
  }

  /** The resolved hyperparameters, logged once at the start of a run. */
  hparams(): Record<string, unknown> {
    const s = this.settings;
    return { ...s, target_kl: s.target_kl ?? 'none', batch_size: this.batchSize, minibatch_size: this.minibatchSize, iterations: this.iterations, adam_eps: 1e-5 };
  }

  /** One rollout and one update; returns the update's metrics. */
  async iterate(): Promise<Record<string, number>> {
    const s = this.settings;
    // Schedules are read once per update, at the step the update starts from (CleanRL's lr annealing).
    const lr = scheduleValue(s.learning_rate, this.globalStep, this.budget);
    this.clipCoef[0] = scheduleValue(s.clip, this.globalStep, this.budget);
    this.entCoef[0] = scheduleValue(s.entropy_coef, this.globalStep, this.budget);
    const bootCount = this.rollout();
    await this.estimateAdvantages(bootCount);
    const losses = await this.update(lr);
    this.iteration++;
    return {
      'charts/learning_rate': lr,
      'charts/clip': this.clipCoef[0],
      'charts/entropy_coef': this.entCoef[0],
      ...losses,
      'losses/explained_variance': explainedVariance(this.values, this.returns),
    };
  }

  /** Collects rollout_steps steps of every env copy; returns how many truncations need a bootstrap value. */
  private rollout(): number {
    const { stepper, policy, envActions, head, valueObs } = this;
    const { numEnvs, obsDim } = stepper;
    const dist = policy.distribution;
    const { headWidth, envWidth, encodedWidth } = dist;
    const vec = stepper.vec;
    let bootCount = 0;
    for (let t = 0; t < this.settings.rollout_steps; t++) {
      const obs = stepper.obs;
      valueObs.set(obs, t * numEnvs * obsDim);
      policy.actorForward(obs, numEnvs, head);
      for (let i = 0; i < numEnvs; i++) {
        const b = t * numEnvs + i;
        this.logprobs[b] = dist.sample(head, i * headWidth, this.actionRng, envActions, i * envWidth, this.actions, b * encodedWidth);
      }
      stepper.step(envActions);
      this.globalStep += numEnvs;
      for (let i = 0; i < numEnvs; i++) {
        const b = t * numEnvs + i;
        this.rewards[b] = stepper.rewards[i];
        const truncatedOnly = vec.truncated[i] === 1 && vec.terminated[i] === 0;
        this.ended[b] = vec.terminated[i] | vec.truncated[i];
        if (truncatedOnly) {
          // Keep the final observation; its value is added to this reward after the value pass.
          const row = (this.batchSize + numEnvs + bootCount) * obsDim;
          valueObs.set(vec.finalObs.subarray(i * obsDim, (i + 1) * obsDim), row);
          this.bootIndex[bootCount++] = b;
        }
      }
    }
    return bootCount;
  }

  /** One batched value pass over the rollout, the next observations and final observations; then GAE. */
  private async estimateAdvantages(bootCount: number): Promise<void> {
    const { batchSize, stepper, settings: s } = this;
    const { numEnvs, obsDim } = stepper;
    // The worker thread slept through the rollout; it wakes while this thread runs the value pass.
    this.gradients.wake();
    this.valueObs.set(stepper.obs, batchSize * obsDim);
    const rows = batchSize + numEnvs + bootCount;
    const { value } = await this.valueSession.run({ obs: { data: this.valueObs.subarray(0, rows * obsDim), dims: [rows, obsDim] } });
    this.values.set(value.subarray(0, batchSize));
    for (let k = 0; k < bootCount; k++) this.rewards[this.bootIndex[k]] += s.gamma * value[batchSize + numEnvs + k];
    const nextValues = value.subarray(batchSize, batchSize + numEnvs);
    computeGae(this.rewards, this.values, this.ended, nextValues, s.rollout_steps, numEnvs, s.gamma, s.gae_lambda, this.advantages, this.returns);
  }

  /** epochs x minibatches gradient steps on the rollout; returns the mean loss metrics. */
  private async update(lr: number): Promise<Record<string, number>> {
    const { batchSize, minibatchSize, settings: s, mb, order } = this;
    const obsDim = this.stepper.obsDim;
    const width = this.policy.distribution.encodedWidth;
    const sums = new Float64Array(LOSS_METRICS.length);
    const approxKlIndex = LOSS_METRICS.indexOf('approx_kl');
    let steps = 0;
    let gradNorm = 0;
    for (let epoch = 0; epoch < s.epochs; epoch++) {
      this.shuffleRng.shuffle(order);
      let approxKl = 0;
      for (let start = 0; start < batchSize; start += minibatchSize) {
        const n = Math.min(minibatchSize, batchSize - start);
        const { valueObs, actions } = this;
        for (let j = 0; j < n; j++) {
          const b = order[start + j];
          // Element loops, not subarray(): a view per row would be garbage at this rate.
          for (let k = 0; k < obsDim; k++) mb.obs[j * obsDim + k] = valueObs[b * obsDim + k];
          for (let k = 0; k < width; k++) mb.action[j * width + k] = actions[b * width + k];
          mb.old_logprob[j] = this.logprobs[b];
          mb.advantages[j] = this.advantages[b];
          mb.returns[j] = this.returns[b];
          mb.old_values[j] = this.values[b];
        }
        if (s.normalize_advantages) normalize(mb.advantages, n);
        this.invN[0] = 1 / n;
        const rows = (a: Float32Array, w: number) => ({ data: a.subarray(0, n * w), dims: [n, w] });
        const column = (a: Float32Array) => ({ data: a.subarray(0, n), dims: [n] });
        const out = await this.gradients.run({
          obs: rows(mb.obs, obsDim),
          action: rows(mb.action, width),
          old_logprob: column(mb.old_logprob),
          advantages: column(mb.advantages),
          returns: column(mb.returns),
          old_values: column(mb.old_values),
          clip_coef: this.clipCoef,
          ent_coef: this.entCoef,
          inv_n: this.invN,
        });
        // Clipping to max_grad_norm happens inside Adam's kernel (one pass over the gradients).
        gradNorm += this.optimizer.step(out.grads, lr, { maxGradNorm: s.max_grad_norm });
        for (let k = 0; k < sums.length; k++) sums[k] += out.metrics[k];
        approxKl = out.metrics[approxKlIndex];
        steps++;
      }
      if (s.target_kl !== null && approxKl > s.target_kl) break;
    }
    this.policy.sync();
    const metrics: Record<string, number> = { 'losses/grad_norm': gradNorm / steps, 'losses/gradient_steps': steps };
    LOSS_METRICS.forEach((name, k) => (metrics[`losses/${name}`] = sums[k] / steps));
    return metrics;
  }

  state(): PpoState {
    const adam = this.optimizer.state();
    return {
      globalStep: this.globalStep,
      iteration: this.iteration,
      actionRng: this.actionRng.getState(),
      shuffleRng: this.shuffleRng.getState(),
      params: this.policy.store.snapshot(),
      optimizer: { step: adam.step, m: [...adam.m], v: [...adam.v] },
    };
  }

  loadState(saved: unknown): void {
    const state = saved as PpoState;
    this.globalStep = state.globalStep;
    this.iteration = state.iteration;
    this.actionRng.setState(state.actionRng);
    this.shuffleRng.setState(state.shuffleRng);
    this.policy.store.load(state.params);
    this.optimizer.load(state.optimizer);
    this.policy.sync();
  }

  async release(): Promise<void> {
    await this.gradients.release();
    await this.valueSession.release();
  }
}
