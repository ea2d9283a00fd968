// rollouts/: recorded episodes, one JSONL file each, for the editor's rollout inspector:
// sampled training episodes (the trainer arms the recorder every so many updates; it then
// records env copy 0's next whole episode, from its first step), and episodes of the policy
// as evaluated (at each evaluation, and at the end of the run: `recorded` says which). Each is
// written in one atomic write when the episode ends. Line 1 is a header, then one line per step:
//   {"type":"header","env":"CartPole","obs_fields":[...],"action":{...},"terms":[...],"step":N,"recorded":"train","env_params":{...}}
//   {"type":"step","t":0,"obs":[...],"action":1,"reward":1,"env_reward":1,"terms":{...},"terminated":false,"truncated":false}
// An env that draws its state (a Gymnasium env made with render_mode "rgb_array") adds a
// picture of each step's state, the one `obs` describes (frames.ts: a PNG in a folder beside the
// file, bounded in size and number): `"frame":"episode-2048.frames/0.png"` in the step line
// (relative to rollouts/), and `"frames":{"count","width","height",...}` in the header.
import * as path from 'node:path';
import type { TransitionSink } from '../envs/records.js';
import { rendersFrames, type RgbFrame, type Space } from '../envs/types.js';
import type { VecEnv } from '../envs/vector.js';
import { writeFileAtomic } from '../atomic-files.js';
import { EpisodeFrames, framesFolderOf } from './frames.js';

type Phase = 'idle' | 'waiting' | 'recording';

/**
 * What a recorded episode is: a training episode as sampled (`train`), the policy as evaluated
 * at an evaluation (`eval`), the policy the run leaves (`final`, at its end), or a policy of the
 * run as `rlx eval --record` ran it (`rlx-eval`).
 */
export type Recorded = 'train' | 'eval' | 'final' | 'rlx-eval';

export interface RecordedEpisode {
  readonly file: string;
  readonly return: number;
  readonly length: number;
  readonly recorded: Recorded;
}

/** `episode-<step>.jsonl` for a training episode, `episode-<step>-eval.jsonl`, `-final` and `-rlx-eval` for the policy's. */
export function rolloutFileName(step: number, recorded: Recorded): string {
  return recorded === 'train' ? `episode-${step}.jsonl` : `episode-${step}-${recorded}.jsonl`;
}

/** Copy 0's picture for a recorder, where the env draws one (read when drawn: a curriculum replaces the copies). */
export function frameOfCopy0(vec: VecEnv): { frame?: () => RgbFrame | null } {
  if (!rendersFrames(vec.envs[0]!)) return {};
  return {
    frame: () => {
      const env = vec.envs[0]!;
      return rendersFrames(env) ? env.renderFrame() : null;
    },
  };
}

export class RolloutRecorder implements TransitionSink {
  private phase: Phase = 'idle';
  private lines: string[] = [];
  private startStep = 0;
  private episodeReturn = 0;
  private envParams: Readonly<Record<string, unknown>> | undefined;
  private recorded: Recorded = 'train';
  /** Whether the recorded policy took its most likely action (eval and final episodes). */
  private deterministic: boolean | undefined;
  private readonly discrete: boolean;
  /** The recorded episode's frames, when the env draws them. */
  private frames: EpisodeFrames | null = null;
  /** The frame of the step about to be taken (beforeStep), for its step line. */
  private pendingFrame: string | undefined;

  constructor(
    private readonly dir: string,
    /**
     * `envParams`: the env's params in effect when a recorded episode starts (a curriculum
     * changes them); `frame`: a picture of the recorded env copy's state, for envs that draw one.
     */
    private readonly header: {
      env: string;
      obsFields: readonly string[];
      actionSpace: Space;
      terms: readonly string[];
      envParams?: () => Readonly<Record<string, unknown>>;
      frame?: () => RgbFrame | null;
    },
    /** Called with each finished recording. */
    private readonly onRecorded: (episode: RecordedEpisode) => void,
  ) {
    this.discrete = header.actionSpace.kind === 'discrete';
  }

  get active(): boolean {
    return this.phase !== 'idle';
  }

  /**
   * Records copy 0's next episode; `atEpisodeStart` when copy 0 is just starting one (the
   * beginning of a run), else the recording waits for the current episode to end.
   */
  arm(step: number, atEpisodeStart: boolean, recorded: Recorded = 'train', deterministic?: boolean): void {
    if (this.phase !== 'idle') return;
    this.recorded = recorded;
    this.deterministic = deterministic;
    this.phase = atEpisodeStart ? 'recording' : 'waiting';
    if (atEpisodeStart) this.envParams = this.header.envParams?.();
    this.startStep = step;
    this.lines = [];
    this.episodeReturn = 0;
    this.frames = this.header.frame ? new EpisodeFrames() : null;
    this.pendingFrame = undefined;
  }

  /** Before each step while active: the picture of the state the step starts from, while recording. */
  beforeStep(): void {
    const { frames } = this;
    if (this.phase !== 'recording' || !frames) return;
    if (!frames.wanted) return frames.skip();
    const frame = this.header.frame!();
    this.pendingFrame = frame ? `${path.basename(framesFolderOf(this.fileName()))}/${frames.add(this.lines.length, frame)}` : undefined;
  }

  transition(s: Parameters<TransitionSink['transition']>[0]): void {
    const done = s.terminated || s.truncated;
    if (this.phase === 'waiting') {
      if (done) {
        this.phase = 'recording';
        // The env copy has been reset (and handed over, under a curriculum) for the episode to record.
        this.envParams = this.header.envParams?.();
      }
      return;
    }
    const terms: Record<string, number> | undefined = s.terms ? {} : undefined;
    if (terms && s.terms) this.header.terms.forEach((name, k) => (terms[name] = s.terms![k]));
    this.episodeReturn += s.envReward;
    this.lines.push(
      JSON.stringify({
        type: 'step',
        t: this.lines.length,
        obs: Array.from(s.obs),
        action: this.discrete ? s.action[0] : Array.from(s.action),
        reward: s.reward,
        env_reward: s.envReward,
        ...(terms ? { terms } : {}),
        terminated: s.terminated,
        truncated: s.truncated,
        ...(this.pendingFrame !== undefined ? { frame: this.pendingFrame } : {}),
      }),
    );
    this.pendingFrame = undefined;
    if (done) this.finish();
  }

  /** Drops a recording in progress (an episode that never ended). */
  cancel(): void {
    this.phase = 'idle';
    this.lines = [];
    this.frames = null;
  }

  private fileName(): string {
    return rolloutFileName(this.startStep, this.recorded);
  }

  private finish(): void {
    const file = path.join(this.dir, this.fileName());
    const frames = this.frames?.summary;
    // The frames first: an episode file never names frames that are not there.
    if (frames) this.frames!.write(framesFolderOf(file));
    const header = JSON.stringify({
      type: 'header',
      env: this.header.env,
      obs_fields: this.header.obsFields,
      action: this.header.actionSpace,
      terms: this.header.terms,
      step: this.startStep,
      recorded: this.recorded,
      ...(this.deterministic !== undefined ? { deterministic: this.deterministic } : {}),
      ...(this.envParams ? { env_params: this.envParams } : {}),
      ...(frames ? { frames } : {}),
    });
    writeFileAtomic(file, [header, ...this.lines].join('\n') + '\n');
    this.onRecorded({ file, return: this.episodeReturn, length: this.lines.length, recorded: this.recorded });
    this.phase = 'idle';
    this.lines = [];
    this.frames = null;
  }
}
