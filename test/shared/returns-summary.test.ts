// The words for a run's two returns, shared by `rlx train`'s last line and the dashboard.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { returnsSummary, type ReturnsFacts } from '../../shared/returns-summary.js';

function check(facts: ReturnsFacts, expected: string): void {
  assert.equal(returnsSummary(facts), expected);
}

test('both returns, each with how it was measured', () => {
  check(
    { evalMean: 500, evalEpisodes: 10, evalDeterministic: true, trainMean: 251.34, trainEpisodes: 900 },
    'eval 500.0 (deterministic, 10 episodes) · train 251.3 (sampled actions, last 20 episodes)',
  );
});

test('a sampled evaluation says so; the training window is smaller before the 20th episode', () => {
  check({ evalMean: 12.25, evalEpisodes: 1, evalDeterministic: false, trainMean: 9, trainEpisodes: 7 }, 'eval 12.3 (sampled actions, 1 episode) · train 9.0 (sampled actions, last 7 episodes)');
});

test('either alone, nothing when neither is known or finite', () => {
  check({ trainMean: 21.5 }, 'train 21.5 (sampled actions, last 20 episodes)');
  check({ evalMean: 3 }, 'eval 3.0');
  check({ evalMean: NaN, trainMean: undefined }, '');
});

test('text runs: held-out accuracy or dialogue success (greedy) instead of an eval return, and the latest batch reward', () => {
  check(
    { evalMean: 1.01, evalEpisodes: 256, evalDeterministic: true, evalAccuracy: 0.914, trainReward: 1.0625 },
    'held-out accuracy 91.4% (greedy, 256 prompts) · train reward 1.063 (sampled, latest batch)',
  );
  check(
    { evalMean: 0.99, evalSuccess: 0.99, trainReward: 0.75, trainMean: 0.7, trainEpisodes: 500 },
    'held-out success 99.0% (greedy) · train 0.7 (sampled actions, last 20 episodes)',
  );
  // A goal-conditioned numeric env reports success too, but its eval return stays the headline.
  check({ evalMean: -3.5, evalEpisodes: 10, evalDeterministic: true, evalSuccess: 0.8 }, 'eval -3.5 (deterministic, 10 episodes)');
});
