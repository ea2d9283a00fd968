// Demonstrations drawn for a text learner: SFT's from a file (`data: "x.jsonl"`), and those of
// GRPO's auxiliary supervised term (sft_data, sft_coef, sft_batch_size:
// CHORD, Zhang et al. 2025, "On-Policy RL Meets Off-Policy Experts"; LUFFY, Yan et al. 2025,
// mixes such demonstrations into GRPO too). Each update draws `sft_batch_size` demonstrations,
// from the env's own (`demos`, as SFT's `data: demos`) or from a JSONL file of
// {"prompt", "target"} lines (read as `dataset("...")` reads one), and appends their rows to the
// batch of the policy's samples: one forward pass and one gradient step for the policy-gradient
// terms and the cross-entropy (policy-gradient-loss.ts). The appended rows carry no advantage
// and no token weight, so the policy-gradient terms and their metrics are those of the samples alone.
//
// Demonstrations are drawn with their own random stream, kept in the learner's checkpoint, so a
// resumed run draws the ones it would have.
import { examplesNeedTextTask } from '../../../dsl/schema/dataset.js';
import type { Rng } from '../../../shared/random.js';
import { InputError } from '../../../shared/input-error.js';
import { isPretrained } from '../../policies/pretrained.js';
import type { LanguageModel } from '../../policies/index.js';
import type { Feed } from '../../tensor/index.js';
import { TextEnvironment } from '../../text/env.js';
import type { TextExample } from '../../text/task.js';
import type { TextEnv, TokenRows } from '../../text/text-env.js';
import { datasetOfBytes } from '../../text/dataset.js';
import type { DataFile } from '../../run/data-files.js';

/** A refusal of demonstrations (GRPO's sft_data, SFT's data) that cannot be trained on with this env and model. */
export class DemonstrationError extends InputError {
  override name = 'DemonstrationError';
}

/** Where the demonstrations come from: the env's own, or a file's examples (already read). */
export type DemoOrigin = { readonly kind: 'env' } | { readonly kind: 'file'; readonly file: string; readonly examples: readonly TextExample[] };

/**
 * Where demonstrations come from: `demos`, the env's; or `file`, the setting's data file as the
 * run hands it over (read as `dataset("...")` is: one {"prompt", "target"} object a line, else a
 * DatasetError naming the file and line). `setting` names it in messages.
 */
export function demoOrigin(source: 'demos' | { readonly file: string }, data: DataFile | undefined, setting: string): DemoOrigin {
  if (source === 'demos') return { kind: 'env' };
  const { file } = source;
  if (data === undefined) throw new DemonstrationError(`${setting} ${JSON.stringify(file)}: this run was handed no data file for it; train from the .rlx file (or with train()'s baseDir), which reads and keeps it`);
  return { kind: 'file', file, examples: datasetOfBytes(data.bytes(), file).examples };
}

/** The update's batch with the demonstrations' rows after the samples' (all of width `width`). */
export interface JoinedRows {
  readonly rows: number;
  readonly width: number;
  readonly tokens: BigInt64Array;
  readonly targets: BigInt64Array;
  /** A pretrained model's position and attention feeds for the joined rows. */
  readonly modelFeeds?: Readonly<Record<string, Feed>>;
  /** 1 / (demonstration tokens) at each demonstration token, 0 on the samples' rows: the cross-entropy's weights. */
  readonly sftWeight: Float32Array;
  /** A [samples, width] array of the samples' (a mask, token weights) with the demonstrations' rows as 0. */
  extend(values: Float32Array): Float32Array;
  /** A per-row array of the samples' (advantages) with 0 for each demonstration. */
  extendRows(values: Float32Array): Float32Array;
}

export class DemoSampler {
  private constructor(
    private readonly env: TextEnv,
    private readonly model: LanguageModel,
    private readonly origin: { readonly kind: 'env' } | { readonly kind: 'file'; readonly examples: readonly TextExample[] },
    readonly batchSize: number,
    /** The samples' row width, which the demonstrations' rows must have too. */
    private readonly width: number,
    private readonly maxNewTokens: number | undefined,
    readonly rng: Rng,
  ) {}

  /**
   * A sampler of `batchSize` demonstrations an update for `env` and `model`, in rows of `width`
   * (completions of up to `maxNewTokens`, else the env's max_tokens). Refuses, before any
   * training, demonstrations that do not fit those rows or the model: a DemonstrationError naming
   * the learner's `setting` (sft_data), the file and the example.
   */
  static create(env: TextEnv, model: LanguageModel, origin: DemoOrigin, o: { batchSize: number; width: number; maxNewTokens?: number; rng: Rng; learner: string; setting: string }): DemoSampler {
    const where = origin.kind === 'file' ? `${o.learner} ${o.setting} ${JSON.stringify(origin.file)}` : `${o.learner} ${o.setting}: demos`;
    if (origin.kind === 'file' && !(env instanceof TextEnvironment)) throw new DemonstrationError(examplesNeedTextTask(o.learner, o.setting, origin.file));
    if (model.variableRows && !(env instanceof TextEnvironment)) {
      // A pretrained model's dialogues are rows of packed segments, which demonstrations' rows cannot join yet.
      throw new DemonstrationError(`${o.learner}: ${o.setting} with a pretrained model works on a TextTask only, not on dialogues yet; train on the env's demonstrations in an SFT stage before this one instead`);
    }
    if (origin.kind === 'env') {
      // (A pretrained model's rows are as wide as each batch needs: its demonstrations need no room in the samples' rows.)
      if (env instanceof TextEnvironment && !model.variableRows) {
        const longest = Math.min(env.maxTokens, o.maxNewTokens ?? env.maxTokens);
        if (env.task.maxTargetLength > longest) {
          throw new DemonstrationError(`${where}: the task's targets have up to ${env.task.maxTargetLength} characters, but completions here have at most ${longest} (max_new_tokens); raise max_new_tokens to at least ${env.task.maxTargetLength}`);
        }
      }
      return new DemoSampler(env, model, origin, o.batchSize, o.width, o.maxNewTokens, o.rng);
    }
    if (!(env instanceof TextEnvironment)) throw new Error(`${where}: not a TextTask`); // refused above
    // Held-out prompts are what evaluation measures: training on their answers would inflate it.
    const examples = origin.examples.filter((e) => !env.task.isHeldOut(e.prompt));
    if (examples.length === 0) throw new DemonstrationError(`${where}: every prompt in it is one of the task's held-out prompts, which are never trained on; give demonstrations of other prompts`);
    origin.examples.forEach((example, index) => {
      if (env.task.isHeldOut(example.prompt)) return;
      let rows: TokenRows;
      try {
        rows = env.demonstrationRows([example], model, o.maxNewTokens);
      } catch (err) {
        throw new DemonstrationError(`${where}: example ${index + 1} does not fit this task's rows: ${(err as Error).message}; the task's prompts have up to ${env.task.maxPromptLength} characters and completions here up to ${Math.min(env.maxTokens, o.maxNewTokens ?? env.maxTokens)} (${o.maxNewTokens !== undefined ? 'max_new_tokens' : 'the env\'s max_tokens'})`, { cause: err });
      }
      if (model.variableRows) {
        // Its own tokens: the prompt through the chat template, the target and its end.
        if (rows.width > model.context) throw new DemonstrationError(`${where}: example ${index + 1} is ${rows.width + 1} tokens as the model reads it (prompt and answer), more than its context of ${model.context} allows; shorten it or leave it out`);
      } else if (rows.width !== o.width) {
        throw new Error(`${where}: demonstration rows of width ${rows.width}, the samples' are ${o.width}`);
      }
    });
    return new DemoSampler(env, model, { kind: 'file', examples }, o.batchSize, o.width, o.maxNewTokens, o.rng);
  }

  /** This update's demonstrations (`count`, the sampler's batch size by default), drawn from the sampler's stream. */
  async draw(count = this.batchSize): Promise<TokenRows> {
    const origin = this.origin;
    let rows: TokenRows;
    if (origin.kind === 'file') {
      const picked = Array.from({ length: count }, () => origin.examples[this.rng.int(origin.examples.length)]!);
      rows = (this.env as TextEnvironment).demonstrationRows(picked, this.model, this.maxNewTokens);
    } else if (this.env instanceof TextEnvironment) {
      const picked = Array.from({ length: count }, () => (this.env as TextEnvironment).task.sample(this.rng));
      rows = this.env.demonstrationRows(picked, this.model, this.maxNewTokens);
    } else {
      rows = await this.env.demonstrations(count, this.rng, this.model);
    }
    if (!this.model.variableRows && rows.width !== this.width) throw new DemonstrationError(`sft_data: demonstrations of ${rows.width} tokens a row, but the samples' rows have ${this.width}; this env's demonstrations cannot join its samples`);
    return rows;
  }

  /** The samples' rows followed by this update's demonstrations'. */
  async join(samples: TokenRows): Promise<JoinedRows> {
    return joinRows(samples, await this.draw(), isPretrained(this.model) ? this.model : undefined);
  }
}

/** How a pretrained model's rows are laid out again when two batches join (PretrainedPolicy's). */
export interface RowFeeds {
  readonly padId: number;
  rowFeeds(starts: Int32Array, width: number): Record<string, Feed>;
}

/** What aligning a batch needs: where its completions start, and each row's left padding (token-rows.ts PaddedTokenRows). */
type Aligned = TokenRows & { readonly promptWidth: number; readonly starts: Int32Array };

const isAligned = (rows: TokenRows): rows is Aligned => 'promptWidth' in rows && 'starts' in rows;

/**
 * `samples` then `demos`: the arrays the loss graph is fed. Rows of the character-level layout
 * have one width. A pretrained model's batches each have their own (their longest prompt and
 * completion): both are laid out again with the longer prompt width and the longer completion,
 * every completion starting at the same position, with `model`'s padding and position feeds.
 */
export function joinRows(samples: TokenRows, demos: TokenRows, model?: RowFeeds): JoinedRows {
  let W = 0;
  let T = samples.width;
  let shift = [0, 0];
  if (model) {
    if (!isAligned(samples) || !isAligned(demos)) throw new Error('joinRows: a pretrained model\'s rows need their prompt width and left padding');
    W = Math.max(samples.promptWidth, demos.promptWidth);
    T = W + Math.max(samples.width - samples.promptWidth, demos.width - demos.promptWidth);
    shift = [W - samples.promptWidth, W - demos.promptWidth];
  } else if (demos.width !== samples.width) {
    throw new Error(`joinRows: demonstrations of ${demos.width} tokens a row, samples of ${samples.width}`);
  }
  const all = samples.rows + demos.rows;
  /** `source`'s rows [rows, width] placed from row `first`, each moved right by `by`; the rest `fill`. */
  function place<A extends BigInt64Array | Float32Array>(out: A, source: A, from: TokenRows, first: number, by: number): A {
    for (let r = 0; r < from.rows; r++) out.set(source.subarray(r * from.width, (r + 1) * from.width) as never, (first + r) * T + by);
    return out;
  }
  const pad = BigInt(model?.padId ?? 0);
  const ids = (a: BigInt64Array, b: BigInt64Array) => place(place(new BigInt64Array(all * T).fill(pad), a, samples, 0, shift[0]!), b, demos, samples.rows, shift[1]!);
  const perToken = 1 / Math.max(1, demos.tokenCount);
  const sftWeight = place(new Float32Array(all * T), demos.mask.map((m) => m * perToken), demos, samples.rows, shift[1]!);
  let modelFeeds: Record<string, Feed> | undefined;
  if (model) {
    const starts = new Int32Array(all);
    (samples as Aligned).starts.forEach((s, r) => (starts[r] = s + shift[0]!));
    (demos as Aligned).starts.forEach((s, r) => (starts[samples.rows + r] = s + shift[1]!));
    modelFeeds = model.rowFeeds(starts, T);
  }
  return {
    rows: all,
    width: T,
    tokens: ids(samples.tokens, demos.tokens),
    targets: ids(samples.targets, demos.targets),
    ...(modelFeeds ? { modelFeeds } : {}),
    sftWeight,
    extend: (values) => place(new Float32Array(all * T), values, samples, 0, shift[0]!),
    extendRows: (values) => {
      const out = new Float32Array(all);
      out.set(values);
      return out;
    },
  };
}
