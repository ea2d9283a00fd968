// The trainer of text experiments (env: TextTask): the counterpart of train.ts's TrainingRun
// for token models, with the same run directory, events, checkpoints, status.json, stop
// conditions and clean stops. What differs: no env copies or Stepper (a learner samples
// prompts from the task and scores completions itself), evaluation is exact-match accuracy on
// the task's held-out prompts, and an experiment may have stages (SFT, then GRPO) that run in
// order on one model: each stage starts from the weights the previous one left.
//
// Steps are counted over the whole run (a stage's steps continue from where the previous
// stage ended), and every event and status.json name the stage.
import * as path from 'node:path';
import type { Plan, PlanStage } from '../dsl/compile/plan.js';
import { algorithmDefinition, type Algorithm, type TextAlgorithmContext } from './algorithms/index.js';
import type { DeviceChoice } from './device.js';
import { PolicyFactory, type TokenModel } from './policies/index.js';
import { checkFits, completeTexts } from './policies/transformer/layout.js';
import { Rng } from './random.js';
import { saveCheckpoint, STATE_FORMAT, STATE_VERSION, type CheckpointState, type TrainerCounters } from './run/checkpoint.js';
import type { RunStatus } from './run/events.js';
import { RunDirectory, statusFile } from './run/run-dir.js';
import { Condition, type ConditionMetric } from './run/stop.js';
import { PlanError } from './support.js';
import { TextEnvironment } from './text/env.js';
import { evaluateText } from './text/evaluate.js';
import { RunFailedError, type TrainOptions, type TrainResult } from './train.js';

const STATUS_INTERVAL_MS = 2000;
/** Prompts per batch when evaluating. */
const EVAL_BATCH = 128;

/** The trainer's counters in a text run's checkpoint: the numeric trainer's, and where in the stages it is. */
export interface TextCounters extends TrainerCounters {
  /** Index of the stage being trained. */
  stage: number;
  /** Run steps taken before that stage began. */
  stageStart: number;
}

/** A text plan's parts, built before the run directory exists (a plan error leaves none). */
export interface TextRunParts {
  readonly env: TextEnvironment;
  readonly model: TokenModel;
  /** Each stage's settings and length (its budget, or the algorithm's own). */
  readonly stages: readonly { readonly stage: PlanStage; readonly settings: unknown; readonly length: number }[];
  readonly stop: Condition | null;
}

/** Builds a text plan's env and model for `seed`; errors say which param or setting is wrong. */
export function buildTextRun(plan: Plan, seed: number, options: { baseDir?: string } = {}): TextRunParts {
  const env = TextEnvironment.fromPlan(plan, options);
  const rng = new Rng(seed);
  const model = new PolicyFactory(plan.policy, null, rng.fork('policy')).tokenModel(plan.stages[0]!.algorithm.kind, env.tokenizer);
  try {
    checkFits(env.layout, model.context, `policy ${plan.policy.name}`);
  } catch (err) {
    throw new PlanError([(err as Error).message]);
  }
  const stages = plan.stages.map((stage) => {
    const definition = algorithmDefinition(stage.algorithm.kind)!; // checkPlan() vouched for it
    const settings = definition.params(stage.algorithm.params);
    return { stage, settings, length: stage.budget ?? definition.lengthWithoutBudget!(settings) };
  });
  return { env, model, stages, stop: plan.stop ? Condition.compile(plan.stop, 'stop') : null };
}

/** Trains one seed of a text plan into a new run directory (train() checked the plan). */
export async function trainText(plan: Plan, seed: number, device: DeviceChoice, options: TrainOptions): Promise<TrainResult> {
  const parts = buildTextRun(plan, seed);
  const dir = RunDirectory.create(options.out ?? 'runs', plan, seed, options.sources ?? []);
  return new TextTrainingRun(dir, plan, seed, device, options, parts).run(null);
}

/** Continues a text run from `state`, inside the stage it was saved in (resume() checked the run). */
export async function resumeText(run: RunDirectory, plan: Plan, state: CheckpointState, device: DeviceChoice, options: TrainOptions): Promise<TrainResult> {
  const parts = buildTextRun(plan, state.seed);
  return new TextTrainingRun(run, plan, state.seed, device, options, parts).run(state);
}

export class TextTrainingRun {
  private readonly started: Date = new Date();
  private readonly budget: number;
  private latest: Record<string, number> = {};
  private counters!: TextCounters;
  private lastStatusWrite = 0;
  private loopSeconds = 0;
  /** The algorithm of the stage being trained. */
  private algorithm: Algorithm | null = null;

  constructor(
    private readonly dir: RunDirectory,
    private readonly plan: Plan,
    private readonly seed: number,
    private readonly device: DeviceChoice,
    private readonly options: TrainOptions,
    private readonly parts: TextRunParts,
  ) {
    this.budget = parts.stages.reduce((sum, s) => sum + s.length, 0);
    const previous = RunDirectory.readStatus(dir.dir)?.started;
    if (previous) this.started = new Date(previous);
  }

  private get stageIndex(): number {
    return Math.min(this.counters.stage, this.parts.stages.length - 1);
  }

  private get stageName(): string {
    return this.parts.stages[this.stageIndex]!.stage.name;
  }

  /** Run steps so far: the stages before this one, and this one's own. */
  private get step(): number {
    return this.counters.stageStart + (this.algorithm?.globalStep ?? 0);
  }

  private get checkpointEvery(): number {
    return Math.max(1, this.options.checkpointEvery ?? Math.round(this.budget / 10));
  }

  async run(state: CheckpointState | null): Promise<TrainResult> {
    const events = this.dir.events;
    this.counters = state
      ? (state.trainer as TextCounters)
      : {
          elapsed: 0,
          nextEval: this.plan.eval ? this.plan.eval.every : Number.MAX_SAFE_INTEGER,
          evalCount: 0,
          nextCheckpoint: this.checkpointEvery,
          recentReturns: [],
          recentLengths: [],
          recentSuccesses: [],
          latestEval: {},
          stage: 0,
          stageStart: 0,
        };
    events.add({ type: 'status', step: state?.step ?? 0, status: 'running', pid: process.pid, stage: this.stageName, ...(state ? { resumed: true } : {}) });
    this.writeStatus('running');
    this.options.onStart?.(this.dir.dir);
    try {
      if (this.device.note) this.log('warn', this.device.note);
      const startTime = performance.now();
      let outcome: { status: 'finished' | 'stopped'; reason: string } | null = null;
      for (let i = this.counters.stage; i < this.parts.stages.length && !outcome; i++) {
        const resumed = state !== null && i === this.counters.stage && state.algorithm === this.parts.stages[i]!.stage.algorithm.kind;
        await this.startStage(i, resumed ? state : null);
        outcome = await this.trainStage(startTime);
        if (!outcome && i < this.parts.stages.length - 1) await this.endStage();
      }
      return await this.finish(outcome ?? { status: 'finished', reason: `budget reached (${this.step} of ${this.budget} steps)` });
    } catch (err) {
      const message = (err as Error).message;
      events.add({ type: 'log', step: this.step, level: 'error', message, stage: this.stageName });
      events.add({ type: 'status', step: this.step, status: 'failed', error: message, stage: this.stageName });
      this.writeStatus('failed', { error: message, ended: true });
      throw new RunFailedError(this.dir.dir, err as Error);
    } finally {
      this.dir.close();
      await this.algorithm?.release();
      await this.parts.model.release();
    }
  }

  /** Builds stage i's algorithm on the run's model; loads `state` when resuming inside it. */
  private async startStage(i: number, state: CheckpointState | null): Promise<void> {
    const { stage, settings } = this.parts.stages[i]!;
    this.counters.stage = i;
    const definition = algorithmDefinition(stage.algorithm.kind)!;
    const context: TextAlgorithmContext = {
      model: this.parts.model,
      env: this.parts.env,
      budget: stage.budget,
      rng: new Rng(this.seed).fork(`stage ${i}: ${stage.algorithm.kind}`),
      compute: { ...this.options.compute, providers: [this.device.provider] },
    };
    this.algorithm = await definition.create(context, settings);
    if (state) {
      this.algorithm.loadState(state.algorithmState);
      this.log('info', `resumed from checkpoint at step ${state.step} (stage ${stage.name})`);
    } else {
      if (this.parts.stages.length > 1) this.log('info', `stage ${stage.name} (${stage.algorithm.kind}) starts at step ${this.step}`);
      const values = { seed: this.seed, device: this.device.provider, env: this.plan.env.kind, task: this.parts.env.task.description, policy: this.plan.policy, budget: this.parts.stages[i]!.length, ...this.algorithm.hparams() };
      this.dir.events.add({ type: 'hparams', step: this.step, algorithm: this.algorithm.name, values, stage: stage.name });
    }
    this.dir.events.flush();
  }

  /** Evaluates the stage's result and hands the model to the next stage. */
  private async endStage(): Promise<void> {
    await this.evaluate();
    this.counters.stageStart = this.step;
    this.counters.stage++;
    await this.algorithm!.release();
    this.algorithm = null;
  }

  private async trainStage(startTime: number): Promise<{ status: 'finished' | 'stopped'; reason: string } | null> {
    const algorithm = this.algorithm!;
    const { options, dir } = this;
    const events = dir.events;
    const startStep = this.step;
    while (!algorithm.done) {
      if (options.signal?.aborted) return { status: 'stopped', reason: 'stopped by a signal' };
      const values = await algorithm.iterate();
      const step = this.step;
      const seconds = (performance.now() - startTime) / 1000;
      this.loopSeconds = seconds;
      const metrics = { ...values, 'charts/sps': (step - startStep) / Math.max(seconds, 1e-9) };
      events.add({ type: 'metrics', step, values: metrics, stage: this.stageName });
      Object.assign(this.latest, metrics);
      if (this.plan.eval && step >= this.counters.nextEval) {
        await this.evaluate();
        while (this.counters.nextEval <= step) this.counters.nextEval += this.plan.eval.every;
      }
      const stop = this.parts.stop;
      if (stop) {
        const current = this.conditionValues(step);
        if (stop.holds(current)) return { status: 'finished', reason: `stop condition ${stop.text} met (${stop.describe(current)})` };
      }
      if (step >= this.counters.nextCheckpoint && !algorithm.done) {
        this.checkpoint(false);
        while (this.counters.nextCheckpoint <= step) this.counters.nextCheckpoint += this.checkpointEvery;
      }
      events.flush();
      if (Date.now() - this.lastStatusWrite > STATUS_INTERVAL_MS) this.writeStatus('running');
      const sps = (step - startStep) / Math.max(seconds, 1e-9);
      options.onProgress?.({ runDir: dir.dir, step, budget: this.budget, sps, meanReturn: this.latest['train/mean_reward'] ?? NaN, elapsedSeconds: seconds, etaSeconds: (this.budget - step) / sps });
      await new Promise((resolve) => setImmediate(resolve));
    }
    return null;
  }

  /** Greedy completions of the held-out prompts: exact-match accuracy and the reward. */
  private async evaluate(): Promise<void> {
    const { env, model } = this.parts;
    const examples = env.task.heldOut();
    const rewards: number[] = [];
    const result = await evaluateText(examples, (prompts) => completeTexts(model, env.tokenizer, prompts, env.layout, { temperature: 1, greedy: true }), {
      reward: (example, completion) => {
        const { total } = env.score(example, completion);
        rewards.push(total);
        return total;
      },
      batchSize: EVAL_BATCH,
    });
    const lengths = result.completions.map((c) => [...c].length);
    const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const std = Math.sqrt(mean(rewards.map((r) => (r - result.meanReward!) ** 2)));
    const values = {
      'eval/accuracy': result.accuracy,
      'eval/mean_reward': result.meanReward!,
      'eval/mean_return': result.meanReward!,
      'eval/std_return': std,
      'eval/mean_length': mean(lengths),
    };
    this.dir.events.add({ type: 'eval', step: this.step, values, returns: rewards, lengths, deterministic: true, stage: this.stageName });
    Object.assign(this.latest, values);
    this.counters.latestEval = values;
    this.counters.evalCount++;
    this.log('info', `held-out accuracy ${(100 * result.accuracy).toFixed(1)}% (${result.count} prompts), mean reward ${result.meanReward!.toFixed(3)} at step ${this.step} (stage ${this.stageName})`);
  }

  private conditionValues(step: number): Partial<Record<ConditionMetric, number>> {
    const e = this.counters.latestEval;
    return {
      'eval.mean_return': e['eval/mean_return'],
      'eval.std_return': e['eval/std_return'],
      'eval.mean_length': e['eval/mean_length'],
      'train.mean_return': this.latest['train/mean_reward'],
      'train.mean_length': this.latest['train/completion_length'],
      steps: step,
    };
  }

  private checkpoint(final: boolean): void {
    const algorithm = this.algorithm!;
    const step = this.step;
    const state: CheckpointState = {
      format: STATE_FORMAT,
      version: STATE_VERSION,
      step,
      seed: this.seed,
      algorithm: algorithm.name,
      trainer: { ...this.counters, elapsed: this.counters.elapsed + this.loopSeconds },
      algorithmState: algorithm.state(),
    };
    const files = saveCheckpoint(this.dir.checkpointsDir, state, this.parts.model.exportOnnx(this.policyMetadata(step)), final);
    this.dir.events.add({ type: 'checkpoint', step, policy: this.dir.relative(files.policy), state: this.dir.relative(files.state), stage: this.stageName });
  }

  /** Stored in the exported model (the policy adds its tokenizer, dimensions, inputs and outputs). */
  private policyMetadata(step: number): Record<string, unknown> {
    const { plan, parts } = this;
    return {
      format: 'rlx-policy',
      version: 1,
      experiment: plan.experiment,
      env: plan.env.kind,
      task: parts.env.task.description,
      layout: { prompt_width: parts.env.layout.promptWidth, completion_slots: parts.env.layout.completionSlots },
      policy: { kind: plan.policy.kind, params: plan.policy.params },
      algorithm: this.algorithm!.name,
      stage: this.stageName,
      seed: this.seed,
      step,
    };
  }

  private async finish(outcome: { status: 'finished' | 'stopped'; reason: string }): Promise<TrainResult> {
    if (outcome.status === 'finished') await this.evaluate();
    const step = this.step;
    this.checkpoint(true);
    this.dir.events.add({ type: 'log', step, level: 'info', message: outcome.reason, stage: this.stageName });
    this.dir.events.add({ type: 'status', step, status: outcome.status, reason: outcome.reason, stage: this.stageName });
    this.writeStatus(outcome.status, { reason: outcome.reason, ended: true });
    return { runDir: this.dir.dir, status: outcome.status, reason: outcome.reason, step, metrics: { ...this.latest } };
  }

  private log(level: 'info' | 'warn', message: string): void {
    this.dir.events.add({ type: 'log', step: this.step, level, message, stage: this.stageName });
    this.options.log?.(message);
  }

  private writeStatus(status: RunStatus, extra: { reason?: string; error?: string; ended?: boolean } = {}): void {
    const i = this.stageIndex;
    const { stage } = this.parts.stages[i]!;
    this.dir.writeStatus(statusFile(this.dir.dir, {
      status,
      experiment: this.plan.experiment,
      seed: this.seed,
      started: this.started,
      step: this.step,
      budget: this.budget,
      stage: { name: stage.name, index: i, count: this.parts.stages.length, algorithm: stage.algorithm.kind },
      metrics: this.latest,
      ...extra,
    }));
    this.lastStatusWrite = Date.now();
  }

}
