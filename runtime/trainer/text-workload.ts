// The workload of runs on a text env: one token model, built once per run and handed to every
// stage (so each stage starts from the weights the previous one left), and the env's held-out
// evaluation (greedy completions of held-out prompts, or greedy dialogues).
//
// The learners sample from the env themselves (text/text-env.ts), so there are no env copies to
// step here; dialogues are episodes, which the learner hands over.
import type { Plan, PlanStage } from '../../dsl/compile/plan.js';
import { stageWork } from '../../dsl/schema/index.js';
import type { LoadedEnvModule } from '../envs/user-module.js';
import { stageAlgorithm, type Algorithm, type EpisodeRecord } from '../algorithms/index.js';
import type { RunDataFiles } from '../run/data-files.js';
import { LANGUAGE_MODEL, PolicyFactory, type LanguageModel } from '../policies/index.js';
import { isPretrained, type ExpectedUse } from '../policies/pretrained.js';
import { Rng } from '../../shared/random.js';
import type { ConditionMetric } from '../run/stop.js';
import { TextRolloutRecorder, writeHeldOutAnswers } from '../run/text-rollouts.js';
import { PlanError } from '../support.js';
import type { Compute, ExecutionProvider, Precision } from '../tensor/index.js';
import { parameterCount } from '../../hf/config.js';
import { rolloutDevice, type RolloutDevice } from '../lm/rollout-device.js';
import type { TextTaskOptions } from '../text/config.js';
import { DialogueEnvironment } from '../text/dialogue-env.js';
import { DialogueReward } from '../text/dialogue-reward.js';
import { TextEnvironment } from '../text/env.js';
import { GuessNumber } from '../text/guess-number.js';
import { ModuleDialogueEnv } from '../text/module-dialogue.js';
import { PythonDialogueEnv, pythonTextOptions } from '../text/python-dialogue.js';
import { PYTHON_TEXT_ENV_KIND } from '../../dsl/schema/python-text-env.js';
import type { SampleRecord, TextEnv, TokenSampler } from '../text/text-env.js';
import type { EvalOutcome, RunServices, Workload } from './workload.js';

/** The text env of a plan (`envModule`: the loaded module of a `module(...)` env); errors name the param. */
export function textEnvOf(plan: Plan, options: TextTaskOptions = {}, envModule?: LoadedEnvModule): TextEnv {
  switch (plan.env.kind) {
    case 'TextTask':
      return TextEnvironment.fromPlan(plan, { ...options, modelTokens: plan.policy.kind === 'pretrained' });
    case 'GuessNumber':
      return new DialogueEnvironment(GuessNumber.fromParams(plan.env.params), 'GuessNumber', DialogueReward.fromPlan(plan, GuessNumber.INFO_FIELDS));
    case PYTHON_TEXT_ENV_KIND: {
      const env = new PythonDialogueEnv(pythonTextOptions(plan.env, { baseDir: options.runDir ?? options.baseDir }));
      try {
        return new DialogueEnvironment(env, PYTHON_TEXT_ENV_KIND, DialogueReward.fromPlan(plan, env.infoFields), () => env.close());
      } catch (err) {
        env.close();
        throw err;
      }
    }
    case 'module':
      if (envModule?.text) {
        const env = new ModuleDialogueEnv(envModule.text, plan.env.params, `${plan.env.name} = module("${plan.env.module ?? ''}")`);
        return new DialogueEnvironment(env, 'module', DialogueReward.fromPlan(plan, envModule.text.info.infoFields));
      }
      break;
  }
  throw new Error(`env kind ${plan.env.kind} is not a text env`);
}

/**
 * The most a run will sample and train at once over its stages, for a pretrained model's memory
 * estimate (hf/memory.ts): rows decoded at once and rows in one gradient step, the longest
 * completion and whether a KL reference is kept, as each stage's algorithm says them
 * (AlgorithmSpec.work in the schema registry, the checker's answer too); the longest row is the
 * longest prompt in characters (a bound on its tokens), plus a chat template's ~32 tokens and
 * the completion: the env's max_tokens, or the algorithm's own bound where smaller.
 */
export function expectedUse(plan: Plan, env: TextEnv): ExpectedUse {
  let sampleRows = 0;
  let trainRows = 0;
  let referenceCopy = false;
  const maxTokens = env instanceof TextEnvironment ? env.maxTokens : 64;
  let completion = 0;
  for (const stage of plan.stages) {
    const work = stageWork(stage.algorithm.kind, stage.algorithm.params as Record<string, unknown>, { text: true, envs: plan.envs, rowsPerEpisode: 1 });
    sampleRows = Math.max(sampleRows, work.sampleRows);
    trainRows = Math.max(trainRows, work.trainRows);
    completion = Math.max(completion, Math.min(maxTokens, work.completionTokens ?? maxTokens));
    referenceCopy ||= work.referenceCopy;
  }
  if (env instanceof DialogueEnvironment) {
    // A whole dialogue is one row: every message in characters (a bound on its tokens), plus ~16 template tokens per message.
    const d = env.env;
    return { sampleRows, trainRows, sequenceLength: d.maxOpening + d.maxTurns * (d.maxTurnLength + 1) + (d.maxTurns - 1) * d.maxReply + 32 * d.maxTurns, referenceCopy };
  }
  const prompt = env instanceof TextEnvironment ? env.task.maxPromptLength : 64;
  return { sampleRows, trainRows, sequenceLength: prompt + 32 + completion, referenceCopy };
}

/** Where the task's dataset and the learners' files are read (a resumed run's own copies). */
export interface TextWorkloadOptions extends TextTaskOptions {
  /** The files the stages' `file` settings name (read at the start, then the run's copies). */
  readonly dataFiles?: RunDataFiles;
  /** Parameters from which a LoRA model's rollouts decode on a GPU device (GPU_SAMPLING_MIN_PARAMETERS; tests set 0 to force it). */
  readonly gpuSamplingMinParameters?: number;
}

export class TextWorkload implements Workload {
  readonly description: Readonly<Record<string, unknown>>;
  readonly policyFields: Readonly<Record<string, unknown>>;
  /** What reading a dataset(...) task's file found to warn about. */
  readonly warnings?: readonly string[];
  /** Batches for the rollout inspector, armed by recordNext() once the run directory exists. */
  private readonly recorder: TextRolloutRecorder;
  private run: RunServices | null = null;
  /** The latest evaluation's greedy samples, and the step it ran at. */
  private lastEval: { step: number; samples: readonly SampleRecord[] } | null = null;
  /** Where the latest stage decodes its rollouts (chooseRolloutDevice). */
  private rollouts: RolloutDevice | undefined;

  private constructor(
    readonly env: TextEnv,
    readonly model: LanguageModel,
    /** Stops what the env runs on (a user module's worker thread). */
    private readonly closeEnv: () => void = () => {},
    /** The files the stages' `file` settings name, handed to each stage's algorithm. */
    readonly dataFiles: RunDataFiles | undefined,
    private readonly gpuSamplingMinParameters?: number,
  ) {
    this.description = env.description;
    this.policyFields = env.policyFields;
    if (env instanceof TextEnvironment && env.task.warnings) this.warnings = env.task.warnings;
    const { env: kind, task } = env.description;
    this.recorder = new TextRolloutRecorder({ env: kind, task, terms: env.termNames }, () => {
      const run = this.run;
      if (!run) return null;
      return {
        dir: run.dir.rolloutsDir,
        step: run.step(),
        stage: run.stage(),
        onRecorded: (batch) => run.dir.events.add({ type: 'rollout', step: run.step(), file: run.dir.relative(batch.file), return: batch.return, length: batch.length, stage: run.stage() }),
      };
    });
  }

  /** The plan's task and model for `seed`; `options` say where a dataset's file is. Errors say which param is wrong. */
  static create(plan: Plan, seed: number, options: TextWorkloadOptions = {}, envModule?: LoadedEnvModule): TextWorkload {
    const env = textEnvOf(plan, options, envModule);
    const model = new PolicyFactory(plan.policy, null, new Rng(seed).fork('policy'), undefined, options.baseDir).languageModel(LANGUAGE_MODEL, plan.stages[0]!.algorithm.kind, { tokenizer: env.tokenizer, expected: expectedUse(plan, env) });
    try {
      // A pretrained model's rows are its own tokens: they fit its context or are cut by max_tokens.
      if (!model.variableRows) env.checkFits(model.context, `policy ${plan.policy.name}`);
      // ... and a dataset's targets are held to max_tokens in those tokens, not in characters.
      if (env instanceof TextEnvironment && isPretrained(model)) env.checkTargetTokens((text) => model.folder.tokenizer.encode(text).length, `policy ${plan.policy.name}`);
      // Dialogues render every turn through the chat template: a model without one is refused before a run starts.
      if (env instanceof DialogueEnvironment && isPretrained(model)) model.encodeConversation([{ role: 'user', content: '' }], `policy ${plan.policy.name} on ${env.env.description}`);
    } catch (err) {
      throw new PlanError([(err as Error).message]);
    }
    return new TextWorkload(env, model, () => envModule?.close(), options.dataFiles, options.gpuSamplingMinParameters);
  }

  streamName(index: number, algorithm: string): string {
    return `stage ${index}: ${algorithm}`;
  }

  async createAlgorithm(stage: PlanStage, settings: unknown, rng: Rng, compute: Compute): Promise<Algorithm> {
    const definition = stageAlgorithm(stage.algorithm)!; // checkPlan() vouched for it
    await this.chooseRolloutDevice(stage, compute.providers[0] ?? 'cpu', compute.precision ?? 'fp32');
    return definition.create({ model: this.model, env: this.env, budget: stage.budget, rng, compute, recorder: this.recorder, dataFiles: this.dataFiles?.forStage(stage) }, settings);
  }

  /**
   * Where a pretrained model decodes this stage's rollouts (and held-out evaluation's greedy
   * completions), by lm/rollout-device.ts's rule, on the run's device. On the CPU device the
   * policy is left as it is (no choice to make, nothing logged), and token models sample as always.
   */
  private async chooseRolloutDevice(stage: PlanStage, device: ExecutionProvider, precision: Precision): Promise<void> {
    const model = this.model;
    if (device === 'cpu' || !isPretrained(model)) {
      this.rollouts = undefined;
      return;
    }
    const entropyTop = stage.algorithm.params.entropy_top_fraction;
    const tokenStatistics = (typeof entropyTop === 'number' && entropyTop < 1) || (this.env instanceof TextEnvironment && this.env.rewardReadsTokenStatistics);
    this.rollouts = rolloutDevice({ device, lora: model.lm.lora !== undefined, parameters: parameterCount(model.lm.config), tokenStatistics, precision, minParameters: this.gpuSamplingMinParameters });
    await model.lm.sampleOn(this.rollouts.provider, this.rollouts.precision);
  }

  rolloutDevice(): RolloutDevice | undefined {
    return this.rollouts;
  }

  memoryFacts(): Readonly<Record<string, unknown>> {
    if (!isPretrained(this.model)) return {};
    const estimate = this.model.memoryEstimate?.total;
    const frozen = this.model.lm.frozen;
    return { ...(estimate !== undefined ? { memory_estimate_bytes: estimate } : {}), ...(frozen ? { base_dtype: frozen.holdsHalf ? 'float16' : 'float32' } : {}) };
  }

  begin(_algorithm: Algorithm, run: RunServices): void {
    this.run = run;
  }

  recordNext(): void {
    this.recorder.arm();
  }

  takeEpisodes(algorithm: Algorithm): readonly EpisodeRecord[] {
    return algorithm.takeEpisodes?.() ?? [];
  }

  evaluatesAtStart(): boolean {
    return this.model.kind === 'pretrained';
  }

  evaluates(): boolean {
    return true;
  }

  async evaluate(algorithm?: Algorithm): Promise<EvalOutcome> {
    // A language model is a pretrained one or a TokenModel, both of which the env evaluates,
    // greedily, with the learner's stop strings and repetition penalty.
    const { samples, ...outcome } = await this.env.evaluate(this.model as TokenSampler, undefined, algorithm?.samplingControls?.());
    if (this.run) this.lastEval = { step: this.run.step(), samples };
    return { ...outcome, deterministic: true };
  }

  /**
   * At the end of a finished run: the final policy's greedy answers on the held-out starts, as
   * its last evaluation (at this step) scored them. Evaluations along the way and a run stopped
   * by a signal (no evaluation at its last step) record none; batches are recorded by the learners.
   */
  async recordPolicy(algorithm: Algorithm, recorded: 'eval' | 'final', step: number): Promise<void> {
    const run = this.run;
    if (recorded !== 'final' || !run || this.lastEval?.step !== step) return;
    const { env: kind, task } = this.env.description;
    const answers = writeHeldOutAnswers(run.dir.rolloutsDir, { env: kind, task, terms: this.env.termNames, algorithm: algorithm.name, stage: run.stage(), step }, this.lastEval.samples);
    run.dir.events.add({ type: 'rollout', step, file: run.dir.relative(answers.file), return: answers.return, length: answers.length, recorded: 'final', stage: run.stage() });
  }

  conditionValues(windows: Readonly<Record<string, number>>, latest: Readonly<Record<string, number>>, lastEval: Readonly<Record<string, number>>): Partial<Record<ConditionMetric, number>> {
    // Dialogues are episodes, with train.* windows; a single-turn task's train.* are the last batch's means.
    const episodic = windows['train/mean_return'] !== undefined;
    return {
      'eval.mean_return': lastEval['eval/mean_return'],
      'eval.std_return': lastEval['eval/std_return'],
      'eval.mean_length': lastEval['eval/mean_length'],
      'eval.success': lastEval['eval/success'],
      'eval.accuracy': lastEval['eval/accuracy'],
      'train.accuracy': latest['train/accuracy'],
      'train.mean_return': episodic ? windows['train/mean_return'] : latest['train/mean_reward'],
      'train.mean_length': episodic ? windows['train/mean_length'] : latest['train/completion_length'],
      'train.success': windows['train/success'],
    };
  }

  /** The reward's python() files by the path the plan writes, resolved (a new run records them: RUN_BUNDLE.pythonRewards); undefined without any. */
  pythonRewardFiles(): Record<string, string> | undefined {
    const python = this.env instanceof TextEnvironment ? this.env.rewardFunctions : undefined;
    if (!python || python.size === 0) return undefined;
    const files = python.resolvedFiles();
    return Object.fromEntries(python.functions.map((f, k) => [f.file, files[k]!]));
  }

  async release(): Promise<void> {
    this.closeEnv();
    this.env.close?.();
    await this.model.release();
  }
}
