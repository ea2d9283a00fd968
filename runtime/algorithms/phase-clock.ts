// Where an off-policy learner's time goes: acting (the policy's forward pass, the env's step and
// storing the transition), sampling (drawing a batch from the replay buffer, with relabeling, and
// the targets computed outside the gradient step) and gradient steps (the onnxruntime run and
// the optimiser). Reported as cumulative seconds in the time/* metrics, which
// `npm run bench -- offpolicy` prints beside the peers' figures.

export type Phase = 'acting' | 'sampling' | 'gradient';

const PHASES: readonly Phase[] = ['acting', 'sampling', 'gradient'];

export class PhaseClock {
  private readonly seconds: Record<Phase, number> = { acting: 0, sampling: 0, gradient: 0 };
  private last = performance.now();
  private gradientSteps = 0;

  /** Starts timing afresh (time since the last mark, spent outside the learner, is not charged). */
  restart(): void {
    this.last = performance.now();
  }

  /** Charges the time since the last mark (or restart) to `phase`. */
  mark(phase: Phase): void {
    const now = performance.now();
    this.seconds[phase] += (now - this.last) / 1000;
    this.last = now;
  }

  /** Counts one gradient step (an update's share: DQN's one batch, SAC's critic step and its actor share). */
  countGradientStep(): void {
    this.gradientSteps++;
  }

  /** time/acting_s, time/sampling_s, time/gradient_s and time/gradient_steps, since the learner was built (a resume starts them afresh). */
  metrics(): Record<string, number> {
    return { ...Object.fromEntries(PHASES.map((p) => [`time/${p}_s`, this.seconds[p]])), 'time/gradient_steps': this.gradientSteps };
  }
}
