// Group Relative Policy Optimization (Shao et al. 2024) on a text task: for each of
// `prompts_per_update` training prompts, sample `group_size` completions with the key/value
// cache, score each with the reward terms, take advantages relative to the group
// (advantages.ts), and take `iterations` Adam steps on the clipped, KL-penalised objective
// (loss.ts). A step counts one completion: the stage's budget is completions sampled.
//
// - pi_old is the policy that sampled the batch: its log-probabilities are computed once per
//   batch, before the first step, by a forward pass of the same graph.
// - pi_ref (`reference: initial`) is the policy as this stage began: a copy of the weights,
//   kept in the checkpoint so a resumed run penalises the same reference.
// - Adam with PyTorch's default epsilon; gradients clipped to max_grad_norm.
import type { TokenModel } from '../../policies/index.js';
import { checkFits, sequenceWidth, textLayout, trainingRows, completionLength, encodePrompts, type TextLayout } from '../../policies/transformer/layout.js';
import type { Rng } from '../../random.js';
import { scheduleValue } from '../../schedule.js';
import { Adam, GradientStep, Session, type WeightSnapshot, type WeightStore } from '../../tensor/index.js';
import type { TextEnvironment } from '../../text/env.js';
import { exact } from '../../text/verifiers.js';
import type { Algorithm, AlgorithmDefinition, TextAlgorithmContext } from '../algorithm.js';
import { groupAdvantages } from './advantages.js';
import { buildGrpoLoss, buildLogProbs, LOSS_METRICS } from './loss.js';
import { grpoSettings, type GrpoSettings } from './settings.js';

export const GRPO: AlgorithmDefinition<GrpoSettings, TextAlgorithmContext> = {
  name: 'GRPO',
  actions: ['text'],
  params: grpoSettings,
  create: (context, settings) => Grpo.create(context, settings),
};

export const GRPO_ADAM_EPS = 1e-8;

export interface GrpoState {
  globalStep: number;
  updates: number;
  promptRng: number[];
  sampleRng: number[];
  weights: WeightSnapshot;
  reference: WeightSnapshot | null;
  optimizer: { step: number; m: Float32Array[]; v: Float32Array[] };
}

export class Grpo implements Algorithm {
  readonly name = 'GRPO';
  /** Completions sampled so far. */
  globalStep = 0;
  updates = 0;
  private readonly optimizer: Adam;
  private readonly metricSlots: readonly number[];
  private readonly scalars = { invTokens: new Float32Array(1), low: new Float32Array(1), high: new Float32Array(1), klCoef: new Float32Array(1), invTemperature: new Float32Array(1) };

  private constructor(
    readonly settings: GrpoSettings,
    readonly policy: TokenModel,
    readonly env: TextEnvironment,
    readonly budget: number,
    /** Prompt width and completion slots of the completions sampled. */
    readonly layout: TextLayout,
    private readonly gradients: GradientStep,
    /** log pi(target) with the policy's current weights, and with the reference's (null without one). */
    private readonly logProbs: Session,
    private readonly reference: { readonly weights: WeightStore; readonly session: Session } | null,
    private readonly promptRng: Rng,
    private readonly sampleRng: Rng,
  ) {
    this.optimizer = new Adam(policy.weights, { eps: GRPO_ADAM_EPS });
    this.metricSlots = LOSS_METRICS.map((name) => gradients.metricNames.indexOf(name));
  }

  static async create(context: TextAlgorithmContext, settings: GrpoSettings): Promise<Grpo> {
    const { model, env } = context;
    if (context.budget === null) throw new Error('GRPO needs a budget (completions to sample)'); // checkPlan() says so first
    const layout = textLayout(env.task.maxPromptLength, Math.min(env.maxTokens, settings.max_new_tokens));
    checkFits(layout, model.context, 'GRPO');
    const T = sequenceWidth(layout);
    const rows = settings.prompts_per_update * settings.group_size;
    const loss = buildGrpoLoss(model, T);
    const gradients = await GradientStep.create(loss.graph, [{ loss: loss.loss, weights: model.weights.names, metrics: loss.metrics }], {
      weights: model.weights,
      compute: context.compute,
      dimLimits: { B: rows },
    });
    const forward = buildLogProbs(model, T);
    const sessionOptions = { providers: context.compute.providers };
    const logProbs = await Session.create(forward.graph, { logp: forward.logProb }, { ...sessionOptions, weights: model.weights });
    let reference = null;
    if (settings.reference === 'initial' && settings.kl_coef > 0) {
      const weights = model.weights.clone();
      reference = { weights, session: await Session.create(forward.graph, { logp: forward.logProb }, { ...sessionOptions, weights }) };
    }
    return new Grpo(settings, model, env, context.budget, layout, gradients, logProbs, reference, context.rng.fork('prompts'), context.rng.fork('samples'));
  }

  get done(): boolean {
    return this.globalStep >= this.budget;
  }

  hparams(): Record<string, unknown> {
    return { ...this.settings, completion_slots: this.layout.completionSlots, adam_eps: GRPO_ADAM_EPS };
  }

  async iterate(): Promise<Record<string, number>> {
    const s = this.settings;
    const G = s.group_size;
    const lr = scheduleValue(s.learning_rate, this.globalStep, this.budget);
    const clip = scheduleValue(s.clip, this.globalStep, this.budget);
    // The budget may end on a part of a batch: as many whole groups as it still allows (at least one).
    const P = Math.max(1, Math.min(s.prompts_per_update, Math.floor((this.budget - this.globalStep) / G)));
    const rows = P * G;
    const { env, layout } = this;
    const examples = Array.from({ length: P }, () => env.task.sample(this.promptRng));
    const prompts = encodePrompts(env.tokenizer, examples.flatMap((e) => Array<string>(G).fill(e.prompt)), layout);
    const N = layout.completionSlots;
    const slots = await this.policy.generate(prompts, rows, layout.promptWidth, N, { temperature: s.temperature, greedy: false, rng: this.sampleRng });

    // Rewards, each term, and exact-match accuracy of the sampled completions.
    const rewards = new Float64Array(rows);
    const termSums = new Float64Array(env.termNames.length);
    let correct = 0;
    let characters = 0;
    for (let r = 0; r < rows; r++) {
      const example = examples[Math.floor(r / G)]!;
      const text = env.tokenizer.decode(slots.subarray(r * N, (r + 1) * N));
      const score = env.score(example, text);
      rewards[r] = score.total;
      score.terms.forEach((v, k) => (termSums[k] += v));
      correct += exact(text, example.target);
      characters += [...text].length;
    }
    const advantages = new Float32Array(rows);
    const flatGroups = groupAdvantages(rewards, G, s.normalize, advantages);

    const batch = trainingRows(prompts, slots, rows, layout);
    const T = sequenceWidth(layout);
    const weight = new Float32Array(rows * T);
    for (let r = 0; r < rows; r++) {
      const per = s.loss === 'sequence' ? 1 / (rows * completionLength(slots, r * N, N)) : 1 / batch.tokenCount;
      for (let i = 0; i < T; i++) weight[r * T + i] = batch.mask[r * T + i]! * per;
    }
    const c = this.scalars;
    c.invTokens[0] = 1 / batch.tokenCount;
    c.low[0] = 1 - clip;
    c.high[0] = 1 + (s.clip_high ?? clip);
    c.klCoef[0] = this.reference ? s.kl_coef : 0;
    c.invTemperature[0] = 1 / s.temperature;
    const tokenFeeds = { tokens: { data: batch.tokens, dims: [rows, T] }, targets: { data: batch.targets, dims: [rows, T] }, inv_temperature: c.invTemperature };
    const oldLogp = (await this.logProbs.run(tokenFeeds)).logp!.slice();
    const refLogp = this.reference ? (await this.reference.session.run(tokenFeeds)).logp!.slice() : oldLogp;
    const feeds = {
      ...tokenFeeds,
      mask: { data: batch.mask, dims: [rows, T] },
      advantages: { data: advantages, dims: [rows] },
      old_logp: { data: oldLogp, dims: [rows, T] },
      ref_logp: { data: refLogp, dims: [rows, T] },
      token_weight: { data: weight, dims: [rows, T] },
      inv_tokens: c.invTokens,
      clip_low: c.low,
      clip_high: c.high,
      kl_coef: c.klCoef,
    };
    const sums = new Float64Array(LOSS_METRICS.length);
    let gradNorm = 0;
    for (let k = 0; k < s.iterations; k++) {
      const out = await this.gradients.run(feeds);
      gradNorm = this.optimizer.step(out.grads, lr, { maxGradNorm: s.max_grad_norm });
      this.metricSlots.forEach((slot, m) => (sums[m] += out.metrics[slot]! / s.iterations));
    }
    this.updates++;
    this.globalStep += rows;

    const mean = (x: number) => x / rows;
    const metrics: Record<string, number> = {
      'rewards/total': mean(rewards.reduce((a, b) => a + b, 0)),
      'train/mean_reward': mean(rewards.reduce((a, b) => a + b, 0)),
      'train/accuracy': mean(correct),
      'train/completion_length': mean(characters),
      'charts/zero_advantage_groups': flatGroups / P,
      'charts/learning_rate': lr,
      'charts/clip': clip,
      'charts/completions': rows,
      'losses/grad_norm': gradNorm,
    };
    env.termNames.forEach((name, k) => (metrics[`rewards/${name}`] = mean(termSums[k]!)));
    LOSS_METRICS.forEach((name, m) => (metrics[`losses/${name}`] = sums[m]!));
    return metrics;
  }

  state(): GrpoState {
    const adam = this.optimizer.state();
    return {
      globalStep: this.globalStep,
      updates: this.updates,
      promptRng: this.promptRng.getState(),
      sampleRng: this.sampleRng.getState(),
      weights: this.policy.weights.snapshot(),
      reference: this.reference ? this.reference.weights.snapshot() : null,
      optimizer: { step: adam.step, m: [...adam.m], v: [...adam.v] },
    };
  }

  loadState(saved: unknown): void {
    const state = saved as GrpoState;
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
    await this.logProbs.release();
    await this.reference?.session.release();
  }
}
