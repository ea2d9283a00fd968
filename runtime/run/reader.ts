// Reading run directories, for everything that shows runs (the editor's runs view and
// dashboards, scripts). The writer is beside this file (run-dir.ts, events.ts, rollouts.ts), so
// the format has one home; docs/run-directory.md describes it. Readers never talk to a trainer:
// they read files that are appended to or replaced atomically, at any moment. A run folder may
// come from a stranger, so every file is read through run-files.ts: regular files inside the
// run folder, of bounded size; one that is not is left out, and the run says why (RunInfo.problem).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Plan } from '../../dsl/compile/plan.js';
import { isInputError } from '../../shared/input-error.js';
import { InputFileError } from '../../shared/input-files.js';
import type { RunEvent, RunStatus } from './events.js';
import type { StatusFile } from './run-dir.js';
import { processAlive } from './lock.js';
import { readRunFile, readRunJson, readRunText, RUN_FILE_LIMITS, runFileExists } from './run-files.js';

export type { RunEvent, RunStatus, StatusFile };
export { EventTail } from './event-tail.js';

/** A run's state as a reader sees it: `crashed` is `running` in status.json with no live trainer. */
export type RunState = RunStatus | 'crashed' | 'unknown';

export interface RunInfo {
  dir: string;
  experiment: string;
  runId: string;
  status: StatusFile | undefined;
  state: RunState;
  /** Why status.json was not read, when it is there but refused (a link out of the run folder, a FIFO, too large, not JSON). */
  problem?: string;
}

/** The JSON of a run's file; `missing` when it is not there (yet), else the reason it was refused. */
function readRunJsonOr<T>(dir: string, name: string, limit: { what: string; maxBytes: number }): { value: T } | { problem: string | undefined } {
  const file = path.join(dir, name);
  if (!runFileExists(file)) return { problem: undefined };
  try {
    return { value: readRunJson(dir, file, limit) as T };
  } catch (err) {
    if (isInputError(err)) return { problem: err.message };
    throw err;
  }
}

export function readRun(dir: string): RunInfo {
  const read = readRunJsonOr<StatusFile>(dir, 'status.json', RUN_FILE_LIMITS.status);
  const status = 'value' in read && read.value !== null && typeof read.value === 'object' ? read.value : undefined;
  let state: RunState = status?.status ?? 'unknown';
  if (state === 'running' && status && !processAlive(status.pid)) state = 'crashed';
  const info: RunInfo = { dir, experiment: path.basename(path.dirname(dir)), runId: path.basename(dir), status, state };
  if ('problem' in read && read.problem !== undefined) info.problem = read.problem;
  return info;
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

/** A folder with status.json or events.jsonl in it, of whatever kind (a link counts: the run then says why it cannot be read). */
function isRunDir(dir: string): boolean {
  return runFileExists(path.join(dir, 'status.json')) || runFileExists(path.join(dir, 'events.jsonl'));
}

/** The folders in `dir` (not links to folders: a run folder's parts are real folders). */
function safeReaddir(dir: string): string[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
  } catch {
    return [];
  }
}

/** The run's plan; undefined when plan.json is missing or refused (see readRun for why a file is refused). */
export function readPlan(dir: string): Plan | undefined {
  const read = readRunJsonOr<Plan>(dir, 'plan.json', RUN_FILE_LIMITS.plan);
  return 'value' in read ? read.value : undefined;
}

/** Line 1 of a numeric env's episode file. */
export interface RolloutHeader {
  type: 'header';
  env: string;
  obs_fields: string[];
  action: { kind: 'discrete'; n: number } | { kind: 'box'; shape: number[]; low: number[]; high: number[] } | { kind: 'multibinary'; n: number } | Record<string, unknown>;
  terms: string[];
  step: number;
  /** The env's params when the episode started (a curriculum changes them); absent in runs of earlier versions. */
  env_params?: Record<string, unknown>;
  /** `train`, `eval` or `final` (runtime/run/rollouts.ts); absent in runs of earlier versions, whose episodes are all `train`. */
  recorded?: 'train' | 'eval' | 'final' | 'rlx-eval';
  /** Eval and final episodes: whether the policy took its most likely action. */
  deterministic?: boolean;
  /** Envs that draw their state (render_mode "rgb_array"): the episode's frames (runtime/run/frames.ts). */
  frames?: { count: number; width: number; height: number; source_width: number; source_height: number; dropped: number };
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
  /** A picture of the state `obs` describes: a PNG, relative to rollouts/ (`episode-2048.frames/0.png`); envs that draw their state. */
  frame?: string;
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
  /** Dialogues: each message with its role (`system`, `user`: the env, `assistant`: the agent); runs before roles wrote `env` and `agent`, after the opening. */
  turns?: [role: string, text: string][];
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
  /** A pretrained model's: the prompt as it read it (the start through its chat template). */
  prompt?: string;
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
  /**
   * What the episode is, from its name: `train` (`episode-<step>.jsonl`), `eval`, `final`
   * (`episode-<step>-final.jsonl`) or `rlx-eval` (recorded by `rlx eval --record`).
   */
  recorded: 'train' | 'eval' | 'final' | 'rlx-eval';
}

const RECORDED_ORDER = { train: 0, eval: 1, final: 2, 'rlx-eval': 3 } as const;

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
    .map((name) => ({ name, match: /^episode-(\d+)(?:-(eval|final|rlx-eval))?\.jsonl$/.exec(name) }))
    .filter((e): e is { name: string; match: RegExpExecArray } => e.match !== null)
    .map((e): RolloutListing => ({ file: path.join(folder, e.name), step: Number(e.match[1]), recorded: (e.match[2] as RolloutListing['recorded'] | undefined) ?? 'train' }))
    .sort((a, b) => a.step - b.step || RECORDED_ORDER[a.recorded] - RECORDED_ORDER[b.recorded]);
}

/**
 * The PNG of a recorded step: `frame` as the step line names it (`episode-2048.frames/17.png`,
 * relative to rollouts/), of the episode in `episodeFile`. A name that is not one of that
 * episode's frames, or a file that is not a regular file inside `runDir` or is over its limit,
 * is an InputError.
 */
export function readFrame(runDir: string, episodeFile: string, frame: string): Buffer {
  const folder = path.basename(episodeFile).replace(/\.jsonl$/, '.frames');
  const match = /^([^/\\]+)\/(\d{1,9})\.png$/.exec(frame);
  if (!match || match[1] !== folder) throw new InputFileError(`${frame} is not a frame of the recorded episode ${episodeFile}`);
  return readRunFile(runDir, path.join(path.dirname(episodeFile), folder, `${match[2]}.png`), RUN_FILE_LIMITS.frame);
}

/**
 * One recorded episode or text batch; lines that do not parse are skipped and counted. `runDir`
 * is the run folder the file must stay inside (the one above rollouts/ by default); a file that
 * is not a regular file inside it, or is over its limit, is an InputError.
 */
export function readRollout(file: string, runDir: string = path.dirname(path.dirname(file))): RolloutContents {
  let header: RolloutHeader | TextRolloutHeader | undefined;
  const steps: RolloutStep[] = [];
  const groups: TextGroup[] = [];
  let skipped = 0;
  for (const line of readRunText(runDir, file, RUN_FILE_LIMITS.rollout).split('\n')) {
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
