// PPO with a recurrent policy (`core: gru(64)` | `lstm(64)`), as CleanRL's ppo_atari_lstm.py:
// the same settings, advantages and loss as ppo.ts; what changes is what the networks read.
//
// - Rollout: each env copy's memory is carried from step to step (policy.stepRows, outside
//   onnxruntime), zeroed where an episode starts; the memory each copy had when the rollout
//   began is kept, and so is each step's episode-start flag. Values come from the same pass
//   (CleanRL's get_action_and_value), not a batched pass afterwards: they depend on the memory.
// - Update: a minibatch is a set of whole env copies (rollout_steps steps each), minibatches
//   = envs / minibatches of them as CleanRL's envsperbatch; the graph unrolls the core over the
//   segment from the stored start memory, zeroing it where an episode starts inside
//   (runtime/tensor/recurrent.ts), so the gradient flows through time within each episode.
//
// The memory is not in checkpoints: a resume restarts every episode (trainer/env-workload.ts),
// so it restarts from zeros, as a new episode does.
import { RECURRENT_ACTOR_CRITIC, type RecurrentActorCritic } from '../../policies/index.js';
import { InputError } from '../../../shared/input-error.js';
import type { Rng } from '../../../shared/random.js';
import { scheduleValue } from '../../schedule.js';
import { Adam, type Graph, type GradientStep } from '../../tensor/index.js';
import type { Algorithm, AlgorithmContext } from '../algorithm.js';
import { explainedVariance, normalize } from '../stats.js';
import { CheckedStep } from '../checked-step.js';
import { learnerState, part, type LearnerState } from '../learner-state.js';
import type { Stepper } from '../stepper.js';
import { computeGae } from './gae.js';
import { maskValues } from '../../envs/action-mask.js';
import { learnerMasks } from '../action-masking.js';
import { buildPpoLoss, LOSS_METRICS, ppoGradientStep } from './loss.js';
import type { PpoSettings } from './settings.js';
import type { PpoState } from './state.js';

/** CleanRL's Adam epsilon for PPO, as ppo.ts. */
const ADAM_EPS = 1e-5;

/** Env copies per minibatch: a rollout splits by copy, so `minibatches` must divide `envs`. */
export function envsPerMinibatch(settings: Pick<PpoSettings, 'minibatches'>, numEnvs: number): number {
  if (numEnvs % settings.minibatches !== 0) {
    throw new InputError(`PPO with a recurrent core splits each rollout into minibatches of whole env copies, so minibatches (${settings.minibatches}) must divide envs (${numEnvs}); set minibatches to one of ${divisors(numEnvs).join(', ')}, or envs to a multiple of ${settings.minibatches}`);
  }
  return numEnvs / settings.minibatches;
}

function divisors(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i + 1).filter((d) => n % d === 0);
}

export class RecurrentPpo implements Algorithm {
  readonly name = 'PPO';
  globalStep = 0;
  iteration = 0;
  private readonly T: number;
  private readonly mbEnvs: number;
  private readonly optimizer: Adam;
  private readonly checked: CheckedStep;
  private readonly position = { epoch: 0, step: 0 };
  // Rollout storage, [step][env] flattened, as ppo.ts.
  private readonly obs: Float32Array;
  private readonly starts: Float32Array;
  private readonly actions: Float32Array;
  private readonly masks: Float32Array;
  private readonly logprobs: Float32Array;
  private readonly rewards: Float32Array;
  private readonly ended: Uint8Array;
  private readonly values: Float32Array;
  private readonly advantages: Float32Array;
  private readonly returns: Float32Array;
  /** Each copy's memory now, and when this rollout began ([env][stateWidth]). */
  private readonly memory: Float32Array;
  private readonly segmentStart: Float32Array;
  /** Whether each copy's next step starts an episode (CleanRL's next_done). */
  private readonly nextStarts: Uint8Array;
  private readonly head: Float32Array;
  private readonly stepValues: Float32Array;
  private readonly envActions;
  private readonly mb;
  private readonly clipCoef = new Float32Array(1);
  private readonly entCoef = new Float32Array(1);
  private readonly invN = new Float32Array(1);
  private readonly envOrder: Int32Array;
  private readonly metricSlots: readonly number[];
  private readonly saved: LearnerState<PpoState>;

  private constructor(
    readonly settings: PpoSettings,
    readonly policy: RecurrentActorCritic,
    readonly stepper: Stepper,
    readonly budget: number,
    private readonly gradients: GradientStep,
    private readonly actionRng: Rng,
    private readonly shuffleRng: Rng,
    private readonly envMasks: Uint8Array | null,
  ) {
    const { numEnvs, obsDim } = stepper;
    const T = (this.T = settings.rollout_steps);
    this.mbEnvs = envsPerMinibatch(settings, numEnvs);
    const width = policy.distribution.encodedWidth;
    const S = policy.stateWidth;
    const batch = T * numEnvs;
    this.optimizer = new Adam(policy.weights, { eps: ADAM_EPS });
    const at = this.position;
    this.checked = new CheckedStep(gradients, {
      learner: 'PPO',
      at: () => `update ${this.iteration + 1}, epoch ${at.epoch + 1}, gradient step ${at.step + 1} of this update`,
      advice: 'try a smaller learning_rate or max_grad_norm',
      weights: policy.weights,
      optimizer: this.optimizer,
      maxGradNorm: settings.max_grad_norm,
    });
    this.obs = new Float32Array(batch * obsDim);
    this.starts = new Float32Array(batch);
    this.actions = new Float32Array(batch * width);
    this.masks = new Float32Array(envMasks !== null ? batch * policy.distribution.headWidth : 0);
    this.logprobs = new Float32Array(batch);
    this.rewards = new Float32Array(batch);
    this.ended = new Uint8Array(batch);
    this.values = new Float32Array(batch);
    this.advantages = new Float32Array(batch);
    this.returns = new Float32Array(batch);
    this.memory = new Float32Array(numEnvs * S);
    this.segmentStart = new Float32Array(numEnvs * S);
    this.nextStarts = new Uint8Array(numEnvs);
    this.head = new Float32Array(numEnvs * policy.distribution.headWidth);
    this.stepValues = new Float32Array(numEnvs);
    this.envActions = stepper.vec.createActionBuffer();
    const rows = T * this.mbEnvs;
    const column = (w: number) => new Float32Array(rows * w);
    this.mb = {
      obs: column(obsDim), starts: column(1), state0: new Float32Array(this.mbEnvs * S), action: column(width), old_logprob: column(1),
      advantages: column(1), returns: column(1), old_values: column(1), action_mask: column(envMasks !== null ? policy.distribution.headWidth : 0),
    };
    this.envOrder = Int32Array.from({ length: numEnvs }, (_, i) => i);
    this.saved = learnerState<PpoState>('PPO', {
      globalStep: part.counter(this, 'globalStep'),
      iteration: part.counter(this, 'iteration'),
      actionRng: part.rng(actionRng),
      shuffleRng: part.rng(shuffleRng),
      weights: part.formerly('params', part.weights(policy.weights)),
      optimizer: part.adam(this.optimizer),
    });
    this.metricSlots = LOSS_METRICS.map((name) => gradients.metricNames.indexOf(name));
  }

  static async create(context: AlgorithmContext, settings: PpoSettings): Promise<RecurrentPpo> {
    const { stepper, compute } = context;
    const mbEnvs = envsPerMinibatch(settings, stepper.numEnvs);
    const policy = context.policy.networks(RECURRENT_ACTOR_CRITIC, 'PPO');
    const masks = learnerMasks(settings.action_mask, stepper.vec, 'PPO');
    const T = settings.rollout_steps;
    const forward = (g: Graph) =>
      policy.buildSequence(g, T, g.input('obs', 'float32', [T, 'N', policy.spaces.obsDim]), g.input('starts', 'float32', [T, 'N']), g.input('state0', 'float32', ['N', policy.stateWidth]));
    const loss = buildPpoLoss(policy, settings, { masked: masks !== null, forward });
    const gradients = await ppoGradientStep(loss, policy, { compute, maxRows: T * mbEnvs, dimLimits: { N: mbEnvs } });
    const rng = context.rng;
    return new RecurrentPpo(settings, policy, stepper, context.budget, gradients, rng.fork('actions'), rng.fork('minibatches'), masks);
  }

  get iterations(): number {
    return Math.max(1, Math.floor(this.budget / (this.T * this.stepper.numEnvs)));
  }

  get done(): boolean {
    return this.iteration >= this.iterations;
  }

  get masksActions(): boolean {
    return this.envMasks !== null;
  }

  hparams(): Record<string, unknown> {
    const s = this.settings;
    const batch = this.T * this.stepper.numEnvs;
    return { ...s, target_kl: s.target_kl ?? 'none', batch_size: batch, minibatch_size: this.T * this.mbEnvs, envs_per_minibatch: this.mbEnvs, iterations: this.iterations, adam_eps: ADAM_EPS };
  }

  async iterate(): Promise<Record<string, number>> {
    const s = this.settings;
    const lr = scheduleValue(s.learning_rate, this.globalStep, this.budget);
    this.clipCoef[0] = scheduleValue(s.clip, this.globalStep, this.budget);
    this.entCoef[0] = scheduleValue(s.entropy_coef, this.globalStep, this.budget);
    const nextValues = this.rollout();
    this.gradients.wake();
    const { numEnvs } = this.stepper;
    computeGae(this.rewards, this.values, this.ended, nextValues, this.T, numEnvs, s.gamma, s.gae_lambda, this.advantages, this.returns);
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

  /** Collects rollout_steps steps of every copy, carrying the memory; returns the values of the observations after the last step. */
  private rollout(): Float32Array {
    const { stepper, policy, envActions, head, memory } = this;
    const { numEnvs, obsDim } = stepper;
    const dist = policy.distribution;
    const { headWidth, envWidth, encodedWidth } = dist;
    const S = policy.stateWidth;
    const vec = stepper.vec;
    this.segmentStart.set(memory);
    for (let t = 0; t < this.T; t++) {
      const obs = stepper.obs;
      this.obs.set(obs, t * numEnvs * obsDim);
      for (let i = 0; i < numEnvs; i++) this.starts[t * numEnvs + i] = this.nextStarts[i]!;
      policy.stepRows(obs, numEnvs, memory, this.nextStarts, head, this.stepValues);
      const masks = this.envMasks;
      if (masks !== null) {
        maskValues(head, numEnvs, headWidth, masks);
        this.masks.set(masks.subarray(0, numEnvs * headWidth), t * numEnvs * headWidth);
      }
      for (let i = 0; i < numEnvs; i++) {
        const b = t * numEnvs + i;
        this.values[b] = this.stepValues[i]!;
        this.logprobs[b] = dist.sample(head, i * headWidth, this.actionRng, envActions, i * envWidth, this.actions, b * encodedWidth);
      }
      stepper.step(envActions);
      this.globalStep += numEnvs;
      for (let i = 0; i < numEnvs; i++) {
        const b = t * numEnvs + i;
        this.rewards[b] = stepper.rewards[i]!;
        this.ended[b] = vec.terminated[i]! | vec.truncated[i]!;
        this.nextStarts[i] = this.ended[b]!;
        if (vec.truncated[i] === 1 && vec.terminated[i] === 0) {
          // A time limit bootstraps from the final observation's value, after this episode's memory (ppo.ts does it in its value pass).
          this.rewards[b] += this.settings.gamma * policy.peekValue(vec.finalObs.subarray(i * obsDim, (i + 1) * obsDim), memory.subarray(i * S, (i + 1) * S));
        }
      }
    }
    const nextValues = new Float32Array(numEnvs);
    const zeros = new Float32Array(S);
    for (let i = 0; i < numEnvs; i++) {
      // An ended copy's next observation is a new episode's; GAE ignores its value anyway.
      const state = this.nextStarts[i] === 1 ? zeros : memory.subarray(i * S, (i + 1) * S);
      nextValues[i] = policy.peekValue(stepper.obs.subarray(i * obsDim, (i + 1) * obsDim), state);
    }
    return nextValues;
  }

  private async update(lr: number): Promise<Record<string, number>> {
    const { settings: s, mb, envOrder, metricSlots, T, mbEnvs } = this;
    const numEnvs = this.stepper.numEnvs;
    const obsDim = this.stepper.obsDim;
    const width = this.policy.distribution.encodedWidth;
    const S = this.policy.stateWidth;
    const sums = new Float64Array(LOSS_METRICS.length);
    const approxKlSlot = metricSlots[LOSS_METRICS.indexOf('approx_kl')]!;
    const at = this.position;
    const n = T * mbEnvs;
    let steps = 0;
    let gradNorm = 0;
    for (let epoch = 0; epoch < s.epochs; epoch++) {
      at.epoch = epoch;
      this.shuffleRng.shuffle(envOrder);
      let approxKl = 0;
      for (let start = 0; start < numEnvs; start += mbEnvs) {
        this.gatherMinibatch(start);
        if (s.normalize_advantages) normalize(mb.advantages, n);
        this.invN[0] = 1 / n;
        const rows = (a: Float32Array, w: number) => ({ data: a, dims: [n, w] });
        const column = (a: Float32Array) => ({ data: a, dims: [n] });
        at.step = steps;
        const out = await this.checked.step({
          obs: { data: mb.obs, dims: [T, mbEnvs, obsDim] },
          starts: { data: mb.starts, dims: [T, mbEnvs] },
          state0: { data: mb.state0, dims: [mbEnvs, S] },
          action: rows(mb.action, width),
          old_logprob: column(mb.old_logprob),
          advantages: column(mb.advantages),
          returns: column(mb.returns),
          old_values: column(mb.old_values),
          ...(this.envMasks !== null ? { action_mask: rows(mb.action_mask, this.policy.distribution.headWidth) } : {}),
          clip_coef: this.clipCoef,
          ent_coef: this.entCoef,
          inv_n: this.invN,
        }, lr);
        for (let k = 0; k < sums.length; k++) sums[k] += out.metrics[metricSlots[k]!]!;
        gradNorm += out.gradNorm;
        approxKl = out.metrics[approxKlSlot]!;
        steps++;
      }
      if (s.target_kl !== null && approxKl > s.target_kl) break;
    }
    this.checked.checkWeights();
    this.policy.sync();
    const metrics: Record<string, number> = { 'losses/grad_norm': gradNorm / steps, 'losses/gradient_steps': steps };
    LOSS_METRICS.forEach((name, k) => (metrics[`losses/${name}`] = sums[k]! / steps));
    return metrics;
  }

  /** The copies envOrder[start .. start + mbEnvs): their whole segments, time-major (row t * mbEnvs + j), and their start memories. */
  private gatherMinibatch(start: number): void {
    const { mb, envOrder, T, mbEnvs } = this;
    const numEnvs = this.stepper.numEnvs;
    const obsDim = this.stepper.obsDim;
    const width = this.policy.distribution.encodedWidth;
    const S = this.policy.stateWidth;
    for (let j = 0; j < mbEnvs; j++) {
      const env = envOrder[start + j]!;
      for (let k = 0; k < S; k++) mb.state0[j * S + k] = this.segmentStart[env * S + k]!;
      for (let t = 0; t < T; t++) {
        const b = t * numEnvs + env;
        const r = t * mbEnvs + j;
        for (let k = 0; k < obsDim; k++) mb.obs[r * obsDim + k] = this.obs[b * obsDim + k]!;
        for (let k = 0; k < width; k++) mb.action[r * width + k] = this.actions[b * width + k]!;
        mb.starts[r] = this.starts[b]!;
        mb.old_logprob[r] = this.logprobs[b]!;
        mb.advantages[r] = this.advantages[b]!;
        mb.returns[r] = this.returns[b]!;
        mb.old_values[r] = this.values[b]!;
        const m = this.policy.distribution.headWidth;
        if (this.envMasks !== null) for (let k = 0; k < m; k++) mb.action_mask[r * m + k] = this.masks[b * m + k]!;
      }
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
  }
}
