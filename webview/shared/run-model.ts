// One run as the pages know it: its snapshot (status.json, plan) and its events.jsonl folded
// into columns. Events arrive in pieces (the host posts what was appended), possibly with a
// resumed run repeating steps; the model keeps the later events for a step, as
// docs/run-directory.md asks of readers.
import type { RunEvent, RunSnapshot, RunState, StatusFile } from '../protocol.js';
import { Column } from './columns.js';
import type { XMode } from './x-axis.js';

/** Rows sharing one x: metrics (one row per update) or episodes (one row per episode). */
export class Table {
  readonly steps = new Column();
  readonly times = new Column();
  private readonly columns = new Map<string, Column>();
  /** Bumped when rows are removed: charts that consumed them must start over. */
  revision = 0;
  /**
   * The columns of the previous row's keys, in its key order: a trainer logs the same keys in
   * the same order every update, so most rows find their columns here without a map lookup.
   */
  private lastKeys: string[] = [];
  private lastColumns: Column[] = [];
  /** Rows expected (reserve()): new columns start with room for them. */
  private capacity = 256;

  get length(): number {
    return this.steps.length;
  }

  /**
   * Makes room for `rows` rows in every column to come: folding a long history then never
   * regrows (and re-copies) a column, which with a large heap is mostly garbage collection.
   */
  reserve(rows: number): void {
    this.capacity = Math.max(this.capacity, rows);
    this.steps.reserve(rows);
    this.times.reserve(rows);
    for (const column of this.columns.values()) column.reserve(rows);
  }

  keys(): string[] {
    return [...this.columns.keys()];
  }

  has(key: string): boolean {
    return this.columns.has(key);
  }

  /** The column of `key`, NaN where a row has no value; valid up to `length`. */
  column(key: string): Column {
    let column = this.columns.get(key);
    if (!column) {
      column = new Column();
      this.columns.set(key, column);
    }
    column.padTo(this.length);
    return column;
  }

  add(step: number, time: number, values: Record<string, number | null | undefined>): void {
    const row = this.length;
    let j = 0;
    for (const key in values) {
      const value = values[key];
      let column: Column | undefined;
      if (this.lastKeys[j] === key) column = this.lastColumns[j];
      else {
        column = this.columns.get(key);
        if (!column) {
          column = new Column(this.capacity);
          this.columns.set(key, column);
        }
        this.lastKeys[j] = key;
        this.lastColumns[j] = column;
      }
      j++;
      // Rows where this key was absent hold NaN ("no value"), as do nulls (NaN in the file).
      if (column.length < row) column.padTo(row);
      column.push(typeof value === 'number' ? value : NaN);
    }
    this.steps.push(step);
    this.times.push(time);
  }

  /** Appends rows given as columns (a `columns` message); keys absent from it are NaN there. */
  addColumns(steps: ArrayLike<number>, times: ArrayLike<number>, values: Record<string, ArrayLike<number>>): void {
    const row = this.length;
    for (const key of Object.keys(values)) {
      let column = this.columns.get(key);
      if (!column) {
        column = new Column(Math.max(256, row + steps.length));
        this.columns.set(key, column);
      }
      if (column.length < row) column.padTo(row);
      column.append(values[key]);
    }
    this.steps.append(steps);
    this.times.append(times);
  }

  /** The key's values over [0, length) as a new array (columnar.ts, tests). */
  values(key: string): Float64Array {
    return this.column(key).values.slice(0, this.length);
  }

  /** Keeps the first `rows` rows (a `columns` patch of the host's decimated history). */
  truncate(rows: number): void {
    if (rows >= this.length) return;
    this.steps.truncate(rows);
    this.times.truncate(rows);
    for (const column of this.columns.values()) column.truncate(rows);
    this.revision++;
  }

  /** Keeps the rows up to `step` (inclusive). */
  truncateAfter(step: number): void {
    let keep = this.length;
    while (keep > 0 && this.steps.get(keep - 1) > step) keep--;
    if (keep === this.length) return;
    this.steps.truncate(keep);
    this.times.truncate(keep);
    for (const column of this.columns.values()) column.truncate(keep);
    this.revision++;
  }

  /** The last finite value of `key`. */
  latest(key: string): number | undefined {
    const column = this.columns.get(key);
    if (!column) return undefined;
    for (let i = Math.min(column.length, this.length) - 1; i >= 0; i--) {
      const v = column.get(i);
      if (Number.isFinite(v)) return v;
    }
    return undefined;
  }
}

export interface EvalPoint {
  step: number;
  time: number;
  values: Record<string, number>;
  returns: number[];
  /** Whether it took the most likely action (absent from events of older trainers). */
  deterministic?: boolean;
}

export interface LogLine {
  step: number;
  time: number;
  level: 'info' | 'warn' | 'error';
  message: string;
}

export interface RolloutNote {
  file: string;
  step: number;
  return: number;
  length: number;
  /** The stage the episode or text batch was recorded in (absent in runs of earlier versions). */
  stage?: string;
  /** `train`, `eval`, `final` or `rlx-eval` (absent in runs of earlier versions: training episodes). */
  recorded?: 'train' | 'eval' | 'final' | 'rlx-eval';
}

/** A curriculum's advance (a `curriculum` event): the env parameter's new value from this step on. */
export interface CurriculumStep {
  step: number;
  time: number;
  param: string;
  value: number;
  previous: number;
}

/** Where a stage of a staged run began (its `hparams` event). */
export interface StageStart {
  step: number;
  time: number;
  name: string;
  algorithm: string;
}

/** The logs a page keeps: the latest. */
export const LOGS_KEPT = 200;

export class RunModel {
  readonly metrics = new Table();
  /** Per finished training episode: `return`, `length`, `training_return`. */
  readonly episodes = new Table();
  evals: EvalPoint[] = [];
  /** The evaluations' values as a table (one row per evaluation), for charts of them. */
  readonly evalTable = new Table();
  /** The curriculum's advances, oldest first (the charts draw a line at each). */
  curriculum: CurriculumStep[] = [];
  /** Each stage's start, first stage first (one entry for a run without stages). */
  stages: StageStart[] = [];
  logs: LogLine[] = [];
  rollouts: RolloutNote[] = [];
  hparams: Record<string, unknown> | undefined;
  algorithm: string | undefined;
  /** The last status event (the file's own account; status.json may lag or lead it). */
  lastStatusEvent: Extract<RunEvent, { type: 'status' }> | undefined;
  /** Time of the first event: wall-time x axes count from here. */
  startTime: number | undefined;
  lastStep = 0;
  lastTime: number | undefined;
  /** Bumped on every change, so views know whether to refresh. */
  version = 0;

  constructor(public snapshot: RunSnapshot) {}

  get id(): string {
    return this.snapshot.id;
  }

  get state(): RunState {
    return this.snapshot.state;
  }

  get status(): StatusFile | undefined {
    return this.snapshot.status;
  }

  setStatus(state: RunState, status: StatusFile | undefined): void {
    this.snapshot = { ...this.snapshot, state, status: status ?? this.snapshot.status };
    this.version++;
  }

  addEvents(events: readonly RunEvent[]): void {
    for (const event of events) this.add(event);
    if (events.length > 0) this.version++;
  }

  private add(event: RunEvent): void {
    // Anything can arrive from a file a crash cut short or a future trainer extended: skip
    // what does not have the fields this page reads, rather than fail the whole batch.
    if (typeof event !== 'object' || event === null || typeof event.step !== 'number') return;
    if (this.startTime === undefined && typeof event.time === 'number') this.startTime = event.time;
    if (event.step > this.lastStep) this.lastStep = event.step;
    if (typeof event.time === 'number') this.lastTime = event.time;
    switch (event.type) {
      case 'metrics': {
        // A step at or before the last one: the run was resumed from an earlier checkpoint
        // and repeats those updates; the later ones count.
        if (this.metrics.length > 0 && event.step <= this.metrics.steps.get(this.metrics.length - 1)) this.metrics.truncateAfter(event.step - 1);
        if (event.values && typeof event.values === 'object') this.metrics.add(event.step, event.time, event.values);
        break;
      }
      case 'episode':
        this.episodes.add(event.step, event.time, { return: event.return, length: event.length, training_return: event.training_return });
        break;
      case 'eval':
        this.evals = this.evals.filter((e) => e.step < event.step);
        this.evalTable.truncateAfter(event.step - 1);
        this.evalTable.add(event.step, event.time, event.values ?? {});
        this.evals.push({ step: event.step, time: event.time, values: event.values ?? {}, returns: event.returns ?? [], deterministic: typeof event.deterministic === 'boolean' ? event.deterministic : undefined });
        break;
      case 'curriculum':
        if (typeof event.value !== 'number') break;
        this.curriculum = this.curriculum.filter((c) => c.step < event.step);
        this.curriculum.push({ step: event.step, time: event.time, param: String(event.param), value: event.value, previous: event.previous });
        break;
      case 'status':
        this.lastStatusEvent = event;
        if (event.resumed) {
          // Everything after the checkpoint the run resumed from is about to be written again.
          this.metrics.truncateAfter(event.step);
          this.episodes.truncateAfter(event.step);
          this.evals = this.evals.filter((e) => e.step <= event.step);
          this.evalTable.truncateAfter(event.step);
          this.curriculum = this.curriculum.filter((c) => c.step <= event.step);
          this.stages = this.stages.filter((c) => c.step <= event.step);
          this.lastStep = event.step;
        }
        break;
      case 'hparams':
        this.hparams = event.values;
        this.algorithm = event.algorithm;
        this.stages = this.stages.filter((s) => s.step < event.step);
        this.stages.push({ step: event.step, time: event.time, name: typeof event.stage === 'string' ? event.stage : 'main', algorithm: String(event.algorithm) });
        break;
      case 'log':
        this.logs.push({ step: event.step, time: event.time, level: event.level, message: event.message });
        if (this.logs.length > LOGS_KEPT) this.logs.splice(0, this.logs.length - LOGS_KEPT);
        break;
      case 'rollout':
        this.rollouts.push({
          file: event.file,
          step: event.step,
          return: event.return,
          length: event.length,
          ...(event.stage !== undefined ? { stage: event.stage } : {}),
          ...(event.recorded !== undefined ? { recorded: event.recorded } : {}),
        });
        break;
      default:
        break;
    }
  }

  /**
   * Rows given as columns (see HostMessage 'columns'): appended as the events would be, or with
   * `keep`, after the table's first `keep` rows (a patch of the host's decimated history).
   */
  addColumns(table: 'metrics' | 'episodes', steps: Float64Array, times: Float64Array, columns: Record<string, Float64Array>, keep?: number): void {
    const target = table === 'metrics' ? this.metrics : this.episodes;
    if (keep !== undefined && keep < target.length) {
      target.truncate(keep);
      this.version++;
    }
    if (steps.length === 0) return;
    // The same rule as for metrics events: a repeated step replaces what followed it.
    if (keep === undefined && table === 'metrics' && target.length > 0 && steps[0] <= target.steps.get(target.length - 1)) target.truncateAfter(steps[0] - 1);
    target.addColumns(steps, times, columns);
    // The host posts the other events before the columns: the first row may be older than them.
    if (this.startTime === undefined || times[0] < this.startTime) this.startTime = times[0];
    this.lastStep = Math.max(this.lastStep, steps[steps.length - 1]);
    this.lastTime = Math.max(this.lastTime ?? -Infinity, times[times.length - 1]);
    this.version++;
  }

  /** The latest value of a metric: the events' own, else status.json's. */
  latestMetric(key: string): number | undefined {
    return this.metrics.latest(key) ?? this.status?.metrics?.[key];
  }

  /**
   * Training episodes finished so far (the sum of `charts/episodes`; episode events are capped
   * per update, so they undercount), undefined before the metric appears. Summed incrementally:
   * the header asks every second.
   */
  trainingEpisodes(): number | undefined {
    // A decimated history holds some of the updates only: the host's sum counts them all.
    const fromHost = this.metricSums?.['charts/episodes'];
    if (fromHost !== undefined) return fromHost;
    if (!this.metrics.has('charts/episodes')) return undefined;
    const t = this.metrics;
    if (this.episodeSum.revision !== t.revision || this.episodeSum.rows > t.length) this.episodeSum = { rows: 0, revision: t.revision, sum: 0 };
    const column = t.column('charts/episodes');
    let { sum } = this.episodeSum;
    for (let i = this.episodeSum.rows; i < t.length; i++) {
      const v = column.get(i);
      if (Number.isFinite(v)) sum += v;
    }
    this.episodeSum = { rows: t.length, revision: t.revision, sum };
    return sum;
  }

  private episodeSum = { rows: 0, revision: 0, sum: 0 };

  /** Each metric's sum over every update, as the host counted it (HostMessage 'columns' `sums`). */
  metricSums: Record<string, number> | undefined;

  /** Steps so far: whichever of the events and status.json is further along. */
  get step(): number {
    return Math.max(this.lastStep, this.status?.step ?? 0);
  }

  get budget(): number | undefined {
    const fromHparams = this.hparams?.budget;
    return this.status?.budget ?? (typeof fromHparams === 'number' ? fromHparams : undefined);
  }

  get seed(): number | undefined {
    const fromHparams = this.hparams?.seed;
    return this.status?.seed ?? (typeof fromHparams === 'number' ? fromHparams : undefined);
  }

  /** The device training runs on: the resolved one (hparams), not the plan's `auto`. */
  get device(): string | undefined {
    const resolved = this.hparams?.device;
    if (typeof resolved === 'string') return resolved;
    const planned = (this.snapshot.plan as { device?: unknown } | undefined)?.device;
    return typeof planned === 'string' ? planned : undefined;
  }

  /**
   * The step at which the run's stop condition held (its last status event says so), or
   * undefined: the evaluation at that step is the one that stopped the run.
   */
  get stopStep(): number | undefined {
    const last = this.lastStatusEvent;
    return last?.status === 'finished' && typeof last.reason === 'string' && last.reason.startsWith('stop condition') ? last.step : undefined;
  }

  /** The error of a failed run: status.json's, else the failed status event's, else the last error log. */
  get error(): string | undefined {
    return this.status?.error ?? this.lastStatusEvent?.error ?? [...this.logs].reverse().find((l) => l.level === 'error')?.message;
  }
}

/**
 * Where the charts draw the start of each stage after the first (`GRPO main`): the metrics of
 * a staged run's learners begin and end there.
 */
export function stageLines(run: RunModel, mode: XMode): { xs: number[]; labels: string[] } {
  const later = run.stages.slice(1);
  return {
    xs: later.map((s) => (mode === 'step' ? s.step : s.time - (run.startTime ?? 0))),
    labels: later.map((s) => `${s.algorithm} ${s.name}`),
  };
}

/**
 * Where the charts draw a run's curriculum advances: x by the charts' mode (steps, or seconds
 * since the run's first event) and a label with the new value (`size 7` for `env.size`).
 */
export function curriculumLines(run: RunModel, mode: XMode): { xs: number[]; labels: string[] } {
  return {
    xs: run.curriculum.map((c) => (mode === 'step' ? c.step : c.time - (run.startTime ?? 0))),
    labels: run.curriculum.map((c) => `${c.param.replace(/^env\./, '')} ${c.value}`),
  };
}
