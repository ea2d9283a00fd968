// A text learner module at work: TextPolicyGradient's loop (../text/policy-gradient.ts) with
// the loss built by the module. Each update: collect groups of completions (../text/collect.ts),
// GRPO's group advantages (../text/advantages.ts), feed what the module's graph reads, and take
// `iterations` checked Adam steps on its loss (gradients clipped to max_grad_norm; a loss,
// metric, gradient or weight that is not finite stops the run naming the module: ../checked-step.ts).
// pi_old is fed only to a graph that reads it with iterations > 1; pi_ref, a copy of the weights
// as the stage began (kept in checkpoints), only to one that reads refLogProb.
import { graphWeights, type LanguageModel } from '../../policies/index.js';
import type { Rng } from '../../../shared/random.js';
import { scheduleValue, type Schedulable } from '../../schedule.js';
import { Adam, GradientStep, type Dim, type Feed } from '../../tensor/index.js';
import type { TextRolloutRecorder } from '../../run/text-rollouts.js';
import type { TextEnv } from '../../text/text-env.js';
import type { LearnerSettings } from '../../learner/text-batch.js';
import type { Algorithm, TextAlgorithmContext } from '../algorithm.js';
import { CheckedStep } from '../checked-step.js';
import { learnerState, type LearnerState } from '../learner-state.js';
import { sampledTextParts, type SampledTextState } from '../text/sampled-state.js';
import { SampledTextLearner } from '../text/sampled-learner.js';
import { groupAdvantages } from '../text/advantages.js';
import { collectGroups } from '../text/collect.js';
import { ReferencePolicy, logProbSession } from '../text/log-prob-sessions.js';
import { chooseGenerationBatch, chooseMemory, expectedRowLength, MicroBatchedLogProbs, MicroBatchedRun, type LogProbRun, type MemoryChoice, type TokenGradientRun } from '../text/token-step.js';
import { isPretrained } from '../../policies/pretrained.js';
import { rowAdditivity, type MetricCombination } from './row-additivity.js';
import { LearnerModuleError } from './errors.js';
import { tokenLogProbs } from '../text/tokens.js';
import type { LoadedLearner } from './load.js';
import { buildTextLoss } from './text-loss.js';
import { controlSettings, type SamplingControls } from '../../lm/sampling.js';
import { promptLimitOf } from '../sampling-settings.js';

export const MODULE_ADAM_EPS = 1e-8;

/** rlx's settings of a text learner module (dsl/schema/learner-module.ts TEXT_LEARNER_PARAMS), and the module's own. */
export interface ModuleTextSettings {
  readonly group_size: number;
  readonly prompts_per_update: number;
  readonly learning_rate: Schedulable;
  readonly iterations: number;
  readonly max_new_tokens: number;
  readonly temperature: number;
  /** top_k, top_p, min_p, repetition_penalty, stop (../sampling-settings.ts); undefined: none set. */
  readonly sampling: SamplingControls | undefined;
  readonly max_prompt_length: number | null;
  readonly truncation: 'left' | 'right';
  readonly max_grad_norm: number;
  /** Rows per forward/backward (whole groups) and rows sampled at once (../text/token-step.ts). */
  readonly micro_batch: number | 'auto';
  readonly generation_batch: number | 'auto';
  readonly module: LearnerSettings;
}

export type ModuleTextState = SampledTextState;

export class ModuleTextLearner extends SampledTextLearner<ModuleTextState> implements Algorithm {
  private iteration = 0;
  private readonly optimizer: Adam;
  private readonly checked: CheckedStep;
  private readonly scalars = { invTokens: new Float32Array(1), invRows: new Float32Array(1), invTemperature: new Float32Array(1) };
  /** The same fields as the built-in text learner's (sampled-state.ts). */
  protected readonly saved: LearnerState<ModuleTextState>;

  private constructor(
    readonly learner: LoadedLearner,
    readonly settings: ModuleTextSettings,
    policy: LanguageModel,
    env: TextEnv,
    budget: number,
    width: Dim,
    gradients: TokenGradientRun,
    private readonly used: ReadonlySet<string>,
    private readonly metricNames: readonly string[],
    logProbs: LogProbRun | null,
    reference: ReferencePolicy | null,
    private readonly promptRng: Rng,
    private readonly sampleRng: Rng,
    private readonly recorder: TextRolloutRecorder | undefined,
    /** Rows per forward/backward and rows sampled at once, as chosen (auto resolved). */
    private readonly memory: { readonly microBatch: number; readonly generationBatch: number },
  ) {
    super(policy, env, budget, width, gradients, logProbs, reference);
    this.optimizer = new Adam(policy.weights, { eps: MODULE_ADAM_EPS });
    this.checked = new CheckedStep(gradients, {
      learner: learner.label,
      at: () => `update ${this.updates + 1}${settings.iterations > 1 ? `, iteration ${this.iteration + 1} of ${settings.iterations}` : ''}`,
      advice: 'the loss its buildLoss built is not finite there: check its divisions, logs and exps (guard them with g.max(x, eps) or g.clip), or try a smaller learning_rate',
      weights: policy.weights,
      optimizer: this.optimizer,
      maxGradNorm: settings.max_grad_norm,
    });
    this.saved = learnerState<ModuleTextState>(learner.label, sampledTextParts(this, { promptRng, sampleRng, weights: policy.weights, reference, optimizer: this.optimizer, lossScaler: gradients.lossScaler }));
  }

  get name(): string {
    return this.learner.label;
  }

  static async create(context: TextAlgorithmContext, learner: LoadedLearner, settings: ModuleTextSettings): Promise<ModuleTextLearner> {
    const { model, env } = context;
    if (context.budget === null) throw new Error(`${learner.label} needs a budget`); // checkPlan() says so first
    const T = model.variableRows ? 'T' : env.rowWidth(settings.max_new_tokens);
    if (!model.variableRows) env.checkFits(model.context, learner.label);
    const oldFed = settings.iterations > 1;
    if (learner.entry.kind !== 'text') throw new Error(`${learner.label} is not a text learner`); // learnerDefinition picks by kind
    const built = buildTextLoss(learner.label, learner.entry.buildLoss, settings.module, settings.group_size, T, {
      logProbs: (g, tokens, targets, invTemperature) => tokenLogProbs(g, model, { tokens, targets, mask: tokens }, invTemperature),
    }, oldFed);
    const metricNames = Object.keys(built.metrics);
    const rows = settings.group_size * settings.prompts_per_update;
    const length = expectedRowLength(model, settings.max_new_tokens);
    const memory = await moduleMemory(learner, settings, oldFed, chooseMemory(model, { microBatch: settings.micro_batch, checkpointing: false }, rows, length, context.compute), rows);
    const step = await GradientStep.create(built.graph, [{ loss: built.loss, weights: model.weights.names, metrics: built.metrics }], {
      weights: model.weights,
      fed: model.frozenWeights,
      compute: context.compute,
      dimLimits: { B: rows },
      largeOps: true,
    });
    const gradients = new MicroBatchedRun(step, memory.microBatch, memory.metrics);
    const logProbs = built.used.has('old_logp') ? new MicroBatchedLogProbs(await logProbSession(model, T, graphWeights(model), context.compute), memory.microBatch) : null;
    const reference = built.used.has('ref_logp') ? await ReferencePolicy.create(model, T, context.compute, undefined, memory) : null;
    const generationBatch = chooseGenerationBatch(model, settings.generation_batch, rows, length);
    if (isPretrained(model)) model.generationRows = generationBatch;
    return new ModuleTextLearner(learner, settings, model, env, context.budget, T, gradients, built.used, metricNames, logProbs, reference, context.rng.fork('prompts'), context.rng.fork('samples'), context.recorder, { ...memory, generationBatch });
  }

  samplingControls(): SamplingControls | undefined {
    return this.settings.sampling;
  }

  hparams(): Record<string, unknown> {
    const { module, sampling, ...own } = this.settings;
    return { ...own, ...controlSettings(sampling), ...module, micro_batch: this.memory.microBatch, generation_batch: this.memory.generationBatch, row_width: this.width, adam_eps: MODULE_ADAM_EPS };
  }

  async iterate(): Promise<Record<string, number>> {
    const c = this.settings;
    const G = c.group_size;
    const lr = scheduleValue(c.learning_rate, this.globalStep, this.budget);
    const batch = await collectGroups(this.env, this.policy, c.prompts_per_update, this.budget - this.globalStep, {
      groupSize: G, startRng: this.promptRng, sampleRng: this.sampleRng, temperature: c.temperature, maxNewTokens: c.max_new_tokens, ...(c.sampling ? { sampling: c.sampling } : {}),
      ...(c.max_prompt_length !== null ? { promptLimit: promptLimitOf(c) } : {}),
    });
    const { rows, width: T } = batch;
    const s = this.scalars;
    s.invTemperature[0] = 1 / c.temperature;
    s.invTokens[0] = 1 / Math.max(1, batch.tokenCount);
    s.invRows[0] = 1 / rows;
    const tokenFeeds = { tokens: { data: batch.tokens, dims: [rows, T] }, targets: { data: batch.targets, dims: [rows, T] }, inv_temperature: s.invTemperature, ...batch.modelFeeds };
    const advantages = new Float32Array(rows);
    groupAdvantages(batch.rewards, G, { baseline: 'mean', normalize: 'group_std' }, advantages);
    this.recorder?.offer(this.learner.label, batch, G, advantages);
    const all: Record<string, Feed> = {
      ...tokenFeeds,
      mask: { data: batch.mask, dims: [rows, T] },
      rewards: { data: Float32Array.from(batch.rewards), dims: [rows] },
      advantages: { data: advantages, dims: [rows] },
      inv_tokens: s.invTokens,
      inv_rows: s.invRows,
    };
    if (this.logProbs) all.old_logp = { data: (await this.logProbs.run(tokenFeeds)).logp!, dims: [rows, T] };
    if (this.reference) all.ref_logp = { data: await this.reference.logProbs(tokenFeeds), dims: [rows, T] };
    // Only what the graph reads: an input it lacks would be refused by the session.
    const feeds = Object.fromEntries(Object.entries(all).filter(([name]) => this.used.has(name) || name in (batch.modelFeeds ?? {})));
    const sums = new Float64Array(this.metricNames.length);
    let loss = 0;
    let gradNorm = 0;
    for (let k = 0; k < c.iterations; k++) {
      this.iteration = k;
      const out = await this.checked.step(feeds, lr);
      gradNorm = out.gradNorm;
      loss += out.loss / c.iterations;
      this.metricNames.forEach((_, m) => (sums[m] += out.metrics[m]! / c.iterations));
    }
    this.checked.checkWeights();
    this.counted(batch);
    const metrics: Record<string, number> = {
      ...batch.metrics,
      'charts/learning_rate': lr,
      'losses/loss': loss,
      'losses/grad_norm': gradNorm,
      ...this.checked.precisionMetrics(),
    };
    this.metricNames.forEach((name, m) => (metrics[`learner/${name}`] = sums[m]!));
    return metrics;
  }
}

/**
 * The micro-batch a module's update runs in: `fitted` (what the memory estimate chose, or the
 * setting) cut to whole groups; the whole update where the loss is not a sum over rows and
 * micro_batch was left `auto` (row-additivity.ts); an error naming the module where it was set.
 */
async function moduleMemory(learner: LoadedLearner, settings: ModuleTextSettings, oldFed: boolean, fitted: MemoryChoice, rows: number): Promise<MemoryChoice & { metrics?: readonly MetricCombination[] }> {
  const G = settings.group_size;
  const microBatch = Math.min(rows, Math.max(G, fitted.microBatch - (fitted.microBatch % G)));
  if (microBatch >= rows) return { microBatch: rows, checkpointing: false };
  if (learner.entry.kind !== 'text') throw new Error(`${learner.label} is not a text learner`);
  const additivity = await rowAdditivity(learner.label, learner.entry.buildLoss, settings.module, G, oldFed);
  if (additivity.lossIsSum) return { microBatch, checkpointing: false, metrics: additivity.metrics };
  if (settings.micro_batch === 'auto') return { microBatch: rows, checkpointing: false };
  const { both, first, second } = additivity.losses;
  throw new LearnerModuleError(
    `${learner.label}: micro_batch ${settings.micro_batch} splits the update's ${rows} rows, but its loss is not a sum over rows `
    + `(on stand-in rows: ${both.toPrecision(4)} for two groups, ${first.toPrecision(4)} + ${second.toPrecision(4)} for each alone), so micro-batches would change the update. `
    + 'Write a mean over the update as g.mul(g.sum(x), batch.invRows) or with batch.invTokens instead of g.mean over rows, or leave micro_batch auto (the whole update at once).',
  );
}
