// One run of a plan in its run directory: the stages in order, and around each algorithm's
// iterations everything that is the same for every algorithm and workload: evaluation at
// `eval.every` and at the end of each stage, stop conditions, the curriculum, checkpoints, clean
// stops and failures. What the run tells its readers (events, metrics, status.json) is written
// by its report (run-report.ts).
//
// Steps are counted over the whole run: a stage's steps continue from where the previous one
// ended, and every event and status.json name the stage (`main` where the experiment declares
// no stages).
import * as path from 'node:path';
import type { Plan, PlanStage } from '../../dsl/compile/plan.js';
import { CheckpointStateError, NonFiniteError, stageAlgorithmTitle, type Algorithm } from '../algorithms/index.js';
import { ASKED_FOR, type DeviceChoice } from '../device.js';
import { EnvInterruptedError } from '../envs/user-module.js';
import { PythonEnvError } from '../envs/python/python-env.js';
import { Rng } from '../../shared/random.js';
import { latestCheckpoint, planHash, saveCheckpoint, STATE_FORMAT, STATE_VERSION, type CheckpointState, type TrainerCounters } from '../run/checkpoint.js';
import type { RunStatus } from '../run/events.js';
import type { RunDirectory } from '../run/run-dir.js';
import type { Condition, ConditionMetric } from '../run/stop.js';
import { opThreadsFor, type Compute, type ComputeOptions, type Precision } from '../tensor/index.js';
import { planPrecision } from '../support.js';
import { FP16_ON_CPU } from '../../dsl/schema/declarations.js';
import { Curriculum } from '../curriculum.js';
import { RunReport, windowMetrics } from './run-report.js';
import type { Workload } from './workload.js';

/** One stage as the run trains it: the plan's stage, its checked settings, and its length in steps. */
export interface RunStage {
  readonly stage: PlanStage;
  readonly settings: unknown;
  /** Its budget, or the algorithm's own length (SFT's updates). */
  readonly length: number;
}

/** What a run reports as it trains, and how it is stopped (train.ts's TrainOptions). */
export interface RunOptions {
  readonly signal?: AbortSignal;
  readonly onStart?: (runDir: string) => void;
  readonly onProgress?: (progress: TrainProgress) => void;
  readonly log?: (message: string) => void;
  readonly checkpointEvery?: number;
  readonly rolloutEvery?: number;
  readonly compute?: ComputeOptions;
}

export interface TrainProgress {
  readonly runDir: string;
  readonly step: number;
  readonly budget: number;
  /** Environment steps per second since this process started training. */
  readonly sps: number;
  /** Mean return of the last 20 training episodes (NaN before the first). */
  readonly meanReturn: number;
  readonly elapsedSeconds: number;
  readonly etaSeconds: number;
}

export interface TrainResult {
  readonly runDir: string;
  readonly status: Extract<RunStatus, 'finished' | 'stopped'>;
  /** Why training ended: the budget, the stop condition that held, or the signal. */
  readonly reason: string;
  readonly step: number;
  /** The latest value of every metric (metrics and eval events). */
  readonly metrics: Record<string, number>;
}

/** Training failed after its run directory was created; the directory is marked `failed`. */
export class RunFailedError extends Error {
  override name = 'RunFailedError';
  constructor(
    readonly runDir: string,
    override readonly cause: Error,
    message: string = cause.message,
  ) {
    super(message);
  }
}

type Outcome = { status: 'finished' | 'stopped'; reason: string };

/** Where an algorithm's tensor work runs: the options' threads, on the chosen device. */
export function computeOn(device: DeviceChoice, compute: ComputeOptions | undefined, precision: Precision = 'fp32'): Compute {
  const providers = [device.provider];
  return { ...compute, providers, opThreads: opThreadsFor(compute ?? {}, providers), ...(precision !== 'fp32' ? { precision } : {}) };
}

export class TrainingRun {
  private readonly budget: number;
  private counters!: TrainerCounters;
  /** Seconds this process has spent in the training loop. */
  private loopSeconds = 0;
  private algorithm: Algorithm | null;
  /** The run step at which the next rollout is recorded (-1: not yet computed). */
  private nextRollout = -1;
  /** The step of this process's latest evaluation. */
  private lastEvalStep = -1;
  private readonly curriculum: Curriculum | null;
  private readonly report: RunReport;

  /**
   * `first` is the algorithm of the stage the run starts in (stage 0, or the resumed one),
   * built before the run directory existed so that its errors left none.
   */
  constructor(
    private readonly dir: RunDirectory,
    private readonly plan: Plan,
    private readonly seed: number,
    private readonly device: DeviceChoice,
    private readonly options: RunOptions,
    private readonly workload: Workload,
    private readonly stages: readonly RunStage[],
    private readonly stop: Condition | null,
    first: Algorithm,
  ) {
    this.budget = stages.reduce((sum, s) => sum + s.length, 0);
    this.algorithm = first;
    this.curriculum = Curriculum.of(plan);
    this.report = new RunReport(dir, {
      plan,
      seed,
      device,
      stages,
      budget: this.budget,
      curriculum: this.curriculum,
      step: () => this.step,
      stageIndex: () => this.stageIndex,
      counters: () => this.counters,
      loopSeconds: () => this.loopSeconds,
    }, options.log);
  }

  /** The random stream of stage i's algorithm, as the workload names it. */
  static stageRng(seed: number, index: number, stage: PlanStage, workload: Workload): Rng {
    return new Rng(seed).fork(workload.streamName(index, stage.algorithm.kind));
  }

  private get stageIndex(): number {
    return Math.min(this.counters?.stage ?? 0, this.stages.length - 1);
  }

  private get stageName(): string {
    return this.report.stageName;
  }

  /** Run steps so far: the stages before this one, and this one's own. */
  private get step(): number {
    return (this.counters?.stageStart ?? 0) + (this.algorithm?.globalStep ?? 0);
  }

  /** The option, else what the run was started with (kept in its checkpoints), else a tenth of the budget. */
  private get checkpointEvery(): number {
    return Math.max(1, this.options.checkpointEvery ?? this.counters?.checkpointEvery ?? Math.round(this.budget / 10));
  }

  private get rolloutEvery(): number {
    return Math.max(1, this.options.rolloutEvery ?? this.counters?.rolloutEvery ?? Math.round(this.budget / 20));
  }

  /** Trains from `state` (a resume) or from the start; `notes` are warnings for the user (a damaged checkpoint passed over, a dataset that is not all UTF-8). */
  async run(state: CheckpointState | null, notes: readonly string[] = []): Promise<TrainResult> {
    const events = this.dir.events;
    this.counters = state
      ? { stage: 0, stageStart: 0, ...state.trainer }
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
    // A resume continues at the value the curriculum had reached.
    if (this.curriculum) this.counters.curriculum ??= this.curriculum.from;
    this.report.start(state ? state.step : null);
    this.options.onStart?.(this.dir.dir);
    let failed = false;
    try {
      if (this.device.note) this.log('warn', this.device.note);
      else if (this.device.reason !== ASKED_FOR) this.log('info', `device ${this.device.provider} (${this.device.reason})`);
      // Said once at the start: a run that landed on the CPU (device auto, --device cpu) trains fp16 at a loss.
      if (planPrecision(this.plan) === 'fp16' && this.device.provider === 'cpu') {
        this.log('warn', `precision fp16, but this run trains on the cpu, where ${FP16_ON_CPU}; set precision fp32, or train where a GPU starts`);
      }
      if (state) {
        this.loadAlgorithmState(state);
        this.log('info', `resumed from checkpoint at step ${state.step}${this.stages.length > 1 ? ` (stage ${this.stageName})` : ''}`);
        for (const note of notes) this.log('warn', note);
        if (this.dir.removedTemporaries > 0) this.log('info', `removed ${this.dir.removedTemporaries} temporary file(s) of writes cut short when the run was last stopped`);
        if (this.dir.tornBytes > 0) this.log('warn', `events.jsonl ended in a line cut short (${this.dir.tornBytes} bytes, from a trainer killed while writing it); removed that line`);
      } else {
        for (const note of notes) this.log('warn', note);
      }
      if (this.curriculum) this.workload.setEnvParam!(this.curriculum.envParam, this.counters.curriculum!, state?.step ?? 0);
      const startTime = performance.now();
      const resumedStage = state ? this.counters.stage! : -1;
      if (!state && this.plan.eval && this.workload.evaluatesAtStart?.()) await this.evaluate();
      let outcome: Outcome | null = null;
      for (let i = this.counters.stage!; i < this.stages.length && !outcome; i++) {
        const resumed = i === resumedStage;
        if (i !== this.counters.stage) await this.nextStage(i);
        this.workload.begin(this.algorithm!, { dir: this.dir, step: () => this.step, stage: () => this.stageName }, resumed ? state!.step : null);
        if (!resumed) this.startStage(i);
        const rollouts = this.workload.rolloutDevice?.();
        if (rollouts) this.log('info', `rollouts on ${rollouts.provider} (${rollouts.reason})`);
        events.flush();
        outcome = await this.trainStage(startTime, resumed);
        // Each stage that ran to its end is evaluated before the next one starts from its weights,
        // unless an evaluation due at its last step just ran (its policy episode is recorded here:
        // the loop leaves that to whoever goes on after a stage's last iteration).
        if (!outcome && i < this.stages.length - 1 && this.workload.evaluates(this.plan)) {
          if (this.lastEvalStep !== this.step) await this.evaluate();
          await this.recordPolicy('eval');
        }
      }
      return await this.finish(outcome ?? { status: 'finished', reason: `budget reached (${this.step} of ${this.budget} steps)` });
    } catch (err) {
      if (err instanceof EnvInterruptedError) return this.interrupted(err.message);
      const message = err instanceof NonFiniteError ? this.nonFiniteMessage(err)
        : err instanceof PythonEnvError && this.step > 0 ? this.envFailedMessage(err) : (err as Error).message;
      this.report.failed(message);
      failed = true;
      throw new RunFailedError(this.dir.dir, err as Error, message);
    } finally {
      try {
        this.dir.close();
      } catch (err) {
        // After a failure (a full disk, say) the events may not flush: the failure is the news.
        if (!failed) throw err;
      } finally {
        await this.algorithm?.release();
        await this.workload.release();
      }
    }
  }

  /** Loads a checkpoint's algorithm state; one that does not fit the algorithm is refused naming its file. */
  private loadAlgorithmState(state: CheckpointState): void {
    try {
      this.algorithm!.loadState(state.algorithmState);
    } catch (err) {
      if (!(err instanceof CheckpointStateError)) throw err;
      const file = this.dir.relative(path.join(this.dir.checkpointsDir, `state-${state.step}.json`));
      throw new CheckpointStateError(`${file}: ${err.message}`, { cause: err });
    }
  }

  /** Logs a stage's start and its hyperparameters. */
  private startStage(i: number): void {
    const { stage, length } = this.stages[i]!;
    const algorithm = this.algorithm!;
    if (this.stages.length > 1) {
      const from = i > 0 ? this.workload.handedOver?.() : undefined;
      this.log('info', `stage ${stage.name} (${stage.algorithm.kind === 'module' ? `${stage.algorithm.name}, module "${stage.algorithm.module ?? ''}"` : stage.algorithm.kind}) starts at step ${this.step}${from ? `, from ${from} stage ${this.stages[i - 1]!.stage.name} trained` : ''}`);
    }
    const rollouts = this.workload.rolloutDevice?.();
    const memory = this.workload.memoryFacts?.() ?? {};
    const values = { seed: this.seed, device: this.device.provider, ...(this.plan.precision !== undefined ? { precision: planPrecision(this.plan) } : {}), ...(rollouts ? { rollout_device: rollouts.provider, ...(rollouts.precision === 'fp16' ? { rollout_precision: 'fp16' } : {}) } : {}), ...this.workload.description, policy: this.plan.policy, budget: length, ...memory, ...algorithm.hparams() };
    const dataFiles = this.workload.dataFiles?.hparamsOf(stage) ?? {};
    if (Object.keys(dataFiles).length > 0) Object.assign(values, { data_files: dataFiles });
    // A learner module's own name is its label for messages (`algorithm Mine (module ...)`): the event names it as status.json does.
    this.dir.events.add({ type: 'hparams', step: this.step, algorithm: stage.algorithm.kind === 'module' ? stageAlgorithmTitle(stage.algorithm) : algorithm.name, values, stage: stage.name });
  }

  /** Hands the workload's policy from the stage that ended to stage i's algorithm. */
  private async nextStage(i: number): Promise<void> {
    const step = this.step;
    await this.algorithm!.release();
    this.algorithm = null;
    this.counters.stageStart = step;
    this.counters.stage = i;
    const { stage, settings } = this.stages[i]!;
    this.report.dropStageMetrics();
    this.algorithm = await this.workload.createAlgorithm(stage, settings, TrainingRun.stageRng(this.seed, i, stage, this.workload), computeOn(this.device, this.options.compute, planPrecision(this.plan)));
  }


  private async trainStage(startTime: number, resumed: boolean): Promise<Outcome | null> {
    const algorithm = this.algorithm!;
    const { plan, options, dir, stop } = this;
    const events = dir.events;
    const startStep = this.step;
    // Speed is the stage's own: a staged run's earlier stages (SFT's demonstrations) ran at another pace.
    const stageStart = performance.now();
    while (!algorithm.done) {
      if (options.signal?.aborted) return { status: 'stopped', reason: 'stopped by a signal' };
      this.scheduleRecording(resumed);
      const values = await algorithm.iterate();
      const step = this.step;
      const seconds = (performance.now() - startTime) / 1000;
      this.loopSeconds = seconds;
      const sps = (step - startStep) / Math.max((performance.now() - stageStart) / 1000, 1e-9);
      this.report.update(this.workload.takeEpisodes(algorithm), values, sps);
      let evaluated = false;
      if (plan.eval && step >= this.counters.nextEval) {
        await this.evaluate();
        evaluated = true;
        while (this.counters.nextEval <= step) this.counters.nextEval += plan.eval.every;
      }
      // A curriculum is tested after each evaluation, or after every update without evaluations.
      if (this.curriculum && (evaluated || !this.workload.evaluates(plan))) this.advanceCurriculum(step);
      if (stop) {
        const current = this.conditionValues(step);
        if (stop.holds(current)) return { status: 'finished', reason: `stop condition ${stop.text} met (${stop.describe(current)})` };
      }
      // The evaluation that ended the run is shown by the final policy's episode instead.
      if (evaluated && !algorithm.done) await this.recordPolicy('eval');
      if (step >= this.counters.nextCheckpoint && !algorithm.done) {
        this.checkpoint(false);
        while (this.counters.nextCheckpoint <= step) this.counters.nextCheckpoint += this.checkpointEvery;
      }
      events.flush();
      this.report.refreshStatus();
      const { latest } = this.report;
      const meanReturn = latest['train/mean_return'] ?? latest['train/mean_reward'] ?? NaN;
      options.onProgress?.({ runDir: dir.dir, step, budget: this.budget, sps, meanReturn, elapsedSeconds: seconds, etaSeconds: (this.budget - step) / sps });
      // Let signal handlers and timers run: onnxruntime's runs resolve without leaving the microtask queue.
      await new Promise((resolve) => setImmediate(resolve));
    }
    return null;
  }

  /** Every `rolloutEvery` steps (over the whole run), the workload records what the next iteration samples. */
  private scheduleRecording(resumed: boolean): void {
    const step = this.step;
    const every = this.rolloutEvery;
    if (this.nextRollout < 0) this.nextRollout = Math.ceil(step / every) * every;
    if (step < this.nextRollout) return;
    this.workload.recordNext(step, step === 0 && !resumed);
    while (this.nextRollout <= step) this.nextRollout += every;
  }

  /** An episode of the policy as evaluated, for the rollout inspector (numeric envs). */
  private async recordPolicy(recorded: 'eval' | 'final'): Promise<void> {
    await this.workload.recordPolicy?.(this.algorithm!, recorded, this.step);
  }

  private async evaluate(): Promise<void> {
    const step = this.step;
    this.lastEvalStep = step;
    const result = await this.workload.evaluate(this.algorithm!, this.counters.evalCount);
    this.report.evaluation(result);
    this.counters.evalCount++;
    if (result.message) this.log('info', `${result.message} at step ${step}${this.stages.length > 1 ? ` (stage ${this.stageName})` : ''}`);
  }

  /**
   * Moves the curriculum's parameter one step when its `advance` holds. The train.* windows and
   * the latest evaluation restart, so that conditions (this one, `stop:`) judge the new value.
   */
  private advanceCurriculum(step: number): void {
    const curriculum = this.curriculum!;
    const value = this.counters.curriculum!;
    if (curriculum.finished(value)) return;
    const current = this.conditionValues(step);
    if (!curriculum.advance.holds(current)) return;
    const next = curriculum.next(value);
    this.workload.setEnvParam!(curriculum.envParam, next, step);
    this.counters.curriculum = next;
    this.report.restartWindows();
    const message = `curriculum: ${curriculum.param} ${value} -> ${next} at step ${step} (${curriculum.advance.text}: ${curriculum.advance.describe(current)}); `
      + `each env copy takes the new value at the end of its episode in flight${curriculum.finished(next) ? '; the curriculum has reached its last value' : ''}`;
    this.dir.events.add({ type: 'curriculum', step, param: curriculum.param, value: next, previous: value, message, stage: this.stageName });
    this.options.log?.(message);
    this.report.writeStatus('running');
  }

  private conditionValues(step: number): Partial<Record<ConditionMetric, number>> {
    return { ...this.workload.conditionValues(windowMetrics(this.counters), this.report.latest, this.counters.latestEval), steps: step };
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
      trainer: { ...this.counters, elapsed: this.counters.elapsed + this.loopSeconds, checkpointEvery: this.checkpointEvery, rolloutEvery: this.rolloutEvery },
      algorithmState: algorithm.state(),
      plan: planHash(this.plan),
    };
    const files = saveCheckpoint(this.dir.checkpointsDir, state, algorithm.policy.exportOnnx(this.policyMetadata(step)), final, algorithm.policy.policyFileExtension);
    this.dir.events.add({ type: 'checkpoint', step, policy: this.dir.relative(files.policy), state: this.dir.relative(files.state), stage: this.stageName });
  }

  /** Stored in the exported model (the policy adds its inputs and outputs, and a token model its tokenizer). */
  private policyMetadata(step: number): Record<string, unknown> {
    const { plan } = this;
    return {
      format: 'rlx-policy',
      version: 1,
      experiment: plan.experiment,
      env: plan.env.kind,
      ...this.workload.policyFields,
      policy: { kind: plan.policy.kind, params: plan.policy.params },
      algorithm: this.algorithm!.name,
      stage: this.stageName,
      seed: this.seed,
      step,
    };
  }

  private async finish(outcome: Outcome): Promise<TrainResult> {
    // A finished run ends on an evaluation of the policy it leaves, unless one ran at this step.
    if (outcome.status === 'finished' && this.workload.evaluates(this.plan) && this.lastEvalStep !== this.step) await this.evaluate();
    await this.recordPolicy('final');
    const step = this.step;
    this.checkpoint(true);
    this.report.ended(outcome.status, outcome.reason, 'info');
    return { runDir: this.dir.dir, status: outcome.status, reason: outcome.reason, step, metrics: { ...this.report.latest } };
  }

  /** Where the NaN or infinity appeared, and the checkpoint written before it (no later one is). */
  private nonFiniteMessage(err: NonFiniteError): string {
    return `${err.message}, ${this.stepAndCheckpoint()}`;
  }

  /**
   * A Python env's worker that died or failed mid-training: its first line (which copy, doing
   * what) gets the run's step and the checkpoint to resume from; the worker's last output follows.
   */
  private envFailedMessage(err: PythonEnvError): string {
    const [first, ...rest] = err.message.split('\n');
    return [`${first}, ${this.stepAndCheckpoint()}`, ...rest].join('\n');
  }

  private stepAndCheckpoint(): string {
    const latest = latestCheckpoint(this.dir.checkpointsDir);
    const kept = latest ? `the last good checkpoint is ${this.dir.relative(latest.file)} (step ${latest.step})` : 'no checkpoint was written before it';
    return `after ${this.step} steps of training; ${kept}`;
  }

  /**
   * Ctrl-C came while a user env's step was running: the update cannot finish, so there is no
   * final checkpoint; the run is `stopped` and a resume starts from the latest checkpoint.
   */
  private interrupted(message: string): TrainResult {
    const step = this.step;
    const latest = latestCheckpoint(this.dir.checkpointsDir);
    const reason = `${message}; ${latest ? `--resume continues from the checkpoint at step ${latest.step}` : 'no checkpoint was written yet'}`;
    this.report.ended('stopped', reason, 'warn');
    return { runDir: this.dir.dir, status: 'stopped', reason, step, metrics: { ...this.report.latest } };
  }

  private log(level: 'info' | 'warn', message: string): void {
    this.report.log(level, message);
  }
}
