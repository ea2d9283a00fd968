// Direct preference optimisation on the pairs of the `data` file (pairs.ts), as TRL's DPOTrainer
// with its loss types (preference-loss.ts). Each update draws `batch_size` pairs (with
// replacement, as SFT draws a file's demonstrations; TRL goes through shuffled epochs), writes
// each pair as two rows the env lays out as demonstrations (the prompt, then the chosen or the
// rejected answer and its end token), and takes two passes:
//   1. forward: the policy's log-probability of each answer (its tokens summed);
//   2. the loss and its derivative by each answer's log-probability, in float64, then one Adam
//      step on the sum of the answers' token log-probabilities weighted by those derivatives
//      (loss.ts): the preference loss's gradient, split exactly by micro-batches.
// The reference (`reference: initial`) is the policy as the stage starts: its log-probabilities
// of every pair are computed once, before the first update, and kept in the checkpoint, so no
// copy of the model is held (TRL's precompute_ref_log_probs). SimPO has no reference.
// A stage without a budget runs `updates` batches; a step counts one pair.
import type { Rng } from '../../../shared/random.js';
import { examplesNeedTextTask, decodeDataset } from '../../../dsl/schema/dataset.js';
import type { LanguageModel } from '../../policies/index.js';
import { scheduleValue } from '../../schedule.js';
import { Adam, type AdamState, type Feed, type LossScaleState, type WeightSnapshot } from '../../tensor/index.js';
import { TextEnvironment } from '../../text/env.js';
import type { TokenRows } from '../../text/text-env.js';
import type { Algorithm, AlgorithmDefinition, TextAlgorithmContext } from '../algorithm.js';
import { CheckedStep } from '../checked-step.js';
import { learnerState, part, type LearnerState } from '../learner-state.js';
import { chooseMemory, expectedRowLength, memoryMetrics, tokenGradientRun, tokenLogProbRun, type LogProbRun, type MemoryChoice, type TokenGradientRun } from '../text/token-step.js';
import { buildLogProbs } from '../text/tokens.js';
import { buildDpoStepLoss, DPO_LOSS_TOKENS } from './loss.js';
import { parsePairs, PreferencePairsError, type PreferencePair } from './pairs.js';
import { preferenceLoss, type PairLogProbs } from './preference-loss.js';
import { dpoSettings, usesReference, type DpoSettings } from './settings.js';

export const DPO: AlgorithmDefinition<DpoSettings, TextAlgorithmContext> = {
  name: 'DPO',
  actions: ['text'],
  params: dpoSettings,
  create: (context, settings) => Dpo.create(context, settings),
  lengthWithoutBudget: (settings) => settings.updates * settings.batch_size,
};

/** PyTorch's (and TRL's) Adam epsilon. */
export const DPO_ADAM_EPS = 1e-8;

/** The reference's summed log-probabilities of every pair's answers, by pair. */
interface ReferenceLogProbs {
  chosen: number[];
  rejected: number[];
}

export interface DpoState {
  globalStep: number;
  updates: number;
  rng: number[];
  weights: WeightSnapshot;
  optimizer: AdamState;
  reference: ReferenceLogProbs | null;
  lossScale?: LossScaleState | null;
}

/** Each row's summed log-probability of its answer and its answer's token count. */
export interface RowLogProbs {
  readonly sums: Float64Array;
  readonly tokens: Float64Array;
}

/** log pi of each row's answer: `logp` [rows, width] summed where `mask` is set (nowhere else read: padding may hold anything). */
export function answerLogProbs(rows: TokenRows, logp: Float32Array): RowLogProbs {
  const sums = new Float64Array(rows.rows);
  const tokens = new Float64Array(rows.rows);
  for (let r = 0; r < rows.rows; r++) {
    for (let t = r * rows.width; t < (r + 1) * rows.width; t++) {
      if (rows.mask[t] === 0) continue;
      sums[r]! += logp[t]!;
      tokens[r]! += 1;
    }
  }
  return { sums, tokens };
}

/** Rows interleave a pair's answers: chosen at 2i, rejected at 2i + 1. */
function pairRows(pairs: readonly PreferencePair[], env: TextEnvironment, model: LanguageModel): TokenRows {
  return env.demonstrationRows(pairs.flatMap((p) => [p.chosen, p.rejected]), model);
}

/** The pairs of the run's copy of `data` that are not held out, each checked to fit the env's rows and the model. */
function readPairs(context: TextAlgorithmContext, file: string): { env: TextEnvironment; pairs: PreferencePair[] } {
  const { env, model } = context;
  if (!(env instanceof TextEnvironment)) throw new PreferencePairsError(examplesNeedTextTask('DPO', 'data', file));
  const data = context.dataFiles?.get('data');
  if (data === undefined) throw new PreferencePairsError(`DPO data ${JSON.stringify(file)}: this run was handed no data file for it; train from the .rlx file (or with train()'s baseDir), which reads and keeps it`);
  const where = `DPO data ${JSON.stringify(file)}`;
  const all = parsePairs(decodeDataset(data.bytes()).text, file);
  // Held-out prompts are what evaluation measures: preferring answers to them would inflate it.
  const pairs = all.filter((p) => !env.task.isHeldOut(p.chosen.prompt));
  if (pairs.length === 0) throw new PreferencePairsError(`${where}: every prompt in it is one of the task's held-out prompts, which are never trained on; give pairs of other prompts`);
  for (const pair of pairs) {
    let rows: TokenRows;
    try {
      rows = pairRows([pair], env, model);
    } catch (err) {
      throw new PreferencePairsError(`${where} line ${pair.line}: the pair does not fit this task's rows: ${(err as Error).message}; answers here have at most ${env.maxTokens} characters (the env's max_tokens)`, { cause: err });
    }
    if (model.variableRows && rows.width >= model.context) {
      throw new PreferencePairsError(`${where} line ${pair.line}: the pair is ${rows.width + 1} tokens as the model reads it (prompt and answer), more than its context of ${model.context}; shorten it or leave it out`);
    }
  }
  return { env, pairs };
}

export class Dpo implements Algorithm {
  readonly name = 'DPO';
  /** Pairs trained on so far. */
  globalStep = 0;
  updates = 0;
  private readonly optimizer: Adam;
  private readonly checked: CheckedStep;
  private readonly saved: LearnerState<DpoState>;

  private constructor(
    readonly settings: DpoSettings,
    readonly policy: LanguageModel,
    private readonly env: TextEnvironment,
    private readonly pairs: readonly PreferencePair[],
    /** Pairs to train on: the stage's budget, or `updates` batches. */
    readonly budget: number,
    private readonly gradients: TokenGradientRun,
    private readonly logProbs: LogProbRun,
    private readonly rng: Rng,
    private readonly memory: MemoryChoice,
    /** The reference's log-probabilities, by pair; null: none (reference: none, simpo). */
    private reference: ReferenceLogProbs | null,
  ) {
    this.optimizer = new Adam(policy.weights, { eps: DPO_ADAM_EPS });
    this.checked = new CheckedStep(gradients, {
      learner: 'DPO',
      at: () => `update ${this.updates + 1}`,
      advice: 'try a smaller learning_rate or max_grad_norm',
      weights: policy.weights,
      optimizer: this.optimizer,
      maxGradNorm: settings.max_grad_norm,
    });
    const pairCount = pairs.length;
    this.saved = learnerState<DpoState>('DPO', {
      globalStep: part.counter(this, 'globalStep'),
      updates: part.counter(this, 'updates'),
      rng: part.rng(rng),
      weights: part.weights(policy.weights),
      optimizer: part.adam(this.optimizer),
      reference: this.reference === null ? part.none() : {
        kind: `the reference's log-probabilities of ${pairCount} pairs`,
        save: () => this.reference,
        problem: (saved, at) => {
          const r = saved as Partial<ReferenceLogProbs>;
          const fits = (a: unknown) => Array.isArray(a) && a.length === pairCount && a.every(Number.isFinite);
          return fits(r.chosen) && fits(r.rejected) ? undefined : `has no reference log-probabilities of this run's ${pairCount} pairs in '${at}'`;
        },
        load: (saved) => (this.reference = saved),
      },
      lossScale: part.lossScale(gradients.lossScaler),
    });
  }

  static async create(context: TextAlgorithmContext, settings: DpoSettings): Promise<Dpo> {
    const { model } = context;
    // The pairs are read and checked against the env and model before anything is built.
    const { env, pairs } = readPairs(context, settings.data.file);
    const T = model.variableRows ? 'T' : env.rowWidth();
    const rows = 2 * settings.batch_size;
    const memory = chooseMemory(model, { microBatch: settings.micro_batch, checkpointing: settings.gradient_checkpointing }, rows, expectedRowLength(model, undefined), context.compute);
    const gradients = await tokenGradientRun(model, (source) => buildDpoStepLoss(source, T), DPO_LOSS_TOKENS, memory, context.compute, { B: rows });
    const logProbs = await tokenLogProbRun(model, T, buildLogProbs, memory, context.compute);
    const reference = usesReference(settings) ? await referenceLogProbs(pairs, env, model, logProbs, settings.batch_size) : null;
    return new Dpo(settings, model, env, pairs, Math.min(context.budget ?? Infinity, settings.updates * settings.batch_size), gradients, logProbs, context.rng.fork('pairs'), memory, reference);
  }

  private answerLogProbs(rows: TokenRows): Promise<RowLogProbs> {
    return runAnswerLogProbs(this.logProbs, rows);
  }

  get done(): boolean {
    return this.updates >= this.settings.updates || this.globalStep >= this.budget;
  }

  hparams(): Record<string, unknown> {
    return { ...this.settings, reference: usesReference(this.settings) ? 'initial' : 'none', pairs: this.pairs.length, micro_batch: this.memory.microBatch, gradient_checkpointing: this.memory.checkpointing, adam_eps: DPO_ADAM_EPS };
  }

  async iterate(): Promise<Record<string, number>> {
    const s = this.settings;
    const lr = scheduleValue(s.learning_rate, this.updates, s.updates);
    const count = Math.min(s.batch_size, this.budget - this.globalStep);
    const picked = Array.from({ length: count }, () => this.rng.int(this.pairs.length));
    const rows = pairRows(picked.map((i) => this.pairs[i]!), this.env, this.policy);
    const policy = await this.answerLogProbs(rows);
    const at = (values: Float64Array, side: 0 | 1) => Float64Array.from({ length: count }, (_, i) => values[2 * i + side]!);
    const ref = this.reference;
    const batch: PairLogProbs = {
      chosen: at(policy.sums, 0),
      rejected: at(policy.sums, 1),
      chosenTokens: at(policy.tokens, 0),
      rejectedTokens: at(policy.tokens, 1),
      refChosen: ref ? Float64Array.from(picked, (i) => ref.chosen[i]!) : null,
      refRejected: ref ? Float64Array.from(picked, (i) => ref.rejected[i]!) : null,
    };
    const result = preferenceLoss(s, batch);
    // Each answer's tokens carry d loss / d (its summed log-probability).
    const weight = new Float32Array(rows.rows * rows.width);
    for (let r = 0; r < rows.rows; r++) {
      const d = (r % 2 === 0 ? result.dChosen : result.dRejected)[r >> 1]!;
      for (let t = r * rows.width; t < (r + 1) * rows.width; t++) weight[t] = rows.mask[t]! * d;
    }
    const out = await this.checked.step({ ...tokenFeeds(rows), weight: { data: weight, dims: [rows.rows, rows.width] } }, lr);
    this.checked.checkWeights();
    this.updates++;
    this.globalStep += count;
    return {
      'losses/dpo_loss': result.loss,
      'losses/grad_norm': out.gradNorm,
      ...result.metrics,
      'charts/learning_rate': lr,
      'charts/tokens': rows.tokenCount,
      ...this.checked.precisionMetrics(),
      ...memoryMetrics(),
    };
  }

  state(): DpoState {
    return this.saved.save();
  }

  loadState(saved: unknown): void {
    this.saved.load(saved);
  }

  async release(): Promise<void> {
    await this.gradients.release();
    await this.logProbs.release();
  }
}

/** log pi of each row's answer under the weights `logProbs` reads, as they are now. */
async function runAnswerLogProbs(logProbs: LogProbRun, rows: TokenRows): Promise<RowLogProbs> {
  const out = await logProbs.run({ ...tokenFeeds(rows), inv_temperature: Float32Array.of(1) });
  return answerLogProbs(rows, out.logp!);
}

/** The policy's log-probabilities of every pair's answers as they are now (the stage's start), `batchSize` pairs at a time. */
async function referenceLogProbs(pairs: readonly PreferencePair[], env: TextEnvironment, model: LanguageModel, logProbs: LogProbRun, batchSize: number): Promise<ReferenceLogProbs> {
  const reference: ReferenceLogProbs = { chosen: [], rejected: [] };
  for (let first = 0; first < pairs.length; first += batchSize) {
    const rows = pairRows(pairs.slice(first, first + batchSize), env, model);
    const { sums } = await runAnswerLogProbs(logProbs, rows);
    for (let r = 0; r < rows.rows; r += 2) {
      reference.chosen.push(sums[r]!);
      reference.rejected.push(sums[r + 1]!);
    }
  }
  return reference;
}

/** The token feeds of rows: ids, next-token targets and the model's own position feeds. */
function tokenFeeds(rows: TokenRows): Record<string, Feed> {
  return {
    tokens: { data: rows.tokens, dims: [rows.rows, rows.width] },
    targets: { data: rows.targets, dims: [rows.rows, rows.width] },
    ...rows.modelFeeds,
  };
}
