// Reading run directories, for everything that shows runs (the editor's runs view and
// dashboards, scripts). The writer is beside this file (run-dir.ts, events.ts, rollouts.ts), so
// the format has one home; docs/run-directory.md describes it. Readers never talk to a trainer:
// they read files that are appended to or replaced atomically, at any moment.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Plan } from '../../dsl/compile/plan.js';
import type { RunEvent, RunStatus } from './events.js';
import type { StatusFile } from './run-dir.js';

export type { RunEvent, RunStatus, StatusFile };

/** A run's state as a reader sees it: `crashed` is `running` in status.json with no live trainer. */
export type RunState = RunStatus | 'crashed' | 'unknown';

export interface RunInfo {
  dir: string;
  experiment: string;
  runId: string;
  status: StatusFile | undefined;
  state: RunState;
}

function readJsonOr<T>(file: string): T | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/** Whether a process is alive (signal 0 checks without sending anything). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function readRun(dir: string): RunInfo {
  const status = readJsonOr<StatusFile>(path.join(dir, 'status.json'));
  let state: RunState = status?.status ?? 'unknown';
  if (state === 'running' && status && !processAlive(status.pid)) state = 'crashed';
  return { dir, experiment: path.basename(path.dirname(dir)), runId: path.basename(dir), status, state };
}

/** Every run under a runs folder (`runs/<experiment>/<run-id>/`), newest first within each experiment. */
export function listRuns(runsRoot: string): RunInfo[] {
  const runs: RunInfo[] = [];
  for (const experiment of safeReaddir(runsRoot).sort()) {
    const expDir = path.join(runsRoot, experiment);
    const ids = safeReaddir(expDir).filter((id) => isRunDir(path.join(expDir, id))).sort().reverse();
    for (const id of ids) runs.push(readRun(path.join(expDir, id)));
  }
  return runs;
}

function isRunDir(dir: string): boolean {
  return fs.existsSync(path.join(dir, 'status.json')) || fs.existsSync(path.join(dir, 'events.jsonl'));
}

function safeReaddir(dir: string): string[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
  } catch {
    return [];
  }
}

export function readPlan(dir: string): Plan | undefined {
  return readJsonOr<Plan>(path.join(dir, 'plan.json'));
}

/**
 * Follows events.jsonl as it grows: each poll() returns the events appended since the last
 * one. A line still being written (no newline yet) waits for the next poll; a file that
 * shrank (replaced) is read again from the start.
 */
export class EventTail {
  private offset = 0;
  private pending = '';
  /** Lines that were complete but not JSON (a trainer killed mid-write long ago): skipped. */
  skipped = 0;

  constructor(readonly file: string) {}

  poll(): RunEvent[] {
    let size: number;
    try {
      size = fs.statSync(this.file).size;
    } catch {
      return [];
    }
    if (size < this.offset) {
      this.offset = 0;
      this.pending = '';
    }
    if (size === this.offset) return [];
    const fd = fs.openSync(this.file, 'r');
    try {
      const buffer = Buffer.alloc(size - this.offset);
      fs.readSync(fd, buffer, 0, buffer.length, this.offset);
      this.offset = size;
      const text = this.pending + buffer.toString('utf8');
      const lines = text.split('\n');
      this.pending = lines.pop() ?? '';
      const events: RunEvent[] = [];
      for (const line of lines) {
        if (line.trim() === '') continue;
        try {
          events.push(JSON.parse(line) as RunEvent);
        } catch {
          this.skipped++;
        }
      }
      return events;
    } finally {
      fs.closeSync(fd);
    }
  }
}

/** Line 1 of a numeric env's episode file. */
export interface RolloutHeader {
  type: 'header';
  env: string;
  obs_fields: string[];
  action: { kind: 'discrete'; n: number } | { kind: 'box'; shape: number[]; low: number[]; high: number[] } | Record<string, unknown>;
  terms: string[];
  step: number;
  /** The env's params when the episode started (a curriculum changes them); absent in runs of earlier versions. */
  env_params?: Record<string, unknown>;
  /** `train`, `eval` or `final` (runtime/run/rollouts.ts); absent in runs of earlier versions, whose episodes are all `train`. */
  recorded?: 'train' | 'eval' | 'final';
  /** Eval and final episodes: whether the policy took its most likely action. */
  deterministic?: boolean;
}

export interface RolloutStep {
  type: 'step';
  t: number;
  obs: number[];
  action: number | number[];
  reward: number;
  env_reward: number;
  terms?: Record<string, number>;
  terminated: boolean;
  truncated: boolean;
  /** Optional extras a trainer may log: action probabilities, value estimate. */
  probs?: number[];
  value?: number;
}

/** Line 1 of a text run's batch file (`kind: 'text'`, runtime/run/text-rollouts.ts). */
export interface TextRolloutHeader {
  type: 'header';
  kind: 'text';
  env: string;
  /** The task as written (`addition(digits: 1)`), or the dialogue env's settings. */
  task: string;
  /** Reward term names; none for dialogues (the env's own reward). */
  terms: string[];
  algorithm: string;
  stage: string;
  group_size: number;
  /** The step the batch was sampled at. */
  step: number;
  /**
   * `final`: the final policy's greedy answers on the held-out starts (one sample per group, no
   * advantage); absent for a learner's batch.
   */
  recorded?: 'final';
  deterministic?: boolean;
}

/** One sample of a group: a completion (`text`) or a dialogue (`turns` after the opening). */
export interface TextSample {
  text?: string;
  turns?: [speaker: 'agent' | 'env', text: string][];
  reward: number;
  terms?: Record<string, number>;
  /** The advantage the learner trained the sample with; absent in the final policy's answers. */
  advantage?: number;
  /** Single-turn: whether the completion is right. */
  correct?: boolean;
  /** Dialogues: whether the dialogue reached its goal. */
  success?: boolean;
}

/** The samples drawn from one start: a prompt (with its target), or a dialogue's opening. */
export interface TextGroup {
  type: 'group';
  start: string;
  target?: string;
  samples: TextSample[];
}

/**
 * A rollouts/ file as read: a numeric env's episode (its steps) or a text run's batch (its
 * groups), told apart by the header's `kind`. A file without a header reads as an episode.
 */
export type RolloutContents =
  | { kind: 'episode'; header: RolloutHeader | undefined; steps: RolloutStep[]; skipped: number }
  | { kind: 'text'; header: TextRolloutHeader; groups: TextGroup[]; skipped: number };

export interface RolloutListing {
  file: string;
  /** The training step the episode started at (a text batch: the step it was sampled at). */
  step: number;
  /** What the episode is, from its name: `train` (`episode-<step>.jsonl`), `eval` or `final` (`episode-<step>-final.jsonl`). */
  recorded: 'train' | 'eval' | 'final';
}

const RECORDED_ORDER = { train: 0, eval: 1, final: 2 } as const;

/** The recorded episodes of a run, oldest first; empty when the folder is missing. */
export function listRollouts(dir: string): RolloutListing[] {
  const folder = path.join(dir, 'rollouts');
  let names: string[];
  try {
    names = fs.readdirSync(folder);
  } catch {
    return [];
  }
  return names
    .map((name) => ({ name, match: /^episode-(\d+)(?:-(eval|final))?\.jsonl$/.exec(name) }))
    .filter((e): e is { name: string; match: RegExpExecArray } => e.match !== null)
    .map((e): RolloutListing => ({ file: path.join(folder, e.name), step: Number(e.match[1]), recorded: (e.match[2] as 'eval' | 'final' | undefined) ?? 'train' }))
    .sort((a, b) => a.step - b.step || RECORDED_ORDER[a.recorded] - RECORDED_ORDER[b.recorded]);
}

/** One recorded episode or text batch; lines that do not parse are skipped and counted. */
export function readRollout(file: string): RolloutContents {
  let header: RolloutHeader | TextRolloutHeader | undefined;
  const steps: RolloutStep[] = [];
  const groups: TextGroup[] = [];
  let skipped = 0;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      const value = JSON.parse(line) as RolloutHeader | TextRolloutHeader | RolloutStep | TextGroup;
      if (value.type === 'header') header = value;
      else if (value.type === 'step') steps.push(value);
      else if (value.type === 'group' && Array.isArray(value.samples)) groups.push(value);
    } catch {
      skipped++;
    }
  }
  if (header !== undefined && 'kind' in header && header.kind === 'text') return { kind: 'text', header, groups, skipped };
  return { kind: 'episode', header: header as RolloutHeader | undefined, steps, skipped };
}
