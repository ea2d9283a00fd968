// The policy-gradient learner of text envs, shared by GRPO (../grpo/) and by REINFORCE/RLOO on
// text (../reinforce/text.ts), which import it from here rather than from each other. Each
// update goes through these steps, each its own module here:
//
//   collect (collect.ts)          sample groups (several samples from one start: one prompt, or
//                                 one dialogue start) from the env, scored;
//   KL in the reward (kl.ts)      where `klInReward`, each reward less kl_coef times its KL;
//   filter (filter.ts)            count the groups whose rewards are all equal;
//   advantages                    one per sample, from the config (GRPO's: advantages.ts);
//   token weights (token-weights.ts)  how much each token counts in the loss;
//   loss terms (policy-gradient-loss.ts, loss-terms.ts)  `iterations` Adam steps on the clipped,
//                                 KL-penalised token objective.
//
// - pi_old is the policy that sampled the batch. With several iterations its log-probabilities
//   are computed once per batch, before the first step, by a forward pass of the same model.
//   With one, the gradient step takes them from its own forward pass (policy-gradient-loss.ts): the ratio is 1
//   and the clip never acts, so the gradient is REINFORCE's, A * grad log pi.
// - pi_ref (a KL reference) is the policy as the stage began: a copy of the weights, kept in
//   the checkpoint so a resumed run penalises the same reference.
// - Adam with PyTorch's default epsilon; gradients clipped to max_grad_norm; a loss, gradient
//   or weight that is not finite stops the run (../checked-step.ts).
import { graphWeights, type LanguageModel } from '../../policies/index.js';
import type { Rng } from '../../../shared/random.js';
import { scheduleValue, type Schedulable } from '../../schedule.js';
import { Adam, type AdamState, GradientStep, Session, type Compute, type Dim, type WeightSnapshot, type WeightStore } from '../../tensor/index.js';
import type { TextRolloutRecorder } from '../../run/text-rollouts.js';
import type { TextEnv } from '../../text/text-env.js';
import type { Algorithm, TextAlgorithmContext } from '../algorithm.js';
import { CheckedStep } from '../checked-step.js';
import type { EpisodeRecord } from '../stepper.js';
import { collectGroups } from './collect.js';
import { flatGroups } from './filter.js';
import { foldKlIntoRewards, type KlEstimator } from './kl.js';
import { buildGrpoLoss, LOSS_METRICS } from './policy-gradient-loss.js';
import { selectHighEntropyTokens, tokenWeights, type TokenWeighting } from './token-weights.js';
import { buildLogProbs } from './tokens.js';

export const TEXT_ADAM_EPS = 1e-8;
export type { TokenWeighting } from './token-weights.js';

/** What differs between the learners that share this one. */
export interface TextLearnerConfig {
  readonly name: string;
  /** Starts per update, samples per start. */
  readonly groups: number;
  readonly groupSize: number;
  readonly temperature: number;
  readonly maxNewTokens?: number;
  readonly learningRate: Schedulable;
  readonly clip: Schedulable;
  /** Upper clip range; null: the same as clip. */
  readonly clipHigh: number | null;
  /** KL to the policy as the stage began; 0 keeps no reference. */
  readonly klCoef: number;
  /** How the KL is estimated per token; and whether it is a loss term (false) or taken off each sample's reward (true). */
  readonly klEstimator: KlEstimator;
  readonly klInReward: boolean;
  readonly entropyCoef: Schedulable;
  readonly iterations: number;
  readonly maxGradNorm: number;
  /** How each sample's tokens are weighted in the loss (token-weights.ts); `constant` divides by maxNewTokens. */
  readonly weighting: TokenWeighting;
  /** Only this top fraction of each batch's learned tokens by sampling entropy is weighted (token-weights.ts); absent or 1: all. */
  readonly entropyTopFraction?: number;
  /** Writes one advantage per sample (groups of groupSize consecutive rows). */
  advantages(rewards: Float64Array, groupSize: number, out: Float32Array): void;
  /** The resolved settings, as the plan names them (hparams). */
  readonly settings: Readonly<Record<string, unknown>>;
}

export interface TextLearnerState {
  globalStep: number;
  updates: number;
  promptRng: number[];
  sampleRng: number[];
  weights: WeightSnapshot;
  reference: WeightSnapshot | null;
  optimizer: AdamState;
}

export class TextPolicyGradient implements Algorithm {
  /** Env steps sampled so far (completions, or agent turns of dialogues). */
  globalStep = 0;
  updates = 0;
  private readonly optimizer: Adam;
  private readonly checked: CheckedStep;
  /** The iteration of the update under way, for the error when it diverges. */
  private iteration = 0;
  private readonly metricSlots: readonly number[];
  private readonly scalars = {
    invTokens: new Float32Array(1),
    ratioLow: new Float32Array(1),
    ratioHigh: new Float32Array(1),
    klCoef: new Float32Array(1),
    entCoef: new Float32Array(1),
    invTemperature: new Float32Array(1),
  };
  private episodes: EpisodeRecord[] = [];

  private constructor(
    readonly config: TextLearnerConfig,
    readonly policy: LanguageModel,
    readonly env: TextEnv,
    readonly budget: number,
    /** Tokens per training row. */
    readonly width: Dim,
    private readonly gradients: GradientStep,
    /** Which log-probabilities the loss graph is fed (policy-gradient-loss.ts). */
    private readonly lossInputs: { readonly oldFed: boolean; readonly referenceFed: boolean },
    /** log pi(target) with the policy's current weights (null with one gradient step per batch and no KL in the reward), and with the reference's (null without one). */
    private readonly logProbs: Session | null,
    private readonly reference: { readonly weights: WeightStore; readonly session: Session } | null,
    private readonly promptRng: Rng,
    private readonly sampleRng: Rng,
    private readonly recorder: TextRolloutRecorder | undefined,
  ) {
    this.optimizer = new Adam(policy.weights, { eps: TEXT_ADAM_EPS });
    this.checked = new CheckedStep(gradients, {
      learner: config.name,
      at: () => `update ${this.updates + 1}${config.iterations > 1 ? `, iteration ${this.iteration + 1} of ${config.iterations}` : ''}`,
      advice: 'try a smaller learning_rate or max_grad_norm',
      weights: policy.weights,
      optimizer: this.optimizer,
      maxGradNorm: config.maxGradNorm,
    });
    this.metricSlots = LOSS_METRICS.map((name) => gradients.metricNames.indexOf(name));
  }

  get name(): string {
    return this.config.name;
  }

  static async create(context: TextAlgorithmContext, config: TextLearnerConfig): Promise<TextPolicyGradient> {
    const { model, env } = context;
    if (context.budget === null) throw new Error(`${config.name} needs a budget`); // checkPlan() says so first
    const T = model.variableRows ? 'T' : env.rowWidth(config.maxNewTokens);
    // A pretrained model's rows are its own tokens, as long as each batch needs (the env checks its context as it samples).
    if (!model.variableRows) env.checkFits(model.context, config.name);
    const rows = config.groups * config.groupSize;
    // One gradient step per batch needs no pass for pi_old (policy-gradient-loss.ts), nor kl_coef 0 one for pi_ref.
    // The KL in the reward needs both passes, before the advantages, and no KL term in the loss.
    const oldFed = config.iterations > 1;
    const keepsReference = config.klCoef > 0;
    const referenceFed = keepsReference && !config.klInReward;
    const loss = buildGrpoLoss(model, T, { oldFed, referenceFed, klEstimator: config.klEstimator });
    const gradients = await GradientStep.create(loss.graph, [{ loss: loss.loss, weights: model.weights.names, metrics: loss.metrics }], {
      weights: model.weights,
      fed: model.frozenWeights,
      compute: context.compute,
      dimLimits: { B: rows },
      largeOps: true,
    });
    const logProbs = oldFed || (keepsReference && config.klInReward) ? await logProbSession(model, T, graphWeights(model), context.compute) : null;
    let reference = null;
    if (keepsReference) {
      const weights = model.weights.clone();
      reference = { weights, session: await logProbSession(model, T, graphWeights(model, weights), context.compute) };
    }
    return new TextPolicyGradient(config, model, env, context.budget, T, gradients, { oldFed, referenceFed }, logProbs, reference, context.rng.fork('prompts'), context.rng.fork('samples'), context.recorder);
  }

  get done(): boolean {
    return this.globalStep >= this.budget;
  }

  hparams(): Record<string, unknown> {
    return { ...this.config.settings, row_width: this.width, adam_eps: TEXT_ADAM_EPS };
  }

  takeEpisodes(): readonly EpisodeRecord[] {
    const out = this.episodes;
    this.episodes = [];
    return out;
  }

  async iterate(): Promise<Record<string, number>> {
    const c = this.config;
    const G = c.groupSize;
    const lr = scheduleValue(c.learningRate, this.globalStep, this.budget);
    const clip = scheduleValue(c.clip, this.globalStep, this.budget);
    const entCoef = scheduleValue(c.entropyCoef, this.globalStep, this.budget);
    const batch = await collectGroups(this.env, this.policy, c.groups, this.budget - this.globalStep, {
      groupSize: G,
      startRng: this.promptRng,
      sampleRng: this.sampleRng,
      temperature: c.temperature,
      ...(c.maxNewTokens !== undefined ? { maxNewTokens: c.maxNewTokens } : {}),
      ...(c.entropyTopFraction !== undefined && c.entropyTopFraction < 1 ? { tokenStatistics: true } : {}),
    });
    const { rows, width: T } = batch;
    const s = this.scalars;
    s.invTemperature[0] = 1 / c.temperature;
    const tokenFeeds = { tokens: { data: batch.tokens, dims: [rows, T] }, targets: { data: batch.targets, dims: [rows, T] }, inv_temperature: s.invTemperature, ...batch.modelFeeds };
    const oldLogp = this.logProbs ? (await this.logProbs.run(tokenFeeds)).logp! : null;
    const refLogp = this.reference ? (await this.reference.session.run(tokenFeeds)).logp! : null;
    let rewards = batch.rewards;
    let rewardKl: { tokenKl: number; penalty: number } | undefined;
    if (c.klInReward && oldLogp && refLogp) {
      rewards = Float64Array.from(batch.rewards);
      rewardKl = foldKlIntoRewards(rewards, oldLogp, refLogp, batch.mask, T, c.klEstimator, c.klCoef);
    }
    const flat = flatGroups(rewards, G);
    const advantages = new Float32Array(rows);
    c.advantages(rewards, G, advantages);
    this.recorder?.offer(c.name, batch, G, advantages);
    const selection = c.entropyTopFraction !== undefined && c.entropyTopFraction < 1 ? selectHighEntropyTokens(batch, c.entropyTopFraction) : null;
    const weight = tokenWeights(selection?.rows ?? batch, c.weighting, c.maxNewTokens ?? T);

    s.invTokens[0] = 1 / Math.max(1, batch.tokenCount);
    s.ratioLow[0] = 1 - clip;
    s.ratioHigh[0] = 1 + (c.clipHigh ?? clip);
    s.klCoef[0] = this.lossInputs.referenceFed ? c.klCoef : 0;
    s.entCoef[0] = entCoef;
    const feeds = {
      ...tokenFeeds,
      mask: { data: batch.mask, dims: [rows, T] },
      advantages: { data: advantages, dims: [rows] },
      ...(this.lossInputs.oldFed ? { old_logp: { data: oldLogp!, dims: [rows, T] } } : {}),
      ...(this.lossInputs.referenceFed ? { ref_logp: { data: refLogp!, dims: [rows, T] } } : {}),
      token_weight: { data: weight, dims: [rows, T] },
      inv_tokens: s.invTokens,
      ratio_low: s.ratioLow,
      ratio_high: s.ratioHigh,
      kl_coef: s.klCoef,
      ent_coef: s.entCoef,
    };
    const sums = new Float64Array(LOSS_METRICS.length);
    let gradNorm = 0;
    for (let k = 0; k < c.iterations; k++) {
      this.iteration = k;
      const out = await this.checked.step(feeds, lr);
      gradNorm = out.gradNorm;
      this.metricSlots.forEach((slot, m) => (sums[m] += out.metrics[slot]! / c.iterations));
    }
    this.checked.checkWeights();
    this.updates++;
    this.globalStep += batch.steps;
    this.episodes.push(...batch.episodes);

    const metrics: Record<string, number> = {
      ...batch.metrics,
      'charts/zero_advantage_groups': flat / (rows / G),
      'charts/learning_rate': lr,
      'charts/clip': clip,
      'losses/grad_norm': gradNorm,
    };
    LOSS_METRICS.forEach((name, m) => (metrics[`losses/${name}`] = sums[m]!));
    if (selection) Object.assign(metrics, { 'train/entropy_threshold': selection.threshold, 'train/entropy_kept_fraction': selection.keptFraction });
    // With the KL in the reward the loss has no KL term: the KL reported is the reward's, with the mean taken off a sample's reward.
    if (rewardKl !== undefined) {
      metrics['losses/kl'] = rewardKl.tokenKl;
      metrics['train/kl_penalty'] = rewardKl.penalty;
    }
    return metrics;
  }

  state(): TextLearnerState {
    return {
      globalStep: this.globalStep,
      updates: this.updates,
      promptRng: this.promptRng.getState(),
      sampleRng: this.sampleRng.getState(),
      weights: this.policy.weights.snapshot(),
      reference: this.reference ? this.reference.weights.snapshot() : null,
      optimizer: this.optimizer.state(),
    };
  }

  loadState(saved: unknown): void {
    const state = saved as TextLearnerState;
    this.globalStep = state.globalStep;
    this.updates = state.updates;
    this.promptRng.setState(state.promptRng);
    this.sampleRng.setState(state.sampleRng);
    this.policy.weights.load(state.weights);
    if (this.reference && state.reference) this.reference.weights.load(state.reference);
    this.optimizer.load(state.optimizer);
  }

  async release(): Promise<void> {
    await this.gradients.release();
    await this.logProbs?.release();
    await this.reference?.session.release();
  }
}

/**
 * A session giving log pi(target) at every position for `weights`. A model's frozen weights are
 * baked into it on a GPU, where a feed would be copied to the device at every run (as the
 * gradient step does: GradientParts' `fed`).
 */
function logProbSession(model: LanguageModel, T: Dim, weights: WeightStore, compute: Compute): Promise<Session> {
  const forward = buildLogProbs(model, T);
  const bake = compute.providers.some((p) => p !== 'cpu') ? model.frozenWeights : undefined;
  return Session.create(forward.graph, { logp: forward.logProb }, { providers: compute.providers, weights, bake, intraOpNumThreads: compute.opThreads });
}
