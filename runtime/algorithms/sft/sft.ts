// Supervised fine-tuning: the token model learns to write the env's own answers, or a file's.
// Each update draws `batch_size` demonstrations from the env (a task's prompt and target
// followed by <eos>, never a held-out prompt; or a dialogue of the env's expert), or from the
// JSONL file `data` names (the run's copy of it, ../../run/data-files.ts; drawn as GRPO's
// sft_data file is, ../text/demos.ts, its held-out prompts left out), and takes one Adam step on the
// cross-entropy of the answer tokens (loss.ts): the prompt, or the env's messages, are read,
// not learned. It runs `updates` steps; a stage budget, when given, counts
// demonstrations and may end it sooner. A loss, gradient or weight that is not finite stops
// the run (../checked-step.ts).
import type { LanguageModel } from '../../policies/index.js';
import type { Rng } from '../../../shared/random.js';
import { scheduleValue } from '../../schedule.js';
import { Adam, type AdamState, type LossScaleState, type WeightSnapshot } from '../../tensor/index.js';
import { chooseMemory, expectedRowLength, memoryMetrics, tokenGradientRun, type MemoryChoice, type TokenGradientRun } from '../text/token-step.js';
import type { TextEnv } from '../../text/text-env.js';
import type { Algorithm, AlgorithmDefinition, TextAlgorithmContext } from '../algorithm.js';
import { CheckedStep } from '../checked-step.js';
import { demoOrigin, DemoSampler } from '../text/demos.js';
import { learnerState, part, type LearnerState } from '../learner-state.js';
import { buildSftLoss, SFT_LOSS_TOKENS } from './loss.js';
import { sftSettings, type SftSettings } from './settings.js';

export const SFT: AlgorithmDefinition<SftSettings, TextAlgorithmContext> = {
  name: 'SFT',
  actions: ['text'],
  params: sftSettings,
  create: (context, settings) => Sft.create(context, settings),
  lengthWithoutBudget: (settings) => settings.updates * settings.batch_size,
};

/** PyTorch's Adam epsilon. */
export const SFT_ADAM_EPS = 1e-8;

export interface SftState {
  globalStep: number;
  updates: number;
  rng: number[];
  weights: WeightSnapshot;
  optimizer: AdamState;
  /** precision fp16's loss scale; null in fp32 (and absent from checkpoints before it). */
  lossScale?: LossScaleState | null;
}

export class Sft implements Algorithm {
  readonly name = 'SFT';
  /** Demonstrations trained on so far. */
  globalStep = 0;
  updates = 0;
  private readonly optimizer: Adam;
  private readonly checked: CheckedStep;
  private readonly invTokens = new Float32Array(1);
  /** What a checkpoint keeps (learner-state.ts). */
  private readonly saved: LearnerState<SftState>;

  private constructor(
    readonly settings: SftSettings,
    readonly policy: LanguageModel,
    readonly env: TextEnv,
    /** Demonstrations to train on: the stage's budget, or `updates` batches. */
    readonly budget: number,
    private readonly gradients: TokenGradientRun,
    private readonly rng: Rng,
    /** How each update goes through memory (../text/token-step.ts). */
    private readonly memory: MemoryChoice,
    /** Draws the demonstrations of a file (`data: "x.jsonl"`) with `rng`; null: the env's own. */
    private readonly demos: DemoSampler | null,
  ) {
    this.optimizer = new Adam(policy.weights, { eps: SFT_ADAM_EPS });
    // No clipping: SFT has no max_grad_norm.
    this.checked = new CheckedStep(gradients, {
      learner: 'SFT',
      at: () => `update ${this.updates + 1}`,
      advice: 'try a smaller learning_rate',
      weights: policy.weights,
      optimizer: this.optimizer,
    });
    this.saved = learnerState<SftState>('SFT', {
      globalStep: part.counter(this, 'globalStep'),
      updates: part.counter(this, 'updates'),
      rng: part.rng(rng),
      weights: part.weights(policy.weights),
      optimizer: part.adam(this.optimizer),
      lossScale: part.lossScale(gradients.lossScaler),
    });
  }

  static async create(context: TextAlgorithmContext, settings: SftSettings): Promise<Sft> {
    const { model, env } = context;
    const T = model.variableRows ? 'T' : env.rowWidth();
    const rng = context.rng.fork('demos');
    // A file's demonstrations are read and checked against the env and model before anything is built.
    const demos = settings.data === 'demos' ? null
      : DemoSampler.create(env, model, demoOrigin(settings.data, context.dataFiles?.get('data'), 'data'), { batchSize: settings.batch_size, width: typeof T === 'number' ? T : 0, rng, learner: 'SFT', setting: 'data' });
    // Demonstrations' rows: a prompt and its target, as long as the env's longest completion.
    const memory = chooseMemory(model, { microBatch: settings.micro_batch, checkpointing: settings.gradient_checkpointing }, settings.batch_size, expectedRowLength(model, undefined), context.compute);
    const gradients = await tokenGradientRun(model, (source) => buildSftLoss(source, T), SFT_LOSS_TOKENS, memory, context.compute, { B: settings.batch_size });
    const budget = Math.min(context.budget ?? Infinity, settings.updates * settings.batch_size);
    return new Sft(settings, model, env, budget, gradients, rng, memory, demos);
  }

  get done(): boolean {
    return this.updates >= this.settings.updates || this.globalStep >= this.budget;
  }

  hparams(): Record<string, unknown> {
    return { ...this.settings, micro_batch: this.memory.microBatch, gradient_checkpointing: this.memory.checkpointing, adam_eps: SFT_ADAM_EPS };
  }

  async iterate(): Promise<Record<string, number>> {
    const s = this.settings;
    const lr = scheduleValue(s.learning_rate, this.updates, s.updates);
    const rows = Math.min(s.batch_size, this.budget - this.globalStep);
    const batch = this.demos ? await this.demos.draw(rows) : await this.env.demonstrations(rows, this.rng, this.policy);
    const T = batch.width;
    this.invTokens[0] = 1 / batch.tokenCount;
    const out = await this.checked.step({
      tokens: { data: batch.tokens, dims: [rows, T] },
      targets: { data: batch.targets, dims: [rows, T] },
      mask: { data: batch.mask, dims: [rows, T] },
      inv_tokens: this.invTokens,
      ...batch.modelFeeds,
    }, lr);
    this.checked.checkWeights();
    this.updates++;
    this.globalStep += rows;
    return {
      'losses/sft_loss': out.loss,
      'losses/grad_norm': out.gradNorm,
      'train/token_accuracy': out.metrics[0]!,
      'charts/learning_rate': lr,
      'charts/tokens': batch.tokenCount,
      ...this.checked.precisionMetrics(),
      ...memoryMetrics(),
    };
  }

  state(): SftState {
    return this.saved.save();
  }

  loadState(saved: unknown): void {
    this.saved.load(saved);
  }

  async release(): Promise<void> {
    await this.gradients.release();
  }
}
