// The policy-gradient learner of text envs, shared by GRPO (../grpo/) and by REINFORCE/RLOO on
// text (../reinforce/text.ts), which import it from here rather than from each other. Each
// update goes through these steps, each its own module here:
//
//   collect (collect.ts)          sample groups (several samples from one start: one prompt, or
//                                 one dialogue start) from the env, scored; overlong completions
//                                 dropped or penalised (overlong.ts); with dynamic sampling, only
//                                 groups whose rewards differ, more batches sampled in their place;
//   KL in the reward (kl.ts)      where `klInReward`, each reward less kl_coef times its KL;
//   advantages                    one per sample, from the config (GRPO's: advantages.ts), on
//                                 each of its tokens, or per dialogue turn (turn-credit.ts);
//                                 the groups whose advantages are all 0 counted (filter.ts);
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
import { isPretrained } from '../../policies/pretrained.js';
import type { Rng } from '../../../shared/random.js';
import { scheduleValue, type Schedulable } from '../../schedule.js';
import { Adam, type Dim } from '../../tensor/index.js';
import type { TextRolloutRecorder } from '../../run/text-rollouts.js';
import type { Rollouts, TextEnv } from '../../text/text-env.js';
import { InputError } from '../../../shared/input-error.js';
import type { Algorithm, TextAlgorithmContext } from '../algorithm.js';
import { CheckedStep } from '../checked-step.js';
import { learnerState, part, type LearnerState } from '../learner-state.js';
import { sampledTextParts, type SampledTextState } from './sampled-state.js';
import { SampledTextLearner } from './sampled-learner.js';
import { collectBatch } from './collect.js';
import { DemoSampler, type DemoOrigin } from './demos.js';
import { zeroAdvantageGroups } from './filter.js';
import { foldKlIntoRewards, type KlEstimator } from './kl.js';
import type { OverlongSetting } from './overlong.js';
import { buildGrpoLoss, GRPO_LOSS_TOKENS, LOSS_METRICS } from './policy-gradient-loss.js';
import type { Refeed } from './rollout-groups.js';
import { selectHighEntropyTokens, tokenWeights, type TokenWeighting } from './token-weights.js';
import { creditedAdvantages, type TurnCredit } from './turn-credit.js';
import { chooseGenerationBatch, memoryMetrics } from './token-step.js';
import { ReferencePolicy } from './log-prob-sessions.js';
import { buildLogProbs } from './tokens.js';
import { chooseMemory, expectedRowLength, tokenGradientRun, tokenLogProbRun, type LogProbRun, type MemoryChoice, type MemorySettings, type TokenGradientRun } from './token-step.js';
import type { SamplingControls } from '../../lm/sampling.js';
import type { PromptLimit } from '../../text/text-env.js';

export const TEXT_ADAM_EPS = 1e-8;
export type { TokenWeighting } from './token-weights.js';

/** What differs between the learners that share this one. */
export interface TextLearnerConfig {
  readonly name: string;
  /** Starts per update, samples per start. */
  readonly groups: number;
  readonly groupSize: number;
  readonly temperature: number;
  /** top_k, top_p, min_p, repetition_penalty, stop strings for the rollouts (text-env.ts RolloutOptions.sampling). */
  readonly sampling?: SamplingControls;
  readonly promptLimit?: PromptLimit;
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
  /** Demonstrations whose cross-entropy joins the loss, weighted by sftCoef (demos.ts); absent: none, plain GRPO. */
  readonly demos?: { readonly origin: DemoOrigin; readonly coef: Schedulable; readonly batchSize: number; /** The setting that asks for them, in messages (sft_data). */ readonly setting: string };
  /** Only this top fraction of each batch's learned tokens by sampling entropy is weighted (token-weights.ts); absent or 1: all. */
  readonly entropyTopFraction?: number;
  /** Writes one advantage per sample (groups of groupSize consecutive rows). */
  advantages(rewards: Float64Array, groupSize: number, out: Float32Array): void;
  /** `credit: turn`: each dialogue turn's tokens get its return-to-go's advantage, compared so (turn-credit.ts); absent: the sample's advantage on every token. */
  readonly turnCredit?: TurnCredit;
  /** The resolved settings, as the plan names them (hparams). */
  readonly settings: Readonly<Record<string, unknown>>;
  /** DAPO's dynamic sampling (collect.ts); absent or null: every group sampled is trained on. */
  readonly dynamicSampling?: { readonly maxRounds: number } | null;
  /** What happens to completions cut at maxNewTokens (overlong.ts); absent: kept. */
  readonly overlong?: OverlongSetting;
  /** micro_batch and gradient_checkpointing (token-step.ts); absent: auto. */
  readonly memory?: MemorySettings;
  /** The sampler's log-probabilities fed to the loss: train/sampler_kl, and with tisCap truncated importance sampling (policy-gradient-loss.ts); absent: neither. */
  readonly sampler?: { readonly tisCap: number | null };
  /** Rows sampled at once; absent or auto: as many as fit. */
  readonly generationBatch?: number | 'auto';
}

export interface TextLearnerState extends SampledTextState {
  /** The stream that draws sft_data's demonstrations (null or absent without). */
  demoRng?: number[] | null;
}

export class TextPolicyGradient extends SampledTextLearner<TextLearnerState> implements Algorithm {
  private readonly optimizer: Adam;
  private readonly checked: CheckedStep;
  /** The iteration of the update under way, for the error when it diverges. */
  private iteration = 0;
  private readonly metricSlots: readonly number[];
  private readonly sftSlot: number;
  /** train/sampler_kl's slot among the step's metrics (-1 without sampler_correction). */
  private readonly samplerSlot: number;
  private readonly scalars = {
    invTokens: new Float32Array(1),
    ratioLow: new Float32Array(1),
    ratioHigh: new Float32Array(1),
    klCoef: new Float32Array(1),
    entCoef: new Float32Array(1),
    invTemperature: new Float32Array(1),
    sftCoef: new Float32Array(1),
  };
  protected readonly saved: LearnerState<TextLearnerState>;

  private constructor(
    readonly config: TextLearnerConfig,
    policy: LanguageModel,
    env: TextEnv,
    budget: number,
    width: Dim,
    gradients: TokenGradientRun,
    /** Which log-probabilities the loss graph is fed (policy-gradient-loss.ts). */
    private readonly lossInputs: { readonly oldFed: boolean; readonly referenceFed: boolean },
    /** log pi(target) with the policy's current weights (null with one gradient step per batch and no KL in the reward), and with the reference's (null without one). */
    logProbs: LogProbRun | null,
    reference: ReferencePolicy | null,
    private readonly promptRng: Rng,
    private readonly sampleRng: Rng,
    private readonly recorder: TextRolloutRecorder | undefined,
    /** The demonstrations of the cross-entropy term, where the config has them. */
    private readonly demos: DemoSampler | null,
    /** How the update goes through memory (token-step.ts), and the rows sampled at once. */
    private readonly memory: MemoryChoice & { readonly generationBatch: number },
  ) {
    super(policy, env, budget, width, gradients, logProbs, reference);
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
    this.sftSlot = gradients.metricNames.indexOf('sft');
    this.samplerSlot = gradients.metricNames.indexOf('sampler_kl');
    this.saved = learnerState<TextLearnerState>(config.name, {
      ...sampledTextParts(this, { promptRng, sampleRng, weights: policy.weights, reference, optimizer: this.optimizer, lossScaler: gradients.lossScaler }),
      // Only with sft_data (a checkpoint from before it has none).
      demoRng: demos ? part.optional(part.rng(demos.rng)) : part.none(),
    });
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
    const demoRows = config.demos?.batchSize ?? 0;
    const lossOptions = { oldFed, referenceFed, klEstimator: config.klEstimator, ...(config.demos ? { demos: { samplingTemperatureIsOne: config.temperature === 1 } } : {}), ...(config.sampler ? { sampler: config.sampler } : {}) };
    const memory = chooseMemory(model, config.memory ?? { microBatch: 'auto', checkpointing: 'auto' }, rows + demoRows, expectedRowLength(model, config.maxNewTokens), context.compute);
    const gradients = await tokenGradientRun(model, (source) => buildGrpoLoss(source, T, lossOptions), GRPO_LOSS_TOKENS, memory, context.compute, { B: rows + demoRows });
    const logProbs = oldFed || (keepsReference && config.klInReward) ? await tokenLogProbRun(model, T, buildLogProbs, memory, context.compute) : null;
    const reference = keepsReference ? await ReferencePolicy.create(model, T, context.compute, undefined, memory) : null;
    const generationBatch = chooseGenerationBatch(model, config.generationBatch ?? 'auto', rows, expectedRowLength(model, config.maxNewTokens));
    if (isPretrained(model)) model.generationRows = generationBatch;
    const demos = config.demos
      ? DemoSampler.create(env, model, config.demos.origin, { batchSize: config.demos.batchSize, width: env.rowWidth(config.maxNewTokens), maxNewTokens: config.maxNewTokens, rng: context.rng.fork('sft-demos'), learner: config.name, setting: config.demos.setting })
      : null;
    return new TextPolicyGradient(config, model, env, context.budget, T, gradients, { oldFed, referenceFed }, logProbs, reference, context.rng.fork('prompts'), context.rng.fork('samples'), context.recorder, demos, { ...memory, generationBatch });
  }

  samplingControls(): SamplingControls | undefined {
    return this.config.sampling;
  }

  hparams(): Record<string, unknown> {
    // The memory settings as chosen (auto resolved), so that a run says what it did.
    const { microBatch, checkpointing, generationBatch } = this.memory;
    return { ...this.config.settings, micro_batch: microBatch, generation_batch: generationBatch, gradient_checkpointing: checkpointing, row_width: this.width, adam_eps: TEXT_ADAM_EPS };
  }

  async iterate(): Promise<Record<string, number>> {
    const c = this.config;
    const G = c.groupSize;
    const lr = scheduleValue(c.learningRate, this.globalStep, this.budget);
    const clip = scheduleValue(c.clip, this.globalStep, this.budget);
    const entCoef = scheduleValue(c.entropyCoef, this.globalStep, this.budget);
    const batch = await collectBatch(this.env, this.policy, c.groups, this.budget - this.globalStep, {
      groupSize: G,
      startRng: this.promptRng,
      sampleRng: this.sampleRng,
      temperature: c.temperature,
      ...(c.sampling ? { sampling: c.sampling } : {}),
      ...(c.promptLimit ? { promptLimit: c.promptLimit } : {}),
      ...(c.maxNewTokens !== undefined ? { maxNewTokens: c.maxNewTokens } : {}),
      ...((c.entropyTopFraction !== undefined && c.entropyTopFraction < 1) || c.sampler ? { tokenStatistics: true } : {}),
    }, { overlong: c.overlong ?? { mode: 'keep', buffer: 0 }, dynamicSampling: c.dynamicSampling ?? null, refeed: rowFeedsOf(this.policy), where: c.name });
    const { rows } = batch;
    const s = this.scalars;
    s.invTemperature[0] = 1 / c.temperature;
    // With sft_data the demonstrations' rows follow the samples' in every [B, ...] feed (demos.ts).
    const joined = this.demos ? await this.demos.join(batch) : null;
    const B = joined?.rows ?? rows;
    const T = joined?.width ?? batch.width;
    const mask = joined?.extend(batch.mask) ?? batch.mask;
    const tokenFeeds = { tokens: { data: joined?.tokens ?? batch.tokens, dims: [B, T] }, targets: { data: joined?.targets ?? batch.targets, dims: [B, T] }, inv_temperature: s.invTemperature, ...(joined?.modelFeeds ?? batch.modelFeeds) };
    const oldLogp = this.logProbs ? (await this.logProbs.run(tokenFeeds)).logp! : null;
    const refLogp = this.reference ? await this.reference.logProbs(tokenFeeds) : null;
    let rewards = batch.rewards;
    let rewardKl: { tokenKl: number; penalty: number } | undefined;
    if (c.klInReward && oldLogp && refLogp) {
      rewards = Float64Array.from(batch.rewards);
      rewardKl = foldKlIntoRewards(rewards, oldLogp, refLogp, mask, T, c.klEstimator, c.klCoef);
    }
    const advantages = new Float32Array(rows);
    c.advantages(rewards, G, advantages);
    const foldedKl = rewardKl !== undefined ? { logp: oldLogp!, refLogp: refLogp!, estimator: c.klEstimator, coef: c.klCoef } : undefined;
    const credited = creditedAdvantages(batch, G, advantages, c.turnCredit, foldedKl);
    this.recorder?.offer(c.name, batch, G, credited.perSample);
    const selection = c.entropyTopFraction !== undefined && c.entropyTopFraction < 1 ? selectHighEntropyTokens(batch, c.entropyTopFraction) : null;
    const weight = tokenWeights(selection?.rows ?? batch, c.weighting, c.maxNewTokens ?? batch.width);

    s.invTokens[0] = 1 / Math.max(1, batch.tokenCount);
    s.ratioLow[0] = 1 - clip;
    s.ratioHigh[0] = 1 + (c.clipHigh ?? clip);
    s.klCoef[0] = this.lossInputs.referenceFed ? c.klCoef : 0;
    s.entCoef[0] = entCoef;
    const sftCoef = c.demos ? scheduleValue(c.demos.coef, this.globalStep, this.budget) : 0;
    s.sftCoef[0] = sftCoef;
    const feeds = {
      ...tokenFeeds,
      mask: { data: mask, dims: [B, T] },
      advantages: { data: joined?.extend(credited.perToken) ?? credited.perToken, dims: [B, T] },
      ...(this.lossInputs.oldFed ? { old_logp: { data: oldLogp!, dims: [B, T] } } : {}),
      ...(this.lossInputs.referenceFed ? { ref_logp: { data: refLogp!, dims: [B, T] } } : {}),
      token_weight: { data: joined?.extend(weight) ?? weight, dims: [B, T] },
      ...(c.sampler ? { sampler_logp: { data: joined?.extend(samplerLogProbs(batch, c.name)) ?? samplerLogProbs(batch, c.name), dims: [B, T] } } : {}),
      ...(joined ? { sft_weight: { data: joined.sftWeight, dims: [B, T] }, sft_coef: s.sftCoef } : {}),
      inv_tokens: s.invTokens,
      ratio_low: s.ratioLow,
      ratio_high: s.ratioHigh,
      kl_coef: s.klCoef,
      ent_coef: s.entCoef,
    };
    const sums = new Float64Array(LOSS_METRICS.length);
    let sft = 0;
    let gradNorm = 0;
    let samplerKl = 0;
    for (let k = 0; k < c.iterations; k++) {
      this.iteration = k;
      const out = await this.checked.step(feeds, lr);
      gradNorm = out.gradNorm;
      // The first step's: the weights that sampled the batch (later steps have moved them).
      if (k === 0 && this.samplerSlot >= 0) samplerKl = out.metrics[this.samplerSlot]!;
      this.metricSlots.forEach((slot, m) => (sums[m] += out.metrics[slot]! / c.iterations));
      if (joined) sft += out.metrics[this.sftSlot]! / c.iterations;
    }
    this.checked.checkWeights();
    this.counted(batch);

    const metrics: Record<string, number> = {
      ...batch.metrics,
      'charts/zero_advantage_groups': zeroAdvantageGroups(credited.perToken, batch.width, G) / (rows / G),
      'charts/learning_rate': lr,
      'charts/clip': clip,
      'losses/grad_norm': gradNorm,
      ...this.checked.precisionMetrics(),
      ...memoryMetrics(),
    };
    LOSS_METRICS.forEach((name, m) => (metrics[`losses/${name}`] = sums[m]!));
    if (joined) {
      metrics['losses/sft'] = sft;
      metrics['charts/sft_coef'] = sftCoef;
    }
    if (this.samplerSlot >= 0) metrics['train/sampler_kl'] = samplerKl;
    if (selection) Object.assign(metrics, { 'train/entropy_threshold': selection.threshold, 'train/entropy_kept_fraction': selection.keptFraction });
    // With the KL in the reward the loss has no KL term: the KL reported is the reward's, with the mean taken off a sample's reward.
    if (rewardKl !== undefined) {
      metrics['losses/kl'] = rewardKl.tokenKl;
      metrics['train/kl_penalty'] = rewardKl.penalty;
    }
    return metrics;
  }
}

/** The sampler's log-probabilities of the batch's tokens (sampler_correction), which only single-turn tasks record. */
function samplerLogProbs(batch: Rollouts, learner: string): Float32Array {
  if (!batch.tokenSamplerLogProb) throw new InputError(`${learner}: sampler_correction needs the sampler's log-probability of every token, which dialogues do not record yet; use it with a single-turn text task (TextTask), or set sampler_correction: none`);
  return batch.tokenSamplerLogProb;
}

/** A pretrained model's row feeds, which joining batches of different widths rebuilds (rollout-groups.ts). */
function rowFeedsOf(model: LanguageModel): Refeed | undefined {
  return isPretrained(model) ? (starts, width) => model.rowFeeds(starts, width) : undefined;
}
