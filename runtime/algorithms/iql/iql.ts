// Implicit Q-Learning (Kostrikov et al. 2021), as CORL's iql.py with its deterministic actor: on
// uniform batches of a dataset of transitions (observations normalised, by default), each
// gradient step takes the actor's step (advantage-weighted regression), the critics' (toward
// r + gamma V(s')) and V's (expectile regression on the target critics), then a Polyak update of
// the target critics. That order gives CORL's updates exactly: its actor and V read the advantage
// and the targets as they were before the step, and its critics V before V's update. Offline: no
// env step is taken; a step of the budget is one gradient step. Losses in loss.ts.
//
// Differences from CORL: the actor's learning rate is `learning_rate` (a schedule if the user
// writes one), where CORL anneals it by a cosine over the run; CORL's default Gaussian actor is
// not offered (its iql_deterministic option is).
import { scheduleValue } from '../../schedule.js';
import { Adam, WeightStore, type AdamState, type Feed, type GradientStep, type WeightSnapshot } from '../../tensor/index.js';
import type { Rng } from '../../../shared/random.js';
import type { Algorithm, AlgorithmContext, AlgorithmDefinition } from '../algorithm.js';
import { CheckedStep } from '../checked-step.js';
import { learnerState, part, type LearnerState } from '../learner-state.js';
import type { OfflineActor } from '../offline/actor.js';
import { GRADIENT_STEPS_PER_ITERATE, MetricSums, OfflineBatch, prepareOfflineData } from '../offline/dataset.js';
import { IQL_NETWORKS } from '../offline/networks.js';
import type { ValueNetwork } from '../offline/value-network.js';
import { offPolicyGradientStep } from '../replay/off-policy-step.js';
import type { TwinCritics } from '../replay/twin-critics.js';
import { buildIqlActorLoss, buildIqlCriticLoss, buildValueLoss } from './loss.js';
import { iqlSettings, type IqlSettings } from './settings.js';

export const IQL: AlgorithmDefinition<IqlSettings> = {
  name: 'IQL',
  actions: ['continuous'],
  params: iqlSettings,
  create: (context, settings) => Iql.create(context, settings),
};

/** Adam's epsilon: torch's default (CORL). */
const ADAM_EPS = 1e-8;

type Part = 'actor' | 'critics' | 'value';
const PARTS: readonly Part[] = ['actor', 'critics', 'value'];

export interface IqlState {
  globalStep: number;
  rng: number[];
  actor: WeightSnapshot;
  critics: WeightSnapshot;
  targetCritics: WeightSnapshot;
  value: WeightSnapshot;
  optimizers: { actor: AdamState; critics: AdamState; value: AdamState };
}

export class Iql implements Algorithm {
  readonly name = 'IQL';
  globalStep = 0;
  private readonly checked: Readonly<Record<Part, CheckedStep>>;
  private readonly feeds: Readonly<Record<Part, Record<string, Feed>>>;
  private readonly sums = new MetricSums();
  private readonly saved: LearnerState<IqlState>;

  private constructor(
    readonly settings: IqlSettings,
    readonly policy: OfflineActor,
    private readonly critics: TwinCritics,
    value: ValueNetwork,
    private readonly batch: OfflineBatch,
    private readonly steps: Readonly<Record<Part, GradientStep>>,
    storeNames: Readonly<Record<Part, readonly string[]>>,
    readonly budget: number,
    private readonly rng: Rng,
  ) {
    const trained = { actor: policy.weights, critics: critics.weights, value: value.weights };
    const optimizers = { actor: new Adam(policy.weights, { eps: ADAM_EPS }), critics: new Adam(critics.weights, { eps: ADAM_EPS }), value: new Adam(value.weights, { eps: ADAM_EPS }) };
    const checked = {} as Record<Part, CheckedStep>;
    for (const which of PARTS) {
      const slots = trained[which].names.map((n) => storeNames[which].indexOf(n));
      const grads: Float32Array[] = [];
      checked[which] = new CheckedStep(steps[which], {
        learner: 'IQL', at: () => `gradient step ${this.globalStep + 1} (${which})`, advice: 'try a smaller learning_rate or temperature',
        weights: trained[which], optimizer: optimizers[which],
        pick: (all) => {
          for (let k = 0; k < slots.length; k++) grads[k] = all[slots[k]!]!;
          return grads;
        },
      });
    }
    this.checked = checked;
    const b = settings.batch_size;
    const A = policy.actionDim;
    const d = policy.spaces.obsDim;
    const obs: Feed = { data: batch.obs, dims: [b, d] };
    const action: Feed = { data: batch.actions, dims: [b, A] };
    this.feeds = {
      actor: { obs, action, beta: new Float32Array([settings.temperature]) },
      critics: { obs, action, reward: { data: batch.rewards, dims: [b] }, next_obs: { data: batch.nextObs, dims: [b, d] }, done: { data: batch.dones, dims: [b] }, gamma: new Float32Array([settings.gamma]) },
      value: { obs, action, expectile: new Float32Array([settings.expectile]) },
    };
    this.saved = learnerState<IqlState>('IQL', {
      globalStep: part.counter(this, 'globalStep'),
      rng: part.rng(rng),
      actor: part.weights(policy.weights),
      critics: part.weights(critics.weights),
      targetCritics: part.weights(critics.target),
      value: part.weights(value.weights),
      optimizers: part.group({ actor: part.adam(optimizers.actor), critics: part.adam(optimizers.critics), value: part.adam(optimizers.value) }),
    });
  }

  static async create(context: AlgorithmContext, settings: IqlSettings): Promise<Iql> {
    const { actor, critics, value } = context.policy.networks(IQL_NETWORKS, 'IQL');
    const data = prepareOfflineData('IQL', context.dataFiles, context.stepper, settings.normalize, actor);
    const options = { compute: context.compute, maxRows: settings.batch_size };
    const stores = {
      actor: WeightStore.union(actor.weights, critics.target, value.weights),
      critics: WeightStore.union(critics.weights, value.weights),
      value: WeightStore.union(value.weights, critics.target),
    };
    const [actorStep, criticStep, valueStep] = await Promise.all([
      offPolicyGradientStep(buildIqlActorLoss(actor, critics, value), stores.actor, actor.weights, options),
      offPolicyGradientStep(buildIqlCriticLoss(actor, critics, value), stores.critics, critics.weights, options),
      offPolicyGradientStep(buildValueLoss(actor, critics, value), stores.value, value.weights, options),
    ]);
    return new Iql(settings, actor, critics, value, new OfflineBatch(data, settings.batch_size),
      { actor: actorStep, critics: criticStep, value: valueStep },
      { actor: stores.actor.names, critics: stores.critics.names, value: stores.value.names },
      context.budget, context.rng.fork('batches'));
  }

  get done(): boolean {
    return this.globalStep >= this.budget;
  }

  hparams(): Record<string, unknown> {
    return { ...this.settings, transitions: this.batch.data.size, adam_eps: ADAM_EPS };
  }

  async iterate(): Promise<Record<string, number>> {
    const end = Math.min(this.budget, this.globalStep + GRADIENT_STEPS_PER_ITERATE);
    const lr = scheduleValue(this.settings.learning_rate, this.globalStep, this.budget);
    while (this.globalStep < end) {
      this.batch.sample(this.rng);
      for (const which of PARTS) {
        const out = await this.checked[which].step(this.feeds[which], lr);
        this.steps[which].metricNames.forEach((name, k) => this.sums.add(`losses/${name}`, out.metrics[k]!));
      }
      this.critics.updateTarget(this.settings.tau);
      this.globalStep++;
    }
    this.policy.sync();
    for (const which of PARTS) this.checked[which].checkWeights(() => `after gradient step ${this.globalStep}`);
    return { ...this.sums.take(), 'charts/learning_rate': lr };
  }

  state(): IqlState {
    return this.saved.save();
  }

  loadState(saved: unknown): void {
    this.saved.load(saved);
    this.policy.sync();
  }

  async release(): Promise<void> {
    await Promise.all(PARTS.map((which) => this.steps[which].release()));
  }
}
