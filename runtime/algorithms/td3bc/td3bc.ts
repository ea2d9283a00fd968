// TD3+BC (Fujimoto and Gu 2021), as CORL's td3_bc.py: on uniform batches of a dataset of
// transitions (observations normalised, by default), a step on the twin critics each gradient
// step and, every policy_frequency of them, a step on the actor followed by a Polyak update of
// the target actor and target critics (CORL's order). Offline: no env step is taken; a step of
// the budget is one critic step, and the trainer evaluates the actor in the env. Losses in loss.ts.
import { scheduleValue } from '../../schedule.js';
import { Adam, WeightStore, type AdamState, type Feed, type GradientStep, type WeightSnapshot } from '../../tensor/index.js';
import type { Rng } from '../../../shared/random.js';
import type { Algorithm, AlgorithmContext, AlgorithmDefinition } from '../algorithm.js';
import { CheckedStep } from '../checked-step.js';
import { learnerState, part, type LearnerState } from '../learner-state.js';
import type { OfflineActor } from '../offline/actor.js';
import { GRADIENT_STEPS_PER_ITERATE, MetricSums, OfflineBatch, prepareOfflineData } from '../offline/dataset.js';
import { TD3BC_NETWORKS } from '../offline/networks.js';
import { offPolicyGradientStep } from '../replay/off-policy-step.js';
import type { TwinCritics } from '../replay/twin-critics.js';
import { buildTd3bcActorLoss, buildTd3bcCriticLoss } from './loss.js';
import { td3bcSettings, type Td3bcSettings } from './settings.js';

export const TD3BC: AlgorithmDefinition<Td3bcSettings> = {
  name: 'TD3BC',
  actions: ['continuous'],
  params: td3bcSettings,
  create: (context, settings) => Td3bc.create(context, settings),
};

/** Adam's epsilon: torch's default (CORL). */
const ADAM_EPS = 1e-8;

export interface Td3bcState {
  globalStep: number;
  actorSteps: number;
  rngs: { batches: number[]; noise: number[] };
  actor: WeightSnapshot;
  targetActor: WeightSnapshot;
  critics: WeightSnapshot;
  targetCritics: WeightSnapshot;
  optimizers: { actor: AdamState; critics: AdamState };
}

export class Td3bc implements Algorithm {
  readonly name = 'TD3BC';
  /** Critic steps taken (a step of the budget each). */
  globalStep = 0;
  actorSteps = 0;
  private readonly optimizers: { readonly actor: Adam; readonly critics: Adam };
  private readonly checked: { readonly critics: CheckedStep; readonly actor: CheckedStep };
  private readonly noise: Float32Array;
  private readonly scalars = { gamma: new Float32Array(1), alpha: new Float32Array(1) };
  private readonly criticFeeds: Record<string, Feed>;
  private readonly actorFeeds: Record<string, Feed>;
  private readonly sums = new MetricSums();
  private readonly saved: LearnerState<Td3bcState>;

  private constructor(
    readonly settings: Td3bcSettings,
    readonly policy: OfflineActor,
    private readonly critics: TwinCritics,
    private readonly batch: OfflineBatch,
    private readonly steps: { readonly critics: GradientStep; readonly actor: GradientStep },
    storeNames: { readonly critics: readonly string[]; readonly actor: readonly string[] },
    readonly budget: number,
    private readonly rngs: { readonly batches: Rng; readonly noise: Rng },
  ) {
    this.optimizers = { actor: new Adam(policy.weights, { eps: ADAM_EPS }), critics: new Adam(critics.weights, { eps: ADAM_EPS }) };
    const picker = (names: readonly string[], of: readonly string[]) => {
      const slots = of.map((n) => names.indexOf(n));
      const grads: Float32Array[] = [];
      return (all: readonly Float32Array[]) => {
        for (let k = 0; k < slots.length; k++) grads[k] = all[slots[k]!]!;
        return grads;
      };
    };
    const advice = 'try a smaller learning_rate';
    this.checked = {
      critics: new CheckedStep(steps.critics, { learner: 'TD3BC', at: () => `critic step ${this.globalStep + 1}`, advice, weights: critics.weights, optimizer: this.optimizers.critics, pick: picker(storeNames.critics, critics.weights.names) }),
      actor: new CheckedStep(steps.actor, { learner: 'TD3BC', at: () => `actor step ${this.actorSteps + 1}, critic step ${this.globalStep}`, advice, weights: policy.weights, optimizer: this.optimizers.actor, pick: picker(storeNames.actor, policy.weights.names) }),
    };
    const b = settings.batch_size;
    const A = policy.actionDim;
    const d = policy.spaces.obsDim;
    this.noise = new Float32Array(b * A);
    this.scalars.gamma[0] = settings.gamma;
    this.scalars.alpha[0] = settings.alpha;
    this.criticFeeds = {
      obs: { data: batch.obs, dims: [b, d] },
      action: { data: batch.actions, dims: [b, A] },
      reward: { data: batch.rewards, dims: [b] },
      next_obs: { data: batch.nextObs, dims: [b, d] },
      done: { data: batch.dones, dims: [b] },
      noise: { data: this.noise, dims: [b, A] },
      gamma: this.scalars.gamma,
    };
    this.actorFeeds = { obs: this.criticFeeds.obs!, action: this.criticFeeds.action!, alpha: this.scalars.alpha };
    this.saved = learnerState<Td3bcState>('TD3BC', {
      globalStep: part.counter(this, 'globalStep'),
      actorSteps: part.counter(this, 'actorSteps'),
      rngs: part.group({ batches: part.rng(rngs.batches), noise: part.rng(rngs.noise) }),
      actor: part.weights(policy.weights),
      targetActor: part.weights(policy.target),
      critics: part.weights(critics.weights),
      targetCritics: part.weights(critics.target),
      optimizers: part.group({ actor: part.adam(this.optimizers.actor), critics: part.adam(this.optimizers.critics) }),
    });
  }

  static async create(context: AlgorithmContext, settings: Td3bcSettings): Promise<Td3bc> {
    const { actor, critics } = context.policy.networks(TD3BC_NETWORKS, 'TD3BC');
    const data = prepareOfflineData('TD3BC', context.dataFiles, context.stepper, settings.normalize, actor);
    const options = { compute: context.compute, maxRows: settings.batch_size };
    const criticStore = WeightStore.union(actor.target, critics.weights, critics.target);
    const actorStore = WeightStore.union(actor.weights, critics.weights);
    const [criticStep, actorStep] = await Promise.all([
      offPolicyGradientStep(buildTd3bcCriticLoss(actor, critics), criticStore, critics.weights, options),
      offPolicyGradientStep(buildTd3bcActorLoss(actor, critics), actorStore, actor.weights, options),
    ]);
    const rngs = { batches: context.rng.fork('batches'), noise: context.rng.fork('noise') };
    return new Td3bc(settings, actor, critics, new OfflineBatch(data, settings.batch_size), { critics: criticStep, actor: actorStep }, { critics: criticStore.names, actor: actorStore.names }, context.budget, rngs);
  }

  get done(): boolean {
    return this.globalStep >= this.budget;
  }

  hparams(): Record<string, unknown> {
    return { ...this.settings, transitions: this.batch.data.size, adam_eps: ADAM_EPS };
  }

  async iterate(): Promise<Record<string, number>> {
    const s = this.settings;
    const end = Math.min(this.budget, this.globalStep + GRADIENT_STEPS_PER_ITERATE);
    const lr = scheduleValue(s.learning_rate, this.globalStep, this.budget);
    const scale = this.policy.affine.scale;
    const A = this.policy.actionDim;
    while (this.globalStep < end) {
      this.batch.sample(this.rngs.batches);
      for (let i = 0; i < this.noise.length; i++) {
        const n = Math.max(-s.noise_clip, Math.min(s.noise_clip, s.policy_noise * this.rngs.noise.normal()));
        this.noise[i] = n * scale[i % A]!;
      }
      const critic = await this.checked.critics.step(this.criticFeeds, lr);
      this.record('critics', critic.metrics);
      this.globalStep++;
      if (this.globalStep % s.policy_frequency !== 0) continue;
      const actor = await this.checked.actor.step(this.actorFeeds, lr);
      this.record('actor', actor.metrics);
      this.actorSteps++;
      this.policy.updateTarget(s.tau);
      this.critics.updateTarget(s.tau);
    }
    this.policy.sync();
    const at = () => `after critic step ${this.globalStep}`;
    this.checked.critics.checkWeights(at);
    this.checked.actor.checkWeights(at);
    return { ...this.sums.take(), 'charts/learning_rate': lr };
  }

  private record(which: 'critics' | 'actor', values: Float64Array): void {
    this.steps[which].metricNames.forEach((name, k) => this.sums.add(`losses/${name}`, values[k]!));
  }

  state(): Td3bcState {
    return this.saved.save();
  }

  loadState(saved: unknown): void {
    this.saved.load(saved);
    this.policy.sync();
  }

  async release(): Promise<void> {
    await Promise.all([this.steps.critics.release(), this.steps.actor.release()]);
  }
}
