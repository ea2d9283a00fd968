// What a run tells its readers as it trains: the events of events.jsonl (each named with its
// stage), the latest value of every metric, the last-20 episode windows behind train.*, and
// status.json, rewritten at most every two seconds while running and once when the run ends.
// The training loop (training-run.ts) decides what happens; this file says it.
import type { Plan, PlanStage } from '../../dsl/compile/plan.js';
import { stageAlgorithmTitle, type EpisodeRecord } from '../algorithms/index.js';
import type { DeviceChoice } from '../device.js';
import type { TrainerCounters } from '../run/checkpoint.js';
import type { EventInput, RunStatus } from '../run/events.js';
import { RunDirectory, statusFile } from '../run/run-dir.js';
import type { Curriculum } from '../curriculum.js';
import type { EvalOutcome } from './workload.js';

const WINDOW = 20;
/** At most this many episode events per update. */
const EPISODE_EVENTS_PER_UPDATE = 64;
const STATUS_INTERVAL_MS = 2000;

/** The run as its report describes it: what it trains, and where it is now. */
export interface ReportedRun {
  readonly plan: Plan;
  readonly seed: number;
  readonly device: DeviceChoice;
  readonly stages: readonly { readonly stage: PlanStage }[];
  readonly budget: number;
  readonly curriculum: Curriculum | null;
  /** Run steps so far. */
  step(): number;
  /** The stage being trained. */
  stageIndex(): number;
  /** The checkpointed counters (undefined until the run starts): the windows and the latest evaluation live there. */
  counters(): TrainerCounters | undefined;
  /** Seconds this process has spent in the training loop. */
  loopSeconds(): number;
}

export class RunReport {
  /** The latest value of every metric (metrics and eval events), as status.json and the result show them. */
  readonly latest: Record<string, number> = {};
  private readonly started: Date = new Date();
  private lastStatusWrite = 0;

  constructor(
    private readonly dir: RunDirectory,
    private readonly run: ReportedRun,
    private readonly onLog?: (message: string) => void,
  ) {
    // A resumed run keeps the start time of the run, not of this process.
    const previous = RunDirectory.readStatus(dir.dir)?.started;
    if (previous) this.started = new Date(previous);
  }

  get stageName(): string {
    return this.run.stages[this.run.stageIndex()]!.stage.name;
  }

  /** Adds one event (each names its stage: `stage: report.stageName`). */
  add(event: EventInput): void {
    this.dir.events.add(event);
  }

  /** A log line, in events.jsonl and to the caller's log. */
  log(level: 'info' | 'warn', message: string): void {
    this.add({ type: 'log', step: this.run.step(), level, message, stage: this.stageName });
    this.onLog?.(message);
  }

  /** A message for the caller's log only. */
  tell(message: string): void {
    this.onLog?.(message);
  }

  /** The run starts (or resumes, keeping the figures the checkpoint knows until the first update brings new ones). */
  start(resumedAt: number | null): void {
    const counters = this.run.counters()!;
    if (resumedAt !== null) Object.assign(this.latest, windowMetrics(counters), counters.latestEval);
    this.add({ type: 'status', step: resumedAt ?? 0, status: 'running', pid: process.pid, stage: this.stageName, ...(resumedAt !== null ? { resumed: true } : {}) });
    // The algorithm's state (its own step) is loaded after this: until then status.json says the checkpoint's step.
    this.writeStatus('running', resumedAt !== null ? { step: resumedAt } : {});
  }

  /** One update's metrics: its episodes (events, windows) and the algorithm's values; returns what was logged. */
  update(episodes: readonly EpisodeRecord[], values: Record<string, number>, sps: number): Record<string, number> {
    const step = this.run.step();
    const metrics = { ...this.episodeMetrics(episodes, step), ...values, 'charts/sps': sps };
    this.add({ type: 'metrics', step, values: metrics, stage: this.stageName });
    Object.assign(this.latest, metrics);
    return metrics;
  }

  /** An evaluation's event and metrics (kept for conditions over eval.*). */
  evaluation(result: EvalOutcome): void {
    const step = this.run.step();
    const counters = this.run.counters()!;
    this.add({ type: 'eval', step, values: result.values, returns: [...result.returns], lengths: [...result.lengths], deterministic: result.deterministic, stage: this.stageName });
    Object.assign(this.latest, result.values);
    counters.latestEval = result.values;
  }

  /** The stage that ended logs no more: its metrics leave status.json (evaluations stay). */
  dropStageMetrics(): void {
    for (const key of Object.keys(this.latest)) if (!key.startsWith('eval/')) delete this.latest[key];
  }

  /** The train.* windows and the latest evaluation restart (a curriculum moved on: conditions judge the new value). */
  restartWindows(): void {
    const c = this.run.counters()!;
    c.recentReturns = [];
    c.recentLengths = [];
    c.recentSuccesses = [];
    c.latestEval = {};
    for (const key of ['train/mean_return', 'train/mean_length', 'train/success']) delete this.latest[key];
  }

  /** Rewrites status.json while running, when the last write is a while ago. */
  refreshStatus(): void {
    if (Date.now() - this.lastStatusWrite > STATUS_INTERVAL_MS) this.writeStatus('running');
  }

  /** The run ended `finished` or `stopped`: the reason into events only (the caller gets it in the result). */
  ended(status: 'finished' | 'stopped', reason: string, level: 'info' | 'warn'): void {
    const step = this.run.step();
    this.add({ type: 'log', step, level, message: reason, stage: this.stageName });
    this.add({ type: 'status', step, status, reason, stage: this.stageName });
    this.writeStatus(status, { reason, ended: true });
  }

  /**
   * Records the failure as well as the disk allows: status.json says `failed` even when
   * events.jsonl cannot grow (writeStatus() falls back to rewriting the file in place).
   */
  failed(message: string): void {
    const step = this.run.step();
    this.add({ type: 'log', step, level: 'error', message, stage: this.stageName });
    this.add({ type: 'status', step, status: 'failed', error: message, stage: this.stageName });
    try {
      this.dir.events.flush();
    } catch {
      // The status file below is what readers look at first.
    }
    this.writeStatus('failed', { error: message, ended: true });
  }

  writeStatus(status: RunStatus, extra: { reason?: string; error?: string; ended?: boolean; step?: number } = {}): void {
    const { plan, seed, device, stages, budget, curriculum } = this.run;
    const i = this.run.stageIndex();
    const counters = this.run.counters();
    const { stage } = stages[i]!;
    this.dir.writeStatus(
      statusFile(this.dir.dir, {
        status,
        experiment: plan.experiment,
        seed,
        started: this.started,
        step: this.run.step(),
        budget,
        device: { provider: device.provider, reason: device.reason },
        // The checkpoint's training time plus this process's: a resume does not count the stop.
        training_seconds: (counters?.elapsed ?? 0) + this.run.loopSeconds(),
        stage: { name: stage.name, index: i, count: stages.length, algorithm: stageAlgorithmTitle(stage.algorithm) },
        metrics: this.latest,
        ...(curriculum && counters?.curriculum !== undefined
          ? { curriculum: { param: curriculum.param, value: counters.curriculum, from: curriculum.from, to: curriculum.to } }
          : {}),
        ...extra,
      }),
    );
    this.lastStatusWrite = Date.now();
  }

  /** Per-update episode metrics, the episode events, and the last-20 windows. */
  private episodeMetrics(episodes: readonly EpisodeRecord[], step: number): Record<string, number> {
    const c = this.run.counters()!;
    if (episodes.length === 0 && c.recentReturns.length === 0) return {};
    const out: Record<string, number> = { 'charts/episodes': episodes.length };
    for (const [i, e] of episodes.entries()) {
      // Envs with very short episodes (Bandit: one step) would flood events.jsonl; the metrics
      // and the last-20 windows still count every episode.
      if (i < EPISODE_EVENTS_PER_UPDATE) {
        this.add({
          type: 'episode',
          step,
          env: e.env,
          return: e.return,
          length: e.length,
          stage: this.stageName,
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
      if (episodes[0]!.trainingReturn !== undefined) {
        out['rewards/total'] = mean(episodes.map((e) => e.trainingReturn!));
        for (const name of Object.keys(episodes[0]!.terms!)) out[`rewards/${name}`] = mean(episodes.map((e) => e.terms![name]!));
      }
    }
    return { ...out, ...windowMetrics(c) };
  }
}

/** train/mean_return, train/mean_length and train/success over the last-20 windows (those with episodes). */
export function windowMetrics(c: TrainerCounters): Record<string, number> {
  const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const out: Record<string, number> = {};
  if (c.recentReturns.length > 0) {
    out['train/mean_return'] = mean(c.recentReturns);
    out['train/mean_length'] = mean(c.recentLengths);
  }
  if (c.recentSuccesses.length > 0) out['train/success'] = mean(c.recentSuccesses);
  return out;
}
