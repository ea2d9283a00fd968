// A numeric learner module at work: the off-policy loop SAC runs (../replay/off-policy.ts) with
// the losses built by the module. rlx collects (uniformly random actions until learning_starts,
// then the deterministic actor plus exploration noise), stores every transition in a replay
// buffer, and each update samples a batch, draws batch.noise, takes the critics' step and then
// the actor's when their `every` is due (checked Adam steps: a loss, metric, gradient or weight
// that is not finite stops the run naming the module, ../checked-step.ts), and after an actor
// step moves the target actor and target critics towards theirs by tau. Networks in
// numeric-networks.ts, the module's losses in numeric-loss.ts.
import type { Rng } from '../../../shared/random.js';
import type { LearnerSettings } from '../../learner/text-batch.js';
import { scheduleValue, type Schedulable } from '../../schedule.js';
import { Adam, WeightStore, type AdamState, type Feed, type GradientStep, type WeightSnapshot } from '../../tensor/index.js';
import type { Algorithm, AlgorithmContext } from '../algorithm.js';
import { CheckedStep } from '../checked-step.js';
import { learnerState, part, type LearnerState } from '../learner-state.js';
import { PhaseClock } from '../phase-clock.js';
import { ReplayBuffer, type ReplayBatch, type ReplayState } from '../replay/buffer.js';
import { createStoreScratch, stepAndStore, type StoreScratch } from '../replay/collect.js';
import { randomActions, runOffPolicy } from '../replay/off-policy.js';
import { offPolicyGradientStep } from '../replay/off-policy-step.js';
import type { TwinCritics } from '../replay/twin-critics.js';
import type { Stepper } from '../stepper.js';
import type { LoadedLearner } from './load.js';
import { buildNumericLosses, LOSS_KEYS, type BuiltNumericLoss, type LossKey } from './numeric-loss.js';
import { NUMERIC_LEARNER_NETWORKS, type DeterministicActor } from './numeric-networks.js';

/** Adam's epsilon: torch's default, as CleanRL's td3_continuous_action.py. */
export const NUMERIC_ADAM_EPS = 1e-8;

/** Env steps per iterate(): the trainer logs, evaluates and checks its stop condition between them. */
const STEPS_PER_ITERATE = 1000;

/** rlx's settings of a numeric learner module (dsl/schema/learner-module.ts NUMERIC_LEARNER_PARAMS), and the module's own. */
export interface ModuleNumericSettings {
  readonly learning_rate: Schedulable;
  readonly buffer: number;
  readonly batch_size: number;
  readonly gamma: number;
  readonly tau: number;
  readonly learning_starts: number;
  readonly exploration_noise: number;
  readonly train_every: number;
  readonly gradient_steps: number;
  readonly module: LearnerSettings;
}

export interface ModuleNumericState {
  globalStep: number;
  updates: number;
  rngs: { actions: number[]; noise: number[]; replay: number[] };
  actor: WeightSnapshot;
  targetActor: WeightSnapshot;
  critics: WeightSnapshot;
  targetCritics: WeightSnapshot;
  optimizers: { actor: AdamState; critics: AdamState };
  /** null in a checkpoint older than the newest (only the newest keeps the buffer). */
  buffer: ReplayState | null;
}

/** One loss of the module as rlx steps it. */
interface LossStep {
  readonly key: LossKey;
  readonly every: number;
  readonly checked: CheckedStep;
  readonly step: GradientStep;
  /** `learner/NAME` per metric of the step (after its loss), and their sums this iterate. */
  readonly metricNames: readonly string[];
  readonly sums: Float64Array;
  taken: number;
  lossSum: number;
}

export class ModuleNumericLearner implements Algorithm {
  globalStep = 0;
  /** Batches sampled (each an update: the critics' step and the actor's when due). */
  updates = 0;
  private readonly batch: ReplayBatch;
  private readonly noise: Float32Array;
  private readonly envActions;
  private readonly scratch: StoreScratch;
  private readonly feeds: Record<string, Feed>;
  private readonly steps: readonly LossStep[];
  private readonly clock = new PhaseClock();
  private readonly saved: LearnerState<ModuleNumericState>;
  private lr = 0;

  private constructor(
    readonly learner: LoadedLearner,
    readonly settings: ModuleNumericSettings,
    readonly policy: DeterministicActor,
    private readonly critics: TwinCritics,
    readonly stepper: Stepper,
    readonly budget: number,
    readonly buffer: ReplayBuffer,
    built: Readonly<Record<LossKey, BuiltNumericLoss>>,
    gradientSteps: Readonly<Record<LossKey, GradientStep>>,
    storeNames: readonly string[],
    private readonly rngs: { readonly actions: Rng; readonly noise: Rng; readonly replay: Rng },
  ) {
    const optimizers = { actor: new Adam(policy.weights, { eps: NUMERIC_ADAM_EPS }), critics: new Adam(critics.weights, { eps: NUMERIC_ADAM_EPS }) };
    const trained = { actor: policy.weights, critics: critics.weights };
    this.steps = LOSS_KEYS.map((key): LossStep => {
      const step = gradientSteps[key];
      const slots = trained[key].names.map((n) => storeNames.indexOf(n));
      const grads: Float32Array[] = [];
      const checked = new CheckedStep(step, {
        learner: learner.label,
        at: () => `update ${this.updates}, the ${key} loss's step ${this.steps.find((s) => s.key === key)!.taken + 1}`,
        advice: `the ${key} loss its buildLosses built is not finite there: check its divisions, logs and exps (guard them with g.max(x, eps) or g.clip), or try a smaller learning_rate`,
        weights: trained[key],
        optimizer: optimizers[key],
        pick: (all) => {
          for (let k = 0; k < slots.length; k++) grads[k] = all[slots[k]];
          return grads;
        },
      });
      return { key, every: built[key].every, checked, step, metricNames: step.metricNames, sums: new Float64Array(step.metricNames.length), taken: 0, lossSum: 0 };
    });
    this.saved = learnerState<ModuleNumericState>(learner.label, {
      globalStep: part.counter(this, 'globalStep'),
      updates: part.counter(this, 'updates'),
      rngs: part.group({ actions: part.rng(rngs.actions), noise: part.rng(rngs.noise), replay: part.rng(rngs.replay) }),
      actor: part.weights(policy.weights),
      targetActor: part.weights(policy.target),
      critics: part.weights(critics.weights),
      targetCritics: part.weights(critics.target),
      optimizers: part.group({ actor: part.adam(optimizers.actor), critics: part.adam(optimizers.critics) }),
      buffer: part.optional(part.object('a replay buffer', buffer)),
    });
    const b = settings.batch_size;
    const A = policy.actionDim;
    const { obsDim } = stepper;
    this.batch = buffer.createBatch(b);
    this.noise = new Float32Array(b * A);
    this.envActions = stepper.vec.createActionBuffer();
    this.scratch = createStoreScratch(stepper);
    // Fed whether or not the graph reads them: a session takes only its own inputs.
    this.feeds = {
      obs: { data: this.batch.obs, dims: [b, obsDim] },
      action: { data: this.batch.actions, dims: [b, A] },
      reward: { data: this.batch.rewards, dims: [b] },
      next_obs: { data: this.batch.nextObs, dims: [b, obsDim] },
      done: { data: this.batch.dones, dims: [b] },
      noise: { data: this.noise, dims: [b, A] },
    };
  }

  get name(): string {
    return this.learner.label;
  }

  static async create(context: AlgorithmContext, learner: LoadedLearner, settings: ModuleNumericSettings): Promise<ModuleNumericLearner> {
    if (learner.entry.kind !== 'numeric') throw new Error(`${learner.label} is not a numeric learner`); // learnerDefinition picks by kind
    const { stepper, compute, rng } = context;
    const { actor, critics } = context.policy.networks(NUMERIC_LEARNER_NETWORKS, learner.label);
    actor.explorationNoise = settings.exploration_noise;
    const buffer = new ReplayBuffer({
      capacity: Math.min(settings.buffer, Math.max(context.budget, 1)),
      numEnvs: stepper.numEnvs,
      obsDim: stepper.obsDim,
      actionWidth: actor.actionDim,
      relabel: null,
      goals: null,
    });
    const built = buildNumericLosses(learner.label, learner.entry.buildLosses, settings.module, settings.gamma, {
      obsDim: stepper.obsDim,
      actionDim: actor.actionDim,
      low: actor.low,
      high: actor.high,
      scale: actor.affine.scale,
      actor: (g, obs, target) => actor.action(g, obs, target),
      q: (g, which, obs, action, target) => critics.q(g, which, obs, action, target),
      trained: {
        actor: { actor: actor.weights.names },
        critics: { q1: critics.weights.names.filter((n) => n.startsWith('q1.')), q2: critics.weights.names.filter((n) => n.startsWith('q2.')) },
      },
    });
    // Every network in one store, the ones a loss does not train frozen (as SAC's steps).
    const store = WeightStore.union(actor.weights, actor.target, critics.weights, critics.target);
    const trained = { actor: actor.weights, critics: critics.weights };
    const options = { compute, maxRows: settings.batch_size };
    const [criticsStep, actorStep] = await Promise.all(LOSS_KEYS.map((key) => {
      const { loss, metrics } = built.losses[key];
      return offPolicyGradientStep({ graph: built.graph, loss, metrics }, store, trained[key], options);
    }));
    const rngs = { actions: rng.fork('actions'), noise: rng.fork('noise'), replay: rng.fork('replay') };
    return new ModuleNumericLearner(learner, settings, actor, critics, stepper, context.budget, buffer, built.losses, { critics: criticsStep!, actor: actorStep! }, store.names, rngs);
  }

  get done(): boolean {
    return this.globalStep >= this.budget;
  }

  hparams(): Record<string, unknown> {
    const { module, ...own } = this.settings;
    return { ...own, ...module, critics_every: this.steps[0].every, actor_every: this.steps[1].every, buffer_positions: this.buffer.positions, adam_eps: NUMERIC_ADAM_EPS };
  }

  /** STEPS_PER_ITERATE env steps (fewer at the budget's end), learning as it goes; the mean losses. */
  async iterate(): Promise<Record<string, number>> {
    const end = Math.min(this.budget, this.globalStep + STEPS_PER_ITERATE);
    for (const s of this.steps) {
      s.sums.fill(0);
      s.taken = 0;
      s.lossSum = 0;
    }
    this.lr = scheduleValue(this.settings.learning_rate, this.globalStep, this.budget);
    this.clock.restart();
    const self = this;
    await runOffPolicy({ get globalStep() { return self.globalStep; }, collect: () => this.collect(), train: () => this.train() }, end, this.settings);
    for (const s of this.steps) s.checked.checkWeights(() => `after update ${this.updates}`);
    return this.metrics();
  }

  private collect(): void {
    const { stepper, envActions } = this;
    if (this.globalStep < this.settings.learning_starts) randomActions(stepper.vec.actionSpace, envActions, this.rngs.actions);
    else this.policy.act(stepper.obs, stepper.numEnvs, envActions, false, this.rngs.actions);
    stepAndStore(stepper, this.buffer, envActions, this.scratch);
    this.globalStep += stepper.numEnvs;
    this.clock.mark('acting');
  }

  private async train(): Promise<void> {
    this.buffer.sample(this.settings.batch_size, this.rngs.replay, this.batch);
    const { noise } = this;
    for (let i = 0; i < noise.length; i++) noise[i] = this.rngs.noise.normal();
    this.updates++;
    this.clock.mark('sampling');
    let actorStepped = false;
    for (const s of this.steps) {
      if (this.updates % s.every !== 0) continue;
      const out = await s.checked.step(this.feeds, this.lr);
      s.taken++;
      s.lossSum += out.loss;
      for (let k = 0; k < s.sums.length; k++) s.sums[k] += out.metrics[k];
      if (s.key === 'actor') actorStepped = true;
    }
    if (actorStepped) {
      this.policy.sync();
      this.policy.updateTarget(this.settings.tau);
      this.critics.updateTarget(this.settings.tau);
    }
    this.clock.countGradientStep();
    this.clock.mark('gradient');
  }

  private metrics(): Record<string, number> {
    const out: Record<string, number> = { 'charts/learning_rate': this.lr, 'charts/buffer_size': this.buffer.size };
    let updates = 0;
    for (const s of this.steps) {
      if (s.taken === 0) continue;
      out[`losses/${s.key}_loss`] = s.lossSum / s.taken;
      s.metricNames.forEach((name, k) => (out[`learner/${name}`] = s.sums[k] / s.taken));
      if (s.key === 'critics') updates = s.taken;
    }
    out['losses/gradient_steps'] = updates;
    return { ...out, ...this.clock.metrics() };
  }

  state(): ModuleNumericState {
    return this.saved.save();
  }

  loadState(saved: unknown): void {
    this.saved.load(saved);
    this.policy.sync();
  }

  async release(): Promise<void> {
    await Promise.all(this.steps.map((s) => s.step.release()));
  }
}
