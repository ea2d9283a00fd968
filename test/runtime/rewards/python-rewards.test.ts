// Dataset columns and Python reward functions in a TextTask's reward (issue 45): `row.NAME` terms,
// python("./file.py:fn") terms called with TRL's arguments once per batch in a Python worker,
// None as "not scored", and every way a function can fail named with the function and the row,
// before the batch is used. The functions are test/fixtures/python/rewards/rlx_test_rewards.py.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import type { PlanExpr, PlanReward } from '../../../dsl/compile/plan.js';
import { compileReward } from '../../../runtime/rewards/index.js';
import { datasetTask, loadDataset } from '../../../runtime/text/dataset.js';
import { TextEnvironment } from '../../../runtime/text/env.js';
import type { TextTask } from '../../../runtime/text/task.js';
import { Rng } from '../../../shared/random.js';
import { writer } from './text-writer.js';
import { pythonWorkers, testPython } from '../../helpers/python.js';
import * as fs from 'node:fs';
import { pythonRewardFile } from '../../../runtime/envs/python/python-env-plan.js';
import type { PretrainedPolicy } from '../../../runtime/policies/pretrained.js';
import { tempDir } from '../helpers.js';
import { repoRoot } from '../../helpers/repo.js';

const FIXTURES = path.join(repoRoot(), 'test/fixtures/python/rewards');
const FILE = './rlx_test_rewards.py';
const python = testPython();
const needsPython = python ? {} : { skip: 'no python3 with numpy (see test/helpers/python.ts)' };

const py = (fn: string): PlanExpr => ({ call: 'python', args: [{ const: `${FILE}:${fn}` }] });
const reward = (terms: Record<string, PlanExpr>): PlanReward => ({ name: 'R', replace_env_reward: true, terms: Object.entries(terms).map(([name, expr]) => ({ name, expr })) });

/** The fixture's four rows, sampled in file order (a TextTask samples at random: here every row is seen once a batch). */
function rowsTask(): TextTask {
  const { examples } = loadDataset('./rows.jsonl', FIXTURES);
  const task = datasetTask(examples, './rows.jsonl');
  let next = 0;
  return { ...task, sample: () => examples[next++ % examples.length]! };
}

const opened: TextEnvironment[] = [];

function envOf(terms: Record<string, PlanExpr>, timeoutSeconds = 60): TextEnvironment {
  const compiled = compileReward(reward(terms), { kind: 'TextTask', obsFields: [], actionSpace: { kind: 'discrete', n: 1 }, text: true });
  compiled.python.configure({ baseDir: FIXTURES, python: python?.python ?? 'python3', timeoutSeconds, processEnv: python?.env });
  const env = new TextEnvironment(rowsTask(), 4, compiled);
  opened.push(env);
  return env;
}


const options = { groups: 4, groupSize: 1, startRng: new Rng(1), sampleRng: new Rng(2), temperature: 1 };

describe('reward terms over dataset rows and Python reward functions', () => {
  after(async () => {
    for (const env of opened) env.close();
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(pythonWorkers(), [], 'close() ends every reward worker');
  });

  it('row.NAME reads a row\'s field: as text in a verifier (a number as JSON writes it), and as a number', async () => {
    const env = envOf({ answer: { call: 'exact', args: [{ ref: 'completion' }, { ref: 'row.answer' }] } });
    const out = await env.rollouts(writer(env, ['2', '3', 'hi', '6']), options);
    // Rows 1..4: answer 2 (right), 4 (wrong), "hi" (right), 6 (right).
    assert.deepEqual([...out.rewards], [1, 0, 1, 1]);
    const doubled = envOf({ doubled: { op: '*', args: [{ const: 2 }, { ref: 'row.answer' }] } });
    await assert.rejects(doubled.rollouts(writer(doubled, ['2']), options), /^RowFieldError: reward R: \.\/rows\.jsonl line 3: row\.answer is text, where the term needs a number \(or true\/false\); text goes into a verifier/);
  });

  it('a row that lacks a field the reward reads is an error naming the file, the line and the field', async () => {
    const env = envOf({ extra: { ref: 'row.extra' } });
    await assert.rejects(env.rollouts(writer(env, ['2']), options), (err: Error) => {
      assert.match(err.message, /^reward R: \.\/rows\.jsonl line 2 has no field "extra" \(row\.extra\); its fields are prompt, target, answer, kind, tags\. Give every row the field/);
      return true;
    });
  });

  it('a python() term is called once per batch with TRL\'s arguments: prompts (messages where conversational), completions, completion_ids, each column a list', needsPython, async () => {
    const env = envOf({ seen: py('arguments'), calls: py('count_calls') });
    const out = await env.rollouts(writer(env, ['2', '44', 'hi', '6']), options);
    // Row 1: "extra" given, a list of tags, 1 id; row 2 lacks "extra" (None): +10; row 3 conversational: +1000; ids: the completion's characters.
    assert.deepEqual(out.samples!.map((s) => s.terms!.seen), [101, 112, 1112, 101]);
    assert.deepEqual(out.samples!.map((s) => s.terms!.calls), [1, 1, 1, 1], 'one call for the whole batch');
    const second = await env.rollouts(writer(env, ['2']), options);
    assert.equal(second.samples![0]!.terms!.calls, 2);
  });

  it('weights and several functions: the total sums the weighted scores; None leaves a term out of the total and of its logged mean', needsPython, async () => {
    const env = envOf({ acc: py('accuracy'), math: { op: '*', args: [{ const: 0.5 }, py('math_only')] } });
    const out = await env.rollouts(writer(env, ['2', '3', 'hi', '6']), options);
    // accuracy: 1, 0, 1, 1; math_only: 2, 2, None, 2 (times 0.5).
    assert.deepEqual([...out.rewards], [2, 1, 1, 2]);
    assert.equal(out.metrics!['rewards/acc'], 0.75);
    assert.equal(out.metrics!['rewards/math'], 1, 'the mean of the three rows it scored');
    assert.equal(out.metrics!['rewards/unscored'], 0);
    assert.deepEqual(out.samples![2]!.terms, { acc: 1 }, 'an unscored term is not recorded');
  });

  it('a completion no function scores has reward 0 and counts in rewards/unscored', needsPython, async () => {
    const env = envOf({ never: py('never') });
    const out = await env.rollouts(writer(env, ['2']), options);
    assert.deepEqual([...out.rewards], [0, 0, 0, 0]);
    assert.equal(out.metrics!['rewards/unscored'], 1);
    assert.equal(out.metrics!['rewards/never'], undefined);
  });

  const failures: [string, string, RegExp, number?][] = [
    ['raises', 'an exception', /^reward R: python\("\.\/rlx_test_rewards\.py:raises"\) raised on 4 completions \(rows \.\/rows\.jsonl line 1, \.\/rows\.jsonl line 2, \.\/rows\.jsonl line 3, \.\/rows\.jsonl line 4\), so nothing was trained on them:\n[\s\S]*KeyError: 'solution'/],
    ['hangs', 'past its timeout', /^reward R: python\("\.\/rlx_test_rewards\.py:hangs"\): while scoring 4 completions \(rows .*\) did not return within 1 s \(reward_timeout\); the worker was stopped/, 1],
    ['too_few', 'the wrong number of rewards', /^reward R: python\("\.\/rlx_test_rewards\.py:too_few"\) returned 3 rewards for 4 completions \(rows .*\); it must return one per completion/],
    ['nan_for_second', 'NaN', /^reward R: python\("\.\/rlx_test_rewards\.py:nan_for_second"\) returned nan for completion 2 of 4 \(row \.\/rows\.jsonl line 2\); a reward must be a finite number/],
    ['text_reward', 'a non-number', /^reward R: python\("\.\/rlx_test_rewards\.py:text_reward"\) returned a str for completion 1 of 4 \(row \.\/rows\.jsonl line 1\)/],
    ['scalar', 'one number for the batch', /^reward R: python\("\.\/rlx_test_rewards\.py:scalar"\) returned a float, not a list of 4 rewards/],
    ['missing', 'no such function', /^reward R: Python could not load the reward functions \(\.\/rlx_test_rewards\.py:missing\):\nrlx_test_rewards\.py defines no function missing \(its functions: accuracy, arguments, count_calls/],
  ];
  for (const [fn, what, message, timeout] of failures) {
    it(`a function that returns or does ${what} fails the batch, naming the function and the row`, needsPython, async () => {
      const env = envOf({ broken: py(fn) }, timeout);
      await assert.rejects(env.rollouts(writer(env, ['2']), options), (err: Error) => {
        assert.equal(err.name, 'PythonRewardError');
        assert.match(err.message, message);
        return true;
      });
    });
  }

  it('held-out evaluation scores its completions with the functions too, in one batch', needsPython, async () => {
    const env = envOf({ acc: py('accuracy') });
    const outcome = await env.evaluate(writer(env, ['2']) as never);
    assert.equal(outcome.samples!.length, env.task.heldOut().length);
    for (const sample of outcome.samples!) assert.equal(sample.reward, sample.text!.trim() === String((env.task.heldOut().find((e) => e.prompt === sample.start)!.row!.answer)) ? 1 : 0);
  });

  it('a run folder finds a function\'s file where the run recorded it (source/python-rewards.json), and says so when it is gone', () => {
    const run = tempDir();
    fs.writeFileSync(path.join(run, 'plan.json'), '{}');
    fs.mkdirSync(path.join(run, 'source'));
    const file = path.join(FIXTURES, 'rlx_test_rewards.py');
    fs.writeFileSync(path.join(run, 'source', 'python-rewards.json'), JSON.stringify({ files: { [FILE]: file } }));
    assert.equal(pythonRewardFile(FILE, run), file);
    assert.equal(pythonRewardFile(FILE, FIXTURES), file, 'from the .rlx file\'s folder');
    fs.writeFileSync(path.join(run, 'source', 'python-rewards.json'), JSON.stringify({ files: { [FILE]: path.join(run, 'gone.py') } }));
    assert.match((pythonRewardFile(FILE, run) as { problem: string }).problem, /gone\.py \(where it was when the run trained\) is not there any more/);
  });

  it('a conversational row reaches a pretrained model as its messages, through the chat template; a plain one as its text', () => {
    const seen: unknown[] = [];
    const model = {
      kind: 'pretrained',
      padId: 0,
      encodePrompt: (text: string) => (seen.push(text), [1]),
      encodeConversation: (messages: unknown) => (seen.push(messages), [2, 3]),
      encodeCompletion: () => [4, 5],
      rowFeeds: () => ({}),
    } as unknown as PretrainedPolicy;
    const env = new TextEnvironment(rowsTask(), 4, null);
    const examples = env.task.heldOut().length > 0 ? [...loadDataset('./rows.jsonl', FIXTURES).examples] : [];
    env.demonstrationRows(examples, model);
    assert.deepEqual(seen, ['1+1=', '2+2=', [{ role: 'user', content: 'say hi' }], '3+3=']);
  });
});
