// Soft Actor-Critic (Haarnoja et al. 2018), as CleanRL's sac_continuous_action.py (continuous
// actions) and sac_atari.py (discrete, with an MLP), on the off-policy loop of
// ../replay/off-policy.ts (shared with numeric learner modules): uniform random actions until
// learning_starts, then every step a batch from the replay buffer, a gradient step on the twin
// critics, every policy_frequency critic steps that many actor steps (each followed by a
// temperature step), and a Polyak update of the target critics. Settings in settings.ts, the
// networks in networks.ts, the losses in loss.ts.
//
// Where the compute goes: acting runs the actor outside onnxruntime (DenseStack, the
// WebAssembly kernel) on one row per env copy; each critic update is one GradientStep run
// (both critics, the actor on the next observations and both target critics for the target);
// each actor update another. The temperature's loss is a scalar: its gradient is written out.
//
// Differences from CleanRL, each deliberate:
// - `train_every` and `gradient_steps` (SB3's train_freq, gradient_steps) generalise CleanRL's
//   one critic step per env step (both 1 by default);
// - the actor's update counts critic steps, not global_step parity (the same rate);
// - the temperature's loss uses log pi of the actions the actor step just sampled (as SB3),
//   where CleanRL samples again after the actor's update: one forward pass less per update;
// - with several env copies, truncated episodes bootstrap (the buffer stores done = terminated
//   only, SB3's handle_timeout_termination); CleanRL's buffer does too for Pendulum's time limit.
import { PhaseClock } from '../phase-clock.js';
import { SAC_NETWORKS, type SacActor, type SacCritics } from './networks.js';
import type { Rng } from '../../../shared/random.js';
import { scheduleValue } from '../../schedule.js';
import { Adam, WeightStore, type AdamState, type Feed, type GradientStep, type WeightSnapshot } from '../../tensor/index.js';
import type { Algorithm, AlgorithmContext, AlgorithmDefinition } from '../algorithm.js';
import { ReplayBuffer, type ReplayBatch, type ReplayState } from '../replay/buffer.js';
import { createStoreScratch, stepAndStore, type StoreScratch } from '../replay/collect.js';
import { randomActions, runOffPolicy } from '../replay/off-policy.js';
import { goalLayout } from '../replay/her.js';
import { CheckedStep, type CheckedStepOptions } from '../checked-step.js';
import { learnerState, part, type LearnerState } from '../learner-state.js';
import type { Stepper } from '../stepper.js';
import { isGoalConditioned, notGoalConditioned } from '../../envs/types.js';
import { ACTOR_METRICS, buildActorLoss, buildCriticLoss, CRITIC_METRICS, sacGradientStep } from './loss.js';
import { DISCRETE_TARGET_ENTROPY_SCALE, sacSettings, targetEntropy, type SacSettings } from './settings.js';
import { learnerMasks } from '../action-masking.js';

export const SAC: AlgorithmDefinition<SacSettings> = {
  name: 'SAC',
  actions: ['discrete', 'continuous'],
  params: sacSettings,
  create: (context, settings) => Sac.create(context, settings),
};

/** Adam's epsilon: torch's default in sac_continuous_action.py; sac_atari.py uses 1e-4 "for numerical stability". */
export const SAC_ADAM_EPS = { continuous: 1e-8, discrete: 1e-4 } as const;

/** Env steps per iterate(): the trainer logs, evaluates and checks its stop condition between them. */
const STEPS_PER_ITERATE = 1000;

export interface SacState {
  globalStep: number;
  criticSteps: number;
  actorSteps: number;
  rngs: { actions: number[]; noise: number[]; replay: number[] };
  actor: WeightSnapshot;
  critics: WeightSnapshot;
  target: WeightSnapshot;
  logAlpha: number;
  optimizers: { actor: AdamState; critic: AdamState; alpha: AdamState | null };
  /** null in a checkpoint older than the newest (only the newest keeps the buffer): collection starts afresh. */
  buffer: ReplayState | null;
}

/** The metrics of one iterate, averaged over its gradient steps. */
const SUMMED = [...CRITIC_METRICS, ...ACTOR_METRICS, 'alpha_loss'] as const;

export class Sac implements Algorithm {
  readonly name = 'SAC';
  globalStep = 0;
  /** Gradient steps taken on the critics and on the actor. */
  criticSteps = 0;
  actorSteps = 0;
  readonly policy: SacActor;
  private readonly discrete: boolean;
  private readonly actionDim: number;
  private readonly criticOptimizer: Adam;
  private readonly actorOptimizer: Adam;
  private readonly alphaOptimizer: Adam | null;
  /** Each optimiser's step, checked: a loss, gradient or weight that is not finite stops the run. */
  private readonly checked: { readonly critic: CheckedStep; readonly actor: CheckedStep; readonly alpha: CheckedStep | null };
  /** log(alpha), trained when `alpha: auto` (CleanRL starts it at 0: alpha 1). */
  private readonly logAlpha: Float32Array;
  private readonly targetEntropy: number;
  private readonly batch: ReplayBatch;
  /** The batch's actions as the critics' graph reads them: env units (continuous) or one-hot rows (discrete). */
  private readonly batchActions: Float32Array;
  private readonly eps: Float32Array;
  private readonly envActions;
  private readonly scratch: StoreScratch;
  private readonly scalars = { alpha: new Float32Array(1), gamma: new Float32Array(1), invN: new Float32Array(1) };
  /** Where each network's gradients sit in its step's store order. */
  private readonly criticGrads: { readonly slots: readonly number[]; readonly grads: Float32Array[] };
  private readonly actorGrads: { readonly slots: readonly number[]; readonly grads: Float32Array[] };
  private readonly alphaGrad = [new Float32Array(1)];
  /** The temperature's step as the checked step takes it: its loss and gradient, no metrics. */
  private readonly alphaResult = { loss: 0, grads: this.alphaGrad, metrics: new Float64Array(0) };
  private readonly sums = new Float64Array(SUMMED.length);
  /** The feeds of both steps, made once: they view the batch's, the noise's and the scalars' fixed arrays. */
  private readonly criticFeeds: Record<string, Feed>;
  private readonly actorFeeds: Record<string, Feed>;
  /** Where each step's metrics go in `sums`. */
  private readonly slots: { readonly critic: readonly number[]; readonly actor: readonly number[] };
  private readonly counts = { critic: 0, actor: 0 };
  /** Where the time goes (time/* metrics; the bench prints them). */
  private readonly clock = new PhaseClock();
  /** What a checkpoint keeps (learner-state.ts). */
  private readonly saved: LearnerState<SacState>;

  private constructor(
    readonly settings: SacSettings,
    private readonly critics: SacCritics,
    readonly stepper: Stepper,
    readonly budget: number,
    readonly buffer: ReplayBuffer,
    private readonly criticStep: GradientStep,
    private readonly actorStep: GradientStep,
    storeNames: { readonly critic: readonly string[]; readonly actor: readonly string[] },
    private readonly rngs: { readonly actions: Rng; readonly noise: Rng; readonly replay: Rng },
    actor: SacActor,
    /** The env's action masks the actor acts under (action-masking.ts); null: unmasked. */
    private readonly envMasks: Uint8Array | null,
  ) {
    this.policy = actor;
    this.discrete = actor.discrete;
    this.actionDim = actor.actionDim;
    const eps = actor.discrete ? SAC_ADAM_EPS.discrete : SAC_ADAM_EPS.continuous;
    const criticLr = settings.critic_learning_rate ?? scheduleValue(settings.learning_rate, 0, budget);
    this.criticOptimizer = new Adam(critics.weights, { lr: criticLr, eps });
    this.actorOptimizer = new Adam(actor.weights, { eps });
    this.logAlpha = new Float32Array([settings.alpha === null ? 0 : Math.log(settings.alpha)]);
    this.alphaOptimizer = settings.alpha === null ? new Adam([this.logAlpha], { lr: criticLr, eps }) : null;
    const checks = (at: () => string): Pick<CheckedStepOptions, 'learner' | 'at' | 'advice'> => ({ learner: 'SAC', at, advice: 'try a smaller learning_rate or critic_learning_rate' });
    const criticStepAt = () => `critic step ${this.criticSteps + 1}`;
    this.checked = {
      critic: new CheckedStep(criticStep, { ...checks(criticStepAt), weights: critics.weights, optimizer: this.criticOptimizer, pick: (grads) => pick(grads, this.criticGrads) }),
      actor: new CheckedStep(actorStep, { ...checks(() => `actor step ${this.actorSteps + 1}, critic step ${this.criticSteps}`), weights: actor.weights, optimizer: this.actorOptimizer, pick: (grads) => pick(grads, this.actorGrads) }),
      // The temperature's gradient is written out (temperatureStep): no session.
      alpha: this.alphaOptimizer ? new CheckedStep(null, { ...checks(() => `temperature step ${this.actorSteps}, critic step ${this.criticSteps}`), weights: { names: ['log_alpha'], values: [this.logAlpha] }, optimizer: this.alphaOptimizer }) : null,
    };
    this.targetEntropy = targetEntropy(settings, actor.discrete, actor.actionDim);
    this.saved = learnerState<SacState>('SAC', {
      globalStep: part.counter(this, 'globalStep'),
      criticSteps: part.counter(this, 'criticSteps'),
      actorSteps: part.counter(this, 'actorSteps'),
      rngs: part.group({ actions: part.rng(rngs.actions), noise: part.rng(rngs.noise), replay: part.rng(rngs.replay) }),
      actor: part.weights(actor.weights),
      critics: part.weights(critics.weights),
      target: part.weights(critics.target),
      logAlpha: part.number(() => this.logAlpha[0], (value) => (this.logAlpha[0] = value)),
      optimizers: part.group({
        actor: part.adam(this.actorOptimizer),
        critic: part.adam(this.criticOptimizer),
        alpha: this.alphaOptimizer ? part.adam(this.alphaOptimizer) : part.none(),
      }),
      buffer: part.optional(part.object('a replay buffer', buffer)),
    });
    this.batch = buffer.createBatch(settings.batch_size);
    this.batchActions = actor.discrete ? new Float32Array(settings.batch_size * actor.actionDim) : this.batch.actions;
    this.eps = new Float32Array(settings.batch_size * actor.actionDim);
    this.envActions = stepper.vec.createActionBuffer();
    this.scratch = createStoreScratch(stepper, envMasks !== null);
    this.scalars.gamma[0] = settings.gamma;
    this.scalars.invN[0] = 1 / settings.batch_size;
    const b = settings.batch_size;
    const rows = (data: Float32Array, width: number): Feed => ({ data, dims: [b, width] });
    const column = (data: Float32Array): Feed => ({ data, dims: [b] });
    const { obsDim } = stepper;
    const { alpha, gamma, invN } = this.scalars;
    const noise: Record<string, Feed> = actor.discrete ? {} : { eps: rows(this.eps, actor.actionDim) };
    const { batch } = this;
    const masks: Record<string, Feed> = batch.actionMask !== null ? { action_mask: rows(batch.actionMask, actor.actionDim) } : {};
    this.criticFeeds = {
      obs: rows(batch.obs, obsDim),
      action: rows(this.batchActions, actor.actionDim),
      reward: column(batch.rewards),
      next_obs: rows(batch.nextObs, obsDim),
      done: column(batch.dones),
      alpha,
      gamma,
      inv_n: invN,
      ...noise,
      ...(batch.nextActionMask !== null ? { next_action_mask: rows(batch.nextActionMask, actor.actionDim) } : {}),
    };
    this.actorFeeds = { obs: this.criticFeeds.obs, alpha, inv_n: invN, ...noise, ...masks };
    const summed = SUMMED as readonly string[];
    this.slots = { critic: criticStep.metricNames.map((n) => summed.indexOf(n)), actor: actorStep.metricNames.map((n) => summed.indexOf(n)) };
    const slotsOf = (names: readonly string[], of: readonly string[]) => of.map((n) => names.indexOf(n));
    this.criticGrads = { slots: slotsOf(storeNames.critic, critics.weights.names), grads: [] };
    this.actorGrads = { slots: slotsOf(storeNames.actor, actor.weights.names), grads: [] };
  }

  static async create(context: AlgorithmContext, settings: SacSettings): Promise<Sac> {
    const { stepper, compute, rng } = context;
    const { actor, critics } = context.policy.networks(SAC_NETWORKS, 'SAC');
    const env = stepper.vec.envs[0];
    if (settings.relabel !== null && !isGoalConditioned(env)) {
      throw notGoalConditioned('SAC', settings.relabel.strategy, env);
    }
    const masks = learnerMasks(settings.action_mask, stepper.vec, 'SAC');
    const buffer = new ReplayBuffer({
      // A buffer never holds more than the budget's transitions: the rest would be memory (and checkpoint) for nothing.
      capacity: Math.min(settings.buffer, Math.max(context.budget, 1)),
      numEnvs: stepper.numEnvs,
      obsDim: stepper.obsDim,
      actionWidth: actor.discrete ? 1 : actor.actionDim,
      maskWidth: masks !== null ? actor.actionDim : 0,
      relabel: settings.relabel,
      goals: settings.relabel !== null && isGoalConditioned(env) ? goalLayout(stepper.vec.obsFields, env) : null,
    });
    const options = { compute, maxRows: settings.batch_size };
    // Each loss reads several networks: one store over their arrays, the untrained ones frozen.
    const criticStore = WeightStore.union(actor.weights, critics.weights, critics.target);
    const actorStore = WeightStore.union(actor.weights, critics.weights);
    const [criticStep, actorStep] = await Promise.all([
      sacGradientStep(buildCriticLoss(actor, critics, { masked: masks !== null }), criticStore, critics.weights, options),
      sacGradientStep(buildActorLoss(actor, critics, { masked: masks !== null }), actorStore, actor.weights, options),
    ]);
    const rngs = { actions: rng.fork('actions'), noise: rng.fork('noise'), replay: rng.fork('replay') };
    return new Sac(settings, critics, stepper, context.budget, buffer, criticStep, actorStep, { critic: criticStore.names, actor: actorStore.names }, rngs, actor, masks);
  }

  get done(): boolean {
    return this.globalStep >= this.budget;
  }

  /** Evaluation and recorded rollouts act under the env's masks too (trainer). */
  get masksActions(): boolean {
    return this.envMasks !== null;
  }

  get alpha(): number {
    return Math.exp(this.logAlpha[0]);
  }

  hparams(): Record<string, unknown> {
    const s = this.settings;
    return {
      ...s,
      alpha: s.alpha ?? 'auto',
      target_entropy: this.targetEntropy,
      critic_learning_rate: s.critic_learning_rate ?? 'same',
      relabel: s.relabel ?? 'none',
      buffer_positions: this.buffer.positions,
      adam_eps: this.discrete ? SAC_ADAM_EPS.discrete : SAC_ADAM_EPS.continuous,
    };
  }

  /** STEPS_PER_ITERATE env steps (fewer at the budget's end), learning as it goes; the mean losses. */
  async iterate(): Promise<Record<string, number>> {
    const { stepper, settings: s } = this;
    const end = Math.min(this.budget, this.globalStep + STEPS_PER_ITERATE);
    this.sums.fill(0);
    this.counts.critic = this.counts.actor = 0;
    const lr = scheduleValue(s.learning_rate, this.globalStep, this.budget);
    this.clock.restart();
    const self = this;
    await runOffPolicy({ get globalStep() { return self.globalStep; }, collect: () => this.collect(), train: () => this.train(lr) }, end, s);
    // Once per call, not per step: a scan of every weight at each would cost several percent (../checked-step.ts).
    const at = () => `after critic step ${this.criticSteps}`;
    for (const checked of [this.checked.critic, this.checked.actor, this.checked.alpha]) checked?.checkWeights(at);
    return this.metrics(lr);
  }

  /** One step of every env copy, stored: random actions before learning_starts, then the actor's samples. */
  private collect(): void {
    const { stepper, envActions, policy } = this;
    const rng = this.rngs.actions;
    if (this.globalStep < this.settings.learning_starts) {
      randomActions(stepper.vec.actionSpace, envActions, rng, this.envMasks);
    } else {
      policy.act(stepper.obs, stepper.numEnvs, envActions, false, rng, this.envMasks);
    }
    stepAndStore(stepper, this.buffer, envActions, this.scratch);
    this.globalStep += stepper.numEnvs;
    this.clock.mark('acting');
  }

  /** One critic step on a fresh batch; every policy_frequency of them, that many actor (and temperature) steps on it. */
  private async train(lr: number): Promise<void> {
    const { settings: s, scalars } = this;
    this.buffer.sample(s.batch_size, this.rngs.replay, this.batch);
    if (this.discrete) this.oneHotActions();
    else this.drawNoise();
    scalars.alpha[0] = this.alpha;
    this.clock.mark('sampling');
    // The critics' rate is fixed (critic_learning_rate, or learning_rate at step 0, as CleanRL's q_lr).
    const critic = await this.checked.critic.step(this.criticFeeds);
    this.record(critic.metrics, this.slots.critic, 'critic');
    this.criticSteps++;

    if (this.criticSteps % s.policy_frequency === 0) {
      for (let k = 0; k < s.policy_frequency; k++) {
        scalars.alpha[0] = this.alpha;
        if (!this.discrete) this.drawNoise();
        const actor = await this.checked.actor.step(this.actorFeeds, lr);
        this.record(actor.metrics, this.slots.actor, 'actor');
        this.actorSteps++;
        if (this.alphaOptimizer) this.temperatureStep(actor.metrics[this.entropySlot]);
      }
      this.policy.sync();
    }
    this.critics.updateTarget(s.tau);
    this.clock.countGradientStep();
    this.clock.mark('gradient');
  }

  /**
   * alpha_loss = -alpha (H_target - H) per CleanRL (its mean over the actions divides the discrete
   * one by n); d alpha_loss / d log_alpha is the same number, so one Adam step on log_alpha.
   */
  private temperatureStep(entropy: number): void {
    const perAction = this.discrete ? 1 / this.actionDim : 1;
    const alphaLoss = -this.alpha * (this.batchTargetEntropy() - entropy) * perAction;
    this.alphaGrad[0][0] = alphaLoss;
    this.alphaResult.loss = alphaLoss;
    this.checked.alpha!.update(this.alphaResult);
    this.sums[SUMMED.indexOf('alpha_loss')] += alphaLoss;
  }

  /**
   * The entropy the temperature aims at for this batch. Under action masks, with target_entropy
   * auto, the discrete scale of each row's own maximum, log(legal actions), averaged: a row with
   * one legal action can have no entropy, and a fixed 0.89 log(n) out of reach would raise the
   * temperature without end.
   */
  private batchTargetEntropy(): number {
    const mask = this.batch.actionMask;
    if (mask === null || this.settings.target_entropy !== null) return this.targetEntropy;
    const n = this.actionDim;
    const rows = this.settings.batch_size;
    let sum = 0;
    for (let j = 0; j < rows; j++) {
      let legal = 0;
      for (let k = 0; k < n; k++) legal += mask[j * n + k];
      sum += Math.log(Math.max(1, legal));
    }
    return (DISCRETE_TARGET_ENTROPY_SCALE * sum) / rows;
  }

  /** The batch's action indices as one-hot rows (the critics' graph picks Q(s, a) with them). */
  private oneHotActions(): void {
    const n = this.actionDim;
    const out = this.batchActions;
    out.fill(0);
    for (let i = 0; i < this.settings.batch_size; i++) out[i * n + this.batch.actions[i]] = 1;
  }

  private drawNoise(): void {
    const { eps } = this;
    const rng = this.rngs.noise;
    for (let i = 0; i < eps.length; i++) eps[i] = rng.normal();
  }

  private get entropySlot(): number {
    return this.actorStep.metricNames.indexOf('entropy');
  }

  /** Adds a step's metrics (checked finite by the step) to the sums. */
  private record(values: Float64Array, slots: readonly number[], which: 'critic' | 'actor'): void {
    for (let k = 0; k < slots.length; k++) this.sums[slots[k]] += values[k];
    this.counts[which]++;
  }

  private metrics(lr: number): Record<string, number> {
    const out: Record<string, number> = { 'charts/learning_rate': lr, 'losses/alpha': this.alpha, 'charts/buffer_size': this.buffer.size };
    const { critic, actor } = this.counts;
    SUMMED.forEach((name, k) => {
      const n = (CRITIC_METRICS as readonly string[]).includes(name) ? critic : actor;
      if (n > 0 && (name !== 'alpha_loss' || this.alphaOptimizer)) out[`losses/${name}`] = this.sums[k] / n;
    });
    if (critic > 0) out['losses/qf_values'] = (out['losses/qf1_values'] + out['losses/qf2_values']) / 2;
    out['losses/gradient_steps'] = critic;
    return { ...out, ...this.clock.metrics() };
  }

  state(): SacState {
    return this.saved.save();
  }

  loadState(saved: unknown): void {
    this.saved.load(saved);
    this.policy.sync();
  }

  async release(): Promise<void> {
    await Promise.all([this.criticStep.release(), this.actorStep.release()]);
  }
}

/** The gradients of one network, picked from its step's (the store's order) into a reused array. */
function pick(all: readonly Float32Array[], into: { readonly slots: readonly number[]; readonly grads: Float32Array[] }): Float32Array[] {
  const { slots, grads } = into;
  for (let k = 0; k < slots.length; k++) grads[k] = all[slots[k]];
  return grads;
}
