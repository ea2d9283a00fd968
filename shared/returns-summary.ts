// The two returns a run reports, in the words `rlx train`'s last line and the dashboard both
// use. They differ for a reason users should see at a glance: evaluation usually takes the
// most likely action (deterministic) on episodes of its own, while the training return is what
// the sampling, still-exploring policy earned over its last episodes, so on CartPole the first
// reads 500 while the second reads ~250. Import-free, so the page and the command line share it.

/** train/mean_return averages this many of the latest training episodes (docs/run-directory.md). */
export const TRAIN_RETURN_WINDOW = 20;

export interface ReturnsFacts {
  /** eval/mean_return of the latest evaluation. */
  evalMean?: number;
  /** Episodes in that evaluation. */
  evalEpisodes?: number;
  /** Whether it took the most likely action (`eval { deterministic }`). */
  evalDeterministic?: boolean;
  /** train/mean_return. */
  trainMean?: number;
  /** Training episodes finished so far, when known: the window is smaller before the 20th. */
  trainEpisodes?: number;
  /**
   * Text runs: eval/accuracy (exact match on held-out prompts) or eval/success (held-out
   * dialogues found their goal), always greedy; they replace the eval return, which for a text
   * task is its mean reward and reads as an episode count no one ran.
   */
  evalAccuracy?: number;
  evalSuccess?: number;
  /** Text runs: the latest batch's mean reward (train/mean_reward), for runs without episodes. */
  trainReward?: number;
}

const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

/**
 * "eval 500.0 (deterministic, 10 episodes) · train 251.3 (sampled actions, last 20 episodes)";
 * either half alone when the run has only that one; '' when it has neither.
 */
export function returnsSummary(facts: ReturnsFacts): string {
  const parts: string[] = [];
  const held = (what: string, n: number | undefined) => (n !== undefined ? `greedy, ${count(n, what)}` : 'greedy');
  if (facts.evalAccuracy !== undefined && Number.isFinite(facts.evalAccuracy)) {
    parts.push(`held-out accuracy ${(100 * facts.evalAccuracy).toFixed(1)}% (${held('prompt', facts.evalEpisodes)})`);
  } else if (facts.evalSuccess !== undefined && Number.isFinite(facts.evalSuccess) && facts.trainReward !== undefined) {
    // A dialogue (a text run: it reports train/mean_reward); goal-conditioned numeric envs keep their return.
    parts.push(`held-out success ${(100 * facts.evalSuccess).toFixed(1)}% (${held('dialogue', facts.evalEpisodes)})`);
  } else if (facts.evalMean !== undefined && Number.isFinite(facts.evalMean)) {
    const how = facts.evalDeterministic === false ? 'sampled actions' : facts.evalDeterministic === true ? 'deterministic' : '';
    const notes = [how, facts.evalEpisodes !== undefined ? count(facts.evalEpisodes, 'episode') : ''].filter(Boolean);
    parts.push(`eval ${facts.evalMean.toFixed(1)}${notes.length > 0 ? ` (${notes.join(', ')})` : ''}`);
  }
  if (facts.trainMean === undefined && facts.trainReward !== undefined && Number.isFinite(facts.trainReward)) {
    parts.push(`train reward ${facts.trainReward.toFixed(3)} (sampled, latest batch)`);
  }
  if (facts.trainMean !== undefined && Number.isFinite(facts.trainMean)) {
    const window = facts.trainEpisodes !== undefined ? Math.min(TRAIN_RETURN_WINDOW, facts.trainEpisodes) : TRAIN_RETURN_WINDOW;
    parts.push(`train ${facts.trainMean.toFixed(1)} (sampled actions, last ${count(window, 'episode')})`);
  }
  return parts.join(' · ');
}
