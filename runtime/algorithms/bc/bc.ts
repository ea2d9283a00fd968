// Behavioural cloning from a dataset of transitions, as CORL's any_percent_bc.py (with frac 1:
// every trajectory): uniform batches of the dataset, one Adam step each on the mean squared error
// between the actor's action and the dataset's, over normalised observations. Offline: no env
// step is taken; a step of the budget is one gradient step, and the trainer evaluates the actor
// in the env as it evaluates any policy.
import { scheduleValue } from '../../schedule.js';
import { Adam, Graph, WeightStore, type AdamState, type Feed, type GradientStep, type WeightSnapshot } from '../../tensor/index.js';
import type { Rng } from '../../../shared/random.js';
import type { Algorithm, AlgorithmContext, AlgorithmDefinition } from '../algorithm.js';
import { CheckedStep } from '../checked-step.js';
import { learnerState, part, type LearnerState } from '../learner-state.js';
import { OfflineActor } from '../offline/actor.js';
import { GRADIENT_STEPS_PER_ITERATE, MetricSums, OfflineBatch, prepareOfflineData } from '../offline/dataset.js';
import { OFFLINE_ACTOR } from '../offline/networks.js';
import { offPolicyGradientStep } from '../replay/off-policy-step.js';
import { bcSettings, type BcSettings } from './settings.js';

export const BC: AlgorithmDefinition<BcSettings> = {
  name: 'BC',
  actions: ['continuous'],
  params: bcSettings,
  create: (context, settings) => Bc.create(context, settings),
};

/** Adam's epsilon: torch's default (CORL). */
const ADAM_EPS = 1e-8;

export interface BcState {
  globalStep: number;
  rng: number[];
  actor: WeightSnapshot;
  optimizer: AdamState;
}

/** BC's loss: mean over the batch and the action numbers of (pi(s) - a)^2 (F.mse_loss). Inputs: obs (normalised), action. */
export function buildBcLoss(actor: OfflineActor): { graph: Graph; loss: ReturnType<Graph['input']>; metrics: Record<string, ReturnType<Graph['input']>> } {
  const g = new Graph();
  const obs = g.input('obs', 'float32', ['B', actor.spaces.obsDim]);
  const action = g.input('action', 'float32', ['B', actor.actionDim]);
  const loss = g.reduceMean(g.square(g.sub(actor.action(g, obs), action)));
  return { graph: g, loss, metrics: { actor_loss: loss } };
}

export class Bc implements Algorithm {
  readonly name = 'BC';
  globalStep = 0;
  private readonly optimizer: Adam;
  private readonly checked: CheckedStep;
  private readonly feeds: Record<string, Feed>;
  private readonly sums = new MetricSums();
  private readonly saved: LearnerState<BcState>;

  private constructor(
    readonly settings: BcSettings,
    readonly policy: OfflineActor,
    private readonly batch: OfflineBatch,
    private readonly step: GradientStep,
    readonly budget: number,
    private readonly rng: Rng,
  ) {
    this.optimizer = new Adam(policy.weights, { eps: ADAM_EPS });
    this.checked = new CheckedStep(step, { learner: 'BC', at: () => `gradient step ${this.globalStep + 1}`, advice: 'try a smaller learning_rate', weights: policy.weights, optimizer: this.optimizer });
    const b = settings.batch_size;
    this.feeds = { obs: { data: batch.obs, dims: [b, policy.spaces.obsDim] }, action: { data: batch.actions, dims: [b, policy.actionDim] } };
    this.saved = learnerState<BcState>('BC', {
      globalStep: part.counter(this, 'globalStep'),
      rng: part.rng(rng),
      actor: part.weights(policy.weights),
      optimizer: part.adam(this.optimizer),
    });
  }

  static async create(context: AlgorithmContext, settings: BcSettings): Promise<Bc> {
    const { actor } = context.policy.networks(OFFLINE_ACTOR, 'BC');
    const data = prepareOfflineData('BC', context.dataFiles, context.stepper, settings.normalize, actor);
    const step = await offPolicyGradientStep(buildBcLoss(actor), WeightStore.union(actor.weights), actor.weights, { compute: context.compute, maxRows: settings.batch_size });
    return new Bc(settings, actor, new OfflineBatch(data, settings.batch_size), step, context.budget, context.rng.fork('batches'));
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
      const out = await this.checked.step(this.feeds, lr);
      this.sums.add('losses/actor_loss', out.loss);
      this.globalStep++;
    }
    this.policy.sync();
    this.checked.checkWeights(() => `after gradient step ${this.globalStep}`);
    return { ...this.sums.take(), 'charts/learning_rate': lr };
  }

  state(): BcState {
    return this.saved.save();
  }

  loadState(saved: unknown): void {
    this.saved.load(saved);
    this.policy.sync();
  }

  async release(): Promise<void> {
    await this.step.release();
  }
}
