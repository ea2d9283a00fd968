// Proximal Policy Optimization (Schulman et al. 2017) with GAE, as CleanRL's ppo.py
// (discrete actions) and ppo_continuous_action.py (continuous): the same rollout, advantage
// estimate, clipped losses, minibatching and optimiser, so the same sample efficiency.
// Settings in settings.ts, GAE in gae.ts, the loss in loss.ts; the learner here, in
// CleanRL's order: rollout, advantages, update.
//
// Where the compute goes (measured; see bench/ppo.ts):
// - acting: the actor runs outside onnxruntime on the few rows of one vectorised step
//   (ActorCriticPolicy.actorForward: a WebAssembly SIMD kernel, ~2 us for 4 rows, where a
//   session.run is ~15-25 us);
// - values: the critic runs once per rollout in onnxruntime, batched over every stored
//   observation (they do not change while the weights do not), instead of once per step as
//   CleanRL does; the result is the same;
// - update: one gradient step per minibatch gives the loss, every gradient and the metrics
//   (tensor/gradient-step.ts); clipping and Adam then update the weights in JS, checked for
//   divergence (../checked-step.ts).
//
// Differences from CleanRL, each deliberate:
// - truncated episodes (time limits) bootstrap from the value of their final observation,
//   r += gamma * V(final_obs), as Stable-Baselines3 does; CleanRL treats them as terminal;
// - the loss metrics are averaged over all minibatches of the update (CleanRL logs the last).
import { ACTOR_CRITIC, type ActorCriticPolicy } from '../../policies/index.js';
import type { Rng } from '../../../shared/random.js';
import { scheduleValue } from '../../schedule.js';
import { Adam, type AdamState, Graph, Session, type Compute, type GradientStep, type WeightSnapshot } from '../../tensor/index.js';
import type { Algorithm, AlgorithmContext, AlgorithmDefinition } from '../algorithm.js';
import { explainedVariance, normalize } from '../stats.js';
import { CheckedStep } from '../checked-step.js';
import { learnerState, part, type LearnerState } from '../learner-state.js';
import type { Stepper } from '../stepper.js';
import { computeGae } from './gae.js';
import { maskValues } from '../../envs/action-mask.js';
import { learnerMasks } from '../action-masking.js';
import { buildPpoLoss, LOSS_METRICS, ppoGradientStep } from './loss.js';
import { minibatchRows, ppoSettings, type PpoSettings } from './settings.js';
import { RecurrentPpo } from './recurrent.js';
import type { PpoState } from './state.js';

export const PPO: AlgorithmDefinition<PpoSettings> = {
  name: 'PPO',
  actions: ['discrete', 'continuous', 'multibinary'],
  params: ppoSettings,
  // A policy with a recurrent core trains over sequences, with its memory carried (recurrent.ts).
  create: (context, settings) => (context.policy.core ? RecurrentPpo.create(context, settings) : Ppo.create(context, settings)),
};

/** CleanRL's Adam epsilon for PPO (its optimizer is `optim.Adam(..., eps=1e-5)`). */
export const PPO_ADAM_EPS = 1e-5;

export type { PpoState } from './state.js';

type MinibatchColumn = 'obs' | 'action' | 'old_logprob' | 'advantages' | 'returns' | 'old_values' | 'action_mask';

export class Ppo implements Algorithm {
  readonly name = 'PPO';
  globalStep = 0;
  iteration = 0;
  private readonly batchSize: number;
  private readonly minibatchSize: number;
  private readonly optimizer: Adam;
  /** The gradient step, clipping and Adam, checked: a loss or gradient that is not finite stops the run. */
  private readonly checked: CheckedStep;
  /** Where the update is, for the error when it diverges. */
  private readonly position = { epoch: 0, step: 0 };
  // Rollout storage, [step][env] flattened. Observations sit at the front of valueObs, which
  // also holds the next observations and truncated episodes' final ones for the value pass.
  private readonly valueObs: Float32Array;
  private readonly actions: Float32Array;
  /** Under action masks: each rollout row's mask (1 legal, 0 not), which the update's distribution is masked with. */
  private readonly masks: Float32Array;
  private readonly logprobs: Float32Array;
  private readonly rewards: Float32Array;
  private readonly ended: Uint8Array;
  private readonly values: Float32Array;
  private readonly advantages: Float32Array;
  private readonly returns: Float32Array;
  private readonly bootIndex: Int32Array;
  private readonly head: Float32Array;
  private readonly envActions;
  private readonly mb: Record<MinibatchColumn, Float32Array>;
  private readonly clipCoef = new Float32Array(1);
  private readonly entCoef = new Float32Array(1);
  private readonly invN = new Float32Array(1);
  private readonly order: Int32Array;
  /** Where each of LOSS_METRICS sits in the gradient step's metrics. */
  private readonly metricSlots: readonly number[];
  /** What a checkpoint keeps (learner-state.ts). */
  private readonly saved: LearnerState<PpoState>;

  private constructor(
    readonly settings: PpoSettings,
    readonly policy: ActorCriticPolicy,
    readonly stepper: Stepper,
    readonly budget: number,
    private readonly gradients: GradientStep,
    private readonly valueSession: Session,
    private readonly actionRng: Rng,
    private readonly shuffleRng: Rng,
    /** The env's action masks the policy acts under (action-masking.ts); null: unmasked. */
    private readonly envMasks: Uint8Array | null,
  ) {
    const { numEnvs, obsDim } = stepper;
    const width = policy.distribution.encodedWidth;
    this.batchSize = settings.rollout_steps * numEnvs;
    this.minibatchSize = minibatchRows(settings, numEnvs);
    this.optimizer = new Adam(policy.weights, { eps: PPO_ADAM_EPS });
    const at = this.position;
    this.checked = new CheckedStep(gradients, {
      learner: 'PPO',
      at: () => `update ${this.iteration + 1}, epoch ${at.epoch + 1}, gradient step ${at.step + 1} of this update`,
      advice: 'try a smaller learning_rate or max_grad_norm',
      weights: policy.weights,
      optimizer: this.optimizer,
      maxGradNorm: settings.max_grad_norm,
    });
    this.valueObs = new Float32Array((2 * this.batchSize + numEnvs) * obsDim);
    this.actions = new Float32Array(this.batchSize * width);
    this.masks = new Float32Array(envMasks !== null ? this.batchSize * width : 0);
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
    const column = (w: number) => new Float32Array(m * w);
    this.mb = { obs: column(obsDim), action: column(width), old_logprob: column(1), advantages: column(1), returns: column(1), old_values: column(1), action_mask: column(envMasks !== null ? width : 0) };
    this.order = Int32Array.from({ length: this.batchSize }, (_, b) => b);
    this.saved = learnerState<PpoState>('PPO', {
      globalStep: part.counter(this, 'globalStep'),
      iteration: part.counter(this, 'iteration'),
      actionRng: part.rng(actionRng),
      shuffleRng: part.rng(shuffleRng),
      // Checkpoints written before the rename call the weights `params`.
      weights: part.formerly('params', part.weights(policy.weights)),
      optimizer: part.adam(this.optimizer),
    });
    this.metricSlots = LOSS_METRICS.map((name) => gradients.metricNames.indexOf(name));
  }

  static async create(context: AlgorithmContext, settings: PpoSettings): Promise<Ppo> {
    const { stepper, compute } = context;
    const policy = context.policy.networks(ACTOR_CRITIC, 'PPO');
    const masks = learnerMasks(settings.action_mask, stepper.vec, 'PPO');
    // Compiled while the gradient step's worker starts (it compiles its model on its own thread).
    const gradients = ppoGradientStep(buildPpoLoss(policy, settings, { masked: masks !== null }), policy, { compute, maxRows: minibatchRows(settings, stepper.numEnvs) });
    const valueSession = await valueModel(policy, compute);
    const rng = context.rng;
    return new Ppo(settings, policy, stepper, context.budget, await gradients, valueSession, rng.fork('actions'), rng.fork('minibatches'), masks);
  }

  /** Updates until the budget is spent (CleanRL's num_iterations = total_timesteps // batch_size, at least 1). */
  get iterations(): number {
    return Math.max(1, Math.floor(this.budget / this.batchSize));
  }

  get done(): boolean {
    return this.iteration >= this.iterations;
  }

  /** Evaluation and recorded rollouts act under the env's masks too (trainer). */
  get masksActions(): boolean {
    return this.envMasks !== null;
  }

  hparams(): Record<string, unknown> {
    const s = this.settings;
    return { ...s, target_kl: s.target_kl ?? 'none', batch_size: this.batchSize, minibatch_size: this.minibatchSize, iterations: this.iterations, adam_eps: PPO_ADAM_EPS };
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
      const masks = this.envMasks;
      if (masks !== null) {
        maskValues(head, numEnvs, headWidth, masks);
        const at = t * numEnvs * headWidth;
        for (let j = 0; j < numEnvs * headWidth; j++) this.masks[at + j] = masks[j];
      }
      for (let i = 0; i < numEnvs; i++) {
        const b = t * numEnvs + i;
        this.logprobs[b] = dist.sample(head, i * headWidth, this.actionRng, envActions, i * envWidth, this.actions, b * encodedWidth);
      }
      stepper.step(envActions);
      this.globalStep += numEnvs;
      for (let i = 0; i < numEnvs; i++) {
        const b = t * numEnvs + i;
        this.rewards[b] = stepper.rewards[i];
        this.ended[b] = vec.terminated[i] | vec.truncated[i];
        if (vec.truncated[i] === 1 && vec.terminated[i] === 0) {
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
    const { batchSize, minibatchSize, settings: s, mb, order, metricSlots } = this;
    const obsDim = this.stepper.obsDim;
    const width = this.policy.distribution.encodedWidth;
    const sums = new Float64Array(LOSS_METRICS.length);
    const approxKlSlot = metricSlots[LOSS_METRICS.indexOf('approx_kl')];
    const at = this.position;
    let steps = 0;
    let gradNorm = 0;
    for (let epoch = 0; epoch < s.epochs; epoch++) {
      at.epoch = epoch;
      this.shuffleRng.shuffle(order);
      let approxKl = 0;
      for (let start = 0; start < batchSize; start += minibatchSize) {
        const n = Math.min(minibatchSize, batchSize - start);
        this.gatherMinibatch(start, n);
        if (s.normalize_advantages) normalize(mb.advantages, n);
        this.invN[0] = 1 / n;
        const rows = (a: Float32Array, w: number) => ({ data: a.subarray(0, n * w), dims: [n, w] });
        const column = (a: Float32Array) => ({ data: a.subarray(0, n), dims: [n] });
        at.step = steps;
        // Clipping to max_grad_norm happens inside Adam's kernel (one pass over the gradients).
        const out = await this.checked.step({
          obs: rows(mb.obs, obsDim),
          action: rows(mb.action, width),
          old_logprob: column(mb.old_logprob),
          advantages: column(mb.advantages),
          returns: column(mb.returns),
          old_values: column(mb.old_values),
          ...(this.envMasks !== null ? { action_mask: rows(mb.action_mask, width) } : {}),
          clip_coef: this.clipCoef,
          ent_coef: this.entCoef,
          inv_n: this.invN,
        }, lr);
        for (let k = 0; k < sums.length; k++) sums[k] += out.metrics[metricSlots[k]];
        gradNorm += out.gradNorm;
        approxKl = out.metrics[approxKlSlot];
        steps++;
      }
      if (s.target_kl !== null && approxKl > s.target_kl) break;
    }
    this.checked.checkWeights();
    this.policy.sync();
    const metrics: Record<string, number> = { 'losses/grad_norm': gradNorm / steps, 'losses/gradient_steps': steps };
    LOSS_METRICS.forEach((name, k) => (metrics[`losses/${name}`] = sums[k] / steps));
    return metrics;
  }

  /** Copies the rollout rows order[start .. start + n) into the minibatch columns. */
  private gatherMinibatch(start: number, n: number): void {
    const { mb, order, valueObs, actions } = this;
    const obsDim = this.stepper.obsDim;
    const width = this.policy.distribution.encodedWidth;
    for (let j = 0; j < n; j++) {
      const b = order[start + j];
      // Element loops, not subarray(): a view per row would be garbage at this rate.
      for (let k = 0; k < obsDim; k++) mb.obs[j * obsDim + k] = valueObs[b * obsDim + k];
      for (let k = 0; k < width; k++) mb.action[j * width + k] = actions[b * width + k];
      mb.old_logprob[j] = this.logprobs[b];
      mb.advantages[j] = this.advantages[b];
      mb.returns[j] = this.returns[b];
      mb.old_values[j] = this.values[b];
      if (this.envMasks !== null) for (let k = 0; k < width; k++) mb.action_mask[j * width + k] = this.masks[b * width + k];
    }
  }

  state(): PpoState {
    return this.saved.save();
  }

  loadState(saved: unknown): void {
    this.saved.load(saved);
    this.policy.sync();
  }

  async release(): Promise<void> {
    await this.gradients.release();
    await this.valueSession.release();
  }
}

/** The critic alone, for the batched value pass. */
async function valueModel(policy: ActorCriticPolicy, compute: Compute): Promise<Session> {
  const g = new Graph();
  const { value } = policy.build(g, g.input('obs', 'float32', ['B', policy.spaces.obsDim]));
  return Session.create(g, { value }, { weights: policy.weights, providers: compute.providers });
}
