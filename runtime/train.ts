// The trainer: turns a plan into a run directory. It builds the env copies, the reward, the
// policy and the algorithm from the plan, then runs the algorithm's iterations and, around
// them, everything that is the same for every algorithm: episode statistics, metrics events,
// evaluation, stop conditions, checkpoints, sampled rollouts, status.json, clean stops.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Plan } from '../dsl/compile/plan.js';
import { algorithmDefinition, NonFiniteError, Stepper, type Algorithm, type EpisodeRecord } from './algorithms/index.js';
import { DeviceError, selectDevice, type DeviceChoice, type DeviceRequest } from './device.js';
import { makeVecEnv } from './envs/registry.js';
import { EnvInterruptedError, loadBundledEnvModule, loadEnvModule, type LoadedEnvModule } from './envs/user-module.js';
import { VecEnv } from './envs/vector.js';
import { writeFileAtomic } from './atomic-files.js';
import { isGoalConditioned, type BoxSpace, type DiscreteSpace } from './envs/types.js';
import { evalMetrics, evaluate } from './evaluate.js';
import { PolicyFactory } from './policies/index.js';
import { Rng } from './random.js';
import { compileReward } from './rewards/index.js';
import { latestCheckpoint, latestIntactCheckpoint, planHash, saveCheckpoint, STATE_FORMAT, STATE_VERSION, type CheckpointState, type TrainerCounters } from './run/checkpoint.js';
import type { RunStatus } from './run/events.js';
import { RunLockedError } from './run/lock.js';
import { processAlive } from './run/reader.js';
import { RolloutRecorder } from './run/rollouts.js';
import { RunDirectory, statusFile, type SourceFile } from './run/run-dir.js';
import { Condition, type ConditionMetric } from './run/stop.js';
import { warmUpCompute, type ComputeOptions } from './tensor/index.js';
import { checkPlan, PlanError } from './support.js';
import { isTextEnv } from './text/env.js';
import { resumeText, trainText } from './train-text.js';

export { checkPlan, DeviceError, PlanError, selectDevice, type DeviceChoice };

/** Options of train() and resume(). */
export interface TrainOptions {
  /** Which seed to run (any whole number); the plan's first seed by default. */
  seed?: number;
  /** Folder that holds `<experiment>/<run-id>/` run directories; `runs` by default. */
  out?: string;
  /**
   * Overrides the plan's `device`; or a choice already made by selectDevice(), so that several
   * runs probe the GPU providers once.
   */
  device?: DeviceRequest | DeviceChoice;
  /** The .rlx files to snapshot into source/ (paths relative to the entry file's folder). */
  sources?: readonly SourceFile[];
  /**
   * For a plan whose env is user code (`env X = module("./file.ts")`): the module's file,
   * resolved against the .rlx file's folder (rlx train does this). Kept bundled in the run's
   * source/ folder, so resume() needs no path.
   */
  envModule?: string;
  /** Aborting it stops training cleanly: final checkpoint, status `stopped`. */
  signal?: AbortSignal;
  /** Called once the run directory exists and says `running`, before the first update (rlx train prints it). */
  onStart?: (runDir: string) => void;
  /** Called after every update. */
  onProgress?: (progress: TrainProgress) => void;
  /** One-line messages for the user (also written to events.jsonl as log events). */
  log?: (message: string) => void;
  /** Environment steps between checkpoints; a tenth of the budget by default. */
  checkpointEvery?: number;
  /** Environment steps between sampled rollout episodes; a twentieth of the budget by default. */
  rolloutEvery?: number;
  /** How tensor work runs besides the device (tensor/compute.ts): worker threads or not. */
  compute?: ComputeOptions;
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

const WINDOW = 20;
/** At most this many episode events per update. */
const EPISODE_EVENTS_PER_UPDATE = 64;
/** Evaluation env copies draw from streams of the run's seed from here on (training's are 0 .. envs-1). */
const EVAL_STREAMS = 1 << 20;
const STATUS_INTERVAL_MS = 2000;

/**
 * Trains one seed of `plan` into a new run directory under `options.out`
 * (`runs/<experiment>/<run-id>/`). Resolves when training ends (budget spent, stop condition,
 * or `options.signal` aborted); rejects with a PlanError or DeviceError before creating the
 * directory when the plan cannot run, and with the error after marking the run `failed`.
 */
export async function train(plan: Plan, options: TrainOptions = {}): Promise<TrainResult> {
  checkPlan(plan);
  const seed = options.seed ?? plan.seeds[0];
  if (!Number.isSafeInteger(seed) || seed < 0) throw new PlanError([`seed must be a whole number >= 0, got ${String(seed)}`]);
  warmUpCompute(options.compute);
  const device = await chooseDevice(options.device, plan);
  if (isTextEnv(plan.env.kind)) return trainText(plan, seed, device, options);
  // Everything the plan describes is built before the run directory exists, so that a plan
  // error (a bad env param, a reward term naming a missing field) leaves no directory behind.
  const envModule = plan.env.kind === 'module' ? await loadEnvModule(moduleFile(plan, options), plan.env.params, { name: plan.env.name }) : undefined;
  let run: RunDirectory;
  let parts: RunParts;
  try {
    parts = await build(plan, seed, device, envFactory(plan, envModule), options.compute);
    run = RunDirectory.create(options.out ?? 'runs', plan, seed, options.sources ?? []);
    if (envModule) writeFileAtomic(path.join(run.dir, 'source', BUNDLED_ENV_MODULE), envModule.code);
  } catch (err) {
    envModule?.close();
    throw err;
  }
  return new TrainingRun(run, plan, seed, device, options, parts).run(null);
}

/**
 * Continues the run in `runDir` from its latest checkpoint: parameters, optimiser state,
 * step counters and random streams; episodes in progress at the checkpoint start afresh.
 * Events are appended to the same events.jsonl.
 */
export async function resume(runDir: string, options: Omit<TrainOptions, 'seed' | 'out' | 'sources'> = {}): Promise<TrainResult> {
  if (!fs.existsSync(path.join(runDir, 'plan.json'))) throw new ResumeError(`${runDir} is not a run directory (no plan.json in it)`);
  const plan = RunDirectory.readPlan(runDir);
  checkPlan(plan);
  const status = RunDirectory.readStatus(runDir);
  if (status?.status === 'finished') throw new ResumeError(`${runDir} finished already (${status.reason ?? 'budget reached'}); nothing to resume`);
  // The lock refuses a second trainer; status.json's pid, one of a version that wrote no lock.
  const run = openToResume(runDir);
  let envModule: LoadedEnvModule | undefined;
  try {
    if (status?.status === 'running' && status.pid !== process.pid && processAlive(status.pid)) {
      throw new ResumeError(`${runDir} is being trained by process ${status.pid}; stop it first`);
    }
    const { state, damaged } = latestIntactCheckpoint(path.join(runDir, 'checkpoints'));
    if (!state) {
      if (damaged.length === 0) throw new ResumeError(`${runDir} has no checkpoint to resume from (checkpoints/state-<step>.json)`);
      throw new ResumeError(`${runDir} has no intact checkpoint to resume from:\n${damaged.map((d) => `  ${d.reason}`).join('\n')}`);
    }
    if (state.plan !== undefined && state.plan !== planHash(plan)) {
      throw new ResumeError(
        `${path.join(runDir, 'plan.json')} was changed after the run started (its checkpoints were written for another plan); ` +
          `a resume continues the run as planned: restore plan.json, or train the edited plan as a new run with rlx train --plan ${path.join(runDir, 'plan.json')}`,
      );
    }
    // The newest checkpoints may be cut short (a full disk, a crash before they reached the disk): say which were passed over.
    const notes = damaged.map((d) => `${d.reason}; resuming from the checkpoint at step ${state.step} instead`);
    warmUpCompute(options.compute);
    const device = await chooseDevice(options.device, plan);
    if (isTextEnv(plan.env.kind)) return await resumeText(run, plan, state, device, options);
    envModule = plan.env.kind === 'module' ? await loadBundledEnvModule(path.join(runDir, 'source', BUNDLED_ENV_MODULE), plan.env.params, { name: plan.env.name }) : undefined;
    const parts = await build(plan, state.seed, device, envFactory(plan, envModule), options.compute);
    return await new TrainingRun(run, plan, state.seed, device, options, parts).run(state, notes);
  } catch (err) {
    // TrainingRun.run() closes what it was given; before it, nothing else would.
    envModule?.close();
    run.close();
    throw err;
  }
}

function openToResume(runDir: string): RunDirectory {
  try {
    return RunDirectory.open(runDir);
  } catch (err) {
    if (err instanceof RunLockedError) throw new ResumeError(err.message);
    throw err;
  }
}

/** A run that cannot be resumed (finished, still running, no checkpoint). */
export class ResumeError extends Error {
  override name = 'ResumeError';
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

/** The run directory's copy of a user env module, bundled into one file. */
const BUNDLED_ENV_MODULE = 'env-module.mjs';

function moduleFile(plan: Plan, options: TrainOptions): string {
  if (!options.envModule) {
    throw new PlanError([`env ${plan.env.name} is user code (module "${plan.env.module ?? ''}"): pass its file as envModule (rlx train resolves it next to the .rlx file)`]);
  }
  return options.envModule;
}

/** Makes `n` env copies of the plan's env: a built-in, or the user's module. */
type EnvFactory = (n: number) => VecEnv;

function envFactory(plan: Plan, envModule: LoadedEnvModule | undefined): EnvFactory {
  if (envModule) return Object.assign((n: number) => VecEnv.create(() => envModule.create(plan.env.params), n), { close: () => envModule.close() });
  return (n) => makeVecEnv(plan.env.kind, plan.env.params, n);
}

interface RunParts {
  /** Its close(), where present, ends the env copies' worker (user modules). */
  readonly makeEnvs: EnvFactory & { close?(): void };
  readonly algorithm: Algorithm;
  readonly stepper: Stepper;
  readonly obsFields: readonly string[];
  readonly termNames: readonly string[];
  readonly stop: Condition | null;
}

/** The env copies, reward, policy and algorithm of a plan, for one seed. */
async function build(plan: Plan, seed: number, device: DeviceChoice, makeEnvs: EnvFactory, compute: ComputeOptions | undefined): Promise<RunParts> {
  const stage = plan.stages[0];
  const vec = makeEnvs(plan.envs);
  const first = vec.envs[0];
  const goal = isGoalConditioned(first) ? { goalFields: first.goalFields, achievedFields: first.achievedFields } : {};
  const reward = plan.reward ? compileReward(plan.reward, { kind: vec.kind, obsFields: vec.obsFields, actionSpace: vec.actionSpace, ...goal }) : null;
  const stepper = new Stepper(vec, reward);
  const rng = new Rng(seed);
  const spaces = { obsDim: vec.obsDim, actionSpace: vec.actionSpace as DiscreteSpace | BoxSpace };
  const definition = algorithmDefinition(stage.algorithm.kind)!; // checkPlan() vouched for it
  const algorithm = await definition.create(
    {
      policy: new PolicyFactory(plan.policy, spaces, rng.fork('policy')),
      stepper,
      budget: stage.budget!,
      rng: rng.fork(stage.algorithm.kind),
      compute: { ...compute, providers: [device.provider] },
    },
    definition.params(stage.algorithm.params),
  );
  const stop = plan.stop ? Condition.compile(plan.stop, 'stop') : null;
  return { makeEnvs, algorithm, stepper, obsFields: vec.obsFields, termNames: reward?.termNames ?? [], stop };
}

async function chooseDevice(given: DeviceRequest | DeviceChoice | undefined, plan: Plan): Promise<DeviceChoice> {
  if (typeof given === 'object') return given;
  return selectDevice(given ?? (plan.device as DeviceRequest));
}

class TrainingRun {
  private readonly stage;
  private readonly budget: number;
  private readonly started: Date = new Date();
  private latest: Record<string, number> = {};
  private counters!: TrainerCounters;
  private lastStatusWrite = 0;
  /** Seconds this process has spent in the training loop. */
  private loopSeconds = 0;

  constructor(
    private readonly dir: RunDirectory,
    private readonly plan: Plan,
    private readonly seed: number,
    private readonly device: DeviceChoice,
    private readonly options: TrainOptions,
    private readonly parts: RunParts,
  ) {
    this.stage = plan.stages[0];
    this.budget = this.stage.budget!;
    // A resumed run keeps the start time of the run, not of this process.
    const previous = RunDirectory.readStatus(dir.dir)?.started;
    if (previous) this.started = new Date(previous);
  }

  /** Trains from `state` (a resume; `notes` are warnings about it) or from the start. */
  async run(state: CheckpointState | null, notes: readonly string[] = []): Promise<TrainResult> {
    const events = this.dir.events;
    // status.json keeps the figures the checkpoint knows until the first update brings new ones.
    if (state) Object.assign(this.latest, windowMetrics(state.trainer), state.trainer.latestEval);
    events.add({ type: 'status', step: state?.step ?? 0, status: 'running', pid: process.pid, ...(state ? { resumed: true } : {}) });
    this.writeStatus('running', state?.step ?? 0);
    this.options.onStart?.(this.dir.dir);
    const { algorithm, stepper } = this.parts;
    let failed = false;
    try {
      if (this.device.note) this.log('warn', state?.step ?? 0, this.device.note);
      const recorder = this.recorder();
      if (state) {
        algorithm.loadState(state.algorithmState);
        this.counters = state.trainer;
        // Episodes restart: each copy draws from a stream of the seed and the resume step.
        stepper.reset(new Rng(this.seed).fork('resume').fork(state.step).uint32());
        this.log('info', state.step, `resumed from checkpoint at step ${state.step}`);
        for (const note of notes) this.log('warn', state.step, note);
        if (this.dir.removedTemporaries > 0) {
          this.log('info', state.step, `removed ${this.dir.removedTemporaries} temporary file(s) of writes cut short when the run was last stopped`);
        }
        if (this.dir.tornBytes > 0) {
          this.log('warn', state.step, `events.jsonl ended in a line cut short (${this.dir.tornBytes} bytes, from a trainer killed while writing it); removed that line`);
        }
      } else {
        stepper.reset(this.seed);
        this.counters = {
          elapsed: 0,
          nextEval: this.plan.eval ? this.plan.eval.every : Number.MAX_SAFE_INTEGER,
          evalCount: 0,
          nextCheckpoint: this.checkpointEvery,
          recentReturns: [],
          recentLengths: [],
          recentSuccesses: [],
          latestEval: {},
        };
        events.add({ type: 'hparams', step: 0, algorithm: algorithm.name, values: this.hparams(algorithm) });
      }
      events.flush();
      const outcome = await this.loop(algorithm, stepper, recorder, state !== null);
      return this.finish(algorithm, outcome.status, outcome.reason);
    } catch (err) {
      if (err instanceof EnvInterruptedError) return this.interrupted(algorithm, err.message);
      const step = algorithm.globalStep;
      const message = err instanceof NonFiniteError ? this.nonFiniteMessage(err, step) : (err as Error).message;
      this.markFailed(step, message);
      failed = true;
      throw new RunFailedError(this.dir.dir, err as Error, message);
    } finally {
      try {
        this.dir.close();
      } catch (err) {
        // After a failure (a full disk, say) the events may not flush: the failure is the news.
        if (!failed) throw err;
      } finally {
        this.parts.makeEnvs.close?.();
        await algorithm.release();
      }
    }
  }

  /** The option, else what the run was started with (kept in its checkpoints), else a tenth of the budget. */
  private get checkpointEvery(): number {
    return Math.max(1, this.options.checkpointEvery ?? this.counters?.checkpointEvery ?? Math.round(this.budget / 10));
  }

  private get rolloutEvery(): number {
    return Math.max(1, this.options.rolloutEvery ?? this.counters?.rolloutEvery ?? Math.round(this.budget / 20));
  }

  private recorder(): RolloutRecorder {
    const { algorithm, stepper } = this.parts;
    const vec = stepper.vec;
    const recorder = new RolloutRecorder(
      this.dir.rolloutsDir,
      { env: vec.kind, obsFields: vec.obsFields, actionSpace: vec.actionSpace, terms: this.parts.termNames },
      (episode) => this.dir.events.add({ type: 'rollout', step: algorithm.globalStep, file: this.dir.relative(episode.file), return: episode.return, length: episode.length }),
    );
    stepper.sink = recorder;
    return recorder;
  }

  private hparams(algorithm: Algorithm): Record<string, unknown> {
    const { plan } = this;
    return { seed: this.seed, device: this.device.provider, env: plan.env.kind, envs: plan.envs, policy: plan.policy, budget: this.budget, ...algorithm.hparams() };
  }

  private async loop(algorithm: Algorithm, stepper: Stepper, recorder: RolloutRecorder, resumed: boolean): Promise<{ status: 'finished' | 'stopped'; reason: string }> {
    const { plan, options, dir } = this;
    const events = dir.events;
    const stop = this.parts.stop;
    const evalEnv = plan.eval ? this.parts.makeEnvs(Math.min(plan.eval.episodes, 32)) : null;
    const evalRng = new Rng(this.seed).fork('eval');
    const rolloutEvery = this.rolloutEvery;
    let nextRollout = Math.ceil(algorithm.globalStep / rolloutEvery) * rolloutEvery;
    const startStep = algorithm.globalStep;
    const startTime = performance.now();
    while (!algorithm.done) {
      if (options.signal?.aborted) return { status: 'stopped', reason: 'stopped by a signal' };
      if (algorithm.globalStep >= nextRollout) {
        recorder.arm(algorithm.globalStep, algorithm.globalStep === 0 && !resumed);
        nextRollout += rolloutEvery;
      }
      const values = await algorithm.iterate();
      const step = algorithm.globalStep;
      const seconds = (performance.now() - startTime) / 1000;
      this.loopSeconds = seconds;
      const sps = (step - startStep) / seconds;
      const metrics = { ...this.episodeMetrics(stepper.takeEpisodes(), step), ...values, 'charts/sps': sps };
      events.add({ type: 'metrics', step, values: metrics });
      Object.assign(this.latest, metrics);

      if (evalEnv && plan.eval && step >= this.counters.nextEval) {
        const result = await evaluate(
          algorithm.policy,
          evalEnv,
          plan.eval.episodes,
          plan.eval.deterministic,
          evalRng.fork(this.counters.evalCount),
          this.seed,
          EVAL_STREAMS + this.counters.evalCount * evalEnv.numEnvs,
        );
        const values = evalMetrics(result);
        events.add({ type: 'eval', step, values, returns: result.returns, lengths: result.lengths, deterministic: plan.eval.deterministic });
        Object.assign(this.latest, values);
        this.counters.latestEval = values;
        this.counters.evalCount++;
        while (this.counters.nextEval <= step) this.counters.nextEval += plan.eval.every;
      }
      if (stop) {
        const current = this.conditionValues(step);
        if (stop.holds(current)) return { status: 'finished', reason: `stop condition ${stop.text} met (${stop.describe(current)})` };
      }
      if (step >= this.counters.nextCheckpoint && !algorithm.done) {
        this.checkpoint(algorithm, false, seconds);
        while (this.counters.nextCheckpoint <= step) this.counters.nextCheckpoint += this.checkpointEvery;
      }
      events.flush();
      if (Date.now() - this.lastStatusWrite > STATUS_INTERVAL_MS) this.writeStatus('running', step);
      const meanReturn = this.latest['train/mean_return'] ?? NaN;
      options.onProgress?.({ runDir: dir.dir, step, budget: this.budget, sps, meanReturn, elapsedSeconds: seconds, etaSeconds: (this.budget - step) / sps });
      // Let signal handlers and timers run: onnxruntime's runs resolve without leaving the microtask queue.
      await new Promise((resolve) => setImmediate(resolve));
    }
    return { status: 'finished', reason: `budget reached (${algorithm.globalStep} of ${this.budget} steps)` };
  }

  /** Per-update episode metrics, the episode events, and the last-20 windows. */
  private episodeMetrics(episodes: readonly EpisodeRecord[], step: number): Record<string, number> {
    const c = this.counters;
    const out: Record<string, number> = { 'charts/episodes': episodes.length };
    for (const [i, e] of episodes.entries()) {
      // Envs with very short episodes (Bandit: one step) would flood events.jsonl; the metrics
      // and the last-20 windows still count every episode.
      if (i < EPISODE_EVENTS_PER_UPDATE) {
        this.dir.events.add({
          type: 'episode',
          step,
          env: e.env,
          return: e.return,
          length: e.length,
          ...(e.success !== undefined ? { success: e.success } : {}),
          ...(e.trainingReturn !== undefined ? { training_return: e.trainingReturn, terms: e.terms } : {}),
        });
      }
      c.recentReturns.push(e.return);
      c.recentLengths.push(e.length);
      if (e.success !== undefined) c.recentSuccesses.push(e.success ? 1 : 0);
    }
    for (const window of [c.recentReturns, c.recentLengths, c.recentSuccesses]) window.splice(0, Math.max(0, window.length - WINDOW));
    const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    if (episodes.length > 0) {
      out['charts/episodic_return'] = mean(episodes.map((e) => e.return));
      out['charts/episodic_length'] = mean(episodes.map((e) => e.length));
      if (episodes[0].trainingReturn !== undefined) {
        out['rewards/total'] = mean(episodes.map((e) => e.trainingReturn!));
        for (const name of Object.keys(episodes[0].terms!)) out[`rewards/${name}`] = mean(episodes.map((e) => e.terms![name]));
      }
    }
    return { ...out, ...windowMetrics(c) };
  }

  private conditionValues(step: number): Partial<Record<ConditionMetric, number>> {
    const e = this.counters.latestEval;
    const t = this.latest;
    return {
      'eval.mean_return': e['eval/mean_return'],
      'eval.std_return': e['eval/std_return'],
      'eval.mean_length': e['eval/mean_length'],
      'eval.success': e['eval/success'],
      'train.mean_return': this.counters.recentReturns.length > 0 ? t['train/mean_return'] : undefined,
      'train.mean_length': this.counters.recentLengths.length > 0 ? t['train/mean_length'] : undefined,
      'train.success': this.counters.recentSuccesses.length > 0 ? t['train/success'] : undefined,
      steps: step,
    };
  }

  private checkpoint(algorithm: Algorithm, final: boolean, seconds: number): void {
    const step = algorithm.globalStep;
    const state: CheckpointState = {
      format: STATE_FORMAT,
      version: STATE_VERSION,
      step,
      seed: this.seed,
      algorithm: algorithm.name,
      trainer: { ...this.counters, elapsed: this.counters.elapsed + seconds, checkpointEvery: this.checkpointEvery, rolloutEvery: this.rolloutEvery },
      algorithmState: algorithm.state(),
      plan: planHash(this.plan),
    };
    const files = saveCheckpoint(this.dir.checkpointsDir, state, algorithm.policy.exportOnnx(this.policyMetadata(algorithm, step)), final);
    this.dir.events.add({ type: 'checkpoint', step, policy: this.dir.relative(files.policy), state: this.dir.relative(files.state) });
  }

  /** Stored in the ONNX model's doc_string (the policy adds its inputs and outputs). */
  private policyMetadata(algorithm: Algorithm, step: number): Record<string, unknown> {
    const { plan } = this;
    const policy = algorithm.policy;
    return {
      format: 'rlx-policy',
      version: 1,
      experiment: plan.experiment,
      env: plan.env.kind,
      obs_fields: this.parts.obsFields,
      obs_dim: policy.spaces.obsDim,
      action: policy.spaces.actionSpace,
      policy: { kind: plan.policy.kind, params: plan.policy.params },
      algorithm: algorithm.name,
      seed: this.seed,
      step,
    };
  }

  private finish(algorithm: Algorithm, status: 'finished' | 'stopped', reason: string): TrainResult {
    const step = algorithm.globalStep;
    this.checkpoint(algorithm, true, this.loopSeconds);
    // Into events only: the caller gets the reason in the result.
    this.dir.events.add({ type: 'log', step, level: 'info', message: reason });
    this.dir.events.add({ type: 'status', step, status, reason });
    this.writeStatus(status, step, { reason, ended: true });
    return { runDir: this.dir.dir, status, reason, step, metrics: { ...this.latest } };
  }

  /**
   * Records the failure as well as the disk allows: status.json says `failed` even when
   * events.jsonl cannot grow (writeStatus() falls back to rewriting the file in place).
   */
  private markFailed(step: number, message: string): void {
    const events = this.dir.events;
    events.add({ type: 'log', step, level: 'error', message });
    events.add({ type: 'status', step, status: 'failed', error: message });
    try {
      events.flush();
    } catch {
      // The status file below is what readers look at first.
    }
    this.writeStatus('failed', step, { error: message, ended: true });
  }

  /** Where the NaN or infinity appeared, and the checkpoint written before it (no later one is). */
  private nonFiniteMessage(err: NonFiniteError, step: number): string {
    const latest = latestCheckpoint(this.dir.checkpointsDir);
    const kept = latest ? `the last good checkpoint is ${this.dir.relative(latest.file)} (step ${latest.step})` : 'no checkpoint was written before it';
    return `${err.message}, after ${step} steps of training; ${kept}`;
  }

  /**
   * Ctrl-C came while a user env's step was running: the update cannot finish, so there is no
   * final checkpoint; the run is `stopped` and a resume starts from the latest checkpoint.
   */
  private interrupted(algorithm: Algorithm, message: string): TrainResult {
    const step = algorithm.globalStep;
    const latest = latestCheckpoint(this.dir.checkpointsDir);
    const reason = `${message}; ${latest ? `--resume continues from the checkpoint at step ${latest.step}` : 'no checkpoint was written yet'}`;
    this.dir.events.add({ type: 'log', step, level: 'warn', message: reason });
    this.dir.events.add({ type: 'status', step, status: 'stopped', reason });
    this.writeStatus('stopped', step, { reason, ended: true });
    return { runDir: this.dir.dir, status: 'stopped', reason, step, metrics: { ...this.latest } };
  }

  private log(level: 'info' | 'warn', step: number, message: string): void {
    this.dir.events.add({ type: 'log', step, level, message });
    this.options.log?.(message);
  }

  private writeStatus(status: RunStatus, step: number, extra: { reason?: string; error?: string; ended?: boolean } = {}): void {
    const { experiment } = this.plan;
    this.dir.writeStatus(statusFile(this.dir.dir, { status, experiment, seed: this.seed, started: this.started, step, budget: this.budget, metrics: this.latest, ...extra }));
    this.lastStatusWrite = Date.now();
  }

}

/** train/mean_return, train/mean_length and train/success over the last-20 windows (those with episodes). */
function windowMetrics(c: TrainerCounters): Record<string, number> {
  const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const out: Record<string, number> = {};
  if (c.recentReturns.length > 0) {
    out['train/mean_return'] = mean(c.recentReturns);
    out['train/mean_length'] = mean(c.recentLengths);
  }
  if (c.recentSuccesses.length > 0) out['train/success'] = mean(c.recentSuccesses);
  return out;
}
