// Deep Q-Network (Mnih et al. 2015), as CleanRL's dqn.py: epsilon-greedy collection into a
// replay buffer, and after `learning_starts` steps, every `train_every` steps, gradient steps
// on the TD loss of uniformly sampled batches (loss.ts) against a target network that follows
// the online one every `target_update` steps (a copy, or Polyak averaging with tau < 1).
// Options from SB3's DQN: `gradient_steps` per update, the Huber loss, max_grad_norm; Double
// DQN (`double`); hindsight relabeling (`relabel`, ../replay/her.ts) on goal-conditioned envs.
//
// Differences from CleanRL, each deliberate:
// - truncated episodes (time limits) bootstrap from their real final observation (dones are
//   terminations only), as SB3's handle_timeout_termination and CleanRL's real_next_obs;
// - actions are uniformly random before learning_starts (epsilon 1), as SB3's DQN and rlx's
//   SAC; CleanRL's dqn.py follows its epsilon schedule from step 0 (with its defaults 1 to
//   0.96 over the warm-up, so at most a few percent of those actions differ);
// - with several env copies, each copy explores with its own draw, and steps count env steps
//   (train_every and target_update are crossed, not hit exactly, when numEnvs > 1);
// - the loss metrics are averaged over the update's gradient steps (CleanRL logs the last).
import { Q_NETWORK, type QNetworkPolicy } from './q-network.js';
import { isGoalConditioned, notGoalConditioned } from '../../envs/types.js';
import type { Rng } from '../../../shared/random.js';
import { scheduleValue } from '../../schedule.js';
import { Adam, type AdamState, type GradientStep, type WeightSnapshot, type WeightStore } from '../../tensor/index.js';
import type { Algorithm, AlgorithmContext, AlgorithmDefinition } from '../algorithm.js';
import { ReplayBuffer, type ReplayBatch, type ReplayState } from '../replay/buffer.js';
import { createStoreScratch, stepAndStore, type StoreScratch } from '../replay/collect.js';
import { goalLayout } from '../replay/her.js';
import { PhaseClock } from '../phase-clock.js';
import { CheckedStep } from '../checked-step.js';
import { learnerState, part, type LearnerState } from '../learner-state.js';
import type { Stepper } from '../stepper.js';
import { BatchQValues, dqnGradientStep, LOSS_METRICS, tdTargets } from './loss.js';
import { dqnSettings, type DqnSettings } from './settings.js';
import { learnerMasks } from '../action-masking.js';

/** Env steps one iterate() covers at least (SAC's too): the trainer's events and checks run once per call. */
const STEPS_PER_ITERATE = 1000;

export const DQN: AlgorithmDefinition<DqnSettings> = {
  name: 'DQN',
  actions: ['discrete'],
  params: dqnSettings,
  create: (context, settings) => Dqn.create(context, settings),
};

/**
 * The epsilon of the action taken after `step` env steps: 1 (uniformly random, SB3's warm-up)
 * before learning_starts, then the schedule over the budget. `linear(1.0, 0.04, over: 0.16)` is
 * SB3's get_linear_fn(1.0, 0.04, 0.16) of progress_remaining = 1 - step / total_timesteps, and
 * CleanRL's linear_schedule(1.0, 0.04, 0.16 * total_timesteps, global_step).
 */
export function explorationRate(settings: Pick<DqnSettings, 'epsilon' | 'learning_starts'>, step: number, budget: number): number {
  return step < settings.learning_starts ? 1 : scheduleValue(settings.epsilon, step, budget);
}

export interface DqnState {
  globalStep: number;
  updates: number;
  actionRng: number[];
  sampleRng: number[];
  weights: WeightSnapshot;
  targetWeights: WeightSnapshot;
  optimizer: AdamState;
  /** null when loaded from a checkpoint older than the newest, which keeps no buffer: collection starts afresh. */
  buffer: ReplayState | null;
}

export class Dqn implements Algorithm {
  readonly name = 'DQN';
  globalStep = 0;
  /** Updates (rounds of gradient_steps) taken so far. */
  updates = 0;
  private readonly optimizer: Adam;
  /** The gradient step, clipping and Adam, checked: a loss or gradient that is not finite stops the run. */
  private readonly checked: CheckedStep;
  /** The gradient step of the update under way, for the error when it diverges. */
  private gradientStep = 0;
  private readonly envActions;
  private readonly scratch: StoreScratch;
  private readonly batch: ReplayBatch;
  private readonly actionMask: Float32Array;
  private readonly tdTarget: Float32Array;
  private readonly invN: Float32Array;
  private readonly metricSlots: readonly number[];
  /** Where the time goes (time/* metrics; the bench prints them). */
  private readonly clock = new PhaseClock();
  /** What a checkpoint keeps (learner-state.ts). */
  private readonly saved: LearnerState<DqnState>;

  private constructor(
    readonly settings: DqnSettings,
    readonly policy: QNetworkPolicy,
    readonly stepper: Stepper,
    readonly budget: number,
    readonly buffer: ReplayBuffer,
    private readonly gradients: GradientStep,
    /** The target network's weights (a clone of the online store, same names). */
    private readonly target: WeightStore,
    /** Q-values of a batch's next observations: the target network's, and the online one's for Double DQN. */
    private readonly nextQ: { readonly target: BatchQValues; readonly online: BatchQValues | null },
    private readonly actionRng: Rng,
    private readonly sampleRng: Rng,
    /** The env's action masks the policy acts under (action-masking.ts); null: unmasked. */
    private readonly envMasks: Uint8Array | null,
  ) {
    const rows = settings.batch_size;
    const n = policy.actions;
    this.optimizer = new Adam(policy.weights);
    this.checked = new CheckedStep(gradients, {
      learner: 'DQN',
      at: () => `update ${this.updates + 1}, gradient step ${this.gradientStep + 1}`,
      advice: 'try a smaller learning_rate, loss: huber or a max_grad_norm',
      weights: policy.weights,
      optimizer: this.optimizer,
      maxGradNorm: settings.max_grad_norm,
    });
    this.envActions = stepper.vec.createActionBuffer();
    this.scratch = createStoreScratch(stepper, envMasks !== null);
    this.batch = buffer.createBatch(rows);
    this.actionMask = new Float32Array(rows * n);
    this.tdTarget = new Float32Array(rows);
    this.invN = Float32Array.of(1 / rows);
    this.metricSlots = LOSS_METRICS.map((name) => gradients.metricNames.indexOf(name));
    this.saved = learnerState<DqnState>('DQN', {
      globalStep: part.counter(this, 'globalStep'),
      updates: part.counter(this, 'updates'),
      actionRng: part.rng(actionRng),
      sampleRng: part.rng(sampleRng),
      weights: part.weights(policy.weights),
      targetWeights: part.weights(target),
      optimizer: part.adam(this.optimizer),
      buffer: part.optional(part.object('a replay buffer', buffer)),
    });
  }

  static async create(context: AlgorithmContext, settings: DqnSettings): Promise<Dqn> {
    const { stepper, compute } = context;
    const policy = context.policy.networks(Q_NETWORK, 'DQN');
    const env = stepper.vec.envs[0];
    if (settings.relabel !== null && !isGoalConditioned(env)) {
      throw notGoalConditioned('DQN', settings.relabel.strategy, env);
    }
    const masks = learnerMasks(settings.action_mask, stepper.vec, 'DQN');
    const buffer = new ReplayBuffer({
      capacity: settings.buffer,
      numEnvs: stepper.numEnvs,
      obsDim: stepper.obsDim,
      actionWidth: 1,
      maskWidth: masks !== null ? policy.actions : 0,
      relabel: settings.relabel,
      goals: settings.relabel !== null && isGoalConditioned(env) ? goalLayout(stepper.vec.obsFields, env) : null,
    });
    const rows = settings.batch_size;
    const gradients = await dqnGradientStep(policy, settings.loss, { compute, maxRows: rows });
    const target = policy.weights.clone();
    const nextQ = {
      target: await BatchQValues.create(policy, target, rows, compute),
      online: settings.double ? await BatchQValues.create(policy, policy.weights, rows, compute) : null,
    };
    return new Dqn(settings, policy, stepper, context.budget, buffer, gradients, target, nextQ, context.rng.fork('actions'), context.rng.fork('replay'), masks);
  }

  get done(): boolean {
    return this.globalStep >= this.budget;
  }

  /** Evaluation and recorded rollouts act under the env's masks too (trainer). */
  get masksActions(): boolean {
    return this.envMasks !== null;
  }

  hparams(): Record<string, unknown> {
    const s = this.settings;
    return { ...s, max_grad_norm: s.max_grad_norm ?? 'none', relabel: s.relabel ?? 'none', buffer_positions: this.buffer.positions, adam_eps: this.optimizer.eps };
  }

  /**
   * Rounds of collecting until an update is due (train_every steps) and taking it once learning
   * has started, until at least STEPS_PER_ITERATE steps have passed (or the budget is spent);
   * returns the updates' mean losses. Many rounds per call keep the trainer's per-call work
   * (events, metrics, stop checks) off the path: with train_every 10 it was a fifth of the time.
   */
  async iterate(): Promise<Record<string, number>> {
    const end = Math.min(this.budget, this.globalStep + STEPS_PER_ITERATE);
    const sums: Record<string, number> = {};
    let updates = 0;
    let epsilon = 0;
    this.clock.restart();
    while (this.globalStep < end) {
      epsilon = this.collectUntilUpdate();
      if (this.globalStep > this.settings.learning_starts && this.globalStep % this.settings.train_every < this.stepper.numEnvs) {
        for (const [name, value] of Object.entries(await this.update())) sums[name] = (sums[name] ?? 0) + value;
        updates++;
      }
    }
    // Once per call, not per update: updates come every few env steps, and a scan at each would cost a few percent.
    this.checked.checkWeights(() => `after update ${this.updates}`);
    const metrics: Record<string, number> = { 'charts/epsilon': epsilon };
    for (const [name, sum] of Object.entries(sums)) metrics[name] = sum / updates;
    return { ...metrics, ...this.clock.metrics() };
  }

  /** Collects until the next update is due (a multiple of train_every steps) or the budget ends; the last epsilon used. */
  private collectUntilUpdate(): number {
    const s = this.settings;
    const { stepper, policy } = this;
    const numEnvs = stepper.numEnvs;
    const updateDue = (Math.floor(this.globalStep / s.train_every) + 1) * s.train_every;
    let epsilon = 0;
    while (this.globalStep < updateDue && !this.done) {
      epsilon = explorationRate(s, this.globalStep, this.budget);
      policy.epsilon = epsilon;
      policy.act(stepper.obs, numEnvs, this.envActions, false, this.actionRng, this.envMasks);
      stepAndStore(stepper, this.buffer, this.envActions, this.scratch);
      const before = this.globalStep;
      this.globalStep += numEnvs;
      if (this.globalStep > s.learning_starts && Math.floor(this.globalStep / s.target_update) > Math.floor(before / s.target_update)) {
        this.updateTarget();
      }
    }
    this.clock.mark('acting');
    return epsilon;
  }

  /** target = tau * online + (1 - tau) * target (a copy when tau is 1). */
  private updateTarget(): void {
    if (this.settings.tau === 1) this.target.copyFrom(this.policy.weights);
    else this.target.lerpFrom(this.policy.weights, this.settings.tau);
  }

  /** gradient_steps steps on sampled batches; returns the mean loss metrics. */
  private async update(): Promise<Record<string, number>> {
    const s = this.settings;
    const { policy, batch, actionMask, tdTarget, metricSlots } = this;
    const rows = s.batch_size;
    const n = policy.actions;
    const obsDim = this.stepper.obsDim;
    const lr = scheduleValue(s.learning_rate, this.globalStep, this.budget);
    const sums = new Float64Array(LOSS_METRICS.length);
    let gradNorm = 0;
    for (let step = 0; step < s.gradient_steps; step++) {
      this.buffer.sample(rows, this.sampleRng, batch);
      const nextQTarget = await this.nextQ.target.run(batch.nextObs);
      const selector = this.nextQ.online !== null ? await this.nextQ.online.run(batch.nextObs) : nextQTarget;
      tdTargets(batch.rewards, batch.dones, nextQTarget, selector, rows, n, s.gamma, tdTarget, batch.nextActionMask);
      actionMask.fill(0);
      for (let j = 0; j < rows; j++) actionMask[j * n + batch.actions[j]] = 1;
      this.clock.mark('sampling');
      this.gradientStep = step;
      const out = await this.checked.step({
        obs: { data: batch.obs, dims: [rows, obsDim] },
        action_mask: { data: actionMask, dims: [rows, n] },
        td_target: { data: tdTarget, dims: [rows] },
        inv_n: this.invN,
      }, lr);
      for (let k = 0; k < sums.length; k++) sums[k] += out.metrics[metricSlots[k]];
      gradNorm += out.gradNorm;
      // The next batch's Double-DQN selection and the next collection see the new weights.
      policy.sync();
      this.clock.countGradientStep();
      this.clock.mark('gradient');
    }
    this.updates++;
    const metrics: Record<string, number> = { 'charts/learning_rate': lr, 'losses/grad_norm': gradNorm / s.gradient_steps };
    LOSS_METRICS.forEach((name, k) => (metrics[`losses/${name}`] = sums[k] / s.gradient_steps));
    return metrics;
  }

  state(): DqnState {
    return this.saved.save();
  }

  loadState(saved: unknown): void {
    this.saved.load(saved);
    this.policy.sync();
  }

  async release(): Promise<void> {
    await this.gradients.release();
    await this.nextQ.target.release();
    await this.nextQ.online?.release();
  }
}
