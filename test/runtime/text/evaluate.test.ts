// Held-out evaluation: exact-match accuracy and the mean reward of a completion function.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { PlanReward } from '../../../dsl/compile/plan.js';
import { compileReward } from '../../../runtime/rewards/index.js';
import { evaluateText, scoreWith } from '../../../runtime/text/evaluate.js';
import { addition } from '../../../runtime/text/generated.js';

/** The right answer to "a+b=". */
const solve = (prompts: readonly string[]) => prompts.map((p) => String(p.slice(0, -1).split('+').reduce((a, b) => a + Number(b), 0)));

const examples = [
  { prompt: '1+1=', target: '2' },
  { prompt: '2+2=', target: '4' },
  { prompt: '3+4=', target: '7' },
  { prompt: '9+9=', target: '18' },
];

describe('evaluateText', () => {
  it('accuracy is the fraction of exact (trimmed) answers; no reward, no mean reward', async () => {
    const answers: Record<string, string> = { '1+1=': '2', '2+2=': ' 4\n', '3+4=': '8', '9+9=': '' };
    const result = await evaluateText(examples, (prompts) => prompts.map((p) => answers[p]));
    assert.equal(result.accuracy, 0.5);
    assert.equal(result.meanReward, null);
    assert.equal(result.count, 4);
    assert.deepEqual(result.completions, ['2', ' 4\n', '8', '']);
  });

  it('calls the completion function in batches, in order, and awaits it', async () => {
    const batches: string[][] = [];
    const result = await evaluateText(
      examples,
      async (prompts) => {
        batches.push([...prompts]);
        return solve(prompts);
      },
      { batchSize: 3 },
    );
    assert.deepEqual(batches, [['1+1=', '2+2=', '3+4='], ['9+9=']]);
    assert.equal(result.accuracy, 1);
  });

  it('scores completions with the experiment\'s compiled reward', async () => {
    const reward: PlanReward = {
      name: 'Correct',
      replace_env_reward: true,
      terms: [
        { name: 'answer', expr: { call: 'exact', args: [{ ref: 'completion' }, { ref: 'target' }] } },
        { name: 'format', expr: { op: '*', args: [{ const: 0.5 }, { call: 'regex', args: [{ ref: 'completion' }, { const: '^[0-9]+$' }] }] } },
      ],
    };
    const compiled = compileReward(reward, { kind: 'TextTask', obsFields: [], actionSpace: { kind: 'discrete', n: 1 }, text: true });
    const result = await evaluateText(examples, (prompts) => prompts.map((p) => (p === '1+1=' ? '2' : 'x')), { reward: scoreWith(compiled) });
    assert.equal(result.accuracy, 0.25);
    assert.equal(result.meanReward, 1.5 / 4);
  });

  it('evaluates a task\'s held-out set: a perfect solver scores 1, a constant one almost 0', async () => {
    const heldOut = addition(2).heldOut();
    assert.equal((await evaluateText(heldOut, solve)).accuracy, 1);
    assert.ok((await evaluateText(heldOut, (prompts) => prompts.map(() => '100'))).accuracy < 0.1);
  });

  it('refuses no examples, a bad batch size and a wrong number of completions', async () => {
    await assert.rejects(evaluateText([], () => []), /no examples to evaluate/);
    await assert.rejects(evaluateText(examples, () => [], { batchSize: 0 }), /batchSize must be a positive integer, got 0/);
    await assert.rejects(evaluateText(examples, (prompts) => prompts.slice(1)), /must return 4 strings for 4 prompts, got 3 value\(s\)/);
  });
});
