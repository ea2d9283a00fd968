// The trainer's entry points: train() and resume() turn a plan into a run directory. They build
// what the plan describes (the workload: env copies or a text task and its model; the stages'
// settings; the stop condition; the first stage's algorithm) before the run directory exists, so
// that a plan error leaves none behind, then hand it all to a TrainingRun (trainer/), which
// runs the stages and everything around their iterations.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from './atomic-files.js';
import type { Plan } from '../dsl/compile/plan.js';
import { learnerBundleFile, loadStageLearners, stageAlgorithm, type Algorithm } from './algorithms/index.js';
import { DeviceError, selectDevice, type DeviceChoice, type DeviceRequest } from './device.js';
import { isInputError } from '../shared/input-error.js';
import { isGymnasiumEnv, loadGymnasiumEnv, pythonEnvFileToRecord } from './envs/python/python-env-plan.js';
import { prepareEnvKind } from './envs/registry.js';
import { loadBundledEnvModule, loadEnvModule, type LoadedEnvModule } from './envs/user-module.js';
import { latestIntactCheckpoint, planHash } from './run/checkpoint.js';
import { checkResumedBase } from './run-policy.js';
import { writesRun } from './run/trainer-process.js';
import { RunLockedError } from './run/lock.js';
import { InputError } from '../shared/input-error.js';
import { processAlive } from './run/lock.js';
import { RunDataFiles } from './run/data-files.js';
import { bundledDataset, datasetToBundle, RUN_BUNDLE, RunDirectory, type SourceFile, type StatusFile } from './run/run-dir.js';
import { TensorBoardMirror, TensorBoardWriter } from './run/tensorboard.js';
import { Condition } from './run/stop.js';
import { checkPlan, planPrecision, PlanError } from './support.js';
import { warmUpCompute, type ComputeOptions } from './tensor/index.js';
import { isTextEnv } from './text/env.js';
import { MAX_DATASET_BYTES } from './text/dataset.js';
import { readInputFile } from '../shared/input-files.js';
import { EnvWorkload } from './trainer/env-workload.js';
import { TextWorkload } from './trainer/text-workload.js';
import { computeOn, RunFailedError, TrainingRun, type RunStage, type TrainProgress, type TrainResult } from './trainer/training-run.js';
import type { Workload } from './trainer/workload.js';

export { checkPlan, DeviceError, PlanError, RunFailedError, selectDevice, type DeviceChoice, type TrainProgress, type TrainResult };

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
  /**
   * The .rlx file's folder, where the plan's other relative paths start: a text task's
   * `dataset("...")` file, which the run keeps a copy of in its source/ folder. For a plan taken
   * from a run directory (`rlx train --plan runs/.../plan.json`), that run directory: its copy is read.
   */
  baseDir?: string;
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
  /** The most episodes of the evaluated policy rollouts/ keeps (the first, the latest and a spaced sample); 50 by default. */
  evalEpisodesKept?: number;
  /** How tensor work runs besides the device (tensor/compute.ts): worker threads or not. */
  compute?: ComputeOptions;
  /**
   * Also write the metrics as TensorBoard event files into `<run>/tensorboard/`. A resume keeps
   * writing them when the run has that folder already.
   */
  tensorboard?: boolean;
  /**
   * Parameters from which a pretrained LoRA model's rollouts decode on a GPU device
   * (lm/rollout-device.ts GPU_SAMPLING_MIN_PARAMETERS); tests set 0 to force it on a tiny model.
   */
  gpuSamplingMinParameters?: number;
}

/**
 * Trains one seed of `plan` into a new run directory under `options.out`
 * (`runs/<experiment>/<run-id>/`). Resolves when training ends (budget spent, stop condition,
 * or `options.signal` aborted); rejects with a PlanError or DeviceError before creating the
 * directory when the plan cannot run, and with the error after marking the run `failed`.
 */
export async function train(plan: Plan, options: TrainOptions = {}): Promise<TrainResult> {
  await prepareEnvKind(plan.env.kind); // MuJoCo's engine, before anything builds one of its envs
  checkPlan(plan);
  const seed = options.seed ?? plan.seeds[0];
  if (!Number.isSafeInteger(seed) || seed < 0) throw new PlanError([`seed must be a whole number >= 0, got ${String(seed)}`]);
  warmUpCompute(options.compute);
  const device = await chooseDevice(options.device, plan);
  const envModule = isGymnasiumEnv(plan.env) ? loadGymnasiumEnv(plan.env, undefined, { baseDir: options.baseDir }) : plan.env.kind === 'module' ? await loadEnvModule(moduleFile(plan, options), plan.env.params, { name: plan.env.name }) : undefined;
  let parts: RunParts | undefined;
  let run: RunDirectory | undefined;
  try {
    if (envModule) checkPlan(plan, envModule);
    // Learner modules are loaded (and tried in a worker) before anything is written.
    const learnerBundles = await loadStageLearners(plan.stages, { baseDir: options.baseDir });
    if (learnerBundles.size > 0) checkPlan(plan, envModule);
    const text = isTextEnv(plan.env.kind) || Boolean(envModule?.text);
    // Every file a stage's settings name, read once now: the algorithms and the run's copies get the same bytes.
    const dataFiles = RunDataFiles.read(plan, options.baseDir, text);
    const workload = text ? TextWorkload.create(plan, seed, { baseDir: options.baseDir, datasetFile: bundledDataset(options.baseDir), dataFiles, gpuSamplingMinParameters: options.gpuSamplingMinParameters }, envModule) : EnvWorkload.create(plan, seed, envModule, options.evalEpisodesKept, dataFiles);
    parts = await prepare(plan, seed, device, workload, 0, options.compute);
    const dataset = datasetToBundle(plan, options.baseDir);
    run = RunDirectory.create(options.out ?? 'runs', plan, seed, options.sources ?? [], {
      envModuleCode: plan.env.kind === 'module' ? envModule?.code : undefined,
      dataset: dataset === undefined ? undefined : readInputFile(dataset, { what: 'dataset', maxBytes: MAX_DATASET_BYTES }),
      pythonEnvFile: pythonEnvFileToRecord(plan.env, { baseDir: options.baseDir }),
      pythonRewardFiles: workload instanceof TextWorkload ? workload.pythonRewardFiles() : undefined,
    });
    dataFiles.keepIn(run.dir);
    writeLearnerBundles(run.dir, learnerBundles);
    mirrorToTensorBoard(run, options.tensorboard);
  } catch (err) {
    await parts?.first.release();
    await parts?.workload.release();
    envModule?.close();
    // A run folder made but never started (a full disk while copying the dataset into it) goes
    // whole, lock included: none is left without status.json, or with a lock nobody holds.
    if (run) {
      run.close();
      fs.rmSync(run.dir, { recursive: true, force: true });
    }
    throw err;
  }
  return new TrainingRun(run, plan, seed, device, options, parts.workload, parts.stages, parts.stop, parts.first).run(null, parts.workload.warnings);
}

/**
 * Continues the run in `runDir` from its latest checkpoint: parameters, optimiser state,
 * step counters and random streams, inside the stage it was saved in; episodes in progress at
 * the checkpoint start afresh. Events are appended to the same events.jsonl.
 */
export async function resume(runDir: string, options: Omit<TrainOptions, 'seed' | 'out' | 'sources' | 'baseDir'> = {}): Promise<TrainResult> {
  if (!fs.existsSync(path.join(runDir, 'plan.json'))) throw new ResumeError(`${runDir} is not a run directory (no plan.json in it)`);
  const { plan, status } = readRunRecords(runDir);
  await prepareEnvKind(plan.env.kind); // MuJoCo's engine, before anything builds one of its envs
  checkPlan(plan);
  if (status?.status === 'finished') throw new ResumeError(`${runDir} finished already (${status.reason ?? 'budget reached'}); nothing to resume`);
  // The lock refuses a second trainer; status.json's pid, one of a version that wrote no lock.
  const run = openToResume(runDir);
  let envModule: LoadedEnvModule | undefined;
  let parts: RunParts | undefined;
  try {
    // Not any live pid a copied status.json names (pid 1, a process of the user): one writing this run.
    if (status?.status === 'running' && status.pid !== process.pid && processAlive(status.pid) && writesRun(status.pid, runDir)) {
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
    // A pretrained model's base folder changed since (another revision, a LoRA run's weights
    // exported over it) is refused before the run is written to: resumed, it would train on
    // over other weights and its next checkpoints would record them as the run's base.
    checkResumedBase(runDir, plan, state.step);
    mirrorToTensorBoard(run, options.tensorboard);
    // The newest checkpoints may be cut short (a full disk, a crash before they reached the disk): say which were passed over.
    const notes = damaged.map((d) => `${d.reason}; resuming from the checkpoint at step ${state.step} instead`);
    warmUpCompute(options.compute);
    const device = await chooseDevice(options.device, plan);
    envModule = isGymnasiumEnv(plan.env) ? loadGymnasiumEnv(plan.env, undefined, { baseDir: runDir }) : plan.env.kind === 'module' ? await loadBundledEnvModule(runDir, path.join(runDir, RUN_BUNDLE.envModule), plan.env.params, { name: plan.env.name }) : undefined;
    if (envModule) checkPlan(plan, envModule);
    if ((await loadStageLearners(plan.stages, { runDir })).size > 0) checkPlan(plan, envModule);
    const text = isTextEnv(plan.env.kind) || Boolean(envModule?.text);
    const dataFiles = RunDataFiles.ofRun(runDir, plan, text);
    const workload = text ? TextWorkload.create(plan, state.seed, { datasetFile: bundledDataset(runDir), runDir, dataFiles, gpuSamplingMinParameters: options.gpuSamplingMinParameters }, envModule) : EnvWorkload.create(plan, state.seed, envModule, options.evalEpisodesKept, dataFiles);
    parts = await prepare(plan, state.seed, device, workload, state.trainer.stage ?? 0, options.compute);
    return await new TrainingRun(run, plan, state.seed, device, options, parts.workload, parts.stages, parts.stop, parts.first).run(state, [...(parts.workload.warnings ?? []), ...notes]);
  } catch (err) {
    // TrainingRun.run() closes what it was given; before it, nothing else would.
    if (!(err instanceof RunFailedError)) {
      await parts?.first.release();
      await parts?.workload.release();
      envModule?.close();
      run.close();
    }
    throw err;
  }
}

/** The run's plan.json and status.json; a file refused (runtime/run/run-files.ts: not a regular file of the run, too large) is a ResumeError with the reason. */
function readRunRecords(runDir: string): { plan: Plan; status: StatusFile | undefined } {
  try {
    return { plan: RunDirectory.readPlan(runDir), status: RunDirectory.readStatus(runDir) };
  } catch (err) {
    if (isInputError(err)) throw new ResumeError(err.message, { cause: err });
    throw err;
  }
}

function mirrorToTensorBoard(run: RunDirectory, asked: boolean | undefined): void {
  if (TensorBoardMirror.wanted(run.dir, asked)) run.events.mirrorTo(new TensorBoardMirror(TensorBoardWriter.open(run.dir)));
}

function openToResume(runDir: string): RunDirectory {
  try {
    return RunDirectory.open(runDir);
  } catch (err) {
    // Locked by another trainer, or holding a link or a special file (run-folder-guard.ts).
    if (err instanceof RunLockedError || isInputError(err)) throw new ResumeError(err.message, { cause: err });
    throw err;
  }
}

/** A run that cannot be resumed (finished, still running, no checkpoint). */
export class ResumeError extends InputError {
  override name = 'ResumeError';
}

/** Keeps each learner module's bundle in the run directory (source/learner-<stage>.mjs), for a resume. */
function writeLearnerBundles(runDir: string, bundles: ReadonlyMap<number, string>): void {
  for (const [index, code] of bundles) {
    const file = path.join(runDir, learnerBundleFile(index));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    writeFileAtomic(file, code);
  }
}

function moduleFile(plan: Plan, options: TrainOptions): string {
  if (!options.envModule) {
    throw new PlanError([`env ${plan.env.name} is user code (module "${plan.env.module ?? ''}"): pass its file as envModule (rlx train resolves it next to the .rlx file)`]);
  }
  return options.envModule;
}

/** What a TrainingRun is given: built before its run directory exists. */
interface RunParts {
  readonly workload: Workload;
  readonly stages: readonly RunStage[];
  readonly stop: Condition | null;
  /** The algorithm of the stage the run starts in. */
  readonly first: Algorithm;
}

/** The stages' settings (a bad hyperparameter fails here), the stop condition and the algorithm of stage `startStage`. */
async function prepare(plan: Plan, seed: number, device: DeviceChoice, workload: Workload, startStage: number, compute: ComputeOptions | undefined): Promise<RunParts> {
  const stages = plan.stages.map((stage): RunStage => {
    const definition = stageAlgorithm(stage.algorithm)!; // checkPlan() vouched for it
    const settings = definition.params(stage.algorithm.params);
    return { stage, settings, length: stage.budget ?? definition.lengthWithoutBudget!(settings) };
  });
  const stop = plan.stop ? Condition.compile(plan.stop, 'stop') : null;
  const { stage, settings } = stages[startStage]!;
  const first = await workload.createAlgorithm(stage, settings, TrainingRun.stageRng(seed, startStage, stage, workload), computeOn(device, compute, planPrecision(plan)));
  return { workload, stages, stop, first };
}

async function chooseDevice(given: DeviceRequest | DeviceChoice | undefined, plan: Plan): Promise<DeviceChoice> {
  if (typeof given === 'object') return given;
  return selectDevice(given ?? (plan.device as DeviceRequest), plan);
}
