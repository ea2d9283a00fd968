// Verifiers in reward terms: compiled by the reward compiler for a text env, evaluated on the
// completion the trainer sets; compile-time errors name the term and what to write instead.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { PlanExpr, PlanReward } from '../../../dsl/compile/plan.js';
import { compileReward, type RewardEnv } from '../../../runtime/rewards/index.js';

const S = (text: string): PlanExpr => ({ const: text });
const N = (value: number): PlanExpr => ({ const: value });
const R = (ref: string): PlanExpr => ({ ref });
const call = (name: string, ...args: PlanExpr[]): PlanExpr => ({ call: name, args });
const times = (a: PlanExpr, b: PlanExpr): PlanExpr => ({ op: '*', args: [a, b] });

// The action space is not read for text terms; TextTask's own will replace it when the env is wired.
const TEXT_ENV: RewardEnv = { kind: 'TextTask', obsFields: [], actionSpace: { kind: 'discrete', n: 1 }, text: true };
const CARTPOLE: RewardEnv = { kind: 'CartPole', obsFields: ['x', 'x_dot', 'theta', 'theta_dot'], actionSpace: { kind: 'discrete', n: 2 } };

function reward(terms: Record<string, PlanExpr>): PlanReward {
  return { name: 'Correct', replace_env_reward: true, terms: Object.entries(terms).map(([name, expr]) => ({ name, expr })) };
}

describe('verifiers in reward terms (text envs)', () => {
  it('evaluates the docs example per completion: exact answer plus a format bonus', () => {
    const compiled = compileReward(reward({ answer: call('exact', R('completion'), R('target')), format: times(N(0.1), call('regex', R('completion'), S('^[0-9]+$'))) }), TEXT_ENV);
    const c = compiled.context;
    c.prompt = '12+34=';
    c.target = '46';
    const score = (completion: string) => ((c.completion = completion), compiled.evaluate());
    assert.equal(score('46'), 1.1);
    assert.deepEqual([...compiled.values], [1, 0.1]);
    assert.equal(score('47'), 0.1);
    assert.equal(score(' 46'), 1, 'exact trims, the format check does not');
    assert.equal(score(''), 0, 'the empty completion');
    assert.equal(score('forty-six'), 0);
  });

  it('compiles every verifier, with literals, numeric tolerance as an expression and its registry default', () => {
    const compiled = compileReward(
      reward({
        close: call('numeric', R('completion'), R('target'), times(N(2), N(0.25))),
        close_default: call('numeric', R('completion'), R('target')),
        says_equals: call('contains', R('prompt'), S('=')),
        short: { op: '<=', args: [call('length', R('completion')), N(2)] },
        literal: call('exact', S('😀'), R('completion')),
      }),
      TEXT_ENV,
    );
    const c = compiled.context;
    Object.assign(c, { prompt: '1+1=', target: '2', completion: '2.4' });
    compiled.evaluate();
    assert.deepEqual([...compiled.values], [1, 0, 1, 0, 0]);
    c.completion = '😀';
    compiled.evaluate();
    assert.deepEqual([...compiled.values], [0, 0, 1, 1, 1], 'an astral character is one character; literals are compared as text');
  });

  it('a TextTask has prompt, completion and target, and no reply (a dialogue\'s), as the checker says', () => {
    assert.doesNotThrow(() => compileReward(reward({ a: call('contains', R('prompt'), R('target')) }), TEXT_ENV));
    assert.throws(() => compileReward(reward({ a: call('exact', R('completion'), R('reply')) }), TEXT_ENV), /reply/);
  });

  it('pastes no plan text into the generated code', () => {
    const sneaky = '"); process.exit(1); ("';
    const compiled = compileReward(reward({ t: call('contains', R('completion'), S(sneaky)) }), TEXT_ENV);
    assert.ok(!compiled.source.includes('process'), compiled.source);
    compiled.context.completion = `x${sneaky}x`;
    assert.equal(compiled.evaluate(), 1);
  });

  it('refuses a catastrophic-only pattern, a bad pattern and a non-literal pattern when compiling, naming the term', () => {
    const cases: [PlanExpr, RegExp][] = [
      [call('regex', R('completion'), S('(a)\\1')), /reward Correct, term t: regex\(\): .*backreference .* cannot be matched in linear time/],
      [call('regex', R('completion'), S('([0-9]')), /term t: regex\(\): invalid regular expression "\(\[0-9\]"/],
      [call('regex', R('completion'), R('target')), /term t: regex\(\): the pattern must be a "string" literal .*got "target"/],
      [call('exact', R('completion'), N(46)), /term t: exact\(\): "b" must be text \(prompt, completion, target, row.NAME or a "string", or last_number\/boxed\/tagged\/completion_code of one\), got 46/],
      [call('exact', call('length', R('completion')), R('target')), /term t: exact\(\): "a" must be text .*got length\(\.\.\.\)/],
      [call('length', R('obs')), /term t: length\(\): "s" must be text .*got "obs"/],
      [call('exact', R('completion')), /term t: exact\(\) takes 2 argument\(s\), got 1/],
      [{ op: '+', args: [R('completion'), N(1)] }, /term t: "completion" is text: use it in a verifier such as exact\(completion, target\)/],
    ];
    for (const [expr, message] of cases) assert.throws(() => compileReward(reward({ t: expr }), TEXT_ENV), message);
  });

  it('extractors nest in verifiers, and in each other, as text arguments', () => {
    const compiled = compileReward(
      reward({
        gsm8k: call('numeric', call('last_number', R('completion')), R('target')),
        math: call('exact', call('boxed', R('completion')), R('target')),
        answer: call('exact', call('tagged', R('completion'), S('answer')), R('target')),
        think: call('length', call('tagged', R('completion'), S('think'))),
        boxed_answer: call('numeric', call('last_number', call('boxed', call('tagged', R('completion'), S('answer')))), R('target'), N(0)),
        format: call('regex', R('completion'), S('^<think>[\\s\\S]*</think>\\s*<answer>[\\s\\S]*</answer>$')),
      }),
      TEXT_ENV,
    );
    const c = compiled.context;
    c.target = '1234';
    const values = (completion: string) => ((c.completion = completion), compiled.evaluate(), [...compiled.values]);
    assert.deepEqual(values('<think>600 + 634\nis 1,234</think>\n<answer>\\boxed{1234}</answer>'), [1, 1, 0, 18, 1, 1],
      'the answer tag holds a box: exact compares its text as written, last_number reads the number in it');
    assert.deepEqual(values('<think>so</think> <answer>1234</answer>'), [1, 0, 1, 2, 0, 1]);
    assert.deepEqual(values('The total is $1,234. \\boxed{1234}'), [1, 1, 0, 0, 0, 0]);
    assert.deepEqual(values('<answer>1234'), [1, 0, 0, 0, 0, 0], 'a cut-off answer: only its last number counts');
    assert.deepEqual(values(''), [0, 0, 0, 0, 0, 0]);
  });

  it('an extractor alone, or in arithmetic, gives text: refused, saying how to check it', () => {
    for (const expr of [call('last_number', R('completion')), times(N(2), call('boxed', R('completion'))), call('abs', call('tagged', R('completion'), S('answer')))]) {
      assert.throws(() => compileReward(reward({ t: expr }), TEXT_ENV), /term t: (last_number|boxed|tagged)\(\) gives text, not a number: check it with a verifier, such as numeric\(last_number\(completion\), target\)/);
    }
  });

  it('refuses a tag that is not a literal or not a tag name, and nested text of the wrong env, when compiling', () => {
    const cases: [PlanExpr, RegExp][] = [
      [call('exact', call('tagged', R('completion'), R('target')), R('target')), /term t: tagged\(\): the tag must be a "string" literal such as "answer" .*got "target"/],
      [call('exact', call('tagged', R('completion'), S('<answer>')), R('target')), /term t: tagged\(\): write the tag's name alone: "answer" reads <answer>...<\/answer>/],
      [call('exact', call('tagged', R('completion'), S('my answer')), R('target')), /term t: tagged\(\): "my answer" is not a tag name/],
      [call('exact', call('tagged', R('completion')), R('target')), /term t: tagged\(\) takes 2 argument\(s\), got 1/],
      [call('exact', call('boxed', R('reply')), R('target')), /term t: boxed\(\): "reply": only dialogue envs have a reply/],
      [call('exact', call('last_number', N(5)), R('target')), /term t: last_number\(\): "s" must be text .*got 5/],
    ];
    for (const [expr, message] of cases) assert.throws(() => compileReward(reward({ t: expr }), TEXT_ENV), message);
  });

  it('pastes no tag or nested literal into the generated code', () => {
    const sneaky = '"); process.exit(1); ("';
    const compiled = compileReward(reward({ t: call('exact', call('last_number', S(sneaky)), call('tagged', R('completion'), S('answer'))) }), TEXT_ENV);
    assert.ok(!compiled.source.includes('process') && !compiled.source.includes('answer'), compiled.source);
    compiled.context.completion = '<answer>1</answer>';
    assert.equal(compiled.evaluate(), 1);
  });

  it('non-text envs still refuse verifiers and text names', () => {
    assert.throws(() => compileReward(reward({ t: call('exact', R('completion'), R('target')) }), CARTPOLE), /exact\(\): text verifiers need a text environment/);
    assert.throws(() => compileReward(reward({ t: call('length', R('completion')) }), CARTPOLE), /length\(\): text verifiers need a text environment/);
    assert.throws(() => compileReward(reward({ t: call('numeric', call('last_number', R('completion')), R('target')) }), CARTPOLE), /numeric\(\): text verifiers need a text environment/);
  });
});
