// rollouts/: recorded episodes, one JSONL file each, for the editor's rollout inspector:
// sampled training episodes (the trainer arms the recorder every so many updates; it then
// records env copy 0's next whole episode, from its first step), and episodes of the policy
// as evaluated (at each evaluation, and at the end of the run: `recorded` says which). Each is
// written in one atomic write when the episode ends. Line 1 is a header, then one line per step:
//   {"type":"header","env":"CartPole","obs_fields":[...],"action":{...},"terms":[...],"step":N,"recorded":"train","env_params":{...}}
//   {"type":"step","t":0,"obs":[...],"action":1,"reward":1,"env_reward":1,"terms":{...},"terminated":false,"truncated":false}
import * as path from 'node:path';
import type { TransitionSink } from '../algorithms/stepper.js';
import type { Space } from '../envs/types.js';
import { writeFileAtomic } from '../atomic-files.js';

type Phase = 'idle' | 'waiting' | 'recording';

/**
 * What a recorded episode is: a training episode as sampled (`train`), the policy as evaluated
 * at an evaluation (`eval`), or the policy the run leaves (`final`, at its end).
 */
export type Recorded = 'train' | 'eval' | 'final';

export interface RecordedEpisode {
  readonly file: string;
  readonly return: number;
  readonly length: number;
  readonly recorded: Recorded;
}

/** `episode-<step>.jsonl` for a training episode, `episode-<step>-eval.jsonl` and `-final` for the policy's. */
export function rolloutFileName(step: number, recorded: Recorded): string {
  return recorded === 'train' ? `episode-${step}.jsonl` : `episode-${step}-${recorded}.jsonl`;
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

  constructor(
    private readonly dir: string,
    /** `envParams`: the env's params in effect when a recorded episode starts (a curriculum changes them). */
    private readonly header: { env: string; obsFields: readonly string[]; actionSpace: Space; terms: readonly string[]; envParams?: () => Readonly<Record<string, unknown>> },
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
      }),
    );
    if (done) this.finish();
  }

  /** Drops a recording in progress (an episode that never ended). */
  cancel(): void {
    this.phase = 'idle';
    this.lines = [];
  }

  private finish(): void {
    const file = path.join(this.dir, rolloutFileName(this.startStep, this.recorded));
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
    });
    writeFileAtomic(file, [header, ...this.lines].join('\n') + '\n');
    this.onRecorded({ file, return: this.episodeReturn, length: this.lines.length, recorded: this.recorded });
    this.phase = 'idle';
    this.lines = [];
  }
}
