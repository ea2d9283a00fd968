// Multi-turn text envs (runtime/text/dialogue.ts, guess-number.ts, dialogue-env.ts): the
// GuessNumber rules, its bisecting expert, the dialogue grid (the agent's tokens learned, the
// env's read), a model trained at exactly the positions it sampled at, and a GuessNumber run
// through train(): SFT on the expert's dialogues, then RLOO, with success counted as the
// issue asks (train.success, eval.success) and a resume inside the RLOO stage.
import type { TokenModel } from '../../../runtime/policies/index.js';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { Plan } from '../../../dsl/compile/plan.js';
import { buildLogProbs } from '../../../runtime/algorithms/text/tokens.js';
import { Rng } from '../../../shared/random.js';
import { readEvents, type RunEvent } from '../../../runtime/run/events.js';
import { RunDirectory } from '../../../runtime/run/run-dir.js';
import { Session } from '../../../runtime/tensor/index.js';
import { DialogueEnvironment } from '../../../runtime/text/dialogue-env.js';
import { dialogueLayout, dialogueTrainingRows, dialogueTurnRewards, gridWidth, runDialogues, turnStart } from '../../../runtime/text/dialogue.js';
import { GuessNumber } from '../../../runtime/text/guess-number.js';
import { EOS, PAD } from '../../../runtime/policies/transformer/char-tokenizer.js';
import { resume, train } from '../../../runtime/train.js';
import { TextWorkload } from '../../../runtime/trainer/text-workload.js';
import { makePlan, tempDir } from '../helpers.js';
import { repoRoot } from '../../helpers/repo.js';

describe('GuessNumber', () => {
  it('answers higher, lower, correct (reward 1, done), and invalid for what is not a whole number; each turn reports the guesses so far and the hidden number', () => {
    const d = new GuessNumber(1, 100, 7).dialogue(42);
    assert.equal(d.opening, '1..100');
    assert.deepEqual(d.turn('50'), { observation: 'lower', reward: 0, done: false, success: false, info: { turns: 1, hidden: 42 } });
    assert.deepEqual(d.turn('7'), { observation: 'higher', reward: 0, done: false, success: false, info: { turns: 2, hidden: 42 } });
    assert.deepEqual(d.turn('4x'), { observation: 'invalid', reward: 0, done: false, success: false, info: { turns: 3, hidden: 42 } });
    assert.deepEqual(d.turn(''), { observation: 'invalid', reward: 0, done: false, success: false, info: { turns: 4, hidden: 42 } });
    assert.deepEqual(d.turn('42'), { observation: 'correct', reward: 1, done: true, success: true, info: { turns: 5, hidden: 42 } });
  });

  it('its expert finds every number of 1..100 within 7 guesses, and its dialogues fit the declared widths', async () => {
    const env = new GuessNumber(1, 100, 7);
    const rows = new DialogueEnvironment(env, 'GuessNumber');
    const batch = await runDialogues(env.evaluationDialogues(), rows.tokenizer, rows.layout, { expert: true });
    assert.equal(batch.rows, 100);
    assert.ok(batch.success.every((s) => s === 1), 'bisection always finds the number');
    assert.ok(Math.max(...batch.turns) <= 7);
    assert.deepEqual([...batch.returns].every((r) => r === 1), true);
  });

  it('refuses a range with high below low, naming the param', () => {
    assert.throws(() => GuessNumber.fromParams({ low: 10, high: 5 }), /high/);
  });
});

describe('the dialogue grid', () => {
  const env = new GuessNumber(1, 100, 3);
  const rows = new DialogueEnvironment(env, 'GuessNumber');
  const layout = dialogueLayout(env);

  it('lays out opening, turns and replies at fixed positions; only the agent\'s tokens and their EOS are learned', async () => {
    const dialogue = env.dialogue(80);
    const batch = await runDialogues([dialogue], rows.tokenizer, layout, { expert: true });
    const T = gridWidth(layout);
    const text = (from: number, to: number) => rows.tokenizer.decode(batch.grid.subarray(from, to).filter((id) => id !== PAD));
    assert.equal(text(0, layout.openingWidth), '1..100');
    assert.equal(text(turnStart(layout, 0), turnStart(layout, 0) + layout.turnSlots), '50');
    assert.equal(batch.grid[turnStart(layout, 0) + 2], EOS);
    assert.equal(text(turnStart(layout, 0) + layout.turnSlots, turnStart(layout, 1)), 'higher');
    assert.equal(text(turnStart(layout, 1), turnStart(layout, 1) + layout.turnSlots), '75');
    assert.deepEqual(batch.transcripts[0], [['user', '1..100'], ['assistant', '50'], ['user', 'higher'], ['assistant', '75'], ['user', 'higher'], ['assistant', '88']]);
    assert.equal(batch.success[0], 0, '3 guesses do not find 80');
    const learned = [...batch.agentTokens.keys()].filter((i) => batch.agentTokens[i]);
    const expected = [0, 1, 2].flatMap((k) => [0, 1, 2].map((j) => turnStart(layout, k) + j));
    assert.deepEqual(learned, expected, 'two digits and an EOS per turn; nothing of the opening or the replies');
    assert.equal(batch.grid.length, T);
  });

  it('records each turn\'s reward and the turn of every learned position, for per-turn credit', async () => {
    // Bisection finds 80 at its 7th guess (50, 75, 88, 81, 78, 79, 80), and 50 at its first.
    const long = new GuessNumber(1, 100, 7);
    const env7 = new DialogueEnvironment(long, 'GuessNumber');
    const batch = await runDialogues([long.dialogue(80), long.dialogue(50)], env7.tokenizer, env7.layout, { expert: true });
    assert.deepEqual([...batch.turns], [7, 1]);
    assert.deepEqual([...batch.turnRewards], [0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0], 'the reward of the finding turn only');
    const training = dialogueTrainingRows(batch, env7.layout);
    const turns = dialogueTurnRewards(batch, env7.layout, training);
    const W = training.width;
    for (let r = 0; r < 2; r++) {
      const learned = Array.from({ length: W }, (_, i) => i).filter((i) => training.mask[r * W + i]);
      // Position i learns grid token i + 1: turn k's are its slots from turnStart(k).
      const expected = learned.map((i) => [0, 1, 2, 3, 4, 5, 6].findLast((k) => i + 1 >= turnStart(env7.layout, k))!);
      assert.deepEqual(learned.map((i) => turns.tokenTurn[r * W + i]), expected, `row ${r}`);
      assert.ok(turns.tokenTurn.subarray(r * W, (r + 1) * W).every((k, i) => (k >= 0) === (training.mask[r * W + i] === 1)));
    }
    assert.equal(new Set(Array.from(turns.tokenTurn.subarray(0, W)).filter((k) => k >= 0)).size, 7, 'all 7 turns of row 0 are there');
  });

  it('a model is trained at exactly the positions it sampled at: the training graph\'s log-probabilities equal the sampler\'s', async () => {
    const plan = guessPlan([{ name: 'main', algorithm: { name: 'R', kind: 'REINFORCE', params: {} }, budget: 100 }]);
    const workload = TextWorkload.create(plan, 1);
    const model = workload.model as TokenModel;
    const batch = await workload.env.rollouts(model, { groups: 1, groupSize: 3, startRng: new Rng(1), sampleRng: new Rng(2), temperature: 1 });
    const T = batch.width;
    const forward = buildLogProbs(model, T);
    const session = await Session.create(forward.graph, { logp: forward.logProb }, { weights: model.weights });
    const logp = (await session.run({ tokens: { data: batch.tokens, dims: [batch.rows, T] }, targets: { data: batch.targets, dims: [batch.rows, T] }, inv_temperature: new Float32Array([1]) })).logp!;
    const step = await model.decoder(batch.rows);
    const V = workload.env.tokenizer.size;
    let compared = 0;
    for (let t = 0; t < T; t++) {
      const logits = await step(Int32Array.from({ length: batch.rows }, (_, r) => Number(batch.tokens[r * T + t])), t);
      for (let r = 0; r < batch.rows; r++) {
        if (!batch.mask[r * T + t]) continue;
        const row = logits.subarray(r * V, (r + 1) * V);
        const most = Math.max(...row);
        const z = row.reduce((sum, x) => sum + Math.exp(x - most), 0);
        const expected = row[Number(batch.targets[r * T + t])]! - most - Math.log(z);
        assert.ok(Math.abs(expected - logp[r * T + t]!) < 1e-4, `row ${r} position ${t}: ${expected} vs ${logp[r * T + t]}`);
        compared++;
      }
    }
    assert.equal(compared, batch.tokenCount);
    assert.ok(compared > 0);
    await session.release();
    await workload.release();
  });
});

function guessPlan(stages: Plan['stages']): Plan {
  const plan = makePlan({ env: 'GuessNumber', envParams: { low: 1, high: 100, max_turns: 7 } });
  return { ...plan, policy: { name: 'Tiny', kind: 'transformer', params: { layers: 1, width: 32, heads: 2, context: 80 } }, stages };
}

const sftThenRloo = (sftUpdates: number, rlooBudget: number): Plan['stages'] => [
  { name: 'warmup', algorithm: { name: 'SFT', kind: 'SFT', params: { updates: sftUpdates, batch_size: 32, learning_rate: 3e-3 } }, budget: null },
  { name: 'main', algorithm: { name: 'Rloo', kind: 'REINFORCE', params: { baseline: 'leave_one_out', episodes_per_update: 8, learning_rate: 1e-5 } }, budget: rlooBudget },
];

describe('GuessNumber through train()', () => {
  it('SFT on the expert\'s dialogues teaches bisection; RLOO then trains on whole dialogues, each one an episode with its success', async () => {
    const plan = guessPlan(sftThenRloo(150, 300));
    const untrained = TextWorkload.create(plan, 1);
    const before = (await untrained.evaluate()).values['eval/success']!;
    await untrained.release();
    const result = await train(plan, { out: tempDir() });
    const events = readEvents(path.join(result.runDir, 'events.jsonl'));
    const evals = events.filter((e) => e.type === 'eval');
    assert.deepEqual(evals.map((e) => e.stage), ['warmup', 'main']);
    const warm = evals[0]!.values as Record<string, number>;
    assert.ok(warm['eval/success']! >= 0.1 && warm['eval/success']! >= 5 * before, `150 SFT updates of a tiny model find the number in ${warm['eval/success']} of held-out dialogues, untrained ${before}`);
    assert.equal((evals[0]!.returns as number[]).length, 100, 'evaluation plays every number of 1..100');
    const episodes = events.filter((e) => e.type === 'episode');
    assert.ok(episodes.length > 0 && episodes.every((e) => e.stage === 'main' && typeof e.success === 'boolean' && (e.length as number) >= 1 && (e.length as number) <= 7));
    assert.ok(result.metrics['train/success'] !== undefined, 'train.success comes from the dialogues');
    // The rollout inspector's files hold whole dialogues, turn by turn, with RLOO's advantages.
    const rollout = events.find((e) => e.type === 'rollout')!;
    const [header, group] = fs.readFileSync(path.join(result.runDir, rollout.file as string), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual([header.kind, header.env, header.algorithm, header.group_size], ['text', 'GuessNumber', 'REINFORCE', 8]);
    assert.equal(group.start, '1..100');
    for (const sample of group.samples) {
      // The whole dialogue with the chat roles: the opening (the user's), then the agent's turns (the assistant's) and the env's replies.
      assert.deepEqual(sample.turns[0], ['user', '1..100']);
      assert.deepEqual(sample.turns.map(([role]: [string]) => role), sample.turns.map((_: unknown, i: number) => (i % 2 === 0 ? 'user' : 'assistant')));
      assert.equal(sample.success, sample.turns.at(-1)[1] !== undefined && sample.reward === 1);
      const others = group.samples.filter((o: unknown) => o !== sample);
      const leaveOneOut = sample.reward - others.reduce((s: number, o: { reward: number }) => s + o.reward, 0) / others.length;
      assert.ok(Math.abs(sample.advantage - leaveOneOut) < 1e-6, 'RLOO: the return minus the mean of the others');
    }
    assert.ok(result.step >= 150 * 32 + 300);
    // The final policy's greedy dialogues on the held-out numbers, one group each.
    const final = events.find((e) => e.type === 'rollout' && e.recorded === 'final') as Extract<RunEvent, { type: 'rollout' }>;
    const [finalHeader, ...held] = fs.readFileSync(path.join(result.runDir, final.file as string), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual([finalHeader.recorded, finalHeader.algorithm, held.length], ['final', 'REINFORCE', 100]);
    assert.equal(held.filter((g) => g.samples[0].success).length / 100, result.metrics['eval/success']);
    // rlx eval plays the same held-out dialogues with the exported model, stepped by plain onnxruntime.
    const evaluated = spawnSync(process.execPath, [path.join(repoRoot(), 'bin', 'rlx.js'), 'eval', result.runDir, '--json'], { encoding: 'utf8', timeout: 120_000 });
    assert.equal(evaluated.status, 0, evaluated.stderr);
    const report = JSON.parse(evaluated.stdout);
    assert.equal(report.dialogues, 100);
    assert.equal(report['eval/success'], result.metrics['eval/success']);
  });

  it('a run stopped inside the RLOO stage resumes there and ends where an uninterrupted run ends', async () => {
    const plan = guessPlan(sftThenRloo(5, 400));
    const whole = await train(plan, { out: tempDir() });
    const controller = new AbortController();
    const stopped = await train(plan, {
      out: tempDir(),
      checkpointEvery: 1,
      onProgress: (p) => p.step > 5 * 32 + 150 && controller.abort(),
      signal: controller.signal,
    });
    assert.equal(stopped.status, 'stopped');
    assert.equal(RunDirectory.readStatus(stopped.runDir)!.stage!.name, 'main');
    const resumed = await resume(stopped.runDir);
    assert.equal(resumed.status, 'finished');
    assert.equal(resumed.step, whole.step);
    assert.equal(resumed.metrics['eval/success'], whole.metrics['eval/success']);
  });
});
