// One `rlx train` process. It runs detached, writing to a log file, so that training goes on
// when the editor window reloads or closes (the run directory, not this process, is what the
// Runs view shows); the log is tailed into the output channel while this window watches it.
// No VS Code API here: the lifecycle is unit-tested against a stand-in trainer.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readRun } from '../../runtime/run/reader.js';
import { requestLabel, trainArgs, type Device, type TrainerCommand, type TrainRequest } from './command-line.js';
import { LineSplitter, trainerError } from './output.js';

export type JobState = 'queued' | 'running' | 'finished' | 'stopped' | 'failed' | 'cancelled';

export interface JobOptions {
  id: number;
  request: TrainRequest;
  trainer: TrainerCommand;
  /** The runs folder (`--out`); resumed runs live in it too. */
  runsRoot: string;
  cwd: string;
  device: Device;
  /** Where the trainer's stdout and stderr go (created, appended to). */
  logFile: string;
  env?: NodeJS.ProcessEnv;
  /** How often the log and the run directory are read while running. */
  pollMs?: number;
}

export interface JobProgress {
  step: number;
  budget: number;
  runDir: string;
}

export interface JobResult {
  state: Exclude<JobState, 'queued' | 'running'>;
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
  private stopRequested = false;
  private settle!: (result: JobResult) => void;
  private readonly changeListeners = new Set<() => void>();
  private readonly lineListeners = new Set<(line: string) => void>();
  private readonly lines: string[] = [];
  private readonly splitter = new LineSplitter();
  private logOffset = 0;
  private timer: NodeJS.Timeout | undefined;
  private startedAt = 0;

  constructor(readonly options: JobOptions) {
    this.label = requestLabel(options.request);
    this.done = new Promise((resolve) => (this.settle = resolve));
    if (options.request.kind === 'resume') this.runDirs.push(options.request.runDir);
  }

  get id(): number {
    return this.options.id;
  }

  get commandLine(): string[] {
    const { trainer, request, runsRoot, device } = this.options;
    return [trainer.command, ...trainer.prefix, ...trainArgs(request, runsRoot, device)];
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
    this.startedAt = Date.now();
    let child: ChildProcess;
    try {
      child = spawn(command, args, {
        cwd: this.options.cwd,
        env: this.options.env ?? process.env,
        stdio: ['ignore', fd, fd],
        detached: true,
        windowsHide: true,
      });
    } catch (err) {
      fs.closeSync(fd);
      this.finish({ state: 'failed', error: startError(this.options.trainer, err), exitCode: null });
      return this.done;
    }
    fs.closeSync(fd); // the child has its own copy
    this.child = child;
    this.pid = child.pid;
    this.state = 'running';
    child.unref(); // the extension host may exit while training goes on
    child.once('error', (err) => {
      // spawn failures (ENOENT, EACCES) arrive here, without an exit event
      this.stopPolling();
      this.finish({ state: 'failed', error: startError(this.options.trainer, err), exitCode: null });
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

  /** Cancels a queued job, or asks a running trainer to stop cleanly (SIGTERM: final checkpoint). */
  stop(): void {
    if (this.state === 'queued') {
      this.finish({ state: 'cancelled', exitCode: null });
      return;
    }
    if (this.state !== 'running' || !this.child?.pid) return;
    this.stopRequested = true;
    try {
      this.child.kill('SIGTERM');
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
    this.findRunDir();
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

  /**
   * The run directory being written: the newest one whose status.json names this process. The
   * trainer creates it after compiling the plan, so it appears a moment after the start.
   */
  private findRunDir(): void {
    if (!this.pid) return;
    let found: { dir: string; step: number; budget: number } | undefined;
    for (const dir of this.candidateDirs()) {
      const run = readRun(dir);
      if (run.status?.pid === this.pid) {
        found = { dir, step: run.status.step, budget: run.status.budget };
        break;
      }
    }
    if (!found) return;
    if (!this.runDirs.includes(found.dir)) this.runDirs.push(found.dir);
    const changed = this.progress?.runDir !== found.dir || this.progress.step !== found.step || this.progress.budget !== found.budget;
    this.progress = { runDir: found.dir, step: found.step, budget: found.budget };
    if (changed) this.emitChange();
  }

  /** Run directories that may belong to this process, newest first. */
  private candidateDirs(): string[] {
    if (this.options.request.kind === 'resume') return [this.options.request.runDir];
    const root = this.options.runsRoot;
    const since = this.startedAt - 2000;
    const dirs: { dir: string; mtime: number }[] = [];
    for (const experiment of readdirSafe(root)) {
      for (const id of readdirSafe(path.join(root, experiment))) {
        const dir = path.join(root, experiment, id);
        try {
          const stat = fs.statSync(dir);
          if (stat.isDirectory() && stat.birthtimeMs >= since) dirs.push({ dir, mtime: stat.mtimeMs });
          else if (stat.isDirectory() && stat.birthtimeMs === 0 && stat.mtimeMs >= since) dirs.push({ dir, mtime: stat.mtimeMs });
        } catch {
          // removed meanwhile
        }
      }
    }
    return dirs.sort((a, b) => b.mtime - a.mtime).map((d) => d.dir);
  }

  private outcome(code: number | null): Omit<JobResult, 'runDirs'> {
    const last = this.runDirs.at(-1);
    const run = last ? readRun(last) : undefined;
    if (code === 0) return { state: run?.state === 'stopped' ? 'stopped' : 'finished', exitCode: code };
    if (this.stopRequested && (run === undefined || run.state === 'stopped' || run.state === 'running' || run.state === 'crashed')) {
      return { state: 'stopped', exitCode: code };
    }
    const error = (run?.state === 'failed' ? run.status?.error : undefined) ?? trainerError(this.lines) ?? `the trainer exited with code ${code}`;
    return { state: 'failed', error, exitCode: code };
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

function readdirSafe(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

function startError(trainer: TrainerCommand, err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return `the trainer '${trainer.display}' was not found`;
  if (code === 'EACCES') return `the trainer '${trainer.display}' is not executable`;
  return `the trainer '${trainer.display}' did not start: ${(err as Error).message}`;
}
