// Dialogues written by a pretrained model through its chat template (runtime/text/chat-dialogue.ts),
// with the hf-tiny Qwen2 (random weights, ChatML template): the conversation each turn is
// generated from is the template's rendering of the messages; training learns the assistant's
// tokens only, each scored in the context the model wrote it in, also where the template
// re-renders the history (a new segment); GuessNumber trains through train() with SFT on the
// expert's dialogues then GRPO, and its rollout records hold the messages' roles.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { Plan } from '../../../dsl/compile/plan.js';
import { buildLogProbs } from '../../../runtime/algorithms/text/tokens.js';
import { segmentMask, segmentPositions, attentionMask, rowPositions } from '../../../runtime/lm/rows.js';
import { PretrainedPolicy, type ChatSettings } from '../../../runtime/policies/pretrained.js';
import { Rng } from '../../../shared/random.js';
import { readEvents } from '../../../runtime/run/events.js';
import { checkPlan } from '../../../runtime/support.js';
import { Session } from '../../../runtime/tensor/index.js';
import { chatTokenEntropy, chatTrainingRows, chatTurnRewards, runChatDialogues, type ChatDialogueBatch } from '../../../runtime/text/chat-dialogue.js';
import type { Dialogue } from '../../../runtime/text/dialogue.js';
import { DialogueEnvironment } from '../../../runtime/text/dialogue-env.js';
import { GuessNumber } from '../../../runtime/text/guess-number.js';
import type { TokenRows } from '../../../runtime/text/text-env.js';
import { train } from '../../../runtime/train.js';
import { repoRoot } from '../../helpers/repo.js';
import { makePlan, tempDir } from '../helpers.js';

const QWEN2 = path.join(repoRoot(), 'test/fixtures/hf-tiny/qwen2');
const CHAT: ChatSettings = { system: 'Find the hidden number.', user: 'Guess a number in {prompt}.', variables: {} };

/** The fixture with another chat template, or none (null), in a temporary folder the caller removes. */
function withTemplate(template: string | null): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-chat-model-'));
  for (const file of fs.readdirSync(QWEN2)) if (file !== 'chat_template.jinja') fs.copyFileSync(path.join(QWEN2, file), path.join(dir, file));
  if (template !== null) fs.writeFileSync(path.join(dir, 'chat_template.jinja'), template);
  return dir;
}

/** ChatML, but a past assistant message keeps only what follows its last "|" (as Qwen3 drops a past turn's <think> block). */
const STRIPPING = "{% for m in messages %}{% set c = m['content'] %}{% if m['role'] == 'assistant' %}{% set c = c.split('|')[-1] %}{% endif %}{{ '<|im_start|>' + m['role'] + '\\n' + c + '<|im_end|>' + '\\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

/** A dialogue of `turns` turns whose expert answers "think|answer" and whose env replies "ok". */
function scripted(turns: number): Dialogue {
  let taken = 0;
  return {
    opening: 'go',
    turn: () => ({ observation: 'ok', reward: 0, done: ++taken >= turns }),
    expert: () => `t${taken}|a${taken}`,
  };
}

/** The ids the agent wrote in row r, turn by turn (the runs of agent ids). */
function agentRuns(batch: ChatDialogueBatch, r: number): number[][] {
  const runs: number[][] = [];
  batch.agent[r]!.forEach((a, i) => {
    if (!a) return;
    if (i === 0 || !batch.agent[r]![i - 1]) runs.push([]);
    runs.at(-1)!.push(batch.ids[r]![i]!);
  });
  return runs;
}

/** log pi(target) at every position of the rows, as the learners' training graph reads them. */
async function trainingLogProbs(policy: PretrainedPolicy, rows: TokenRows): Promise<Float32Array> {
  const T = rows.width;
  const forward = buildLogProbs(policy, T);
  const session = await Session.create(forward.graph, { logp: forward.logProb }, { weights: policy.weights });
  const out = await session.run({ tokens: { data: rows.tokens, dims: [rows.rows, T] }, targets: { data: rows.targets, dims: [rows.rows, T] }, inv_temperature: new Float32Array([1]), ...rows.modelFeeds });
  await session.release();
  return out.logp!;
}

/**
 * Each learned position's log-prob in training equals the one the model gives the turn's ids
 * after the prompt rendered for that turn, scored alone: every turn is trained in the context it
 * was written in. Returns how many positions were compared.
 */
async function assertTrainedInContext(policy: PretrainedPolicy, batch: ChatDialogueBatch, rows: TokenRows): Promise<number> {
  const logp = await trainingLogProbs(policy, rows);
  const T = rows.width;
  let compared = 0;
  for (let r = 0; r < batch.rows; r++) {
    const messages = batch.transcripts[r]!.filter(([role]) => role !== 'system').map(([role, content]) => ({ role, content }));
    const turns = agentRuns(batch, r);
    const expected: number[] = [];
    for (const [k, ids] of turns.entries()) {
      const before = messages.slice(0, 2 * k + 1);
      expected.push(...(await policy.lm.score(policy.encodeConversation(before, 'test'), ids)));
    }
    const trained = Array.from({ length: T }, (_, i) => i).filter((i) => rows.mask[r * T + i]).map((i) => logp[r * T + i]!);
    assert.equal(trained.length, expected.length, `row ${r}: learned positions`);
    trained.forEach((v, i) => assert.ok(Math.abs(v - expected[i]!) < 1e-4, `row ${r}, learned token ${i}: ${v} in training vs ${expected[i]} when written`));
    compared += trained.length;
  }
  return compared;
}


describe('a conversation that outgrows the model\'s context (issue 46 item 6)', () => {
  it('ends truncated before the turn that would not fit, trained on its turns so far, and is counted', async () => {
    const policy = PretrainedPolicy.load({ folder: QWEN2, chat: CHAT }, new Rng(1));
    // The fixture's context is 128 tokens; each expert turn and "ok" reply add about a dozen.
    const batch = await runChatDialogues([scripted(50), scripted(2)], policy, { expert: true }, { turnTokens: 8, turns: 40, env: 'Scripted' });
    assert.deepEqual([...batch.contextTruncated], [1, 0], 'the long dialogue is cut short, the short one ends by itself');
    assert.ok(batch.turns[0]! > 1 && batch.turns[0]! < 40, `turns taken before the context ran out: ${batch.turns[0]}`);
    assert.equal(batch.turns[1], 2);
    for (const ids of batch.ids) assert.ok(ids.length <= 128, `a row of ${ids.length} ids fits the context`);
  });

  it('an opening that leaves no room for one turn is refused, saying what to shorten', async () => {
    const policy = PretrainedPolicy.load({ folder: QWEN2, chat: CHAT }, new Rng(1));
    await assert.rejects(runChatDialogues([scripted(2)], policy, { expert: true }, { turnTokens: 126, turns: 2, env: 'Scripted' }),
      /Scripted: a dialogue's opening is \d+ tokens, which with a turn of up to 126 tokens exceeds the model's context of 128; shorten the env's opening message/);
  });
});

describe('dialogues with a pretrained model', () => {
  it('renders each turn\'s conversation with the chat template: system prompt, the env as user, the agent\'s turns as assistant', async () => {
    const policy = PretrainedPolicy.load({ folder: QWEN2, chat: CHAT }, new Rng(1));
    const env = new GuessNumber(1, 10, 4);
    const batch = await runChatDialogues([env.dialogue(7), env.dialogue(2)], policy, { expert: true }, { turnTokens: 3, turns: 4, env: 'GuessNumber' });
    assert.deepEqual(batch.transcripts[0], [['system', CHAT.system], ['user', 'Guess a number in 1..10.'], ['assistant', '5'], ['user', 'higher'], ['assistant', '8'], ['user', 'lower'], ['assistant', '6'], ['user', 'higher'], ['assistant', '7']]);
    assert.deepEqual([...batch.success, ...batch.returns], [1, 1, 1, 1]);
    const { tokenizer } = policy.folder;
    for (let r = 0; r < 2; r++) {
      // ChatML renders the history as the model wrote it: one segment, the whole conversation as the template writes it, its last end-of-turn the agent's.
      const messages = batch.transcripts[r]!.map(([role, content]) => ({ role, content }));
      assert.deepEqual(batch.segments[r], [0]);
      assert.equal(tokenizer.decode(batch.ids[r]!) + '\n', policy.folder.chat!.render(messages, { addGenerationPrompt: false }));
      // The learned ids are exactly the assistant's: each turn's text and its <|im_end|>.
      const turns = batch.transcripts[r]!.filter(([role]) => role === 'assistant').map(([, text]) => [...tokenizer.encode(text), policy.stopIds[0]!]);
      assert.deepEqual(agentRuns(batch, r), turns);
      const rows = chatTrainingRows(batch, policy);
      const learned = Array.from({ length: rows.width }, (_, i) => i).filter((i) => rows.mask[r * rows.width + i]).map((i) => Number(rows.targets[r * rows.width + i]));
      assert.deepEqual(learned, turns.flat());
      assert.equal(rows.perRow[r], turns.flat().length);
    }
    await policy.release();
  });

  it('trains sampled turns on the log-probs they were sampled with, left-padded rows of different lengths', async () => {
    const policy = PretrainedPolicy.load({ folder: QWEN2, chat: CHAT }, new Rng(1));
    const env = new GuessNumber(1, 10, 3);
    const dialogues = [3, 3, 9, 9].map((n) => env.dialogue(n));
    const batch = await runChatDialogues(dialogues, policy, { greedy: false, temperature: 1, rng: new Rng(5), tokenStatistics: true }, { turnTokens: 3, turns: 3, env: 'GuessNumber' });
    assert.ok(new Set(batch.ids.map((ids) => ids.length)).size > 1, 'the rows differ in length (the test covers left padding)');
    const rows = chatTrainingRows(batch, policy);
    assert.equal(rows.tokenCount, batch.agentTokens.reduce((a, b) => a + b, 0));
    assert.ok((await assertTrainedInContext(policy, batch, rows)) > 0);
    // Each sampled id's entropy lands on the position that learns it (GRPO's entropy_top_fraction reads them there), in order.
    const entropy = chatTokenEntropy(batch, rows);
    for (let r = 0; r < batch.rows; r++) {
      const atPositions = Array.from({ length: rows.width }, (_, i) => r * rows.width + i).filter((i) => rows.mask[i]).map((i) => entropy[i]!);
      const sampled = batch.entropy[r]!.filter((_, i) => batch.agent[r]![i]);
      assert.deepEqual(atPositions, sampled.map((h) => Math.fround(h)), `row ${r}`);
      assert.ok(sampled.every((h) => h > 0) && entropy.every((h, i) => h === 0 || rows.mask[i] === 1));
    }
    await policy.release();
  });

  it('a template that re-renders past turns (as Qwen3 drops <think>): each turn is trained on the tokens the model read when it wrote it', async () => {
    const folder = withTemplate(STRIPPING);
    const policy = PretrainedPolicy.load({ folder }, new Rng(1));
    const batch = await runChatDialogues([scripted(3), scripted(1)], policy, { expert: true }, { turnTokens: 16, turns: 3, env: 'Scripted' });
    // Turn 2's prompt renders turn 1 as "a0", not the "t0|a0" written: a new segment for each later turn.
    assert.equal(batch.segments[0]!.length, 3);
    assert.equal(batch.segments[1]!.length, 1);
    assert.deepEqual(batch.transcripts[0]!.filter(([role]) => role === 'assistant').map(([, text]) => text), ['t0|a0', 't1|a1', 't2|a2']);
    const rows = chatTrainingRows(batch, policy);
    assert.equal(await assertTrainedInContext(policy, batch, rows), rows.tokenCount);
    fs.rmSync(folder, { recursive: true, force: true });
    await policy.release();
  });

  it('records each turn\'s reward, and the turn of every learned position of the left-padded rows, for per-turn credit', async () => {
    const policy = PretrainedPolicy.load({ folder: QWEN2, chat: CHAT }, new Rng(1));
    const paying = (turns: number): Dialogue => {
      let taken = 0;
      return { opening: 'go', turn: () => ({ observation: 'ok', reward: ++taken * 10, done: taken >= turns }), expert: () => `a${'b'.repeat(taken)}` };
    };
    const batch = await runChatDialogues([paying(3), paying(1)], policy, { expert: true }, { turnTokens: 16, turns: 3, env: 'Scripted' });
    assert.deepEqual([...batch.turnRewards], [10, 20, 30, 10, 0, 0]);
    const rows = chatTrainingRows(batch, policy);
    const turns = chatTurnRewards(batch, rows, 3);
    const W = rows.width;
    for (let r = 0; r < 2; r++) {
      const learned = Array.from({ length: W }, (_, i) => turns.tokenTurn[r * W + i]!).filter((k, i) => rows.mask[r * W + i] === 1);
      // The learned positions in order are the agent's turns in order, each as long as the ids it wrote.
      assert.deepEqual(learned, agentRuns(batch, r).flatMap((ids, k) => ids.map(() => k)), `row ${r}`);
      assert.ok(turns.tokenTurn.subarray(r * W, (r + 1) * W).every((k, i) => (k >= 0) === (rows.mask[r * W + i] === 1)));
    }
    await policy.release();
  });

  it('segments\' positions and mask: one segment per row is the left-padded rows\' own', () => {
    // Row 0: padding at 0, one segment from 1; row 1: segments from 0 and from 2.
    const first = Int32Array.from([1, 1, 1, 1, 0, 0, 2, 2]);
    assert.deepEqual([...segmentPositions(first, 2, 4)].map(Number), [0, 0, 1, 2, 0, 1, 0, 1]);
    const mask = segmentMask(first, 2, 4);
    const sees = (r: number, i: number) => Array.from({ length: 4 }, (_, j) => j).filter((j) => mask[(r * 4 + i) * 4 + j] === 0);
    assert.deepEqual([0, 1, 2, 3].map((i) => sees(1, i)), [[0], [0, 1], [2], [2, 3]]);
    const starts = Int32Array.from([1]);
    assert.deepEqual(segmentMask(first.subarray(0, 4), 1, 4), attentionMask(starts, 0, 4));
    assert.deepEqual(segmentPositions(first.subarray(0, 4), 1, 4), rowPositions(starts, 0, 4));
  });

  it('demonstrations end with the id the chat template ends an assistant\'s turn with, not the first of generation_config\'s (Llama 3\'s <|end_of_text|>)', async () => {
    // As Llama 3 lists <|end_of_text|> before <|eot_id|>: the first stop id is <|endoftext|> (0), the template writes <|im_end|> (2).
    const folder = withTemplate(fs.readFileSync(path.join(QWEN2, 'chat_template.jinja'), 'utf8'));
    fs.writeFileSync(path.join(folder, 'generation_config.json'), JSON.stringify({ eos_token_id: [0, 2] }));
    const policy = PretrainedPolicy.load({ folder, chat: CHAT }, new Rng(1));
    const { tokenizer } = policy.folder;
    assert.deepEqual([policy.stopIds, tokenizer.tokenId('<|endoftext|>'), tokenizer.tokenId('<|im_end|>')], [[0, 2], 0, 2]);
    // A TextTask's SFT target, and a dialogue expert's turns.
    assert.deepEqual(policy.encodeCompletion('42'), [...tokenizer.encode('42'), 2]);
    const batch = await runChatDialogues([new GuessNumber(1, 10, 4).dialogue(7)], policy, { expert: true }, { turnTokens: 3, turns: 4, env: 'GuessNumber' });
    const runs = agentRuns(batch, 0);
    assert.equal(runs.length, 4);
    for (const run of runs) assert.equal(run.at(-1), 2);
    // Trained as the conversation renders: one segment, its text the template's own.
    assert.deepEqual(batch.segments[0], [0]);
    assert.equal(tokenizer.decode(batch.ids[0]!) + '\n', policy.folder.chat!.render(batch.transcripts[0]!.map(([role, content]) => ({ role, content })), { addGenerationPrompt: false }));
    await policy.release();
    // Without a chat template (prompts as plain text) a demonstration ends with the first stop id.
    fs.rmSync(path.join(folder, 'chat_template.jinja'));
    const plain = PretrainedPolicy.load({ folder }, new Rng(1));
    assert.deepEqual(plain.encodeCompletion('42'), [...tokenizer.encode('42'), 0]);
    await plain.release();
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it('a model without a chat template is refused for dialogues, naming the folder and what to use', async () => {
    const folder = withTemplate(null);
    const config = JSON.parse(fs.readFileSync(path.join(folder, 'tokenizer_config.json'), 'utf8'));
    delete config.chat_template;
    fs.writeFileSync(path.join(folder, 'tokenizer_config.json'), JSON.stringify(config));
    const plan = guessPlan([{ algorithm: 'GRPO', params: { group_size: 2, prompts_per_update: 1 }, budget: 4 }]);
    plan.policy = { ...plan.policy, params: { ...plan.policy.params, model: folder } };
    await assert.rejects(train(plan, { out: tempDir() }), (err: Error) => err.name === 'PlanError' && /has no chat template .*which dialogues need .*use a chat \(instruct\) model, or a TextTask/.test(err.message));
    fs.rmSync(folder, { recursive: true, force: true });
  });
});

function guessPlan(stages: { algorithm: string; params: Record<string, unknown>; budget: number | null }[]): Plan {
  const plan = makePlan({ env: 'GuessNumber', envParams: { low: 1, high: 10, max_turns: 4 }, algorithm: stages[0]!.algorithm, algorithmParams: stages[0]!.params, budget: stages[0]!.budget ?? 1 });
  plan.stages = stages.map((s, i) => ({ ...plan.stages[0]!, name: `s${i}`, algorithm: { name: s.algorithm, kind: s.algorithm, params: s.params as never }, budget: s.budget }));
  plan.policy = { name: 'Base', kind: 'pretrained', params: { model: QWEN2, chat: { system: CHAT.system, user: CHAT.user } } as Plan['policy']['params'] };
  plan.eval = { every: 1_000_000, episodes: 10, deterministic: true };
  return plan;
}

describe('GuessNumber with a pretrained policy through train()', () => {
  it('checkPlan accepts the pairing; SFT on the expert\'s dialogues then GRPO trains, and the rollout records hold the roles', async () => {
    const plan = guessPlan([
      { algorithm: 'SFT', params: { updates: 3, batch_size: 4, learning_rate: 1e-3 }, budget: null },
      { algorithm: 'GRPO', params: { group_size: 4, prompts_per_update: 2, learning_rate: 1e-3 }, budget: 24 },
    ]);
    checkPlan(plan);
    const result = await train(plan, { out: tempDir() });
    assert.ok(Number.isFinite(result.metrics['losses/policy_loss']!), 'GRPO updated');
    assert.ok(result.metrics['train/turns']! >= 1);
    const events = readEvents(path.join(result.runDir, 'events.jsonl'));
    const rollout = events.find((e) => e.type === 'rollout' && (e as { recorded?: string }).recorded === undefined)! as { file?: string };
    const [header, group] = fs.readFileSync(path.join(result.runDir, rollout.file as string), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual([header.env, header.algorithm, header.group_size], ['GuessNumber', 'GRPO', 4]);
    assert.equal(group.start, '1..10');
    for (const sample of group.samples) {
      const roles = (sample.turns as [string, string][]).map(([role]) => role);
      assert.deepEqual(roles.slice(0, 3), ['system', 'user', 'assistant']);
      assert.deepEqual(sample.turns.slice(0, 2), [['system', CHAT.system], ['user', 'Guess a number in 1..10.']]);
      assert.deepEqual(roles.slice(2), roles.slice(2).map((_, i) => (i % 2 === 0 ? 'assistant' : 'user')));
    }
    const final = events.find((e) => e.type === 'rollout' && (e as { recorded?: string }).recorded === 'final');
    assert.ok(final, 'the final policy\'s held-out dialogues are recorded');
  });
});
