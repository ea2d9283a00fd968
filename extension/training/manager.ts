// Runs started from this window: a queue of at most `rlx.train.maxParallel` trainer processes,
// their output in the "rlx Training" channel, their progress in a notification (with Cancel),
// and what happened at the end: a finished run offers its dashboard, a failed one its error and
// its log.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { listRuns } from '../../runtime/run/reader.js';
import { batchEnded, failureReport, firstLine } from '../messages.js';
import { readSettings } from '../settings.js';
import type { Device, TrainerCommand, TrainRequest } from './command-line.js';
import { liveTrainer, STOP_SIGNAL, TrainJob, type JobResult } from './job.js';
import { batchProgress } from './progress.js';
import { JobQueue } from './queue.js';

export interface JobSpec {
  request: TrainRequest;
  /** Runs the process trains in turn (a sweep's); 1 when absent. */
  runs?: number;
  trainer: TrainerCommand;
  runsRoot: string;
  cwd: string;
  device: Device;
  /** Also write TensorBoard event files (rlx.train.tensorboard). */
  tensorboard?: boolean;
}

export interface TrainingBatch {
  label: string;
  jobs: TrainJob[];
  done: Promise<JobResult[]>;
}

export class TrainingManager implements vscode.Disposable {
  readonly output: vscode.OutputChannel;
  private readonly queue: JobQueue<TrainJob>;
  private readonly jobs = new Set<TrainJob>();
  private nextId = 1;
  private readonly changeEmitter = new vscode.EventEmitter<void>();
  /** Fires when a job is queued, starts, progresses or ends. */
  readonly onDidChange = this.changeEmitter.event;
  private readonly jobsEmitter = new vscode.EventEmitter<void>();
  /** Fires when a job is queued, starts or ends (not on progress): what changes the Runs view's items. */
  readonly onDidChangeJobs = this.jobsEmitter.event;
  private readonly finishedEmitter = new vscode.EventEmitter<{ job: TrainJob; result: JobResult }>();
  readonly onDidFinishJob = this.finishedEmitter.event;
  private readonly disposables: vscode.Disposable[] = [];
  /** The last notification about a batch's end, as shown (the editor tests read it: notifications are out of their reach). */
  lastNotice: { message: string; actions: string[] } | undefined;

  constructor(
    private readonly logDir: string,
    private readonly openDashboard: (runDir: string) => void,
    /** Whether a run's dashboard is open: a notification then offers none. */
    private readonly dashboardOpen: (runDir: string) => boolean = () => false,
  ) {
    this.output = vscode.window.createOutputChannel('rlx Training');
    this.queue = new JobQueue<TrainJob>(() => readSettings().maxParallel, (job) => this.run(job));
    this.disposables.push(
      this.output,
      this.changeEmitter,
      this.jobsEmitter,
      this.finishedEmitter,
      // A raised limit starts waiting runs now rather than when the next one ends.
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('rlx.train.maxParallel')) this.queue.pump();
      }),
    );
  }

  /** Jobs queued or running, oldest first. */
  get active(): TrainJob[] {
    return [...this.jobs];
  }

  // From the jobs' own states, which change before the queue hears that a process ended.
  get running(): readonly TrainJob[] {
    return this.active.filter((j) => j.state === 'running');
  }

  get queued(): readonly TrainJob[] {
    return this.active.filter((j) => j.state === 'queued');
  }

  /** Queues one job per spec and follows them as one batch (one notification). */
  submit(label: string, specs: readonly JobSpec[]): TrainingBatch {
    const jobs = specs.map((spec) => this.createJob(spec));
    for (const job of jobs) this.queue.add(job);
    const done = Promise.all(jobs.map((j) => j.done));
    const batch: TrainingBatch = { label, jobs, done };
    this.showProgress(batch);
    this.showFirstRun(batch);
    void done.then((results) => this.report(batch, results));
    this.changeEmitter.fire();
    this.jobsEmitter.fire();
    return batch;
  }

  /**
   * After a window reload: follows the trainers still writing runs in these folders (started by
   * an earlier window: detached, they went on), so that Stop, the status bar and the progress
   * notification work for them again. A run already followed is left alone.
   */
  reattach(runsRoots: readonly string[]): TrainJob[] {
    const followed = new Set(this.active.flatMap((j) => j.runDirs));
    const attached: TrainJob[] = [];
    for (const root of runsRoots) {
      for (const run of listRuns(root)) {
        const pid = run.state === 'running' && !followed.has(run.dir) ? liveTrainer(run.dir) : undefined;
        if (pid === undefined) continue;
        const job = TrainJob.attach(this.jobOptions({ request: { kind: 'resume', runDir: run.dir }, trainer: { command: '', prefix: [], display: '', bundled: true }, runsRoot: root, cwd: root, device: 'auto' }), pid);
        this.track(job);
        this.output.appendLine(`[${job.label}] following the trainer (pid ${pid}) started before the window reloaded`);
        const batch: TrainingBatch = { label: job.label, jobs: [job], done: job.done.then((r) => [r]) };
        this.showProgress(batch);
        void batch.done.then((results) => this.report(batch, results));
        attached.push(job);
      }
    }
    if (attached.length > 0) {
      this.changeEmitter.fire();
      this.jobsEmitter.fire();
    }
    return attached;
  }

  private jobOptions(spec: JobSpec): ConstructorParameters<typeof TrainJob>[0] {
    const id = this.nextId++;
    const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
    return {
      id,
      ...spec,
      logFile: path.join(this.logDir, `${stamp}-${id}.log`),
      // The editor's Node may be Electron: this makes it run the trainer as plain Node.
      env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
    };
  }

  private createJob(spec: JobSpec): TrainJob {
    const job = new TrainJob(this.jobOptions(spec));
    this.track(job);
    return job;
  }

  private track(job: TrainJob): void {
    this.jobs.add(job);
    const prefix = `[${job.label}]`;
    job.onLine((line) => this.output.appendLine(`${prefix} ${line}`));
    let state = job.state;
    job.onDidChange(() => {
      this.changeEmitter.fire();
      if (job.state !== state) this.jobsEmitter.fire();
      state = job.state;
    });
    void job.done.then((result) => {
      this.jobs.delete(job);
      this.output.appendLine(`${prefix} ${result.state}${result.error ? `: ${firstLine(result.error)}` : ''} (log: ${job.options.logFile})`);
      this.finishedEmitter.fire({ job, result });
      this.changeEmitter.fire();
      this.jobsEmitter.fire();
    });
  }

  private run(job: TrainJob): Promise<JobResult> {
    if (job.state !== 'queued') return job.done; // cancelled while waiting
    this.output.appendLine(`[${job.label}] $ ${job.commandLine.map(quote).join(' ')}`);
    return job.start();
  }

  /** Stops a job: a queued one leaves the queue, a running one stops cleanly. */
  stopJob(job: TrainJob): void {
    if (job.state === 'queued') this.queue.remove(job);
    job.stop();
  }

  /**
   * Stops the trainer writing a run directory: this window's job when it is one, else the
   * process named in status.json (a run started from a terminal or another window).
   */
  stopRun(runDir: string): boolean {
    const job = this.active.find((j) => j.progress?.runDir === runDir || j.runDirs.includes(runDir));
    if (job) {
      this.stopJob(job);
      return true;
    }
    // Only a pid shown to be this run's trainer (a cloned status.json may name any process).
    const pid = liveTrainer(runDir);
    if (pid === undefined) return false;
    try {
      process.kill(pid, STOP_SIGNAL);
      return true;
    } catch {
      return false;
    }
  }

  /** The job training a run directory now, if this window started it. */
  jobFor(runDir: string): TrainJob | undefined {
    return this.active.find((j) => j.progress?.runDir === runDir);
  }

  private showProgress(batch: TrainingBatch): void {
    void vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Training ${batch.label}`, cancellable: true },
      async (progress, token) => {
        token.onCancellationRequested(() => {
          for (const job of batch.jobs) this.stopJob(job);
        });
        let reported = 0;
        const update = () => {
          const { percent, message } = batchProgress(batch.jobs);
          progress.report({ message, increment: Math.max(0, percent - reported) });
          reported = Math.max(reported, percent);
        };
        const subscription = this.onDidChange(update);
        update();
        try {
          await batch.done;
        } finally {
          subscription.dispose();
        }
      },
    );
  }

  /**
   * Live from the first click: the batch's first run directory, as soon as the trainer announces
   * it (before its first update), opens in a dashboard or is offered, per rlx.openDashboardOnTrain.
   */
  private showFirstRun(batch: TrainingBatch): void {
    const when = readSettings().openDashboardOnTrain;
    if (when === 'never') return;
    const unsubscribe: (() => void)[] = [];
    let shown = false;
    const check = () => {
      const dir = batch.jobs.find((j) => j.state === 'running' && j.runDirs.length > 0)?.runDirs[0];
      if (shown || !dir) return;
      shown = true;
      for (const u of unsubscribe.splice(0)) u();
      if (when === 'open') this.openDashboard(dir);
      else if (!this.dashboardOpen(dir)) {
        void vscode.window.showInformationMessage(`Training ${batch.label} started.`, 'Open Dashboard').then((choice) => {
          if (choice === 'Open Dashboard') this.openDashboard(dir);
        });
      }
    };
    for (const job of batch.jobs) unsubscribe.push(job.onDidChange(check));
    void batch.done.then(() => {
      for (const u of unsubscribe.splice(0)) u();
    });
    check();
  }

  private report(batch: TrainingBatch, results: JobResult[]): void {
    const failed = batch.jobs.map((job, i) => ({ job, result: results[i] })).filter((x) => x.result.state === 'failed');
    for (const { job, result } of failed) {
      const runDir = result.runDirs.at(-1);
      const request = job.options.request;
      const spec = request.kind === 'train' ? request.file : undefined;
      const cause = result.cause ?? (runDir ? 'run' : 'crash');
      const { message, actions } = failureReport(job.label, result.error ?? 'unknown error', cause, spec !== undefined);
      this.lastNotice = { message, actions };
      void vscode.window.showErrorMessage(message, ...actions).then((choice) => {
        if (choice === 'Open Log') void vscode.window.showTextDocument(vscode.Uri.file(job.options.logFile));
        if (choice === 'Open Run' && runDir) this.openDashboard(runDir);
        if (choice === 'Open Spec' && spec) void vscode.window.showTextDocument(vscode.Uri.file(spec));
        if (choice === 'Open Settings') void vscode.commands.executeCommand('workbench.action.openSettings', 'rlx.trainer.path');
      });
    }
    if (failed.length > 0) return;
    const dirs = results.flatMap((r) => r.runDirs);
    const stopped = results.flatMap((r) => (r.state === 'stopped' ? r.runDirs.slice(-1) : []));
    const finished = results.filter((r) => r.state === 'finished').length;
    if (finished === 0 && stopped.length === 0) return; // cancelled before starting
    const { message, actions } = batchEnded(batch.label, finished, stopped.length, dirs.length, dirs.length === 1 && this.dashboardOpen(dirs[0]));
    this.lastNotice = { message, actions };
    void vscode.window.showInformationMessage(message, ...actions).then((choice) => {
      if (choice === 'Resume') for (const dir of stopped) void vscode.commands.executeCommand('rlx.resumeRun', dir);
      if (choice !== 'Open Dashboard') return;
      if (dirs.length === 1) this.openDashboard(dirs[0]);
      else void vscode.commands.executeCommand('rlx.compareRuns', undefined, undefined, dirs);
    });
  }

  dispose(): void {
    // Trainers are detached and go on; their run directories tell the next window about them.
    // Runs still waiting for a slot would have no window to start them.
    for (const job of this.queued) this.stopJob(job);
    for (const job of this.running) job.detach();
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

function quote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** The folder for trainer logs (the extension's log folder), created on first use. */
export function trainingLogDir(extension: vscode.ExtensionContext): string {
  const dir = path.join(extension.logUri.fsPath, 'training');
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}
