// The run directory (ARCHITECTURE.md "Run directory"; docs/run-directory.md):
//
//   runs/<experiment>/<run-id>/
//     plan.json      the resolved plan
//     source/        snapshot of the .rlx files used, and the run's bundled inputs (RUN_BUNDLE)
//     data/          copies of the files the stages' settings name, and files.json (data-files.ts)
//     events.jsonl   one JSON object a line (events.ts)
//     rollouts/      sampled episodes, one JSONL file each
//     checkpoints/   policy-<step>.onnx + state-<step>.json, policy-final.onnx
//     status.json    running | finished | failed | stopped, pid, times, final metrics
//     run.lock       while a trainer writes the directory: its pid and host (lock.ts)
//
// Every file is appended to or replaced atomically (files.ts), so the editor can read the
// directory at any moment, and a killed trainer leaves it readable.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Plan } from '../../dsl/compile/plan.js';
import { EventLog, repairTornTail, type RunStatus } from './events.js';
import { isOrphanedTemporary, makeDirs, writeFileAtomic, writeJsonAtomic } from '../atomic-files.js';
import { InputFileError } from '../../shared/input-files.js';
import { processAlive, RunLock } from './lock.js';
import { readRunJson, RUN_FILE_LIMITS, runFileExists } from './run-files.js';
import { checkRunFolderForWriting, openOwnFile } from './run-folder-guard.js';

export interface StatusFile {
  status: RunStatus;
  pid: number;
  /** The run directory's absolute path when the trainer wrote this (absent in runs of earlier versions). */
  run_dir?: string;
  experiment: string;
  seed: number;
  /** ISO times. */
  started: string;
  updated: string;
  ended?: string;
  /** Environment steps so far, and the budget. */
  step: number;
  budget: number;
  /** The execution provider training runs on, and why it was chosen (absent in runs of earlier versions). */
  device?: { provider: string; reason: string };
  /** The stage being trained (or the last one, once ended); absent in runs of earlier versions. */
  stage?: { name: string; index: number; count: number; algorithm: string };
  reason?: string;
  error?: string;
  /** Seconds spent training, over every process that trained the run (not the time it sat stopped); absent in runs of earlier versions. */
  training_seconds?: number;
  /** The latest value of each metric (metrics and eval events), at the end of the run the final ones. */
  metrics: Record<string, number>;
  /** With a `curriculum { }`: the env parameter and its value now. */
  curriculum?: { param: string; value: number; from: number; to: number };
}

/** What a trainer knows of its run; statusFile() adds what every status.json says the same way. */
export type StatusFields = Pick<StatusFile, 'status' | 'experiment' | 'seed' | 'step' | 'budget' | 'device' | 'metrics' | 'stage' | 'reason' | 'error' | 'curriculum' | 'training_seconds'> & {
  readonly started: Date;
  /** The run has ended: `ended` is now. */
  readonly ended?: boolean;
};

/** status.json for this process training `runDir` now: pid, absolute run_dir, ISO times, absent fields left out. */
export function statusFile(runDir: string, fields: StatusFields): StatusFile {
  const now = new Date().toISOString();
  const { started, ended, device, stage, reason, error, ...rest } = fields;
  return {
    status: rest.status,
    pid: process.pid,
    run_dir: path.resolve(runDir),
    experiment: rest.experiment,
    seed: rest.seed,
    started: started.toISOString(),
    updated: now,
    ...(ended ? { ended: now } : {}),
    step: rest.step,
    budget: rest.budget,
    ...(device ? { device } : {}),
    ...(rest.training_seconds !== undefined ? { training_seconds: Math.round(rest.training_seconds * 1000) / 1000 } : {}),
    ...(stage ? { stage } : {}),
    ...(reason ? { reason } : {}),
    ...(error ? { error } : {}),
    metrics: { ...rest.metrics },
    ...(rest.curriculum ? { curriculum: rest.curriculum } : {}),
  };
}

/** A source file to snapshot: its path relative to the entry file's folder, and its text. */
export interface SourceFile {
  readonly path: string;
  readonly text: string;
}

/**
 * Where a source file goes inside source/: its path relative to the entry's folder, with each
 * `..` written as `_up` (an import may reach a sibling folder: `import "../shared/envs.rlx"`).
 */
export function snapshotPath(relative: string): string {
  return relative.split(/[\\/]/).filter((part) => part !== '' && part !== '.').map((part) => (part === '..' ? '_up' : part)).join('/');
}

/**
 * The inputs a run keeps a copy of in source/, beside the .rlx snapshot, so that resume, eval and
 * `rlx train --plan runs/.../plan.json` need nothing outside the run folder and use exactly what
 * the run trained on: a user env module's bundled code, and a text task's `dataset("...")` file.
 */
export const RUN_BUNDLE = {
  envModule: path.join('source', 'env-module.mjs'),
  dataset: path.join('source', 'dataset.jsonl'),
  /**
   * A python("./envs/x.py:Class") env's file, as its absolute path ({"file": ...}): a path, not a
   * copy, as the file may import its neighbours; resume and eval find it from any working folder.
   */
  pythonEnv: path.join('source', 'python-env.json'),
  /** A text task's python("./rewards.py:fn") reward files, as written -> absolute path ({"files": {...}}): paths, as for pythonEnv. */
  pythonRewards: path.join('source', 'python-rewards.json'),
} as const;

/** What a new run bundles (RUN_BUNDLE): each present field is written into the run folder. */
export interface RunBundle {
  /** A user env module's code, bundled into one file (envs/user-module.ts). */
  readonly envModuleCode?: string;
  /** The contents of the text task's `dataset("...")` file. */
  readonly dataset?: Uint8Array;
  /** The absolute path of a python(...) env's file. */
  readonly pythonEnvFile?: string;
  /** The absolute paths of the reward's Python function files, by the path the plan writes. */
  readonly pythonRewardFiles?: Readonly<Record<string, string>>;
}

/**
 * The dataset copy a run folder keeps, when `dir` is a run folder (it has a plan.json: a
 * project folder may well have a source/dataset.jsonl of its own) and the run has one.
 */
export function bundledDataset(dir: string | undefined): string | undefined {
  if (dir === undefined || !fs.existsSync(path.join(dir, 'plan.json'))) return undefined;
  const file = path.join(dir, RUN_BUNDLE.dataset);
  return fs.existsSync(file) ? file : undefined;
}

/**
 * The file a new run of `plan` copies into its source/ as its dataset: the one its TextTask's
 * `dataset("...")` names, relative to `baseDir` (the .rlx file's folder), or, when `baseDir` is
 * a run folder (a plan taken from a run), that run's own copy. Undefined for other tasks and envs.
 */
export function datasetToBundle(plan: Plan, baseDir: string | undefined): string | undefined {
  if (plan.env.kind !== 'TextTask') return undefined;
  const task = (plan.env.params as Record<string, unknown>).task;
  if (task === null || typeof task !== 'object' || (task as { kind?: unknown }).kind !== 'dataset') return undefined;
  const file = (task as { path?: unknown }).path;
  if (typeof file !== 'string' || file === '') return undefined;
  return bundledDataset(baseDir) ?? (baseDir === undefined ? undefined : path.resolve(baseDir, file));
}

/**
 * The path of its python(...) env's file that the run folder `dir` recorded (RUN_BUNDLE.pythonEnv),
 * when `dir` is a run folder with that record; undefined otherwise (another env, a run of an
 * earlier version). A record that is not a {"file": "/absolute/path"} is an InputFileError.
 */
export function recordedPythonEnvFile(dir: string | undefined): string | undefined {
  if (dir === undefined || !isRunFolder(dir)) return undefined;
  const record = path.join(dir, RUN_BUNDLE.pythonEnv);
  if (!runFileExists(record)) return undefined;
  const file = (readRunJson(dir, record, RUN_FILE_LIMITS.pythonEnv) as { file?: unknown } | null)?.file;
  if (typeof file !== 'string' || !path.isAbsolute(file)) throw new InputFileError(`${record} does not name the env's Python file: write {"file": "/absolute/path/of/the/file.py"} into it`);
  return file;
}

/** The reward function files the run folder `dir` recorded (RUN_BUNDLE.pythonRewards), by the path the plan writes; undefined without a record. */
export function recordedPythonRewardFiles(dir: string): Readonly<Record<string, string>> | undefined {
  const record = path.join(dir, RUN_BUNDLE.pythonRewards);
  if (!runFileExists(record)) return undefined;
  const files = (readRunJson(dir, record, RUN_FILE_LIMITS.pythonEnv) as { files?: unknown } | null)?.files;
  const valid = typeof files === 'object' && files !== null && Object.values(files).every((f) => typeof f === 'string' && path.isAbsolute(f));
  if (!valid) throw new InputFileError(`${record} does not name the reward's Python files: write {"files": {"./rewards.py": "/absolute/path/of/rewards.py"}} into it`);
  return files as Record<string, string>;
}

/** Whether `dir` is a run folder (it has a plan.json), where a plan's relative paths do not start. */
export function isRunFolder(dir: string): boolean {
  return fs.existsSync(path.join(dir, 'plan.json'));
}

export class RunDirectory {
  readonly events: EventLog;
  /** Bytes of an unfinished last line of events.jsonl that open() cut (a trainer killed while writing). */
  readonly tornBytes: number = 0;
  /** Temporary files of writes cut short (a trainer killed while writing) that open() removed. */
  readonly removedTemporaries: number = 0;
  private closed = false;

  private constructor(
    readonly dir: string,
    private readonly lock: RunLock,
    repair = false,
  ) {
    try {
      const events = path.join(dir, 'events.jsonl');
      if (repair) {
        this.tornBytes = repairTornTail(events);
        this.removedTemporaries = removeOrphanedTemporaries(dir);
      }
      this.events = new EventLog(events);
    } catch (err) {
      lock.release();
      throw err;
    }
  }

  /**
   * Creates runs/<experiment>/<run-id>/ under `root`, with plan.json, the source snapshot and the
   * bundled inputs. The run id is `<UTC time>-seed<seed>` (and `-<n>` if that exists already).
   */
  static create(root: string, plan: Plan, seed: number, sources: readonly SourceFile[], bundle: RunBundle = {}): RunDirectory {
    const experimentDir = path.join(root, safeName(plan.experiment));
    makeDirs(experimentDir);
    const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
    const member = plan.sweep ? `-${safeName(plan.sweep.name)}${plan.sweep.index}` : '';
    const base = `${stamp}${member}-seed${seed}`;
    let dir = path.join(experimentDir, base);
    for (let n = 2; ; n++) {
      try {
        fs.mkdirSync(dir); // fails if it exists: two trainers never share a directory
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        dir = path.join(experimentDir, `${base}-${n}`);
      }
    }
    let lock: RunLock;
    try {
      lock = RunLock.acquire(dir);
    } catch (err) {
      fs.rmSync(dir, { recursive: true, force: true }); // ours, and empty: no lock could be written (a full disk)
      throw err;
    }
    try {
      for (const sub of ['source', 'rollouts', 'checkpoints']) fs.mkdirSync(path.join(dir, sub));
      writeJsonAtomic(path.join(dir, 'plan.json'), plan);
      for (const source of sources) {
        const target = path.resolve(dir, 'source', snapshotPath(source.path));
        if (!target.startsWith(path.resolve(dir, 'source') + path.sep)) throw new Error(`source file ${source.path} cannot be placed in the snapshot`);
        fs.mkdirSync(path.dirname(target), { recursive: true });
        writeFileAtomic(target, source.text);
      }
      if (bundle.envModuleCode !== undefined) writeFileAtomic(path.join(dir, RUN_BUNDLE.envModule), bundle.envModuleCode);
      if (bundle.dataset !== undefined) writeFileAtomic(path.join(dir, RUN_BUNDLE.dataset), bundle.dataset);
      if (bundle.pythonEnvFile !== undefined) writeJsonAtomic(path.join(dir, RUN_BUNDLE.pythonEnv), { file: bundle.pythonEnvFile });
      if (bundle.pythonRewardFiles !== undefined) writeJsonAtomic(path.join(dir, RUN_BUNDLE.pythonRewards), { files: bundle.pythonRewardFiles });
    } catch (err) {
      // Half made (a full disk): removed, so that no run folder is left without status.json.
      lock.release();
      fs.rmSync(dir, { recursive: true, force: true });
      throw err;
    }
    return new RunDirectory(dir, lock);
  }

  /**
   * Opens an existing run directory to resume it: checks that it is one, and that it holds no
   * link or special file (run-folder-guard.ts), takes its lock (a RunLockedError while another
   * trainer holds it) and cuts an unfinished last line of events.jsonl.
   */
  static open(dir: string): RunDirectory {
    for (const needed of ['plan.json', 'checkpoints']) {
      if (!runFileExists(path.join(dir, needed))) throw new Error(`${dir} is not a run directory (no ${needed} in it)`);
    }
    checkRunFolderForWriting(dir, 'resume');
    // Under the lock: no other trainer is appending while the torn tail is cut.
    return new RunDirectory(dir, RunLock.acquire(dir), true);
  }

  /** The run's plan.json: a regular file inside the run folder, of bounded size (run-files.ts); an InputError otherwise. */
  static readPlan(dir: string): Plan {
    const plan = readRunJson(dir, path.join(dir, 'plan.json'), RUN_FILE_LIMITS.plan);
    if (plan === null || typeof plan !== 'object' || Array.isArray(plan)) throw new InputFileError(`${path.join(dir, 'plan.json')} is not an rlx plan (not a JSON object)`);
    return plan as Plan;
  }

  static readStatus(dir: string): StatusFile | undefined {
    const file = path.join(dir, 'status.json');
    if (!runFileExists(file)) return undefined;
    const status = readRunJson(dir, file, RUN_FILE_LIMITS.status);
    return status !== null && typeof status === 'object' ? status as StatusFile : undefined;
  }

  get checkpointsDir(): string {
    return path.join(this.dir, 'checkpoints');
  }

  get rolloutsDir(): string {
    return path.join(this.dir, 'rollouts');
  }

  /** A path relative to the run directory, with forward slashes (as events record it). */
  relative(file: string): string {
    return path.relative(this.dir, file).split(path.sep).join('/');
  }

  writeStatus(status: StatusFile): void {
    const file = path.join(this.dir, 'status.json');
    try {
      writeJsonAtomic(file, status);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if ((code !== 'ENOSPC' && code !== 'EDQUOT') || !fs.existsSync(file)) throw err;
      // A full disk has no room for the temporary copy, but the file's own block can be
      // rewritten: a run must not stay `running` because the disk filled up.
      overwriteInPlace(file, JSON.stringify(status, null, 2) + '\n');
    }
  }

  /** Flushes the events and gives up the lock; once (later calls do nothing). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.events.close();
    } finally {
      this.lock.release();
    }
  }
}

/** A name usable as one path segment on every platform. */
function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '_') || 'run';
}

function overwriteInPlace(file: string, text: string): void {
  const bytes = Buffer.from(text);
  const { fd } = openOwnFile(file, fs.constants.O_RDWR, RUN_FILE_LIMITS.status);
  try {
    fs.writeSync(fd, bytes, 0, bytes.length, 0);
    fs.ftruncateSync(fd, bytes.length);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Removes writeFileAtomic()'s temporary files left in the run directory by a killed trainer;
 * returns how many. One whose process is alive is not orphaned: another `--resume` of this run,
 * between writing its lock's temporary and linking it (lock.ts), which it would then fail to find.
 */
function removeOrphanedTemporaries(dir: string): number {
  let removed = 0;
  for (const name of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }) as string[]) {
    if (!isOrphanedTemporary(path.basename(name)) || processAlive(temporaryPid(path.basename(name)))) continue;
    fs.rmSync(path.join(dir, name), { force: true });
    removed++;
  }
  return removed;
}

/** The pid a temporary's name `.<name>.<pid>.tmp` carries. */
function temporaryPid(name: string): number {
  return Number(/\.(\d+)\.tmp$/.exec(name)![1]);
}
