// The reward model's pairwise loss against its formula: the loss, accuracy, margin and the
// derivatives by each reward on the batch of test/fixtures/rm/reference.json, which
// make_reference.py wrote once with numpy from TRL's RewardTrainer.compute_loss (derivatives by
// central differences).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { bradleyTerryLoss } from '../../../../runtime/algorithms/rm/bradley-terry.js';
import { repoRoot } from '../../../helpers/repo.js';

interface Case {
  margin: boolean;
  center_rewards_coefficient: number;
  mean_loss: number;
  accuracy: number;
  reward_margin: number;
  d_chosen: number[];
  d_rejected: number[];
}

const reference = JSON.parse(fs.readFileSync(path.join(repoRoot(), 'test/fixtures/rm/reference.json'), 'utf8')) as {
  pairs: Record<'chosen' | 'rejected' | 'margin', number[]>;
  cases: Case[];
};

function close(actual: number, expected: number, tolerance: number, what: string): void {
  assert.ok(Math.abs(actual - expected) <= tolerance * Math.max(1, Math.abs(expected)), `${what}: ${actual}, numpy ${expected}`);
}

const p = reference.pairs;
for (const c of reference.cases) {
  test(`Bradley-Terry (${c.margin ? 'margins' : 'no margin'}, center_rewards_coefficient ${c.center_rewards_coefficient}): loss, metrics and derivatives equal numpy's`, () => {
    const out = bradleyTerryLoss(c, {
      chosen: Float64Array.from(p.chosen),
      rejected: Float64Array.from(p.rejected),
      margin: c.margin ? Float64Array.from(p.margin) : null,
    });
    close(out.loss, c.mean_loss, 1e-12, 'mean loss');
    close(out.metrics['train/accuracy'], c.accuracy, 1e-12, 'accuracy');
    close(out.metrics['train/margin'], c.reward_margin, 1e-12, 'margin');
    c.d_chosen.forEach((d, i) => close(out.dChosen[i]!, d, 1e-6, `d loss / d r(chosen ${i})`));
    c.d_rejected.forEach((d, i) => close(out.dRejected[i]!, d, 1e-6, `d loss / d r(rejected ${i})`));
  });
}
