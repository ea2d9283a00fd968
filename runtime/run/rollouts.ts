// rollouts/: sampled training episodes, one JSONL file each, for the editor's rollout
// inspector. The trainer arms the recorder every so many updates; it then records env copy
// 0's next whole episode (from its first step) and writes it in one atomic write when the
// episode ends. Line 1 is a header, then one line per step:
//   {"type":"header","env":"CartPole","obs_fields":[...],"action":{...},"terms":[...],"step":N,"env_params":{...}}
//   {"type":"step","t":0,"obs":[...],"action":1,"reward":1,"env_reward":1,"terms":{...},"terminated":false,"truncated":false}
import * as path from 'node:path';
import type { TransitionSink } from '../algorithms/stepper.js';
import type { Space } from '../envs/types.js';
import { writeFileAtomic } from '../atomic-files.js';

type Phase = 'idle' | 'waiting' | 'recording';

export interface RecordedEpisode {
  readonly file: string;
  readonly return: number;
  readonly length: number;
}

export class RolloutRecorder implements TransitionSink {
  private phase: Phase = 'idle';
  private lines: string[] = [];
  private startStep = 0;
  private episodeReturn = 0;
  private envParams: Readonly<Record<string, unknown>> | undefined;
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
  arm(step: number, atEpisodeStart: boolean): void {
    if (this.phase !== 'idle') return;
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

  private finish(): void {
    const file = path.join(this.dir, `episode-${this.startStep}.jsonl`);
    const header = JSON.stringify({
      type: 'header',
      env: this.header.env,
      obs_fields: this.header.obsFields,
      action: this.header.actionSpace,
      terms: this.header.terms,
      step: this.startStep,
      ...(this.envParams ? { env_params: this.envParams } : {}),
    });
    writeFileAtomic(file, [header, ...this.lines].join('\n') + '\n');
    this.onRecorded({ file, return: this.episodeReturn, length: this.lines.length });
    this.phase = 'idle';
    this.lines = [];
  }
}
