// Per-turn credit (`credit: turn`, runtime/algorithms/text/turn-credit.ts): each dialogue turn's
// return-to-go against the group's same turn, on hand-made batches; each learned token given its
// turn's advantage; and, through train(), the advantages the learner feeds its loss: per turn
// with `credit: turn`, one per dialogue with `credit: episode`.
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import type { PlanReward } from '../../../../dsl/compile/plan.js';
import { grpoLearnerConfig } from '../../../../runtime/algorithms/grpo/grpo.js';
import { grpoSettings } from '../../../../runtime/algorithms/grpo/settings.js';
import { CheckedStep } from '../../../../runtime/algorithms/checked-step.js';
import { reinforceSettings } from '../../../../runtime/algorithms/reinforce/settings.js';
import { broadcastAdvantages, creditedAdvantages, returnsToGo, turnAdvantages, turnRewardsLessKl } from '../../../../runtime/algorithms/text/turn-credit.js';
import type { Rollouts, TurnRewards } from '../../../../runtime/text/text-env.js';
import { train } from '../../../../runtime/train.js';
import { makePlan, tempDir } from '../../helpers.js';

const close = (a: number, b: number, tol = 1e-6) => Math.abs(a - b) <= tol * Math.max(1, Math.abs(b));

/**
 * Two groups, at most 3 turns. Group 1: only a late turn earns a reward, as GuessNumber pays for
 * the finding turn: row 0 finds it at its 3rd turn, row 1 never, row 2 at once, row 3 at its 2nd.
 * Group 2: row 4 earns at its 2nd turn, row 5 stops after one turn.
 */
const turns: Pick<TurnRewards, 'maxTurns' | 'taken' | 'rewards'> = {
  maxTurns: 3,
  taken: Int32Array.of(3, 3, 1, 2, 2, 1),
  rewards: Float64Array.of(0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0),
};
const toGo = returnsToGo(turns, turns.rewards);
const at = (a: Float64Array, row: number, turn: number) => a[row * 3 + turn]!;

test('returns-to-go: the sum of the rewards from each turn on, 0 past a dialogue\'s last turn', () => {
  assert.deepEqual([...toGo], [1, 1, 1, 0, 0, 0, 1, 0, 0, 1, 1, 0, 1, 1, 0, 0, 0, 0]);
  assert.deepEqual([...returnsToGo({ maxTurns: 3, taken: Int32Array.of(3) }, [0.5, -0.25, 2])], [2.25, 1.75, 2]);
});

test('turn advantages: each turn against the group\'s dialogues that took that turn, with the baseline and scale asked for', () => {
  const mean = turnAdvantages(turns, toGo, 4, { baseline: 'mean', normalize: 'none' });
  // Turn 0: [1, 0, 1, 1], mean 0.75; turn 1: rows 0, 1, 3: [1, 0, 1], mean 2/3; turn 2: rows 0, 1: [1, 0].
  assert.deepEqual([at(mean, 0, 0), at(mean, 1, 0), at(mean, 2, 0), at(mean, 3, 0)], [0.25, -0.75, 0.25, 0.25]);
  assert.ok(close(at(mean, 0, 1), 1 / 3) && close(at(mean, 1, 1), -2 / 3) && close(at(mean, 3, 1), 1 / 3));
  assert.deepEqual([at(mean, 0, 2), at(mean, 1, 2)], [0.5, -0.5]);
  assert.notEqual(at(mean, 0, 0), at(mean, 0, 2), 'the first turn and the last of one dialogue are credited differently');
  assert.equal(at(mean, 2, 1), 0, 'nothing past a dialogue\'s last turn');
  // Group 2: turn 0 [1, 0]; at turn 1 row 4 is alone: nothing to compare it with.
  assert.deepEqual([at(mean, 4, 0), at(mean, 5, 0), at(mean, 4, 1)], [0.5, -0.5, 0]);

  const loo = turnAdvantages(turns, toGo, 4, { baseline: 'leave_one_out', normalize: 'none' });
  assert.ok(close(at(loo, 0, 0), 1 - 2 / 3) && close(at(loo, 1, 0), -1) && close(at(loo, 0, 2), 1) && at(loo, 4, 1) === 0);
  const none = turnAdvantages(turns, toGo, 4, { baseline: 'none', normalize: 'none' });
  assert.deepEqual([...none], [...toGo], 'no baseline: the returns-to-go themselves (REINFORCE\'s none), a lone turn included');

  const std = turnAdvantages(turns, toGo, 4, { baseline: 'mean', normalize: 'group_std' });
  assert.ok(close(at(std, 0, 0), 0.25 / (0.5 + 1e-4)), `turn 0's std is 0.5: ${at(std, 0, 0)}`);
  assert.ok(close(at(std, 0, 2), 0.5 / (Math.SQRT1_2 + 1e-4)));
  const maxAbs = turnAdvantages(turns, toGo, 4, { baseline: 'mean', normalize: 'max_abs' });
  assert.ok(close(at(maxAbs, 0, 0), 1 / 3) && close(at(maxAbs, 1, 0), -1));
  // batch_std: the std of the 12 returns-to-go of the turns taken, 8 ones and 4 zeros.
  const batch = turnAdvantages(turns, toGo, 4, { baseline: 'mean', normalize: 'batch_std' });
  const batchStd = Math.sqrt((8 * (1 / 3) ** 2 + 4 * (2 / 3) ** 2) / 11);
  assert.ok(close(at(batch, 0, 0), 0.25 / (batchStd + 1e-4)), `${at(batch, 0, 0)}`);
});

/** Rows of width 6 for the two groups above: each learned position tagged with its turn. */
function rollouts(): Rollouts {
  const rows = 6;
  const width = 6;
  const tokenTurn = Int32Array.from({ length: rows * width }, (_, i) => {
    const [r, p] = [Math.floor(i / width), i % width];
    const k = Math.floor(p / 2);
    return p % 2 === 1 && k < turns.taken[r]! ? k : -1; // one learned token per turn, at odd positions
  });
  return { rows, width, mask: Float32Array.from(tokenTurn, (k) => (k >= 0 ? 1 : 0)), turnRewards: { ...turns, tokenTurn } } as unknown as Rollouts;
}

test('credited advantages: each learned token its turn\'s advantage (credit turn), else the sample\'s on every token', () => {
  const batch = rollouts();
  const perSample = Float32Array.of(0.5, -1, 0.5, 0.5, 0.5, -0.5);
  const episode = creditedAdvantages(batch, 4, perSample, undefined);
  assert.deepEqual([...episode.perToken], [...perSample].flatMap((a) => Array(6).fill(a)), 'the sample\'s advantage on all its positions, as the [B] input broadcast');
  assert.deepEqual([...broadcastAdvantages(perSample, 6)], [...episode.perToken]);

  const credited = creditedAdvantages(batch, 4, perSample, { baseline: 'mean', normalize: 'none' });
  const byTurn = turnAdvantages(turns, toGo, 4, { baseline: 'mean', normalize: 'none' });
  credited.perToken.forEach((a, i) => {
    const k = batch.turnRewards!.tokenTurn[i]!;
    assert.equal(a, k < 0 ? 0 : Math.fround(byTurn[Math.floor(i / 6) * 3 + k]!), `position ${i}`);
  });
  assert.deepEqual([...credited.perSample], [0.25, -0.75, 0.25, 0.25, 0.5, -0.5], 'the inspector shows each dialogue\'s first turn');
  // A single-turn task's batch has no turns: credit turn is the sample's advantage.
  const single = { ...batch, turnRewards: undefined } as Rollouts;
  assert.deepEqual([...creditedAdvantages(single, 4, perSample, { baseline: 'mean', normalize: 'none' }).perToken], [...episode.perToken]);
});

test('kl_in_reward with credit turn: each turn pays for the KL of its own tokens', () => {
  const batch = rollouts();
  const logp = new Float32Array(36);
  const refLogp = Float32Array.from({ length: 36 }, (_, i) => (i === 1 ? -1 : i === 5 ? -2 : i === 4 ? -9 : 0)); // row 0: turn 0 x = -1, turn 2 x = -2; position 4 is not learned
  const less = turnRewardsLessKl(batch.turnRewards!, 6, { logp, refLogp, estimator: 'k1', coef: 0.1 });
  // k1 = -x: turn 0 pays 0.1 * 1, turn 2 pays 0.1 * 2.
  assert.deepEqual([less[0], less[1], less[2]].map((x) => Math.round(x! * 1e9) / 1e9), [-0.1, 0, 0.8]);
  assert.deepEqual([...less.subarray(3)], [...turns.rewards.subarray(3)]);
});

test('credit is read from the plan, episode by default, and GRPO and REINFORCE pass it on', () => {
  assert.equal(grpoSettings({}).credit, 'episode');
  assert.equal(reinforceSettings({}).credit, 'episode');
  assert.equal(grpoLearnerConfig(grpoSettings({})).turnCredit, undefined);
  assert.deepEqual(grpoLearnerConfig(grpoSettings({ credit: 'turn', baseline: 'leave_one_out', normalize: 'max_abs' })).turnCredit, { baseline: 'leave_one_out', normalize: 'max_abs' });
  assert.throws(() => grpoSettings({ credit: 'step' }), /param "credit" must be one of episode, turn/);
});

// The learner's loss feeds, captured at the gradient step.
const original = CheckedStep.prototype.step;
afterEach(() => {
  CheckedStep.prototype.step = original;
});

/** The `advantages` and `mask` fed at each gradient step of a short GRPO run on GuessNumber with `credit`. */
async function fedAdvantages(algorithm: 'GRPO' | 'REINFORCE', credit: 'episode' | 'turn'): Promise<{ advantages: Float32Array; mask: Float32Array; dims: number[] }[]> {
  const fed: { advantages: Float32Array; mask: Float32Array; dims: number[] }[] = [];
  CheckedStep.prototype.step = function (this: CheckedStep, feeds, lr) {
    const f = feeds as Record<string, { data: Float32Array; dims: number[] }>;
    fed.push({ advantages: f.advantages!.data.slice(), mask: f.mask!.data.slice(), dims: f.advantages!.dims });
    return original.call(this, feeds, lr);
  };
  // Every turn earns a reward of its own (a guess starting with a digit), so a turn's return-to-go is its own and the later turns'.
  const reward: PlanReward = { name: 'R', replace_env_reward: false, terms: [{ name: 'digit', expr: { call: 'regex', args: [{ ref: 'completion' }, { const: '^[0-9]' }] } }] };
  const plan = makePlan({
    env: 'GuessNumber',
    envParams: { low: 1, high: 8, max_turns: 3 },
    algorithm,
    algorithmParams: algorithm === 'GRPO' ? { group_size: 4, prompts_per_update: 2, credit } : { episodes_per_update: 4, credit },
    budget: 48,
    reward,
  });
  plan.policy = { name: 'Tiny', kind: 'transformer', params: { layers: 1, width: 16, heads: 2, context: 32 } };
  await train(plan, { seed: 3, out: tempDir() });
  return fed;
}

/** Per row, the distinct advantages of its learned tokens. */
function perRow({ advantages, mask, dims }: { advantages: Float32Array; mask: Float32Array; dims: number[] }): number[][] {
  const [rows, width] = dims as [number, number];
  return Array.from({ length: rows }, (_, r) => [...new Set(Array.from({ length: width }, (_, t) => r * width + t).filter((i) => mask[i] === 1).map((i) => advantages[i]!))]);
}

for (const algorithm of ['GRPO', 'REINFORCE'] as const) {
  test(`${algorithm} feeds each dialogue turn its own advantage with credit turn, one per dialogue with credit episode`, async () => {
    const turn = await fedAdvantages(algorithm, 'turn');
    assert.ok(turn.length > 0 && turn.every((f) => f.dims.length === 2), 'one advantage per token [B, T]');
    const differing = turn.flatMap(perRow).filter((values) => values.length > 1);
    assert.ok(differing.length > 0, 'some dialogue\'s turns get different advantages');
    const episode = await fedAdvantages(algorithm, 'episode');
    assert.ok(episode.flatMap(perRow).every((values) => values.length <= 1), 'episode: every learned token of a dialogue carries its one advantage');
    assert.ok(episode.flatMap(perRow).some((values) => values[0] !== 0), 'and the advantages are not all 0');
  });
}
