// What every text learner that samples its own batches does alike (the built-in policy-gradient
// learner, policy-gradient.ts, and learner modules, ../module/text-learner.ts): counting steps
// and updates against the budget, handing over the episodes of dialogues, its checkpoint state
// (declared by the learner: sampled-state.ts) and releasing its sessions.
import type { LanguageModel } from '../../policies/index.js';
import type { Dim } from '../../tensor/index.js';
import type { LogProbRun, TokenGradientRun } from './token-step.js';
import type { ReferencePolicy } from './log-prob-sessions.js';
import type { Rollouts, TextEnv } from '../../text/text-env.js';
import type { LearnerState } from '../learner-state.js';
import type { EpisodeRecord } from '../stepper.js';

export abstract class SampledTextLearner<S> {
  /** Env steps sampled so far (completions, or agent turns of dialogues). */
  globalStep = 0;
  updates = 0;
  private episodes: EpisodeRecord[] = [];
  /** What a checkpoint keeps (../learner-state.ts). */
  protected abstract readonly saved: LearnerState<S>;

  protected constructor(
    readonly policy: LanguageModel,
    readonly env: TextEnv,
    readonly budget: number,
    /** Tokens per training row. */
    readonly width: Dim,
    protected readonly gradients: TokenGradientRun,
    /** log pi(target) with the policy's current weights, where the learner needs pi_old apart from its gradient step. */
    protected readonly logProbs: LogProbRun | null,
    protected readonly reference: ReferencePolicy | null,
  ) {}

  get done(): boolean {
    return this.globalStep >= this.budget;
  }

  takeEpisodes(): readonly EpisodeRecord[] {
    const out = this.episodes;
    this.episodes = [];
    return out;
  }

  /** Counts an update on `batch`: its steps against the budget, and its episodes. */
  protected counted(batch: Pick<Rollouts, 'steps' | 'episodes'>): void {
    this.updates++;
    this.globalStep += batch.steps;
    this.episodes.push(...batch.episodes);
  }

  state(): S {
    return this.saved.save();
  }

  loadState(saved: unknown): void {
    this.saved.load(saved);
  }

  async release(): Promise<void> {
    await this.gradients.release();
    await this.logProbs?.release();
    await this.reference?.release();
  }
}
