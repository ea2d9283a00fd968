// GRPO's sampler_correction (policy-gradient-loss.ts `sampler`): train/sampler_kl is k3 between
// the sampler's log-probabilities of the sampled tokens and the trainer's, and `tis` weights each
// token's surrogate by min(pi_old / pi_sampler, tis_cap), as verl's truncated importance sampling.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import type { Plan } from '../../../../dsl/compile/plan.js';
import { buildGrpoLoss } from '../../../../runtime/algorithms/text/policy-gradient-loss.js';
import { buildLogProbs } from '../../../../runtime/algorithms/text/tokens.js';
import { PretrainedPolicy } from '../../../../runtime/policies/pretrained.js';
import { readEvents } from '../../../../runtime/run/events.js';
import { GradientStep, Session, type Feed } from '../../../../runtime/tensor/index.js';
import { train } from '../../../../runtime/train.js';
import { Rng } from '../../../../shared/random.js';
import { repoRoot } from '../../../helpers/repo.js';
import { makePlan, tempDir } from '../../helpers.js';

const QWEN2 = path.join(repoRoot(), 'test/fixtures/hf-tiny/qwen2');
const compute = { providers: ['cpu'] as const };

/** Two rows of 6 tokens, the last 3 learned, advantages +1 and -0.5. */
function feeds(policy: PretrainedPolicy): Record<string, Feed> {
  const [B, T] = [2, 6];
  const mask = Float32Array.from({ length: B * T }, (_, i) => (i % T >= 3 ? 1 : 0));
  return {
    tokens: { data: BigInt64Array.from({ length: B * T }, (_, i) => BigInt(10 + i)), dims: [B, T] },
    targets: { data: BigInt64Array.from({ length: B * T }, (_, i) => BigInt(40 + 3 * i)), dims: [B, T] },
    mask: { data: mask, dims: [B, T] },
    advantages: { data: mask.map((m, i) => m * (i < T ? 1 : -0.5)), dims: [B, T] },
    token_weight: { data: mask.map((m) => m / 6), dims: [B, T] },
    inv_tokens: Float32Array.of(1 / 6),
    ratio_low: Float32Array.of(0.8),
    ratio_high: Float32Array.of(1.2),
    kl_coef: Float32Array.of(0),
    ent_coef: Float32Array.of(0),
    inv_temperature: Float32Array.of(1),
    ...policy.rowFeeds(new Int32Array(B), T),
  };
}

test('sampler_kl is k3 of the gap; tis weights each token by min(pi_old / pi_sampler, cap), so a sampler that matches the trainer changes nothing', async () => {
  const policy = PretrainedPolicy.load({ folder: QWEN2 }, new Rng(1));
  const batch = feeds(policy);
  const pass = buildLogProbs(policy, 'T');
  const own = (await (await Session.create(pass.graph, { logp: pass.logProb }, { weights: policy.weights })).run(batch)).logp!;
  const step = async (sampler: { tisCap: number | null } | undefined, gap = 0) => {
    const loss = buildGrpoLoss(policy, 'T', { oldFed: false, referenceFed: false, ...(sampler ? { sampler } : {}) });
    const s = await GradientStep.create(loss.graph, [{ loss: loss.loss, weights: policy.weights.names, metrics: loss.metrics }], { weights: policy.weights, compute });
    // The sampler gave each token log pi - gap: gap > 0, the sampler found it less likely than the trainer does.
    const out = await s.run({ ...batch, ...(sampler ? { sampler_logp: { data: own.map((v) => v - gap), dims: [2, 6] } } : {}) });
    const metric = (name: string) => out.metrics[s.metricNames.indexOf(name)]!;
    return { loss: out.loss, policyLoss: metric('policy_loss'), samplerKl: sampler ? metric('sampler_kl') : NaN };
  };
  const plain = await step(undefined);
  const matched = await step({ tisCap: 2 }, 0);
  assert.ok(Math.abs(matched.samplerKl) < 1e-6, `sampler_kl ${matched.samplerKl} for a sampler that matches`);
  assert.ok(Math.abs(matched.loss - plain.loss) <= 1e-6 * Math.max(1, Math.abs(plain.loss)));
  const logged = await step({ tisCap: null }, 0.5);
  assert.ok(Math.abs(logged.samplerKl - (Math.exp(0.5) - 0.5 - 1)) < 1e-5, `k3 of a gap of 0.5: ${logged.samplerKl}`);
  assert.ok(Math.abs(logged.policyLoss - plain.policyLoss) < 1e-6, '`log` only logs');
  const weighted = await step({ tisCap: 2 }, 0.5);
  assert.ok(Math.abs(weighted.policyLoss - Math.exp(0.5) * plain.policyLoss) < 1e-5 * Math.max(1, Math.abs(plain.policyLoss)), `weight e^0.5: ${weighted.policyLoss} against ${plain.policyLoss}`);
  const capped = await step({ tisCap: 2 }, 1);
  assert.ok(Math.abs(capped.policyLoss - 2 * plain.policyLoss) < 1e-5 * Math.max(1, Math.abs(plain.policyLoss)), `weight capped at 2: ${capped.policyLoss}`);
  assert.ok(plain.policyLoss !== 0, 'the batch has a policy loss to weight');
  await policy.release();
});

test('a GRPO run with sampler_correction: tis logs train/sampler_kl, near 0 where sampler and trainer are the same CPU model', async () => {
  const plan = makePlan({ env: 'TextTask', envParams: { task: { kind: 'addition', digits: 2, pad: true }, max_tokens: 6 }, algorithm: 'GRPO', algorithmParams: { prompts_per_update: 2, group_size: 4, max_new_tokens: 6, sampler_correction: 'tis' }, budget: 16 });
  plan.policy = { name: 'Base', kind: 'pretrained', params: { model: QWEN2 } as Plan['policy']['params'] };
  plan.eval = { every: 1_000_000, episodes: 2, deterministic: true };
  const result = await train(plan, { out: tempDir() });
  const updates = readEvents(path.join(result.runDir, 'events.jsonl')).flatMap((e) => (e.type === 'metrics' ? [e.values] : []));
  assert.equal(updates.length, 2);
  for (const u of updates) assert.ok(u['train/sampler_kl']! >= 0 && u['train/sampler_kl']! < 1e-4, `train/sampler_kl ${u['train/sampler_kl']}`);
});
