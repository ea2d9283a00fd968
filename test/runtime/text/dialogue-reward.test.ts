// Reward terms on dialogue envs (runtime/text/dialogue-reward.ts): evaluated once per agent
// turn with the names docs/language.md lists (completion = the turn, prompt = the dialogue
// before it, reply, env_reward, terminated, truncated, success, t, info.NAME), added to the
// env's reward or replacing it; each term's sum over a dialogue is logged as rewards/<term> and
// shown per sample by the rollout inspector. GuessNumber and a user text module.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import type { Plan, PlanExpr, PlanReward } from '../../../dsl/compile/plan.js';
import { loadEnvModule, type LoadedEnvModule } from '../../../runtime/envs/user-module.js';
import { readEvents } from '../../../runtime/run/events.js';
import { DialogueEnvironment } from '../../../runtime/text/dialogue-env.js';
import { DialogueReward } from '../../../runtime/text/dialogue-reward.js';
import { runDialogues } from '../../../runtime/text/dialogue.js';
import { GuessNumber } from '../../../runtime/text/guess-number.js';
import { ModuleDialogueEnv } from '../../../runtime/text/module-dialogue.js';
import { train } from '../../../runtime/train.js';
import { makePlan, tempDir } from '../helpers.js';

const R = (ref: string): PlanExpr => ({ ref });
const C = (value: number | string): PlanExpr => ({ const: value });
const op = (name: string, ...args: PlanExpr[]): PlanExpr => ({ op: name, args } as PlanExpr);
const call = (name: string, ...args: PlanExpr[]): PlanExpr => ({ call: name, args } as PlanExpr);
const reward = (terms: Record<string, PlanExpr>, replace = false): PlanReward => ({
  name: 'Shaped', replace_env_reward: replace, terms: Object.entries(terms).map(([name, expr]) => ({ name, expr })),
});

function guessPlan(r: PlanReward | null, stages?: Plan['stages']): Plan {
  const plan = makePlan({ env: 'GuessNumber', envParams: { low: 1, high: 100, max_turns: 7 }, reward: r ?? undefined });
  return { ...plan, policy: { name: 'Tiny', kind: 'transformer', params: { layers: 1, width: 32, heads: 2, context: 80 } }, ...(stages ? { stages } : {}) };
}

/** GuessNumber's expert dialogues about `hidden`, run with the plan's reward. */
async function expertDialogues(r: PlanReward, hidden: readonly number[]) {
  const env = new GuessNumber(1, 100, 7);
  const rows = new DialogueEnvironment(env, 'GuessNumber');
  const terms = DialogueReward.fromPlan(guessPlan(r), GuessNumber.INFO_FIELDS);
  return { terms, batch: await runDialogues(hidden.map((h) => env.dialogue(h)), rows.tokenizer, rows.layout, { expert: true }, terms) };
}

describe('reward terms on GuessNumber', () => {
  it('a length penalty and a bonus on the reply add to the env\'s reward exactly as written, turn by turn', async () => {
    const { terms, batch } = await expertDialogues(reward({
      short: op('*', C(-0.01), call('length', R('completion'))),
      told_higher: call('contains', R('reply'), C('higher')),
    }), [37, 100]);
    assert.deepEqual(terms.termNames, ['short', 'told_higher']);
    for (let r = 0; r < batch.rows; r++) {
      const transcript = batch.transcripts[r]!;
      const agent = transcript.filter(([who]) => who === 'assistant').map(([, text]) => text);
      // Replies the agent read: the env's messages after the opening; the last turn's ("correct") is never shown.
      const replies = transcript.slice(1).filter(([who]) => who === 'user').map(([, text]) => text);
      const short = -0.01 * agent.reduce((n, turn) => n + turn.length, 0);
      const higher = replies.filter((m) => m.includes('higher')).length;
      assert.ok(Math.abs(batch.termSums[2 * r]! - short) < 1e-12, `short: ${batch.termSums[2 * r]} vs ${short}`);
      assert.equal(batch.termSums[2 * r + 1], higher);
      assert.equal(batch.success[r], 1);
      assert.ok(Math.abs(batch.returns[r]! - (1 + short + higher)) < 1e-12, 'the env\'s 1 for the number, plus the terms');
    }
    assert.ok(batch.termSums[1]! > 0, '37 gets "higher" at least once');
  });

  it('replace_env_reward: the terms alone; env_reward, t, terminated, truncated, success, info and prompt read each turn', async () => {
    const { batch } = await expertDialogues(reward({
      scaled: op('*', C(5), R('env_reward')),
      turn: op('*', C(100), R('t')),
      ends: op('+', op('*', C(1000), R('terminated')), op('*', C(1e4), R('truncated'))),
      won: op('*', C(1e5), R('success')),
      guesses: op('*', C(1e-3), R('info.turns')),
      hidden: op('*', C(1e-6), R('info.hidden')),
      read: call('length', R('prompt')),
    }, true), [50, 1]);
    // 50 is found at the first guess; 1 takes bisection all the way down: 50, 25, 12, 6, 3, 1.
    const [first, second] = [0, 1].map((r) => Array.from(batch.termSums.subarray(r * 7, r * 7 + 7)));
    assert.deepEqual(first!.slice(0, 4), [5, 0, 1000, 1e5]);
    assert.ok(Math.abs(first![4]! - 1e-3) < 1e-15 && Math.abs(first![5]! - 50e-6) < 1e-15);
    assert.equal(first![6], '1..100'.length, 'the first turn read the opening');
    const turns = batch.turns[1]!;
    assert.equal(turns, 6);
    assert.deepEqual(second!.slice(0, 4), [5, 100 * (turns * (turns - 1)) / 2, 1000, 1e5]);
    assert.ok(Math.abs(second![4]! - 1e-3 * (turns * (turns + 1)) / 2) < 1e-12);
    // The prompt of turn k is the opening and the k turns and replies before it, one per line.
    const lines = batch.transcripts[1]!.slice(0, -1).map(([, text]) => text);
    const expected = Array.from({ length: turns }, (_, k) => lines.slice(0, 1 + 2 * k).join('\n').length).reduce((a, b) => a + b, 0);
    assert.equal(second![6], expected);
    for (let r = 0; r < 2; r++) {
      const sum = Array.from(batch.termSums.subarray(r * 7, r * 7 + 7)).reduce((a, b) => a + b, 0);
      assert.ok(Math.abs(batch.returns[r]! - sum) < 1e-9, 'the env\'s own reward is replaced');
    }
  });

  it('a cut dialogue: its last turn is truncated, not terminated, and its reply is empty', async () => {
    const env = new GuessNumber(1, 100, 2);
    const rows = new DialogueEnvironment(env, 'GuessNumber');
    const terms = DialogueReward.fromPlan(guessPlan(reward({ cut: R('truncated'), ended: R('terminated'), replied: call('length', R('reply')) })), GuessNumber.INFO_FIELDS);
    const batch = await runDialogues([env.dialogue(1)], rows.tokenizer, rows.layout, { expert: true }, terms);
    assert.equal(batch.turns[0], 2);
    assert.deepEqual(Array.from(batch.termSums), [1, 0, 'lower'.length]);
  });

  it('a name a dialogue does not have, or a term that is not finite, fails with the reward, the term and what to do', async () => {
    assert.throws(() => DialogueReward.fromPlan(guessPlan(reward({ a: call('exact', R('completion'), R('target')) })), GuessNumber.INFO_FIELDS), /term a: exact\(\): "target": a dialogue has no target/);
    assert.throws(() => DialogueReward.fromPlan(guessPlan(reward({ i: R('info.turn') })), GuessNumber.INFO_FIELDS), /env GuessNumber reports no info value "turn" \(info.turn\); it reports turns, hidden/);
    await assert.rejects(expertDialogues(reward({ bad: op('/', C(1), op('-', R('t'), C(1))) }), [1]), /reward Shaped: term bad is Infinity at turn 1 of a dialogue/);
  });

  it('through train(): rewards/<term> is logged, and the rollout inspector\'s samples carry each term, summing to the reward', async () => {
    const r = reward({ short: op('*', C(-0.01), call('length', R('completion'))), bonus: op('*', C(0.5), R('success')) });
    const plan = guessPlan(r, [{ name: 'main', algorithm: { name: 'Rloo', kind: 'REINFORCE', params: { baseline: 'leave_one_out', episodes_per_update: 8 } }, budget: 60 }]);
    const result = await train(plan, { out: tempDir() });
    assert.equal(result.status, 'finished');
    const events = readEvents(path.join(result.runDir, 'events.jsonl'));
    const metrics = events.filter((e) => e.type === 'metrics').map((e) => e.values as Record<string, number>);
    assert.ok(metrics.some((m) => m['rewards/short']! < 0 && m['rewards/bonus'] !== undefined), 'each term is logged');
    const rollout = events.find((e) => e.type === 'rollout')!;
    const [header, group] = fs.readFileSync(path.join(result.runDir, rollout.file as string), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(header.terms, ['short', 'bonus']);
    for (const s of group.samples) {
      const agent = (s.turns as [string, string][]).filter(([who]) => who === 'assistant').map(([, t]) => t);
      assert.ok(Math.abs(s.terms.short - -0.01 * agent.reduce((n, t) => n + t.length, 0)) < 1e-9);
      assert.equal(s.terms.bonus, s.success ? 0.5 : 0);
      assert.ok(Math.abs(s.reward - ((s.success ? 1 : 0) + s.terms.short + s.terms.bonus)) < 1e-9, 'the env\'s reward plus the terms');
    }
  });
});

describe('reward terms on a user text module', () => {
  const loaded: LoadedEnvModule[] = [];
  after(() => loaded.forEach((m) => m.close()));

  it('read the module\'s info values and its replies; replace_env_reward drops its own reward', async () => {
    const dir = tempDir('rlx-dialogue-reward-');
    const file = path.join(dir, 'count.ts');
    fs.writeFileSync(file, `
export const spec = { actions: 'text', max_turns: 3, max_observation: 4, max_action: 2, alphabet: 'abcdefghijklmnopqrstuvwxyz0123456789', info: ['calls', 'success'] };
export default class Count {
  reset(seed) { this.calls = 0; return { observation: 'go', info: {} }; }
  step(text) { this.calls++; return { observation: 'ok' + this.calls, reward: 7, done: this.calls === 2, info: { calls: this.calls, success: this.calls === 2 } }; }
  expert() { return 'ab'; }
}
`);
    const module = await loadEnvModule(file, {}, { name: 'Count' });
    loaded.push(module);
    const base = makePlan({ env: 'module', reward: reward({ calls: R('info.calls'), seen: call('contains', R('reply'), C('ok1')), won: R('info.success') }, true) });
    const plan: Plan = { ...base, env: { ...base.env, name: 'Count', module: './count.ts' } };
    const terms = DialogueReward.fromPlan(plan, module.text!.info.infoFields);
    const env = new ModuleDialogueEnv(module.text!, {}, 'Count');
    const rows = new DialogueEnvironment(env, 'module', terms);
    const batch = await runDialogues([env.dialogue(0)], rows.tokenizer, rows.layout, { expert: true }, terms);
    assert.equal(batch.turns[0], 2);
    // calls: 1 + 2; the reply "ok1" to the first turn; success on the second; the env's 7s dropped.
    assert.deepEqual(Array.from(batch.termSums), [3, 1, 1]);
    assert.equal(batch.returns[0], 5);
  });
});
