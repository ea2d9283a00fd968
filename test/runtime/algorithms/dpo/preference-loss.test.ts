// Each preference loss against its formula: the loss, TRL's logged numbers and the derivatives by
// each answer's log-probability on the batch of test/fixtures/dpo/reference.json, which
// make_reference.py wrote once with numpy from TRL's dpo_loss (derivatives by central differences).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { preferenceLoss, type PairLogProbs } from '../../../../runtime/algorithms/dpo/preference-loss.js';
import type { PreferenceLoss } from '../../../../runtime/algorithms/dpo/settings.js';
import { repoRoot } from '../../../helpers/repo.js';

interface Case {
  loss: PreferenceLoss;
  beta: number;
  label_smoothing: number;
  reference: boolean;
  simpo_gamma: number;
  rpo_alpha?: number;
  mean_loss: number;
  metrics: Record<string, number>;
  d_chosen: number[];
  d_rejected: number[];
}

const reference = JSON.parse(fs.readFileSync(path.join(repoRoot(), 'test/fixtures/dpo/reference.json'), 'utf8')) as {
  pairs: Record<'chosen' | 'rejected' | 'chosen_tokens' | 'rejected_tokens' | 'ref_chosen' | 'ref_rejected', number[]>;
  cases: Case[];
};

function close(actual: number, expected: number, tolerance: number, what: string): void {
  assert.ok(Math.abs(actual - expected) <= tolerance * Math.max(1, Math.abs(expected)), `${what}: ${actual}, numpy ${expected}`);
}

const p = reference.pairs;
for (const c of reference.cases) {
  const name = `${c.loss} (beta ${c.beta}, label_smoothing ${c.label_smoothing}${c.loss === 'simpo' ? `, simpo_gamma ${c.simpo_gamma}` : c.reference ? '' : ', reference none'}${c.rpo_alpha ? `, rpo_alpha ${c.rpo_alpha}` : ''})`;
  test(`${name}: loss, TRL's metrics and the derivatives equal numpy's`, () => {
    const batch: PairLogProbs = {
      chosen: Float64Array.from(p.chosen),
      rejected: Float64Array.from(p.rejected),
      chosenTokens: Float64Array.from(p.chosen_tokens),
      rejectedTokens: Float64Array.from(p.rejected_tokens),
      // As the learner hands them: none without a reference (and SimPO never reads one).
      refChosen: c.reference ? Float64Array.from(p.ref_chosen) : null,
      refRejected: c.reference ? Float64Array.from(p.ref_rejected) : null,
    };
    const out = preferenceLoss(c, batch);
    close(out.loss, c.mean_loss, 1e-12, 'mean loss');
    for (const [metric, value] of Object.entries(c.metrics)) close(out.metrics[`train/${metric}`]!, value, 1e-12, metric);
    c.d_chosen.forEach((d, i) => close(out.dChosen[i]!, d, 1e-6, `d loss / d log pi(chosen ${i})`));
    c.d_rejected.forEach((d, i) => close(out.dRejected[i]!, d, 1e-6, `d loss / d log pi(rejected ${i})`));
  });
}

test('the reference file covers every loss type the registry declares', async () => {
  const { PREFERENCE_LOSSES } = await import('../../../../runtime/algorithms/dpo/settings.js');
  assert.deepEqual([...new Set(reference.cases.map((c) => c.loss))].sort(), [...PREFERENCE_LOSSES].sort());
});
