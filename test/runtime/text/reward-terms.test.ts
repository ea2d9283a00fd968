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
      [call('exact', R('completion'), N(46)), /term t: exact\(\): "b" must be text \(prompt, completion, target or a "string"\), got 46/],
      [call('length', R('obs')), /term t: length\(\): "s" must be text .*got "obs"/],
      [call('exact', R('completion')), /term t: exact\(\) takes 2 argument\(s\), got 1/],
      [{ op: '+', args: [R('completion'), N(1)] }, /term t: "completion" is text: use it in a verifier such as exact\(completion, target\)/],
    ];
    for (const [expr, message] of cases) assert.throws(() => compileReward(reward({ t: expr }), TEXT_ENV), message);
  });

  it('non-text envs still refuse verifiers and text names', () => {
    assert.throws(() => compileReward(reward({ t: call('exact', R('completion'), R('target')) }), CARTPOLE), /exact\(\): text verifiers need a text environment/);
    assert.throws(() => compileReward(reward({ t: call('length', R('completion')) }), CARTPOLE), /length\(\): text verifiers need a text environment/);
  });
});
