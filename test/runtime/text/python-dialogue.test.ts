// Python text envs (runtime/text/python-dialogue.ts over worker.py serve_text): a class's
// reset/step/expert round trip as dialogues, chat-message observations, info values in reward
// terms, copies spread over worker processes, and every fault as one error naming the class, the
// method and the episode (test/fixtures/python/rlx_text_envs.py).
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { PythonDialogueEnv, PythonTextEnvError, type PythonTextOptions } from '../../../runtime/text/python-dialogue.js';
import { DialogueEnvironment } from '../../../runtime/text/dialogue-env.js';
import { DialogueReward } from '../../../runtime/text/dialogue-reward.js';
import { runDialogues } from '../../../runtime/text/dialogue.js';
import { PYTHON_TEXT_ALPHABET } from '../../../dsl/schema/python-text-env.js';
import { Rng } from '../../../shared/random.js';
import { testPython } from '../../helpers/python.js';
import { repoRoot } from '../../helpers/repo.js';
import { makePlan, tempDir } from '../helpers.js';
import { resume, train } from '../../../runtime/train.js';
import { readEvents } from '../../../runtime/run/events.js';
import { withTestPython } from '../../helpers/python.js';
import * as fs from 'node:fs';
import type { PlanExpr } from '../../../dsl/compile/plan.js';

const python = testPython();
const skip = python === null ? 'python3 with numpy is not available' : false;
const file = path.join(repoRoot(), 'test/fixtures/python/rlx_text_envs.py');
const opened: PythonDialogueEnv[] = [];
after(() => opened.forEach((e) => e.close()));

function env(over: Partial<PythonTextOptions> = {}): PythonDialogueEnv {
  const made = new PythonDialogueEnv({
    label: 'env Count (python_text "./rlx_text_envs.py:Count")', file, className: 'Count', kwargs: {}, python: python!.python, processEnv: python!.env,
    timeoutSeconds: 10, copiesPerProcess: 2, maxTurns: 4, maxObservation: 40, maxAction: 4, alphabet: PYTHON_TEXT_ALPHABET, info: ['right', 'n'], ...over,
  });
  opened.push(made);
  return made;
}

function faulty(fault: string, over: Partial<PythonTextOptions> = {}): PythonDialogueEnv {
  return env({ label: 'env Shop (python_text "./rlx_text_envs.py:Faulty")', className: 'Faulty', kwargs: { fault, at: 2 }, ...over });
}

/** Plays a dialogue with the expert's turns until `env` fails; the error. */
function failure(made: PythonDialogueEnv): Error {
  try {
    const d = made.dialogue(1);
    for (let t = 0; t < 4; t++) d.turn(d.expert!());
  } catch (err) {
    return err as Error;
  }
  assert.fail('the env did not fail');
}

describe('a Python text env', { skip }, () => {
  it('runs reset(seed), step(action) and expert(observation) as a dialogue, with info values and success', () => {
    const made = env();
    assert.equal(made.hasExpert, true);
    const d = made.dialogue(2);
    assert.equal(d.opening, 'start 2');
    const wrong = d.turn('9');
    assert.deepEqual(wrong, { observation: 'now 2', reward: 0, done: false, success: false, info: { right: 0, n: 2 } });
    assert.equal(d.expert!(), '3');
    const right = d.turn('3');
    assert.deepEqual(right, { observation: '', reward: 1, done: true, success: true, info: { right: 1, n: 3 } });
  });

  it('takes a list of chat messages as an observation: their contents for the character model, the messages for a chat model', () => {
    const d = env({ kwargs: { messages: true } }).dialogue(0);
    assert.equal(d.opening, 'count up\nstart 0');
    assert.deepEqual(d.openingMessages, [['system', 'count up'], ['user', 'start 0']]);
    const reply = d.turn('1');
    assert.deepEqual(reply.messages, [['system', 'count up'], ['user', 'now 1']]);
  });

  it('spreads copies over worker processes, copies_per_process each, and reuses a copy once its dialogue is over', async () => {
    const made = env({ copiesPerProcess: 2 });
    const batch = await runDialogues([0, 1, 2, 3, 4].map((s) => made.dialogue(s)), new DialogueEnvironment(made, 'python_text').tokenizer, new DialogueEnvironment(made, 'python_text').layout, { expert: true });
    assert.deepEqual(Array.from(batch.success), [1, 1, 1, 1, 1]);
    const pids = new Set((made as unknown as { workers: { pid: number }[] }).workers.map((w) => w.pid));
    assert.equal(pids.size, 3, 'five dialogues at once, two copies a process');
    made.dialogue(0); // all five are free again: no sixth copy, no fourth process
    assert.equal((made as unknown as { copies: unknown[] }).copies.length, 5);
  });

  it('trains through DialogueEnvironment: expert demonstrations, and info fields in reward terms', async () => {
    const made = env();
    const plan = makePlan({
      env: 'python_text',
      reward: { name: 'R', replace_env_reward: true, terms: [{ name: 'count', expr: { op: '*', args: [{ const: 2 }, { ref: 'info.n' }] } as PlanExpr }] },
    });
    const rows = new DialogueEnvironment(made, 'python_text', DialogueReward.fromPlan(plan, made.infoFields));
    const demos = await rows.demonstrations(4, new Rng(1));
    assert.equal(demos.rows, 4);
    assert.ok(demos.tokenCount > 0);
    const batch = await runDialogues([made.dialogue(0)], rows.tokenizer, rows.layout, { expert: true }, DialogueReward.fromPlan(plan, made.infoFields));
    // Seed 0 starts at 0: the expert says 1, 2, 3 (done at 3), info.n = 1, 2, 3: the terms give 2 + 4 + 6.
    assert.deepEqual(Array.from(batch.returns), [12]);
  });
});

describe('a Python text env that misbehaves fails with one error naming the class, the method and the episode', { skip }, () => {
  const cases: [string, RegExp][] = [
    ['raise', /^env Shop \(python_text "\.\/rlx_text_envs\.py:Faulty"\): Faulty\.step\(\) in episode 1 \(reset seed 1, turn 2\) raised:\n(.|\n)*RuntimeError: the shop is closed/],
    ['nan', /Faulty\.step\(\) in episode 1 \(reset seed 1, turn 2\): step\(\) returned the reward nan; a reward is a finite number$/],
    ['reward_str', /Faulty\.step\(\) in episode 1 .*: step\(\) returned the reward 'lots' \(str\); a reward is one number$/],
    ['obs_int', /Faulty\.step\(\) in episode 1 .*: step\(\) returned the observation 7 \(int\); an observation is a string or a non-empty list of chat messages/],
    ['four', /Faulty\.step\(\) in episode 1 .*: step\(\) returned 4 values; a text env's step\(\) returns 5/],
    ['long', /Faulty\.step\(\) in episode 1 .*returned the reply "x+"\.\.\., 500 characters, but the env's max_observation is 40; raise max_observation or write less$/],
    ['no_info', /Faulty\.step\(\) in episode 1 .*: step\(\) returned an info without 'right', which the env's `info` setting names/],
    ['reset_int', /Faulty\.reset\(\) in episode 1 \(reset seed 1\): reset\(\) returned the observation 42 \(int\)/],
    ['die', /^env Shop \(python_text "\.\/rlx_text_envs\.py:Faulty"\): the Python worker \(pid \d+\) died while running Faulty\.step\(\) in episode 1 \(reset seed 1, turn 2\)/],
  ];
  for (const [fault, expected] of cases) {
    it(fault, () => {
      const err = failure(faulty(fault));
      assert.ok(err instanceof PythonTextEnvError, `${err.name}: ${err.message}`);
      assert.match(err.message, expected);
    });
  }

  it('hang: a step past env_timeout ends its worker and says so', () => {
    const err = failure(faulty('hang', { timeoutSeconds: 1 }));
    assert.ok(err instanceof PythonTextEnvError);
    assert.match(err.message, /while running Faulty\.step\(\) in episode 1 \(reset seed 1, turn 2\) did not return within 1 s \(env_timeout\)/);
  });

  it('a class without step() is refused when the env starts, naming the method', () => {
    assert.throws(() => env({ className: 'NoStep' }), /NoStep has no method step; a Python text env has reset\(seed=None, options=None\)/);
  });

  it('a class the file does not define is refused when the env starts, with the classes it has', () => {
    assert.throws(() => env({ className: 'Shop' }), (err: Error) => /defines no class Shop \(its classes: Count, Faulty, NoStep\)/.test(err.message));
  });
});

describe('a run on a Python text env', { skip }, () => {
  it('stops, and resumes from another working folder with the class loaded from the file the run recorded', { timeout: 300_000 }, async () => {
    const dir = tempDir();
    fs.copyFileSync(file, path.join(dir, 'count.py'));
    const plan = makePlan({ env: 'python_text', envParams: { file: 'count.py', class: 'Count', max_turns: 3, max_observation: 8, max_action: 2, alphabet: 'startnow 0123456789', info: ['n'] } });
    plan.policy = { name: 'Tiny', kind: 'transformer', params: { layers: 1, width: 16, heads: 2, context: 48 } } as typeof plan.policy;
    plan.stages = [
      { name: 'warmup', algorithm: { name: 'SFT', kind: 'SFT', params: { updates: 6, batch_size: 8 } }, budget: null },
      { name: 'main', algorithm: { name: 'Rloo', kind: 'REINFORCE', params: { baseline: 'leave_one_out', episodes_per_update: 8 } }, budget: 48 },
    ];
    await withTestPython(async () => {
      const controller = new AbortController();
      const stopped = await train(plan, { out: tempDir(), baseDir: dir, checkpointEvery: 1, onProgress: (p) => p.step > 6 * 8 + 8 && controller.abort(), signal: controller.signal });
      assert.equal(stopped.status, 'stopped');
      assert.equal(JSON.parse(fs.readFileSync(path.join(stopped.runDir, 'source', 'python-env.json'), 'utf8')).file, path.join(dir, 'count.py'));
      const result = await resume(stopped.runDir);
      assert.equal(result.status, 'finished');
      assert.ok(result.step >= 6 * 8 + 48, `step ${result.step}`);
    });
  });
});

describe('a pretrained chat model on a Python text env', { skip }, () => {
  it('trains through its chat template: SFT on the expert, then GRPO; the env\'s own system message opens each dialogue', { timeout: 300_000 }, async () => {
    const plan = makePlan({ env: 'python_text', envParams: { file, class: 'Count', max_turns: 3, max_observation: 24, max_action: 4, info: ['n'], kwargs: { messages: true } } });
    plan.policy = { name: 'Base', kind: 'pretrained', params: { model: path.join(repoRoot(), 'test/fixtures/hf-tiny/qwen2'), chat: { system: 'not this one' } } } as unknown as typeof plan.policy;
    plan.stages = [
      { name: 'warmup', algorithm: { name: 'SFT', kind: 'SFT', params: { updates: 2, batch_size: 4 } }, budget: null },
      { name: 'main', algorithm: { name: 'Grpo', kind: 'GRPO', params: { group_size: 4, prompts_per_update: 2 } }, budget: 16 },
    ];
    await withTestPython(async () => {
      const result = await train(plan, { out: tempDir() });
      assert.equal(result.status, 'finished');
      const events = readEvents(path.join(result.runDir, 'events.jsonl'));
      const rollout = events.find((e) => e.type === 'rollout') as { file?: string };
      const [, group] = fs.readFileSync(path.join(result.runDir, rollout.file!), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      assert.ok(group.samples.length === 4, `a group of 4 dialogues: ${group.samples.length}`);
      for (const sample of group.samples) {
        assert.deepEqual(sample.turns.slice(0, 2), [['system', 'count up'], ['user', group.start.split('\n')[1]]]);
        assert.equal(sample.turns[2][0], 'assistant');
      }
    });
  });
});
