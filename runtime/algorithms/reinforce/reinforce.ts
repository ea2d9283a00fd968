// REINFORCE (Williams 1992) with a baseline, and RLOO (Kool et al. 2019; Ahmadian et al.
// 2024) with `baseline: leave_one_out`: Monte-Carlo policy gradient over whole episodes.
// Settings in settings.ts, returns and baselines in advantages.ts, the loss in loss.ts,
// the episodes in episodes.ts; the learner here: collect a group of episodes, their
// advantages, one gradient step.
//
// - A group is `episodes_per_update` episodes, in the order they ended. The env copies run
//   on between updates: an episode still running when the group is complete finishes in the
//   next one (its first steps then came from the previous weights; REINFORCE has no ratio to
//   correct that, and the lag is at most one update). Dropping those episodes instead would
//   favour short episodes in every group.
// - Returns are Monte-Carlo, sum_t gamma^t r_t of the training reward, with no bootstrap:
//   a truncated episode counts the rewards it got.
// - The policy is the plan's actor-critic, of which REINFORCE trains the actor; the critic
//   keeps its initial weights (there is no value baseline). Acting, evaluation and the ONNX
//   export are the actor-critic's, as under PPO.
// - Adam with PyTorch's default epsilon (1e-8); the gradient is clipped to max_grad_norm; a
//   loss, gradient or weight that is not finite stops the run (../checked-step.ts).
import { ACTOR_CRITIC, type ActorCriticPolicy } from '../../policies/index.js';
import type { Rng } from '../../../shared/random.js';
import { scheduleValue } from '../../schedule.js';
import { Adam, type AdamState, type GradientStep, type WeightSnapshot } from '../../tensor/index.js';
import type { Algorithm, AlgorithmContext, AlgorithmDefinition, TextAlgorithmContext } from '../algorithm.js';
import { reinforceOnText } from './text.js';
import { CheckedStep } from '../checked-step.js';
import { learnerState, part, type LearnerState } from '../learner-state.js';
import type { Stepper } from '../stepper.js';
import { advantagesOf, discountedReturn } from './advantages.js';
import { EpisodeStore, type Trajectory } from './episodes.js';
import { buildReinforceLoss, LOSS_METRICS, reinforceGradientStep } from './loss.js';
import { reinforceSettings, type ReinforceSettings } from './settings.js';

export const REINFORCE: AlgorithmDefinition<ReinforceSettings, AlgorithmContext | TextAlgorithmContext> = {
  name: 'REINFORCE',
  actions: ['discrete', 'continuous', 'multibinary', 'text'],
  params: reinforceSettings,
  // On a text env the trainer hands a token model (text.ts); on the others, env copies.
  create: (context, settings) => ('model' in context ? reinforceOnText(context, settings) : Reinforce.create(context, settings)),
};

/** PyTorch's Adam epsilon (REINFORCE has no reference script that changes it). */
export const REINFORCE_ADAM_EPS = 1e-8;

export interface ReinforceState {
  globalStep: number;
  updates: number;
  actionRng: number[];
  weights: WeightSnapshot;
  optimizer: AdamState;
}

export class Reinforce implements Algorithm {
  readonly name = 'REINFORCE';
  globalStep = 0;
  updates = 0;
  private readonly optimizer: Adam;
  private readonly checked: CheckedStep;
  private readonly episodes: EpisodeStore;
  private readonly head: Float32Array;
  private readonly encoded: Float32Array;
  private readonly envActions;
  private readonly returns: Float64Array;
  private readonly advantages: Float64Array;
  /** The update's rows (every step of the group's episodes), grown to the largest group. */
  private batch = { obs: new Float32Array(0), action: new Float32Array(0), advantages: new Float32Array(0) };
  private readonly invSamples = new Float32Array(1);
  private readonly invRows = new Float32Array(1);
  private readonly entCoef = new Float32Array(1);
  /** Where each of LOSS_METRICS sits in the gradient step's metrics. */
  private readonly metricSlots: readonly number[];
  /** What a checkpoint keeps (learner-state.ts). */
  private readonly saved: LearnerState<ReinforceState>;

  private constructor(
    readonly settings: ReinforceSettings,
    readonly policy: ActorCriticPolicy,
    readonly stepper: Stepper,
    readonly budget: number,
    private readonly gradients: GradientStep,
    private readonly actionRng: Rng,
  ) {
    const { numEnvs, obsDim } = stepper;
    const dist = policy.distribution;
    this.optimizer = new Adam(policy.weights, { eps: REINFORCE_ADAM_EPS });
    this.checked = new CheckedStep(gradients, {
      learner: 'REINFORCE',
      at: () => `update ${this.updates + 1}`,
      advice: 'try a smaller learning_rate or max_grad_norm',
      weights: policy.weights,
      optimizer: this.optimizer,
      maxGradNorm: settings.max_grad_norm,
    });
    this.episodes = new EpisodeStore(numEnvs, obsDim, dist.encodedWidth);
    this.head = new Float32Array(numEnvs * dist.headWidth);
    this.encoded = new Float32Array(numEnvs * dist.encodedWidth);
    this.envActions = stepper.vec.createActionBuffer();
    this.returns = new Float64Array(settings.episodes_per_update);
    this.advantages = new Float64Array(settings.episodes_per_update);
    this.metricSlots = LOSS_METRICS.map((name) => gradients.metricNames.indexOf(name));
    this.saved = learnerState<ReinforceState>('REINFORCE', {
      globalStep: part.counter(this, 'globalStep'),
      updates: part.counter(this, 'updates'),
      actionRng: part.rng(actionRng),
      weights: part.weights(policy.weights),
      optimizer: part.adam(this.optimizer),
    });
  }

  static async create(context: AlgorithmContext, settings: ReinforceSettings): Promise<Reinforce> {
    const policy = context.policy.networks(ACTOR_CRITIC, 'REINFORCE');
    const gradients = await reinforceGradientStep(buildReinforceLoss(policy, settings), policy, { compute: context.compute });
    return new Reinforce(settings, policy, context.stepper, context.budget, gradients, context.rng.fork('actions'));
  }

  get done(): boolean {
    return this.globalStep >= this.budget;
  }

  hparams(): Record<string, unknown> {
    return { ...this.settings, adam_eps: REINFORCE_ADAM_EPS };
  }

  /** Collects a group of episodes and learns from it; returns the update's metrics. */
  async iterate(): Promise<Record<string, number>> {
    const s = this.settings;
    // Schedules are read once per update, at the step the update starts from.
    const lr = scheduleValue(s.learning_rate, this.globalStep, this.budget);
    this.entCoef[0] = scheduleValue(s.entropy_coef, this.globalStep, this.budget);
    this.collect();
    const group = this.episodes.take(s.episodes_per_update);
    const metrics: Record<string, number> = { 'charts/learning_rate': lr, 'charts/entropy_coef': this.entCoef[0], 'charts/group_episodes': group.length };
    // The budget can end a group early; fewer than two episodes make no leave-one-out group.
    if (group.length >= 2) Object.assign(metrics, await this.update(group, lr));
    this.episodes.release(group);
    return metrics;
  }

  /** Steps every env copy until a group of episodes has ended or the budget is spent. */
  private collect(): void {
    const { stepper, policy, episodes, head, encoded, envActions } = this;
    const { numEnvs } = stepper;
    const dist = policy.distribution;
    const vec = stepper.vec;
    while (episodes.endedCount < this.settings.episodes_per_update && this.globalStep < this.budget) {
      const obs = stepper.obs;
      policy.actorForward(obs, numEnvs, head);
      for (let i = 0; i < numEnvs; i++) {
        dist.sample(head, i * dist.headWidth, this.actionRng, envActions, i * dist.envWidth, encoded, i * dist.encodedWidth);
        episodes.push(i, obs, encoded);
      }
      stepper.step(envActions);
      this.globalStep += numEnvs;
      for (let i = 0; i < numEnvs; i++) episodes.reward(i, stepper.rewards[i], (vec.terminated[i] | vec.truncated[i]) === 1);
    }
  }

  /** One gradient step on the group: returns, advantages, the loss's gradient, Adam. */
  private async update(group: readonly Trajectory[], lr: number): Promise<Record<string, number>> {
    const { settings: s, returns, advantages } = this;
    const n = group.length;
    for (let i = 0; i < n; i++) returns[i] = discountedReturn(group[i].rewards, group[i].length, s.gamma);
    advantagesOf(returns, n, s.baseline, advantages);
    const rows = this.gatherRows(group);
    const obsDim = this.stepper.obsDim;
    const width = this.policy.distribution.encodedWidth;
    const { batch } = this;
    this.invSamples[0] = 1 / n;
    this.invRows[0] = 1 / rows;
    // Clipping to max_grad_norm happens inside Adam's kernel (one pass over the gradients).
    const out = await this.checked.step({
      obs: { data: batch.obs.subarray(0, rows * obsDim), dims: [rows, obsDim] },
      action: { data: batch.action.subarray(0, rows * width), dims: [rows, width] },
      advantages: { data: batch.advantages.subarray(0, rows), dims: [rows] },
      inv_samples: this.invSamples,
      inv_rows: this.invRows,
      ent_coef: this.entCoef,
    }, lr);
    this.checked.checkWeights();
    this.policy.sync();
    this.updates++;
    let meanReturn = 0;
    for (let i = 0; i < n; i++) meanReturn += returns[i] / n;
    const metrics: Record<string, number> = { 'losses/grad_norm': out.gradNorm, 'losses/gradient_steps': 1, 'charts/group_return': meanReturn, 'charts/group_steps': rows };
    LOSS_METRICS.forEach((name, k) => (metrics[`losses/${name}`] = out.metrics[this.metricSlots[k]]));
    return metrics;
  }

  /** Copies the group's steps into the batch rows, each with its episode's advantage; returns the row count. */
  private gatherRows(group: readonly Trajectory[]): number {
    const obsDim = this.stepper.obsDim;
    const width = this.policy.distribution.encodedWidth;
    const rows = group.reduce((sum, e) => sum + e.length, 0);
    if (this.batch.advantages.length < rows) {
      this.batch = { obs: new Float32Array(rows * obsDim), action: new Float32Array(rows * width), advantages: new Float32Array(rows) };
    }
    const { batch } = this;
    let row = 0;
    group.forEach((episode, i) => {
      batch.obs.set(episode.obs.subarray(0, episode.length * obsDim), row * obsDim);
      batch.action.set(episode.actions.subarray(0, episode.length * width), row * width);
      batch.advantages.fill(this.advantages[i], row, row + episode.length);
      row += episode.length;
    });
    return rows;
  }

  state(): ReinforceState {
    return this.saved.save();
  }

  loadState(saved: unknown): void {
    this.saved.load(saved);
    this.policy.sync();
    // The trainer restarts every episode on resume: steps of the old ones must not be learned from.
    this.episodes.clear();
  }

  async release(): Promise<void> {
    await this.gradients.release();
  }
}
