// One `rlx train` process. It runs detached, writing to a log file, so that training goes on
// when the editor window reloads or closes (the run directory, not this process, is what the
// Runs view shows); the log is tailed into the output channel while this window watches it.
// Where it trains comes from the trainer itself: `rlx train` prints each run directory on stdout
// as the run starts (stdout goes to a file of its own beside the log), so nothing is guessed from
// pids or folder times.
// No VS Code API here: the lifecycle is unit-tested against a stand-in trainer.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { processAlive } from '../../runtime/run/lock.js';
import { readRun } from '../../runtime/run/reader.js';
import { runTrainerPid } from '../../runtime/run/trainer-process.js';
import { requestLabel, trainArgs, type Device, type TrainerCommand, type TrainRequest } from './command-line.js';
import { LineSplitter, trainerError, trainerMessage } from './output.js';

/** What Stop sends a trainer: see stop(). */
export const STOP_SIGNAL: NodeJS.Signals = 'SIGINT';

export type JobState = 'queued' | 'running' | 'finished' | 'stopped' | 'failed' | 'cancelled';

export interface JobOptions {
  id: number;
  request: TrainRequest;
  trainer: TrainerCommand;
  /** The runs folder (`--out`); resumed runs live in it too. */
  runsRoot: string;
  cwd: string;
  device: Device;
  /** Also write TensorBoard event files (rlx.train.tensorboard). */
  tensorboard?: boolean;
  /** Where the trainer's stderr goes (created, appended to); its stdout, the run directories, goes to `runDirsFile(logFile)`. */
  logFile: string;
  env?: NodeJS.ProcessEnv;
  /** How often the log and the run directory are read while running. */
  pollMs?: number;
  /** How many runs this process trains, one after another (a sweep's members times their seeds); 1 when absent. */
  runs?: number;
}

export interface JobProgress {
  step: number;
  budget: number;
  runDir: string;
  /** Which of the process's runs this is (0-based), and how many it trains. */
  run: number;
  runs: number;
}

/**
 * Why a job failed, for the action a notification offers: the trainer did not start (`start`:
 * its path), it ended without a word (`crash`: its runtime), it refused before training (`refused`:
 * the spec, plan or arguments; it said why), or a run failed (`run`: its run directory).
 */
export type FailureCause = 'start' | 'crash' | 'refused' | 'run';

/** The exit status of `rlx` on an internal error (cli/main.ts), as sysexits' EX_SOFTWARE. */
const INTERNAL_ERROR_EXIT = 70;

export interface JobResult {
  state: Exclude<JobState, 'queued' | 'running'>;
  cause?: FailureCause;
  /** The run directories this process wrote, in order (several for a sweep). */
  runDirs: string[];
  error?: string;
  exitCode: number | null;
}

export class TrainJob {
  readonly label: string;
  state: JobState = 'queued';
  progress: JobProgress | undefined;
  readonly runDirs: string[] = [];
  pid: number | undefined;
  /** Settles once, when the process has ended (or the job was cancelled before it started). */
  readonly done: Promise<JobResult>;

  private child: ChildProcess | undefined;
  /** The trainer this job follows without having started it (after a window reload). */
  private attachedPid: number | undefined;
  private stopRequested = false;
  private settle!: (result: JobResult) => void;
  private readonly changeListeners = new Set<() => void>();
  private readonly lineListeners = new Set<(line: string) => void>();
  private readonly lines: string[] = [];
  private readonly splitter = new LineSplitter();
  private logOffset = 0;
  private runDirsRead = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(readonly options: JobOptions) {
    this.label = requestLabel(options.request);
    this.done = new Promise((resolve) => (this.settle = resolve));
    if (options.request.kind === 'resume') this.runDirs.push(options.request.runDir);
  }

  get id(): number {
    return this.options.id;
  }

  /** How many runs the process trains (a sweep's members times their seeds). */
  get runCount(): number {
    return this.options.runs ?? 1;
  }

  get commandLine(): string[] {
    const { trainer, request, runsRoot, device, tensorboard } = this.options;
    return [trainer.command, ...trainer.prefix, ...trainArgs(request, runsRoot, device, tensorboard)];
  }

  onDidChange(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** Each line the trainer prints (stdout and stderr, in order). */
  onLine(listener: (line: string) => void): () => void {
    this.lineListeners.add(listener);
    return () => this.lineListeners.delete(listener);
  }

  /** Starts the process; the promise is `done`. */
  start(): Promise<JobResult> {
    if (this.state !== 'queued') return this.done;
    const [command, ...args] = this.commandLine;
    fs.mkdirSync(path.dirname(this.options.logFile), { recursive: true });
    const fd = fs.openSync(this.options.logFile, 'a');
    this.logOffset = fs.fstatSync(fd).size;
    const out = fs.openSync(runDirsFile(this.options.logFile), 'w');
    let child: ChildProcess;
    try {
      child = spawn(command, args, {
        cwd: this.options.cwd,
        env: this.options.env ?? process.env,
        stdio: ['ignore', out, fd],
        detached: true,
        windowsHide: true,
      });
    } catch (err) {
      this.finish({ state: 'failed', cause: 'start', error: startError(this.options.trainer, err), exitCode: null });
      return this.done;
    } finally {
      fs.closeSync(fd); // the child has its own copies
      fs.closeSync(out);
    }
    this.child = child;
    this.pid = child.pid;
    this.state = 'running';
    child.unref(); // the extension host may exit while training goes on
    child.once('error', (err) => {
      // spawn failures (ENOENT, EACCES) arrive here, without an exit event
      this.stopPolling();
      this.finish({ state: 'failed', cause: 'start', error: startError(this.options.trainer, err), exitCode: null });
    });
    child.once('exit', (code) => {
      this.stopPolling();
      this.poll();
      for (const line of this.splitter.flush()) this.emitLine(line);
      this.finish(this.outcome(code));
    });
    this.timer = setInterval(() => this.poll(), this.options.pollMs ?? 500);
    this.emitChange();
    return this.done;
  }

  /**
   * Follows a trainer that runs already (started by this editor before a window reload): its
   * progress from the run directory, Stop by its pid, its end when the process is gone. The
   * request is `resume` of the run directory, for the label.
   */
  static attach(options: JobOptions, pid: number): TrainJob {
    const job = new TrainJob(options);
    job.attachedPid = job.pid = pid;
    job.state = 'running';
    job.readProgress();
    job.timer = setInterval(() => {
      job.readProgress();
      if (!processAlive(pid)) job.finish(job.attachedOutcome());
    }, options.pollMs ?? 500);
    return job;
  }

  private attachedOutcome(): Omit<JobResult, 'runDirs'> {
    const run = readRun(this.runDirs[0]);
    if (run.state === 'finished') return { state: 'finished', exitCode: null };
    if (run.state === 'stopped' || this.stopRequested) return { state: 'stopped', exitCode: null };
    if (run.state === 'failed') return { state: 'failed', cause: 'run', error: run.status?.error ?? 'the run failed', exitCode: null };
    return { state: 'failed', cause: 'run', error: 'the trainer ended without writing how (it was killed, or crashed)', exitCode: null };
  }

  /**
   * Cancels a queued job, or asks a running trainer to stop cleanly (final checkpoint). SIGINT,
   * as Ctrl-C in a terminal: the trainer stops on SIGTERM too, but only SIGINT can wake it from
   * a call into a user env module that hangs (runtime/envs/module-host.ts); SIGTERM waits for
   * the module's env_timeout.
   */
  stop(): void {
    if (this.state === 'queued') {
      this.finish({ state: 'cancelled', exitCode: null });
      return;
    }
    if (this.state === 'running' && this.attachedPid !== undefined) {
      this.stopRequested = true;
      // Judged again: the pid may have ended and been given to another process since it was attached.
      if (liveTrainer(this.runDirs[0]!) !== this.attachedPid) return;
      try {
        process.kill(this.attachedPid, STOP_SIGNAL);
      } catch {
        // already gone: the next poll settles the job
      }
      return;
    }
    if (this.state !== 'running' || !this.child?.pid) return;
    this.stopRequested = true;
    try {
      this.child.kill(STOP_SIGNAL);
    } catch {
      // already gone: its exit event settles the job
    }
  }

  /** Stops following the process (the window closes); the trainer itself goes on. */
  detach(): void {
    this.stopPolling();
    this.changeListeners.clear();
    this.lineListeners.clear();
  }

  /** The last lines the trainer printed (for error reports). */
  get output(): readonly string[] {
    return this.lines;
  }

  private poll(): void {
    this.readLog();
    this.readRunDirs();
    this.readProgress();
  }

  private readLog(): void {
    let fd: number;
    try {
      fd = fs.openSync(this.options.logFile, 'r');
    } catch {
      return;
    }
    try {
      const size = fs.fstatSync(fd).size;
      if (size <= this.logOffset) return;
      const buffer = Buffer.alloc(size - this.logOffset);
      fs.readSync(fd, buffer, 0, buffer.length, this.logOffset);
      this.logOffset = size;
      for (const line of this.splitter.push(buffer.toString('utf8'))) this.emitLine(line);
    } finally {
      fs.closeSync(fd);
    }
  }

  private emitLine(line: string): void {
    this.lines.push(line);
    if (this.lines.length > 200) this.lines.shift();
    for (const listener of this.lineListeners) listener(line);
  }

  /** New run directories the trainer announced on stdout (one per line, as each run starts). */
  private readRunDirs(): void {
    let text: string;
    try {
      text = fs.readFileSync(runDirsFile(this.options.logFile), 'utf8');
    } catch {
      return;
    }
    const complete = text.slice(0, text.lastIndexOf('\n') + 1);
    const announced = complete.split('\n').filter((line) => line.trim() !== '');
    const fresh = announced.slice(this.runDirsRead);
    for (const line of fresh) {
      const dir = path.resolve(this.options.cwd, line.trim());
      if (!this.runDirs.includes(dir)) this.runDirs.push(dir);
      this.emitLine(`rlx train: run directory ${line.trim()}`);
    }
    this.runDirsRead = announced.length;
    // A new run directory is news before its first update (the dashboard opens on it).
    if (fresh.length > 0) this.emitChange();
  }

  /** Progress of the newest run directory, from its status.json. */
  private readProgress(): void {
    const dir = this.runDirs.at(-1);
    const status = dir ? readRun(dir).status : undefined;
    if (!dir || !status) return;
    const changed = this.progress?.runDir !== dir || this.progress.step !== status.step || this.progress.budget !== status.budget;
    const run = this.runDirs.length - 1;
    this.progress = { runDir: dir, step: status.step, budget: status.budget, run, runs: Math.max(run + 1, this.options.runs ?? 1) };
    if (changed) this.emitChange();
  }

  private outcome(code: number | null): Omit<JobResult, 'runDirs'> {
    const last = this.runDirs.at(-1);
    const run = last ? readRun(last) : undefined;
    if (code === 0) return { state: run?.state === 'stopped' ? 'stopped' : 'finished', exitCode: code };
    if (this.stopRequested && (run === undefined || run.state === 'stopped' || run.state === 'running' || run.state === 'crashed')) {
      return { state: 'stopped', exitCode: code };
    }
    const runError = run?.state === 'failed' ? run.status?.error : undefined;
    if (runError !== undefined) return { state: 'failed', cause: 'run', error: runError, exitCode: code };
    const said = trainerMessage(this.lines);
    // It refused (the spec, its plan, the arguments) when it said why and did not break doing so:
    // an internal error (cli/main.ts: exit 70) is the trainer's, whatever it printed.
    const refused = said !== undefined && code !== INTERNAL_ERROR_EXIT && !/^internal error:/.test(said);
    const cause: FailureCause = last ? 'run' : refused ? 'refused' : 'crash';
    const error = said ?? trainerError(this.lines) ?? `the trainer exited with code ${code}`;
    return { state: 'failed', cause, error, exitCode: code };
  }

  private finish(result: Omit<JobResult, 'runDirs'>): void {
    if (this.state !== 'queued' && this.state !== 'running') return;
    this.state = result.state;
    this.stopPolling();
    this.settle({ ...result, runDirs: [...this.runDirs] });
    this.emitChange();
  }

  private stopPolling(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private emitChange(): void {
    for (const listener of this.changeListeners) listener();
  }
}

/** Where a job's trainer writes its stdout: the run directories it trains into, one per line. */
export function runDirsFile(logFile: string): string {
  return `${logFile}.runs`;
}

function startError(trainer: TrainerCommand, err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return `the trainer '${trainer.display}' was not found`;
  if (code === 'EACCES') return `the trainer '${trainer.display}' is not executable`;
  return `the trainer '${trainer.display}' did not start: ${(err as Error).message}`;
}

/**
 * The trainer writing a run directory now, on this machine: status.json `running`, and its pid
 * shown to be the run's trainer (runtime/run/trainer-process.ts: run.lock on this host, and the
 * process holds the run's events.jsonl open), never merely whatever pid a cloned status.json names.
 */
export function liveTrainer(runDir: string): number | undefined {
  const run = readRun(runDir);
  if (run.state !== 'running' || !run.status) return undefined;
  return runTrainerPid(runDir, run.status.pid);
}
